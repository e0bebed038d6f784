"""The papers' curve-only claims, written as statements our results can check.

Papers that publish curves, not numbers (bzmd14 and lst17, Figs. 1-3 each), say in words what
the curves show; each such sentence is a :class:`Claim` checked on our cells.
:mod:`.verdicts` holds the :class:`Verdict` and :class:`Claim` types and the one verdict rule
(Holm-corrected within each claim, :data:`VERDICT_RULE`); :mod:`.significance` the statistics it
uses (t-tests on one number per repetition, read from the cells; tolerance tests, Hedges' g,
the smallest detectable effect, Holm);
:mod:`.checks` the generic checks. Each paper declares its claims in its own package, as the
``claims`` of its :class:`kmdr.plugins.Paper` (:data:`CLAIM_SETS`): a callable returning the
claims, or the claims themselves, e.g. ``Paper("mypaper", ..., claims="mypkg.claims:my_claims")``.

This module re-exports what the report and the tests use.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from kmdr.plugins import Registry
from kmdr.report.claims.verdicts import (
    ALPHA,
    BASELINE,
    CONVERGE_FLOOR,
    CONVERGE_TOL,
    FAILS,
    FLAT_SHARE,
    HOLDS,
    LAPSCORES,
    NEAR_ACCURACY,
    NO_DATA,
    NOT_TESTABLE,
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
    replicates,
    test,
)

__all__ = [
    "ALPHA",
    "BASELINE",
    "CLAIM_SETS",
    "CONVERGE_FLOOR",
    "CONVERGE_TOL",
    "FAILS",
    "FLAT_SHARE",
    "HOLDS",
    "LAPSCORES",
    "NEAR_ACCURACY",
    "NOT_TESTABLE",
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
    "all_claims",
    "baseline_value",
    "curve",
    "decide",
    "evaluate",
    "evaluate_all",
    "holm",
    "p_text",
    "replicates",
    "report_wide",
    "test",
]


def _claim_set(obj, name: str) -> tuple[Claim, ...]:
    claims = tuple(obj() if callable(obj) else obj)
    wrong = [type(c).__name__ for c in claims if not isinstance(c, Claim)]
    if wrong:
        raise TypeError(
            f"claim set {name} holds {wrong[0]} objects: give kmdr.report.claims.Claim objects"
        )
    return claims


#: The papers' claim sets, by name (a paper's key): each a tuple of :class:`Claim`.
CLAIM_SETS: Registry = Registry(
    "claim set", "kmdr.papers", convert=_claim_set, paper_field="claims"
)


def all_claims() -> tuple[Claim, ...]:
    """Every claim the report checks, in report order (claim set by claim set)."""
    return tuple(claim for name in CLAIM_SETS for claim in CLAIM_SETS.get(name))


def report_wide(results: Sequence[tuple[Claim, Verdict]], extra: Sequence = ()) -> str:
    """The verdicts that Holm's correction over every comparison of the report (not claim by
    claim) would change, as one sentence.

    A comparison's Holm-adjusted p over the whole report is never below its adjusted p within
    its claim (its multiplier, the number of p-values at least as large, only grows), so the
    wider family can only make a significant comparison not significant; each claim's verdict
    is then the one rule's (:func:`~.verdicts.verdict_of`) on its outcomes so demoted.
    ``extra``: (name, verdict) of claims the report checks outside the papers' claim sets (the
    distortion section's), in the same family."""
    from kmdr.report.claims.verdicts import CONVERGED, NOT_SIGNIFICANT, verdict_of

    results = [(c.id, v) for c, v in results] + [(name, v) for name, v in extra]
    rows = [(i, j, o) for i, (_, v) in enumerate(results) for j, o in enumerate(v.outcomes)]
    p = [float(o[2]) for _, _, o in rows]
    adjusted = holm(p)
    outcomes = {i: [o[1] for o in v.outcomes] for i, (_, v) in enumerate(results)}
    for (i, j, o), a in zip(rows, adjusted, strict=True):
        if o[1] not in (NOT_SIGNIFICANT, CONVERGED) and not a < ALPHA:
            outcomes[i][j] = NOT_SIGNIFICANT
    changed = []
    for i, (claim, v) in enumerate(results):
        if not v.outcomes or v.verdict in (NO_DATA, NOT_TESTABLE):
            continue
        wide = verdict_of(outcomes[i])
        if wide != v.verdict:
            changed.append(f"`{claim}` {v.verdict} → {wide}")
    m = int(sum(1 for x in p if x == x))
    head = (
        f"Error is controlled per claim (Holm within each claim, α = {ALPHA:g}). Holm's "
        f"correction over all {m} tested comparisons of the report would change "
    )
    if not changed:
        return head + "no verdict."
    return head + f"{len(changed)} verdict(s): " + "; ".join(changed) + "."


def evaluate_all(
    cells: dict[str, pd.DataFrame], claims: Sequence[Claim] | None = None, root=None
) -> list[tuple[Claim, Verdict]]:
    """Each claim's verdict on ``cells`` (experiment -> its :func:`replicates`) of the results
    folder ``root``."""
    claims = all_claims() if claims is None else claims
    return [(c, evaluate(c, cells, root)) for c in claims]
