"""The interactive plot of each experiment: the curves of its figure (the same panels, the same
numbers, the same min-to-max band), where hovering a point shows the method, r, and the
repetitions' mean ± sd, min to max and n. Each page has a caption and links back to its
section of the report, its CSVs and its static figure.

Drawn with plotly (the optional ``site`` extra) as one standalone HTML page per experiment in
``<results>/interactive/``, beside one copy of plotly.js that every page loads: the pages open
from disk, without a network. The points come from the results layer's summary reader
(:func:`kmdr.results.summary.load_summary`: summary.csv, the aggregation the figures draw), the
panels and the method names from the experiment's figure style; an experiment whose style draws
something other than curves vs r (bmd09's Figure 1 and Table 1) has no interactive plot.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.colors import to_hex

from kmdr._io import atomic_write_text
from kmdr.figures import appearance
from kmdr.figures.style import figure_style
from kmdr.results.reading import is_baseline
from kmdr.results.runs import load_runs, preset_of
from kmdr.results.summary import load_summary

__all__ = ["BAND", "FOLDER", "PLOTLY_JS", "available", "caption", "experiment_figure",
           "write_interactive"]  # fmt: skip

#: The folder of the interactive pages, under the results folder.
FOLDER = "interactive"
#: plotly.js, written once in :data:`FOLDER` and loaded by every page from there.
PLOTLY_JS = "plotly.min.js"


def available() -> bool:
    """plotly is installed (the ``site`` extra)."""
    return importlib.util.find_spec("plotly") is not None


def _axis_label(panel) -> str:
    """A panel's axis label in plain text: its matplotlib math (``$...$``), which a page opened
    offline cannot typeset, gives way to the panel's title ("F = $...$": "F (objective)")."""
    if "$" not in panel.ylabel:
        return panel.ylabel
    plain = re.sub(r"\s+", " ", re.sub(r"\$[^$]*\$", "", panel.ylabel)).strip(" =:")
    return f"{plain} ({panel.title.lower()})" if plain else panel.title


def _hover(mean, sd, lo, hi, n) -> list[str]:
    """Each point's ``mean ± sd (sd), min–max lo–hi, n = n`` (no sd with one repetition)."""
    out = []
    for m, s, a, b, k in zip(*(pd.Series(v).astype(float) for v in (mean, sd, lo, hi, n)),
                             strict=True):  # fmt: skip
        text = f"{m:.4g}" + (f" ± {s:.2g} (sd)" if np.isfinite(s) else "")
        if np.isfinite(a) and np.isfinite(b):
            text += f"<br>min–max: {a:.4g}–{b:.4g}"
        out.append(text + (f"<br>n = {int(k)}" if np.isfinite(k) else ""))
    return out


def _band(go, x, lo, hi, color: str, group: str):
    """The min-to-max band of a line, as the static figure shades it."""
    x = list(pd.Series(x).astype(float))
    lo, hi = (list(pd.Series(v).astype(float)) for v in (lo, hi))
    return go.Scatter(
        x=x + x[::-1], y=hi + lo[::-1],
        fill="toself", fillcolor=_rgba(color, 0.15), line={"width": 0}, mode="lines",
        hoverinfo="skip", showlegend=False, legendgroup=group, name=f"{group}: min to max",
    )  # fmt: skip


def _rgba(color: str, alpha: float) -> str:
    from matplotlib.colors import to_rgb

    r, g, b = (round(255 * c) for c in to_rgb(color))
    return f"rgba({r},{g},{b},{alpha})"


#: What every interactive plot's caption says of its lines and bands (the static figures' own).
BAND = "line: the mean over the repetitions; shaded: min to max over them (as the static figure)"


def _col(frame: pd.DataFrame, column: str) -> pd.Series:
    """A column of ``frame``, NaN where it has none."""
    return frame[column] if column in frame else pd.Series(np.nan, index=frame.index)


def _lines(points: pd.DataFrame, names: dict) -> list[pd.DataFrame]:
    """The points of each curve (one per reducer and parameter set, in r order), in the
    figure's legend order."""
    keys = ["reducer", "reducer_params"]
    groups = points.fillna({"reducer_params": ""}).groupby(keys, sort=False)
    lines = [group.sort_values("r") for _, group in groups]
    first = [line.iloc[0] for line in lines]
    order = [appearance.sort_key(row["reducer_name"], row["method"], names) for row in first]
    return [line for _, line in sorted(zip(order, lines, strict=True), key=lambda p: p[0])]


