"""The 2020 course-project report that reproduced bmd09 and random projections on the raw ORL
faces: the presets ``report_orl_projections*`` (``preset.paper: report``).

It has no style, section, claim or theorem of its own: its experiments are drawn in bzmd14's
style and placed in the ``curves`` and ``diagnostic`` sections, and no claim is made about them.
:data:`PAPER` holds what a reader must know before reading their figures.
"""

from __future__ import annotations

from kmdr.plugins import Paper

__all__ = ["PAPER"]

PAPER = Paper(
    key="report",
    title="The 2020 course-project report reproducing bmd09 and random projections on ORL "
    "(k-means with dimension reduction)",
    notes={
        "report_orl_projections": (
            "The course-project report (a 2020 reproduction of bmd09 and of the random-projection "
            "paper) compares, on the raw 112×92 ORL images (10304 features), k-means on A with "
            "A V_k, A Ω S (leverage sampling: exact scores, a randomized SVD, square-root scores) "
            "and A R (sign projection), beside Gaussian, Achlioptas and FJLT (SRHT) projections. "
            "Its protocol is followed here: k-means starts from the **first image of each "
            "class** (a label-informed start kmdr offers for this reproduction only), 30 "
            "iterations, one run; we average 10 repetitions where the report ran once. No "
            "numbers of it are recorded here to check against; the figure is ours, for "
            "comparison with the report's."
        ),
        "report_orl_projections_kmeanspp": (
            "The same projections and grid as `report_orl_projections` with k-means++ starts (5 "
            "restarts × 500 iterations) instead of the report's label-informed start: a variant, "
            "not the report's protocol."
        ),
    },
)
