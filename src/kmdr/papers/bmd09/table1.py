"""bmd09 Table 1 from an experiment's summary: ours (the lowest-F trial) beside the published P
and F, as a long table (table1.csv) and laid out like the paper (table1.md); written beside
``summary.csv`` by the ``bmd09_table1`` figure style (:func:`write_table1`)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr._io import atomic_write_text
from kmdr.figures.appearance import sort_key
from kmdr.papers.published import (
    BMD09_TABLE1,
    BMD09_TABLE1_COLUMNS,
    BMD09_TABLE1_NAMES,
    BMD09_TABLE1_R_OVER_K,
)
from kmdr.report._text import md_table
from kmdr.results.reading import is_baseline

__all__ = ["table1", "table1_markdown", "write_table1"]


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
    :mod:`kmdr.papers.published`. ``All`` is the baseline row (``reducer_name == "none"``,
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
            reducer_name = group["reducer_name"].iloc[0] if "reducer_name" in group else None
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
                        "_rn": reducer_name,
                    }
                )
    out = pd.DataFrame(rows, columns=[*cols, "_rn"])
    order = {c: i for i, c in enumerate(BMD09_TABLE1_COLUMNS)}
    ds_order = list(BMD09_TABLE1)
    out["_o"] = out["column"].map(order)
    out["_d"] = [ds_order.index(d.lower()) if d.lower() in ds_order else 99 for d in out["dataset"]]
    out["_m"] = [sort_key(n, m)[0] for n, m in zip(out["_rn"], out["method"], strict=True)]
    out = out.sort_values(["_d", "dataset", *setting, "_m", "method", "_o"])
    return out.drop(columns=["_o", "_d", "_m", "_rn"]).reset_index(drop=True)


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
    header = ["dataset", "rows", *(f"{c} {m}" for c in BMD09_TABLE1_COLUMNS for m in "PF")]
    rows: list[list[str]] = []
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
            rows.append([label, f"ours, {method}", *cells])
        published = BMD09_TABLE1.get(str(dataset).lower())
        if published:
            cells = []
            for column in BMD09_TABLE1_COLUMNS:
                p, f = published[column]
                cells += [_fmt(p), _fmt(f)]
            rows.append([label, "published (bmd09)", *cells])
    # datasets with published numbers but no run of ours
    for dataset, published in BMD09_TABLE1.items():
        if dataset in set(table["dataset"].astype(str).str.lower()):
            continue
        name = BMD09_TABLE1_NAMES.get(dataset, dataset)
        rows.append([name, "ours", *(["not run"] * 2 * len(published))])
        cells = [_fmt(v) for column in BMD09_TABLE1_COLUMNS for v in published[column]]
        rows.append([name, "published (bmd09)", *cells])
    lines += [md_table(header, rows), ""]
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


def write_table1(exp_dir: Path, summary: pd.DataFrame) -> list[Path]:
    """Write ``table1.csv`` and ``table1.md`` beside the experiment's ``summary.csv``."""
    table = table1(summary)
    csv_path, md_path = exp_dir / "table1.csv", exp_dir / "table1.md"
    atomic_write_text(csv_path, table.to_csv(index=False, float_format="%.10g"))
    atomic_write_text(md_path, table1_markdown(table, exp_dir.name))
    return [csv_path, md_path]