def experiment_figure(exp_dir: str | Path, say=None):
    """The plotly Figure of an experiment's curves, or None when its style draws no curves or
    it has no point."""
    from plotly import graph_objects as go
    from plotly.subplots import make_subplots

    exp_dir = Path(exp_dir)
    preset = preset_of(exp_dir, load_runs(exp_dir, say))
    style = figure_style(preset["figure"])
    if style.draw is not None or not style.panels:
        return None
    summary = load_summary(exp_dir, say=say)
    if not len(summary) or int(summary["n_cells"].sum()) == 0 or is_baseline(summary).all():
        return None  # no point, or no curve: baselines alone are reference lines along a curve
    if "coreset" in summary and summary["coreset"].fillna("").astype(str).ne("").any():
        return None  # a coreset study: its report section is tables, with no figure to link
    names = dict(style.names)
    keys = ["dataset", "setting"] if "setting" in summary.columns else ["dataset"]
    rows = list(summary.groupby(keys, sort=True, dropna=False))
    titles = []
    for key, _ in rows:
        key = key if isinstance(key, tuple) else (key,)
        row_title = appearance.dataset_label(str(key[0]))
        if len(key) > 1 and isinstance(key[1], str):
            row_title += f", {key[1]}"
        titles += [f"{row_title}: {panel.title}" for panel in style.panels]
    fig = make_subplots(
        rows=len(rows),
        cols=len(style.panels),
        subplot_titles=titles,
        horizontal_spacing=0.07,
        vertical_spacing=min(0.3 / len(rows), 0.12),
    )
    shown: set[str] = set()
    for i, (_, ds) in enumerate(rows, start=1):
        base = ds[is_baseline(ds)]
        points = ds.drop(base.index)
        colors = appearance.styles_for(
            zip(points["reducer_name"], points["method"], strict=True), names
        )
        lines = _lines(points, names)
        variants = pd.Series([line["reducer"].iloc[0] for line in lines]).value_counts()
        for j, panel in enumerate(style.panels, start=1):
            ylabel = _axis_label(panel)
            mean_col, sd_col = f"{panel.metric}_mean", f"{panel.metric}_std"
            if mean_col not in ds:
                continue
            for line in lines:
                first = line.iloc[0]
                label = style.line_label(first)
                if variants[first["reducer"]] > 1:  # one reducer, several parameter sets
                    label += f" ({first['reducer_params']})"
                color = to_hex(colors[(str(first["reducer_name"]), str(first["method"]))].color)
                mean, sd = line[mean_col] * panel.scale, line[sd_col] * panel.scale
                lo, hi = (_col(line, f"{panel.metric}_{b}") * panel.scale for b in ("min", "max"))
                if lo.notna().any():
                    fig.add_trace(_band(go, line["r"], lo, hi, color, label), row=i, col=j)
                fig.add_trace(
                    go.Scatter(
                        x=line["r"], y=mean, mode="lines+markers", name=label,
                        legendgroup=label, showlegend=label not in shown,
                        line={"color": color},
                        customdata=_hover(mean, sd, lo, hi, _col(line, "n_cells")),
                        hovertemplate=f"<b>{label}</b><br>r = %{{x}}<br>{ylabel}: "
                        "%{customdata}<extra></extra>",
                    ),
                    row=i, col=j,
                )  # fmt: skip
                shown.add(label)
            if len(base) and panel.baseline and len(points):
                r_span = [points["r"].min(), points["r"].max()]
                for _, b in base.iterrows():
                    label = style.line_label(b) + " (no reduction, all d features)"
                    mean = pd.Series([b[mean_col] * panel.scale] * 2)
                    sd = pd.Series([b.get(sd_col, np.nan) * panel.scale] * 2)
                    lo, hi = (pd.Series([b.get(f"{panel.metric}_{e}", np.nan) * panel.scale] * 2)
                              for e in ("min", "max"))  # fmt: skip
                    if lo.notna().all():
                        fig.add_trace(_band(go, r_span, lo, hi, "#808080", label), row=i, col=j)
                    fig.add_trace(
                        go.Scatter(
                            x=r_span, y=mean, mode="lines", name=label, legendgroup=label,
                            showlegend=label not in shown,
                            line={"color": "black", "dash": "dash"},
                            customdata=_hover(mean, sd, lo, hi, [b.get("n_cells", np.nan)] * 2),
                            hovertemplate=f"<b>{label}</b><br>r = {int(b['r'])}<br>"
                            f"{ylabel}: %{{customdata}}<extra></extra>",
                        ),
                        row=i, col=j,
                    )  # fmt: skip
                    shown.add(label)
            fig.update_xaxes(title_text=style.xlabel, row=i, col=j)
            fig.update_yaxes(title_text=ylabel, type="log" if panel.log else None, row=i,
                             col=j)  # fmt: skip
    fig.update_layout(
        title={"text": preset["title"] or exp_dir.name},
        height=380 * len(rows) + 160,
        hovermode="closest",
        template="plotly_white",
        legend={"orientation": "h", "yanchor": "top", "y": -0.12 / len(rows)},
        margin={"t": 90},
    )
    return fig


