"""The one catalog of datasets: what each name is, how it is loaded, and what it is known to be.

Every consumer (``DATASETS``, :func:`~kmdr.datasets.load_dataset`, ``dataset_status``, the
``kmdr-data`` table, ``kmdr-list``, the figures' and report's display names) reads the
:class:`DatasetEntry` records here; nothing else lists datasets.

Third-party datasets plug in through the entry-point group ``kmdr.datasets``: the entry point's
name is the dataset name and its value (``module:attr``) is either a :class:`DatasetEntry` or a
bare loader function (taken as a ``bundled`` dataset about which nothing more is known). Plug-ins
are imported only when their dataset is used, so a broken one costs one warning line and leaves
the others working. Name clashes follow the reducers' policy: built-in names win (a plug-in named
like a built-in is ignored with one warning line naming it and its package); two plug-ins of one
name are both ignored with one warning line, and asking for that name is an error naming both.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import os
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import Any

from ._base import Dataset
from ._fingerprint import entry_fingerprint
from ._images import (
    ORL_FACES_FILES,
    load_coil20,
    load_orl,
    load_orl_raw,
    load_pie,
    load_usps,
    orl_faces_manifest_sha256,
)
from ._registry import (
    DatasetError,
    DatasetUnavailable,
    check_locations,
    registry,
    resolve_data_dir,
    resolve_mirror,
)
from ._synthetic import SPARSE_TEXT_DEFAULTS, SYNTH_DEFAULTS, make_sparse_text, make_synth
from ._text import (
    NIPS_FILE,
    NIPS_METADATA_FILES,
    RCV1_FILE,
    RCV1_N_CLASSES,
    RCV1_SHAPE,
    load_nips,
    load_rcv1,
)
from ._validate import check_dataset

ENTRY_POINT_GROUP = "kmdr.datasets"
KINDS = ("file", "bundled", "synthetic")
#: What :func:`availability` can answer, from best to worst.
STATUSES = ("cached", "mirror", "download", "bundled", "synthetic", "unavailable")


@dataclass(frozen=True)
class DatasetEntry:
    """One dataset of the catalog.

    Attributes
    ----------
    name : str
        The name configs use (``dataset=<name>``).
    loader : callable
        Returns a :class:`~kmdr.datasets.Dataset`. A ``file`` loader is called as
        ``loader(data_dir=..., mirror=..., **params)``, any other as ``loader(**params)``.
    kind : {"file", "bundled", "synthetic"}
        ``file``: read from files of the data registry (``registry.txt``), fetched and verified;
        ``bundled``: the data ships with the code that declares it; ``synthetic``: generated.
    display_name : str
        The name as the papers print it (figure panels, report headings).
    files : tuple of str
        ``file`` kind: the registry paths that identify the data (the sha256 column of
        ``kmdr-data``: the file's own hash, or ``digest()`` when there are several).
    extra_files : tuple of str
        Other registry files the loader fetches (metadata); needed, but not part of the identity.
    n_samples, n_features, n_clusters : int or None
        The size, where it is fixed (for generated data: at the default parameters).
    sparse : bool or None
        Whether ``X`` is a scipy.sparse matrix, where fixed.
    params : mapping or None
        The loader's parameters and their defaults; ``{}`` when it takes none, None when not
        declared (then any parameters are passed through to the loader).
    digest : callable or None
        Returns the sha256 that identifies a multi-file dataset (e.g. a manifest over its files).
    description : str
        One line on what the data is.
    """

    name: str
    loader: Callable[..., Dataset]
    kind: str
    display_name: str
    files: tuple[str, ...] = ()
    extra_files: tuple[str, ...] = ()
    n_samples: int | None = None
    n_features: int | None = None
    n_clusters: int | None = None
    sparse: bool | None = None
    params: Mapping[str, Any] | None = field(default_factory=dict)
    digest: Callable[[], str] | None = None
    description: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(
                f"dataset {self.name!r}: kind={self.kind!r} is invalid; use one of {KINDS}"
            )
        if not callable(self.loader):
            raise TypeError(f"dataset {self.name!r}: loader {self.loader!r} is not callable")
        if self.kind == "file" and not self.files:
            raise ValueError(f"dataset {self.name!r}: a 'file' dataset must list its files")

    def load(self, *, data_dir=None, mirror=None, **params) -> Dataset:
        """Call the loader with the parameters checked against :attr:`params` when declared,
        and check what it returns (:func:`~kmdr.datasets._validate.check_dataset`).

        Every failure is one line naming the problem and the fix: :class:`DatasetUnavailable`
        when a file cannot be obtained, :class:`DataIntegrityError` for a file whose sha256 is
        wrong, :class:`DatasetError` for anything else (a bad parameter, a cache or mirror that
        is not a folder, a file the loader cannot read, a loader that raises or returns an
        invalid dataset). The checked Dataset gets its
        :attr:`~kmdr.datasets.Dataset.fingerprint`.
        """
        if self.params is not None:
            unknown = sorted(set(params) - set(self.params))
            if unknown and not self.params:
                raise DatasetError(
                    f"dataset {self.name!r} takes no parameters, got {unknown}; remove them"
                )
            if unknown:
                raise DatasetError(
                    f"dataset {self.name!r}: unknown parameters {unknown}; "
                    f"valid: {sorted(self.params)}"
                )
        unregistered = [p for p in (*self.files, *self.extra_files) if p not in registry()]
        if unregistered:
            raise DatasetUnavailable(
                f"{self.name}: {unregistered[0]} is not in the data registry; a 'file' dataset "
                "reads only registered files (ship the data with the package as 'bundled')"
            )
        try:
            if self.kind == "file":
                ds = self.loader(data_dir=data_dir, mirror=mirror, **params)
            else:
                ds = self.loader(**params)
        except (DatasetUnavailable, DatasetError):
            raise  # already one line naming the problem and the fix
        except (Exception, SystemExit) as err:  # anything a loader (a plug-in's) raises
            # SystemExit too: a plug-in's sys.exit would otherwise end the command silently.
            raise DatasetError(self._failure(err, data_dir, mirror)) from err
        source = f"loader {_qualname(self.loader)}"
        check_dataset(ds, self.name, source)
        if not params:  # the catalog's facts are those of the default parameters
            self._check_facts(ds, source)
        if ds.fingerprint is None:  # fingerprinted once checked: what the cells ran on
            ds = dataclasses.replace(ds, fingerprint=entry_fingerprint(self, params, ds.X, ds.y))
        return ds

    def _check_facts(self, ds: Dataset, source: str) -> None:
        """The facts this entry declares (``kmdr-list`` shows them) are the loaded data's."""
        loaded = {
            "n_samples": ds.n_samples,
            "n_features": ds.n_features,
            "n_clusters": int(ds.n_clusters),
            "sparse": ds.is_sparse,
        }
        for fact, value in loaded.items():
            declared = getattr(self, fact)
            if declared is not None and declared != value:
                raise DatasetError(
                    f"dataset {self.name!r}: the loader returned {fact}={value} but its "
                    f"DatasetEntry declares {fact}={declared}; correct the entry ({source})"
                )

    def _failure(self, err: Exception, data_dir, mirror) -> str:
        """One line for a loader that raised: for files, which file to delete and re-fetch."""
        what = " ".join(f"{type(err).__name__}: {err}".split())
        if len(what) > 300:
            what = what[:297] + "..."
        if self.kind == "synthetic" and isinstance(err, ValueError):  # a parameter's value
            defaults = ", ".join(f"{k}={v!r}" for k, v in (self.params or {}).items())
            return f"dataset {self.name!r}: {' '.join(str(err).split())}; defaults: {defaults}"
        if self.kind != "file":
            return (
                f"dataset {self.name!r}: {what} (loader {_qualname(self.loader)}); fix the "
                "loader or the parameters given to it"
            )
        # Hash-verified files are what the registry says; a file of unknown hash was read as
        # it came (the cache's copy, from the mirror or a download), so it is the suspect.
        reg = registry()
        files = (*self.files, *self.extra_files)
        suspects = [p for p in files if p in reg and reg[p].sha256 is None] or list(self.files)
        cache_dir = resolve_data_dir(data_dir)
        paths = ", ".join(str(cache_dir / p) for p in suspects)
        mirror_dir = resolve_mirror(mirror)
        source = f" (and its source in {mirror_dir} if damaged too)" if mirror_dir else ""
        return (
            f"dataset {self.name!r}: cannot read {paths}: {what}; the file is damaged or not "
            f"the published one: delete it{source} and fetch it again (kmdr-data {self.name})"
        )


def _qualname(obj) -> str:
    module = getattr(obj, "__module__", None) or "?"
    return f"{module}:{getattr(obj, '__qualname__', type(obj).__name__)}"


_BUILTIN: tuple[DatasetEntry, ...] = (
    DatasetEntry(
        "orl", load_orl, "file", "ORL", ("orl/ORL_64x64.mat",),
        n_samples=400, n_features=4096, n_clusters=40, sparse=False,
        description="ORL/AT&T faces, 64x64 (Deng Cai's version)",
    ),
    DatasetEntry(
        "orl_raw", load_orl_raw, "file", "ORL (112x92)", ORL_FACES_FILES,
        n_samples=400, n_features=10304, n_clusters=40, sparse=False,
        digest=orl_faces_manifest_sha256,
        description="ORL/AT&T faces, the original 112x92 PGMs",
    ),
    DatasetEntry(
        "coil20", load_coil20, "file", "COIL20", ("coil20/COIL20.mat",),
        n_samples=1440, n_features=1024, n_clusters=20, sparse=False,
        description="COIL-20 objects, 32x32",
    ),
    DatasetEntry(
        "usps", load_usps, "file", "USPS", ("usps/USPS_11000x256_uint8.mat",),
        n_samples=11000, n_features=256, n_clusters=10, sparse=False,
        description="USPS handwritten digits, 16x16, 1100 per digit",
    ),
    DatasetEntry(
        "pie", load_pie, "file", "PIE", ("pie/PIE_2856x1024.mat",),
        n_samples=2856, n_features=1024, n_clusters=68, sparse=False,
        description="CMU PIE faces, 68 people x 42 illuminations, 32x32",
    ),
    DatasetEntry(
        "synth", make_synth, "synthetic", "Synth",
        n_samples=SYNTH_DEFAULTS["n_samples"], n_features=SYNTH_DEFAULTS["n_features"],
        n_clusters=SYNTH_DEFAULTS["n_clusters"], sparse=False,
        params=MappingProxyType(SYNTH_DEFAULTS),
        description="SYNTHETIC Gaussian mixture of bzmd14 §7.3",
    ),
    DatasetEntry(
        "nips", load_nips, "file", "NIPS", (NIPS_FILE,), NIPS_METADATA_FILES,
        n_samples=184, n_features=None, n_clusters=3, sparse=True,  # d: terms found in the docs
        description="NIPS 2001-2003 papers of sections CN/LT/NS, word counts (bmd09)",
    ),
    DatasetEntry(
        "rcv1", load_rcv1, "file", "RCV1", (RCV1_FILE,),
        n_samples=RCV1_SHAPE[0], n_features=RCV1_SHAPE[1], n_clusters=RCV1_N_CLASSES, sparse=True,
        description="RCV1 multiclass training split (LIBSVM), tf-idf",
    ),
    DatasetEntry(
        "sparse_text", make_sparse_text, "synthetic", "sparse_text (RCV1 stand-in)",
        n_samples=SPARSE_TEXT_DEFAULTS["n_samples"],
        n_features=SPARSE_TEXT_DEFAULTS["n_features"],
        n_clusters=SPARSE_TEXT_DEFAULTS["n_clusters"], sparse=True,
        params=MappingProxyType(SPARSE_TEXT_DEFAULTS),
        description="SYNTHETIC sparse document-term matrix with RCV1's shape and density",
    ),
)  # fmt: skip
BUILTIN: Mapping[str, DatasetEntry] = MappingProxyType({e.name: e for e in _BUILTIN})


def _warn(message: str) -> None:
    """A warning that prints as ONE line (attributed to no source file, so no source line)."""
    warnings.warn_explicit(
        message, UserWarning, filename=ENTRY_POINT_GROUP, lineno=0, module=__name__
    )


def _origin(ep: importlib.metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return f"{ep.value}" + (f" from {dist.name} {dist.version}" if dist is not None else "")


@cache
def _plugin_clashes() -> dict[str, str]:
    """Plug-in names no config can use, each with the one-line reason (see the module docstring:
    the same name clash policy as reducer plug-ins)."""
    by_name: dict[str, list] = {}
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        by_name.setdefault(ep.name, []).append(ep)
    clashes = {}
    for name, points in by_name.items():
        if name in BUILTIN:
            for ep in points:
                _warn(
                    f"{ENTRY_POINT_GROUP} plug-in {name!r} ({_origin(ep)}) is ignored: a built-in "
                    "dataset has that name and built-ins win; rename the entry point to use it"
                )
        elif len(points) > 1:
            clashes[name] = (
                f"dataset {name!r} is declared by {len(points)} plug-ins "
                f"({'; '.join(_origin(ep) for ep in points)}): none is used; uninstall one or "
                "rename its entry point"
            )
            _warn(clashes[name])
    return clashes


@cache
def _plugin_points() -> dict[str, importlib.metadata.EntryPoint]:
    """The usable plug-ins by name (reading metadata only: nothing is imported here)."""
    clashes = _plugin_clashes()
    points = {
        ep.name: ep
        for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
        if ep.name not in BUILTIN and ep.name not in clashes
    }
    return dict(sorted(points.items()))


@cache
def _load_plugin(name: str) -> DatasetEntry | str:
    """The plug-in's entry, or a one-line reason why it cannot be used."""
    ep = _plugin_points()[name]
    try:
        obj = ep.load()
    except Exception as err:  # any import-time failure of third-party code
        reason = f"{type(err).__name__}: {err}".splitlines()[0]
        return (
            f"dataset plug-in {name!r} ({ep.value}) failed to import ({reason}); fix or "
            "reinstall the package that declares it, or uninstall it"
        )
    if isinstance(obj, DatasetEntry):
        if obj.name != name:
            return (
                f"dataset plug-in {name!r} ({ep.value}) declares name {obj.name!r}; "
                "make the entry point's name and DatasetEntry.name the same"
            )
        return obj
    if callable(obj):
        doc = (obj.__doc__ or "").strip().splitlines()
        return DatasetEntry(
            name, obj, "bundled", name, params=None, description=doc[0] if doc else ""
        )
    return (
        f"dataset plug-in {name!r} ({ep.value}) is a {type(obj).__name__}; "
        "it must be a kmdr.datasets.DatasetEntry or a loader function"
    )


def reload_plugins() -> None:
    """Forget the plug-ins found so far (after installing one into the running interpreter)."""
    _plugin_clashes.cache_clear()
    _plugin_points.cache_clear()
    _load_plugin.cache_clear()


def dataset_names() -> tuple[str, ...]:
    """Every dataset name: the built-ins in a fixed order, then the plug-ins by name."""
    return (*BUILTIN, *_plugin_points())


def dataset_info(name: str) -> DatasetEntry:
    """The catalog entry of ``name`` (e.g. ``dataset_info("coil20").display_name == "COIL20"``).

    Raises :class:`ValueError` for an unknown name and
    :class:`~kmdr.datasets.DatasetUnavailable` for a plug-in that cannot be imported.
    """
    if name in BUILTIN:
        return BUILTIN[name]
    if isinstance(name, str) and name in _plugin_points():
        entry = _load_plugin(name)
        if isinstance(entry, str):
            raise DatasetUnavailable(entry)
        return entry
    if isinstance(name, str) and name in _plugin_clashes():
        raise ValueError(_plugin_clashes()[name])
    raise ValueError(f"unknown dataset {name!r}; valid names: {', '.join(dataset_names())}")


def availability(
    name: str,
    *,
    data_dir: str | os.PathLike | None = None,
    mirror: str | os.PathLike | None = None,
) -> tuple[str, str]:
    """Where ``name``'s data would come from, without loading it: ``(status, reason)``.

    ``status`` is one of :data:`STATUSES`: ``cached`` (every file is in the cache; hashes are
    verified when loaded), ``mirror`` (the missing ones are in the mirror), ``download`` (the
    missing ones would be downloaded from their registry URLs), ``bundled``, ``synthetic``, or
    ``unavailable`` (a file is not in the data registry, or a plug-in cannot be imported).
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
    if mirror_dir is not None and all((mirror_dir / p).is_file() for p in missing):
        return "mirror", f"{name}: {len(missing)} file(s) to copy from {mirror_dir}"
    return "download", f"{name}: {missing[0]} to download from {registry()[missing[0]].url}"
