"""Where plug-in declarations come from: the installed packages' entry points (scanned once per
process), and the record of one declaration's source that :class:`kmdr.plugins.Registry` keeps."""

from __future__ import annotations

import functools
import importlib.metadata
import os
import pkgutil
from collections.abc import Callable
from typing import NamedTuple

#: The distribution whose entry points are built-ins, not plug-ins.
OWN_DISTRIBUTION = "kmdr"


#: Names of installed distributions (comma-separated) whose entry points kmdr does not read: what
#: kmdr's test suite sets for the plug-ins installed beside it, so that it tests kmdr alone.
IGNORED_ENV = "KMDR_IGNORE_PLUGINS"


def _canonical(name: str) -> str:
    return name.strip().lower().replace("_", "-").replace(".", "-")


@functools.cache
def all_entry_points() -> importlib.metadata.EntryPoints:
    # One scan of the installed packages' metadata per process, shared by every registry.
    found = importlib.metadata.entry_points()
    ignored = {_canonical(n) for n in os.environ.get(IGNORED_ENV, "").split(",") if n.strip()}
    if not ignored:
        return found
    return importlib.metadata.EntryPoints(
        ep
        for group in found.groups
        for ep in found.select(group=group)
        if ep.dist is None or _canonical(ep.dist.name) not in ignored
    )


def entry_points_of(group: str) -> tuple[importlib.metadata.EntryPoint, ...]:
    """The installed entry points of ``group`` (scanned once per process)."""
    return tuple(all_entry_points().select(group=group))


def origin(ep: importlib.metadata.EntryPoint) -> str:
    """The entry point and the distribution that declares it, for messages."""
    dist = getattr(ep, "dist", None)
    where = f" from {dist.name} {dist.version}" if dist is not None else ""
    return f"entry point {ep.name} = {ep.value} (group {ep.group}{where})"


#: The object a ``"module:attribute"`` string names (``"module"`` alone: the module).
import_target = pkgutil.resolve_name


class Source(NamedTuple):
    """Where a plug-in declaration comes from: an entry point of the registry's group, or a field
    of a paper's declaration."""

    name: str
    target: object  # "module:attr" or the declaration itself
    own: bool  # kmdr's own: a built-in
    # Where it comes from, for messages: built when said, since a distribution's name and version
    # are read from its metadata file (kmdr's holds the README) at every ask.
    describe: Callable[[], str]

    @property
    def origin(self) -> str:
        return self.describe()
