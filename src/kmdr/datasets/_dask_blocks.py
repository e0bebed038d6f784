"""A dask.array as row blocks: :class:`DaskArrayBlocks`, for data a user builds in a notebook.

The array's chunks along rows are the blocks (it must be one chunk wide: every column of a row in
one block); block ``i`` is computed, alone, by the process that asks for it, with dask's
synchronous scheduler (so a Dask worker computes it itself, no task is sent back to the cluster).
The object holds the array, that is its task graph: small when the array is built from files or
a generator (``da.random``, ``da.from_delayed``, ``map_blocks`` over a loader), but as large as
the matrix for ``da.from_array`` of an in-memory matrix, which pickles with it.

The fingerprint is computed from the content, block by block, one block in memory at a time, the
first time it is asked for (a pass over every block), and does not depend on the chunks:

- dense: ``content:<hash>``, the sha256 of the bytes of the whole float64 matrix and the labels,
  streamed; the same as :func:`~kmdr.datasets._fingerprint.content_fingerprint` of the matrix in
  memory, so a cell has one identity in memory and in blocks;
- sparse (blocks of scipy.sparse): ``sparse-rows:<hash>``, from three streamed sha256 (each
  row's number of nonzeros, the column indices, the values, in row order; CSR with sorted
  indices) and the labels. It differs from an in-memory CSR's ``content:``, whose index arrays
  (and so the hash) depend on how the whole matrix is stored.
"""

from __future__ import annotations

import hashlib

import numpy as np

from ._fingerprint import _DIGITS, _update_array
from ._registry import DatasetError
from ._rowblocks import RowBlocks
from ._validate import _all_finite, _dtype_problem, _y_problem

__all__ = ["DaskArrayBlocks"]


def _bounds(chunks) -> tuple[tuple[int, int], ...]:
    ends = np.cumsum(chunks).tolist()
    return tuple(zip([0, *ends[:-1]], ends, strict=True))


class DaskArrayBlocks(RowBlocks):
    """A 2-D ``dask.array`` (dense, or of scipy.sparse blocks) and its labels as row blocks.

    Parameters
    ----------
    array : ``n_samples x n_features``, chunked along rows only (``array.rechunk({1: -1})``).
    labels : every row's label, 0..k-1 and consecutive: a numpy array or a 1-D dask.array
        (computed once here to be checked; the object keeps what was given).
    n_clusters : the number of classes.
    name : the name the data is recorded under.
    sparse : whether the blocks are scipy.sparse; None: as the array's ``_meta`` says.

    A bad array or bad labels raise a one-line :class:`~kmdr.datasets.DatasetError` here, before
    any block is computed; a block that is not what the array declares, when it is computed.
    Blocks are float64 ndarrays or CSR float64 matrices.
    """

    def __init__(self, array, labels, *, n_clusters: int, name: str = "dask_array", sparse=None):
        import dask.array as da
        import scipy.sparse as sp

        what = f"DaskArrayBlocks {name!r}"
        if not isinstance(array, da.Array):
            raise DatasetError(f"{what}: array is a {type(array).__name__}; give a dask.array")
        if array.ndim != 2 or 0 in array.shape or any(np.isnan(array.shape)):
            raise DatasetError(
                f"{what}: array has shape {array.shape}; give n_samples x n_features with both "
                "known and >= 1 (compute_chunk_sizes() for unknown chunk sizes)"
            )
        if len(array.chunks[1]) != 1:
            raise DatasetError(
                f"{what}: array has {len(array.chunks[1])} chunks along columns; a block holds "
                "whole rows: give array.rechunk({1: -1})"
            )
        problem = _dtype_problem("array", np.dtype(array.dtype))
        if problem:
            raise DatasetError(f"{what}: {problem}")
        self.array = array
        self.name = name
        self.n_samples, self.n_features = (int(s) for s in array.shape)
        self.n_clusters = n_clusters
        self.bounds = _bounds(array.chunks[0])
        self.is_sparse = sp.issparse(array._meta) if sparse is None else bool(sparse)
        self._labels_given = labels
        y = labels.compute() if isinstance(labels, da.Array) else labels
        problem = _y_problem(
            np.asarray(y) if isinstance(y, list) else y, self.n_samples, n_clusters
        )
        if problem:
            raise DatasetError(f"{what}: {problem}")
        self._y = np.asarray(y).astype(np.int64, copy=False)
        self._fingerprint = None

    def block(self, i: int):
        import scipy.sparse as sp

        lo, hi = self.bounds[i]
        got = self.array.blocks[i].compute(scheduler="synchronous")
        if sp.issparse(got) != self.is_sparse or got.shape != (hi - lo, self.n_features):
            kind = "sparse" if sp.issparse(got) else "dense"
            raise DatasetError(
                f"DaskArrayBlocks {self.name!r}: block {i} is a {got.shape} {kind} "
                f"{type(got).__name__}, the array declares {(hi - lo, self.n_features)} "
                f"{'sparse' if self.is_sparse else 'dense'}; give sparse= or fix the array"
            )
        if self.is_sparse:
            got = sp.csr_matrix(got, dtype=np.float64)
            got.sort_indices()
            values = got.data
        else:
            got = np.asarray(got, dtype=np.float64)
            values = got
        if not _all_finite(values):
            raise DatasetError(
                f"DaskArrayBlocks {self.name!r}: block {i} (rows {lo}:{hi}) holds NaN or inf; "
                "remove or impute them"
            )
        return got

    def labels(self) -> np.ndarray:
        y = getattr(self, "_y", None)
        if y is None:
            given = self._labels_given
            y = np.asarray(given.compute() if hasattr(given, "compute") else given)
            self._y = y = y.astype(np.int64, copy=False)
        return y

    @property
    def fingerprint(self) -> str:
        """The content's fingerprint (see the module docstring), computed the first time."""
        if self._fingerprint is None:
            self._fingerprint = self._sparse_digest() if self.is_sparse else self._dense_digest()
        return self._fingerprint

    def _dense_digest(self) -> str:
        h = hashlib.sha256()
        h.update(f"{np.dtype(np.float64).str}{(self.n_samples, self.n_features)}".encode())
        for block in self.blocks():
            h.update(np.ascontiguousarray(block).reshape(-1).view(np.uint8))
            del block
        _update_array(h, self.labels())
        return f"content:{h.hexdigest()[:_DIGITS]}"

    def _sparse_digest(self) -> str:
        parts = [hashlib.sha256() for _ in range(3)]  # row counts, indices, values
        for block in self.blocks():
            streams = (np.diff(block.indptr), block.indices, block.data)
            for h, a, kind in zip(parts, streams, (np.int64, np.int64, np.float64), strict=True):
                h.update(np.ascontiguousarray(a, dtype=kind).view(np.uint8))
            del block
        h = hashlib.sha256(f"csr-rows{(self.n_samples, self.n_features)}".encode())
        for part in parts:
            h.update(part.digest())
        _update_array(h, self.labels())
        return f"sparse-rows:{h.hexdigest()[:_DIGITS]}"

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_y"] = None  # computed again from what was given, where needed
        return state
