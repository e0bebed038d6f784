"""Pourkamali-Anaraki and Becker (2017): preconditioned data sparsification, and sparsified
k-means on it, in one and two passes.

Its figure style (``pb17``), its claims checked against our results, its theory check (the
covariance estimator of its PCA theorem on our data) and its deviations: all declared in
:data:`PAPER`.
"""

from __future__ import annotations

from kmdr.plugins import Paper

__all__ = ["PAPER"]

PAPER = Paper(
    key="pb17",
    title=(
        "Pourkamali-Anaraki, Becker. Preconditioned Data Sparsification for Big Data with "
        "Applications to PCA and K-means. IEEE Trans. Inf. Theory 63(5), 2017"
    ),
    citation="Pourkamali-Anaraki, Becker, IEEE Trans. Inf. Theory 2017",
    figure_styles={"pb17": "kmdr.papers.pb17.figures:STYLE"},
)
