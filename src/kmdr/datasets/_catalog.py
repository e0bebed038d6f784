"""The one catalog of datasets: which names exist and the :class:`DatasetEntry` each means.

Every consumer (``DATASETS``, :func:`~kmdr.datasets.load_dataset`, ``dataset_status``, the
``kmdr-data`` table, ``kmdr-list``, the figures' and report's display names) reads the entries
through :func:`dataset_info`; nothing else lists datasets.

:data:`DATASETS` is a :class:`kmdr.plugins.Registry`: kmdr's own entries (:mod:`._builtins`),
then plug-ins of the entry-point group ``kmdr.datasets``, whose name is the dataset name and
whose value (``module:attr``) is either a :class:`DatasetEntry` or a bare loader function (taken
as a ``bundled`` dataset about which nothing more is known). Plug-ins are imported only when their
dataset is used, so a broken one costs one warning line and leaves the others working; name
clashes follow the one policy of :mod:`kmdr.plugins` (built-in names win; two plug-ins of one
name are both refused, and asking for that name is an error naming both).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from kmdr.plugins import Registry, RegistryError

from ._builtins import BUILTIN
from ._entry import DATASET_KINDS, DatasetEntry
from ._registry import (
    MIRROR_ENV,
    DatasetError,
    DatasetUnavailable,
    check_locations,
    registry,
    resolve_data_dir,
    resolve_mirror,
)

__all__ = [
    "BUILTIN",
    "DATASETS",
    "DATASET_KINDS",
    "ENTRY_POINT_GROUP",
    "STATUSES",
    "DatasetEntry",
    "availability",
    "counted_fingerprint",
    "dataset_info",
    "dataset_names",
    "plugin_clash",
    "reload_plugins",
]

ENTRY_POINT_GROUP = "kmdr.datasets"
#: What :func:`availability` can answer, from best to worst.
STATUSES = (
    "cached", "mirror", "download", "bundled", "synthetic", "folder", "fetched", "unavailable"
)  # fmt: skip


def _as_entry(obj: object, name: str) -> DatasetEntry:
    """What a declaration loaded to, as an entry (a bare loader is a ``bundled`` dataset);
    a one-line error for anything else."""
    if isinstance(obj, DatasetEntry):
        if obj.name != name:
            raise ValueError(
                f"it declares name {obj.name!r}; make the entry point's name and "
                "DatasetEntry.name the same"
            )
        return obj
    if callable(obj):
        doc = (obj.__doc__ or "").strip().splitlines()
        return DatasetEntry(
            name, obj, "bundled", name, params=None, description=doc[0] if doc else ""
        )
    raise TypeError(
        f"it is a {type(obj).__name__}; it must be a kmdr.datasets.DatasetEntry or a loader "
        "function"
    )


#: Every dataset name: the built-ins, then the installed plug-ins.
DATASETS: Registry[DatasetEntry] = Registry(
    "dataset", ENTRY_POINT_GROUP, convert=_as_entry, paper_field="datasets"
)
for _entry in BUILTIN.values():
    DATASETS.declare(_entry.name, _entry)
del _entry


def reload_plugins() -> None:
    """Forget the plug-ins found so far (after installing one into the running interpreter)."""
    DATASETS.reload()


def dataset_names() -> tuple[str, ...]:
    """Every dataset name: the built-ins in a fixed order, then the plug-ins."""
    return DATASETS.names()


def plugin_clash(name: str) -> str | None:
    """The one-line reason why ``name`` is no dataset when two plug-ins declare it; else None
    (nothing is imported)."""
    if not isinstance(name, str) or name in BUILTIN or DATASETS.declarations_of(name) < 2:
        return None
    return DATASETS.problem(name)


def dataset_info(name: str) -> DatasetEntry:
    """The catalog entry of ``name`` (e.g. ``dataset_info("coil20").display_name == "COIL20"``).

    Raises :class:`ValueError` for an unknown name or a name two plug-ins declare, and
    :class:`~kmdr.datasets.DatasetUnavailable` for a plug-in that cannot be imported or is not a
    dataset.
    """
    builtin = BUILTIN.get(name) if isinstance(name, str) else None
    if builtin is not None:
        return builtin
    try:
        return DATASETS.get(name)
    except RegistryError as err:
        if not isinstance(name, str) or name not in DATASETS.names():
            if DATASETS.declarations_of(name) > 1:  # a clash: which one was meant cannot be known
                raise ValueError(str(err)) from None
            raise ValueError(
                f"unknown dataset {name!r}; valid names: {', '.join(dataset_names())}"
            ) from None
        raise DatasetUnavailable(str(err)) from None


def availability(
    name: str,
    *,
    data_dir: str | os.PathLike | None = None,
    mirror: str | os.PathLike | None = None,
) -> tuple[str, str]:
    """Where ``name``'s data would come from, without loading it: ``(status, reason)``.

    ``status`` is one of :data:`STATUSES`: ``cached`` (every file is in the cache; hashes are
    verified when loaded), ``mirror`` (the missing ones are in the mirror), ``download`` (the
    missing ones would be downloaded from their registry URLs), ``bundled``, ``synthetic``,
    ``folder`` (read from the folder or file given as ``path``), ``fetched`` (fetched into the
    cache from the id given, e.g. OpenML's ``data_id``), or
    ``unavailable`` (a file is not in the data registry, or has no pinned hash there, or its URL
    does not serve it (``unserved`` in the registry) and it is in neither the cache nor the
    mirror, or a plug-in cannot be imported); the reason then says how to get it.
    ``reason`` is one line for ``mirror``/``download``/``unavailable``, else empty.
    """
    try:
        entry = dataset_info(name)
    except DatasetUnavailable as err:
        return "unavailable", str(err)
    if entry.kind != "file":
        return entry.kind, ""
    needed = (*entry.files, *entry.extra_files)
    unregistered = [p for p in needed if p not in registry()]
    if unregistered:
        return "unavailable", f"{name}: {unregistered[0]} is not in the data registry"
    unpinned = [p for p in needed if registry()[p].known_hash is None]
    if unpinned:
        return "unavailable", f"{name}: {unpinned[0]} has no pinned hash in the data registry"
    cache_dir = resolve_data_dir(data_dir)
    mirror_dir = resolve_mirror(mirror)
    try:
        check_locations(cache_dir, None)
        missing = [p for p in needed if not (cache_dir / p).is_file()]
        if not missing:
            return "cached", ""
        check_locations(cache_dir, mirror_dir)
    except DatasetError as err:
        return "unavailable", str(err)
    if mirror_dir is not None:
        in_mirror = [p for p in missing if (mirror_dir / p).is_file()]
        if len(in_mirror) == len(missing):
            return "mirror", f"{name}: {len(missing)} file(s) to copy from {mirror_dir}"
        missing = [p for p in missing if p not in in_mirror]
    unserved = [p for p in missing if not registry()[p].downloadable]
    if unserved:
        path = unserved[0]
        return "unavailable", (
            f"{name}: {path} cannot be downloaded ({registry()[path].url} does not serve it and "
            f"no public copy is known); put it at {cache_dir / path} or in a mirror folder "
            f"({MIRROR_ENV})"
        )
    return "download", f"{name}: {missing[0]} to download from {registry()[missing[0]].url}"


def counted_fingerprint(name: str, params: Mapping[str, Any], fingerprint: str) -> str:
    """The fingerprint under which the report counts dataset ``name`` with ``params``, whose
    cells recorded ``fingerprint``: for a declared copy (:attr:`DatasetEntry.copy_of`), the
    copied dataset's as its declaration states it; else ``fingerprint`` itself."""
    from ._fingerprint import declared_fingerprint

    entry = dataset_info(name)
    if entry.copy_of is None:
        return fingerprint
    original = dataset_info(entry.copy_of)
    return declared_fingerprint(original, dict(params)) or f"copy-of:{entry.copy_of}"
