"""What planning a sweep needs from a reducer, stated without its class: :class:`ReducerPlan`.

Planning the cells of an experiment asks each reducer three things (see
:class:`~kmdr.reducers.BaseReducer`): which r-independent work it shares (its shared key), whether
its reduction depends on its seed, and whether its shared work does. The answers depend on the
reducer's parameters and on the data's shape and sparsity only, never on its values, so they are
stated here as plain rules over ``(params, data)`` (:class:`DataFacts`): a dry run reads them from
the registry (:func:`~kmdr.reducers.planning_facts`) without importing the reducer classes (and
scikit-learn) or loading the data. Each built-in class reads its own plan (``BaseReducer.plan``),
so a rule lives here once; the constructor defaults the rules read are declared here too and the
constructors take them from here.

This module imports nothing heavy.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = [
    "ACHLIOPTAS",
    "GAUSSIAN",
    "IDENTITY",
    "LAPLACIAN",
    "LEVERAGE",
    "LLE",
    "RIDGE_LEVERAGE",
    "SIGN",
    "SPARSE_EMBEDDING",
    "SPARSIFIED",
    "SRHT",
    "SVD_FEATURES",
    "DataFacts",
    "ReducerPlan",
]


@dataclass(frozen=True)
class DataFacts:
    """The data's shape and sparsity: all a reducer's plan reads of it.

    ``load`` (optional) returns the matrix itself, for a reducer whose plan is not declared and
    must be asked through its class.
    """

    n_samples: int
    n_features: int
    sparse: bool
    load: Callable[[], object] | None = field(default=None, compare=False, repr=False)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_samples, self.n_features)

    @classmethod
    def of(cls, X) -> DataFacts:
        """The facts of a matrix (numpy or scipy.sparse), or ``X`` itself if it is facts."""
        if isinstance(X, DataFacts):
            return X
        if not hasattr(X, "shape"):  # array-like: a list of rows
            import numpy as np

            X = np.asarray(X)
        sparse_module = sys.modules.get("scipy.sparse")  # not imported: X cannot be sparse
        sparse = bool(sparse_module is not None and sparse_module.issparse(X))
        return cls(int(X.shape[0]), int(X.shape[1]), sparse, load=lambda: X)

    def matrix(self):
        """The data matrix (loaded through ``load``)."""
        if self.load is None:
            raise ValueError("these data facts carry no matrix; plan with the loaded data")
        return self.load()


def next_power_of_two(d: int) -> int:
    """The smallest power of two >= ``d`` (``d >= 1``)."""
    return 1 << (int(d) - 1).bit_length()


def padded_dimension(n_features: int, transform: str) -> int:
    """p: the length of a preconditioned row (d for the DCT, the next power of two for Hadamard)."""
    if transform == "hadamard":
        return 1 << max(int(n_features) - 1, 0).bit_length()
    return int(n_features)


def _no_bound(params: Mapping, n_samples: int, n_features: int) -> None:
    return None


def _no_key(params: Mapping, data: DataFacts) -> None:
    return None


def _never(params: Mapping, data: DataFacts) -> bool:
    return False


def _always(params: Mapping, data: DataFacts) -> bool:
    return True


@dataclass(frozen=True)
class ReducerPlan:
    """The planning facts of one reducer class.

    Every rule takes ``params`` (the constructor's parameters: :attr:`defaults`, overridden by
    the ones given, with ``n_components`` = r and ``n_clusters`` = k) and the :class:`DataFacts`.

    Attributes
    ----------
    defaults : Mapping
        The constructor defaults the rules read (the constructor's signature takes them from
        here).
    compat_version : int
        The compatibility version of the class's code: bump it when a change to the class
        changes the numbers its cells produce. Part of every cell's identity (its ``code_tag``),
        so only this reducer's cells are computed again.
    shared_key : callable
        The key of the r-independent work (``BaseReducer.shared_key``), None without any.
    deterministic : callable
        Whether the reduction is the same for every random_state
        (``BaseReducer.is_deterministic``).
    shared_deterministic : callable
        Whether the shared work is the same for every random_state
        (``BaseReducer.shared_is_deterministic``).
    max_components : callable or None
        ``(params, n_samples, n_features)``: the largest r (``BaseReducer.max_components``; None
        for no bound). None: the class decides (it may need more than the shape).
    """

    defaults: Mapping = field(default_factory=dict)
    compat_version: int = 1
    shared_key: Callable[[Mapping, DataFacts], tuple | None] = _no_key
    deterministic: Callable[[Mapping, DataFacts], bool] = _never
    shared_deterministic: Callable[[Mapping, DataFacts], bool] = _never
    max_components: Callable[[Mapping, int, int], int | None] | None = _no_bound

    def __post_init__(self) -> None:
        object.__setattr__(self, "defaults", MappingProxyType(dict(self.defaults)))

    def facts(self, params: Mapping, data: DataFacts) -> tuple[tuple | None, bool, bool]:
        """``(shared key, deterministic, shared deterministic)`` with ``params`` over the
        defaults."""
        p = {**self.defaults, **params}
        key = self.shared_key(p, data)
        return (
            None if key is None else tuple(key),
            bool(self.deterministic(p, data)),
            bool(key is not None and self.shared_deterministic(p, data)),
        )


def _leverage_key(p: Mapping, data: DataFacts) -> tuple:
    if p["svd"] == "approximate":
        return ("fast_frobenius_svd", p["n_clusters"], p["eps"])
    return ("sparse_svd", p["n_clusters"]) if data.sparse else ("exact_svd", p["n_clusters"])


#: Leverage-score sampling: one SVD of rank k shared across r; exact SVDs read no seed (the
#: approximate SVD's sketch is drawn from random_state).
LEVERAGE = ReducerPlan(
    defaults={"svd": "exact", "eps": 1 / 3, "scores": "leverage"},
    shared_key=_leverage_key,
    shared_deterministic=lambda p, data: p["svd"] == "exact",
    max_components=lambda p, n, d: d if p["scores"] == "top" else None,  # no repeats: r <= d
)

#: SVD features: an exact SVD reads no random_state (ARPACK starts at rng=0).
SVD_FEATURES = ReducerPlan(
    defaults={"svd": "exact"},
    deterministic=lambda p, data: p["svd"] == "exact",
    max_components=lambda p, n, d: min(n, d),
)

#: Laplacian scores: a deterministic k-NN graph and scores, shared across r.
LAPLACIAN = ReducerPlan(
    defaults={"n_neighbors": 5, "t": "auto"},
    shared_key=lambda p, data: ("laplacian_scores", p["n_neighbors"], p["t"]),
    deterministic=_always,
    shared_deterministic=_always,
    max_components=lambda p, n, d: d,  # a selection without repeats
)


def _lle_dense(p: Mapping, data: DataFacts) -> bool:
    """True when scikit-learn's dense eigensolver runs (ARPACK starts from random_state): on
    dense data with eigen_solver="dense", or "auto" with n_samples <= 200 or r + 1 >= 10.
    Sparse data always take the sparse path's ARPACK solver."""
    if data.sparse:
        return False
    r = data.n_features if p["n_components"] is None else int(p["n_components"])
    dense_auto = data.n_samples <= 200 or r + 1 >= 10
    return p["eigen_solver"] == "dense" or (p["eigen_solver"] == "auto" and dense_auto)


