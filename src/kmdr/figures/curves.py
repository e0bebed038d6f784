"""Curves vs r, the figures of bzmd14 and lst17 (and of any style that declares panels): per
dataset (and setting) a row of the style's panels, one line per method, the no-reduction
baseline as a horizontal line.

Several settings in one experiment (a multirun over ``seed`` or ``kmeans.n_init`` into one name)
are drawn as one row of panels per (dataset, setting), the row's header naming the setting (the
``setting`` column of summary.csv): curves of different settings are never averaged or overlaid.
A reducer whose parameters vary under one id draws one line per parameter set. Points resting on
fewer cells than expected are drawn with hollow markers, points with no cell at all are marked x
on the r axis, and the title says "incomplete: n/N cells".
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.transforms import blended_transform_factory

from kmdr.figures import appearance
from kmdr.figures.style import FigureStyle
from kmdr.results.reading import is_baseline
from kmdr.results.summary import ExperimentRead, read_experiment

__all__ = ["draw_curves"]

# Line styles of a method's second, third, ... parameter set ("--" is the baseline's).
_VARIANT_LINESTYLES = (":", "-.", (0, (5, 1, 1, 1, 1, 1)))


def draw_curves(experiment: Path | ExperimentRead, style: FigureStyle, preset: dict):
    """The curves figure of an experiment (its folder, or the folder already read; None without
    cells). The caller closes it."""
    read = read_experiment(experiment)
    summary = read.summary
    if not len(summary) or int(summary["n_cells"].sum()) == 0:
        return None
    apart = pd.Series(False, index=summary.index) if style.apart is None else style.apart(summary)
    fig, drawn = _draw_curves(read.dir, summary[~apart], style, preset["title"])
    elsewhere = dict.fromkeys(summary.loc[apart, "method"].astype(str))
    drawn |= set(summary.loc[apart, "reducer"].astype(str))  # drawn, though not here
    notes = [
        preset.get("note") or "",  # the current configuration's word on what is left out
        f"drawn in a figure of their own: {', '.join(elsewhere)}" if elsewhere else "",
        _undrawn_note(preset.get("reducers"), drawn, dict(style.names), style),
        read.note,  # rows of older code or other data: how many and why
    ]
    _add_notes(fig, [n for n in notes if n])
    return fig


def _undrawn_note(reducers, drawn: set[str], names: dict, style: FigureStyle) -> str:
    """``not drawn: A, B (configured, no cell)``: the reducers of the experiment's configuration
    that have no line in the figure ("" when every one is drawn, or the configuration is not
    known)."""
    if not isinstance(reducers, list):
        return ""
    from kmdr.reducers import canonical_reducer

    missing = []
    for reducer in reducers:
        if not isinstance(reducer, dict):
            continue
        # an entry without an id has its (canonical) name's, as the run gave its cells
        rid = reducer.get("id") or canonical_reducer(str(reducer.get("name")))
        if str(rid) in drawn:
            continue
        name = reducer.get("name")
        entry = appearance._entry(name)  # no label of its own: the declaration's
        label = reducer.get("label") or (entry.label if entry is not None else name)
        declared = appearance.declared_label(name, label, names)
        missing.append(
            style.display(declared, str(name)) if declared else str(label or reducer.get("id"))
        )
    return f"not drawn: {', '.join(missing)} (configured, no cell yet)" if missing else ""


#: The notes' font size (points) and the width of a character in it, in font sizes: the notes
#: wrap to the figure's width instead of widening it.
_NOTE_SIZE = 8.5
_CHAR_WIDTH = 0.52


def _add_notes(fig, notes: list[str]) -> None:
    """The notes over the legend's entries, each wrapped to the figure's width."""
    import textwrap

    if not notes:
        return
    width = max(40, int(fig.get_figwidth() * 72 / (_NOTE_SIZE * _CHAR_WIDTH)))
    text = "\n".join(textwrap.fill(n, width) for n in notes)
    # the legend's title: the layout makes room for it, above the legend's entries
    legend = fig.legends[-1]
    legend.set_title(text, prop={"size": _NOTE_SIZE})
    legend.get_title().set_color("0.25")


def _shape_note(ds: pd.DataFrame) -> str:
    parts = []
    for col, sym in (("n_samples", "n"), ("n_features", "d"), ("n_clusters", "k")):
        if col in ds.columns and ds[col].notna().any():
            parts.append(f"{sym} = {int(ds[col].dropna().iloc[0])}")
    return f": {', '.join(parts)}" if parts else ""


#: Repetitions from which a point's band is the 95 % confidence interval of its mean; below,
#: the band is min-max. Over many repetitions min-max spans nearly the whole spread of single
#: runs (most of the panel) and hides what the line shows, the mean; over a few, an interval of
#: the mean would be too wide to read and rest on an estimate of the spread from a few runs.
MANY_REPETITIONS = 10


def _band(rows: pd.DataFrame, metric: str, aggregation: str):
    """``(lo, hi, interval)`` of each point's band: the 95 % t interval of the mean (``interval``
    True where it is) where the line is a mean over :data:`MANY_REPETITIONS` cells or more,
    min-max elsewhere; ``(None, None, None)`` without the columns."""
    lo, hi = rows.get(f"{metric}_min"), rows.get(f"{metric}_max")
    if lo is None or hi is None:
        return None, None, None
    lo, hi = lo.astype(float).to_numpy(), hi.astype(float).to_numpy()
    n = rows["n_cells"].to_numpy(dtype=float)
    interval = (n >= MANY_REPETITIONS) & (aggregation == "mean") & (f"{metric}_std" in rows)
    if interval.any():
        from kmdr.stats import t_half_width

        mean = rows[f"{metric}_mean"].astype(float).to_numpy()
        half = t_half_width(rows[f"{metric}_std"].astype(float).to_numpy(), np.maximum(n, 2))
        lo = np.where(interval, mean - half, lo)
        hi = np.where(interval, mean + half, hi)
    return lo, hi, interval


def _band_label(kinds: set[bool], reps: str) -> str:
    """What the shaded bands of a figure are, for its legend."""
    ci = f"95 % interval of the mean ({MANY_REPETITIONS} or more repetitions)"
    if kinds == {True}:
        return f"shaded: 95 % interval of the mean over {reps} repetitions"
    if kinds == {False} or not kinds:
        return f"shaded: min-max over {reps} repetitions"
    return f"shaded: {ci}, min-max (fewer); {reps} repetitions"


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


def _lines(points: pd.DataFrame, names: dict) -> pd.DataFrame:
    """The curves of a row of panels: one per reducer id, or per (id, parameters) when a reducer's
    parameters vary; with the label each gets and its legend order."""
    cols = ["reducer", "reducer_params", "reducer_name", "method"]
    lines = points[cols].drop_duplicates(["reducer", "reducer_params"]).copy()
    n_params = lines.groupby("reducer")["reducer_params"].transform("size")
    # the declared label of a line that is its reducer's declaration, else its own label
    declared = [
        appearance.declared_label(n, m, names)
        for n, m in zip(lines["reducer_name"], lines["method"], strict=True)
    ]
    canon = pd.Series(
        [d if d is not None else m for d, m in zip(declared, lines["method"], strict=True)],
        index=lines.index,
    )
    dup_label = canon.duplicated(keep=False) & ~lines["reducer"].duplicated(keep=False)
    # lines that share a label (one reducer, several params) share its colour: dash them apart
    lines["variant"] = canon.groupby(canon).cumcount().to_numpy()
    lines["suffix"] = [
        f" ({params})" if n > 1 else f" ({reducer})" if dup else ""
        for reducer, params, n, dup in zip(
            lines["reducer"], lines["reducer_params"], n_params, dup_label, strict=True
        )
    ]
    lines["_order"] = [
        appearance.sort_key(n, m, names)
        for n, m in zip(lines["reducer_name"], lines["method"], strict=True)
    ]
    return lines.sort_values("_order", kind="stable").drop(columns="_order")


def _baseline_label(row, style: FigureStyle, names: dict) -> str:
    return style.line_label(row) + " (no reduction, all d features)" + style.baseline_note


def _draw_curves(exp_dir: Path, summary: pd.DataFrame, style: FigureStyle, title: str):
    """The figure, and the reducer ids it draws a line or baseline of."""
    aggregation = str(summary["aggregation"].iloc[0])
    panels = style.panels
    names = dict(style.names)
    rows = _panel_rows(summary)
    nrows = len(rows)
    ncols = len(panels)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(4.5 * ncols, 3.5 * nrows + 1.1), squeeze=False, layout="constrained"
    )
    xlabel = style.xlabel
    any_incomplete = any_missing = False
    n_reps = set()
    legend: dict[str, object] = {}
    drawn: set[str] = set()
    bands: set[bool] = set()  # the kinds of band drawn: True an interval of the mean
    base_style = appearance.baseline_style()
    for row, (dataset, setting, ds) in enumerate(rows):
        n_reps.update(int(x) for x in ds["n_expected"].unique())
        base = ds[is_baseline(ds)]
        points = ds.drop(base.index)
        lines = _lines(points, names)
        styles = appearance.styles_for(
            zip(lines["reducer_name"], lines["method"], strict=True), names
        )
        drawn.update(str(r) for r in points.loc[points["n_cells"] > 0, "reducer"])
        if panels and any(p.baseline for p in panels):
            drawn.update(str(r) for r in base.loc[base["n_cells"] > 0, "reducer"])
        rgrid = sorted(points["r"].unique())
        row_title = appearance.row_title(dataset, setting, ds)
        for col, panel in enumerate(panels):
            ax = axes[row, col]
            metric, scale = panel.metric, panel.scale
            for _, m in lines.iterrows():
                pts = points[
                    (points["reducer"] == m["reducer"])
                    & (points["reducer_params"].fillna("") == ("" if pd.isna(m["reducer_params"])
                                                               else m["reducer_params"]))
                ].sort_values("r")  # fmt: skip
                st = styles[(str(m["reducer_name"]), str(m["method"]))]
                if m["variant"]:
                    st = appearance.LineStyle(
                        st.color, st.marker, _VARIANT_LINESTYLES[m["variant"] % 3]
                    )
                label = style.line_label(m) + m["suffix"]
                y = _center(pts, metric, aggregation).astype(float) * scale
                lo, hi, interval = _band(pts, metric, aggregation)
                x = pts["r"].to_numpy(dtype=float)
                ax.plot(x, y, color=st.color, ls=st.linestyle, lw=1.4, zorder=3)
                if lo is not None and hi is not None:
                    bands.update(bool(i) for i in interval[pts["n_cells"].to_numpy() > 0])
                    ax.fill_between(x, lo * scale, hi * scale, color=st.color, alpha=0.15, lw=0)
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
            if len(base) and panel.baseline:
                for _, b in base.iterrows():
                    yb = float(_center(b.to_frame().T, metric, aggregation).iloc[0]) * scale
                    if not np.isfinite(yb):
                        continue
                    ax.axhline(yb, color=base_style.color, ls=base_style.linestyle, lw=1.3,
                               zorder=2)  # fmt: skip
                    lo, hi, interval = _band(b.to_frame().T, metric, aggregation)
                    if lo is not None and np.isfinite(lo[0]) and hi[0] > lo[0]:
                        bands.add(bool(interval[0]))
                        ax.axhspan(lo[0] * scale, hi[0] * scale, color="0.5", alpha=0.12, lw=0)
                    if not b["complete"]:
                        any_incomplete = True
                        ax.annotate(
                            f"{style.line_label(b)}: {int(b['n_cells'])}/"
                            f"{int(b['n_expected'])} cells",
                            xy=(1, yb), xycoords=("axes fraction", "data"), ha="right",
                            va="bottom", fontsize=8, color=appearance.INCOMPLETE_COLOR,
                        )  # fmt: skip
                    legend.setdefault(
                        _baseline_label(b, style, names),
                        Line2D([], [], color=base_style.color, ls=base_style.linestyle),
                    )
            center = f"{metric}_mean" if f"{metric}_mean" in ds else metric
            if center in ds and len(ds) and ds[center].isna().all():
                # a user's unlabeled data: F is scored, the label measures are left empty
                ax.text(0.5, 0.5, f"no labels: {panel.title.lower()} not scored\n(unlabeled "
                        "data: F only)", transform=ax.transAxes, ha="center", va="center",
                        fontsize=10, color="0.35")  # fmt: skip
            elif panel.log:
                ax.set_yscale("log")
            ax.set_xlabel(xlabel)
            ax.set_ylabel(panel.ylabel)
            ax.set_title(f"{row_title} - {panel.title}")
            if rgrid:
                ax.set_xlim(min(0, rgrid[0]), rgrid[-1] * 1.03)
        header = row_title + _shape_note(ds)
        axes[row, 0].annotate(header, xy=(0, 1.13), xycoords="axes fraction", fontsize=9.5,
                              fontweight="bold")  # fmt: skip
        note = appearance.incomplete_note(ds)
        if note:
            axes[row, -1].annotate(note, xy=(1, 1.13), xycoords="axes fraction", ha="right",
                                  fontsize=9.5, color=appearance.INCOMPLETE_COLOR,
                                  fontweight="bold")  # fmt: skip
    what = "lowest-F trial" if aggregation == "best" else "mean"
    reps = "/".join(str(n) for n in sorted(n_reps)) if n_reps else "?"
    handles = list(legend.values())
    labels = list(legend.keys())
    handles.append(Patch(color="0.5", alpha=0.3, lw=0))
    labels.append(f"line: {what}; {_band_label(bands, reps)}")
    if any_incomplete:
        handles.append(Line2D([], [], ls="none", marker="o", mfc="white", mec="0.2", ms=6))
        labels.append("hollow: fewer cells than expected")
    if any_missing:
        handles.append(Line2D([], [], ls="none", marker="x", color="0.2", ms=5))
        labels.append("x on axis: no cell yet")
    # As many columns as the panels' width holds (about 3.5 inches an entry): a wider legend
    # would widen the figure past its panels.
    width = fig.get_figwidth()
    columns = max(1, min(len(labels), int(width // 3.5)))
    fig.legend(handles, labels, loc="outside lower center", ncol=columns, frameon=False)
    title = appearance.suptitle(exp_dir, title, f"panels as in {style.reference}")
    note = appearance.incomplete_note(summary)
    if note:
        title = f"{title}   [{note.upper()}]"
    # wrapped to the panels' width (about 10 bold characters an inch at this size)
    title = textwrap.fill(title, width=max(40, int(width * 10)))
    color = appearance.INCOMPLETE_COLOR if note else None  # None: the default text color
    fig.suptitle(title, fontsize=11, fontweight="bold", color=color)
    return fig, drawn
