"""What every coreset construction shares: :class:`BaseCoreset`.

A coreset of A is a small set of weighted points whose k-means cost, for every set of k centers,
stays within a factor 1 +- eps of A's. A construction here is a scikit-learn estimator: its
parameters are validated in ``fit`` from ``_parameter_constraints``, it takes ``random_state``,
dense or CSR input and ``sample_weight``, and its fitted attributes end with ``_``.

A construction's points are of two sorts, as in the authors' code of Schwiegelshohn and
Sheikh-Omar (ESA 2022; the repository sheikhomar/eval-k-means-coresets, ``gs/``): rows of A,
sampled (a row drawn twice is one point with the two weights added), and the centers of a
solution it computed on A, each the mean of its cluster's rows. Both are rows of one sparse matrix
``composition_`` with ``points_ == composition_ @ X``: a coreset built on a reduced matrix
C = A R is then carried to A's own space as ``composition_ @ A``, which is how kmdr measures
every distortion on the original data.
"""

from __future__ import annotations

from numbers import Integral
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import _check_sample_weight, validate_data

__all__ = ["BaseCoreset"]


class BaseCoreset(BaseEstimator):
    """Base class of the coreset constructions.

    Parameters
    ----------
    n_clusters : int, default=8
        The k the coreset is built for.
    coreset_size : int, default=200
        The number of sampled points (the authors' T); the solution's centers some constructions
        add come on top of it.
    random_state : int, RandomState instance or None, default=None
        The draws' seed.

    Attributes
    ----------
    points_ : ndarray or sparse matrix of shape (n_points, n_features)
        The coreset's points: ``composition_ @ X``.
    weights_ : ndarray of shape (n_points,)
    indices_ : ndarray of shape (n_points,)
        The row of X each point is, or -1 for a center the construction made.
    composition_ : scipy.sparse.csr_array of shape (n_points, n_samples)
        Each point as a combination of X's rows: a unit row for a sampled point, the sample
        weights of its cluster's rows (summing to 1) for a center.
    n_features_in_ : int
    """

    #: The construction's version: bumped when a change to the construction changes its output;
    #: part of every cell's identity that uses it.
    compat_version: ClassVar[int] = 1

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "coreset_size": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, n_clusters=8, coreset_size=200, random_state=None):
        self.n_clusters = n_clusters
        self.coreset_size = coreset_size
        self.random_state = random_state

    def fit(self, X, y=None, sample_weight=None):
        """Build the coreset of X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : Ignored
        sample_weight : array-like of shape (n_samples,), default=None
            The rows' weights (all 1 when None).

        Returns
        -------
        self
        """
        self._validate_params()
        X = self._validated(X)
        n = X.shape[0]
        if self.coreset_size > n:
            raise ValueError(
                f"coreset_size={self.coreset_size} is larger than the data's {n} rows: a coreset "
                "this size is the data itself"
            )
        if self.n_clusters > self.coreset_size:
            raise ValueError(
                f"n_clusters={self.n_clusters} is larger than coreset_size="
                f"{self.coreset_size}: a coreset must hold at least k points"
            )
        self._build(X, self._weights(sample_weight, X), check_random_state(self.random_state))
        return self

    def _validated(self, X):
        return validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32])

    def _weights(self, sample_weight, X):
        return _check_sample_weight(sample_weight, X, dtype=np.float64)

    def _build(self, X, weight, rng) -> None:  # pragma: no cover - every construction has one
        raise NotImplementedError

    def _set_points(self, X, weight, rows, row_weights, labels=None, center_weights=None):
        """Set the fitted attributes from sampled ``rows`` (repeats allowed) with their
        ``row_weights``, and the centers of the clusters ``labels`` with ``center_weights``
        (a center of weight 0 adds nothing to any cost and is left out; a row labelled -1 is in
        no center)."""
        n = X.shape[0]
        unique, inverse = np.unique(np.asarray(rows, dtype=np.intp), return_inverse=True)
        weights = [np.bincount(inverse, weights=row_weights, minlength=unique.size)]
        point_of, columns = [np.arange(unique.size)], [unique]
        coefficients = [np.ones(unique.size)]
        indices = [unique]
        if center_weights is not None:
            kept = np.flatnonzero(center_weights > 0)
            rank = np.full(center_weights.size + 1, -1)  # the last: a row in no center (-1)
            rank[kept] = np.arange(kept.size)
            members = np.flatnonzero(rank[labels] >= 0)
            sizes = np.bincount(labels[members], weights=weight[members],
                                minlength=center_weights.size)  # fmt: skip
            point_of.append(unique.size + rank[labels[members]])
            columns.append(members)
            coefficients.append(weight[members] / sizes[labels[members]])
            weights.append(center_weights[kept])
            indices.append(np.full(kept.size, -1))
        n_points = unique.size + (kept.size if center_weights is not None else 0)
        self.composition_ = sp.csr_array(
            (np.concatenate(coefficients), (np.concatenate(point_of), np.concatenate(columns))),
            shape=(n_points, n),
        )
        self.weights_ = np.concatenate(weights)
        self.indices_ = np.concatenate(indices)
        # A sampled point is its row exactly; only a center is a combination.
        self.points_ = X[unique] if n_points == unique.size else self.composition_ @ X
        return self
