"""Registries: the one way kmdr finds what a name in a config means, and the one plug-in policy.

A :class:`Registry` maps names to declarations of one kind (reducers, datasets, figure styles,
report sections...). Declarations come from three places:

* in code, with :meth:`Registry.declare` (the object itself, or a ``"module:attribute"`` string
  imported on first use, so that listing names costs no import);
* from installed packages, as entry points of the registry's group, e.g. in a ``pyproject.toml``::

      [project.entry-points."kmdr.reducers"]
      toy = "toypkg.reducer:TOY"

  The entry point's name is the registry name. kmdr's own entry points count as built-ins;
* from the papers: a paper (kmdr's own or a plug-in's) is ONE :class:`Paper` declaration,
  registered under the one group ``kmdr.papers`` (:data:`PAPERS`), e.g.::

      [project.entry-points."kmdr.papers"]
      mypaper = "mypkg:PAPER"

  A registry built with ``paper_field`` (reducers, datasets, figure styles, report sections,
  experiment kinds, claim sets, theory parts) also takes names from that field of every paper;
  kmdr's own papers count as built-ins. A declaration given as an object with an ``aliases``
  attribute (a reducer's entry) brings its aliases with it.

Names are known without importing anything but the papers' declarations (which name their parts
as ``"module:attr"`` strings, so that reading them is cheap); a declaration is imported when it is
first asked for, once per process. The clash policy is the same for every registry:

* a built-in name wins: a plug-in of that name is ignored, with one warning line naming it and
  its package, and the name means the built-in;
* two plug-ins of one name are both ignored, with one warning line naming both packages, and
  asking for that name is an error naming them (which one a config meant cannot be known);
* a plug-in that fails to import is skipped with one warning line; asking for it raises that
  line as the error (asking for a name that a broken plug-in paper may declare names that
  paper's problem). Every other name keeps working either way.

Nothing here knows what a reducer or a dataset is; each registry gets a ``convert`` function that
checks (and may wrap) what a declaration loads to.
"""

from __future__ import annotations

import functools
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Generic, TypeVar

from kmdr._errors import error_chain
from kmdr.plugins._entry_points import OWN_DISTRIBUTION as OWN_DISTRIBUTION
from kmdr.plugins._entry_points import (
    Source,
    all_entry_points,
    entry_points_of,
    import_target,
    origin,
)
from kmdr.plugins.paper import Deviation as Deviation
from kmdr.plugins.paper import Paper, check_paper

T = TypeVar("T")


class RegistryError(ValueError):
    """A name a registry cannot give: unknown, ambiguous, or a plug-in that failed to load.
    Its message is one line naming the problem and the fix."""


