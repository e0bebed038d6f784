"""Verdicts on the papers' curve-only claims: the types, the statistical tests and the one rule
that turns a claim's comparisons into its verdict.

The statistics themselves (per-repetition samples, Welch's and the paired t-test, tolerance
tests, Hedges' g, the smallest detectable effect, Holm, printing a p) live in
:mod:`.significance`; this module gives the reasons for them, once.

A :class:`Claim` restates one sentence of a paper as a checkable statement; its ``check``
(:mod:`.checks`) reads the experiment's cells (one row per dataset, method, r and repetition,
see docs/results-layout.md) and returns a :class:`Part`: the comparisons the claim is made of.
:func:`decide` turns them into a :class:`Verdict` (``holds``, ``partly``, ``undecided``, ``fails``
or ``no data``) by the one rule below, the same for every claim.

**The unit.** Every test is on one number per repetition (:data:`~.significance.REPLICATE`):
the r points of one repetition share its seeds' stream, the reduction they reuse and, for
times, the machine's load, so they are not independent samples; pooling them would count one
repetition R times and print p-values too small by orders of magnitude.

**The tests.** A comparison of two methods ("A beats B", "A leads", "lowest", "slowest") tests
their per-repetition means over the common r grid: paired where the repetitions share seeds,
Welch's t otherwise, two-sided. Times are compared as ratios (on the log of the per-repetition
time), as a claim "faster" means. A claim about a whole curve ("faster than full k-means at
every r") is tested with one comparison per method (its per-repetition mean time over r against
kMeans'), and the "every r" is a test of its own on that comparison: an intersection-union test,
the one-sided ratio test at each r at α; significant overall but with some r not shown below is
*short*, and the r are listed with their ratio, its interval and p. A trend (between the first
and the last quarter of the r grid) tests each repetition's own change (last-quarter mean minus
first-quarter mean) against 0; its margin and the sign of Spearman's ρ are tests too (the change
against the margin, each repetition's own ρ against 0, one-sided). A
comparison against a tolerance the claim states ("within 5% of kMeans' F", "at most 25% of RP's
growth") is tested against that tolerance, one-sided at α on the side where the estimate lies
(for "within": two one-sided tests, :func:`margin_test`), so that a tolerance is never met by a
noisy mean alone. Beside each p: the difference Δ of the per-repetition means and Hedges' g (Δ
over the pooled per-repetition sd, or the sd of the paired differences, small-sample corrected),
on the tested scale (log for time ratios).

**Only independent measurements are tested.** A side with one repetition, or a time copied
from one repetition to the others (runs recorded deterministic reductions before each repetition
was timed; the ``<metric>_copied`` flag the report sets from the cells), has no test: its
comparison is shown as ``p n/a`` and is not significant. Where neither side varies at all (every
repetition gives the same value), the t-test has no sd, but the comparison is still a test whose
p accounts for n: the exact sign test on the per-repetition differences (``exact``; 5 of 5
repetitions agreeing is p = 0.031 one-sided, and a difference of exactly 0 is p = 1). It enters
Holm's correction like any other: five repetitions that agree do not make a claim hold by
themselves.

**Windows and tolerances.** A comparison is set aside (shown, not counted) only by a window the
paper states for that claim, and never when its own test is significant after Holm's correction;
no fixed window of kmdr's sets a comparison aside. A tolerance around a reference is one
continuous rule, max(relative × reference, absolute) (:func:`.checks.tolerance_of`), both numbers
stated; a tolerance of kmdr's (not the paper's) is marked so, and its claim is judged again at
half and twice it (:attr:`Claim.sensitivity`).

**Effect sizes.** Beside each p: the difference Δ of the per-repetition means and Hedges' g;
for times and memory, near-deterministic measures where g only says how small the noise is, the
ratio of the (geometric) means with its 95% interval instead.

**The verdict rule** (:data:`VERDICT_RULE`, printed in the report's legend). The p-values of a
claim's comparisons are adjusted together by Holm's step-down method (:func:`holm`), so that the
chance of any significant comparison in a claim where none is real is at most α. After it, a
comparison is *for* the claim (significant in the claimed direction), *against* it (significant
the other way), *short* (significant in the claimed direction but short of a threshold the
claim adds: a relative margin, the sign of Spearman's ρ, a growth factor, the timer floor, every
r) or *not significant*. The claim **fails** if any comparison is against it, **holds** if every
one is for it, is **partly** true if some are for it or short and none against, and is
**undecided** if none is significant: no difference found is not "the same", which only an
equivalence test with a stated margin shows (:func:`margin_test`). A comparison not
significant states the smallest effect it could have detected (at α over the family's size,
power 0.8); an equivalence comparison, the narrowest margin its 1 - 2α interval lies within
(what equivalence these repetitions could show). Each verdict's evidence starts with these
counts and lists every comparison with its Δ, g, p and Holm-adjusted p.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr.report.claims.significance import (  # noqa: F401 (re-exported: one import for all)
    ALPHA,
    BASELINE,
    P_FLOOR,
    POWER,
    REPLICATE,
    Sample,
    Test,
    baseline_value,
    curve,
    difference,
    effect_text,
    equivalence_interval,
    holm,
    margin_test,
    p_text,
    replicates,
    sample,
    table,
    test,
)

HOLDS = "holds"
PARTLY = "partly"
#: Nothing significant: neither shown nor refuted (never "a tie": no difference found is not
#: "the same", which only an equivalence test with a stated margin shows).
TIE = "undecided"
FAILS = "fails"
NO_DATA = "no data"
NOT_TESTABLE = "not testable"
VERDICTS = (HOLDS, PARTLY, TIE, FAILS, NOT_TESTABLE, NO_DATA)

#: How every verdict's evidence names its tests.
TEST = f"t-tests on per-repetition values, Holm-corrected within the claim, α = {ALPHA:g}"
#: How a claim's statement says a comparison must come out: the test of :data:`TEST`, in words.
SIGNIFICANTLY = (
    f"significantly (t-test on per-repetition values, Holm-corrected within the claim, "
    f"α = {ALPHA:g})"
)
#: The verdict rule, declared once: the report's legend prints it.
VERDICT_RULE = (
    f"{REPLICATE} Each comparison is a t-test on those per-repetition numbers: the paired t-test "
    "where the two sides' repetitions share their seeds (repetition i at each r draws the same "
    "numbers on both sides: a method against itself at another setting that keeps its seeds, or "
    "a reducer that takes another's seeds, as PD 2-pass takes PD's; such a comparison is "
    "marked *paired*), Welch's t-test between independent sides, and the one-sample t-test on "
    "a difference within each repetition (a trend over r) or against a fixed value; two-sided; "
    "times compared as ratios, on their log; one-sided at α against a tolerance the claim "
    "states. The p-values of one "
    f"claim's comparisons are Holm-corrected together (α = {ALPHA:g}): **error is controlled "
    "per claim**, not over the whole report (the line under the count of claims checked names "
    "the verdicts that Holm over every comparison of the report would change). *holds* means "
    "significant; a comparison that is not significant is *not rejected*, never confirmed. A "
    "claim about a whole curve is one comparison per method (e.g. its mean time over r "
    "against kMeans'); its thresholds are tests, each with its p: 'every r' is the one-sided "
    "ratio test at each r (all at α, an intersection-union test), a trend's margin the "
    "per-repetition change tested against it, ρ's sign each repetition's own Spearman ρ tested "
    "against 0. A comparison is then *for* the claim (significant in the "
    "claimed direction), *against* it (significant the other way), *short* (significant in the "
    "claimed direction but short of a threshold the claim adds) or not significant. **fails**: "
    "any comparison against the claim; **holds**: every comparison for it; **partly**: some for "
    "it (or short) and none against; **undecided**: none significant (neither confirmed nor "
    "refuted, never a tie: 'the same' is only ever shown by an equivalence test, two one-sided "
    "tests against a stated margin; each such comparison states the smallest effect it could "
    f"have detected at its n, at α over the number of comparisons and power {POWER:g}, or, for "
    "an equivalence test, the narrowest margin its 1 − 2α interval lies within); **not "
    "testable**: the data ran but "
    "left no comparison to count; **no data**: nothing to compare (not run or skipped). A side "
    "with one repetition, or a time copied between repetitions, is *p n/a* and not "
    "significant. Four rules more: (1) **no spread is still a test**: where neither side "
    "varies, the comparison is the exact sign test on the per-repetition differences "
    "(scipy.stats.binomtest), whose p accounts for n (5 repetitions that all agree: p = 0.031 "
    "one-sided, 0.062 two-sided; a difference of exactly 0: p = 1), and it enters Holm's "
    "correction like any other; a claim whose every comparison is such a test, where even "
    "the smallest p its n allows times the number of comparisons is not below α, is "
    '**not testable** ("untestable at n = 5"), never undecided; (2) **no fixed window**: a '
    "comparison is set aside as "
    "converged only by a tolerance the paper states for that claim, and never when its own "
    "test is significant after Holm's correction; (3) **one continuous tolerance rule**: a "
    "tolerance around a reference value is max(relative × reference, absolute), both numbers "
    "stated (F as a share of ||A||_F^2, the scale the paper plots), so it never jumps where the "
    "reference nears 0; each tolerance is marked as the paper's or kmdr's, and a claim judged "
    "against a tolerance of kmdr's ends with its verdicts at half and twice that tolerance; "
    "the repetitions beyond it are shown; (4) **ratios for near-deterministic measures**: "
    "times and memory "
    "are tested on their log and report the ratio with its 95% interval instead of Hedges' g "
    "(a time's growth tested against a margin in seconds reports the difference with its 95% "
    "interval). Each verdict's evidence "
    "gives the counts, then each comparison with the difference Δ of the per-repetition means "
    "and Hedges' g (or the ratio and its interval), p and the Holm-adjusted p; ✓ for, ✗ "
    "against, ~ short, = not significant, ≈ converged (within the paper's tolerance, not "
    "significant, not counted)."
)
#: kmdr's margin of a trend (relative change from the first to the last quarter of the r grid).
TREND_MARGIN = 0.01
#: kmdr's tolerance of "F approaches kMeans' F" (the paper states none), relative to kMeans' F...
CONVERGE_TOL = 0.05
#: ...and its absolute floor, on the scale the paper plots F on (a share of ||A||_F^2: half a
#: percent of the data's energy): the tolerance is max(CONVERGE_TOL × F_kMeans, CONVERGE_FLOOR).
CONVERGE_FLOOR = 0.005
#: kmdr's tolerance of "near-kMeans accuracy" (the paper states none), in accuracy.
NEAR_ACCURACY = 0.05
#: kmdr's threshold of "grows" (a time's last-quarter mean over its first-quarter mean).
SIGNIFICANT_GROWTH = 1.5
#: A time under this many seconds is timer noise: a growth that ends below it is short.
TIMER_FLOOR = 0.005
#: A curve is flat next to a neighbour when it grows by at most this share of the neighbour's
#: growth (both in seconds, last quarter minus first quarter of the r grid) plus the timer floor.
FLAT_SHARE = 0.25

LAPSCORES = "LapScores"
#: The factors by which a claim with a tolerance of kmdr's is judged again (its sensitivity
#: line), with their names.
SENSITIVITY = ((0.5, "half"), (2.0, "twice"))
#: How a statement marks a tolerance that is kmdr's choice, not the paper's.
KMDRS = "kmdr's tolerance, not the paper's"

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

    ``p`` is its test's p-value (NaN: no test possible), ``test`` the test it comes from (its
    effect size, its power, whether it is ``exact``), ``favours`` whether the estimate lies in
    the claimed direction, ``short`` why a significant result in that direction still falls
    short of the claim ("" when it does not), ``counted`` False for a converged curve (shown,
    not counted).
    """

    label: str
    text: str
    p: float
    favours: bool
    short: str = ""
    counted: bool = True
    test: Test | None = None
    #: An equivalence comparison's margin (low, high) on the tested scale: when not
    #: significant, the evidence says the narrowest margin its 1 - 2α interval lies within.
    margin: tuple[float, float] | None = None
    #: The factor ``p`` carries over ``test.p`` (a Bonferroni over the claim's targets): the
    #: smallest p a sign test can give is multiplied by it too.
    multiplier: int = 1


