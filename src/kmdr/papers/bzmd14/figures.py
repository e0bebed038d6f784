"""bzmd14's figure style: per dataset a row of three panels vs r, as its Figures 1-3: running
time (reduction + clustering, s), F (normalized objective), P (accuracy); one line per method,
the no-reduction baseline as a horizontal line. The default style of an ad-hoc run."""

from __future__ import annotations

from kmdr.figures.style import FigureStyle, Panel

__all__ = ["STYLE"]

STYLE = FigureStyle(
    panels=(
        Panel("total_seconds", "Running time", "Running time (s): reduction + k-means"),
        Panel("objective", "Objective", r"F = $\|A - XX^{T}A\|_F^2\,/\,\|A\|_F^2$"),
        Panel("accuracy", "Accuracy of clustering", "P (accuracy)"),
    ),
    xlabel="r (number of dimensions)",
    reference="bzmd14 Figs. 1-3",
    # PD's r is not a number of dimensions (lst17's method, drawn in this style by ad-hoc runs)
    legend_notes={"sparsified": "r = entries kept per row"},
)
