"""``openml``: a dataset of OpenML by its id (``dataset=openml dataset.params.data_id=61``),
fetched by :func:`sklearn.datasets.fetch_openml` into the data cache (``<cache>/openml``, as
scikit-learn lays it out under its data home).

The dataset's version and its file's md5 checksum (which fetch_openml verifies) make its
fingerprint, and the Dataset's description names them, so the run record keeps them. The first
fetch of an id pins them in ``<cache>/openml-pins/<id>.json``; a later fetch of the same id that
gives another version or checksum (the dataset was re-uploaded, or the cache was refilled from
another source) is refused in one line, so cells of two different data never share a name:
delete the pin to accept the new data.

Labels: OpenML's default target when it has one (its values numbered 0..k-1), k its number of
classes unless ``n_clusters`` is given; without a target ``n_clusters`` is required and only F is
scored, as for a user's unlabeled file.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType

import numpy as np

from kmdr._io import atomic_write_text

from ._base import UNLABELED, Dataset, consecutive_labels
from ._fingerprint import _digest
from ._registry import DatasetError, DatasetUnavailable, resolve_data_dir

__all__ = ["OPENML_PARAMS", "load_openml"]

OPENML_PARAMS = MappingProxyType({"data_id": None, "n_clusters": None})
#: What identifies the data of an id, from OpenML's description of it.
PINNED = ("name", "version", "file_id", "md5_checksum")


def _fail(data_id, problem: str, fix: str) -> DatasetError:
    return DatasetError(f"dataset 'openml': data_id {data_id}: {problem}; {fix}")


def _check_pin(cache: Path, data_id: int, details: dict) -> None:
    """Pin what the first fetch of ``data_id`` gave; refuse a later fetch that differs."""
    got = {key: str(details.get(key)) for key in PINNED}
    pin = cache / "openml-pins" / f"{data_id}.json"
    if pin.is_file():
        pinned = json.loads(pin.read_text())
        if pinned != got:
            changed = ", ".join(f"{k} {pinned.get(k)} -> {got[k]}" for k in PINNED
                                if pinned.get(k) != got[k])  # fmt: skip
            raise _fail(data_id, f"this fetch differs from the first ({changed})",
                        f"delete {pin} to use the new data (its cells will be new ones), or "
                        "restore the data cache")  # fmt: skip
        return
    pin.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(pin, json.dumps(got, indent=1, sort_keys=True) + "\n")


def load_openml(data_dir=None, mirror=None, data_id=None, n_clusters=None) -> Dataset:
    """OpenML's dataset ``data_id`` (see the module docstring) as a :class:`Dataset`."""
    from sklearn.datasets import fetch_openml

    if data_id is None or isinstance(data_id, bool) or int(data_id) != data_id or data_id < 1:
        raise DatasetError(
            f"dataset 'openml': data_id={data_id!r}; give OpenML's id of the dataset "
            "(dataset.params.data_id=61 for iris)"
        )
    data_id = int(data_id)
    cache = resolve_data_dir(data_dir)
    try:
        bunch = fetch_openml(data_id=data_id, data_home=str(cache),
                             as_frame=False, parser="auto")  # fmt: skip
    except OSError as err:  # no network, or OpenML down: the run records why and skips
        raise DatasetUnavailable(
            f"openml: data_id {data_id} cannot be fetched ({' '.join(str(err).split())}); "
            "check the network, or run where OpenML can be reached once (it is cached)"
        ) from None
    except ValueError as err:  # a checksum that does not match, an unknown id, string columns
        raise _fail(data_id, " ".join(str(err).split())[:300],
                    f"delete {cache / 'openml'} and fetch it again, or choose another "
                    "dataset") from None  # fmt: skip
    details = dict(bunch.details)
    _check_pin(cache, data_id, details)
    sparse = hasattr(bunch.data, "tocsr")
    X = bunch.data.tocsr().astype(np.float64) if sparse else np.asarray(bunch.data, np.float64)
    finite = X.data if sparse else X
    if not np.isfinite(finite).all():
        raise _fail(data_id, "the data has missing or infinite values",
                    "choose a dataset without missing values")  # fmt: skip
    target = bunch.target
    if target is None or np.ndim(target) != 1:
        if n_clusters is None:
            raise _fail(data_id, "no single target to take k from",
                        "give k with dataset.params.n_clusters=...")  # fmt: skip
        y, k = np.full(X.shape[0], UNLABELED, dtype=np.int64), int(n_clusters)
    else:
        y = consecutive_labels(np.asarray(target).astype(str))
        k = int(y.max()) + 1 if n_clusters is None else int(n_clusters)
    pinned = {key: str(details.get(key)) for key in PINNED}
    return Dataset(
        f"openml_{data_id}",
        X,
        y,
        k,
        None,
        f"OpenML data_id {data_id} {pinned['name']!r} version {pinned['version']} "
        f"(file {pinned['file_id']}, md5 {pinned['md5_checksum']})",
        fingerprint=f"openml:{data_id}:{_digest([pinned, n_clusters])}",
        k_chosen=n_clusters is not None,
    )