#: Locally linear embedding: deterministic when the dense eigensolver runs.
LLE = ReducerPlan(
    defaults={"eigen_solver": "auto"},
    deterministic=_lle_dense,
    max_components=None,  # the class also checks LLE is feasible on this shape and sparsity
)


def _ridge_key(p: Mapping, data: DataFacts) -> tuple:
    if p["scores"] == "approximate":
        return ("ridge_leverage_sketch", p["n_clusters"], p["eps"])
    # Dense: LeverageScoreSampler's and SVDFeatures' key, one thin SVD serves all three.
    return ("gram_svd",) if data.sparse else ("thin_svd",)


#: Ridge leverage sampling: exact scores share one thin SVD; approximate ones draw a sketch.
RIDGE_LEVERAGE = ReducerPlan(
    defaults={"scores": "exact", "eps": 1 / 3},
    shared_key=_ridge_key,
    shared_deterministic=lambda p, data: p["scores"] == "exact",
)

#: The baseline: k-means on all of A, nothing drawn.
IDENTITY = ReducerPlan(deterministic=_always)

#: The reducers that draw their whole reduction from random_state, with nothing shared across r
#: (one plan each: each has its own compat_version).
SIGN = ReducerPlan()
ACHLIOPTAS = ReducerPlan()
GAUSSIAN = ReducerPlan()
SPARSE_EMBEDDING = ReducerPlan()
SPARSIFIED = ReducerPlan(
    defaults={"preconditioner": "dct"},
    max_components=lambda p, n, d: padded_dimension(d, p["preconditioner"]),
)
SRHT = ReducerPlan(max_components=lambda p, n, d: next_power_of_two(d))
