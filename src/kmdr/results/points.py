"""How rows read back from cells.csv, sidecars and summary.csv are keyed and compared.

A cell is keyed by its identity, :data:`kmdr.results.columns.IDENTITY_COLUMNS` (every setting
that changes its numbers); a point of a figure by the same without the repetition
(``POINT_COLUMNS``). CSV and JSON disagree on types (``"5"`` vs ``5``, ``"{}"`` vs ``{}``), so
:func:`typed` gives every identity column one type wherever it was read, an absent column
(a legacy file) becoming unknown (<NA>), or the value every file written before it had for a
column that joined the identity later (``IDENTITY_DEFAULTS``: one BLAS thread). The *setting* of
a row is its dataset, dataset parameters, base seed, k-means settings and BLAS threads
(:data:`SETTING_COLUMNS`): :func:`setting_labels` names the settings of an experiment that holds
several. The no-reduction baseline is a row whose ``reducer_name`` is declared ``baseline=True``
in the reducer registry (:func:`is_baseline`), whatever its display label.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable

import pandas as pd

from kmdr.reducers import is_baseline_reducer
from kmdr.results.columns import IDENTITY_COLUMNS, IDENTITY_DEFAULTS, POINT_COLUMNS

__all__ = [
    "CORE_COLUMNS",
    "KEY",
    "POINT",
    "SETTING_COLUMNS",
    "is_baseline",
    "setting_labels",
    "typed",
]

#: A cell's identity: one row of cells.csv per value.
KEY: list[str] = list(IDENTITY_COLUMNS)
#: A point of a figure / row of summary.csv (its ``method`` label rides along, it is not a key).
POINT: list[str] = list(POINT_COLUMNS)
#: The columns of a row's setting: what is neither the reducer, its r nor the repetition.
SETTING_COLUMNS: tuple[str, ...] = (
    "dataset",
    "dataset_params",
    "base_seed",
    "kmeans_init",
    "kmeans_n_init",
    "kmeans_max_iter",
    "kmeans_tol",
    "blas_threads",
)
# How each identity column is typed once read (CSV and JSON disagree: "5" vs 5, "{}" vs {}).
_INT_COLUMNS = ("r", "repetition", "base_seed", "kmeans_n_init", "kmeans_max_iter", "blas_threads")
_FLOAT_COLUMNS = ("kmeans_tol",)
_JSON_COLUMNS = ("dataset_params", "reducer_params")
#: The columns even a legacy row or sidecar has: the others may be unknown.
CORE_COLUMNS: tuple[str, ...] = ("dataset", "reducer", "r", "repetition")


def _missing(value) -> bool:
    if value is None or value is pd.NA:
        return True
    return isinstance(value, float) and math.isnan(value)


def _canonical_json(value):
    """A parameters value as JSON text with sorted keys (a dict or JSON text in, text out)."""
    if _missing(value):
        return pd.NA
    if isinstance(value, str):
        return _canonical_json_text(value)
    return json.dumps(value, sort_keys=True)


@functools.lru_cache(maxsize=4096)
def _canonical_json_text(text: str) -> str:
    # A column repeats a few parameter texts over thousands of rows: each is parsed once.
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return json.dumps(value, sort_keys=True)


def typed(frame: pd.DataFrame, columns: Iterable[str]) -> pd.DataFrame:
    """``frame`` with ``columns`` added where absent (unknown: <NA>) and typed alike everywhere,
    so that rows from cells.csv, summary.csv and sidecar JSON compare equal."""
    out = frame.copy()
    for col in columns:
        absent = IDENTITY_DEFAULTS.get(col, pd.NA)  # a file written before the column was kept
        values = out[col] if col in out.columns else pd.Series(absent, index=out.index)
        if col in _INT_COLUMNS:
            out[col] = pd.to_numeric(values, errors="coerce").astype("Int64")
        elif col in _FLOAT_COLUMNS:
            out[col] = pd.to_numeric(values, errors="coerce").astype("Float64")
        elif col in _JSON_COLUMNS:
            out[col] = values.map(_canonical_json).astype("string")
        else:
            out[col] = values.map(lambda v: pd.NA if _missing(v) else str(v)).astype("string")
    return out


def is_baseline(frame: pd.DataFrame) -> pd.Series:
    """Rows of the no-reduction baseline: those whose ``reducer_name`` (the registry name, never
    the display label) is declared ``baseline=True``; a name unknown here is not the baseline."""
    if "reducer_name" not in frame.columns:
        return pd.Series(False, index=frame.index)
    names = frame["reducer_name"].astype("string")
    baselines = [n for n in names.dropna().unique() if is_baseline_reducer(str(n))]
    return names.isin(baselines).fillna(False).astype(bool)


def _value_text(value) -> str:
    if _missing(value):
        return "?"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def setting_labels(frame: pd.DataFrame) -> pd.Series | None:
    """Per row, a short text naming its setting, or None when every dataset has one setting.

    Only the setting columns (besides ``dataset``, which always has its own column) that take
    several values within one dataset are named, e.g. ``kmeans_n_init=3`` or
    ``base_seed=1, kmeans_n_init=3``; unknown values (a legacy row) read ``?``.
    """
    if not len(frame):
        return None
    frame = typed(frame, SETTING_COLUMNS)
    by_dataset = frame.groupby("dataset", dropna=False)
    varying = [c for c in SETTING_COLUMNS[1:] if by_dataset[c].nunique(dropna=False).gt(1).any()]
    if not varying:
        return None
    return pd.Series(
        [
            ", ".join(f"{c}={_value_text(v)}" for c, v in zip(varying, values, strict=True))
            for values in frame[varying].itertuples(index=False)
        ],
        index=frame.index,
        dtype=object,
    )