@dataclass(frozen=True)
class Part:
    """What a check found: its comparisons, the methods it could not compare (not run), a
    context shown before them (kMeans' value), and why nothing was compared (``no_data``)."""

    comparisons: tuple[Comparison, ...] = ()
    missing: tuple[str, ...] = ()
    head: str = ""
    no_data: str = ""


@dataclass(frozen=True)
class Claim:
    """One checkable statement from a paper.

    ``check`` receives the cells of ``experiment`` restricted to ``dataset`` (all rows when
    ``dataset`` is None) and returns a :class:`Part` (judged by :func:`decide`) or a
    :class:`Verdict`; it is only called on non-empty data. A claim that also reads a file names
    it in ``reads``, relative to the results folder the report is built from: ``check`` then
    receives its path as ``path=`` (so a report reads only the folder it is given).
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
    reads: str = ""
    #: For a claim with a tolerance of kmdr's (not the paper's): the check with that tolerance
    #: scaled by a factor; the evidence then ends with the verdicts at half and twice it.
    sensitivity: Callable[[float], Callable[[pd.DataFrame], Part | Verdict]] | None = None
    #: A claim made across several experiments (one Holm family over all their comparisons):
    #: their names, ``experiment`` the first; ``check`` receives their cells together, each row
    #: naming its own in an ``experiment`` column.
    experiments: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------
# The rule
# --------------------------------------------------------------------------------------------


def outcome_of(c: Comparison, adjusted: float) -> str:
    """A comparison's outcome given its Holm-adjusted p. A comparison set aside by the paper's
    tolerance counts after all when its own test is significant."""
    significant = adjusted < ALPHA
    if not c.counted and not significant:
        return CONVERGED
    if not significant:
        return NOT_SIGNIFICANT
    if not c.favours:
        return AGAINST
    return SHORT if c.short else FOR


def verdict_of(outcomes: Sequence[str]) -> str:
    """The rule: fails on any comparison against, holds when all counted are for, partly when
    some are for or short, undecided when none is significant, not testable when none is
    counted (every comparison converged: "undecided" would claim a test that was not made)."""
    counted = [o for o in outcomes if o != CONVERGED]
    if not counted:
        return NOT_TESTABLE
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


def _detectable(c: Comparison, alpha: float) -> str:
    """The smallest effect ``c``'s test could have detected with power :data:`POWER` at
    ``alpha``, as text ("" when it cannot be computed); for a sign test, the smallest p its n
    allows."""
    if c.test is None:
        return ""
    if c.test.exact:
        n, best = _smallest_p(c)
        reach = "cannot reach" if best >= alpha else "reaches"
        return f"; a sign test on {n} repetitions {reach} α = {alpha:.2g} (smallest p {best:.2g})"
    if c.margin is not None:
        return _narrowest_margin(c, alpha)
    g, delta = c.test.detectable(alpha)
    if math.isnan(g):
        return ""
    if math.isnan(delta):
        dtxt = ""
    elif c.test.log:
        dtxt = f"a ratio beyond ×{math.exp(-delta):.3g}–×{math.exp(delta):.3g}, "
    else:
        dtxt = f"|Δ| ≥ {delta:.3g}, "
    return f"; could detect {dtxt}|g| ≥ {g:.2f} at α = {alpha:.2g}, power {POWER:g}"


def _smallest_p(c: Comparison) -> tuple[int, float]:
    """A sign-test comparison's n and the smallest p it can print: one-sided 1/2^n (two-sided
    twice it), times the comparison's own :attr:`Comparison.multiplier`, at most 1."""
    n = c.test.n_a if c.test.n_b == 0 else min(c.test.n_a, c.test.n_b)
    best = 0.5**n * (2 if c.test.alternative == "two-sided" else 1)
    return n, min(1.0, best * c.multiplier)


