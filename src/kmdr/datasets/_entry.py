"""What kmdr knows about a dataset, declared once: :class:`DatasetEntry`, and how an entry loads
and checks its data.

An entry holds every fact about a dataset (its loader, where the data comes from, its registry
files, display name, size and parameters); the catalog (:mod:`._catalog`) only lists entries.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._base import Dataset
from ._fingerprint import entry_fingerprint
from ._registry import DatasetError, DatasetUnavailable, registry, resolve_data_dir, resolve_mirror
from ._validate import check_dataset

__all__ = ["DATASET_KINDS", "DatasetEntry"]

#: Where a dataset's data comes from (:attr:`DatasetEntry.kind`): files of the data registry,
#: data shipped with the code that declares it, generated, a folder or file the user names, or
#: fetched by a library into the data cache from an id the user gives (OpenML).
DATASET_KINDS = ("file", "bundled", "synthetic", "folder", "fetched")


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
        ``bundled``: the data ships with the code that declares it; ``synthetic``: generated;
        ``folder``: read from a folder or file given as a parameter (``path``), e.g. row shards;
        ``fetched``: fetched into the data cache from an id given as a parameter (OpenML),
        called as a ``file`` loader is.
    display_name : str
        The name figures and the report show (panel titles, headings), as the papers print it.
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
    added_params : mapping
        Parameters added to :attr:`params` after cells were recorded, each with the value that
        gives the data as before: at that value a parameter is left out of the ``generator:``
        fingerprint, so the cells recorded before it keep theirs.
    blocks : callable or None
        Makes the data as :class:`~kmdr.datasets.blocks.RowBlocks` that produce each block on
        their own (generated, or read from shards), never the whole matrix; called as
        ``blocks(entry, bounds_rows, data_dir=..., mirror=..., **params)``. None: the chunked
        path loads the data whole and cuts it.
    copy_of : str or None
        The dataset this one copies with the same parameters, up to a change that no k-means
        quantity sees (a scaling of every coordinate, say): its cells keep a fingerprint of their
        own (their numbers may round differently), but where the report counts datasets its data
        count as that dataset's (:func:`kmdr.datasets.counted_fingerprint`), never as a second
        dataset.
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
    added_params: Mapping[str, Any] = field(default_factory=dict)
    blocks: Callable[..., Any] | None = None
    copy_of: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in DATASET_KINDS:
            raise ValueError(
                f"dataset {self.name!r}: kind={self.kind!r} is invalid; use one of {DATASET_KINDS}"
            )
        if not callable(self.loader):
            raise TypeError(f"dataset {self.name!r}: loader {self.loader!r} is not callable")
        if self.kind == "file" and not self.files:
            raise ValueError(f"dataset {self.name!r}: a 'file' dataset must list its files")
        if self.copy_of == self.name:
            raise ValueError(f"dataset {self.name!r}: copy_of names the dataset itself")

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
            if self.kind in ("file", "fetched"):
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
        # Every registered file was verified against its pinned hash, so the published file
        # itself does not load: its loader, or a file outside the registry, is the suspect.
        suspects = list(self.files)
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
