"""The papers' figures, redrawn from an experiment's CSVs alone.

``kmdr-figures RESULTS_DIR [EXPERIMENT ...]`` (``make figures``) re-aggregates every experiment
folder under RESULTS_DIR (:func:`kmdr.results.summary.write_summaries`) and redraws its
figures (:func:`draw_experiment`), so cells from multirun jobs or other machines dropped into a
folder end up in the same figures.

Everything an experiment's figure depends on comes from its files, never from its name: the
style is the preset's ``figure`` and the suptitle the preset's ``title`` (``config.preset`` of the
last sidecar, :func:`kmdr.results.summary.preset_of`; an ad-hoc run gets style ``bzmd14``
and its experiment's name), the no-reduction baseline is the row with ``reducer_name == "none"``
whatever its label. Figure styles:

- ``bzmd14`` (default): per dataset a row of three panels vs r, as bzmd14 Figs. 1-3: running
  time (reduction + clustering, s), F (normalized objective), P (accuracy); one line per method,
  the baseline as a horizontal line.
- ``lst17``: per dataset P (%), reduction time (log) and clustering time (log) vs # of dimensions,
  as lst17 Figs. 1-3.
- ``bmd09_fig1``: the NIPS leverage scores of all terms, one r = 10k sample highlighted, the top
  terms named (bmd09 Figure 1).
- ``bmd09_table1``: ours beside the published P and F (the table itself is table1.md).

(The two bmd09 styles are drawn by :mod:`kmdr.papers.bmd09.figures`; the look every figure
shares, by :mod:`kmdr.figures.styles`.)

Several settings in one experiment (a multirun over ``seed`` or ``kmeans.n_init`` into one name)
are drawn as one row of panels per (dataset, setting), the row's header naming the setting (the
``setting`` column of summary.csv): each row keeps the paper's panels and axes, so curves of
different settings are never averaged or overlaid, and a sweep's rows read top to bottom. A
reducer whose parameters vary under one id draws one line per parameter set.

Every figure is written as ``<experiment>/figures/<experiment>.png`` and ``.pdf`` (the stable name
the README's gallery embeds). Points resting on fewer cells than expected are drawn with hollow
markers, points with no cell at all are marked x on the r axis, and the title says
"incomplete: n/N cells".
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.transforms import blended_transform_factory

from kmdr._io import atomic_write_bytes
from kmdr.figures import styles as ps
from kmdr.papers.bmd09.figures import draw_fig1, draw_table1
from kmdr.results.summary import (
    FIGURE_STYLES,
    aggregation_of,
    cells_view,
    completeness,
    experiment_dirs,
    is_baseline,
    load_cells,
    load_runs,
    preset_of,
    skip_reasons,
    summarize,
    write_summaries,
)

__all__ = ["STYLES", "draw_experiment", "figure_style", "main", "make_figure"]

STYLES = FIGURE_STYLES
# Line styles of a method's second, third, ... parameter set ("--" is the baseline's).
_VARIANT_LINESTYLES = (":", "-.", (0, (5, 1, 1, 1, 1, 1)))


def figure_style(experiment_dir: str | Path) -> str:
    """The figure style of an experiment: its preset's ``figure`` (default ``bzmd14``)."""
    return preset_of(experiment_dir)["figure"]


def make_figure(experiment_dir: str | Path):
    """The experiment's figure as a matplotlib Figure (not saved), or None if there is nothing
    to draw (no cells; for bmd09_fig1 no leverage_scores.csv). The caller closes it."""
    exp_dir = Path(experiment_dir)
    preset = preset_of(exp_dir)
    style = preset["figure"]
    with plt.rc_context(ps.RC):
        if style == "bmd09_fig1":
            return draw_fig1(exp_dir)
        summary = summarize(exp_dir)
        if not len(summary) or int(summary["n_cells"].sum()) == 0:
            return None
        if style == "bmd09_table1":
            return draw_table1(exp_dir, summary, preset["title"])
        # rows of older code or other data are not drawn: the legend says how many and why
        notes = [preset.get("note") or "", cells_view(exp_dir).note]
        return _draw_curves(
            exp_dir, summary, style, preset["title"], "; ".join(filter(None, notes))
        )


