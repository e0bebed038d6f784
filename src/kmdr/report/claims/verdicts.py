"""Verdicts on the papers' curve-only claims: the types, the statistical tests and the one rule
that turns a claim's comparisons into its verdict.

The statistics themselves (estimates, Welch, tolerance tests, Hedges' g, Holm, printing a p)
live in :mod:`.significance`; this module gives the reasons for them, once.

A :class:`Claim` restates one sentence of a paper as a checkable statement; its ``check``
(:mod:`.checks`) reads the experiment's summary (one row per dataset, method and r, with
``<metric>_mean``, ``<metric>_std`` (ddof 1) and ``n_cells`` columns, see
docs/results-layout.md) and returns a :class:`Part`: the comparisons the claim is made of.
:func:`decide` turns them into a :class:`Verdict` (``holds``, ``partly``, ``tie``, ``fails`` or
``no data``) by the one rule below, the same for every claim.

**The tests.** A comparison of two means ("A beats B", "A leads", "faster than full", "lowest", a
trend between the first and the last quarter of the r grid) is a Welch t-test, two-sided,
computed from the summary's mean, sd and n (:func:`welch`). A comparison of two curves compares
their means over the common r grid: the mean over R points has variance ``Σ s_r²/n_r / R²`` and
Welch-Satterthwaite degrees of freedom, which for a single point is exactly
:func:`scipy.stats.ttest_ind_from_stats` with ``equal_var=False``. Why Welch per point rather
than a paired test over r on the per-r means: the per-r means of one method share its trend in
r, so a paired test over r sees a consistent 0.005 margin on 20 points as significant however
noisy each point is; Welch uses the repetitions' own noise, which is what separates a real lead
from a tie. It treats the r points as independent although they share seeds (stated, not
hidden). A comparison against a tolerance the claim states ("within 5% of kMeans' F", "at most
25% of RP's growth") is tested against that tolerance, one-sided at α on the side where the
estimate lies (for "within": two one-sided tests, :func:`margin_test`), so that a tolerance is
never met by a noisy mean alone. Beside each p: the difference of means and Hedges' g (the
difference over the pooled per-repetition sd, small-sample corrected; :func:`hedges_g`).

**Only independent measurements are tested.** A point whose sd is unknown (one repetition), or a
time whose repetitions all repeat one value (a time copied from one repetition to the others,
as runs recorded deterministic reductions before each repetition was timed; the
``<metric>_copied`` flag the report sets from the cells), has no test: its comparison is shown as
``p n/a`` and is not significant. So is a comparison where neither side varies (identical
repetitions give no noise to test against).

**The verdict rule** (:data:`VERDICT_RULE`, printed in the report's legend). The p-values of a
claim's comparisons are adjusted together by Holm's step-down method (:func:`holm`), so that the
chance of any significant comparison in a claim where none is real is at most α. After it, a
comparison is *for* the claim (significant in the claimed direction), *against* it (significant
the other way), *short* (significant in the claimed direction but short of a threshold the
claim adds: a relative margin, the sign of Spearman's ρ, a growth factor, the timer floor) or
*not significant*. The claim **fails** if any comparison is against it, **holds** if every one
is for it, is **partly** true if some are for it or short and none against, and is a **tie** if
none is significant. Each verdict's evidence starts with these counts and lists every comparison
(or, for claims over many points, each method's counts) with its p and Holm-adjusted p.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from kmdr.report.claims.significance import (  # noqa: F401 (re-exported: one import for all)
    ALPHA,
    BASELINE,
    P_FLOOR,
    Estimate,
    baseline_value,
    curve,
    effect_text,
    estimate,
    hedges_g,
    holm,
    margin_test,
    p_text,
    points,
    welch,
)

HOLDS = "holds"
PARTLY = "partly"
TIE = "tie"
FAILS = "fails"
NO_DATA = "no data"
VERDICTS = (HOLDS, PARTLY, TIE, FAILS, NO_DATA)

#: How every verdict's evidence names its tests.
TEST = f"Welch t, Holm-corrected within the claim, α = {ALPHA:g}"
#: The verdict rule, declared once: the report's legend prints it.
VERDICT_RULE = (
    f"Each comparison is a Welch t-test (two-sided; one-sided at α against a tolerance the claim "
    f"states), and the p-values of one claim's comparisons are Holm-corrected together "
    f"(α = {ALPHA:g}). A comparison is then *for* the claim (significant in the claimed "
    "direction), *against* it (significant the other way), *short* (significant in the claimed "
    "direction but short of a threshold the claim adds) or not significant. **fails**: any "
    "comparison against the claim; **holds**: every comparison for it; **partly**: some for it "
    "(or short) and none against; **tie**: none significant (neither confirmed nor refuted); "
    "**no data**: nothing to compare (not run or skipped). Only independent measurements are "
    "tested: a point with one repetition, a time copied between repetitions, or equal "
    "repetitions on both sides is *p n/a* and not significant. Each verdict's evidence gives "
    "the counts, then each comparison with the difference Δ, Hedges' g, p and the Holm-adjusted "
    "p; ✓ for, ✗ against, ~ short, = not significant, ≈ converged (at kMeans' level, not "
    "counted)."
)
TREND_MARGIN = 0.01
CONVERGE_TOL = 0.05
NEAR_ACCURACY = 0.05
SIGNIFICANT_GROWTH = 1.5
#: A time under this many seconds is timer noise: a growth that ends below it is short.
TIMER_FLOOR = 0.005
#: A curve is flat next to a neighbour when it grows by at most this share of the neighbour's
#: growth (both in seconds, last quarter minus first quarter of the r grid) plus the timer floor.
FLAT_SHARE = 0.25

LAPSCORES = "LapScores"

#: Outcomes of a comparison after the correction.
FOR, SHORT, NOT_SIGNIFICANT, AGAINST, CONVERGED = "for", "short", "n.s.", "against", "converged"
MARK = {FOR: "✓", SHORT: "~", NOT_SIGNIFICANT: "=", AGAINST: "✗", CONVERGED: "≈"}


@dataclass(frozen=True)
class Verdict:
    """A claim's verdict, its evidence text and (label, outcome, p, Holm-adjusted p) of each
    comparison it came from."""

    verdict: str
    evidence: str
    outcomes: tuple = ()


@dataclass(frozen=True)
class Comparison:
    """One comparison of a claim.

    ``p`` is its test's p-value (NaN: no test possible), ``favours`` whether the estimate lies in
    the claimed direction, ``short`` why a significant result in that direction still falls
    short of the claim ("" when it does not), ``counted`` False for a converged curve (shown,
    not counted), ``group`` the name under which claims over many points count it.
    """

    label: str
    text: str
    p: float
    favours: bool
    short: str = ""
    counted: bool = True
    group: str = ""


@dataclass(frozen=True)
class Part:
    """What a check found: its comparisons, the methods it could not compare (not run), a
    context shown before them (kMeans' value), and why nothing was compared (``no_data``).
    ``grouped``: the evidence counts the comparisons per ``group`` instead of listing each."""

    comparisons: tuple[Comparison, ...] = ()
    missing: tuple[str, ...] = ()
    head: str = ""
    no_data: str = ""
    grouped: bool = False


@dataclass(frozen=True)
class Claim:
    """One checkable statement from a paper.

    ``check`` receives the summary rows of ``experiment`` restricted to ``dataset`` (all rows when
    ``dataset`` is None) and returns a :class:`Part` (judged by :func:`decide`) or a
    :class:`Verdict`; it is only called on non-empty data.
    """

    id: str
    paper: str
    figure: str
    source: str
    statement: str
    experiment: str
    dataset: str | None
    check: Callable[[pd.DataFrame], Part | Verdict]
    note: str = field(default="")


# --------------------------------------------------------------------------------------------
# The rule
# --------------------------------------------------------------------------------------------


def outcome_of(c: Comparison, adjusted: float) -> str:
    """A comparison's outcome given its Holm-adjusted p."""
    if not c.counted:
        return CONVERGED
    if not adjusted < ALPHA:
        return NOT_SIGNIFICANT
    if not c.favours:
        return AGAINST
    return SHORT if c.short else FOR


def verdict_of(outcomes: Sequence[str]) -> str:
    """The rule: fails on any comparison against, holds when all counted are for, partly when
    some are for or short, tie otherwise (also when every comparison is converged)."""
    counted = [o for o in outcomes if o != CONVERGED]
    if AGAINST in counted:
        return FAILS
    if counted and all(o == FOR for o in counted):
        return HOLDS
    if FOR in counted or SHORT in counted:
        return PARTLY
    return TIE


def _counts(outcomes: Sequence[str]) -> str:
    counted = [o for o in outcomes if o != CONVERGED]
    text = (
        f"{counted.count(FOR)} of {len(counted)} comparisons for the claim, "
        f"{counted.count(AGAINST)} against, {counted.count(NOT_SIGNIFICANT)} not significant"
    )
    if counted.count(SHORT):
        text += f", {counted.count(SHORT)} short of its threshold"
    if len(counted) < len(outcomes):
        text += f", {len(outcomes) - len(counted)} converged (not counted)"
    return text


def _listed(c: Comparison, p_adj: float, outcome: str) -> str:
    why = f"; short: {c.short}" if outcome == SHORT else ""
    if outcome == CONVERGED:
        adj = ", not counted"
    elif math.isnan(c.p):
        adj = ""  # untested: no adjusted p either
    else:
        adj = ", " + p_text(p_adj, "p_Holm")
    return f"{c.label}: {c.text} ({p_text(c.p)}{adj}{why}) {MARK[outcome]}"


def _grouped(part: Part, adjusted, outcomes) -> list[str]:
    """Per group: how many of its comparisons fell in each outcome, and its group text."""
    out = []
    groups = dict.fromkeys(c.group for c in part.comparisons)
    for g in groups:
        idx = [i for i, c in enumerate(part.comparisons) if c.group == g]
        got = [outcomes[i] for i in idx]
        sig = [adjusted[i] for i in idx if outcomes[i] in (FOR, SHORT, AGAINST)]
        worst = f", largest significant p_Holm {max(sig):.2g}" if sig else ""
        text = part.comparisons[idx[0]].text
        out.append(
            f"{g}: {got.count(FOR)}/{len(idx)} {MARK[FOR]}, {got.count(AGAINST)} {MARK[AGAINST]}, "
            f"{got.count(NOT_SIGNIFICANT)} {MARK[NOT_SIGNIFICANT]}"
            + (f", {got.count(SHORT)} {MARK[SHORT]}" if got.count(SHORT) else "")
            + f"{worst}{'; ' + text if text else ''}"
        )
    return out


def decide(part: Part) -> Verdict:
    """The claim's verdict from its comparisons, by the one rule (:data:`VERDICT_RULE`)."""
    comps = part.comparisons
    missing = f"; not run: {', '.join(part.missing)}" if part.missing else ""
    if not comps:
        return Verdict(NO_DATA, (part.no_data or "none of the methods was run") + missing)
    counted = [i for i, c in enumerate(comps) if c.counted]
    adjusted = np.full(len(comps), np.nan)
    adjusted[counted] = holm([comps[i].p for i in counted])
    outcomes = [outcome_of(c, a) for c, a in zip(comps, adjusted, strict=True)]
    verdict = verdict_of(outcomes)
    body = (
        _grouped(part, adjusted, outcomes)
        if part.grouped
        else [_listed(c, a, o) for c, a, o in zip(comps, adjusted, outcomes, strict=True)]
    )
    head = f"{part.head}; " if part.head else ""
    text = f"[{TEST}] {_counts(outcomes)}. {head}" + "; ".join(body) + missing
    table = tuple((c.label, o, c.p, a) for c, o, a in zip(comps, outcomes, adjusted, strict=True))
    return Verdict(verdict, text, table)


def evaluate(claim: Claim, summaries: dict[str, pd.DataFrame]) -> Verdict:
    """The claim's verdict on ``summaries`` (experiment -> summary DataFrame)."""
    df = summaries.get(claim.experiment)
    if df is None or len(df) == 0:
        return Verdict(NO_DATA, f"no results for {claim.experiment}")
    if claim.dataset is not None and "dataset" in df:
        df = df[df["dataset"] == claim.dataset]
        if df.empty:
            return Verdict(NO_DATA, f"no results for dataset {claim.dataset} in {claim.experiment}")
    try:
        found = claim.check(df)
        return decide(found) if isinstance(found, Part) else found
    except Exception as exc:  # a malformed table must not stop the report
        return Verdict(NO_DATA, f"check could not run: {type(exc).__name__}: {exc}")
