"""bmd09's two figure styles: Figure 1 (the leverage scores of every term, one sample
highlighted, the top terms named) and Table 1 (ours beside the published P and F, as bars, with
``table1.csv`` and ``table1.md`` written beside ``summary.csv``).

The drawing code (:mod:`kmdr.papers.bmd09.figures`, matplotlib) and the table
(:mod:`kmdr.papers.bmd09.table1`) are imported when used, so that naming a style costs nothing.
"""

from __future__ import annotations

from pathlib import Path

from kmdr.figures.style import FigureStyle

__all__ = ["FIG1", "TABLE1"]


def _draw_fig1(exp_dir: Path, preset: dict):
    from kmdr.papers.bmd09.figures import draw_fig1

    return draw_fig1(exp_dir)


def _draw_table1(exp_dir: Path, preset: dict):
    from kmdr.papers.bmd09.figures import draw_table1
    from kmdr.results.summary import read_experiment

    summary = read_experiment(exp_dir).summary
    if not len(summary) or int(summary["n_cells"].sum()) == 0:
        return None
    return draw_table1(exp_dir, summary, preset["title"])


def _write_table1(exp_dir: Path, summary) -> list[Path]:
    from kmdr.papers.bmd09.table1 import write_table1

    return write_table1(exp_dir, summary)


FIG1 = FigureStyle(reference="bmd09 Figure 1", draw=_draw_fig1)
TABLE1 = FigureStyle(reference="bmd09 Table 1", draw=_draw_table1, write_tables=_write_table1)