def draw_experiment(experiment_dir: str | Path) -> list[Path]:
    """Draw the figure of one experiment from its CSVs; returns the files written ([] if none).

    Writes ``figures/<experiment>.png`` and ``.pdf``. Nothing is drawn for a folder with no cells
    (and, for bmd09_fig1, no leverage_scores.csv).
    """
    exp_dir = Path(experiment_dir)
    fig = make_figure(exp_dir)
    if fig is None:
        return []
    paths = []
    try:
        with plt.rc_context(ps.RC):
            for ext in ("png", "pdf"):
                buffer = io.BytesIO()
                fig.savefig(buffer, bbox_inches="tight", format=ext)
                path = exp_dir / "figures" / f"{exp_dir.name}.{ext}"
                atomic_write_bytes(path, buffer.getvalue())
                paths.append(path)
    finally:
        plt.close(fig)
    return paths


# --------------------------------------------------------------------------------------------
# bzmd14 and lst17: curves vs r


def _panels(style: str) -> list[dict]:
    if style == "lst17":
        return [
            dict(metric="accuracy", scale=100.0, log=False, baseline=True,
                 title="Clustering accuracy", ylabel="Clustering accuracy (in %)"),
            dict(metric="reduce_seconds", scale=1.0, log=True, baseline=False,
                 title="Dimension reduction time", ylabel="Dimension reduction time (in seconds)"),
            dict(metric="cluster_seconds", scale=1.0, log=True, baseline=True,
                 title="Clustering time", ylabel="Clustering time (in seconds)"),
        ]  # fmt: skip
    return [
        dict(metric="total_seconds", scale=1.0, log=False, baseline=True,
             title="Running time", ylabel="Running time (s): reduction + k-means"),
        dict(metric="objective", scale=1.0, log=False, baseline=True,
             title="Objective", ylabel=r"F = $\|A - XX^{T}A\|_F^2\,/\,\|A\|_F^2$"),
        dict(metric="accuracy", scale=1.0, log=False, baseline=True,
             title="Accuracy of clustering", ylabel="P (accuracy)"),
    ]  # fmt: skip


def _shape_note(ds: pd.DataFrame) -> str:
    parts = []
    for col, sym in (("n_samples", "n"), ("n_features", "d"), ("n_clusters", "k")):
        if col in ds.columns and ds[col].notna().any():
            parts.append(f"{sym} = {int(ds[col].dropna().iloc[0])}")
    return f": {', '.join(parts)}" if parts else ""


def _center(rows: pd.DataFrame, metric: str, aggregation: str) -> pd.Series:
    col = (
        f"best_{metric}" if aggregation == "best" and f"best_{metric}" in rows else f"{metric}_mean"
    )
    return rows[col] if col in rows else pd.Series(np.nan, index=rows.index)


def _panel_rows(summary: pd.DataFrame) -> list[tuple[str, str | None, pd.DataFrame]]:
    """One row of panels per dataset and, when several are present, per setting."""
    keys = ["dataset", "setting"] if "setting" in summary.columns else ["dataset"]
    rows = []
    for key, group in summary.groupby(keys, sort=True, dropna=False):
        setting = key[1] if len(keys) == 2 and isinstance(key[1], str) else None
        rows.append((str(key[0]), setting, group))
    return rows


