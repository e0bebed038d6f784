"""The papers' datasets, downloaded with pooch, verified, and loaded as the papers used them.

>>> from kmdr.datasets import load_dataset
>>> ds = load_dataset("usps")            # doctest: +SKIP
>>> ds.X.shape, ds.n_clusters            # doctest: +SKIP
((11000, 256), 10)

Files are listed once, with URL and sha256, in ``registry.txt`` (see :mod:`._registry`). They are
cached under ``data_dir`` (argument > ``KMDR_DATA_DIR`` > ``<repo>/datasets``) and copied from a
mirror folder (argument > ``KMDR_DATA_MIRROR``) when one is set, else downloaded; the hash is
verified either way. Provenance of every file: SOURCES.md in the workplace's shared datasets.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from ._base import Dataset
from ._images import (
    load_coil20,
    load_orl,
    load_orl_raw,
    load_pie,
    load_usps,
    orl_faces_manifest_sha256,
    read_pgm,
)
from ._registry import (
    DATA_DIR_ENV,
    MIRROR_ENV,
    DataIntegrityError,
    DatasetUnavailable,
    fetch,
    registry,
    resolve_data_dir,
    resolve_mirror,
    sha256,
)
from ._synthetic import make_sparse_text, make_synth
from ._text import build_nips, load_nips, load_rcv1, read_rcv1

__all__ = [
    "DATASETS",
    "DATA_DIR_ENV",
    "MIRROR_ENV",
    "DataIntegrityError",
    "Dataset",
    "DatasetStatus",
    "DatasetUnavailable",
    "available_datasets",
    "build_nips",
    "dataset_status",
    "fetch",
    "load_dataset",
    "orl_faces_manifest_sha256",
    "read_pgm",
    "read_rcv1",
    "registry",
    "resolve_data_dir",
    "resolve_mirror",
]

_FILE_LOADERS: dict[str, Callable[..., Dataset]] = {
    "orl": load_orl,
    "orl_raw": load_orl_raw,
    "coil20": load_coil20,
    "usps": load_usps,
    "pie": load_pie,
    "nips": load_nips,
    "rcv1": load_rcv1,
}
_GENERATORS: dict[str, Callable[..., Dataset]] = {
    "synth": make_synth,
    "sparse_text": make_sparse_text,
}
#: Valid dataset names, in a fixed order.
DATASETS: tuple[str, ...] = (
    "orl",
    "orl_raw",
    "coil20",
    "usps",
    "pie",
    "synth",
    "nips",
    "rcv1",
    "sparse_text",
)
#: The file whose sha256 identifies each file-backed dataset (``orl_raw``, 400 PGMs, is
#: identified by the sha256 of its manifest ``orl_faces.SHA256SUMS`` instead).
MAIN_FILE: dict[str, str] = {
    "orl": "orl/ORL_64x64.mat",
    "coil20": "coil20/COIL20.mat",
    "usps": "usps/USPS_11000x256_uint8.mat",
    "pie": "pie/PIE_2856x1024.mat",
    "nips": "nips/nips_1-17.mat",
    "rcv1": "rcv1/rcv1_train.multiclass.bz2",
}


def available_datasets() -> tuple[str, ...]:
    """The valid dataset names."""
    return DATASETS


def load_dataset(
    name: str,
    *,
    data_dir: str | os.PathLike | None = None,
    mirror: str | os.PathLike | None = None,
    **params,
) -> Dataset:
    """Load dataset ``name`` (one of :data:`DATASETS`).

    ``data_dir`` / ``mirror`` override ``KMDR_DATA_DIR`` / ``KMDR_DATA_MIRROR``. ``params`` are
    the generator's parameters for ``synth`` and ``sparse_text`` (e.g. ``seed``); file-backed
    datasets take none.

    Raises :class:`ValueError` for an unknown name or bad parameters, :class:`DatasetUnavailable`
    when a file cannot be obtained, and :class:`DataIntegrityError` (a ValueError) when a file's
    sha256 is wrong.
    """
    if name in _GENERATORS:
        return _GENERATORS[name](**params)
    if name in _FILE_LOADERS:
        if params:
            raise ValueError(f"dataset {name!r} takes no parameters, got {sorted(params)}")
        return _FILE_LOADERS[name](data_dir=data_dir, mirror=mirror)
    raise ValueError(f"unknown dataset {name!r}; valid names: {', '.join(DATASETS)}")


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
    """Fetch and load ``name`` (defaults for generated data) and report what happened.

    A missing file gives ``present=False`` with the reason; a corrupted file raises
    :class:`DataIntegrityError`.
    """
    try:
        ds = load_dataset(name, data_dir=data_dir, mirror=mirror)
    except DatasetUnavailable as err:
        return DatasetStatus(name, False, str(err))
    digest, reason = None, "present"
    if name in MAIN_FILE:
        digest = sha256(resolve_data_dir(data_dir) / MAIN_FILE[name])
    elif name == "orl_raw":
        digest = orl_faces_manifest_sha256()  # every file was verified on fetch
    else:
        reason = "generated (SYNTHETIC)"
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
