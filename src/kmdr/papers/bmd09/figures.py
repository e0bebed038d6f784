"""bmd09's two figures, drawn from an experiment's files: Figure 1 (the leverage scores of every
term, one sample highlighted, the top terms named) and Table 1 as bars (ours beside the
published P and F); the styles that draw them are declared in :mod:`kmdr.papers.bmd09.styles`."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.patches import Patch

from kmdr._io import read_csv
from kmdr.figures import appearance
from kmdr.papers.bmd09.table1 import table1
from kmdr.papers.published import (
    BMD09_FIG1_TERMS,
    BMD09_TABLE1,
    BMD09_TABLE1_COLUMNS,
    BMD09_TABLE1_NAMES,
)
from kmdr.results.reading import is_baseline
from kmdr.results.runs import experiment_config

__all__ = ["draw_fig1", "draw_table1"]


def draw_fig1(exp_dir: Path, n_named: int = 11):
    """bmd09 Figure 1 from ``leverage_scores.csv`` (None without it), the top terms named."""
    path = exp_dir / "leverage_scores.csv"
    if not path.exists():
        return None
    scores = read_csv(path, keep_default_na=False)  # terms such as "null" stay words
    if not len(scores):
        return None
    scores["times_drawn"] = scores.get("times_drawn", 0)
    scores["times_drawn"] = scores["times_drawn"].fillna(0).astype(int)
    x = np.arange(1, len(scores) + 1)
    # The normalized scores p_i = ||(V_k)_(i)||^2 / k (summing to 1), as bmd09 Figure 1 plots
    # them and the y label says; ``score`` itself sums to k.
    if "probability" in scores.columns:
        y = scores["probability"].to_numpy(float)
    else:
        y = scores["score"].to_numpy(float) / scores["score"].sum()
    drawn = scores["times_drawn"].to_numpy() > 0
    r = int(scores["times_drawn"].sum())
    fig, ax = plt.subplots(figsize=(10, 5), layout="constrained")
    ax.vlines(x, 0, y, color="#1f77b4", lw=0.6, alpha=0.8)
    ax.plot([], [], color="#1f77b4", lw=1.2, label=f"all leverage scores ({len(scores)} terms)")
    ax.plot(x[drawn], y[drawn], ls="none", marker="o", ms=6, mfc="none", mec="#d62728", mew=1.3,
            label=f"terms drawn ({int(drawn.sum())} distinct in {r} draws)")  # fmt: skip
    top = scores.assign(x=x, score=y).nlargest(n_named, "score")
    paper_terms = {t.lower() for t in BMD09_FIG1_TERMS}
    _annotate_terms(ax, top, paper_terms)
    hits = sum(str(t).lower() in paper_terms for t in top["term"])
    ax.set_xlabel("features (term index)")
    ax.set_ylabel(r"leverage score $p_i = \|(V_k)_{(i)}\|_2^2\,/\,k$")
    ax.set_xlim(0, len(scores) + 1)
    ax.set_ylim(0, y.max() * 1.25)
    ax.legend(loc="upper left", frameon=False)
    dataset = experiment_config(exp_dir, "dataset")
    dataset = appearance.dataset_label(dataset if isinstance(dataset, str) else "nips")
    k = experiment_config(exp_dir, "n_clusters")
    sample = f"r = {r}" + (f" = {r / k:g}k" if isinstance(k, int) and k > 0 else "")
    ax.set_title(
        f"{dataset}: leverage scores of all {len(scores)} terms, one sample of {sample} "
        f"highlighted;\nthe top {n_named} terms named (bold: also named in bmd09 Fig. 1, "
        f"{hits}/{len(BMD09_FIG1_TERMS)})"
    )
    return fig


def _annotate_terms(ax, top: pd.DataFrame, paper_terms: set[str]) -> None:
    """Name the top terms, stacking labels that would overlap (a greedy placement)."""
    ymax = float(top["score"].max())
    xspan = ax.get_xlim()[1] - ax.get_xlim()[0] if ax.get_xlim()[1] > 1 else len(top)
    placed: list[tuple[float, float, float]] = []  # (x, y, half-width) in data units
    for _, t in top.sort_values("score", ascending=False).iterrows():
        name = str(t["term"])
        half = 0.0085 * max(len(name), 4) * xspan / 2
        ty = t["score"] + 0.04 * ymax
        while any(abs(px - t["x"]) < half + ph and abs(py - ty) < 0.055 * ymax
                  for px, py, ph in placed):  # fmt: skip
            ty += 0.06 * ymax
        placed.append((t["x"], ty, half))
        bold = name.lower() in paper_terms
        ax.annotate(name, xy=(t["x"], t["score"]), xytext=(t["x"], ty), ha="center", va="bottom",
                    fontsize=8.5, fontweight="bold" if bold else "normal",
                    arrowprops=dict(arrowstyle="-", color="0.5", lw=0.5))  # fmt: skip
    top_label = max(p[1] for p in placed) if placed else ymax
    ax.set_ylim(0, max(ax.get_ylim()[1], top_label + 0.12 * ymax))


# --------------------------------------------------------------------------------------------
# bmd09 Table 1


def draw_table1(exp_dir: Path, summary: pd.DataFrame, title: str):
    """bmd09 Table 1 as bars: per dataset (and setting) P and F, ours beside the published."""
    table = table1(summary)
    if not len(table):
        return None
    # table1() orders the datasets as the paper does; one row of panels per dataset and setting
    keys = ["dataset", "setting"] if "setting" in table.columns else ["dataset"]
    groups = [(key, ds) for key, ds in table.groupby(keys, sort=False, dropna=False)]
    base = summary[is_baseline(summary)]
    all_label = (
        appearance.declared_label(base["reducer_name"].iloc[0], base["method"].iloc[0])
        or base["method"].iloc[0]
        if len(base)
        else "no reduction"
    )
    # each method's reducer: its color and legend place come from that reducer's declaration
    reducer_of = dict(zip(summary["method"], summary["reducer_name"], strict=True))
    fig, axes = plt.subplots(len(groups), 2, figsize=(11, 3.4 * len(groups) + 0.8),
                             squeeze=False, layout="constrained")  # fmt: skip
    cols = list(BMD09_TABLE1_COLUMNS)
    legend: dict[str, object] = {}
    for row, (key, ds) in enumerate(groups):
        dataset = str(key[0])
        setting = f", {key[1]}" if len(keys) == 2 else ""
        methods = sorted(
            ds["method"].unique(), key=lambda m: appearance.sort_key(reducer_of.get(m), m)
        )
        width = 0.8 / (len(methods) + 1)
        published = BMD09_TABLE1.get(dataset.lower())
        for col, (what, ylabel) in enumerate([("P", "P (accuracy)"), ("F", "F (normalized)")]):
            ax = axes[row, col]
            for j, column in enumerate(cols):
                # "All" is k-means on all features: one bar, shared by the methods.
                bars = [(None, ds[ds["column"] == column].head(1))] if column == "All" else [
                    (m, ds[(ds["column"] == column) & (ds["method"] == m)]) for m in methods
                ]  # fmt: skip
                n_bars = len(bars) + (1 if published else 0)
                for i, (method, hit) in enumerate(bars):
                    if not len(hit):
                        continue
                    st = (
                        appearance.baseline_style()
                        if method is None
                        else appearance.style_of(reducer_of.get(method), method)
                    )
                    x0 = j + (i - (n_bars - 1) / 2) * width
                    val = float(hit[f"{what}_ours"].iloc[0])
                    label = f"ours, {method}"
                    if column == "All":
                        label = f"ours, {all_label} (all features)"
                    if bool(hit["complete"].iloc[0]):
                        ax.bar(x0, val, width, color=st.color, alpha=0.85)
                    else:
                        ax.bar(x0, val, width, facecolor="white", edgecolor=st.color, hatch="///",
                               lw=1.2)  # fmt: skip
                    ax.text(x0, val + 0.01, f"{val:.3f}", ha="center", va="bottom", fontsize=7,
                            rotation=90)  # fmt: skip
                    legend.setdefault(label, Patch(color=st.color, alpha=0.85))
                if published:
                    val = published[column][0 if what == "P" else 1]
                    x0 = j + (n_bars - 1 - (n_bars - 1) / 2) * width
                    ax.bar(x0, val, width, color="0.8", edgecolor="0.3", lw=0.8)
                    ax.text(x0, val + 0.01, f"{val:.3f}", ha="center", va="bottom", fontsize=7,
                            rotation=90)  # fmt: skip
                    legend.setdefault("published (bmd09 Table 1)", Patch(fc="0.8", ec="0.3"))
            ax.set_xticks(np.arange(len(cols)), [f"r = {c}" if c != "All" else "All" for c in cols])
            ax.set_ylabel(ylabel)
            ax.set_ylim(0, 1.18)
            name = BMD09_TABLE1_NAMES.get(dataset.lower(), appearance.dataset_label(dataset))
            ax.set_title(f"{name}{setting} - {what}")
    if not table["complete"].all():
        legend["hatched: fewer trials than expected"] = Patch(
            facecolor="white", ec="0.3", hatch="///"
        )
    fig.legend(list(legend.values()), list(legend.keys()), loc="outside lower center",
               ncol=min(4, len(legend)), frameon=False)  # fmt: skip
    title = appearance.suptitle(
        exp_dir, title, "ours, lowest-F of the trials, beside the published numbers"
    )
    note = appearance.incomplete_note(summary)
    fig.suptitle(f"{title}   [{note.upper()}]" if note else title, fontsize=11, fontweight="bold",
                 color=appearance.INCOMPLETE_COLOR if note else "black")  # fmt: skip
    return fig