def _lines(points: pd.DataFrame) -> pd.DataFrame:
    """The curves of a row of panels: one per reducer id, or per (id, parameters) when a reducer's
    parameters vary; with the label each gets and its legend order."""
    cols = ["reducer", "reducer_params", "method"]
    lines = points[cols].drop_duplicates(["reducer", "reducer_params"]).copy()
    n_params = lines.groupby("reducer")["reducer_params"].transform("size")
    canon = lines["method"].map(ps.canonical)
    dup_label = canon.duplicated(keep=False) & ~lines["reducer"].duplicated(keep=False)
    # lines that share a label (one reducer, several params) share its colour: dash them apart
    lines["variant"] = canon.groupby(canon).cumcount().to_numpy()
    lines["suffix"] = [
        f" ({params})" if n > 1 else f" ({reducer})" if dup else ""
        for reducer, params, n, dup in zip(
            lines["reducer"], lines["reducer_params"], n_params, dup_label, strict=True
        )
    ]
    return lines.sort_values("method", key=lambda s: s.map(ps.sort_key), kind="stable")


def _baseline_label(method: str, style: str) -> str:
    label = ps.display(method, style) + " (no reduction, all d features)"
    if style == "lst17":
        label += "; its reduction time is 0 s, not drawn"
    return label


