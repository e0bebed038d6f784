"""Generated datasets (``synth``, ``sparse_text``, ``mixture``) as row blocks drawn one at a
time.

A :class:`GeneratedBlocks` holds the generator's parameters, the row bounds and the data's
fingerprint, nothing drawn: it pickles to a few hundred bytes, and any process that unpickles it
draws block ``i`` alone, equal bit for bit to rows ``lo:hi`` of the in-memory dataset
(:func:`~._synthetic.synth_rows`, :func:`~._sparse_text.sparse_text_rows`,
:func:`~._mixture.mixture_rows`).
Its fingerprint is the in-memory dataset's (``generator:``, from the parameters), so a cell has
one identity however its data is split.

``sparse_text``'s idf needs every document's terms: the document frequencies are drawn once (a
pass over every token, one chunk at a time, about the time of the whole matrix) and kept in the
data cache folder as ``generated/sparse_text-df-v<version>-<hash>.npz`` (its own sha256
inside, checked on reading), so the other blocks, in this process or another sharing the folder,
read them (:meth:`SparseTextBlocks.prepare` draws them before the blocks are handed out).
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from kmdr._io import atomic_writer

from ._fingerprint import declared_fingerprint
from ._mixture import mixture_cluster_sizes, mixture_labels, mixture_rows
from ._registry import DatasetError, resolve_data_dir
from ._rowblocks import RowBlocks, bounds_of_rows, check_bounds, grouped_labels
from ._sparse_text import (
    document_frequencies,
    sparse_text_labels,
    sparse_text_rows,
    sparse_text_topic_sizes,
)
from ._synthetic import (
    MixtureParams,
    SparseTextParams,
    SynthParams,
    synth_cluster_sizes,
    synth_labels,
    synth_rows,
)

__all__ = [
    "GeneratedBlocks",
    "MixtureBlocks",
    "SparseTextBlocks",
    "SynthBlocks",
    "generated_blocks",
]


class GeneratedBlocks(RowBlocks):
    """Row blocks of a generated dataset, each drawn on its own (see the module docstring).

    Parameters
    ----------
    params : the generator's parameters, checked (:class:`~._params.GeneratorParams`).
    bounds : ``(lo, hi)`` of each block, consecutive from row 0 and covering every row.
    fingerprint : the in-memory dataset's fingerprint.
    data_dir : where ``sparse_text`` keeps its document frequencies (None: the cache folder
        :func:`~kmdr.datasets.resolve_data_dir` names in the process that draws).
    """

    name: str
    is_sparse = False

    def __init__(self, params, bounds, fingerprint: str, data_dir=None):
        self.params = params
        self.n_samples, self.n_features = params.n_samples, params.n_features
        self.n_clusters = params.n_clusters
        self.bounds = check_bounds(bounds, self.n_samples)
        self.fingerprint = fingerprint
        self.data_dir = None if data_dir is None else str(data_dir)

    def _rows(self, lo: int, hi: int):
        raise NotImplementedError

    def _class_sizes(self) -> np.ndarray:
        raise NotImplementedError

    def block(self, i: int):
        lo, hi = self.bounds[i]
        return self._rows(lo, hi)

    def block_labels(self, i: int) -> np.ndarray:
        # the rows are grouped by class: the block's labels follow from the class sizes
        lo, hi = self.bounds[i]
        return grouped_labels(self._class_sizes(), lo, hi)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_df", None)  # sparse_text's n_features counts: read again where unpickled
        first = self.bounds[0][1]
        if self.bounds == bounds_of_rows(self.n_samples, first):  # blocks of `first` rows
            state["bounds"] = first  # pickled as one number, whatever the number of blocks
        return state

    def __setstate__(self, state):
        if isinstance(state["bounds"], int):
            state["bounds"] = bounds_of_rows(state["n_samples"], state["bounds"])
        self.__dict__.update(state)


class SynthBlocks(GeneratedBlocks):
    """``synth`` in row blocks: dense float64. With ``tile_rows=0`` (bzmd14's data) a block is
    drawn after drawing and discarding the noise of the rows before it (memory: the block; time:
    the rows up to ``hi``); with ``tile_rows >= 1`` only the noise tiles that hold the block are
    drawn (e.g. 10,000,000 x 784 in blocks, never whole)."""

    name = "synth"

    def _rows(self, lo: int, hi: int):
        return synth_rows(self.params, lo, hi)

    def labels(self) -> np.ndarray:
        return synth_labels(self.params)

    def _class_sizes(self) -> np.ndarray:
        return synth_cluster_sizes(self.params)


class MixtureBlocks(GeneratedBlocks):
    """``mixture`` in row blocks: dense float64, only the noise tiles that hold the block drawn
    (:func:`~._mixture.mixture_rows`)."""

    name = "mixture"

    def _rows(self, lo: int, hi: int):
        return mixture_rows(self.params, lo, hi)

    def labels(self) -> np.ndarray:
        return mixture_labels(self.params)

    def _class_sizes(self) -> np.ndarray:
        return mixture_cluster_sizes(self.params)


class SparseTextBlocks(GeneratedBlocks):
    """``sparse_text`` in row blocks: CSR float64, drawn from row ``lo``'s first token on (the
    token streams jump there) with the whole matrix's document frequencies (cached on disk, see
    the module docstring). Memory: the block, one chunk of tokens and a few vectors of
    ``n_samples`` values (the documents' lengths)."""

    name = "sparse_text"
    is_sparse = True

    def _rows(self, lo: int, hi: int):
        return sparse_text_rows(self.params, lo, hi, self.document_frequencies())

    def labels(self) -> np.ndarray:
        return sparse_text_labels(self.params)

    def _class_sizes(self) -> np.ndarray:
        return sparse_text_topic_sizes(self.params)

    def prepare(self) -> None:
        self.document_frequencies()

    def document_frequencies(self) -> np.ndarray:
        """Every term's number of documents: read from the cache folder, else drawn and kept
        there (a cache that cannot be written or read back is only a slower block)."""
        df = getattr(self, "_df", None)
        if df is None:
            path = _df_path(self.data_dir, self.fingerprint)
            df = _read_df(path, self.n_features)
            if df is None:
                df = document_frequencies(self.params)
                _write_df(path, df)
            self._df = df
        return df


#: The version of sparse_text's draws in the cached file's name: a change to the generator that
#: changes its numbers bumps it, so that no file of the former draws is read.
_DF_VERSION = 1


def _df_path(data_dir, fingerprint: str) -> Path:
    tag = fingerprint.rpartition(":")[2]
    return resolve_data_dir(data_dir) / "generated" / f"sparse_text-df-v{_DF_VERSION}-{tag}.npz"


def _digest(df: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(df, dtype=np.int64).view(np.uint8)).hexdigest()


def _read_df(path: Path, n_features: int) -> np.ndarray | None:
    """The cached document frequencies when the file holds them intact, else None."""
    try:
        with np.load(path) as f:
            df, digest = f["df"], str(f["sha256"])
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    if df.shape != (n_features,) or df.dtype != np.int64 or _digest(df) != digest:
        return None
    return df


def _write_df(path: Path, df: np.ndarray) -> None:
    """Keep ``df`` at ``path``, atomically (:func:`kmdr._io.atomic_writer`: a reader never sees
    half a file; two processes writing at once write the same bytes); a folder that cannot be
    written leaves no file, and the blocks draw the counts again."""
    try:
        with atomic_writer(path, binary=True) as f:
            np.savez(f, df=df, sha256=np.array(_digest(df)))
    except OSError:
        pass


_KINDS: Mapping[str, tuple[type, type]] = {
    "synth": (SynthParams, SynthBlocks),
    "sparse_text": (SparseTextParams, SparseTextBlocks),
    "mixture": (MixtureParams, MixtureBlocks),
}


def generated_blocks(
    entry, split: Callable[[int], tuple], *, data_dir=None, mirror=None, **params
) -> GeneratedBlocks:
    """The generated dataset ``entry`` (a :class:`~kmdr.datasets.DatasetEntry`) with ``params``
    as row blocks at ``split(n_samples)`` (a function of the number of rows; None is refused:
    generated data has no split of its own); bad parameters or bounds are one-line
    :class:`DatasetError` before anything is drawn. ``mirror`` is not used (nothing is
    fetched)."""
    schema, cls = _KINDS[entry.name]
    if split is None:
        raise DatasetError(
            f"dataset {entry.name!r} has no blocks of its own: give the rows per block "
            "(rows=...) or the bounds (bounds=...)"
        )
    try:
        checked = schema.checked(params)
    except ValueError as err:
        defaults = ", ".join(f"{k}={v!r}" for k, v in schema.defaults().items())
        raise DatasetError(f"dataset {entry.name!r}: {err}; defaults: {defaults}") from None
    try:
        bounds = split(checked.n_samples)
        return cls(checked, bounds, declared_fingerprint(entry, params), data_dir)
    except ValueError as err:
        raise DatasetError(f"dataset {entry.name!r}: {err}") from None
