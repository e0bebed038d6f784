"""Aggregate an experiment's cells into the tables docs/results-layout.md describes.

Everything here reads only ``results/<experiment>/cells*.csv`` and ``runs/*.json``, so the
aggregates can be rebuilt from the CSVs alone (``make figures``), with cells from several runs,
multirun jobs or machines dropped into one folder.

A cell is keyed by its identity, :data:`kmdr.experiments.store.IDENTITY_COLUMNS` (every setting
that changes its numbers): rows that differ in any of them are different cells, never merged or
averaged together. A point of a figure (a row of ``summary.csv``) is a cell's identity without its
repetition (``POINT_COLUMNS``). The *setting* of a row is its dataset, dataset parameters, base
seed and k-means settings (:data:`SETTING_COLUMNS`); when an experiment holds several settings for
one dataset (a multirun over ``seed`` or ``kmeans.n_init`` into one name), ``summary.csv`` gets a
``setting`` column naming only the columns that vary (e.g. ``kmeans_n_init=3``) and the figures
draw one row of panels per setting. A legacy ``cells.csv`` or sidecar that lacks some identity
columns is read with them unknown (``<NA>``), never dropped.

Public readers (used by the figures and the report):

- :func:`load_cells` - all cells, exact duplicates of an identity dropped (the last file wins);
- :func:`load_runs` / :func:`load_expected` - the sidecars and the union of their expected cells;
- :func:`preset_of` - the experiment's preset metadata (``config.preset`` of the last sidecar);
- :func:`summarize` / :func:`load_summary` - one row per point;
- :func:`completeness` - per point, how many cells it rests on and which repetitions are missing;
- :func:`table1` - bmd09 Table 1, ours beside the published numbers.

:func:`write_summaries` writes ``summary.csv`` (and ``table1.csv``/``table1.md`` when the preset's
figure is ``bmd09_table1``); the runner calls it at the end of a run.

Files are written with :mod:`kmdr._io` (atomic, umask-honouring) and CSVs read with its
``read_csv``, as everywhere in kmdr.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr._io import atomic_write_text, read_csv
from kmdr.experiments._plot_style import sort_key
from kmdr.experiments.published import (
    BMD09_TABLE1,
    BMD09_TABLE1_COLUMNS,
    BMD09_TABLE1_NAMES,
    BMD09_TABLE1_R_OVER_K,
)
from kmdr.experiments.store import IDENTITY_COLUMNS, POINT_COLUMNS

__all__ = [
    "BASELINE_REDUCER",
    "FIGURE_STYLES",
    "KEY",
    "METRICS",
    "POINT",
    "PRESET_DEFAULTS",
    "SECTIONS",
    "SETTING_COLUMNS",
    "aggregation_of",
    "completeness",
    "experiment_config",
    "experiment_dirs",
    "is_baseline",
    "load_cells",
    "load_expected",
    "load_runs",
    "load_summary",
    "preset_of",
    "setting_labels",
    "skip_reasons",
    "summarize",
    "table1",
    "table1_markdown",
    "write_summaries",
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
)
#: The registry name of the no-reduction baseline (k-means on all features), whatever its label.
BASELINE_REDUCER = "none"
#: The metrics summary.csv aggregates over repetitions.
METRICS: list[str] = [
    "objective",
    "objective_reduced",
    "accuracy",
    "nmi",
    "ari",
    "reduce_seconds",
    "cluster_seconds",
    "total_seconds",
]
#: Figure styles a preset may name (``preset.figure``).
FIGURE_STYLES: tuple[str, ...] = ("bzmd14", "lst17", "bmd09_fig1", "bmd09_table1")
#: Report sections a preset may name (``preset.section``).
SECTIONS: tuple[str, ...] = ("table1", "fig1", "curves", "diagnostic", "custom")
#: The preset metadata of an experiment whose sidecars carry none (an ad-hoc run); ``title``
#: defaults to the experiment's name.
PRESET_DEFAULTS: dict = {
    "paper": None,
    "title": None,
    "figure": "bzmd14",
    "section": "custom",
    "order": 1000,
    "reproduce": "none",
}
_STATS = ("mean", "std", "min", "max")
# Sidecar keys that may hold the expected cells (the layout names them "the expected cells").
_EXPECTED_KEYS = ("expected_cells", "expected", "cells_expected")
# How each identity column is typed once read (CSV and JSON disagree: "5" vs 5, "{}" vs {}).
_INT_COLUMNS = ("r", "repetition", "base_seed", "kmeans_n_init", "kmeans_max_iter")
_FLOAT_COLUMNS = ("kmeans_tol",)
_JSON_COLUMNS = ("dataset_params", "reducer_params")
# The columns even a legacy row or sidecar has: the others may be unknown.
_CORE = ("dataset", "reducer", "r", "repetition")


# --------------------------------------------------------------------------------------------
# identity


def _missing(value) -> bool:
    if value is None or value is pd.NA:
        return True
    return isinstance(value, float) and math.isnan(value)


def _canonical_json(value):
    """A parameters value as JSON text with sorted keys (a dict or JSON text in, text out)."""
    if _missing(value):
        return pd.NA
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return value
    return json.dumps(value, sort_keys=True)


def _typed(frame: pd.DataFrame, columns: Iterable[str]) -> pd.DataFrame:
    """``frame`` with ``columns`` added where absent (unknown: <NA>) and typed alike everywhere,
    so that rows from cells.csv, summary.csv and sidecar JSON compare equal."""
    out = frame.copy()
    for col in columns:
        values = out[col] if col in out.columns else pd.Series(pd.NA, index=out.index)
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
    """Rows of the no-reduction baseline: ``reducer_name == "none"`` (never its display label)."""
    if "reducer_name" not in frame.columns:
        return pd.Series(False, index=frame.index)
    return frame["reducer_name"].astype("string").eq(BASELINE_REDUCER).fillna(False).astype(bool)


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
    frame = _typed(frame, SETTING_COLUMNS)
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


# --------------------------------------------------------------------------------------------
# readers


def load_cells(experiment_dir: str | Path) -> pd.DataFrame:
    """All cells of an experiment: every ``cells*.csv`` read together, in file-name order.

    Rows with the same identity (:data:`KEY`) are one cell: the last one read is kept (so
    ``cells_<later run>.csv`` overrides ``cells.csv``). Rows that differ in any identity column
    (another seed, k-means setting or parameter) are all kept. Identity columns a legacy file
    lacks are added as unknown (<NA>). Returns an empty frame with the key columns when there are
    no cells. An ``experiment`` column is filled from the folder name when the CSV lacks it.
    """
    exp_dir = Path(experiment_dir)
    frames = [read_csv(p) for p in sorted(exp_dir.glob("cells*.csv"))]
    frames = [f for f in frames if len(f)]
    if not frames:
        return _typed(pd.DataFrame(columns=["experiment", *KEY, "method"]), KEY)
    cells = pd.concat(frames, ignore_index=True)
    missing = [c for c in _CORE if c not in cells.columns]
    if missing:
        raise ValueError(
            f"{exp_dir}: cells*.csv lack the column(s) {missing}; rebuild them with the runner"
        )
    if "experiment" not in cells.columns:
        cells.insert(0, "experiment", exp_dir.name)
    cells["experiment"] = cells["experiment"].fillna(exp_dir.name)
    cells = _typed(cells, KEY)
    if "method" not in cells.columns:
        cells["method"] = cells["reducer"]
    cells["method"] = cells["method"].fillna(cells["reducer"]).astype(str)
    cells = cells.drop_duplicates(subset=KEY, keep="last")
    return cells.sort_values(KEY, kind="stable").reset_index(drop=True)


def load_runs(experiment_dir: str | Path) -> list[dict]:
    """The sidecars ``runs/*.json`` (unreadable files are skipped), in file-name order (the run
    ids start with their start time, so this is also the order they ran in)."""
    runs = []
    for path in sorted((Path(experiment_dir) / "runs").glob("*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            data.setdefault("_path", str(path))
            runs.append(data)
    return runs


def _expected_list(run: dict) -> list:
    for key in _EXPECTED_KEYS:
        value = run.get(key)
        if isinstance(value, list):
            return value
    return []


def load_expected(experiment_dir: str | Path, runs: list[dict] | None = None) -> pd.DataFrame:
    """Union over all sidecars of their expected cells: :data:`KEY` and ``method``.

    Identity columns a legacy sidecar does not give are unknown (<NA>); :func:`completeness`
    matches them to the cells present.
    """
    runs = load_runs(experiment_dir) if runs is None else runs
    rows = [c for run in runs for c in _expected_list(run) if isinstance(c, dict)]
    exp = pd.DataFrame(rows)
    if not len(exp) or any(c not in exp.columns for c in _CORE):
        return _typed(pd.DataFrame(columns=[*KEY, "method"]), [*KEY, "method"])
    exp = _typed(exp, [*KEY, "method"])[[*KEY, "method"]]
    exp = exp.dropna(subset=list(_CORE))
    return exp.drop_duplicates(KEY, keep="last").reset_index(drop=True)


def skip_reasons(experiment_dir: str | Path, runs: list[dict] | None = None) -> list[str]:
    """The reasons the sidecars give for a skipped experiment (``skipped``), deduplicated."""
    runs = load_runs(experiment_dir) if runs is None else runs
    reasons: list[str] = []
    for run in runs:
        skipped = run.get("skipped")
        if not skipped:
            continue
        if isinstance(skipped, dict):
            text = str(skipped.get("reason") or skipped)
        elif isinstance(skipped, list):
            text = "; ".join(
                str(s.get("reason", s)) if isinstance(s, dict) else str(s) for s in skipped
            )
        else:
            text = str(skipped) if skipped is not True else "skipped"
        if text and text not in reasons:
            reasons.append(text)
    return reasons


def _find_key(obj, key: str):
    """First value of ``key`` anywhere in a nested dict/list (depth-first), or None."""
    if isinstance(obj, dict):
        if key in obj and not isinstance(obj[key], dict | list):
            return obj[key]
        for value in obj.values():
            found = _find_key(value, key)
            if found is not None:
                return found
    elif isinstance(obj, list):
        for value in obj:
            found = _find_key(value, key)
            if found is not None:
                return found
    return None


def experiment_config(experiment_dir: str | Path, key: str, runs: list[dict] | None = None):
    """A scalar setting found anywhere in the sidecars (config, spec, then the sidecar itself,
    e.g. the dataset's ``n_clusters``); the last run that has it wins."""
    runs = load_runs(experiment_dir) if runs is None else runs
    for run in reversed(runs):
        for where in (run.get("config"), run.get("spec"), run):
            value = _find_key(where, key)
            if value is not None:
                return value
    return None


def _last_config(runs: list[dict], key: str):
    """``config[key]`` of the last sidecar whose config has it, else None."""
    for run in reversed(runs):
        config = run.get("config")
        if isinstance(config, dict) and config.get(key) is not None:
            return config[key]
    return None


def preset_of(experiment_dir: str | Path, runs: list[dict] | None = None) -> dict:
    """The experiment's preset metadata: ``config.preset`` of the last sidecar that has one,
    completed with :data:`PRESET_DEFAULTS` (``title`` defaults to the folder's name).

    Keys: paper, title, figure, section, order, reproduce. A figure style or section this version
    does not know falls back to the default with a warning (the figure and report still draw).
    """
    name = Path(experiment_dir).name
    runs = load_runs(experiment_dir) if runs is None else runs
    given = _last_config(runs, "preset")
    preset = {**PRESET_DEFAULTS, "title": name}
    if isinstance(given, dict):
        preset.update({k: v for k, v in given.items() if v is not None})
    for key, valid in (("figure", FIGURE_STYLES), ("section", SECTIONS)):
        if preset[key] not in valid:
            warnings.warn(
                f"{name}: preset.{key} {preset[key]!r} is not one of {', '.join(valid)}; "
                f"using {PRESET_DEFAULTS[key]!r}",
                stacklevel=2,
            )
            preset[key] = PRESET_DEFAULTS[key]
    try:
        preset["order"] = float(preset["order"])
    except (TypeError, ValueError):
        preset["order"] = float(PRESET_DEFAULTS["order"])
    preset["title"] = str(preset["title"])
    return preset


def aggregation_of(experiment_dir: str | Path, runs: list[dict] | None = None) -> str:
    """``best`` (lowest-F trial, bmd09) or ``mean``: the last sidecar config's ``aggregation``,
    ``mean`` when no sidecar says."""
    runs = load_runs(experiment_dir) if runs is None else runs
    value = _last_config(runs, "aggregation")
    if isinstance(value, str) and value.lower() in ("best", "mean"):
        return value.lower()
    return "mean"


# --------------------------------------------------------------------------------------------
# completeness


def _resolve_unknown(expected: pd.DataFrame, cells: pd.DataFrame) -> pd.DataFrame:
    """Fill the identity columns a legacy sidecar left unknown from the cells of the same point.

    A legacy expected cell names only (dataset, reducer, r, repetition); it stands for the cells
    present at that (dataset, reducer, r) whatever their other settings (one row per setting
    found). With no matching cell its unknown columns stay <NA>.
    """
    optional = [c for c in KEY if c not in _CORE]
    unknown = expected[optional].isna()
    if not unknown.to_numpy().any() or not len(cells):
        return expected
    parts = [expected[~unknown.any(axis=1)]]
    for pattern, group in expected[unknown.any(axis=1)].groupby(
        [unknown[c] for c in optional], sort=False
    ):
        fill = [c for c, is_na in zip(optional, pattern, strict=True) if is_na]
        on = [c for c in POINT if c not in fill]
        candidates = cells[on + fill].drop_duplicates()
        parts.append(group.drop(columns=fill).merge(candidates, on=on, how="left")[group.columns])
    return pd.concat(parts, ignore_index=True).drop_duplicates(KEY)


def _infer_expected(cells: pd.DataFrame) -> pd.DataFrame:
    """Without any sidecar: per setting, every point seen times every repetition seen."""
    parts = []
    for _setting, group in cells.groupby(list(SETTING_COLUMNS), dropna=False, sort=False):
        points = group[[*POINT, "method"]].drop_duplicates(POINT)
        reps = pd.DataFrame({"repetition": sorted(group["repetition"].dropna().unique())})
        parts.append(points.merge(reps, how="cross"))
    return _typed(pd.concat(parts, ignore_index=True), KEY)[[*KEY, "method"]]


def _keys(cells: pd.DataFrame, expected: pd.DataFrame) -> tuple[pd.DataFrame, bool]:
    """Every cell counted: the sidecars' expected cells united with the cells present, with a
    ``done`` flag; and whether the expected grid came from sidecars."""
    from_sidecars = len(expected) > 0
    if from_sidecars:
        expected = _resolve_unknown(expected, cells)
    elif len(cells):
        expected = _infer_expected(cells)
    done = cells[[*KEY, "method"]].assign(done=True)
    # the cells' own labels first: a label changed since the sidecar was written is the new one
    keys = pd.concat([done, expected.assign(done=False)], ignore_index=True)
    keys = keys.sort_values("done", ascending=False, kind="stable").drop_duplicates(KEY)
    return keys.reset_index(drop=True), from_sidecars


def completeness(experiment_dir: str | Path) -> pd.DataFrame:
    """Per point (:data:`POINT` and its ``method``): n_cells, n_expected, complete, missing
    repetitions, and ``setting`` when several settings are present.

    ``n_expected`` counts the union of the sidecars' expected cells (and any cell present); an
    interrupted sweep therefore shows ``complete == False`` on the points it did not finish,
    including points with no cell at all (n_cells = 0). ``expected_from`` says whether the expected
    grid came from the sidecars or was inferred from the cells (no sidecar found).
    """
    exp_dir = Path(experiment_dir)
    return _completeness(load_cells(exp_dir), load_expected(exp_dir))


def _completeness(cells: pd.DataFrame, expected: pd.DataFrame) -> pd.DataFrame:
    keys, from_sidecars = _keys(cells, expected)
    cols = [*POINT, "method", "n_cells", "n_expected", "complete", "missing_repetitions"]
    if not len(keys):
        return _typed(pd.DataFrame(columns=[*cols, "expected_from"]), POINT)
    rows = []
    for point, group in keys.groupby(POINT, dropna=False, sort=True):
        missing = sorted(int(x) for x in group.loc[~group["done"], "repetition"])
        n_cells, n_expected = int(group["done"].sum()), len(group)
        labels = group.loc[group["method"].notna(), "method"]
        method = str(labels.iloc[0]) if len(labels) else str(point[POINT.index("reducer")])
        missing_text = " ".join(map(str, missing))
        rows.append([*point, method, n_cells, n_expected, n_cells >= n_expected, missing_text])
    out = _typed(pd.DataFrame(rows, columns=cols), POINT)
    out["expected_from"] = "sidecars" if from_sidecars else "inferred"
    labels = setting_labels(out)
    if labels is not None:
        out.insert(0, "setting", labels)
    return out


# --------------------------------------------------------------------------------------------
# summary


def summarize(experiment_dir: str | Path, aggregation: str | None = None) -> pd.DataFrame:
    """The summary table (as written to summary.csv), computed from the cells and sidecars.

    One row per point (:data:`POINT`): ``setting`` (only when several settings are present),
    ``method``, ``aggregation``, ``n_cells``, ``n_expected``, ``complete``, ``<m>_mean|std|min|max``
    for each metric (std: sample std over repetitions, ddof = 1, NaN for a single cell) and, with
    aggregation ``best``, ``best_repetition`` and ``best_<m>``: the trial with the lowest objective
    (ties: lowest repetition).
    """
    exp_dir = Path(experiment_dir)
    runs = load_runs(exp_dir)
    cells = load_cells(exp_dir)
    aggregation = aggregation or aggregation_of(exp_dir, runs)
    comp = _completeness(cells, load_expected(exp_dir, runs))
    return _summarize(exp_dir.name, cells, comp, aggregation)


def _summarize(
    experiment: str, cells: pd.DataFrame, comp: pd.DataFrame, aggregation: str
) -> pd.DataFrame:
    metrics = [m for m in METRICS if m in cells.columns]
    stat_cols = [f"{m}_{s}" for m in metrics for s in _STATS]
    best_cols = (
        ["best_repetition", *[f"best_{m}" for m in metrics]] if aggregation == "best" else []
    )
    extra = [c for c in ("n_samples", "n_features", "n_clusters") if c in cells.columns]
    setting = ["setting"] if "setting" in comp.columns else []
    head = [
        "experiment", *setting, "dataset", "reducer", "reducer_name", "method", "r",
        *[c for c in POINT if c not in ("dataset", "reducer", "reducer_name", "r")],
        "aggregation", "n_cells", "n_expected", "complete",
    ]  # fmt: skip
    columns = head + extra + stat_cols + best_cols
    if not len(comp):
        return _typed(pd.DataFrame(columns=columns), POINT)
    out = comp[[*setting, *POINT, "method", "n_cells", "n_expected", "complete"]].copy()
    out["experiment"] = experiment
    out["aggregation"] = aggregation
    if len(cells) and metrics:
        num = cells.copy()
        for m in metrics:
            num[m] = pd.to_numeric(num[m], errors="coerce")
        group = num.groupby(POINT, dropna=False, sort=True)
        stats = group[metrics].agg(list(_STATS))
        stats.columns = [f"{m}_{s}" for m, s in stats.columns]
        if extra:
            stats = stats.join(group[extra].first())
        if best_cols:
            order = num.sort_values(["objective", "repetition"], kind="stable", na_position="last")
            best = order.groupby(POINT, dropna=False, sort=True).head(1)
            best = best.set_index(POINT)[["repetition", *metrics]]
            best.columns = ["best_repetition", *[f"best_{m}" for m in metrics]]
            stats = stats.join(best)
        out = out.merge(stats.reset_index(), on=POINT, how="left")
    for col in columns:
        if col not in out.columns:
            out[col] = np.nan
    out = out[columns]
    if "best_repetition" in out.columns:
        out["best_repetition"] = out["best_repetition"].astype("Int64")
    return out.reset_index(drop=True)


def load_summary(experiment_dir: str | Path, recompute: bool = False) -> pd.DataFrame:
    """``summary.csv`` of an experiment; recomputed from the cells if absent or ``recompute``."""
    path = Path(experiment_dir) / "summary.csv"
    summary = read_csv(path) if path.exists() and not recompute else pd.DataFrame()
    if not len(summary) or any(c not in summary.columns for c in POINT):
        return summarize(experiment_dir)  # absent, or written before points had every column
    summary = _typed(summary, POINT)
    if "complete" in summary.columns:
        summary["complete"] = summary["complete"].astype(str).str.lower().eq("true")
    return summary


# --------------------------------------------------------------------------------------------
# bmd09 Table 1


def _table1_column(r: int, k: float, is_none: bool) -> str | None:
    if is_none:
        return "All"
    if not k or math.isnan(k):
        return None
    for label, mult in BMD09_TABLE1_R_OVER_K.items():
        if int(r) == round(mult * k):
            return label
    return None


def table1(summary: pd.DataFrame) -> pd.DataFrame:
    """bmd09 Table 1 in long form: per dataset (and setting), method and column (5k, 10k, 20k, All).

    Ours are the P and F of the lowest-F trial (``best_accuracy``, ``best_objective``; the mean
    when the summary was aggregated by mean); the published values come from
    :mod:`kmdr.experiments.published`. ``All`` is the baseline row (``reducer_name == "none"``,
    whatever its label), shared by every method of a dataset: it is repeated under each method
    with its own reducer and r (= d), so (dataset, reducer, r) always names the summary point
    behind a row. Columns: dataset, [setting,] method, reducer, column, r, P_ours, F_ours,
    P_published, F_published, n_cells, n_expected, complete, best_repetition.
    """
    setting = ["setting"] if "setting" in summary.columns else []
    cols = [
        "dataset", *setting, "method", "reducer", "column", "r", "P_ours", "F_ours",
        "P_published", "F_published", "n_cells", "n_expected", "complete", "best_repetition",
    ]  # fmt: skip
    if not len(summary):
        return pd.DataFrame(columns=cols)
    p_col = "best_accuracy" if "best_accuracy" in summary.columns else "accuracy_mean"
    f_col = "best_objective" if "best_objective" in summary.columns else "objective_mean"
    summary = summary.assign(_none=is_baseline(summary))
    rows = []
    for group_key, ds in summary.groupby(["dataset", *setting], sort=True, dropna=False):
        dataset = group_key[0]
        ks = ds["n_clusters"].dropna() if "n_clusters" in ds.columns else pd.Series(dtype=float)
        k = float(ks.iloc[0]) if len(ks) else float("nan")
        published = BMD09_TABLE1.get(str(dataset).lower(), {})
        none_rows = ds[ds["_none"]]
        for (_reducer, method), group in ds[~ds["_none"]].groupby(["reducer", "method"], sort=True):
            for _, row in pd.concat([group, none_rows]).iterrows():
                column = _table1_column(int(row["r"]), k, bool(row["_none"]))
                if column is None:
                    continue
                pub = published.get(column, (np.nan, np.nan))
                rows.append(
                    {
                        "dataset": dataset,
                        **({"setting": group_key[1]} if setting else {}),
                        "method": method,
                        # the row's own reducer: the baseline's for All, a point every method shares
                        "reducer": row["reducer"],
                        "column": column,
                        "r": int(row["r"]),
                        "P_ours": row[p_col],
                        "F_ours": row[f_col],
                        "P_published": pub[0],
                        "F_published": pub[1],
                        "n_cells": int(row["n_cells"]),
                        "n_expected": int(row["n_expected"]),
                        "complete": bool(row["complete"]),
                        "best_repetition": row.get("best_repetition", pd.NA),
                    }
                )
    out = pd.DataFrame(rows, columns=cols)
    order = {c: i for i, c in enumerate(BMD09_TABLE1_COLUMNS)}
    ds_order = list(BMD09_TABLE1)
    out["_o"] = out["column"].map(order)
    out["_d"] = [ds_order.index(d.lower()) if d.lower() in ds_order else 99 for d in out["dataset"]]
    out["_m"] = [sort_key(m)[0] for m in out["method"]]
    out = out.sort_values(["_d", "dataset", *setting, "_m", "method", "_o"])
    return out.drop(columns=["_o", "_d", "_m"]).reset_index(drop=True)


def _fmt(x, complete: bool = True) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)) or x is pd.NA:
        return "—"
    text = f"{float(x):.3f}"
    return text if complete else text + "*"


def table1_markdown(table: pd.DataFrame, experiment: str = "bmd09_table1") -> str:
    """Table 1 as Markdown, laid out like the paper: ours per method, then the published row."""
    lines = [
        f"# bmd09 Table 1: ours beside the published numbers ({experiment})",
        "",
        "P = accuracy (Hungarian matching), F = ||A - X X^T A||_F^2 / ||A||_F^2 on the original A. "
        "Ours: the trial with the lowest F among the repetitions (the paper kept the best of 30). "
        "Published: bmd09 Table 1 (leverage-score sampling). All = k-means on all features.",
        "",
    ]
    header = (
        "| dataset | rows | " + " | ".join(f"{c} P | {c} F" for c in BMD09_TABLE1_COLUMNS) + " |"
    )
    sep = "|---|---|" + "---|---|" * len(BMD09_TABLE1_COLUMNS)
    lines += [header, sep]
    any_incomplete = False
    missing_note = False
    setting = ["setting"] if "setting" in table.columns else []
    # table1() orders the datasets as the paper does
    for group_key, ds in table.groupby(["dataset", *setting], sort=False, dropna=False):
        dataset = group_key[0]
        name = BMD09_TABLE1_NAMES.get(str(dataset).lower(), str(dataset))
        label = f"{name}, {group_key[1]}" if setting else name
        for method, group in ds.groupby("method", sort=False):
            cells = []
            for column in BMD09_TABLE1_COLUMNS:
                hit = group[group["column"] == column]
                if not len(hit):
                    cells += ["—", "—"]
                    missing_note = True
                    continue
                row = hit.iloc[0]
                any_incomplete |= not row["complete"]
                cells += [
                    _fmt(row["P_ours"], row["complete"]),
                    _fmt(row["F_ours"], row["complete"]),
                ]
            lines.append(f"| {label} | ours, {method} | " + " | ".join(cells) + " |")
        published = BMD09_TABLE1.get(str(dataset).lower())
        if published:
            cells = []
            for column in BMD09_TABLE1_COLUMNS:
                p, f = published[column]
                cells += [_fmt(p), _fmt(f)]
            lines.append(f"| {label} | published (bmd09) | " + " | ".join(cells) + " |")
    # datasets with published numbers but no run of ours
    for dataset, published in BMD09_TABLE1.items():
        if dataset in set(table["dataset"].astype(str).str.lower()):
            continue
        name = BMD09_TABLE1_NAMES.get(dataset, dataset)
        lines.append(f"| {name} | ours | " + " | ".join(["not run"] * 2 * len(published)) + " |")
        cells = [_fmt(v) for column in BMD09_TABLE1_COLUMNS for v in published[column]]
        lines.append(f"| {name} | published (bmd09) | " + " | ".join(cells) + " |")
    lines.append("")
    if len(table):
        counts = table.drop_duplicates(["dataset", *setting, "reducer", "r"])
        lines.append(
            f"Cells behind our numbers: {int(counts['n_cells'].sum())} of "
            f"{int(counts['n_expected'].sum())} expected (trials per entry: "
            + ", ".join(sorted({f"{int(n)}" for n in counts["n_expected"]}))
            + ")."
        )
    if any_incomplete:
        lines.append(
            "\\* incomplete: this entry rests on fewer trials than expected (an interrupted or "
            "partial run); its best-of-trials value is not final."
        )
    if missing_note:
        lines.append("— : no cell for this entry.")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# writer


def write_summaries(experiment_dir: str | Path) -> list[Path]:
    """Write ``summary.csv`` (and, when the preset's figure is ``bmd09_table1``, ``table1.csv``
    and ``table1.md``) from the CSVs.

    Returns the paths written; nothing is written (and [] returned) for a folder with no cells.
    """
    exp_dir = Path(experiment_dir)
    runs = load_runs(exp_dir)
    summary = summarize(exp_dir)
    if not len(summary) or int(summary["n_cells"].sum()) == 0:
        return []
    written = [_write_csv(summary, exp_dir / "summary.csv")]
    if preset_of(exp_dir, runs)["figure"] == "bmd09_table1":
        table = table1(summary)
        written.append(_write_csv(table, exp_dir / "table1.csv"))
        path = exp_dir / "table1.md"
        atomic_write_text(path, table1_markdown(table, exp_dir.name))
        written.append(path)
    return written


def _write_csv(frame: pd.DataFrame, path: Path) -> Path:
    atomic_write_text(path, frame.to_csv(index=False, float_format="%.10g"))
    return path


def experiment_dirs(results_dir: str | Path, names: Iterable[str] | None = None) -> list[Path]:
    """Experiment folders under ``results_dir`` (holding cells*.csv, runs/ or leverage scores)."""
    root = Path(results_dir)
    if not root.is_dir():
        return []
    candidates = (
        [root / n for n in names] if names else sorted(p for p in root.iterdir() if p.is_dir())
    )
    return [
        p
        for p in candidates
        if p.is_dir()
        and (
            any(p.glob("cells*.csv"))
            or (p / "runs").is_dir()
            or (p / "leverage_scores.csv").exists()
        )
    ]
