"""A dataset held as consecutive row blocks, for data larger than one process's memory.

A :class:`RowBlocks` is what the chunked path reads: ``n_samples x n_features`` rows split into
consecutive blocks ``[lo, hi)``, each produced on its own by :meth:`RowBlocks.block`, so that a
worker holds one block at a time and no process ever needs the whole matrix. The labels (one
integer a row) are small and always whole. A RowBlocks object holds what makes the blocks
(parameters, paths, bounds), never the rows: it pickles small, and the worker that unpickles it
makes the block it is given.

How the rows are split is not part of the data: a block of rows ``lo:hi`` equals rows ``lo:hi``
of the matrix, bit for bit, whatever the other blocks are, and :attr:`RowBlocks.fingerprint` is
the fingerprint of the whole matrix (the same as the in-memory :class:`~kmdr.datasets.Dataset`'s
where one exists). A cell computed on blocks therefore has the same identity as the cell
computed in memory.

The kinds of blocks:

- :class:`SplitBlocks` cuts an in-memory :class:`~kmdr.datasets.Dataset` (any dataset without
  blocks of its own; also to check that a chunked cell equals its in-memory cell);
- :class:`GeneratedBlocks` draws a block of ``synth``, ``sparse_text`` or ``mixture`` alone
  (:mod:`._generated`);
- :class:`ShardBlocks` reads a folder of row shards, checked against its manifest's sha256
  (:mod:`._shards`; the registered dataset ``shards``, ``path=<folder>``), which
  :func:`write_shards` writes from any dataset or blocks;
- :class:`DaskArrayBlocks` computes a chunk of rows of a user's ``dask.array``
  (:mod:`._dask_blocks`).

:func:`load_blocks` gives a registered dataset's blocks; :func:`even_bounds` and
:func:`bounds_of_rows` make bounds.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._dask_blocks import DaskArrayBlocks
from ._generated import GeneratedBlocks, MixtureBlocks, SparseTextBlocks, SynthBlocks
from ._registry import DatasetError
from ._rowblocks import (
    RowBlocks,
    SplitBlocks,
    bounds_of_rows,
    check_bounds,
    even_bounds,
    stack_rows,
)
from ._shards import ShardBlocks, write_shards
from ._validate import matrix_problem

__all__ = [
    "DaskArrayBlocks",
    "GeneratedBlocks",
    "MixtureBlocks",
    "RowBlocks",
    "ShardBlocks",
    "SparseTextBlocks",
    "SplitBlocks",
    "SynthBlocks",
    "bounds_of_rows",
    "check_bounds",
    "even_bounds",
    "load_blocks",
    "matrix_problem",
    "stack_rows",
    "write_shards",
]


def load_blocks(
    name: str,
    *,
    rows: int | None = None,
    bounds: Sequence[tuple[int, int]] | None = None,
    data_dir=None,
    mirror=None,
    **params,
) -> RowBlocks:
    """Dataset ``name`` as blocks of ``rows`` rows (the last one shorter), or at ``bounds``
    (``(lo, hi)`` of each block), or neither: the dataset's own blocks (``shards``: one per
    shard; the others have none and need one of the two).

    A dataset that produces a block on its own (its :class:`~kmdr.datasets.DatasetEntry` has
    ``blocks``: generated, or read from shards) does so one block at a time, and nothing is
    loaded here; any other is loaded whole (:func:`~kmdr.datasets.load_dataset`, with the same
    arguments) and cut (:class:`SplitBlocks`). Bad arguments are a one-line
    :class:`~kmdr.datasets.DatasetError` before any data is made.
    """
    from ._catalog import dataset_info

    if rows is not None and bounds is not None:
        raise DatasetError(
            f"dataset {name!r}: give the rows per block (rows=...) or the bounds (bounds=...), "
            "not both"
        )
    if rows is not None and (isinstance(rows, bool) or not isinstance(rows, int) or rows < 1):
        raise DatasetError(f"dataset {name!r}: rows per block must be an int >= 1, got {rows!r}")

    def split(n_samples: int):
        return (
            bounds_of_rows(n_samples, rows) if bounds is None else check_bounds(bounds, n_samples)
        )

    given = None if rows is None and bounds is None else split
    entry = dataset_info(name)
    if entry.blocks is not None:
        return entry.blocks(entry, given, data_dir=data_dir, mirror=mirror, **params)
    if given is None:
        raise DatasetError(
            f"dataset {name!r} has no blocks of its own: give the rows per block (rows=...) or "
            "the bounds (bounds=...)"
        )
    from . import load_dataset

    dataset = load_dataset(name, data_dir=data_dir, mirror=mirror, **params)
    try:
        return SplitBlocks(dataset, split(dataset.n_samples))
    except ValueError as err:
        raise DatasetError(f"dataset {name!r}: {err}") from None