def _in_paper(name: str, key: str) -> str:
    return f"{name!r} of paper {key} ({PAPERS.origin(key)})"


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
        The entry-point group plug-ins declare themselves under (``"kmdr.reducers"``); with
        ``paper_field``, the group of the papers (``"kmdr.papers"``).
    convert : callable, optional
        ``convert(obj, name) -> T`` checks what a declaration loaded to (and may wrap it);
        it raises ``TypeError`` or ``ValueError`` with a one-line reason when ``obj`` is not one.
    paper_field : str, optional
        The field of :class:`Paper` the declarations come from (``"figure_styles"``): a mapping of
        names, or one declaration named after its paper's key (``"claims"``, ``"theory"``).

    Iterating gives the names (aliases excluded) without importing anything; indexing imports the
    declaration, resolving aliases, and raises ``KeyError`` for a name that means nothing usable;
    :meth:`get` raises :class:`RegistryError` with the one-line reason instead.
    """

    def __init__(self, what: str, group: str, convert: Callable[[object, str], T] | None = None,
                 *, paper_field: str | None = None) -> None:  # fmt: skip
        self.what, self.group, self.paper_field = what, group, paper_field
        self._convert = convert or (lambda obj, name: obj)
        self._declared: dict[str, Source] = {}  # in code: the object or "module:attr"
        self._declared_aliases: dict[str, str] = {}
        self._loaded: dict[str, T] = {}
        self._lock = threading.RLock()
        # (usable sources by name, why a name cannot be used, aliases, the papers' table read)
        self._table: tuple | None = None

    def declare(self, name: str, target: T | str, *, aliases: tuple[str, ...] = ()) -> None:
        """Declare the built-in ``name``: ``target`` is the declaration or a ``"module:attr"``
        string imported on first use; ``aliases`` are other names that mean it."""
        with self._lock:
            for key in (name, *aliases):
                if key in self._declared or key in self._declared_aliases:
                    raise ValueError(f"{self.what} {key!r} is declared twice")
            self._declared[name] = Source(name, target, True, f"{self.what} {name!r}".strip)
            self._declared_aliases.update(dict.fromkeys(aliases, name))
            self._loaded.pop(name, None)
            self._table = None

    def _sources(self) -> list[Source]:
        """Every declaration of this registry's entry-point group, then of its field of the
        papers (a registry whose group is the papers' own reads the papers only)."""
        sources = []
        if self.paper_field is None or self.group != PAPERS_GROUP:
            # by distribution: its name is read once (from its metadata file)
            own = functools.cache(lambda dist: dist is not None and dist.name == OWN_DISTRIBUTION)
            sources += [
                Source(ep.name, ep.value, own(ep.dist), functools.partial(origin, ep))
                for ep in entry_points_of(self.group)
            ]
        for paper in papers() if self.paper_field is not None else ():
            part = getattr(paper, self.paper_field)
            one = [(paper.key, part)] if part is not None else []  # named after its paper
            own = PAPERS.is_own(paper.key)
            sources += [
                Source(n, t, own, functools.partial(_in_paper, n, paper.key))
                for n, t in (part.items() if isinstance(part, Mapping) else one)
            ]
        return sources

    def _found(self) -> tuple[dict[str, Source], dict[str, str], dict[str, str], object]:
        """The clash policy applied to every declaration (see the module docstring), its
        warnings given once: kept until :meth:`reload`, or until the papers are found again."""
        with self._lock:
            papers_table = None if self.paper_field is None else PAPERS._found()
            if self._table is not None and self._table[3] is papers_table:
                return self._table
            usable, aliases, broken = dict(self._declared), dict(self._declared_aliases), {}
            plugins: dict[str, list[Source]] = {}
            for src in self._sources():
                if src.own:
                    usable.setdefault(src.name, src)
                else:
                    plugins.setdefault(src.name, []).append(src)
            decl = "entry point" if self.paper_field is None else "declaration"
            for name, points in plugins.items():
                if name in usable or name in aliases:
                    for src in points:
                        _warn(f"{self.what} plug-in {src.origin} is ignored: the built-in "
                              f"{self.what} {name!r} has that name and built-ins win; rename the "
                              f"{decl} to use the plug-in", self.group)  # fmt: skip
                elif len(points) > 1:
                    broken[name] = (
                        f"{self.what} {name!r} is declared by {len(points)} plug-ins "
                        f"({'; '.join(src.origin for src in points)}): none is used; uninstall "
                        f"one or rename its {decl}"
                    )
                    _warn(broken[name], self.group)
                else:
                    usable[name] = points[0]
            for name, src in list(usable.items()):
                for alias in () if name in self._declared else getattr(src.target, "aliases", ()):
                    if alias in usable or alias in aliases:
                        _warn(f"the alias {alias!r} of {self.what} {src.origin} is ignored: "
                              f"another {self.what} has that name; rename the alias",
                              self.group)  # fmt: skip
                    else:
                        aliases[alias] = name
            self._table = (usable, broken, aliases, papers_table)
            return self._table

    def reload(self) -> None:
        """Forget the plug-ins found so far (after installing one in this process); a registry
        of a field of the papers finds the papers again too."""
        with self._lock:
            all_entry_points.cache_clear()
            if self.paper_field is not None:
                PAPERS.reload()
            self._table = None
            self._loaded = {k: v for k, v in self._loaded.items() if k in self._declared}

    def _source(self, name: str) -> Source | None:
        return self._found()[0].get(self.canonical(name))

    def is_own(self, name: str) -> bool:
        """Whether ``name`` is a built-in (declared in code or by kmdr's own distribution)."""
        src = self._source(name)
        return src is not None and src.own

    def origin(self, name: str) -> str:
        """Where the declaration ``name`` comes from, for messages."""
        src = self._source(name)
        return src.origin if src is not None else f"{self.what} {self.canonical(name)!r}"

    def declaration(self, name: str):
        """What ``name`` (or its alias) is declared as, not imported: the object, or its
        ``"module:attr"`` string; None for a name nothing declares."""
        src = self._source(name)
        return None if src is None else src.target

    def declarations_of(self, name: str) -> int:
        """How many installed declarations of this registry name ``name`` (nothing is imported);
        more than one is a clash."""
        return sum(src.name == name for src in self._sources())

    def canonical(self, name: str) -> str:
        """The name ``name`` stands for (itself unless it is an alias)."""
        return self._found()[2].get(name, name) if isinstance(name, str) else name

    def aliases(self) -> dict[str, str]:
        """Every alias and the name it stands for, the built-ins' and the plug-ins'."""
        return dict(self._found()[2])

    def names(self) -> tuple[str, ...]:
        """Every usable name, built-ins first, without importing any declaration."""
        return tuple(self._found()[0])

    def problem(self, name: str) -> str | None:
        """Why ``name`` cannot be used, in one line; None if it can (nothing is imported)."""
        if not isinstance(name, str):
            return f"{self.what} name {name!r} is invalid: it must be a string"
        usable, broken, _, _ = self._found()
        name = self.canonical(name)
        if name in broken or name in usable:
            return broken.get(name)
        unknown = f"{self.what} {name!r} is unknown; valid {self.what}s: {', '.join(usable)}"
        for reason in PAPERS._found()[1].values() if self.paper_field is not None else ():
            # a paper that failed to load may be the one that declares it: say why it failed
            unknown += f"; a paper that may declare it failed to load: {reason}"
        return unknown

    def get(self, name: str) -> T:
        """The declaration ``name`` (or its alias) means, imported on first use.

        Raises :class:`RegistryError` (one line) for an unknown name, a clash, or a plug-in that
        fails to load; a plug-in that fails is then said once, and unusable from then on.
        """
        if (reason := self.problem(name)) is not None:
            raise RegistryError(reason)
        name = self.canonical(name)
        with self._lock:
            if name in self._loaded:
                return self._loaded[name]
            src, built_in = self._found()[0][name], name in self._declared
            try:
                obj = import_target(src.target) if isinstance(src.target, str) else src.target
            except Exception as err:  # third-party code may fail in any way: one line, named
                # code catching the Ctrl-C it met while importing may raise another error in
                # its place: not a broken plug-in, a stop (tried again next time)
                stop = next((e for e in error_chain(err) if isinstance(e, KeyboardInterrupt)), None)
                if stop is not None:
                    raise stop from None
                failed = (
                    f"failed to import ({type(err).__name__}: {' '.join(str(err).split())}); "
                    "fix or reinstall the package that declares it, or uninstall it"
                )
            else:
                try:
                    self._loaded[name] = self._convert(obj, name)
                    return self._loaded[name]
                except Exception as err:
                    failed = f"cannot be used: {' '.join(str(err).split()) or type(err).__name__}"
            # named only now: an entry point's origin reads its distribution's metadata file
            said = f"built-in {src.origin}" if built_in else f"{self.what} plug-in {src.origin}"
            message = f"{said} {failed}"
            if not built_in:
                self._found()[1][name] = message
                _warn(message, self.group)
            raise RegistryError(message)

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


#: The entry-point group of the papers.
PAPERS_GROUP = "kmdr.papers"

#: Every paper, by its key: kmdr's own (entry points of kmdr's distribution) first, then the
#: plug-ins'. The registries of a paper's parts read them (``paper_field``).
PAPERS: Registry[Paper] = Registry("paper", PAPERS_GROUP, convert=check_paper)


def papers() -> list[Paper]:
    """Every paper that loads, in :data:`PAPERS`'s order: a plug-in's that cannot load was said in
    one warning line and is left out (asking for it by name raises that line); kmdr's own must
    load."""
    out = []
    for key in PAPERS:
        try:
            out.append(PAPERS.get(key))
        except RegistryError:
            if PAPERS.is_own(key):
                raise
    return out
