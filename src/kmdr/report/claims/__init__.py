"""The papers' curve-only claims, written as statements our results can check.

bzmd14 (Figs. 1-3) and lst17 (Figs. 1-3) publish curves, not numbers, and say in words what the
curves show (bzmd14 §7.5 and §8, lst17 §4.2). :mod:`.verdicts` holds the :class:`Verdict` and
:class:`Claim` types and the one verdict rule (Holm-corrected within each claim,
:data:`VERDICT_RULE`); :mod:`.significance` the statistics it uses (Welch t from the summary's
mean, sd and n, tolerance tests, Hedges' g, Holm); :mod:`.checks` the generic checks;
:mod:`.bzmd14` and :mod:`.lst17` each paper's catalog of claims. This module
re-exports what the report and the tests use.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from kmdr.papers.bzmd14.claims import BZMD14_DATASETS, BZMD14_METHODS, bzmd14_claims
from kmdr.papers.lst17.claims import LST17_DATASETS, LST17_METHODS, lst17_claims
from kmdr.report.claims.verdicts import (
    ALPHA,
    BASELINE,
    CONVERGE_TOL,
    FAILS,
    FLAT_SHARE,
    HOLDS,
    LAPSCORES,
    NEAR_ACCURACY,
    NO_DATA,
    PARTLY,
    SIGNIFICANT_GROWTH,
    TEST,
    TIE,
    TIMER_FLOOR,
    TREND_MARGIN,
    VERDICT_RULE,
    VERDICTS,
    Claim,
    Comparison,
    Part,
    Verdict,
    baseline_value,
    curve,
    decide,
    evaluate,
    holm,
    p_text,
    welch,
)

__all__ = [
    "ALPHA",
    "BASELINE",
    "BZMD14_DATASETS",
    "BZMD14_METHODS",
    "CLAIMS",
    "CONVERGE_TOL",
    "FAILS",
    "FLAT_SHARE",
    "HOLDS",
    "LAPSCORES",
    "LST17_DATASETS",
    "LST17_METHODS",
    "NEAR_ACCURACY",
    "NO_DATA",
    "PARTLY",
    "SIGNIFICANT_GROWTH",
    "TEST",
    "TIE",
    "TIMER_FLOOR",
    "TREND_MARGIN",
    "VERDICTS",
    "VERDICT_RULE",
    "Claim",
    "Comparison",
    "Part",
    "Verdict",
    "baseline_value",
    "curve",
    "decide",
    "evaluate",
    "evaluate_all",
    "holm",
    "p_text",
    "welch",
]

#: Every claim the report checks, in report order.
CLAIMS: tuple[Claim, ...] = (*bzmd14_claims(), *lst17_claims())


def evaluate_all(
    summaries: dict[str, pd.DataFrame], claims: Sequence[Claim] = CLAIMS
) -> list[tuple[Claim, Verdict]]:
    return [(c, evaluate(c, summaries)) for c in claims]
