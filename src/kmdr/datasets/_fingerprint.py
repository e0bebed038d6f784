"""A dataset's fingerprint: a short text that changes whenever the data a loader returns can.

A cell's numbers depend on the data it ran on, so the fingerprint is part of every cell's
identity (``data_fingerprint`` in ``cells.csv``): rows computed on other data are never reused or
mixed with the current ones.

- ``files:<hash>``: a dataset read from registered files: the sha256 of each file the loader
  reads, as the data registry lists it (every file is verified against it on fetch), with the
  dataset's parameters. A registered file without a known hash is fingerprinted by the content of
  what was loaded instead (``content:``).
- ``generator:<name>:<hash>``: generated data: the generator's name and its parameters with the
  defaults filled in (the same generator and parameters give the same data), but for a parameter
  added later at the value that gives the data as before (``DatasetEntry.added_params``).
- ``shards:<hash>``: a folder of row shards (:mod:`._shards`): each shard's name, rows and sha256
  as its manifest lists them (each shard is checked against it when read), with the shape.
- ``content:<hash>``: anything else (a plug-in's or a user's data): the sha256 of ``X`` (its
  shape, dtype and values; for CSR its ``indptr``, ``indices`` and ``data``) and of ``y``.
"""

from __future__ import annotations

import hashlib

import numpy as np

from kmdr._hashing import stable_digest

__all__ = ["content_fingerprint", "declared_fingerprint", "entry_fingerprint"]

#: Hex digits kept of each digest (96 bits: collisions are not a concern for a few datasets).
_DIGITS = 24


def _digest(obj) -> str:
    return stable_digest(obj)[:_DIGITS]


def _update_array(h, a) -> None:
    a = np.ascontiguousarray(a)  # a copy only when a is not C-contiguous
    h.update(f"{a.dtype.str}{a.shape}".encode())
    h.update(a.reshape(-1).view(np.uint8))  # the bytes, read in place (tobytes would copy)


def content_fingerprint(X, y) -> str:
    """``content:<hash>`` of ``X`` (dense or scipy.sparse) and ``y``."""
    import scipy.sparse as sp

    h = hashlib.sha256()
    if sp.issparse(X):
        # As stored (no sorting): entries in another order can round differently downstream.
        X = X.tocsr()
        h.update(f"csr{X.shape}".encode())
        for part in (X.indptr, X.indices, X.data):
            _update_array(h, part)
    else:
        _update_array(h, np.asarray(X))
    _update_array(h, np.asarray(y))
    return f"content:{h.hexdigest()[:_DIGITS]}"


def declared_fingerprint(entry, params: dict) -> str | None:
    """The fingerprint of the data ``entry`` (a :class:`~kmdr.datasets.DatasetEntry`) gives with
    ``params``, as its declaration states it (``files:`` or ``generator:``); None when only the
    loaded content can tell (``content:``)."""
    from ._registry import registry

    if entry.kind == "synthetic":
        full = {**dict(entry.params or {}), **params}
        for name, value in entry.added_params.items():  # as before the parameter existed
            if name in full and full[name] == value:
                del full[name]
        return f"generator:{entry.name}:{_digest(full)}"
    if entry.kind == "file":
        files = registry()
        paths = (*entry.files, *entry.extra_files)
        hashes = [files[p].known_hash if p in files else None for p in paths]
        if all(hashes):
            return f"files:{_digest([list(zip(paths, hashes, strict=True)), params])}"
    return None


def entry_fingerprint(entry, params: dict, X, y) -> str:
    """The fingerprint of the data ``entry`` (a :class:`~kmdr.datasets.DatasetEntry`) loaded with
    ``params`` into ``X``, ``y`` (see the module docstring)."""
    return declared_fingerprint(entry, params) or content_fingerprint(X, y)
