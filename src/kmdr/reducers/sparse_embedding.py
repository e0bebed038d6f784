"""Sparse embedding / CountSketch (Liu, Shen, Tsang 2017)."""

from __future__ import annotations

from numbers import Integral
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from kmdr.reducers._base import BaseReducer, nnz_counts
from kmdr.reducers._builtins import declared_plan
from kmdr.reducers._plans import DataFacts
from kmdr.reducers._validation import same_sparse_kind

#: ``dense_output="auto"`` returns a dense C when the expected fraction of nonzeros of C is above
#: this. Measured (scripts/bench/bench_core.py, RCV1-shaped data, k = 53): scikit-learn's Lloyd
#: iteration on the sparse C is 4x slower than on the dense one at density 0.5-0.7 (r = 50, 100),
#: 1.5-2x at 0.2-0.3 (r = 200, 300), even at 0.14 (r = 500) and faster below 0.10 (r >= 700).
DENSE_ABOVE = 0.15


class SparseEmbedding(BaseReducer):
    """Sparse embedding C = A Q Φ in O(nnz(A)): each feature goes to one output column, signed.

    Liu, Shen, Tsang, *Sparse Embedded k-Means Clustering*, NIPS 2017, Algorithm 1 (a CountSketch
    of the features): a uniform hash ``h: [d] -> [r]``, i.i.d. Rademacher signs ``s`` (the
    diagonal of Q), ``Φ[i, h(i)] = 1``. Column j of C is ``sum_{i: h(i) = j} s_i A[:, i]``; no
    scaling.

    Sparse input is never densified and no dense d x r matrix is built; the cost is O(nnz(A))
    plus the size of C. When C is expected to be dense enough that k-means runs faster on a dense
    C (see ``dense_output``), C is accumulated directly into an n x r array (scipy's ``toarray``
    of A with its features relabelled, which adds the repeats of a row); otherwise C is the CSR
    product of A and the sparse d x r matrix ``Q Φ`` (one nonzero per row). Both add the
    contributions to an entry of C in the order of A's nonzeros, so they give the same values to
    the last bit. Dense input costs O(n d).

    Parameters
    ----------
    n_components : int, default=2
        r >= 1 (r > d is allowed, if pointless).
    dense_output : "auto" or bool, default="auto"
        For sparse input: True returns an ndarray, False a CSR matrix (a ``csr_array`` for a
        sparse array input, else a ``csr_matrix``), "auto" an ndarray when the expected fraction
        of nonzeros of C is above ``DENSE_ABOVE`` (0.15), else CSR. The expected fraction,
        ``mean_i 1 - (1 - 1/r)^{nnz(row i)}``, depends only on r and A's row lengths, not on the
        draw. Dense input always gives dense output.
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
        "dense_output": ["boolean", StrOptions({"auto"})],
        "random_state": ["random_state"],
    }

    plan = declared_plan(__name__, "SparseEmbedding")

    # Nonzeros of X relabelled at a time into a dense C (_accumulate_dense): 2^22, 48 MiB of
    # int32 columns and float64 values.
    _BLOCK_NONZEROS = 1 << 22

    def __init__(self, n_components=2, *, dense_output="auto", random_state=None):
        self.n_components = n_components
        self.dense_output = dense_output
        self.random_state = random_state

    def _fit(self, X, shared_value):
        rng = check_random_state(self.random_state)
        d, r = X.shape[1], self.n_components_
        self.hash_ = rng.randint(r, size=d).astype(np.int32 if r < 2**31 else np.int64)
        self.signs_ = rng.randint(2, size=d) * 2.0 - 1.0
        # Φ with the signs folded in (Q Φ), d x r, one entry per row; components_ is its transpose.
        # indptr has the index dtype of hash_: scipy's product would otherwise upcast (copy) the
        # int32 indices of X to int64 on every call.
        indptr = np.arange(d + 1, dtype=self.hash_.dtype)
        self._phi = sp.csr_array((self.signs_, self.hash_, indptr), shape=(d, r))
        self.components_ = sp.csr_array(self._phi.T)

    def _wants_dense(self, X) -> bool:
        if self.dense_output != "auto":
            return bool(self.dense_output)
        return self._dense_for(nnz_counts(X))

    def _dense_for(self, nnz_counts) -> bool:
        """``dense_output="auto"``'s choice for a matrix where ``nnz_counts[L]`` rows hold L
        nonzeros. Formed from these counts, not from each row's, so that the whole matrix and its
        row blocks (whose counts add up) choose alike to the last bit."""
        r = self.n_components_
        nnz = np.arange(nnz_counts.shape[0])
        # E[distinct buckets of a row with L nonzeros] = r (1 - (1 - 1/r)^L)
        filled = -np.expm1(nnz * np.log1p(-1.0 / r)) if r > 1 else (nnz > 0) * 1.0
        return float(nnz_counts @ filled) / float(nnz_counts.sum()) > DENSE_ABOVE

    def needs_nnz_counts(self, sparse: bool) -> bool:
        """On sparse data with ``dense_output="auto"`` the output's form is chosen from the rows'
        numbers of nonzeros (the whole matrix's, not a block's)."""
        return bool(sparse) and self.dense_output == "auto"

    def _fit_rows(self, shape, nnz_counts):
        """The in-memory draw for ``shape``; with ``dense_output="auto"`` the form of C on sparse
        blocks is decided once from ``nnz_counts`` (how many rows hold each number of
        nonzeros), by the same computation the in-memory transform does on the whole matrix, so
        every block is produced in the form the whole matrix's C would have (None: the form is
        decided at the first sparse block without it, which then raises)."""
        self._fit(DataFacts(*shape, False), None)
        self.rows_dense_ = None
        if self.dense_output != "auto":
            self.rows_dense_ = bool(self.dense_output)
        elif nnz_counts is not None:
            nnz_counts = np.asarray(nnz_counts)
            if (
                nnz_counts.ndim != 1
                or not np.issubdtype(nnz_counts.dtype, np.integer)
                or nnz_counts.sum() != shape[0]
            ):
                raise ValueError(
                    "SparseEmbedding.fit_rows: nnz_counts must count each of the "
                    f"{shape[0]} rows once (np.bincount of the rows' numbers of nonzeros)"
                )
            self.rows_dense_ = self._dense_for(nnz_counts)

    def _transform_rows(self, X_block, start):
        """A block's rows of C, equal to those rows of the whole matrix's C bit for bit (a row of
        C sums its row of A's entries in storage order, whatever the other rows), in the form the
        whole matrix's would have (see :meth:`_fit_rows`). Sparse output comes as a CSR block;
        stacking the blocks gives the whole CSR C, entry order included."""
        if not sp.issparse(X_block):
            return self._transform(X_block)
        if self.rows_dense_ is None:
            raise ValueError(
                'SparseEmbedding: dense_output="auto" on sparse blocks needs nnz_counts in fit_rows'
            )
        if self.rows_dense_:
            return self._accumulate_dense(sp.csr_matrix(X_block))
        return same_sparse_kind(X_block, X_block @ self._phi)

    def _transform(self, X):
        if not sp.issparse(X):
            return np.ascontiguousarray(X @ self._phi)
        if self._wants_dense(X):
            return self._accumulate_dense(sp.csr_matrix(X))
        # scipy's CSR x CSR product (SMMP: a dense accumulator of length r per row, two passes
        # over the nonzeros of X, each reading the single entry of a row of Q Φ) relabels and
        # merges the features of a row that hash to the same column, in O(nnz(X)). The output
        # has no duplicates and no explicit zeros; its column indices are not sorted.
        return same_sparse_kind(X, X @ self._phi)

    def _accumulate_dense(self, X) -> np.ndarray:
        """C as an n x r ndarray: ``C[i, h(j)] += s_j X[i, j]`` over the nonzeros, in order.

        X with its columns relabelled by h and its values signed is a CSR matrix whose rows may
        repeat a column; scipy's ``toarray`` adds repeated entries into a zeroed row in storage
        order, as SMMP's accumulator does, so the values equal those of the sparse product to the
        last bit. Two gathers and one scatter pass: 1.3x faster than ``np.bincount`` over
        (row, h(feature)) keys, which also needs an n-length repeat and a 64-bit key array.

        Done for blocks of rows of about ``_BLOCK_NONZEROS`` nonzeros, each written into its rows
        of C: the relabelled copy of X never exceeds a block (48 MiB) whatever n. A row of C
        depends on that row of X alone, so the blocks do not change a bit.
        """
        n, r = X.shape[0], self.n_components_
        C = np.empty((n, r))
        for lo, hi in _row_blocks(X.indptr, self._BLOCK_NONZEROS):
            start, end = X.indptr[lo], X.indptr[hi]
            features = X.indices[start:end]
            columns = np.take(self.hash_, features)  # np.take: ~1.3x faster than fancy indexing
            values = np.take(self.signs_, features)
            values *= X.data[start:end]
            block = sp.csr_matrix(
                (values, columns, X.indptr[lo : hi + 1] - start), shape=(hi - lo, r)
            )
            block.toarray(out=C[lo:hi])  # zeroes its rows of C, then adds the entries in order
        return C


def _row_blocks(indptr: np.ndarray, nonzeros: int):
    """(first row, end row) of consecutive blocks of rows holding about ``nonzeros`` nonzeros
    each (at least one row)."""
    n = indptr.size - 1
    lo = 0
    while lo < n:
        last = min(int(indptr[lo]) + nonzeros, int(indptr[-1]))  # within indptr's dtype
        hi = int(np.searchsorted(indptr, last, side="right")) - 1
        hi = min(n, max(hi, lo + 1))
        yield lo, hi
        lo = hi
