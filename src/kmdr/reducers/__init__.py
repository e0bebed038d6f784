"""The papers' dimensionality reducers as scikit-learn transformers.

Each maps an n x d matrix A (numpy or scipy.sparse, points are rows) to an n x r matrix C,
r = ``n_components``; the r-independent part of the work (an SVD, scores) can be computed once and
shared across r and repetitions (see :mod:`kmdr.reducers._base`). Configs name reducers through
the registry (:mod:`kmdr.reducers._registry`): :data:`REDUCERS`, :func:`make_reducer`,
:func:`reducer_entry` and the facts it holds; other packages add reducers through the entry-point
group ``kmdr.reducers``.

Importing this package imports neither scikit-learn nor any reducer module: the registry and the
declarations are light, and the classes and SVD helpers below are imported on first access
(``from kmdr.reducers import SVDFeatures`` imports :mod:`kmdr.reducers.svd` then).
"""

from __future__ import annotations

import importlib

from kmdr.reducers._builtins import builtin_classes
from kmdr.reducers._entry import LineStyle, ReducerEntry
from kmdr.reducers._plans import DataFacts, ReducerPlan
from kmdr.reducers._registry import (
    BUILTIN_REDUCERS,
    ENTRY_POINT_GROUP,
    REDUCERS,
    available_reducers,
    baseline_names,
    canonical_reducer,
    declared_defaults,
    is_baseline_reducer,
    is_own_reducer,
    make_reducer,
    max_components,
    planning_facts,
    reducer_class,
    reducer_compat_version,
    reducer_entry,
    reducer_label,
    reducer_paper,
    reload_plugins,
    row_blocks_mode,
    row_blocks_reducers,
    unread_params,
    unusable_plugin,
)

# Public name -> the module that defines it, imported when the name is first asked for: the
# shared machinery and the SVD routines, then every built-in class, as its declaration names it.
_LAZY = {
    "BaseReducer": "_base",
    "SharedWork": "_base",
    "timed_shared": "_base",
    "nnz_counts": "_base",
    "SVD_METHODS": "_svd",
    "SVDResult": "_svd",
    "exact_svd": "_svd",
    "fast_frobenius_svd": "_svd",
    "sketch_operator": "_svd",
    "svd_of_projection": "_svd",
    "sparse_svd": "_svd",
    "thin_svd": "_svd",
    **builtin_classes(),
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later accesses skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "BUILTIN_REDUCERS",
    "ENTRY_POINT_GROUP",
    "REDUCERS",
    "DataFacts",
    "LineStyle",
    "ReducerEntry",
    "ReducerPlan",
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
    *_LAZY,
]
