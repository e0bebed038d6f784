"""pb17's figure style: assignment accuracy, and the clustering time (log), against m, the
entries kept per row (the paper plots accuracy against γ = m/p), with the paper's names for its
four methods."""

from __future__ import annotations

from kmdr.figures.style import FigureStyle, Panel

__all__ = ["STYLE"]

STYLE = FigureStyle(
    panels=(
        Panel("accuracy", "Assignment accuracy", "Assignment accuracy", scale=1.0),
        Panel("cluster_seconds", "Clustering time", "Clustering time (in seconds)", log=True),
    ),
    xlabel="m, entries kept per row (γ = m/p)",
    reference="pb17 §VI (accuracy vs γ, one and two passes)",
    names={
        "none": "K-means",
        "sparsified": "Sparsified K-means",
        "sparsified_raw": "Sparsified K-means (no preconditioning)",
        "sparsified_two_pass": "Sparsified K-means, 2 pass",
    },
    baseline_note="; all p entries, no sketch",
)