def _narrowest_margin(c: Comparison, alpha: float) -> str:
    """What an equivalence comparison could show: the narrowest margin its 1 - 2α interval
    (α: Holm's strictest step) lies within, beside the margin stated ("" without an interval)."""
    low, high = equivalence_interval(c.test, alpha)
    if math.isnan(low):
        return ""
    lo, hi = c.margin
    width = max(abs(low), abs(high))
    if c.test.log:
        shown = f"×(1 ± {math.expm1(width):.2g})"
        stated = f"×{math.exp(lo):.3g}–×{math.exp(hi):.3g}"
    else:
        shown, stated = f"±{width:.3g}", f"{lo:+.3g} to {hi:+.3g}"
    return (
        f"; undecided: its {100 * (1 - 2 * alpha):.3g}% interval reaches past the margin "
        f"{stated}; these repetitions could show equivalence within {shown}"
    )


def _listed(c: Comparison, p_adj: float, outcome: str, alpha: float) -> str:
    why = f"; short: {c.short}" if outcome == SHORT else ""
    if outcome == CONVERGED:
        adj = ", " + p_text(p_adj, "p_Holm") + ", within the paper's tolerance, not counted"
    elif math.isnan(c.p):
        adj = ""  # untested: no adjusted p either
    else:
        adj = ", " + p_text(p_adj, "p_Holm")
    if outcome == NOT_SIGNIFICANT:
        why += _detectable(c, alpha)
    reason = (
        c.test.why if c.test is not None and c.test.why else "no sd from independent repetitions"
    )
    kind = "paired, " if c.test is not None and c.test.paired else ""
    if c.test is not None and c.test.exact:
        kind += f"{reason}, "
    return f"{c.label}: {c.text} ({kind}{p_text(c.p, why=reason)}{adj}{why}) {MARK[outcome]}"


