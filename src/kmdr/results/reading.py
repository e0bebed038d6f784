"""What a reader sees of an experiment folder: its rows keyed and typed, which rows are current,
what its run sidecars say, and every cell of a results folder as one DataFrame.

Keys
    A cell is keyed by its identity, :data:`kmdr.results.records.IDENTITY_COLUMNS` (every
    setting that changes its numbers); a point of a figure by the same without the repetition
    (``POINT_COLUMNS``). CSV and JSON disagree on types (``"5"`` vs ``5``, ``"{}"`` vs ``{}``),
    so :func:`typed` gives every identity column one type wherever it was read, an absent or
    empty value reading as its default (``IDENTITY_DEFAULTS``: a column written only away from
    it, or left out of an expected cell's record at it) or <NA>. The
    *setting* of a row is its dataset, dataset parameters, base seed, k-means settings and BLAS
    threads (:data:`SETTING_COLUMNS`): :func:`setting_labels` names the settings of an experiment
    that holds several. The no-reduction baseline is a row whose ``reducer_name`` is declared
    ``baseline=True`` in the reducer registry (:func:`is_baseline`), whatever its display label.

Current rows
    Readers (aggregates, figures, report) and ``kmdr-prune`` split the rows of a store the same
    way (:func:`split_current`):

    - *older code*: a row whose ``code_tag`` is not the one this installation gives its reducer
      (:func:`kmdr.results.cells.code_tag`: the cell format and the reducer's
      ``compat_version``).
      The runner computes such a cell again when it is planned; the old row stays in cells.csv
      until pruned.
    - *other data*: a row whose ``data_fingerprint`` is not the current one of its dataset and
      dataset parameters: the fingerprint the newest run sidecar recorded for them (without any
      sidecar that says, the newest row's, by run id).
    - *another experiment*: a row whose ``experiment`` is not the folder's.

    Such rows are never drawn, averaged or counted with the current ones; figures and the report
    say how many were left out and how to remove them (:func:`exclusion_note`).

Expected cells
    :func:`load_expected`: the cells the run sidecars expected (read by
    :mod:`kmdr.results.runs`), typed and split as the rows are.

A results folder
    :func:`experiment_folders`: the folder itself when it is an experiment folder (it holds
    ``cells.csv`` or ``runs/``), else its subfolders that are; :class:`ResultsError` when there
    is none, or when :func:`kmdr.results.summary.read_results` meets a ``cells.csv`` with rows
    it cannot trust (cut short or edited by hand), one line naming the file and how to repair it.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable
from pathlib import Path
from types import MappingProxyType

import pandas as pd

from kmdr.reducers import is_baseline_reducer
from kmdr.results.records import (
    CHECKSUM,
    EXTRA_COLUMNS,
    IDENTITY_COLUMNS,
    IDENTITY_DEFAULTS,
    POINT_COLUMNS,
    table_header,
)
from kmdr.results.runs import experiment_dirs, is_experiment, load_runs
from kmdr.results.store import Once as Once  # readers take it from here

# ----------------------------------------------------------------------------------------------
# How rows are keyed, typed and compared; settings; the baseline.
# ----------------------------------------------------------------------------------------------

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
_JSON_COLUMNS = ("dataset_params", "reducer_params", "coreset")


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
        # a column written only away from its default reads, absent or empty, as the default
        default = IDENTITY_DEFAULTS.get(col, pd.NA)
        values = out[col] if col in out.columns else pd.Series(default, index=out.index)
        values = values.where(~values.map(_missing), default)
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
    """Rows of the baseline, k-means on all rows and all features: those with no reduction step,
    i.e. whose ``reducer_name`` (the registry name, never the display label) is declared
    ``baseline=True`` and that build no coreset (an empty ``coreset`` step); a name unknown here
    is not the baseline."""
    if "reducer_name" not in frame.columns:
        return pd.Series(False, index=frame.index)
    names = frame["reducer_name"].astype("string")
    baselines = [n for n in names.dropna().unique() if is_baseline_reducer(str(n))]
    base = names.isin(baselines).fillna(False).astype(bool)
    if "coreset" in frame.columns:
        rows_step = frame["coreset"].astype("string").fillna("")
        base &= rows_step.eq("").to_numpy()
    return base


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
    ``base_seed=1, kmeans_n_init=3``; unknown values read ``?``.
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


# ----------------------------------------------------------------------------------------------
# Which rows are current: this code, the current data, this experiment.
# ----------------------------------------------------------------------------------------------

OLDER_CODE = "older code"
OTHER_DATA = "other data"
OTHER_EXPERIMENT = "another experiment"
#: The kmdr-prune option that removes each kind of row.
_PRUNE_OPTION = MappingProxyType(
    {
        OLDER_CODE: "--older-code",
        OTHER_DATA: "--other-data",
        OTHER_EXPERIMENT: "--foreign",
    }
)


def _params_text(value) -> str:
    """A parameters value's canonical text, none given read as no parameters (``{}``)."""
    return "{}" if _missing(value) else _canonical_json(value)


