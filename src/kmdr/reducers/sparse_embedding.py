"""Sparse embedding / CountSketch (Liu, Shen, Tsang 2017)."""

from __future__ import annotations

from numbers import Integral
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval

from kmdr.reducers._base import BaseReducer
from kmdr.reducers._validation import same_sparse_kind


class SparseEmbedding(BaseReducer):
    """Sparse embedding C = A Q Φ in O(nnz(A)): each feature goes to one output column, signed.

    Liu, Shen, Tsang, *Sparse Embedded k-Means Clustering*, NIPS 2017, Algorithm 1 (a CountSketch
    of the features): a uniform hash ``h: [d] -> [r]``, i.i.d. Rademacher signs ``s`` (the
    diagonal of Q), ``Φ[i, h(i)] = 1``. Column j of C is ``sum_{i: h(i) = j} s_i A[:, i]``; no
    scaling.

    Sparse input is not densified: ``A`` (CSR) is multiplied by the sparse d x r matrix ``Q Φ``
    (one nonzero per row), which costs O(nnz(A)); no dense d x r matrix is ever built. Dense input
    costs O(n d).

    Parameters
    ----------
    n_components : int, default=2
        r >= 1 (r > d is allowed, if pointless).
    dense_output : bool, default=False
        Return an ndarray even for sparse input. Sparse input otherwise gives a CSR result (a
        ``csr_array`` for a sparse array input, else a ``csr_matrix``); dense input gives dense.
    random_state : None, int or RandomState, default=None

    Attributes
    ----------
    hash_ : ndarray of shape (n_features,), dtype int32
        ``h``: the output column of each input feature.
    signs_ : ndarray of shape (n_features,)
        ``s``: ±1.0 per input feature.
    components_ : scipy.sparse.csr_array of shape (n_components, n_features)
        ``(Q Φ)^T``: exactly one ±1 per column (scikit-learn's layout for projections).
    n_components_, n_features_in_, shared_seconds_
        See :class:`BaseReducer`.
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "dense_output": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, n_components=2, *, dense_output=False, random_state=None):
        self.n_components = n_components
        self.dense_output = dense_output
        self.random_state = random_state

    def _fit(self, X, shared_value):
        rng = check_random_state(self.random_state)
        d, r = X.shape[1], self.n_components_
        self.hash_ = rng.randint(r, size=d).astype(np.int32 if r < 2**31 else np.int64)
        self.signs_ = rng.randint(2, size=d) * 2.0 - 1.0
        # Φ with the signs folded in (Q Φ), d x r, one entry per row; components_ is its transpose
        self._phi = sp.csr_array((self.signs_, self.hash_, np.arange(d + 1)), shape=(d, r))
        self.components_ = sp.csr_array(self._phi.T)

    def _transform(self, X):
        # Sparse X: scipy's CSR x CSR product (SMMP: a dense accumulator of length r per row, two
        # passes over the nonzeros of X, each reading the single entry of a row of Q Φ) both
        # relabels and merges the features of a row that hash to the same column, in O(nnz(X)).
        # The output has no duplicates; its column indices are not sorted. Dense X: O(n d).
        C = X @ self._phi
        if sp.issparse(C):
            return C.toarray() if self.dense_output else same_sparse_kind(X, C)
        return np.ascontiguousarray(C)
