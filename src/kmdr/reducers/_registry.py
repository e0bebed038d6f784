"""The names configs use for reducers, and what each name means: :data:`REDUCERS`.

:data:`REDUCERS` is a :class:`kmdr.plugins.Registry` of :class:`ReducerEntry` declarations: kmdr's
own (:mod:`kmdr.reducers._builtins`, in legend order), then plug-ins, found through the
entry-point group ``kmdr.reducers`` (:data:`ENTRY_POINT_GROUP`), e.g. in a ``pyproject.toml``::

    [project.entry-points."kmdr.reducers"]
    toy = "toypkg.reducer:TOY"      # a ReducerEntry, or a BaseReducer subclass

The entry point's name is the registry name; a bare class is taken as an entry labelled by that
name. Loading, name clashes and broken plug-ins follow the one policy of :mod:`kmdr.plugins`
(built-ins win; two plug-ins of one name are both refused; a plug-in that fails to load is one
warning line, and asking for it is that line as the error).

Reading names and facts (:func:`available_reducers`, :func:`reducer_entry`, :func:`reducer_label`,
:func:`baseline_names`...) imports no reducer module and no scikit-learn; a class is imported
when it is first needed (:func:`reducer_class`, :func:`make_reducer`, ``REDUCERS[name].cls``).
Planning a sweep (:func:`planning_facts`, :func:`reducer_compat_version`) reads an entry's
declared plan, so a built-in's class is not imported for it either.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType

from kmdr.plugins import Registry, RegistryError, import_target
from kmdr.reducers._builtins import BUILTIN_ENTRIES
from kmdr.reducers._entry import LineStyle, ReducerEntry
from kmdr.reducers._plans import DataFacts

__all__ = [
    "BUILTIN_REDUCERS",
    "ENTRY_POINT_GROUP",
    "REDUCERS",
    "LineStyle",
    "ReducerEntry",
    "available_reducers",
    "baseline_names",
    "canonical_reducer",
    "declared_defaults",
    "is_baseline_reducer",
    "is_own_reducer",
    "make_reducer",
    "max_components",
    "planning_facts",
    "reducer_class",
    "reducer_compat_version",
    "reducer_entry",
    "reducer_label",
    "reducer_paper",
    "reload_plugins",
    "row_blocks_mode",
    "row_blocks_reducers",
    "unread_params",
    "unusable_plugin",
]

#: The entry-point group third-party reducers register under.
ENTRY_POINT_GROUP = "kmdr.reducers"

#: kmdr's own declarations in code, by registry name (read-only view of :mod:`._builtins`); its
#: papers' reducers (:class:`kmdr.plugins.Paper`'s ``reducers``) are built-ins too.
BUILTIN_REDUCERS: Mapping[str, ReducerEntry] = MappingProxyType(BUILTIN_ENTRIES)


def _loaded_entry(obj: object, name: str) -> ReducerEntry:
    """What a declaration loaded to, as an entry whose class is imported (a bare BaseReducer
    subclass is an entry labelled by its registry name). Raises a one-line TypeError for
    anything else."""
    if isinstance(obj, type):
        obj = ReducerEntry(obj, label=name)
    if not isinstance(obj, ReducerEntry):
        raise TypeError(
            f"it is a {type(obj).__name__}, not a ReducerEntry or a kmdr BaseReducer subclass"
        )
    cls = import_target(obj.cls) if isinstance(obj.cls, str) else obj.cls
    from kmdr.reducers._base import BaseReducer  # a class is wanted now: scikit-learn loads

    if not (isinstance(cls, type) and issubclass(cls, BaseReducer)):
        raise TypeError(f"its class {cls!r} is not a kmdr BaseReducer subclass")
    return obj if cls is obj.cls else dataclasses.replace(obj, cls=cls)


#: Every reducer name: the built-ins (in legend order), then the installed plug-ins. Indexing
#: gives the entry with its class imported; :func:`reducer_entry` gives it without importing.
REDUCERS: Registry[ReducerEntry] = Registry(
    "reducer", ENTRY_POINT_GROUP, convert=_loaded_entry, paper_field="reducers"
)
for _name, _entry in BUILTIN_ENTRIES.items():
    REDUCERS.declare(_name, _entry, aliases=_entry.aliases)
del _name, _entry


def reload_plugins() -> None:
    """Forget the reducer plug-ins found so far (after installing one in this process)."""
    REDUCERS.reload()


def available_reducers() -> tuple[str, ...]:
    """The registry names: the built-ins in legend order, then the plug-ins."""
    return REDUCERS.names()


def canonical_reducer(name: str) -> str:
    """The registry name ``name`` stands for (itself, unless it is one of an entry's aliases).
    A config's name should be stored as this, so that an alias and its name are one cell."""
    return REDUCERS.canonical(name)


def _get(name: str) -> ReducerEntry:
    """``REDUCERS.get`` with a :class:`ValueError` of one line for a name that cannot be used."""
    try:
        return REDUCERS.get(name)
    except RegistryError as err:
        if isinstance(name, str) and REDUCERS.declarations_of(name):  # a broken or clashing plug-in
            raise ValueError(str(err)) from None
        raise ValueError(
            f"reducer name={name!r} is invalid: it must be one of {', '.join(REDUCERS.names())}"
        ) from None


def is_own_reducer(name: str) -> bool:
    """Whether ``name`` is kmdr's own (declared in code or by one of kmdr's papers), not a
    plug-in's: its output is not checked against the determinism contract."""
    return REDUCERS.is_own(name)


def unusable_plugin(name: str) -> str | None:
    """Why the plug-in reducer ``name`` cannot be used (it fails to load, or two plug-ins declare
    that name), in one line; None if it can, or if no plug-in of that name is installed."""
    if not isinstance(name, str) or REDUCERS.is_own(name):
        return None
    if not REDUCERS.declarations_of(name):
        return None
    try:
        REDUCERS.get(name)
    except RegistryError as err:
        return str(err)
    return None


def reducer_entry(name: str) -> ReducerEntry:
    """The declaration of ``name`` (or of the entry it is an alias of). A built-in's (kmdr's
    own or its papers') is read without importing anything (its ``cls`` may be a
    ``"module:Class"`` string); a plug-in's is loaded. Raises :class:`ValueError` (one line) for
    a name that cannot be used."""
    if not isinstance(name, str):
        return _get(name)
    builtin = BUILTIN_ENTRIES.get(REDUCERS.canonical(name))
    if builtin is None and REDUCERS.is_own(name):  # a paper's
        builtin = REDUCERS.declaration(name)
    return builtin if isinstance(builtin, ReducerEntry) else _get(name)


def reducer_class(name: str) -> type:
    """The reducer class of ``name``, imported on first use."""
    return _get(name).cls


def reducer_label(name: str) -> str:
    """The label figures and tables show for a registry name (``"leverage"``: "Sampl/SVD")."""
    return reducer_entry(name).label


def reducer_paper(name: str) -> str:
    """The short paper reference of a registry name (``"sign"``: "bzmd14 Alg. 2")."""
    return reducer_entry(name).paper


def is_baseline_reducer(name: object) -> bool:
    """Whether the registry name ``name`` is declared the no-reduction baseline (False for a name
    that means nothing usable here, e.g. a plug-in no longer installed)."""
    if not isinstance(name, str):
        return False
    try:
        return reducer_entry(name).baseline
    except ValueError:
        return False


def baseline_names() -> tuple[str, ...]:
    """The registry names declared ``baseline=True`` (built-ins without importing; installed
    plug-ins are loaded to read their declaration, the unusable ones skipped)."""
    return tuple(n for n in REDUCERS.names() if is_baseline_reducer(n))


def make_reducer(name: str, n_components, *, n_clusters=None, random_state=None, **params):
    """An unfitted reducer for a registry name.

    Parameters
    ----------
    name : str
        One of :func:`available_reducers` (or an alias of one).
    n_components : int or None
        r (ignored by the baseline).
    n_clusters : int, optional
        k; passed only to reducers that take it (leverage sampling), ignored by the others.
    random_state : None, int or RandomState
        Passed only to randomized reducers.
    **params
        Other constructor parameters of the reducer class (e.g. ``eps``, ``scores``,
        ``n_neighbors``, ``t``, ``dense_output``).
    """
    entry = _get(name)
    cls = entry.cls
    accepted = set(cls().get_params(deep=False))
    bad = sorted((set(params) - accepted) | (set(params) & set(entry.fixed)))
    if bad:
        allowed = sorted(accepted - set(entry.fixed) - {"n_components"})
        raise ValueError(
            f"params {bad} are invalid for reducer {name!r}: allowed are {allowed} "
            f"({name!r} pins {dict(entry.fixed)})"
        )
    kwargs = {**entry.fixed, **params, "n_components": n_components}
    if "n_clusters" in accepted:
        kwargs["n_clusters"] = n_clusters
    if "random_state" in accepted:
        kwargs["random_state"] = random_state
    return cls(**kwargs)


def declared_defaults(name: str, params: Mapping) -> bool:
    """Whether ``params`` are all defaults kmdr's own reducer ``name`` declares in its plan: each
    one a key of its plan's ``defaults`` that its entry does not pin, with that very value and
    type. Such params are the ones its class takes when none are given (the class reads its
    defaults from the plan, and a test holds each to it), so they are valid without importing
    the class to check them. Always False for a plug-in's reducer, whose class is its own."""
    if not is_own_reducer(name):
        return False
    entry = reducer_entry(name)
    declared = entry.plan.defaults if entry.plan is not None else {}
    return all(
        key in declared
        and key not in entry.fixed
        and type(value) is type(declared[key])
        and value == declared[key]
        for key, value in params.items()
    )


def unread_params(name: str, params: Mapping) -> dict[str, str]:
    """The ``params`` given to reducer ``name`` that the others leave unread (its plan's
    ``unread`` rule), each with when it is read; {} for a reducer without a plan."""
    entry = reducer_entry(name)
    if entry.plan is None:
        return {}
    unread = entry.plan.unread({**entry.plan.defaults, **entry.fixed, **params})
    return {key: unread[key] for key in params if key in unread}


def max_components(
    name: str, n_samples: int, n_features: int, *, sparse: bool = False, **params
) -> int | None:
    """The largest r reducer ``name`` can produce on an n_samples x n_features matrix.

    None means no bound (projections, leverage sampling with replacement, the baseline, which
    ignores r). ``params`` matter for some entries (``scores="top"`` bounds leverage sampling by
    d). Read from the entry's declared plan when it states the bound (the class is not
    imported); otherwise the reducer is built and asked (it may raise a one-line ValueError for
    a shape it cannot handle), and told whether the data are ``sparse`` if its
    ``max_components`` takes that keyword (LLE's limits differ between its two paths).
    """
    entry = reducer_entry(name)
    rule = None if entry.plan is None else entry.plan.max_components
    if rule is None:
        import inspect

        ask = make_reducer(name, None, **params).max_components
        told = {"sparse": bool(sparse)} if "sparse" in inspect.signature(ask).parameters else {}
        return ask(n_samples, n_features, **told)
    given = {**entry.plan.defaults, **entry.fixed, **params, "n_components": None}
    return rule(given, n_samples, n_features)


def reducer_compat_version(name: str) -> int:
    """The ``compat_version`` of the code behind ``name``: its declared plan's, else its class's
    (imported). Raises :class:`ValueError` (one line) for a name that cannot be used."""
    entry = reducer_entry(name)
    if entry.plan is not None:
        return int(entry.plan.compat_version)
    return int(getattr(_get(name).cls, "compat_version", 1))


def row_blocks_mode(name: str, **params) -> str | None:
    """How reducer ``name`` with ``params`` runs on data held as row blocks
    (:attr:`~kmdr.reducers.ReducerPlan.row_blocks`): ``"rowwise"``, ``"sketch"`` or None (it
    cannot). Read from the declared plan without importing the class; a plug-in without one is
    asked through its class's plan."""
    entry = reducer_entry(name)
    plan = entry.plan if entry.plan is not None else getattr(_get(name).cls, "plan", None)
    if plan is None:
        return None
    return plan.row_mode({**entry.fixed, **params})


def row_blocks_reducers() -> tuple[str, ...]:
    """The registry names of the reducers that run on row blocks with their pinned parameters
    (for the one-line refusal of the others)."""
    out = []
    for name in available_reducers():
        try:
            if row_blocks_mode(name) is not None:
                out.append(name)
        except Exception:  # a plug-in that cannot be read is not offered
            continue
    return tuple(out)


def planning_facts(
    name: str, n_components, data, *, n_clusters=None, **params
) -> tuple[tuple | None, bool, bool]:
    """``(shared key, deterministic, shared deterministic)`` of reducer ``name`` with r =
    ``n_components`` and k = ``n_clusters`` on ``data``: what
    :meth:`~kmdr.reducers.BaseReducer.shared_key`, ``is_deterministic`` and
    ``shared_is_deterministic`` say (the last False without a shared key).

    ``data`` is the matrix or its :class:`~kmdr.reducers._plans.DataFacts`. An entry that
    declares its plan is answered from the plan, its class not imported; otherwise the reducer is
    built and asked, on the matrix (a DataFacts' ``load`` gives it).
    """
    entry = reducer_entry(name)
    if entry.plan is not None:
        given = {**entry.fixed, **params, "n_components": n_components, "n_clusters": n_clusters}
        return entry.plan.facts(given, DataFacts.of(data))
    X = data.matrix() if isinstance(data, DataFacts) else data
    reducer = make_reducer(name, n_components, n_clusters=n_clusters, **params)
    key = reducer.shared_key(X)
    return (
        None if key is None else tuple(key),
        bool(reducer.is_deterministic(X)),
        bool(key is not None and reducer.shared_is_deterministic(X)),
    )
