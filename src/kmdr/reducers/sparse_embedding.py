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

    Sparse input is not densified: the nonzeros of a CSR ``A`` are relabelled in one gather pass
    (``data * s[indices]``, ``h[indices]``, same ``indptr``) and duplicate columns in a row are
    summed, so the cost is O(nnz(A)) and no d x r matrix is built. Dense input is multiplied by the
    sparse Φ (O(n d)).

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
        self.components_ = sp.csr_array(
            sp.csc_array((self.signs_, self.hash_, np.arange(d + 1)), shape=(r, d))
        )

    def _transform(self, X):
        n, r = X.shape[0], self.n_components_
        if not sp.issparse(X):
            # (Φ^T Q A^T)^T: a sparse r x d times dense d x n product, O(n d)
            return np.ascontiguousarray((self.components_ @ X.T).T)
        X = X.tocsr()
        C = sp.csr_array(
            (X.data * self.signs_[X.indices], self.hash_[X.indices], X.indptr.copy()),
            shape=(n, r),
        )
        C.sum_duplicates()  # several features of a row may hash to one column
        if self.dense_output:
            return C.toarray()
        return same_sparse_kind(X, C)
