"""The papers' datasets, downloaded with pooch, verified, and loaded as the papers used them.

>>> from kmdr.datasets import load_dataset
>>> ds = load_dataset("usps")            # doctest: +SKIP
>>> ds.X.shape, ds.n_clusters            # doctest: +SKIP
((11000, 256), 10)

Files are listed once, with URL and sha256, in ``registry.txt`` (see :mod:`._registry`). They are
cached under ``data_dir`` (:func:`._registry.resolve_data_dir` says where) and copied from a
mirror folder (argument > ``KMDR_DATA_MIRROR``) when one is set, else downloaded; the hash is
verified either way.

Every dataset is declared once, as one :class:`DatasetEntry` (:mod:`._entry`): its loader, kind
(one of :data:`DATASET_KINDS`), registry files, display name and fixed facts; :data:`DATASETS`
(a :class:`kmdr.plugins.Registry`, :mod:`._catalog`) lists them and :func:`dataset_info` returns
one. Other packages add datasets through the entry-point group ``kmdr.datasets``::

    [project.entry-points."kmdr.datasets"]
    mydata = "mypackage.data:ENTRY"    # a kmdr.datasets.DatasetEntry, or a loader function
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ._base import Dataset
from ._builtins import recorded_params
from ._catalog import (
    DATASET_KINDS,
    DATASETS,
    ENTRY_POINT_GROUP,
    STATUSES,
    DatasetEntry,
    availability,
    counted_fingerprint,
    dataset_info,
    dataset_names,
    plugin_clash,
    reload_plugins,
)
from ._facts import DeclaredData, declared_data
from ._fingerprint import content_fingerprint
from ._images import orl_faces_manifest_sha256, read_pgm
from ._params import GeneratorParams
from ._progress import PROGRESS_ENV, set_download_progress
from ._registry import (
    DATA_DIR_ENV,
    MIRROR_ENV,
    DataIntegrityError,
    DatasetError,
    DatasetUnavailable,
    fetch,
    registry,
    resolve_data_dir,
    resolve_mirror,
    sha256,
)
from ._text import build_nips, read_rcv1

__all__ = [
    "DATASETS",
    "DATASET_KINDS",
    "DATA_DIR_ENV",
    "ENTRY_POINT_GROUP",
    "MIRROR_ENV",
    "PROGRESS_ENV",
    "STATUSES",
    "DataIntegrityError",
    "Dataset",
    "DatasetEntry",
    "DatasetError",
    "DatasetStatus",
    "DatasetUnavailable",
    "DeclaredData",
    "GeneratorParams",
    "availability",
    "available_datasets",
    "build_nips",
    "content_fingerprint",
    "counted_fingerprint",
    "dataset_info",
    "dataset_status",
    "declared_data",
    "fetch",
    "load_dataset",
    "orl_faces_manifest_sha256",
    "plugin_clash",
    "read_pgm",
    "read_rcv1",
    "recorded_params",
    "registry",
    "reload_plugins",
    "resolve_data_dir",
    "resolve_mirror",
    "set_download_progress",
]


def available_datasets() -> tuple[str, ...]:
    """The valid dataset names: the built-ins in a fixed order, then the plug-ins by name."""
    return dataset_names()


def load_dataset(
    name: str,
    *,
    data_dir: str | os.PathLike | None = None,
    mirror: str | os.PathLike | None = None,
    **params,
) -> Dataset:
    """Load dataset ``name`` (one of :func:`available_datasets`).

    ``data_dir`` / ``mirror`` override ``KMDR_DATA_DIR`` / ``KMDR_DATA_MIRROR``. ``params`` are
    the generator's parameters for ``synth``, ``sparse_text`` and ``mixture`` (e.g. ``seed``),
    the folder for ``shards`` (``path=...``); file-backed datasets take none. For data in row
    blocks, one at a time, see :func:`kmdr.datasets.blocks.load_blocks`.

    What the loader returns is checked (:mod:`._validate`) before it is returned. Raises
    :class:`ValueError` for an unknown name, :class:`DatasetUnavailable` when a file cannot be
    obtained (or a plug-in cannot be imported), :class:`DataIntegrityError` when a file's sha256
    is wrong, and :class:`DatasetError` (a ValueError, like DataIntegrityError) for bad
    parameters, a cache or mirror that is not a folder, a file that cannot be read or a loader
    that fails or returns an invalid dataset. Each message is one line naming the problem and the
    fix.
    """
    return dataset_info(name).load(data_dir=data_dir, mirror=mirror, **params)


@dataclass(frozen=True)
class DatasetStatus:
    """Whether a dataset can be loaded here, and if so its size (for ``kmdr-data``)."""

    name: str
    present: bool
    reason: str
    n_samples: int | None = None
    n_features: int | None = None
    n_clusters: int | None = None
    density: float | None = None
    sha256: str | None = None


def dataset_status(
    name: str,
    *,
    data_dir: str | os.PathLike | None = None,
    mirror: str | os.PathLike | None = None,
) -> DatasetStatus:
    """Fetch and load ``name`` (defaults for generated data) and report what happened; a
    ``folder`` dataset (``shards``) is reported as such, not loaded (it has no default folder).

    A missing file gives ``present=False`` with the reason; a corrupted file raises
    :class:`DataIntegrityError`.
    """
    try:
        entry = dataset_info(name)
        if entry.kind == "folder":  # the user's folder: nothing to fetch, no default to load
            return DatasetStatus(name, True, "read from a folder or file (path=...)")
        if entry.kind == "fetched":  # the user's id: nothing to fetch before one is given
            return DatasetStatus(name, True, "fetched by id (data_id=...)")
        ds = load_dataset(name, data_dir=data_dir, mirror=mirror)
    except DatasetUnavailable as err:
        return DatasetStatus(name, False, str(err))
    digest, reason = None, "present"
    if entry.kind == "file":
        if entry.digest is not None:
            digest = entry.digest()  # every file was verified on fetch
        else:
            digest = sha256(resolve_data_dir(data_dir) / entry.files[0])
    elif entry.kind == "synthetic":
        reason = "generated (SYNTHETIC)"
    else:
        reason = "bundled"
    return DatasetStatus(
        name,
        True,
        reason,
        ds.n_samples,
        ds.n_features,
        ds.n_clusters,
        ds.density,
        digest,
    )
