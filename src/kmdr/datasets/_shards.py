"""``shards``: a dataset held as a folder of row shards, read one shard at a time.

A shard folder holds

- ``shard-00000.npz``, ``shard-00001.npz``, ...: consecutive rows, in name order; each a dense
  float64 array (``numpy.savez``, key ``X``) or a CSR float64 matrix (``scipy.sparse.save_npz``);
- ``labels.npy``: every row's label (int64, 0-based and consecutive), whole;
- ``manifest.json``: the shape, the number of classes, and each file's name, rows, size in bytes
  and sha256. :func:`write_shards` writes all three, the manifest last.

:class:`ShardBlocks` reads such a folder as :class:`~kmdr.datasets.blocks.RowBlocks`: by default
one shard is one block; given other bounds, a block is stacked from the shards that hold its rows.
It keeps the folder and the manifest's list, never the rows, so it pickles small. A file that is
missing or whose size differs from the manifest's, or an ``.npz`` the manifest does not list, is
refused before any shard is read (a truncated file is caught there); each shard's sha256 is
checked when the shard is read, and ``labels.npy``'s once before a run hands out its blocks
(:meth:`ShardBlocks.prepare`), so that a block's labels are read as its slice alone. Every
failure is a one-line :class:`~kmdr.datasets.DatasetError` naming the file and the fix.

The data fingerprint is ``shards:<hash>`` of the manifest's files, rows and sha256 (and the
shape), the same for the blocks and for the concatenated matrix (``load_dataset("shards",
path=...)``), and it changes whenever a shard's content does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from kmdr._io import atomic_write_text

from ._base import Dataset
from ._fingerprint import _digest
from ._registry import DataIntegrityError, DatasetError, sha256
from ._rowblocks import RowBlocks, SplitBlocks, bounds_of_rows, check_bounds, stack_rows

__all__ = ["LABELS", "MANIFEST", "ShardBlocks", "load_shards", "shard_blocks", "write_shards"]

MANIFEST = "manifest.json"
LABELS = "labels.npy"
#: What a manifest's "format" says; another value is refused.
FORMAT = "kmdr-shards-1"

_REWRITE = "write the folder again with kmdr.datasets.blocks.write_shards"


def _rows_of(blocks_bounds: Sequence[tuple[int, int]], read: Callable, lo: int, hi: int):
    """Rows ``lo:hi`` stacked from the source blocks at ``blocks_bounds`` that hold them
    (``read(j)`` gives source block ``j``), one source block in memory at a time."""
    parts = []
    for j, (a, b) in enumerate(blocks_bounds):
        if b <= lo or a >= hi:
            continue
        block = read(j)
        parts.append(block[max(lo, a) - a : min(hi, b) - a])
        del block
    return stack_rows(parts)


class ShardBlocks(RowBlocks):
    """The shard folder ``path`` (see the module docstring) as row blocks.

    Parameters
    ----------
    path : the folder (holding ``manifest.json``).
    bounds : ``(lo, hi)`` of each block; None: one block per shard.

    Raises :class:`~kmdr.datasets.DatasetError` (one line naming the file and the fix) for a
    missing or unreadable manifest, a missing file, or a file whose size is not the manifest's.
    """

    name = "shards"

    def __init__(self, path, bounds: Sequence[tuple[int, int]] | None = None):
        self.path = str(Path(path).expanduser().resolve())
        manifest = _read_manifest(Path(self.path))
        self.n_samples = int(manifest["n_samples"])
        self.n_features = int(manifest["n_features"])
        self.n_clusters = int(manifest["n_clusters"])
        self.is_sparse = bool(manifest["sparse"])
        self.source = str(manifest.get("source", ""))
        self.labels_file = manifest["labels"]
        self.shards = tuple(manifest["shards"])
        ends = np.cumsum([s["rows"] for s in self.shards])
        self.shard_bounds = tuple(zip([0, *ends[:-1].tolist()], ends.tolist(), strict=True))
        try:
            self.shard_bounds = check_bounds(self.shard_bounds, self.n_samples)
            self.bounds = check_bounds(
                self.shard_bounds if bounds is None else bounds, self.n_samples
            )
        except ValueError as err:
            raise DatasetError(f"shards in {self.path}: {err}") from None
        for entry in (*self.shards, self.labels_file):
            self._check_size(entry)
        listed = {s["file"] for s in self.shards}
        extra = sorted(f.name for f in Path(self.path).glob("*.npz") if f.name not in listed)
        if extra:
            raise DatasetError(
                f"shard folder {self.path}: {extra[0]} is not in the manifest ({len(extra)} "
                f"such file(s)); move it out of the folder, or {_REWRITE} with every shard"
            )
        self.fingerprint = shards_fingerprint(manifest)

    def _file(self, entry: dict) -> Path:
        return Path(self.path) / entry["file"]

    def _check_size(self, entry: dict) -> Path:
        path = self._file(entry)
        if not path.is_file():
            raise DatasetError(
                f"shard folder {self.path}: {path.name} is missing (the manifest lists it); "
                f"restore it, or {_REWRITE}"
            )
        size = path.stat().st_size
        if size != entry["bytes"]:
            raise DataIntegrityError(
                f"shard folder {self.path}: {path.name} has {size} bytes, the manifest says "
                f"{entry['bytes']} (truncated or changed); restore it, or {_REWRITE}"
            )
        return path

    def _verified(self, entry: dict) -> Path:
        path = self._check_size(entry)
        digest = sha256(path)
        if digest != entry["sha256"]:
            raise DataIntegrityError(
                f"shard folder {self.path}: {path.name} has sha256 {digest[:16]}..., the manifest "
                f"says {entry['sha256'][:16]}... (changed or damaged); restore it, or {_REWRITE}"
            )
        return path

    def shard(self, j: int):
        """Shard ``j`` as stored, its sha256 checked against the manifest."""
        import scipy.sparse as sp

        entry = self.shards[j]
        path = self._verified(entry)
        try:
            with np.load(path, allow_pickle=False) as f:
                X = sp.load_npz(path) if "format" in f.files else f["X"]
        except Exception as err:  # a file with the manifest's hash that numpy cannot read
            raise DatasetError(
                f"shard folder {self.path}: cannot read {path.name} ({type(err).__name__}: "
                f"{' '.join(str(err).split())}); {_REWRITE}"
            ) from None
        want = (entry["rows"], self.n_features)
        if X.shape != want or sp.issparse(X) != self.is_sparse or X.dtype != np.float64:
            kind = "CSR" if self.is_sparse else "dense"
            raise DatasetError(
                f"shard folder {self.path}: {path.name} holds a {X.shape} {X.dtype} "
                f"{'sparse' if sp.issparse(X) else 'dense'} matrix, the manifest says {want} "
                f"{kind} float64; {_REWRITE}"
            )
        return X.tocsr() if self.is_sparse else X

    def block(self, i: int):
        lo, hi = self.bounds[i]
        return _rows_of(self.shard_bounds, self.shard, lo, hi)

    def labels(self) -> np.ndarray:
        return self._labels(self._verified(self.labels_file)).astype(np.int64, copy=False)

    def prepare(self) -> None:
        """Check ``labels.npy``'s sha256 against the manifest, once before the blocks are handed
        out: :meth:`block_labels` then reads its block's slice alone."""
        self._verified(self.labels_file)

    def block_labels(self, i: int) -> np.ndarray:
        """The labels of block ``i``'s rows, read from ``labels.npy`` (memory-mapped: the
        block's slice, not the whole file). The file's sha256 is checked by :meth:`prepare`
        (once a run, before any block) and its size here."""
        lo, hi = self.bounds[i]
        y = self._labels(self._check_size(self.labels_file), mmap_mode="r")
        return np.array(y[lo:hi], dtype=np.int64)

    def _labels(self, path: Path, mmap_mode: str | None = None) -> np.ndarray:
        y = np.load(path, allow_pickle=False, mmap_mode=mmap_mode)
        if y.shape != (self.n_samples,) or y.dtype.kind not in "iu":
            raise DatasetError(
                f"shard folder {self.path}: {LABELS} holds {y.shape} {y.dtype}, not "
                f"{self.n_samples} integer labels; {_REWRITE}"
            )
        return y


