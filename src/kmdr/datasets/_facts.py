"""What a dataset's declaration tells without loading it: :func:`declared_data`.

A dry run plans cells from the data's shape, sparsity, k and fingerprint only. For a dataset
whose :class:`~kmdr.datasets.DatasetEntry` declares its size and sparsity (at the parameters
given: the declared facts are those of the default parameters), whose fingerprint follows from
its declaration (registered files of known hash, or a generator and its parameters) and whose
files are all in the cache, those facts are read here without reading the data. Anything else
(a plug-in without facts, other parameters, data still to fetch, a fingerprint of the content)
is None: the caller loads the data, which also reports why it cannot be obtained.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ._catalog import dataset_info
from ._fingerprint import declared_fingerprint
from ._registry import registry, resolve_data_dir

__all__ = ["DeclaredData", "declared_data"]


@dataclass(frozen=True)
class DeclaredData:
    """A dataset's facts as its declaration states them (the data is not loaded)."""

    name: str
    n_samples: int
    n_features: int
    n_clusters: int
    sparse: bool
    fingerprint: str
    description: str = ""


def _cached(entry, data_dir) -> bool:
    """Every file the entry reads is registered and in the cache (verified when loaded)."""
    files = (*entry.files, *entry.extra_files)
    if any(p not in registry() for p in files):
        return False
    cache_dir = resolve_data_dir(data_dir)
    return all((cache_dir / p).is_file() for p in files)


def declared_data(
    name: str, *, data_dir: str | os.PathLike | None = None, **params
) -> DeclaredData | None:
    """The facts of dataset ``name`` with ``params`` from its declaration, or None when the
    declaration cannot tell them (see the module docstring). Never raises for a dataset that
    cannot be used: loading it says why."""
    try:
        entry = dataset_info(name)
    except Exception:  # an unknown or broken dataset: its loading gives the one-line error
        return None
    defaults = entry.params or {}
    if entry.params is None or any(
        k not in defaults or defaults[k] != v for k, v in params.items()
    ):
        return None
    facts = (entry.n_samples, entry.n_features, entry.n_clusters, entry.sparse)
    if any(f is None for f in facts) or entry.kind == "bundled":
        return None
    if entry.kind == "file" and not _cached(entry, data_dir):
        return None
    fingerprint = declared_fingerprint(entry, dict(params))
    if fingerprint is None:
        return None
    n, d, k, sparse = facts
    return DeclaredData(name, int(n), int(d), int(k), bool(sparse), fingerprint, entry.description)
