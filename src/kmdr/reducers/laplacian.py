"""Laplacian score feature selection (He, Cai, Niyogi 2005), bzmd14's "LapScores" baseline."""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import pairwise_distances_chunked
from sklearn.neighbors import kneighbors_graph
from sklearn.utils._param_validation import Interval, StrOptions

from kmdr.reducers._base import BaseReducer
from kmdr.reducers._builtins import declared_plan
from kmdr.reducers._validation import column_subset

#: Rows used to estimate the default heat-kernel scale (as in Deng Cai's ``constructW``).
_T_SAMPLE = 3000
#: A feature whose D-weighted variance is below this fraction of its D-weighted second moment is
#: treated as constant (the rounding error of the expanded formula is ~ n * machine epsilon).
_CONSTANT_RTOL = 1e-10


def heat_kernel_scale(X, max_rows: int = _T_SAMPLE) -> float:
    """Default ``t``: the mean of the Euclidean distance matrix of (up to ``max_rows`` rows of) X.

    This is the default of Deng Cai's ``constructW`` (the code bzmd14 ran for LapScores): the mean
    over all m^2 entries, diagonal included, of the m x m distance matrix of the rows, with
    m = min(n, 3000). Above 3000 rows Cai draws a random subset; here the rows are evenly spaced
    (deterministic, so the scores depend on the data only). Computed in chunks, never holding the
    full matrix. Returns 1.0 when all rows coincide (every weight is then 1 whatever t is).
    """
    n = X.shape[0]
    rows = np.unique(np.linspace(0, n - 1, min(n, max_rows)).astype(np.intp))
    Xs = X[rows]
    total = sum(float(chunk.sum()) for chunk in pairwise_distances_chunked(Xs))
    t = total / len(rows) ** 2
    return t if t > 0 else 1.0


def heat_kernel_graph(X, n_neighbors: int, t: float):
    """W: the symmetrised kNN graph with weights ``exp(-||x_i - x_j||^2 / (2 t^2))``, CSR n x n.

    ``i ~ j`` if either is among the other's ``n_neighbors`` nearest neighbours (self excluded),
    Cai's ``max(W, W')``; no self loops.
    """
    G = kneighbors_graph(X, n_neighbors, mode="distance", include_self=False)
    W = sp.csr_array(G)
    W.data = np.exp(-(W.data**2) / (2.0 * t**2))
    # The weight of an edge is the same from either end, so the maximum is the union of edges.
    return sp.csr_array(W.maximum(W.T))


def laplacian_scores(X, W) -> np.ndarray:
    """He-Cai-Niyogi Laplacian score of every column of X for the graph W (smaller is better).

    With ``D = diag(W 1)``, ``L = D - W`` and ``f~ = f - (f^T D 1 / 1^T D 1) 1``, the score of f is
    ``f~^T L f~ / f~^T D f~``. Since ``L 1 = 0`` the numerator is ``f^T D f - f^T W f`` and the
    denominator ``f^T D f - (f^T D 1)^2 / 1^T D 1``; both are computed for all columns at once
    with sparse products (``W X`` has the sparsity of a graph product, never dense n x n), without
    densifying a sparse X. Constant features (zero D-weighted variance, the denominator 0) get the
    score +inf so they are selected last; Cai's code gives them a large constant (10000).
    """
    deg = np.asarray(W.sum(axis=1)).ravel()
    vol = deg.sum()
    if sp.issparse(X):
        X = sp.csr_array(X)
        fD1 = X.T @ deg
        fDf = X.multiply(X).T @ deg
        fWf = np.asarray(X.multiply(W @ X).sum(axis=0)).ravel()
    else:
        fD1 = deg @ X
        fDf = deg @ (X * X)
        fWf = np.einsum("ij,ij->j", X, W @ X)
    numerator = np.maximum(fDf - fWf, 0.0)
    denominator = fDf - fD1**2 / vol
    constant = denominator <= _CONSTANT_RTOL * fDf
    scores = np.full(X.shape[1], np.inf)
    scores[~constant] = numerator[~constant] / denominator[~constant]
    return scores


class LaplacianScoreSelector(BaseReducer):
    """Keep the r features with the smallest Laplacian scores, unscaled.

    He, Cai, Niyogi, *Laplacian Score for Feature Selection*, NIPS 2005; the "LapScores" baseline
    of Boutsidis, Zouzias, Mahoney, Drineas 2015, which ran Deng Cai's code with its defaults
    (5-NN graph, heat kernel). See :func:`laplacian_scores` for the formula and
    :func:`heat_kernel_scale` for the default t. Sparse X stays sparse throughout. Deterministic.

    Parameters
    ----------
    n_components : int, default=2
        r, 1 <= r <= n_features.
    n_neighbors : int, default=5
        Neighbours per point in the kNN graph (1 <= n_neighbors < n_samples).
    t : "auto" or float > 0, default="auto"
        Heat-kernel scale in ``exp(-||x_i - x_j||^2 / (2 t^2))``. "auto" is the mean pairwise
        distance (:func:`heat_kernel_scale`); a fixed small t (say 1) makes every weight underflow
        to 0 on 0..255 pixel data.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Laplacian scores (+inf for constant features).
    selected_features_ : ndarray of shape (n_components,)
        Indices of the r smallest scores, in increasing order of score (ties: lower index first).
    t_ : float
        The heat-kernel scale used.
    n_components_, n_features_in_, shared_seconds_
        See :class:`BaseReducer`.
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "t": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
    }

    plan = declared_plan(__name__, "LaplacianScoreSelector")

    def __init__(
        self,
        n_components=2,
        *,
        n_neighbors=plan.defaults["n_neighbors"],
        t=plan.defaults["t"],
    ):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.t = t

    def _check_data_params(self, shape):
        # at most n - 1 neighbours a row: the plan's rule says so, also when a run is planned
        self.max_components(*shape)

    def _compute_shared_value(self, X, random_state):
        t = heat_kernel_scale(X) if self.t == "auto" else float(self.t)
        W = heat_kernel_graph(X, self.n_neighbors, t)
        return {"scores": laplacian_scores(X, W), "t": t}

    def _fit(self, X, shared_value):
        self.scores_ = np.array(shared_value["scores"])
        self.t_ = shared_value["t"]
        order = np.argsort(self.scores_, kind="stable")
        self.selected_features_ = order[: self.n_components_]

    def _transform(self, X):
        return column_subset(X, self.selected_features_)
