"""What no single paper declares: the report sections the papers share (``curves``, the curve-only
figures of bzmd14, lst17 and the course report) and the generic ones (``diagnostic``, ``custom``,
``pipelines``: coresets against k-means on all rows),
and the deviations of kmdr's setup common to every paper (its k-means, its timings).

Declared as one :class:`kmdr.plugins.Paper` of key ``shared`` beside the papers', so that every
section and deviation of the report comes from the one entry-point group ``kmdr.papers``.
"""

from __future__ import annotations

from kmdr.plugins import Deviation, Paper

__all__ = ["PAPER"]

PAPER = Paper(
    key="shared",
    title="What kmdr's papers share: the curve-only figures' section, the generic sections, "
    "the setup every reproduction uses",
    report_sections={
        "curves": "kmdr.papers.curves:CURVES",
        "diagnostic": "kmdr.report.sections:DIAGNOSTIC",
        "custom": "kmdr.report.sections:CUSTOM",
        "pipelines": "kmdr.report.pipelines:PIPELINES",
    },
    deviations=(
        Deviation(
            50,
            "**k-means**: Lloyd's algorithm with restarts (scikit-learn), not MATLAB's `kmeans`; "
            "the seeding, restarts and iteration cap of each cell are recorded in `cells.csv` "
            "(`kmeans_init`, `kmeans_n_init`, `kmeans_max_iter`).",
        ),
        Deviation(
            51,
            "**Times** were measured on a shared 2-core machine; compare their shapes and "
            "orderings with the papers', not their values. Every repetition's reduction time is "
            "its own measurement (`reduce_timing` in `cells.csv`; shared r-independent work is "
            "timed once per repetition and charged to every r of it), so the time tests compare "
            "independent measurements; times copied between repetitions (results written before "
            "this) are never tested.",
        ),
    ),
)
