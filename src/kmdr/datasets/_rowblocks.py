"""The row-block contract (:class:`RowBlocks`), the blocks of an in-memory dataset
(:class:`SplitBlocks`) and row bounds; :mod:`kmdr.datasets.blocks` is the public module.

A :class:`RowBlocks` is what the chunked path reads: ``n_samples x n_features`` rows split into
consecutive blocks ``[lo, hi)``, each produced on its own by :meth:`RowBlocks.block` (read from a
shard, cut from a matrix, or generated), so that a worker can hold one block at a time and no
process ever needs the whole matrix. The labels (one integer a row) are small and always whole.

How the rows are split is not part of the data: a block of rows ``lo:hi`` equals rows ``lo:hi``
of the matrix, bit for bit, whatever the other blocks are, and :attr:`RowBlocks.fingerprint` is
the fingerprint of the whole matrix (the same as the in-memory :class:`~kmdr.datasets.Dataset`'s
where one exists). A cell computed on blocks therefore has the same identity as the cell
computed in memory.

:class:`SplitBlocks` cuts an in-memory :class:`~kmdr.datasets.Dataset` at given row bounds (used
to check that a chunked cell equals its in-memory cell); :func:`even_bounds` and
:func:`bounds_of_rows` make the bounds. This module imports no other kind of blocks, so each
kind (generated, shards, dask.array) builds on it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence

import numpy as np

from ._base import Dataset

__all__ = [
    "RowBlocks",
    "SplitBlocks",
    "bounds_of_rows",
    "check_bounds",
    "even_bounds",
    "grouped_labels",
    "stack_rows",
]


def even_bounds(n_samples: int, n_blocks: int) -> tuple[tuple[int, int], ...]:
    """``n_blocks`` consecutive ``(lo, hi)`` covering rows ``0`` to ``n_samples - 1``, sizes
    differing by at most one row (the first ``n_samples % n_blocks`` blocks have the extra row)."""
    if not 1 <= n_blocks <= max(n_samples, 1):
        raise ValueError(
            f"n_blocks must be in [1, {n_samples}] for {n_samples} rows, got {n_blocks}"
        )
    sizes = np.full(n_blocks, n_samples // n_blocks)
    sizes[: n_samples % n_blocks] += 1
    ends = np.cumsum(sizes)
    return tuple((int(e - s), int(e)) for s, e in zip(sizes, ends, strict=True))


def bounds_of_rows(n_samples: int, rows: int) -> tuple[tuple[int, int], ...]:
    """Consecutive ``(lo, hi)`` of ``rows`` rows each (the last one shorter) covering
    ``0 .. n_samples``."""
    if rows < 1:
        raise ValueError(f"rows per block must be at least 1, got {rows}")
    return tuple((lo, min(lo + rows, n_samples)) for lo in range(0, n_samples, rows))


def check_bounds(bounds: Sequence[tuple[int, int]], n_samples: int) -> tuple[tuple[int, int], ...]:
    """``bounds`` as a tuple, checked to be non-empty consecutive blocks covering every row."""
    out = tuple((int(lo), int(hi)) for lo, hi in bounds)
    at = 0
    for lo, hi in out:
        if lo != at or hi <= lo:
            raise ValueError(
                f"row blocks must be non-empty and consecutive from row 0; got {list(out)}"
            )
        at = hi
    if at != n_samples:
        raise ValueError(f"row blocks cover {at} rows of {n_samples}; got {list(out)}")
    return out


def grouped_labels(sizes: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Rows ``lo:hi`` of ``np.repeat(np.arange(len(sizes)), sizes)`` (rows grouped by class,
    class ``c`` having ``sizes[c]`` rows), made without the whole vector."""
    ends = np.cumsum(sizes)
    return np.searchsorted(ends, np.arange(lo, hi), side="right").astype(np.int64)


def stack_rows(parts):
    """Consecutive row blocks (dense arrays, or scipy.sparse) as one matrix: the one block
    itself, else their vertical stack (CSR when sparse)."""
    if len(parts) == 1:
        return parts[0]
    import scipy.sparse as sp

    return sp.vstack(parts, format="csr") if sp.issparse(parts[0]) else np.concatenate(parts)


class RowBlocks(ABC):
    """Rows ``0`` to ``n_samples - 1`` of a matrix, as consecutive blocks produced one at a time.

    Subclasses set the attributes below and implement :meth:`block`. A block must be a pure
    function of its bounds (and the dataset's parameters): any process may compute block ``i``,
    any number of times, and get the same rows.

    Attributes
    ----------
    name : the dataset's registry name.
    n_samples, n_features : the whole matrix's shape.
    n_clusters : the number of classes.
    bounds : ``(lo, hi)`` of each block, consecutive and covering every row.
    is_sparse : whether blocks are ``scipy.sparse.csr_matrix`` (else float64 ndarrays).
    fingerprint : the whole matrix's data fingerprint (not the split's).
    """

    name: str
    n_samples: int
    n_features: int
    n_clusters: int
    bounds: tuple[tuple[int, int], ...]
    is_sparse: bool
    fingerprint: str

    @property
    def n_blocks(self) -> int:
        return len(self.bounds)

    @abstractmethod
    def block(self, i: int):
        """Rows ``bounds[i][0]:bounds[i][1]``: a float64 ndarray or CSR matrix."""

    @abstractmethod
    def labels(self) -> np.ndarray:
        """Every row's label, int64, 0-based and consecutive (a length-``n_samples`` vector)."""

    def block_labels(self, i: int) -> np.ndarray:
        """The labels of block ``i``'s rows (what a worker scores its block with): by default
        a copy of that slice of :meth:`labels`; a kind whose labels follow from its parameters
        makes the slice alone."""
        lo, hi = self.bounds[i]
        return np.array(self.labels()[lo:hi])

    def prepare(self) -> None:
        """Do once, before the blocks are handed out, what every block needs and the object
        cannot carry (it must stay small): e.g. ``sparse_text``'s document frequencies, drawn
        and kept in the data cache folder, where the workers that share it read them. Optional:
        a block does it itself when it was not done. Nothing by default."""
        return None

    def blocks(self) -> Iterator:
        """Every block in order (one in memory at a time)."""
        for i in range(self.n_blocks):
            yield self.block(i)

    def __repr__(self) -> str:
        kind = "sparse" if self.is_sparse else "dense"
        return (
            f"{type(self).__name__}({self.name!r}, {self.n_samples} x {self.n_features} {kind}, "
            f"{self.n_blocks} blocks)"
        )


class SplitBlocks(RowBlocks):
    """An in-memory :class:`~kmdr.datasets.Dataset` cut into row blocks at ``bounds``.

    Parameters
    ----------
    dataset : the dataset to cut; its fingerprint is kept (a dataset built by hand, without one,
        gets its content's).
    bounds : ``(lo, hi)`` of each block, consecutive from row 0 and covering every row.
    """

    def __init__(self, dataset: Dataset, bounds: Sequence[tuple[int, int]]):
        from ._fingerprint import content_fingerprint

        self.dataset = dataset
        self.name = dataset.name
        self.n_samples, self.n_features = dataset.X.shape
        self.n_clusters = dataset.n_clusters
        self.bounds = check_bounds(bounds, self.n_samples)
        self.is_sparse = dataset.is_sparse
        self.fingerprint = dataset.fingerprint or content_fingerprint(dataset.X, dataset.y)

    def block(self, i: int):
        lo, hi = self.bounds[i]
        return self.dataset.X[lo:hi]

    def labels(self) -> np.ndarray:
        return self.dataset.y
