"""lst17's figure style: per dataset P (%), the dimension reduction time (log) and the
clustering time (log) vs the number of dimensions, as its Figures 1-3, with lst17's own names
for the methods it shares with bzmd14."""

from __future__ import annotations

from kmdr.figures.style import FigureStyle, Panel
from kmdr.report.claims.labels import shown_names

__all__ = ["STYLE"]

STYLE = FigureStyle(
    panels=(
        Panel("accuracy", "Clustering accuracy", "Clustering accuracy (in %)", scale=100.0),
        Panel(
            "reduce_seconds",
            "Dimension reduction time",
            "Dimension reduction time (in seconds)",
            log=True,
            baseline=False,
        ),
        Panel("cluster_seconds", "Clustering time", "Clustering time (in seconds)", log=True),
    ),
    xlabel="# of dimensions",
    reference="lst17 Figs. 1-3",
    names={"none": "k-means", "laplacian": "LS"},
    # PD's r is the number of entries it keeps per row, not a number of dimensions
    legend_notes={"sparsified": "r = entries kept per row"},
    # a PD line under kmdr's rules, not its authors' (their code's defaults are pb17's PD), is
    # named "PD, kmdr's variant" as the report names it, though its cells keep the label PD
    shown_names=shown_names,
    baseline_note="; its reduction time is 0 s, not drawn",
)
