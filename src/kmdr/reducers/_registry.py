"""The names configs use for reducers, their display labels, paper references and a factory.

Adding a reducer: write its module (a :class:`~kmdr.reducers._base.BaseReducer` subclass) and
either add one :class:`ReducerEntry` to ``BUILTIN_REDUCERS`` below, or, from another package,
declare it as an entry point of the group ``kmdr.reducers`` (see :data:`ENTRY_POINT_GROUP`), e.g.
in its ``pyproject.toml``::

    [project.entry-points."kmdr.reducers"]
    toy = "toypkg.reducer:TOY"      # a ReducerEntry, or a BaseReducer subclass

The entry point's name is the registry name. Plug-ins are loaded on the first use of the registry
(once per process); a plug-in that fails to load is skipped with one warning line naming it, so
the built-ins keep working, and asking for it by name raises that line as the error.

Name clashes (the same policy as for dataset plug-ins, :mod:`kmdr.datasets`): built-in names win.
A plug-in named like a built-in is ignored with one warning line naming it and its package, and
the name means the built-in. Two plug-ins of one name are both ignored with one warning line
naming both packages, and asking for that name is an error naming them: which one a config meant
cannot be known. Every other name keeps working either way.
"""

from __future__ import annotations

import functools
import importlib.metadata
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from kmdr.reducers._base import BaseReducer
from kmdr.reducers.identity import IdentityReducer
from kmdr.reducers.laplacian import LaplacianScoreSelector
from kmdr.reducers.leverage import LeverageScoreSampler
from kmdr.reducers.lle import LocallyLinearReducer
from kmdr.reducers.projections import AchlioptasProjection, GaussianProjection, SignRandomProjection
from kmdr.reducers.ridge_leverage import RidgeLeverageSampler
from kmdr.reducers.sparse_embedding import SparseEmbedding
from kmdr.reducers.sparsified import PreconditionedSparsification
from kmdr.reducers.srht import SRHTProjection
from kmdr.reducers.svd import SVDFeatures

#: The entry-point group third-party reducers register under.
ENTRY_POINT_GROUP = "kmdr.reducers"


@dataclass(frozen=True)
class ReducerEntry:
    """One registry entry.

    Attributes
    ----------
    cls : type
        The reducer class.
    label : str
        The name the papers' figures and tables use.
    fixed : Mapping
        Constructor parameters this name pins (e.g. ``svd="approximate"``); they cannot be
        overridden through :func:`make_reducer`.
    paper : str
        Short reference to where the method comes from, the project's paper keys of
        ``docs/SPEC.md`` plus algorithm number where there is one (``"bzmd14 Alg. 2"``); for
        methods from elsewhere, author and year. Empty for a plug-in that gives none.
    """

    cls: type[BaseReducer]
    label: str
    fixed: Mapping = field(default_factory=dict)
    paper: str = ""


BUILTIN_REDUCERS: Mapping[str, ReducerEntry] = MappingProxyType(
    {
        "leverage": ReducerEntry(
            LeverageScoreSampler, "Sampl/SVD", {"svd": "exact"}, "bmd09 Alg. 1; bzmd14 Alg. 1"
        ),
        "leverage_approx": ReducerEntry(
            LeverageScoreSampler,
            "Sampl/ApproxSVD",
            {"svd": "approximate"},
            "bzmd14 Alg. 1 + Lemma 4",
        ),
        "sign": ReducerEntry(SignRandomProjection, "RP", paper="bzmd14 Alg. 2"),
        "gaussian": ReducerEntry(GaussianProjection, "Gaussian RP", paper="report (Gaussian JL)"),
        "achlioptas": ReducerEntry(
            AchlioptasProjection, "Achlioptas RP", paper="report; Achlioptas 2001"
        ),
        "sparse_embedding": ReducerEntry(SparseEmbedding, "SE", paper="lst17 Alg. 1"),
        "srht": ReducerEntry(
            SRHTProjection, "SRHT", paper="Ailon & Chazelle 2006 (FJLT); course report"
        ),
        "ridge_leverage": ReducerEntry(
            RidgeLeverageSampler,
            "RidgeLev (CMM17)",
            {"scores": "exact"},
            "Cohen, Musco, Musco 2017 (not in bmd09/bzmd14)",
        ),
        "ridge_leverage_approx": ReducerEntry(
            RidgeLeverageSampler,
            "ApproxRidgeLev (CMM17)",
            {"scores": "approximate"},
            "Cohen, Musco, Musco 2017 (not in bmd09/bzmd14)",
        ),
        "svd": ReducerEntry(SVDFeatures, "SVD", {"svd": "exact"}, "bzmd14 Alg. 3 (exact SVD)"),
        "svd_approx": ReducerEntry(
            SVDFeatures, "ApprSVD", {"svd": "approximate"}, "bzmd14 Alg. 3 + Lemma 4"
        ),
        "laplacian": ReducerEntry(
            LaplacianScoreSelector, "LapScores", paper="He, Cai, Niyogi 2005 (bzmd14 baseline)"
        ),
        "lle": ReducerEntry(LocallyLinearReducer, "LLE", paper="Roweis & Saul 2000 (lst17 LLE)"),
        "sparsified": ReducerEntry(
            PreconditionedSparsification,
            "PD",
            paper="Pourkamali-Anaraki & Becker 2017 (lst17 PD)",
        ),
        "none": ReducerEntry(IdentityReducer, "kMeans", paper="bzmd14 baseline (all features)"),
    }
)