def _untestable(comps: Sequence[Comparison], outcomes: Sequence[str]) -> str:
    """Why a claim is untestable at its n ("" when it is not): every counted comparison is a
    sign test on repetitions that do not vary (:attr:`~.significance.Test.exact`), and the
    smallest p such a test can give at its n, times the m comparisons Holm's first step
    multiplies by, is not below α: no outcome of these repetitions could make any comparison
    significant, so "undecided" would claim a test that could not decide."""
    counted = [c for c, o in zip(comps, outcomes, strict=True) if o != CONVERGED]
    if not counted or not all(c.test is not None and c.test.exact for c in counted):
        return ""
    m = len(counted)
    (n, best), c = min(((_smallest_p(c), c) for c in counted), key=lambda x: x[0][1])
    if m * best < ALPHA:
        return ""
    bonferroni = (
        f": {best / c.multiplier:.2g} × {c.multiplier} targets, Bonferroni"
        if c.multiplier > 1 and best < 1
        else ""
    )
    return (
        f"untestable at n = {n}: every comparison is a sign test on repetitions that do not "
        f"vary, whose smallest possible p ({best:.2g}{bonferroni}) times the {m} comparisons "
        f"of Holm's correction ({min(1.0, m * best):.2g}) cannot go below α = {ALPHA:g}, "
        "whatever the data"
    )


