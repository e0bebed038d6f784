"""SVD features C = A V_r, exact or approximate (Boutsidis et al. 2014, Algorithm 3)."""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from kmdr.reducers._base import BaseReducer
from kmdr.reducers._builtins import declared_plan
from kmdr.reducers._svd import exact_svd, fast_frobenius_svd


class SVDFeatures(BaseReducer):
    """Project A on its top r right singular vectors: C = A V_r (= U_r Σ_r on the fitted A).

    Boutsidis, Zouzias, Mahoney, Drineas, *Randomized Dimensionality Reduction for k-means
    Clustering*, 2015, Algorithm 3 ("SVD" with the exact V_r, Drineas et al. 1999; "ApprSVD" with
    ``V_r`` replaced by Z = FastFrobeniusSVD(A, r, eps), Lemma 4). In the papers' figures the
    x-axis is r, so **r singular vectors are used, not k**: the guarantees behind these features
    (the 2-approximation of Drineas et al. 1999; bzmd14 Theorem 13 for the approximate factor)
    are stated for r = k, so at r != k no theorem covers them; the report lists this among its
    deviations. A is NOT centred: this is not PCA.

    Parameters
    ----------
    n_components : int, default=2
        r, 1 <= r <= min(n_samples, n_features).
    svd : {"exact", "approximate"}, default="exact"
        Exact: the top r right singular vectors by the cheapest exact method for rank r
        (:func:`~kmdr.reducers.exact_svd`: ARPACK ``svds`` for small r or a sparse A, the Gram
        matrix and a LAPACK eigensolver above the measured crossover, the thin SVD when
        the spectrum has no gap at r). Approximate: FastFrobeniusSVD of rank r. Either way the
        factor depends on r, so nothing is shared across r: every fit computes (and is charged)
        its own rank-r factor, which is what that r alone costs.
    eps : float in (0, 1), default=1/3
        Accuracy of FastFrobeniusSVD; ignored with ``svd="exact"``.
    random_state : None, int or RandomState, default=None
        Seeds FastFrobeniusSVD's Gaussian sketch; ignored with ``svd="exact"``.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        ``V_r^T`` (or ``Z^T``): orthonormal rows, signs fixed by scikit-learn's ``svd_flip``.
    singular_values_ : ndarray of shape (n_components,)
        The top r singular values of A (approximate: those of ``Q^T A``, which approximate them).
    n_components_, n_features_in_, shared_seconds_
        See :class:`BaseReducer`.
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "svd": [StrOptions({"exact", "approximate"})],
        "eps": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
    }

    plan = declared_plan(__name__, "SVDFeatures")

    def __init__(
        self,
        n_components=2,
        *,
        svd=plan.defaults["svd"],
        eps=plan.defaults["eps"],
        random_state=None,
    ):
        self.n_components = n_components
        self.svd = svd
        self.eps = eps
        self.random_state = random_state

    def _fit(self, X, shared_value):
        r = self.n_components_
        if self.svd == "approximate":
            svd = fast_frobenius_svd(X, r, self.eps, check_random_state(self.random_state))
        else:
            svd = exact_svd(X, r)
        self.components_ = np.array(svd.top(r))
        self.singular_values_ = np.array(svd.singular_values[:r])

    def _sketch_request(self, r, random_state):
        """Approximate features: FastFrobeniusSVD at rank r, its sketch drawn as ``_fit`` does."""
        return r, self.eps, check_random_state(self.random_state)

    def _fit_sketch(self, shape, svd):
        """Approximate features from the FastFrobeniusSVD computed over the row blocks."""
        r = self.n_components_
        self.components_ = np.array(svd.top(r))
        self.singular_values_ = np.array(svd.singular_values[:r])

    def _transform_rows(self, X_block, start):
        """A block's rows of ``C = A Z``: bit for bit for sparse blocks, within 1e-12 relative
        for dense ones (BLAS may pick other kernels for another number of rows)."""
        return self._transform(X_block)

    def _transform(self, X):
        return np.asarray(X @ self.components_.T)