def _draw_curves(
    exp_dir: Path, summary: pd.DataFrame, style: str, title: str, preset_note: str = ""
):
    aggregation = str(summary["aggregation"].iloc[0])
    panels = _panels(style)
    rows = _panel_rows(summary)
    nrows = len(rows)
    fig, axes = plt.subplots(
        nrows, 3, figsize=(13.5, 3.5 * nrows + 1.1), squeeze=False, layout="constrained"
    )
    xlabel = "# of dimensions" if style == "lst17" else "r (number of dimensions)"
    any_incomplete = any_missing = False
    n_reps = set()
    legend: dict[str, object] = {}
    base_style = ps.style(ps.BASELINE)
    for row, (dataset, setting, ds) in enumerate(rows):
        n_reps.update(int(x) for x in ds["n_expected"].unique())
        base = ds[is_baseline(ds)]
        points = ds.drop(base.index)
        lines = _lines(points)
        styles = ps.styles_for(lines["method"])
        rgrid = sorted(points["r"].unique())
        row_title = ps.dataset_label(dataset) + (f", {setting}" if setting else "")
        for col, panel in enumerate(panels):
            ax = axes[row, col]
            metric, scale = panel["metric"], panel["scale"]
            for _, m in lines.iterrows():
                pts = points[
                    (points["reducer"] == m["reducer"])
                    & (points["reducer_params"].fillna("") == ("" if pd.isna(m["reducer_params"])
                                                               else m["reducer_params"]))
                ].sort_values("r")  # fmt: skip
                st = styles[m["method"]]
                if m["variant"]:
                    st = ps.Style(st.color, st.marker, _VARIANT_LINESTYLES[m["variant"] % 3])
                label = ps.display(m["method"], style) + m["suffix"]
                y = _center(pts, metric, aggregation).astype(float) * scale
                lo, hi = pts.get(f"{metric}_min"), pts.get(f"{metric}_max")
                x = pts["r"].to_numpy(dtype=float)
                ax.plot(x, y, color=st.color, ls=st.linestyle, lw=1.4, zorder=3)
                if lo is not None and hi is not None:
                    ax.fill_between(x, lo.astype(float) * scale, hi.astype(float) * scale,
                                    color=st.color, alpha=0.15, lw=0)  # fmt: skip
                done = pts["complete"].to_numpy(bool)
                partial = ~done & (pts["n_cells"].to_numpy() > 0)
                empty = pts["n_cells"].to_numpy() == 0
                ax.plot(x[done], y.to_numpy()[done], ls="none", marker=st.marker, ms=4.5,
                        color=st.color, zorder=4)  # fmt: skip
                if partial.any():
                    any_incomplete = True
                    ax.plot(x[partial], y.to_numpy()[partial], ls="none", marker=st.marker,
                            ms=6, mfc="white", mec=st.color, mew=1.3, zorder=5)  # fmt: skip
                if empty.any():
                    any_missing = True
                    trans = blended_transform_factory(ax.transData, ax.transAxes)
                    ax.plot(x[empty], np.full(empty.sum(), 0.02), ls="none", marker="x", ms=5,
                            color=st.color, transform=trans, clip_on=False, zorder=5)  # fmt: skip
                legend.setdefault(
                    label,
                    Line2D([], [], color=st.color, ls=st.linestyle, marker=st.marker, ms=5),
                )
            if len(base) and panel["baseline"]:
                for _, b in base.iterrows():
                    yb = float(_center(b.to_frame().T, metric, aggregation).iloc[0]) * scale
                    if not np.isfinite(yb):
                        continue
                    ax.axhline(yb, color=base_style.color, ls=base_style.linestyle, lw=1.3,
                               zorder=2)  # fmt: skip
                    lo, hi = b.get(f"{metric}_min"), b.get(f"{metric}_max")
                    if lo is not None and np.isfinite(float(lo)) and float(hi) > float(lo):
                        ax.axhspan(float(lo) * scale, float(hi) * scale, color="0.5", alpha=0.12,
                                   lw=0)  # fmt: skip
                    if not b["complete"]:
                        any_incomplete = True
                        ax.annotate(
                            f"{ps.display(b['method'], style)}: {int(b['n_cells'])}/"
                            f"{int(b['n_expected'])} cells",
                            xy=(1, yb), xycoords=("axes fraction", "data"), ha="right",
                            va="bottom", fontsize=8, color=ps.INCOMPLETE_COLOR,
                        )  # fmt: skip
                    legend.setdefault(
                        _baseline_label(b["method"], style),
                        Line2D([], [], color=base_style.color, ls=base_style.linestyle),
                    )
            if panel["log"]:
                ax.set_yscale("log")
            ax.set_xlabel(xlabel)
            ax.set_ylabel(panel["ylabel"])
            ax.set_title(f"{row_title} - {panel['title']}")
            if rgrid:
                ax.set_xlim(min(0, rgrid[0]), rgrid[-1] * 1.03)
        header = row_title + _shape_note(ds)
        axes[row, 0].annotate(header, xy=(0, 1.13), xycoords="axes fraction", fontsize=9.5,
                              fontweight="bold")  # fmt: skip
        note = ps.incomplete_note(ds)
        if note:
            axes[row, 2].annotate(note, xy=(1, 1.13), xycoords="axes fraction", ha="right",
                                  fontsize=9.5, color=ps.INCOMPLETE_COLOR,
                                  fontweight="bold")  # fmt: skip
    what = "lowest-F trial" if aggregation == "best" else "mean"
    reps = "/".join(str(n) for n in sorted(n_reps)) if n_reps else "?"
    handles = list(legend.values())
    labels = list(legend.keys())
    handles.append(Patch(color="0.5", alpha=0.3, lw=0))
    labels.append(f"line: {what}; shaded: min-max over {reps} repetitions")
    if any_incomplete:
        handles.append(Line2D([], [], ls="none", marker="o", mfc="white", mec="0.2", ms=6))
        labels.append("hollow: fewer cells than expected")
    if any_missing:
        handles.append(Line2D([], [], ls="none", marker="x", color="0.2", ms=5))
        labels.append("x on axis: no cell yet")
    if preset_note:  # the preset's own word on what the figure leaves out
        handles.append(Line2D([], [], ls="none"))
        labels.append(preset_note)
    fig.legend(handles, labels, loc="outside lower center", ncol=min(len(labels), 5), frameon=False)
    paper = "lst17 Figs. 1-3" if style == "lst17" else "bzmd14 Figs. 1-3"
    title = ps.suptitle(exp_dir, title, f"panels as in {paper}")
    note = ps.incomplete_note(summary)
    fig.suptitle(title, fontsize=11, fontweight="bold")
    if note:
        fig.suptitle(f"{title}   [{note.upper()}]", fontsize=11, fontweight="bold",
                     color=ps.INCOMPLETE_COLOR)  # fmt: skip
    return fig


# --------------------------------------------------------------------------------------------
# command line


