"""What planning a sweep needs from a reducer, stated without its class: :class:`ReducerPlan`.

Planning the cells of an experiment asks each reducer three things (see
:class:`~kmdr.reducers.BaseReducer`): which r-independent work it shares (its shared key), whether
its reduction depends on its seed, and whether its shared work does. The answers depend on the
reducer's parameters and on the data's shape and sparsity only, never on its values, so they are
stated here as plain rules over ``(params, data)`` (:class:`DataFacts`): a dry run reads them from
the registry (:func:`~kmdr.reducers.planning_facts`) without importing the reducer classes (and
scikit-learn) or loading the data. The built-ins' plans are declared with their entries
(:mod:`kmdr.reducers._builtins`), and each built-in class reads its own from there
(``BaseReducer.plan``), constructor defaults included.

This module imports nothing heavy.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = [
    "ROWWISE",
    "SKETCH",
    "DataFacts",
    "ReducerPlan",
    "always",
    "next_power_of_two",
    "padded_dimension",
]

#: How a reducer runs on row blocks (:attr:`ReducerPlan.row_blocks`): a data-independent operator
#: drawn once from the shape and applied to each block of rows on its own.
ROWWISE = "rowwise"
#: How a reducer runs on row blocks: its r-dimensional subspace is found by a tall-and-skinny
#: randomized SVD over the blocks (a range finder pass, then a projection pass); the result is an
#: approximation of the same kind as the in-memory one, not the same draw.
SKETCH = "sketch"


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


def _not_on_blocks(params: Mapping) -> None:
    return None


def _all_read(params: Mapping) -> Mapping[str, str]:
    return {}


def always(params: Mapping, data: DataFacts) -> bool:
    """A rule that holds for every parameter and data (e.g. a deterministic reduction)."""
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
    row_blocks : callable
        ``(params)``: how the reducer runs on data held as row blocks, never whole in one process
        (``BaseReducer.fit_rows`` / ``transform_rows``): :data:`ROWWISE` (an operator drawn from
        the shape alone, applied to each block; the reduced matrix is the in-memory one),
        :data:`SKETCH` (a two-pass randomized SVD over the blocks) or None (it needs the whole
        matrix: refused).
    unread : callable
        ``(params)``: the parameters these params leave unread, each with when it is read
        (``{"eps": "with svd=approximate only (...)"}``: an exact SVD draws no sketch whose
        accuracy eps sets); a run refuses one given.
    """

    defaults: Mapping = field(default_factory=dict)
    compat_version: int = 1
    shared_key: Callable[[Mapping, DataFacts], tuple | None] = _no_key
    deterministic: Callable[[Mapping, DataFacts], bool] = _never
    shared_deterministic: Callable[[Mapping, DataFacts], bool] = _never
    max_components: Callable[[Mapping, int, int], int | None] | None = _no_bound
    row_blocks: Callable[[Mapping], str | None] = _not_on_blocks
    unread: Callable[[Mapping], Mapping[str, str]] = _all_read

    def __post_init__(self) -> None:
        object.__setattr__(self, "defaults", MappingProxyType(dict(self.defaults)))

    def row_mode(self, params: Mapping) -> str | None:
        """How the reducer runs on row blocks with ``params`` over the defaults (``row_blocks``)."""
        mode = self.row_blocks({**self.defaults, **params})
        if mode not in (None, ROWWISE, SKETCH):
            raise ValueError(f"row_blocks must give {ROWWISE!r}, {SKETCH!r} or None, got {mode!r}")
        return mode

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