_PAGE_CSS = """
body { font: 15px/1.5 system-ui, sans-serif; color: #1b1b1b; margin: 0 auto; max-width: 96rem;
       padding: .5rem 1.5rem 2rem; }
h1 { font-size: 1.3rem; margin: .6rem 0 .3rem; }
p.caption { margin: .2rem 0; }
p.links { font-size: .92rem; background: #f6f8fa; padding: .4rem .8rem;
          border-left: 3px solid #0645ad; }
a { color: #0645ad; }
"""


def caption(exp_dir: str | Path, say=None) -> str:
    """What an interactive plot shows, in one paragraph (plain text): its lines and bands (those
    of the static figure), the repetitions behind each point, and what hovering shows."""
    exp_dir = Path(exp_dir)
    summary = load_summary(exp_dir, say=say)
    n = summary["n_cells"][summary["n_cells"] > 0].astype(int) if len(summary) else pd.Series()
    if not len(n):
        reps = "no point has a cell yet"
    elif n.min() == n.max():
        reps = f"n = {n.min()} repetitions at every point"
    else:
        reps = f"n = {n.min()} to {n.max()} repetitions per point (fewer where cells are missing)"
    return (
        f"The curves of the figure of {exp_dir.name}, one panel per metric: {BAND}; {reps}. "
        "Hover a point for the method, r, the mean ± sd, min to max, and n; click a legend entry "
        "to hide its method."
    )


def _page(name: str, title: str, plot: str, text: str, section: str | None) -> str:
    """The standalone page of one plot: its title, caption and links back to the report's
    section, the CSVs and the static figure, then the plot."""
    from html import escape

    up = f"../{name}/"
    report = f"../index.html#{section}" if section else "../index.html"
    links = [
        f'<a href="{escape(report)}">its section of the report</a>',
        f'data: <a href="{escape(up)}cells.csv">cells.csv</a>, '
        f'<a href="{escape(up)}summary.csv">summary.csv</a>',
        f'static figure: <a href="{escape(up)}figures/{escape(name)}.png">PNG</a>, '
        f'<a href="{escape(up)}figures/{escape(name)}.pdf">PDF</a>',
    ]
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}: interactive plot</title>
<style>{_PAGE_CSS}</style>
</head>
<body>
<h1>{escape(title)}</h1>
<p class="caption">{escape(text)}</p>
<p class="links">{" · ".join(links)}</p>
{plot}
</body>
</html>
"""


def write_interactive(
    root: str | Path, names: list[str], sections: dict[str, str] | None = None, say=None
) -> tuple[dict[str, str], dict[str, str]]:
    """Write the interactive page of each experiment folder ``names`` under ``root`` that has
    curves, and plotly.js once beside them; the folder's other pages are removed. Each page
    links back to the report's section of its experiment (``sections``: the anchor of
    ``index.html`` that shows its figure, by name). Returns the pages' paths relative to
    ``root``, and the folders that could not be drawn with a one-line reason, both by name."""
    from plotly.offline import get_plotlyjs

    root = Path(root)
    folder = root / FOLDER
    written, failed = {}, {}
    for name in names:
        try:
            fig = experiment_figure(root / name, say)
            text = caption(root / name, say) if fig is not None else ""
        except Exception as err:  # a damaged folder: the report names it, the others are drawn
            failed[name] = f"not drawn ({type(err).__name__}: {' '.join(str(err).split())})"
            continue
        if fig is None:
            continue
        title = str(fig.layout.title.text or name)
        fig.update_layout(title=None, margin={"t": 40})  # the page's heading says it
        plot = fig.to_html(
            full_html=False,
            include_plotlyjs=PLOTLY_JS,
            config={"responsive": True, "displaylogo": False},
            div_id=f"plot-{name}",
        )
        page = _page(name, title, plot, text, (sections or {}).get(name))
        atomic_write_text(folder / f"{name}.html", page)
        written[name] = f"{FOLDER}/{name}.html"
    # a page of an experiment no longer drawn (its folder gone, or nothing left to draw) goes
    for page in folder.glob("*.html"):
        if page.stem not in written:
            page.unlink()
    if written:
        js = folder / PLOTLY_JS
        code = get_plotlyjs()
        if not js.exists() or js.read_text(encoding="utf-8") != code:
            atomic_write_text(js, code)
    return written, failed
