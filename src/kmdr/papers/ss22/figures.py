"""The figure of "Reducers before coresets": per dataset, k, m and reducer, the distortion on the
original data and the total time (reduce + coreset + solve) against r, one line per
construction (the median of its repetitions at each r), and each construction's level without
a reducer as a band of its colour (its repetitions' range, the median dashed).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kmdr.figures.style import FigureStyle

__all__ = ["REDUCERS", "draw_reducers", "reducers_figure"]

_PANELS = (
    ("distortion", "Distortion on the original data", False),
    ("total_seconds", "Total time: reduce + coreset + solve (s)", True),
)


def draw_reducers(exp_dir: Path, preset: dict):
    """The figure of the experiment in ``exp_dir``, or None when no construction has both a
    reduced run and one without reducer."""
    from kmdr.results.summary import read_experiment

    cells = read_experiment(exp_dir).cells
    return reducers_figure(cells, preset.get("title") or exp_dir.name)


def reducers_figure(cells, title: str):
    """The figure of :func:`draw_reducers` from the experiment's cells."""
    import matplotlib.pyplot as plt

    from kmdr.papers.ss22.claims import canonical

    if cells.empty or "distortion" not in cells:
        return None
    df = canonical(cells)
    reduced = df[df["reducer"] != ""]
    lines = sorted(reduced.groupby(["dataset", "k", "m", "reducer"]).groups)
    if not lines:
        return None
    constructions = sorted(df["construction"].unique(), key=str)
    colours = dict(zip(constructions, plt.get_cmap("tab10").colors, strict=False))
    fig, axes = plt.subplots(
        len(lines), len(_PANELS), figsize=(11, 3.4 * len(lines)), squeeze=False
    )
    for row, (dataset, k, m, reducer) in enumerate(lines):
        here = df[(df["dataset"] == dataset) & (df["k"] == k) & (df["m"] == m)]
        for col, (metric, title, log) in enumerate(_PANELS):
            ax = axes[row][col]
            for construction in constructions:
                own = here[here["construction"] == construction]
                alone = own[own["reducer"] == ""].groupby("repetition")[metric].mean().dropna()
                line = own[own["reducer"] == reducer]
                if line.empty:
                    continue
                per_rep = line.groupby(["r", "repetition"])[metric].mean()
                curve = per_rep.groupby(level="r").median()
                colour = colours[construction]
                ax.plot(curve.index, curve.to_numpy(), "o-", color=colour, label=construction)
                if len(alone):
                    ax.axhspan(alone.min(), alone.max(), color=colour, alpha=0.15, lw=0)
                    ax.axhline(np.median(alone), color=colour, ls="--", lw=1)
            ax.set_xscale("log")
            if log:
                ax.set_yscale("log")
            ax.set_xlabel(f"r (dimensions after {reducer})")
            ax.set_title(f"{dataset}, k = {k}, m = {m}: {title}", fontsize=9)
            if row == 0 and col == 0:
                ax.legend(fontsize=8, title="line: median over repetitions", title_fontsize=7)
    fig.suptitle(
        title
        + "\nband: each construction without a reducer (range of its repetitions, median dashed)",
        fontsize=10,
    )
    fig.tight_layout()
    return fig


#: The figure style ``ss22_reducers``.
REDUCERS = FigureStyle(reference="kmdr: reducers before coresets", draw=draw_reducers)
