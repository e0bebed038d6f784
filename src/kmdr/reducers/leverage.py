"""Leverage-score column sampling (Boutsidis, Mahoney, Drineas 2009; Boutsidis et al. 2014)."""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from kmdr.reducers._base import BaseReducer
from kmdr.reducers._builtins import declared_plan
from kmdr.reducers._plans import DataFacts
from kmdr.reducers._svd import exact_svd, fast_frobenius_svd
from kmdr.reducers._validation import check_count, column_subset, independent_random_state


class LeverageScoreSampler(BaseReducer):
    """Select r columns of A by (approximate) leverage scores, with replacement, rescaled.

    Boutsidis, Mahoney, Drineas, *Unsupervised Feature Selection for the k-means Clustering
    Problem*, NIPS 2009, Algorithm 1; Boutsidis, Zouzias, Mahoney, Drineas, *Randomized
    Dimensionality Reduction for k-means Clustering*, IEEE Trans. Inf. Theory 2015, Algorithm 1 and
    Definition 5.

    Let Z (d x k) hold the top k right singular vectors of A (``svd="exact"``) or
    Z = FastFrobeniusSVD(A, k, eps) (``svd="approximate"``, bzmd14 Lemma 4). With
    ``scores="leverage"`` the probabilities are ``p_i = ||Z_(i)||^2 / k`` (normalised by their sum,
    which is k up to rounding); r indices ``i_1..i_r`` are drawn i.i.d. from p and column t of C is
    column ``i_t`` of A times ``1 / sqrt(r p_{i_t})``. The scores depend on A and k only.

    Parameters
    ----------
    n_components : int, default=2
        r, the number of draws (columns of C). Any r >= 1 with ``"leverage"``/``"sqrt"`` (draws are
        with replacement); r <= d with ``"top"``.
    n_clusters : int
        k, the rank of Z; required, 1 <= k <= min(n_samples, n_features).
    svd : {"exact", "approximate"}, default="exact"
        Exact: the top k right singular vectors only, by the cheapest exact method for rank k
        (:func:`~kmdr.reducers.exact_svd`: ARPACK ``svds`` for small k or a sparse A, which is
        never densified; the Gram matrix and a LAPACK eigensolver above the measured
        crossover; the thin SVD when the spectrum has no gap at k). The scores depend on A and k
        only, so this one rank-k factor is the shared work of every r. Approximate:
        FastFrobeniusSVD.
    eps : float in (0, 1), default=1/3
        Accuracy of FastFrobeniusSVD (sketch size ``k + ceil(k/eps + 1)``); bzmd14's experiments
        use 1/3. Ignored with ``svd="exact"``.
    scores : {"leverage", "sqrt", "top"}, default="leverage"
        ``"leverage"``: the papers' ``p_i ∝ ||Z_(i)||^2``; ``"sqrt"``: ``p_i ∝ ||Z_(i)||`` (a
        variant from the course-project report), sampled and rescaled in the same way; ``"top"``:
        the r columns with the largest leverage scores, deterministic, no repeats, unscaled
        (Jolliffe's B3 criterion, cited by bmd09).
    random_state : None, int or RandomState, default=None
        Seeds the draws and, with ``svd="approximate"``, the Gaussian sketch (an independent
        stream derived from the same seed).

    Attributes
    ----------
    leverage_scores_ : ndarray of shape (n_features,)
        ``||Z_(i)||^2`` (they sum to k).
    probabilities_ : ndarray of shape (n_features,)
        The sampling distribution (sums to 1); with ``"top"``, the ranking ``leverage_scores_/k``.
    selected_features_ : ndarray of shape (n_components,)
        ``i_1..i_r``, the column of A behind each column of C (repeats possible).
    scales_ : ndarray of shape (n_components,)
        ``1 / sqrt(r p_{i_t})`` (ones with ``"top"``).
    n_components_, n_features_in_, shared_seconds_
        See :class:`BaseReducer`.
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "n_clusters": [Interval(Integral, 1, None, closed="left"), None],
        "svd": [StrOptions({"exact", "approximate"})],
        "eps": [Interval(Real, 0, 1, closed="neither")],
        "scores": [StrOptions({"leverage", "sqrt", "top"})],
        "random_state": ["random_state"],
    }

    plan = declared_plan(__name__, "LeverageScoreSampler")

    def __init__(
        self,
        n_components=2,
        *,
        n_clusters=None,
        svd=plan.defaults["svd"],
        eps=plan.defaults["eps"],
        scores=plan.defaults["scores"],
        random_state=None,
    ):
        self.n_components = n_components
        self.n_clusters = n_clusters
        self.svd = svd
        self.eps = eps
        self.scores = scores
        self.random_state = random_state

    def _check_data_params(self, shape):
        check_count(self.n_clusters, "n_clusters", 1, min(shape), shape)

    def _compute_shared_value(self, X, random_state):
        if self.svd == "approximate":
            seed = self.random_state if random_state is None else random_state
            return fast_frobenius_svd(
                X, self.n_clusters, self.eps, independent_random_state(seed, stream=1)
            )
        return exact_svd(X, self.n_clusters)

    def _fit(self, X, svd):
        Z = svd.top(self.n_clusters)  # k x d, orthonormal rows
        self.leverage_scores_ = np.einsum("ij,ij->j", Z, Z)
        weights = np.sqrt(self.leverage_scores_) if self.scores == "sqrt" else self.leverage_scores_
        self.probabilities_ = weights / weights.sum()
        r = self.n_components_
        if self.scores == "top":
            self.selected_features_ = np.argsort(-self.probabilities_, kind="stable")[:r]
            self.scales_ = np.ones(r)
        else:
            rng = check_random_state(self.random_state)
            n_features = X.shape[1]
            self.selected_features_ = rng.choice(n_features, size=r, p=self.probabilities_)
            self.scales_ = 1.0 / np.sqrt(r * self.probabilities_[self.selected_features_])

    def _sketch_request(self, r, random_state):
        """Approximate scores: FastFrobeniusSVD at rank k, its sketch drawn from the stream
        ``compute_shared`` draws it from."""
        seed = self.random_state if random_state is None else random_state
        return self.n_clusters, self.eps, independent_random_state(seed, stream=1)

    def _fit_sketch(self, shape, svd):
        """Scores and draws from the FastFrobeniusSVD computed over the row blocks (``_fit``
        reads the shape and the SVD only)."""
        self._fit(DataFacts(*shape, False), svd)

    def _transform_rows(self, X_block, start):
        """A block's rows of C: the selected columns, rescaled; bit for bit whatever the split."""
        return self._transform(X_block)

    def _transform(self, X):
        scales = None if self.scores == "top" else self.scales_
        return column_subset(X, self.selected_features_, scales)