def current_fingerprints(runs: list[dict], cells: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(dataset, dataset_params JSON) -> the current data fingerprint (see the module docstring)."""
    from_sidecars: dict[tuple[str, str], str] = {}
    for run in runs:  # in run-id order: the newest last, and it wins
        data = run.get("dataset")
        if isinstance(data, dict) and data.get("fingerprint") and data.get("name"):
            key = (str(data["name"]), _params_text(data.get("params")))
            from_sidecars[key] = str(data["fingerprint"])
    ordered = cells.sort_values("run_id", kind="stable") if len(cells) else cells
    columns = ["dataset", "dataset_params", "data_fingerprint"]
    from_rows = {(str(d), _params_text(p)): str(f) for d, p, f in ordered[columns].to_numpy()}
    return {**from_rows, **from_sidecars}


def split_current(
    frame: pd.DataFrame, runs: list[dict], experiment: str | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(current, excluded)``: the rows of a store's frame (as
    :func:`kmdr.results.summary.read_experiment` reads it, with its ``record`` column) that are
    current, and the others with an ``excluded`` column saying why
    (:data:`OLDER_CODE`, :data:`OTHER_DATA`, :data:`OTHER_EXPERIMENT`). ``experiment`` None:
    rows that name no experiment (a sidecar's expected cells)."""
    from kmdr.results.cells import code_tag

    if not len(frame):
        return frame, frame.assign(excluded=pd.Series(dtype="string"))
    why = pd.Series(pd.NA, index=frame.index, dtype="string")
    if experiment is not None:
        why[frame["experiment"].astype(str) != experiment] = OTHER_EXPERIMENT
    wanted = frame["reducer_name"].map(lambda n: code_tag(str(n)) if pd.notna(n) else None)
    older = wanted.notna() & (frame["code_tag"].astype(str) != wanted.astype(str))
    why[why.isna() & older] = OLDER_CODE
    ok = why.isna()
    rows = frame[ok] if experiment is not None else frame.iloc[0:0]
    fingerprints = current_fingerprints(runs, rows)
    if fingerprints:
        keys = zip(frame["dataset"], frame["dataset_params"], strict=True)
        current = pd.Series([fingerprints.get((str(d), _params_text(p))) for d, p in keys])
        current.index = frame.index
        other = current.notna() & (frame["data_fingerprint"].astype(str) != current)
        why[ok & other] = OTHER_DATA
    excluded = frame[why.notna()].assign(excluded=why[why.notna()])
    return frame[why.isna()], excluded


def exclusion_note(excluded: pd.DataFrame, experiment_dir: str | Path) -> str:
    """One line on the rows left out (e.g. "705 rows of older code not shown; `kmdr-prune DIR
    --older-code --remove` removes them"), or "" when none were."""
    if not len(excluded):
        return ""
    counts = excluded["excluded"].value_counts()
    kinds = [k for k in (OLDER_CODE, OTHER_DATA, OTHER_EXPERIMENT) if k in counts]
    what = " and ".join(f"{int(counts[k])} rows of {k}" for k in kinds)
    options = " ".join(_PRUNE_OPTION[k] for k in kinds)
    return f"{what} not shown; `kmdr-prune {experiment_dir} {options} --remove` removes them"


# ----------------------------------------------------------------------------------------------
# The cells the run sidecars expect.
# ----------------------------------------------------------------------------------------------


def load_expected(experiment_dir: str | Path, runs: list[dict] | None = None) -> pd.DataFrame:
    """Union over all sidecars of their expected cells (``expected_cells``) that are current
    (those of older code or other data are not the experiment's cells any more): :data:`KEY`
    and ``method``."""
    runs = load_runs(experiment_dir) if runs is None else runs
    rows = [c for run in runs for c in run.get("expected_cells") or ()]
    exp = typed(pd.DataFrame(rows, columns=None if rows else [*KEY, "method"]), [*KEY, "method"])
    exp = exp[[*KEY, "method"]].drop_duplicates(KEY, keep="last").reset_index(drop=True)
    return split_current(exp, runs, None)[0]


# ----------------------------------------------------------------------------------------------
# The experiment folders of a results folder (kmdr.read_results).
# ----------------------------------------------------------------------------------------------

#: The column saying why a row is not current (``<NA>`` when it is).
EXCLUDED = "excluded"


class ResultsError(ValueError):
    """A results folder that cannot be read as it is; the message is one line."""


def empty_columns() -> list[str]:
    """The columns of a cells.csv written by this code, for a frame without cells."""
    return table_header({*EXTRA_COLUMNS, CHECKSUM})


def experiment_folders(folder: str | Path) -> list[Path]:
    """The experiment folders of ``folder``: itself when it is one, else its subfolders that are
    (sorted by name). Raises :class:`ResultsError` when there is none."""
    root = Path(folder)
    if not root.is_dir():
        what = "is a file, not a folder" if root.exists() else "does not exist"
        raise ResultsError(
            f"results folder {root} {what}; give a results folder or one of its experiment folders"
        )
    if is_experiment(root):
        return [root]
    found = experiment_dirs(root)
    if not found:
        raise ResultsError(
            f"{root} holds no experiment folder (none has cells.csv or runs/); give a "
            "results folder or one of its experiment folders"
        )
    return found
