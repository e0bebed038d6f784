"""Registries: the one way kmdr finds what a name in a config means, and the one plug-in policy.

A :class:`Registry` maps names to declarations of one kind (reducers, datasets, figure styles,
report sections...). Declarations come from two places:

* in code, with :meth:`Registry.declare` (the object itself, or a ``"module:attribute"`` string
  imported on first use, so that listing names costs no import);
* from installed packages, as entry points of the registry's group, e.g. in a ``pyproject.toml``::

      [project.entry-points."kmdr.reducers"]
      toy = "toypkg.reducer:TOY"

  The entry point's name is the registry name. kmdr's own entry points (its papers register this
  way) count as built-ins.

Names are known without importing anything; a declaration is imported when it is first asked
for, once per process. The clash policy is the same for every registry:

* a built-in name wins: a plug-in of that name is ignored, with one warning line naming it and
  its package, and the name means the built-in;
* two plug-ins of one name are both ignored, with one warning line naming both packages, and
  asking for that name is an error naming them (which one a config meant cannot be known);
* a plug-in that fails to import is skipped with one warning line; asking for it raises that
  line as the error. Every other name keeps working either way.

Nothing here knows what a reducer or a dataset is; each registry gets a ``convert`` function that
checks (and may wrap) what a declaration loads to.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Generic, TypeVar

from kmdr._errors import error_chain

__all__ = ["Registry", "RegistryError", "entry_points_of", "import_target"]

T = TypeVar("T")

#: The distribution whose entry points are built-ins, not plug-ins.
OWN_DISTRIBUTION = "kmdr"


class RegistryError(ValueError):
    """A name a registry cannot give: unknown, ambiguous, or a plug-in that failed to load.
    Its message is one line naming the problem and the fix."""


@functools.cache
def _all_entry_points() -> importlib.metadata.EntryPoints:
    # One scan of the installed packages' metadata per process, shared by every registry.
    return importlib.metadata.entry_points()


def entry_points_of(group: str) -> tuple[importlib.metadata.EntryPoint, ...]:
    """The installed entry points of ``group`` (scanned once per process)."""
    return tuple(_all_entry_points().select(group=group))


def _origin(ep: importlib.metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    where = f" from {dist.name} {dist.version}" if dist is not None else ""
    return f"entry point {ep.name} = {ep.value} (group {ep.group}{where})"


def _is_own(ep: importlib.metadata.EntryPoint) -> bool:
    dist = getattr(ep, "dist", None)
    return dist is not None and dist.name == OWN_DISTRIBUTION


def import_target(target: str):
    """The object a ``"module:attribute"`` string names (``"module"`` alone: the module)."""
    module, _, attr = target.partition(":")
    obj = importlib.import_module(module)
    for part in filter(None, attr.split(".")):
        obj = getattr(obj, part)
    return obj


def _interrupt_behind(err: BaseException) -> BaseException | None:
    """The Ctrl-C an import failed from, if any: code that catches the KeyboardInterrupt met
    while it imports (a module's own fallbacks, a library's error wrapping) can raise another
    error in its place, which must not mark the plug-in as broken."""
    return next((e for e in error_chain(err) if isinstance(e, KeyboardInterrupt)), None)


def _warn(message: str, group: str) -> None:
    """A warning that prints as ONE line: it is attributed to no source file, so Python's
    warning display has no source line to add under it."""
    warnings.warn_explicit(message, UserWarning, filename=group, lineno=0, module=__name__)


class Registry(Mapping[str, T], Generic[T]):
    """Names of one kind of declaration: built-ins in declaration order, then plug-ins.

    Parameters
    ----------
    what : str
        What a declaration is, for messages ("reducer", "dataset", "figure style").
    group : str
        The entry-point group plug-ins declare themselves under (``"kmdr.reducers"``).
    convert : callable, optional
        ``convert(obj, name) -> T`` checks what a declaration loaded to (and may wrap it);
        it raises ``TypeError`` or ``ValueError`` with a one-line reason when ``obj`` is not one.

    Iterating gives the names (aliases excluded) without importing anything; indexing imports the
    declaration, resolving aliases, and raises ``KeyError`` for a name that means nothing usable;
    :meth:`get` raises :class:`RegistryError` with the one-line reason instead.
    """

    def __init__(
        self, what: str, group: str, convert: Callable[[object, str], T] | None = None
    ) -> None:
        self.what = what
        self.group = group
        self._convert = convert
        self._declared: dict[str, object] = {}  # built-ins: object or "module:attr"
        self._aliases: dict[str, str] = {}
        self._loaded: dict[str, T] = {}
        self._lock = threading.RLock()
        self._found: tuple[dict, dict] | None = None  # plug-ins, found on first use

    # ---- declaring -------------------------------------------------------------------------

    def declare(self, name: str, target: T | str, *, aliases: tuple[str, ...] = ()) -> None:
        """Declare the built-in ``name``: ``target`` is the declaration or a ``"module:attr"``
        string imported on first use; ``aliases`` are other names that mean it."""
        with self._lock:
            for key in (name, *aliases):
                if key in self._declared or key in self._aliases:
                    raise ValueError(f"{self.what} {key!r} is declared twice")
            self._declared[name] = target
            for alias in aliases:
                self._aliases[alias] = name
            self._loaded.pop(name, None)
            self._found = None

    def alias(self, alias: str, name: str) -> None:
        """Let ``alias`` mean the declared ``name`` (a plug-in's display name, say)."""
        with self._lock:
            if alias in self._declared or alias in self._aliases:
                raise ValueError(f"{self.what} {alias!r} is declared twice")
            self._aliases[alias] = name

    # ---- plug-ins ----------------------------------------------------------------------------

    def _plugins(self) -> tuple[dict[str, importlib.metadata.EntryPoint], dict[str, str]]:
        """(entry points by name, reasons a plug-in name cannot be used), with the clash policy
        applied and its warnings given once (the result is kept until :meth:`reload`)."""
        with self._lock:
            if self._found is None:
                self._found = self._find_plugins()
            return self._found

    def _find_plugins(self) -> tuple[dict[str, importlib.metadata.EntryPoint], dict[str, str]]:
        by_name: dict[str, list[importlib.metadata.EntryPoint]] = {}
        own: dict[str, importlib.metadata.EntryPoint] = {}
        for ep in entry_points_of(self.group):
            if _is_own(ep):
                own.setdefault(ep.name, ep)
            else:
                by_name.setdefault(ep.name, []).append(ep)
        usable: dict[str, importlib.metadata.EntryPoint] = dict(own)
        broken: dict[str, str] = {}
        for name, points in by_name.items():
            if name in self._declared or name in self._aliases or name in own:
                for ep in points:
                    _warn(
                        f"{self.what} plug-in {_origin(ep)} is ignored: the built-in "
                        f"{self.what} {name!r} has that name and built-ins win; rename the "
                        "entry point to use the plug-in",
                        self.group,
                    )
                continue
            if len(points) > 1:
                broken[name] = (
                    f"{self.what} {name!r} is declared by {len(points)} plug-ins "
                    f"({'; '.join(_origin(ep) for ep in points)}): none is used; uninstall one "
                    "or rename its entry point"
                )
                _warn(broken[name], self.group)
                continue
            usable[name] = points[0]
        return usable, broken

    def reload(self) -> None:
        """Forget the plug-ins found so far (after installing one in this process)."""
        with self._lock:
            _all_entry_points.cache_clear()
            self._found = None
            self._loaded = {k: v for k, v in self._loaded.items() if k in self._declared}

    # ---- looking up --------------------------------------------------------------------------

    def names(self) -> tuple[str, ...]:
        """Every usable name, built-ins first, without importing any declaration."""
        points, _ = self._plugins()
        return (*self._declared, *(n for n in points if n not in self._declared))

    def declarations_of(self, name: str) -> int:
        """How many installed entry points of this registry's group declare ``name`` (metadata
        only: nothing is imported); more than one is a clash."""
        return sum(ep.name == name for ep in entry_points_of(self.group))

    def canonical(self, name: str) -> str:
        """The name ``name`` stands for (itself unless it is an alias)."""
        return self._aliases.get(name, name)

    def problem(self, name: str) -> str | None:
        """Why ``name`` cannot be used, in one line; None if it can (nothing is imported)."""
        if not isinstance(name, str):
            return f"{self.what} name {name!r} is invalid: it must be a string"
        name = self.canonical(name)
        points, broken = self._plugins()
        if name in broken:
            return broken[name]
        if name in self._declared or name in points:
            return None
        return f"{self.what} {name!r} is unknown; valid {self.what}s: {', '.join(self.names())}"

    def get(self, name: str) -> T:
        """The declaration ``name`` (or its alias) means, imported on first use.

        Raises :class:`RegistryError` (one line) for an unknown name, a clash, or a plug-in that
        fails to load.
        """
        reason = self.problem(name)
        if reason is not None:
            raise RegistryError(reason)
        name = self.canonical(name)
        with self._lock:
            if name not in self._loaded:
                self._loaded[name] = self._load(name)
            return self._loaded[name]

    def _load(self, name: str) -> T:
        if name in self._declared:
            target, origin = self._declared[name], f"built-in {self.what} {name!r}"
        else:
            ep = self._plugins()[0][name]
            target, origin = ep.value, f"{self.what} plug-in {_origin(ep)}"
        try:
            obj = import_target(target) if isinstance(target, str) else target
        except Exception as err:  # third-party code may fail in any way: one line, named
            interrupt = _interrupt_behind(err)
            if interrupt is not None:  # not broken: stopped (and tried again next time)
                raise interrupt from None
            message = (
                f"{origin} failed to import ({type(err).__name__}: {' '.join(str(err).split())}); "
                "fix or reinstall the package that declares it, or uninstall it"
            )
        else:
            try:
                return self._convert(obj, name) if self._convert is not None else obj
            except Exception as err:
                message = (
                    f"{origin} cannot be used: {' '.join(str(err).split()) or type(err).__name__}"
                )
        if name not in self._declared:
            self._plugins()[1][name] = message
            _warn(message, self.group)
        raise RegistryError(message)

    # ---- Mapping -----------------------------------------------------------------------------

    def __getitem__(self, name: str) -> T:
        try:
            return self.get(name)
        except RegistryError as err:
            raise KeyError(str(err)) from None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.problem(name) is None

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, {list(self)})"