def _describe(ep: importlib.metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    where = f" from {dist.name} {dist.version}" if dist is not None else ""
    return f"entry point {ep.name} = {ep.value} (group {ENTRY_POINT_GROUP}{where})"


def _as_entry(ep: importlib.metadata.EntryPoint) -> ReducerEntry:
    obj = ep.load()
    if isinstance(obj, ReducerEntry):
        return obj
    if isinstance(obj, type) and issubclass(obj, BaseReducer):
        return ReducerEntry(obj, label=ep.name)
    raise TypeError(
        f"it is a {type(obj).__name__}, not a ReducerEntry or a kmdr BaseReducer subclass"
    )


def _warn(message: str, category: type[Warning]) -> None:
    """A warning that prints as ONE line: it is attributed to no source file, so Python's
    warning display has no source line to add under it."""
    warnings.warn_explicit(message, category, filename=ENTRY_POINT_GROUP, lineno=0, module=__name__)


@functools.cache
def _plugins() -> tuple[Mapping[str, ReducerEntry], Mapping[str, str]]:
    """(entries, errors) of the installed plug-ins, loaded once per process.

    ``errors`` maps the name of every plug-in that cannot be used (it failed to load, or two
    plug-ins declare that name) to the one-line reason. A plug-in named like a built-in is
    ignored (see the module docstring).
    """
    entries: dict[str, ReducerEntry] = {}
    errors: dict[str, str] = {}
    by_name: dict[str, list[importlib.metadata.EntryPoint]] = {}
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        by_name.setdefault(ep.name, []).append(ep)
    for name, points in by_name.items():
        if name in BUILTIN_REDUCERS:
            builtin = BUILTIN_REDUCERS[name].cls
            for ep in points:
                _warn(
                    f"reducer plug-in {_describe(ep)} is ignored: the built-in reducer {name!r} "
                    f"({builtin.__module__}.{builtin.__qualname__}) has that name and built-ins "
                    "win; rename the entry point to use the plug-in",
                    UserWarning,
                )
            continue
        if len(points) > 1:
            errors[name] = (
                f"reducer {name!r} is declared by {len(points)} plug-ins "
                f"({'; '.join(_describe(ep) for ep in points)}): none is used; uninstall one or "
                "rename its entry point"
            )
            _warn(errors[name], UserWarning)
            continue
        (ep,) = points
        try:
            entries[name] = _as_entry(ep)
        except Exception as err:  # any failure of third-party code: skip it, keep the rest
            reason = " ".join(str(err).split()) or type(err).__name__
            errors[name] = f"reducer plug-in {_describe(ep)} failed to load: {reason}"
            _warn(errors[name], RuntimeWarning)
    return MappingProxyType(entries), MappingProxyType(errors)


def unusable_plugin(name: str) -> str | None:
    """Why the plug-in reducer ``name`` cannot be used (it failed to load, or two plug-ins
    declare that name), in one line; None if no such plug-in was declared."""
    return _plugins()[1].get(name)


class _Registry(Mapping):
    """Built-ins followed by the plug-ins (loaded on first use), read-only."""

    def _all(self) -> Mapping[str, ReducerEntry]:
        return {**BUILTIN_REDUCERS, **_plugins()[0]}

    def __getitem__(self, name):
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __repr__(self) -> str:
        return f"REDUCERS({list(self)})"


#: Every reducer name: the built-ins, then the installed plug-ins.
REDUCERS: Mapping[str, ReducerEntry] = _Registry()


def available_reducers() -> tuple[str, ...]:
    """The registry names: the built-ins in their order, then the plug-ins."""
    return tuple(REDUCERS)


def _entry(name: str) -> ReducerEntry:
    try:
        return REDUCERS[name]
    except (KeyError, TypeError):
        broken = _plugins()[1].get(name) if isinstance(name, str) else None
        if broken is not None:
            raise ValueError(broken) from None
        raise ValueError(
            f"reducer name={name!r} is invalid: it must be one of {', '.join(REDUCERS)}"
        ) from None


def reducer_label(name: str) -> str:
    """The label the papers use for a registry name (``"leverage"``: "Sampl/SVD")."""
    return _entry(name).label


def reducer_paper(name: str) -> str:
    """The short paper reference of a registry name (``"sign"``: "bzmd14 Alg. 2")."""
    return _entry(name).paper


def make_reducer(
    name: str, n_components, *, n_clusters=None, random_state=None, **params
) -> BaseReducer:
    """An unfitted reducer for a registry name.

    Parameters
    ----------
    name : str
        One of :func:`available_reducers`.
    n_components : int or None
        r (ignored by ``"none"``).
    n_clusters : int, optional
        k; passed only to reducers that take it (leverage sampling), ignored by the others.
    random_state : None, int or RandomState
        Passed only to randomized reducers.
    **params
        Other constructor parameters of the reducer class (e.g. ``eps``, ``scores``,
        ``n_neighbors``, ``t``, ``dense_output``).
    """
    entry = _entry(name)
    accepted = set(entry.cls().get_params(deep=False))
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
    return entry.cls(**kwargs)


def max_components(name: str, n_samples: int, n_features: int, **params) -> int | None:
    """The largest r reducer ``name`` can produce on an n_samples x n_features matrix.

    None means no bound (projections, leverage sampling with replacement, ``"none"`` which ignores
    r). ``params`` matter for some entries (``scores="top"`` bounds leverage sampling by d).
    """
    return make_reducer(name, None, **params).max_components(n_samples, n_features)