def shards_fingerprint(manifest: dict) -> str:
    """``shards:<hash>`` of the manifest's files, rows and sha256, and the shape."""
    listed = [[s["file"], s["rows"], s["sha256"]] for s in manifest["shards"]]
    shape = [manifest["n_samples"], manifest["n_features"], manifest["n_clusters"]]
    return f"shards:{_digest([listed, manifest['labels']['sha256'], shape, manifest['sparse']])}"


def _read_manifest(folder: Path) -> dict:
    path = folder / MANIFEST
    if not folder.is_dir():
        raise DatasetError(f"shard folder {folder} does not exist; give path=<folder of shards>")
    if not path.is_file():
        raise DatasetError(
            f"shard folder {folder} has no {MANIFEST}; write the folder with "
            "kmdr.datasets.blocks.write_shards"
        )
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        ok = manifest.get("format") == FORMAT
        names = [s["file"] for s in manifest["shards"]]
        ok = ok and all(int(s["rows"]) >= 1 and len(s["sha256"]) == 64 for s in manifest["shards"])
        ok = ok and bool(names) and names == sorted(names) and len(set(names)) == len(names)
        ok = ok and all(Path(n).name == n for n in [*names, manifest["labels"]["file"]])
        int(manifest["n_samples"]), int(manifest["n_features"]), int(manifest["n_clusters"])
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise DatasetError(
            f"shard folder {folder}: {MANIFEST} cannot be read ({type(err).__name__}: {err}); "
            f"{_REWRITE}"
        ) from None
    if not ok:
        raise DatasetError(
            f"shard folder {folder}: {MANIFEST} is not a {FORMAT} manifest of shards in name "
            f"order; {_REWRITE}"
        )
    return manifest


