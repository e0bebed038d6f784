"""Dense and sparse random projections C = A R, reusing scikit-learn's generators.

Which scikit-learn generator draws exactly each distribution (checked in
``sklearn/random_projection.py``, scikit-learn 1.9):

* sign, bzmd14 Algorithm 2 (``R_ij = ±1/sqrt(r)`` w.p. 1/2 each): ``SparseRandomProjection`` with
  ``density=1`` takes a dedicated branch, ``(binomial(1, 1/2) * 2 - 1) / sqrt(r)``, dense;
* Gaussian ``N(0, 1/r)``: ``GaussianRandomProjection``, ``normal(0, 1/sqrt(r))``;
* Achlioptas (``±sqrt(3/r)`` w.p. 1/6 each, 0 w.p. 2/3): ``SparseRandomProjection`` with
  ``density=1/3``: per output row a Binomial(d, 1/3) number of positions chosen uniformly without
  replacement (so each entry is nonzero independently w.p. 1/3), signs ±1 w.p. 1/2, all scaled by
  ``sqrt(1/density)/sqrt(r) = sqrt(3/r)``.

Since the distributions are exactly those, the classes below wrap scikit-learn's (fitted in
``projection_``) rather than re-implementing them. Output is always dense: A R with a dense or
1/3-dense R is dense in practice even for sparse A.
"""

from __future__ import annotations

from numbers import Integral
from typing import ClassVar

from sklearn import random_projection
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


class SignRandomProjection(_WrappedProjection):
    """Random sign projection, C = A R with i.i.d. ``R_ij = ±1/sqrt(r)``.

    Boutsidis, Zouzias, Mahoney, Drineas, *Randomized Dimensionality Reduction for k-means
    Clustering*, 2015, Algorithm 2 ("RP" in its figures), computed with a plain product as in its
    experiments (not the mailman algorithm). Drawn by scikit-learn's ``SparseRandomProjection``
    with ``density=1``.

    Parameters
    ----------
    n_components : int, default=2
        r >= 1 (r > d is allowed, if pointless).
    random_state : None, int or RandomState, default=None
    """

    def _make_projection(self):
        return random_projection.SparseRandomProjection(
            self.n_components_, density=1.0, dense_output=True, random_state=self.random_state
        )


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


class AchlioptasProjection(_WrappedProjection):
    """Achlioptas' database-friendly projection: ``R_ij = ±sqrt(3/r)`` w.p. 1/6 each, else 0.

    D. Achlioptas, *Database-friendly random projections*, PODS 2001; compared in the
    course-project report. Drawn by scikit-learn's ``SparseRandomProjection`` with
    ``density=1/3``; the output is dense.

    Parameters
    ----------
    n_components : int, default=2
        r >= 1.
    random_state : None, int or RandomState, default=None
    """

    def _make_projection(self):
        return random_projection.SparseRandomProjection(
            self.n_components_, density=1 / 3, dense_output=True, random_state=self.random_state
        )