def decide(part: Part) -> Verdict:
    """The claim's verdict from its comparisons, by the one rule (:data:`VERDICT_RULE`)."""
    comps = part.comparisons
    missing = f"; not run: {', '.join(part.missing)}" if part.missing else ""
    if not comps:
        return Verdict(NO_DATA, (part.no_data or "none of the methods was run") + missing)
    # every comparison is in the family, those a paper's tolerance sets aside too: their own
    # test decides whether they may stay aside
    adjusted = holm([c.p for c in comps])
    outcomes = [outcome_of(c, a) for c, a in zip(comps, adjusted, strict=True)]
    verdict = verdict_of(outcomes)
    # the smallest effect a comparison could show is that of Holm's strictest step, α / m
    m = max(1, int(np.sum(~np.isnan(adjusted))))
    body = [_listed(c, a, o, ALPHA / m) for c, a, o in zip(comps, adjusted, outcomes, strict=True)]
    head = f"{part.head}; " if part.head else ""
    untestable = _untestable(comps, outcomes) if verdict == TIE else ""
    if untestable:
        verdict, head = NOT_TESTABLE, f"{untestable}; {head}"
    text = f"[{TEST}] {_counts(outcomes)}. {head}" + "; ".join(body) + missing
    table_ = tuple((c.label, o, c.p, a) for c, o, a in zip(comps, outcomes, adjusted, strict=True))
    return Verdict(verdict, text, table_)