def _error(message: str) -> None:
    print(f"kmdr-figures: error: {' '.join(str(message).split())}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    """``kmdr-figures RESULTS_DIR [EXPERIMENT ...]``: re-aggregate and redraw from the CSVs.

    A folder that cannot be drawn (unreadable or damaged files) is named in one line and the
    others are still drawn; the exit status is then 1. A RESULTS_DIR that is not a folder, or
    holds no experiment folder, is one line and exit status 2, with nothing written.
    """
    parser = argparse.ArgumentParser(
        prog="kmdr-figures",
        description="Re-aggregate every experiment under RESULTS_DIR from its cells.csv, cells/ "
        "and runs/*.json and redraw its figures (summary.csv, figures/*.png|pdf, table1.*).",
    )
    parser.add_argument("results_dir", type=Path, help="folder holding one folder per experiment")
    parser.add_argument("experiments", nargs="*", help="only these experiments (default: all)")
    args = parser.parse_args(argv)
    root: Path = args.results_dir
    if not root.is_dir():
        what = "is a file" if root.exists() else "does not exist"
        _error(f"{root} {what}; give the results folder (one folder per experiment, e.g. results)")
        return 2
    status = 0
    for name in args.experiments:
        if not (root / name).is_dir():
            _error(f"no experiment folder {root / name}; the experiments under {root} are drawn "
                   "without it")  # fmt: skip
            status = 1
    dirs = experiment_dirs(root, [n for n in args.experiments if (root / n).is_dir()] or None)
    if not dirs:
        if status:
            return status
        _error(f"no experiment folders under {root} (none holds cells*.csv, runs/ or "
               "leverage_scores.csv); give the results folder")  # fmt: skip
        return 2
    incomplete, failed = [], []
    for exp_dir in dirs:
        try:
            incomplete += _draw_one(exp_dir)
        except Exception as err:  # a damaged folder: say which, draw the others
            failed.append(exp_dir.name)
            _error(f"{exp_dir.name}: not drawn ({type(err).__name__}: {err}); fix or move aside "
                   "its damaged files, the other experiments are drawn")  # fmt: skip
    if incomplete:
        print(f"incomplete experiments: {', '.join(incomplete)}")
    if failed:
        _error(f"{len(failed)} experiment folders not drawn: {', '.join(failed)}")
        status = 1
    return status


def _draw_one(exp_dir: Path) -> list[str]:
    """Summarize and draw one experiment folder, print what was written; its name in a list if
    it is incomplete."""
    has_cells = len(load_cells(exp_dir)) > 0
    if not has_cells and not (exp_dir / "leverage_scores.csv").exists():
        comp = completeness(exp_dir)
        n_expected = int(comp["n_expected"].sum()) if len(comp) else 0
        if n_expected:  # a first run killed before its first cell: incomplete, not skipped
            print(f"{exp_dir.name}: INCOMPLETE: 0 of {n_expected} cells, nothing to draw yet")
            return [exp_dir.name]
        reasons = skip_reasons(exp_dir)
        why = f" ({'; '.join(reasons)})" if reasons else ""
        print(f"skip {exp_dir.name}: no cells{why}")
        return []
    written = write_summaries(exp_dir) + draw_experiment(exp_dir)
    print(f"{exp_dir.name} [{figure_style(exp_dir)}, {aggregation_of(exp_dir)}]:")
    for path in written:
        print(f"  wrote {path}")
    excluded = cells_view(exp_dir).note
    if excluded:
        print(f"  note: {excluded}")
    incomplete = []
    if has_cells:
        summary = summarize(exp_dir)
        note = ps.incomplete_note(summary)
        if note:
            bad = summary[~summary["complete"].astype(bool)]
            incomplete.append(exp_dir.name)
            print(f"  {note.upper()}: {len(bad)} of {len(summary)} points rest on fewer "
                  "cells than expected")  # fmt: skip
    for run in load_runs(exp_dir):
        if run.get("skipped"):
            print(f"  note: a run was skipped: {run.get('skipped')}")
            break
    return incomplete


if __name__ == "__main__":
    sys.exit(main())