def _save(f, X, sparse: bool) -> None:
    import scipy.sparse as sp

    if sparse:
        sp.save_npz(f, sp.csr_matrix(X, dtype=np.float64), compressed=False)
    else:
        np.savez(f, X=np.ascontiguousarray(X, dtype=np.float64))


def _write_file(path: Path, write: Callable) -> dict:
    with open(path, "wb") as f:
        write(f)
    return {"file": path.name, "bytes": path.stat().st_size, "sha256": sha256(path)}


def write_shards(data, folder, *, rows: int | None = None) -> Path:
    """Write ``data`` (a :class:`~kmdr.datasets.Dataset` or
    :class:`~kmdr.datasets.blocks.RowBlocks`) into ``folder`` as a shard folder (see the module
    docstring) and return the folder.

    ``rows``: rows per shard (the last one shorter); None: the blocks' own split (a Dataset: one
    shard). Blocks are read one at a time. ``folder`` must not hold a shard folder or ``.npz``
    files already (nothing is overwritten). Sparse shards are stored uncompressed.
    """
    folder = Path(folder).expanduser()
    if folder.exists() and (not folder.is_dir() or any(folder.glob("*.npz"))):
        raise DatasetError(
            f"cannot write shards into {folder}: it is not an empty folder; give a new folder"
        )
    if (folder / MANIFEST).exists():
        raise DatasetError(f"cannot write shards into {folder}: it holds a {MANIFEST} already")
    if rows is not None and (isinstance(rows, bool) or not isinstance(rows, int) or rows < 1):
        raise DatasetError(f"rows per shard must be an int >= 1, got {rows!r}")
    if isinstance(data, Dataset):
        blocks = SplitBlocks(data, bounds_of_rows(data.n_samples, rows or data.n_samples))
        name = data.name
    elif isinstance(data, RowBlocks):
        blocks, name = data, data.name
    else:
        raise DatasetError(
            f"write_shards takes a kmdr.datasets.Dataset or RowBlocks, got {type(data).__name__}"
        )
    n, sparse = blocks.n_samples, blocks.is_sparse
    bounds = blocks.bounds if rows is None else bounds_of_rows(n, rows)
    y = np.asarray(blocks.labels(), dtype=np.int64)
    folder.mkdir(parents=True, exist_ok=True)
    width = max(5, len(str(len(bounds) - 1)))
    shards = []
    for i, (lo, hi) in enumerate(bounds):
        X = blocks.block(i) if rows is None else _rows_of(blocks.bounds, blocks.block, lo, hi)
        path = folder / f"shard-{i:0{width}d}.npz"
        shards.append({**_write_file(path, lambda f, X=X: _save(f, X, sparse)), "rows": hi - lo})
        del X
    manifest = {
        "format": FORMAT,
        "source": name,
        "n_samples": n,
        "n_features": blocks.n_features,
        "n_clusters": int(blocks.n_clusters),
        "sparse": bool(sparse),
        "source_fingerprint": blocks.fingerprint,
        "labels": _write_file(folder / LABELS, lambda f: np.save(f, y)),
        "shards": shards,
    }
    # last, atomically: a folder without it was not written to the end
    atomic_write_text(folder / MANIFEST, json.dumps(manifest, indent=1) + "\n")
    return folder


def _needs_path(path) -> None:
    if path is None or str(path).strip() in ("", "???"):  # ???: a config that left it unset
        raise DatasetError(
            "dataset 'shards' needs the folder: path=<folder of shards> "
            "(dataset.params.path=... in a config)"
        )


def load_shards(path=None) -> Dataset:
    """The shard folder ``path`` in memory: the shards concatenated in name order (each checked
    against the manifest), with the blocks' fingerprint."""
    _needs_path(path)
    blocks = ShardBlocks(path)
    X = stack_rows([blocks.shard(j) for j in range(len(blocks.shards))])
    return Dataset(
        name="shards",
        X=X,
        y=blocks.labels(),
        n_clusters=blocks.n_clusters,
        feature_names=None,
        description=(
            f"{len(blocks.shards)} row shards in {blocks.path}"
            + (f" (written from {blocks.source})" if blocks.source else "")
        ),
        fingerprint=blocks.fingerprint,
    )


def shard_blocks(entry, split, *, data_dir=None, mirror=None, path=None, **params) -> ShardBlocks:
    """The registered ``shards`` dataset as blocks: one per shard, or at ``split(n_samples)``
    (``data_dir`` and ``mirror`` are not used: the folder is the user's)."""
    if params:
        raise DatasetError(
            f"dataset 'shards': unknown parameters {sorted(params)}; valid: ['path']"
        )
    _needs_path(path)
    blocks = ShardBlocks(path)
    if split is not None:
        try:
            blocks.bounds = split(blocks.n_samples)
        except ValueError as err:
            raise DatasetError(f"dataset 'shards': {err}") from None
    return blocks