def _cells_of(claim: Claim, cells: dict[str, pd.DataFrame]) -> pd.DataFrame | None:
    """The cells a claim is checked on: its experiment's, or, for a claim across experiments,
    theirs together, each row's ``experiment`` naming its own (those not run left out)."""
    if not claim.experiments:
        return cells.get(claim.experiment)
    found = [cells[e].assign(experiment=e) for e in claim.experiments
             if e in cells and len(cells[e])]  # fmt: skip
    return pd.concat(found, ignore_index=True) if found else None


def evaluate(claim: Claim, cells: dict[str, pd.DataFrame], root: Path | None = None) -> Verdict:
    """The claim's verdict on ``cells`` (experiment -> its cells, one row per repetition);
    ``root``: the results folder they come from, where a claim's ``reads`` file is."""
    df = _cells_of(claim, cells)
    if df is None or len(df) == 0:
        names = ", ".join(claim.experiments or (claim.experiment,))
        return Verdict(NO_DATA, f"no results for {names}")
    if claim.dataset is not None and "dataset" in df:
        df = df[df["dataset"] == claim.dataset]
        if df.empty:
            return Verdict(NO_DATA, f"no results for dataset {claim.dataset} in {claim.experiment}")
    if "repetition" not in df:
        return Verdict(
            NO_DATA,
            f"{claim.experiment} has no repetition column: the claims read the cells (one row "
            "per repetition), not a summary",
        )
    if claim.reads and root is None:
        return Verdict(NO_DATA, f"no data: no results folder given to read {claim.reads} from")
    extra = {"path": Path(root) / claim.reads} if claim.reads else {}
    cells = replicates(df)
    try:
        found = claim.check(cells, **extra)
        verdict = decide(found) if isinstance(found, Part) else found
    except Exception as exc:  # a malformed table must not stop the report
        return Verdict(NO_DATA, f"check could not run: {type(exc).__name__}: {exc}")
    if claim.sensitivity is None or verdict.verdict == NO_DATA:
        return verdict
    at = []
    for factor, name in SENSITIVITY:
        found = claim.sensitivity(factor)(cells, **extra)
        at.append(f"at {name} it: {(decide(found) if isinstance(found, Part) else found).verdict}")
    line = f" Sensitivity to kmdr's tolerance: {'; '.join(at)} (here: {verdict.verdict})."
    return Verdict(verdict.verdict, verdict.evidence + line, verdict.outcomes)
