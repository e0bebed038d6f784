"""The report section of the curve-only papers (bzmd14, lst17, and the course report's
projections drawn as bzmd14 curves): their figures with the claims their text makes about them,
each checked on our results. Registered as the report section ``curves``."""

from __future__ import annotations

from kmdr.report.sections import ExperimentsSection

__all__ = ["CURVES"]

CURVES = ExperimentsSection(
    heading="## Curve-only figures: the papers' claims checked",
    intro="bzmd14 and lst17 publish curves, not numbers. Their text says what the curves show "
    "(bzmd14 §7.5 and §8; lst17 §4.2); each such sentence is restated below as a check on our "
    "means over the repetitions (bzmd14: mean of 5 executions, as the paper). bzmd14 Figure 2 "
    "(b, d, f) (LIGHT) and lst17's SECTOR and ILSVRC2012 panels are not reproduced (see "
    "Deviations).",
    default_order=30,
    always_shown=True,
    takes_orphans=True,
)
