"""Aggregate an experiment's cells into the tables docs/results-layout.md describes.

Everything here reads only ``results/<experiment>/cells*.csv`` and ``runs/*.json``, so the
aggregates can be rebuilt from the CSVs alone (``make figures``), with cells from several runs,
multirun jobs or machines dropped into one folder.

Public readers (used by the figures and the report):

- :func:`load_cells` - all cells, duplicates of a cell key dropped (the last file wins);
- :func:`load_runs` / :func:`load_expected` - the sidecars and the union of their expected cells;
- :func:`summarize` / :func:`load_summary` - one row per (dataset, reducer, method, r);
- :func:`completeness` - per point, how many cells it rests on and which repetitions are missing;
- :func:`table1` - bmd09 Table 1, ours beside the published numbers.

:func:`write_summaries` writes ``summary.csv`` (and ``table1.csv``/``table1.md`` for
bmd09_table1); the runner calls it at the end of a run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr.experiments._plot_style import sort_key
from kmdr.experiments.published import (
    BMD09_TABLE1,
    BMD09_TABLE1_COLUMNS,
    BMD09_TABLE1_NAMES,
    BMD09_TABLE1_R_OVER_K,
)

__all__ = [
    "KEY",
    "METRICS",
    "POINT",
    "aggregation_of",
    "completeness",
    "experiment_config",
    "load_cells",
    "load_expected",
    "load_runs",
    "load_summary",
    "skip_reasons",
    "summarize",
    "table1",
    "table1_markdown",
    "write_summaries",
]

#: A cell's key: one row of cells.csv per key.
KEY: list[str] = ["dataset", "reducer", "r", "repetition"]
#: A point of a figure / row of summary.csv.
POINT: list[str] = ["dataset", "reducer", "method", "r"]
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
_STATS = ("mean", "std", "min", "max")
# Sidecar keys that may hold the expected cells (the layout names them "the expected cells").
_EXPECTED_KEYS = ("expected_cells", "expected", "cells_expected")


# --------------------------------------------------------------------------------------------
# readers


def _experiment_dir(experiment_dir: str | Path) -> Path:
    return Path(experiment_dir)


def _read_csv(path: Path) -> pd.DataFrame:
    try:
        return pd.read_csv(path)
    except pd.errors.EmptyDataError:  # a zero-byte file left by a run that wrote nothing
        return pd.DataFrame()


def load_cells(experiment_dir: str | Path) -> pd.DataFrame:
    """All cells of an experiment: every ``cells*.csv`` read together, in file-name order.

    Duplicates of a cell key (dataset, reducer, r, repetition) are dropped, keeping the last one
    read (so ``cells_<later run>.csv`` overrides ``cells.csv``). Returns an empty frame with the key
    columns when there are no cells. An ``experiment`` column is filled from the folder name when
    the CSV lacks it.
    """
    exp_dir = _experiment_dir(experiment_dir)
    frames = [_read_csv(p) for p in sorted(exp_dir.glob("cells*.csv"))]
    frames = [f for f in frames if len(f)]
    if not frames:
        return pd.DataFrame(columns=["experiment", *KEY])
    cells = pd.concat(frames, ignore_index=True)
    missing = [c for c in KEY if c not in cells.columns]
    if missing:
        raise ValueError(f"{exp_dir}: cells*.csv lack the key column(s) {missing}")
    if "experiment" not in cells.columns:
        cells.insert(0, "experiment", exp_dir.name)
    cells["experiment"] = cells["experiment"].fillna(exp_dir.name)
    cells["r"] = cells["r"].astype("int64")
    cells["repetition"] = cells["repetition"].astype("int64")
    for col in ("dataset", "reducer"):
        cells[col] = cells[col].astype(str)
    if "method" not in cells.columns:
        cells["method"] = cells["reducer"]
    cells["method"] = cells["method"].fillna(cells["reducer"]).astype(str)
    cells = cells.drop_duplicates(subset=KEY, keep="last")
    return cells.sort_values(KEY, kind="stable").reset_index(drop=True)


def load_runs(experiment_dir: str | Path) -> list[dict]:
    """The sidecars ``runs/*.json`` (unreadable files are skipped), in file-name order."""
    runs = []
    for path in sorted((_experiment_dir(experiment_dir) / "runs").glob("*.json")):
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
    """Union over all sidecars of their expected cells (dataset, reducer, r, repetition)."""
    runs = load_runs(experiment_dir) if runs is None else runs
    rows = [c for run in runs for c in _expected_list(run) if isinstance(c, dict)]
    if not rows:
        return pd.DataFrame(columns=KEY)
    exp = pd.DataFrame(rows)
    if any(c not in exp.columns for c in KEY):
        return pd.DataFrame(columns=KEY)
    exp = exp[KEY].dropna()
    exp = exp.astype({"dataset": str, "reducer": str, "r": "int64", "repetition": "int64"})
    return exp.drop_duplicates().sort_values(KEY).reset_index(drop=True)


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
    """A setting (``aggregation``, ``figure_style``) from the sidecars' configs; last wins."""
    runs = load_runs(experiment_dir) if runs is None else runs
    for run in reversed(runs):
        for where in (run.get("config"), run.get("spec"), run):
            value = _find_key(where, key)
            if value is not None:
                break
        if value is not None:
            return value
    return None


def aggregation_of(experiment_dir: str | Path, runs: list[dict] | None = None) -> str:
    """``best`` (lowest-F trial, bmd09) or ``mean``: from the sidecar config, else the name."""
    value = experiment_config(experiment_dir, "aggregation", runs)
    if isinstance(value, str) and value.lower() in ("best", "mean"):
        return value.lower()
    return "best" if _experiment_dir(experiment_dir).name.startswith("bmd09") else "mean"


# --------------------------------------------------------------------------------------------
# aggregation


def _expected_with_done(cells: pd.DataFrame, expected: pd.DataFrame) -> tuple[pd.DataFrame, bool]:
    """Expected keys = sidecars' expected cells united with the cells present.

    Without any sidecar the expected grid is inferred per dataset: every (reducer, r) seen times
    every repetition seen for that dataset, so a hole in the grid still shows. Returns the keys
    and whether they came from sidecars.
    """
    done = cells[KEY] if len(cells) else pd.DataFrame(columns=KEY)
    from_sidecars = len(expected) > 0
    if not from_sidecars and len(done):
        parts = []
        for _dataset, group in done.groupby("dataset", sort=False):
            points = group[["dataset", "reducer", "r"]].drop_duplicates()
            reps = pd.DataFrame({"repetition": sorted(group["repetition"].unique())})
            parts.append(points.merge(reps, how="cross"))
        expected = pd.concat(parts, ignore_index=True)
    keys = pd.concat([expected[KEY], done], ignore_index=True).drop_duplicates()
    keys = keys.astype({"dataset": str, "reducer": str, "r": "int64", "repetition": "int64"})
    return keys.reset_index(drop=True), from_sidecars


def _method_of(cells: pd.DataFrame) -> dict[str, str]:
    if not len(cells):
        return {}
    return cells.drop_duplicates("reducer", keep="last").set_index("reducer")["method"].to_dict()


def completeness(experiment_dir: str | Path) -> pd.DataFrame:
    """Per point (dataset, reducer, method, r): n_cells, n_expected, complete, missing repetitions.

    ``n_expected`` counts the union of the sidecars' expected cells (and any cell present); an
    interrupted sweep therefore shows ``complete == False`` on the points it did not finish,
    including points with no cell at all (n_cells = 0). ``expected_from`` says whether the expected
    grid came from the sidecars or was inferred from the cells (no sidecar found).
    """
    exp_dir = _experiment_dir(experiment_dir)
    cells = load_cells(exp_dir)
    return _completeness(cells, load_expected(exp_dir))


def _completeness(cells: pd.DataFrame, expected: pd.DataFrame) -> pd.DataFrame:
    keys, from_sidecars = _expected_with_done(cells, expected)
    cols = [*POINT, "n_cells", "n_expected", "complete", "missing_repetitions", "expected_from"]
    if not len(keys):
        return pd.DataFrame(columns=cols)
    done = set(map(tuple, cells[KEY].itertuples(index=False))) if len(cells) else set()
    keys = keys.copy()
    keys["done"] = [tuple(k) in done for k in keys[KEY].itertuples(index=False)]
    methods = _method_of(cells)
    rows = []
    for (dataset, reducer, r), group in keys.groupby(["dataset", "reducer", "r"], sort=True):
        missing = sorted(int(x) for x in group.loc[~group["done"], "repetition"])
        n_cells, n_expected = int(group["done"].sum()), len(group)
        rows.append(
            {
                "dataset": dataset,
                "reducer": reducer,
                "method": methods.get(reducer, reducer),
                "r": int(r),
                "n_cells": n_cells,
                "n_expected": n_expected,
                "complete": n_cells >= n_expected,
                "missing_repetitions": " ".join(map(str, missing)),
                "expected_from": "sidecars" if from_sidecars else "inferred",
            }
        )
    return pd.DataFrame(rows, columns=cols)


def summarize(experiment_dir: str | Path, aggregation: str | None = None) -> pd.DataFrame:
    """The summary table (as written to summary.csv), computed from the cells and sidecars.

    One row per (dataset, reducer, method, r): ``aggregation``, ``n_cells``, ``n_expected``,
    ``complete``, ``<m>_mean|std|min|max`` for each metric (std: sample std over repetitions,
    ddof = 1, NaN for a single cell) and, with aggregation ``best``, ``best_repetition`` and
    ``best_<m>``: the trial with the lowest objective (ties: lowest repetition).
    """
    exp_dir = _experiment_dir(experiment_dir)
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
    head = ["experiment", *POINT, "aggregation", "n_cells", "n_expected", "complete"]
    columns = head + extra + stat_cols + best_cols
    if not len(comp):
        return pd.DataFrame(columns=columns)
    out = comp[[*POINT, "n_cells", "n_expected", "complete"]].copy()
    out.insert(0, "experiment", experiment)
    out.insert(5, "aggregation", aggregation)
    if len(cells) and metrics:
        num = cells.copy()
        for m in metrics:
            num[m] = pd.to_numeric(num[m], errors="coerce")
        group = num.groupby(["dataset", "reducer", "r"], sort=True)
        stats = group[metrics].agg(list(_STATS))
        stats.columns = [f"{m}_{s}" for m, s in stats.columns]
        if extra:
            stats = stats.join(group[extra].first())
        if best_cols:
            order = num.sort_values(["objective", "repetition"], kind="stable", na_position="last")
            best = order.groupby(["dataset", "reducer", "r"], sort=True).head(1)
            best = best.set_index(["dataset", "reducer", "r"])[["repetition", *metrics]]
            best.columns = ["best_repetition", *[f"best_{m}" for m in metrics]]
            stats = stats.join(best)
        out = out.merge(stats.reset_index(), on=["dataset", "reducer", "r"], how="left")
    for col in columns:
        if col not in out.columns:
            out[col] = np.nan
    out = out[columns]
    if "best_repetition" in out.columns:
        out["best_repetition"] = out["best_repetition"].astype("Int64")
    return out.reset_index(drop=True)


def load_summary(experiment_dir: str | Path, recompute: bool = False) -> pd.DataFrame:
    """``summary.csv`` of an experiment; recomputed from the cells if absent or ``recompute``."""
    path = _experiment_dir(experiment_dir) / "summary.csv"
    if recompute or not path.exists():
        return summarize(experiment_dir)
    summary = pd.read_csv(path)
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
    """bmd09 Table 1 in long form: per dataset, method and column (5k, 10k, 20k, All).

    Ours are the P and F of the lowest-F trial (``best_accuracy``, ``best_objective``; the mean
    when the summary was aggregated by mean); the published values come from
    :mod:`kmdr.experiments.published`. ``All`` is the kMeans (reducer ``none``) row, shared by every
    method of a dataset: it is repeated under each method with its own reducer (``none``) and r
    (= d), so (dataset, reducer, r) always names the summary point behind a row. Columns:
    dataset, method, reducer, column, r, P_ours, F_ours, P_published, F_published, n_cells,
    n_expected, complete, best_repetition.
    """
    cols = [
        "dataset", "method", "reducer", "column", "r", "P_ours", "F_ours",
        "P_published", "F_published", "n_cells", "n_expected", "complete", "best_repetition",
    ]  # fmt: skip
    if not len(summary):
        return pd.DataFrame(columns=cols)
    p_col = "best_accuracy" if "best_accuracy" in summary.columns else "accuracy_mean"
    f_col = "best_objective" if "best_objective" in summary.columns else "objective_mean"
    summary = summary.assign(_none=_is_none(summary))
    rows = []
    for dataset, ds in summary.groupby("dataset", sort=True):
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
                        "method": method,
                        # the row's own reducer: "none" for All, whose point every method shares
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
    out = out.sort_values(["_d", "dataset", "_m", "method", "_o"])
    return out.drop(columns=["_o", "_d", "_m"]).reset_index(drop=True)


def _is_none(frame: pd.DataFrame) -> pd.Series:
    """Rows of the no-reduction baseline (reducer ``none`` / method ``kMeans``)."""
    reducer = frame["reducer"].astype(str).str.lower()
    method = frame["method"].astype(str).str.lower().str.replace("-", "", regex=False)
    return reducer.isin(["none", "kmeans"]) | method.eq("kmeans")


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
    datasets = list(dict.fromkeys(table["dataset"]))  # table1() orders them as the paper does
    for dataset in datasets:
        ds = table[table["dataset"] == dataset]
        name = BMD09_TABLE1_NAMES.get(str(dataset).lower(), str(dataset))
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
            lines.append(f"| {name} | ours, {method} | " + " | ".join(cells) + " |")
        published = BMD09_TABLE1.get(str(dataset).lower())
        if published:
            cells = []
            for column in BMD09_TABLE1_COLUMNS:
                p, f = published[column]
                cells += [_fmt(p), _fmt(f)]
            lines.append(f"| {name} | published (bmd09) | " + " | ".join(cells) + " |")
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
        counts = table.drop_duplicates(["dataset", "reducer", "r"])
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
    """Write ``summary.csv`` (and for bmd09_table1 ``table1.csv``, ``table1.md``) from the CSVs.

    Returns the paths written; nothing is written (and [] returned) for a folder with no cells.
    """
    exp_dir = _experiment_dir(experiment_dir)
    summary = summarize(exp_dir)
    if not len(summary) or int(summary["n_cells"].sum()) == 0:
        return []
    written = [_write_csv(summary, exp_dir / "summary.csv")]
    if _is_table1(exp_dir):
        table = table1(summary)
        written.append(_write_csv(table, exp_dir / "table1.csv"))
        path = exp_dir / "table1.md"
        _atomic_write(path, table1_markdown(table, exp_dir.name))
        written.append(path)
    return written


def _is_table1(exp_dir: Path) -> bool:
    style = experiment_config(exp_dir, "figure_style")
    return exp_dir.name.startswith("bmd09_table1") or style == "bmd09_table1"


def _write_csv(frame: pd.DataFrame, path: Path) -> Path:
    _atomic_write(path, frame.to_csv(index=False, float_format="%.10g"))
    return path


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    tmp.replace(path)


def experiment_dirs(results_dir: str | Path, names: Iterable[str] | None = None) -> list[Path]:
    """Experiment folders under ``results_dir`` (holding cells*.csv, runs/ or leverage scores)."""
    root = Path(results_dir)
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
