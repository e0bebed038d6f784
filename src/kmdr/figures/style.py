"""What a figure style declares: its panels and labels, the paper it redraws, that paper's names
for the methods, and (for a figure that is not curves vs r) its own draw function.

A paper declares its styles in its own package and names them in its declaration (the
``figure_styles`` of its :class:`kmdr.plugins.Paper`, read by
:data:`kmdr.config.presentation.FIGURE_STYLES`); :mod:`kmdr.figures.draw` draws an experiment
with the style its preset names, whatever that name is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from kmdr.config.presentation import FIGURE_STYLES

__all__ = ["FigureStyle", "Panel", "figure_style"]


@dataclass(frozen=True)
class Panel:
    """One panel of a row of curves: ``metric`` (a summary metric, times ``scale``) vs r, on a
    log axis when ``log``; the no-reduction baseline drawn as a horizontal line when
    ``baseline``."""

    metric: str
    title: str
    ylabel: str
    scale: float = 1.0
    log: bool = False
    baseline: bool = True


@dataclass(frozen=True)
class FigureStyle:
    """A figure style.

    Attributes
    ----------
    panels : tuple of Panel
        The panels of each row (one row per dataset and setting) of a curves figure.
    xlabel : str
        The label of the r axis.
    reference : str
        The figures of the paper the style redraws, as the suptitle names them ("bzmd14 Figs. 1-3").
    names : Mapping
        The paper's own name of a method, by reducer registry name (lst17 calls the ``none``
        baseline "k-means" and Laplacian scores "LS"): the legend keeps the report's name and
        adds the paper's after it ("LapScores (the paper's LS)"), and a preset may label its
        cells with it; methods not listed keep their label.
    legend_notes : Mapping
        What a method's legend entry adds in parentheses after its name, by reducer registry
        name, when its name alone would mislead ("r = entries kept per row").
    shown_names : callable, optional
        ``shown_names(rows) -> {label: name}``: the name a line shows for a method whose cells
        keep an older label, read from its rows (lst17's PD is kmdr's variant:
        :func:`kmdr.report.claims.labels.shown_names`, the report's own naming).
    baseline_note : str
        Added to the baseline's legend entry (what a panel leaves out of it).
    draw : callable, optional
        ``draw(exp_dir, preset) -> Figure | None``: a figure that is not curves vs r.
    write_tables : callable, optional
        ``write_tables(exp_dir, summary) -> list[Path]``: files the style writes beside
        ``summary.csv`` (bmd09 Table 1), called by :func:`kmdr.results.summary.write_summaries`.
    apart : callable, optional
        ``apart(summary) -> bool Series``: the rows the curves leave out, drawn in a figure of
        the style's own (its ``write_tables``): a paper's figure then draws the paper's methods
        alone (pb17 draws kmdr's variant of each method beside it, apart).
    """

    panels: tuple[Panel, ...] = ()
    xlabel: str = "r (number of dimensions)"
    reference: str = ""
    names: Mapping[str, str] = field(default_factory=dict)
    legend_notes: Mapping[str, str] = field(default_factory=dict)
    shown_names: Callable[[object], Mapping[str, str]] | None = None
    baseline_note: str = ""
    draw: Callable[[Path, dict], object] | None = None
    write_tables: Callable[[Path, object], list[Path]] | None = None
    apart: Callable[[object], object] | None = None

    def display(self, label: str, reducer_name: str | None = None) -> str:
        """The label the figure shows for a method: ``label``, the name the report gives it,
        followed in parentheses by the paper's name for the reducer where it differs and the
        style's legend note for the reducer. ``reducer_name`` is None for a line that is not its
        reducer's declaration (a variant a preset labels itself)."""
        if reducer_name is None:
            return str(label)
        paper = self.names.get(reducer_name)
        notes = [f"the paper's {paper}" if paper and paper != str(label) else None]
        notes.append(self.legend_notes.get(reducer_name))
        said = "; ".join(n for n in notes if n)
        return f"{label} ({said})" if said else str(label)

    def line_label(self, row) -> str:
        """A line's legend label from its summary row (``method``, ``reducer_name``,
        ``reducer_params``): the name :attr:`shown_names` gives its method, else the paper's
        name for a declared method, else its own label; a declared method's legend note
        after it."""
        from kmdr.figures import appearance

        method, reducer_name = str(row["method"]), row["reducer_name"]
        declared = appearance.declared_label(reducer_name, method, dict(self.names))
        shown = None
        if self.shown_names is not None:
            shown = self.shown_names(pd.DataFrame([dict(row)])).get(method)
        if declared is None:
            return shown or method
        if shown is None:
            return self.display(declared, str(reducer_name))
        note = self.legend_notes.get(str(reducer_name))
        return f"{shown} ({note})" if note else shown


def figure_style(name: str) -> FigureStyle:
    """The declaration of the figure style ``name`` (raises
    :class:`kmdr.plugins.RegistryError`, one line, for a name that means nothing usable)."""
    return FIGURE_STYLES.get(name)
