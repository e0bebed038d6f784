"""The names configs use for reducers, their display labels, and a factory.

Adding a reducer: write its module (a :class:`~kmdr.reducers._base.BaseReducer` subclass) and add
one :class:`ReducerEntry` to ``REDUCERS`` below.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    """

    cls: type[BaseReducer]
    label: str
    fixed: Mapping = field(default_factory=dict)


REDUCERS: Mapping[str, ReducerEntry] = MappingProxyType(
    {
        "leverage": ReducerEntry(LeverageScoreSampler, "Sampl/SVD", {"svd": "exact"}),
        "leverage_approx": ReducerEntry(
            LeverageScoreSampler, "Sampl/ApproxSVD", {"svd": "approximate"}
        ),
        "sign": ReducerEntry(SignRandomProjection, "RP"),
        "gaussian": ReducerEntry(GaussianProjection, "Gaussian RP"),
        "achlioptas": ReducerEntry(AchlioptasProjection, "Achlioptas RP"),
        "sparse_embedding": ReducerEntry(SparseEmbedding, "SE"),
        "srht": ReducerEntry(SRHTProjection, "SRHT"),
        "ridge_leverage": ReducerEntry(
            RidgeLeverageSampler, "RidgeLev (CMM17)", {"scores": "exact"}
        ),
        "ridge_leverage_approx": ReducerEntry(
            RidgeLeverageSampler, "ApproxRidgeLev (CMM17)", {"scores": "approximate"}
        ),
        "svd": ReducerEntry(SVDFeatures, "SVD", {"svd": "exact"}),
        "svd_approx": ReducerEntry(SVDFeatures, "ApprSVD", {"svd": "approximate"}),
        "laplacian": ReducerEntry(LaplacianScoreSelector, "LapScores"),
        "lle": ReducerEntry(LocallyLinearReducer, "LLE"),
        "sparsified": ReducerEntry(PreconditionedSparsification, "PD (r kept/row)"),
        "none": ReducerEntry(IdentityReducer, "kMeans"),
    }
)


def available_reducers() -> tuple[str, ...]:
    """The registry names, in the registry's order."""
    return tuple(REDUCERS)


def _entry(name: str) -> ReducerEntry:
    try:
        return REDUCERS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"reducer name={name!r} is invalid: it must be one of {', '.join(REDUCERS)}"
        ) from None


def reducer_label(name: str) -> str:
    """The label the papers use for a registry name (``"leverage"``: "Sampl/SVD")."""
    return _entry(name).label


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
