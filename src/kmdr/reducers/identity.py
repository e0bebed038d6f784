"""No reduction: k-means on all of A ("kMeans" in bzmd14's figures, "All" in bmd09's table)."""

from __future__ import annotations

from numbers import Integral
from typing import ClassVar

from sklearn.base import OneToOneFeatureMixin
from sklearn.utils._param_validation import Interval

from kmdr.reducers._base import BaseReducer
from kmdr.reducers._builtins import declared_plan


class IdentityReducer(OneToOneFeatureMixin, BaseReducer):
    """C = A: the baseline that clusters the full data.

    Boutsidis, Zouzias, Mahoney, Drineas 2015, Section 7 ("kMeans"); Boutsidis, Mahoney, Drineas
    2009, Table 1 ("All"). It does not depend on r: a runner computes it once and draws a
    horizontal line.

    Parameters
    ----------
    n_components : None or int, default=None
        Accepted, so that every registry entry takes the same arguments, and ignored: the output
        always has ``n_features`` columns (``n_components_ = n_features``).

    Attributes
    ----------
    n_components_, n_features_in_, shared_seconds_
        See :class:`BaseReducer`.
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
    }

    plan = declared_plan(__name__, "IdentityReducer")

    def __init__(self, n_components=None):
        self.n_components = n_components

    def _check_shape(self, shape):
        return shape[1]

    def _fit(self, X, shared_value):
        pass

    def _transform(self, X):
        return X
