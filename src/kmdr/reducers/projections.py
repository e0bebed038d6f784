"""Dense and sparse random projections C = A R.

* sign, bzmd14 Algorithm 2 (``R_ij = ±1/sqrt(r)`` w.p. 1/2 each) and Achlioptas (``±sqrt(3/r)``
  w.p. 1/6 each, 0 w.p. 2/3) are drawn entrywise here: one random bit (sign) or one uniform draw
  from {0, ..., 5} (Achlioptas) per entry, kept as an int8 pattern (1 byte per entry, not 8) and
  multiplied in blocks of R's columns, so neither a d x r float64 R nor a dense copy of a sparse A
  is ever built. scikit-learn's ``SparseRandomProjection`` draws the same distributions but
  through int64 and float64 temporaries (three d x r arrays for the sign matrix: 1.07 GiB at
  d = 47236, r = 1000) or a per-row sampling loop (Achlioptas).
* Gaussian ``N(0, 1/r)``: scikit-learn's ``GaussianRandomProjection`` (wrapped, fitted in
  ``projection_``).

Output is always dense: A R with a dense or 1/3-dense R is dense in practice even for sparse A.
"""

from __future__ import annotations

from numbers import Integral
from typing import ClassVar

import numpy as np
from sklearn import random_projection
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval

from kmdr.reducers._base import BaseReducer


class _WrappedProjection(BaseReducer):
    """C = A R with R drawn by a scikit-learn random projection (see the module docstring).

    Attributes
    ----------
    projection_ : sklearn.random_projection estimator
        The fitted scikit-learn projection.
    components_ : ndarray or sparse matrix of shape (n_components, n_features)
        R transposed (scikit-learn's layout).
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, n_components=2, *, random_state=None):
        self.n_components = n_components
        self.random_state = random_state

    def _make_projection(self):
        raise NotImplementedError

    def _fit(self, X, shared_value):
        self.projection_ = self._make_projection().fit(X)
        self.components_ = self.projection_.components_

    def _transform(self, X):
        return self.projection_.transform(X)


class _EntrywiseProjection(BaseReducer):
    """C = A R with R's entries drawn i.i.d. from {-1, 0, +1} times a scale (see module docstring).

    Attributes
    ----------
    pattern_ : ndarray of shape (n_components, n_features), dtype int8
        R transposed, divided by ``scale_`` (entries -1, 0 or +1).
    scale_ : float
        The magnitude of R's nonzero entries.
    components_ : ndarray of shape (n_components, n_features)
        R transposed (scikit-learn's layout), ``scale_ * pattern_``, built on access.
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    # Columns of R are converted to float64 this many bytes at a time (32 MiB).
    _BLOCK_BYTES = 1 << 25

    def __init__(self, n_components=2, *, random_state=None):
        self.n_components = n_components
        self.random_state = random_state

    def _draw(self, rng, shape: tuple[int, int]) -> tuple[np.ndarray, float]:
        """(int8 pattern of the given shape, scale) drawn from ``rng``."""
        raise NotImplementedError

    def _fit(self, X, shared_value):
        rng = check_random_state(self.random_state)
        self.pattern_, self.scale_ = self._draw(rng, (self.n_components_, X.shape[1]))

    @property
    def components_(self) -> np.ndarray:
        return self.scale_ * self.pattern_.astype(np.float64)

    def _transform(self, X):
        n_features = X.shape[1]
        r = self.n_components_
        C = np.empty((X.shape[0], r))
        step = max(1, self._BLOCK_BYTES // (8 * n_features))
        for lo in range(0, r, step):
            # A C-ordered d x b block of R: scipy's sparse x dense product reads its rows (and
            # would copy a Fortran-ordered block), BLAS takes either order.
            block = np.ascontiguousarray(self.pattern_[lo : lo + step].T, dtype=np.float64)
            block *= self.scale_
            C[:, lo : lo + step] = X @ block
        return C


class SignRandomProjection(_EntrywiseProjection):
    """Random sign projection, C = A R with i.i.d. ``R_ij = ±1/sqrt(r)``.

    Boutsidis, Zouzias, Mahoney, Drineas, *Randomized Dimensionality Reduction for k-means
    Clustering*, 2015, Algorithm 2 ("RP" in its figures), computed with a plain product as in its
    experiments (not the mailman algorithm). Each sign is one random bit of ``random_state``'s
    byte stream (``RandomState.bytes``, unpacked with ``np.unpackbits``).

    Parameters
    ----------
    n_components : int, default=2
        r >= 1 (r > d is allowed, if pointless).
    random_state : None, int or RandomState, default=None

    Attributes
    ----------
    pattern_ : ndarray of shape (n_components, n_features), dtype int8
        The signs ±1 of R transposed.
    scale_ : float
        ``1 / sqrt(r)``.
    components_ : ndarray of shape (n_components, n_features)
        R transposed, ``scale_ * pattern_`` (built on access).
    n_components_, n_features_in_, shared_seconds_
        See :class:`BaseReducer`.
    """

    def _draw(self, rng, shape):
        size = shape[0] * shape[1]
        raw = np.frombuffer(rng.bytes((size + 7) // 8), dtype=np.uint8)
        pattern = np.unpackbits(raw, count=size).view(np.int8).reshape(shape)
        pattern *= 2  # bits 0/1 -> signs -1/+1, in place
        pattern -= 1
        return pattern, float(1.0 / np.sqrt(shape[0]))


class GaussianProjection(_WrappedProjection):
    """Gaussian random projection, C = A R with i.i.d. ``R_ij ~ N(0, 1/r)``.

    The classic Johnson-Lindenstrauss map, one of the projections compared in the course-project
    report reproducing bmd09/bzmd14. Drawn by scikit-learn's ``GaussianRandomProjection``.

    Parameters
    ----------
    n_components : int, default=2
        r >= 1.
    random_state : None, int or RandomState, default=None
    """

    def _make_projection(self):
        return random_projection.GaussianRandomProjection(
            self.n_components_, random_state=self.random_state
        )


class AchlioptasProjection(_EntrywiseProjection):
    """Achlioptas' database-friendly projection: ``R_ij = ±sqrt(3/r)`` w.p. 1/6 each, else 0.

    D. Achlioptas, *Database-friendly random projections*, PODS 2001; compared in the
    course-project report. Each entry is one uniform draw u from {0, ..., 5} of
    ``random_state`` (+1 for u = 0, -1 for u = 1, else 0); the output is dense.

    Parameters
    ----------
    n_components : int, default=2
        r >= 1.
    random_state : None, int or RandomState, default=None

    Attributes
    ----------
    pattern_ : ndarray of shape (n_components, n_features), dtype int8
        R transposed divided by ``scale_`` (entries -1, 0, +1).
    scale_ : float
        ``sqrt(3 / r)``.
    components_ : ndarray of shape (n_components, n_features)
        R transposed, ``scale_ * pattern_`` (built on access).
    n_components_, n_features_in_, shared_seconds_
        See :class:`BaseReducer`.
    """

    def _draw(self, rng, shape):
        u = rng.randint(0, 6, size=shape, dtype=np.uint8)
        pattern = (u == 0).view(np.int8) - (u == 1).view(np.int8)
        return pattern, float(np.sqrt(3.0 / shape[0]))
