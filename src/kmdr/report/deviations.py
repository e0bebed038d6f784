"""The report's last section: where our data and setup deviate from the papers'.

Each paper declares its deviations (:class:`kmdr.plugins.Deviation`, the ``deviations`` of its
:class:`kmdr.plugins.Paper`); this section lists every paper's, by their ``order``, and gives the
ones that quote our data what ran (:class:`Results`). It holds no paper's text.
"""

from __future__ import annotations

from collections.abc import Mapping

from kmdr.plugins import papers
from kmdr.report.experiments import Experiment

__all__ = ["Results", "section_deviations"]


class Results:
    """What a deviation may quote of the results folder's experiments (``exps``, by name)."""

    def __init__(self, exps: Mapping[str, Experiment]) -> None:
        self._exps = exps

    def shape(self, name: str, dataset: str) -> str:
        """ " (ours: n × d)": the shape of ``dataset`` in the experiment ``name``; "" when that
        experiment has no cell of it."""
        e = self._exps.get(name)
        if e is None or not e.has_cells or "n_samples" not in e.cells:
            return ""
        g = e.cells[e.cells["dataset"] == dataset]
        if g.empty:
            return ""
        return f" (ours: {int(g['n_samples'].iloc[0])} × {int(g['n_features'].iloc[0])})"

    def cells(self, name: str):
        """The current cells of the experiment ``name`` (a DataFrame), None when it has none."""
        e = self._exps.get(name)
        return e.cells if e is not None and e.has_cells else None

    def ran(self, dataset: str) -> bool:
        """Whether any experiment has results on ``dataset``."""
        return any(e.has_results and dataset in e.datasets for e in self._exps.values())


def section_deviations(exps: dict[str, Experiment]) -> str:
    results = Results(exps)
    deviations = sorted((d for paper in papers() for d in paper.deviations), key=lambda d: d.order)
    items = [d.text(results) if callable(d.text) else d.text for d in deviations]
    return "## Deviations from the papers' data and setup\n\n" + "\n".join(f"- {i}" for i in items)
