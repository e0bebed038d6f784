"""Verdicts on the papers' curve-only claims: the types, the statistical tests and the one rule
that turns a claim's comparisons into its verdict.

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
from scipy import stats

from kmdr.experiments.aggregate import is_baseline

HOLDS = "holds"
PARTLY = "partly"
TIE = "tie"
FAILS = "fails"
NO_DATA = "no data"
VERDICTS = (HOLDS, PARTLY, TIE, FAILS, NO_DATA)

#: Level of every test, after Holm's correction within the claim.
ALPHA = 0.05
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
#: p-values below this are printed as ``p < 1e-300`` (they are at the edge of double precision).
P_FLOOR = 1e-300

#: How the claims and their evidence name the no-reduction baseline; its rows are found by
#: ``reducer_name == "none"`` (:func:`kmdr.experiments.aggregate.is_baseline`), whatever the label.
BASELINE = "kMeans"
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
# Estimates and the tests
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """A mean over summary points, the variance of that mean, the Welch-Satterthwaite
    denominator ``Σ v_i² / (n_i - 1)`` (NaN when a point has no sd, e.g. one repetition or a
    copied time), and the per-repetition sd and number of repetitions (averaged over the points)
    that Hedges' g uses."""

    mean: float
    var: float
    dof_den: float
    sd: float = math.nan
    n: float = math.nan


def _copied(rows: pd.DataFrame, metric: str, sd: pd.Series, n: pd.Series) -> pd.Series:
    """Rows whose ``metric`` is a time copied between repetitions: flagged by the report from
    the cells (``<metric>_copied``), or, without the flag, a time whose repetitions are all
    equal (independent timings never are)."""
    flag = f"{metric}_copied"
    if flag in rows:
        return rows[flag].fillna(False).astype(bool)
    if metric.endswith("_seconds"):
        return (sd == 0) & (n >= 2)
    return pd.Series(False, index=rows.index)


def points(df: pd.DataFrame, method: str, metric: str) -> pd.DataFrame:
    """Per-r ``mean``, ``v`` (variance of the mean, sd²/n), ``dd`` (v²/(n-1)), ``s2`` (sd²) and
    ``n`` of ``metric`` for ``method``, r ascending; ``BASELINE`` selects the no-reduction rows
    by registry name. A copied time has no variance (NaN): it is never tested."""
    col = f"{metric}_mean" if f"{metric}_mean" in df else metric
    base = is_baseline(df)
    rows = df[base] if method == BASELINE else df[(df["method"] == method) & ~base]
    if rows.empty or col not in rows:
        return pd.DataFrame(columns=["mean", "v", "dd", "s2", "n"], dtype=float)
    mean = rows[col].astype(float)
    sd = rows[f"{metric}_std"].astype(float) if f"{metric}_std" in rows else np.nan * mean
    n = rows["n_cells"].astype(float) if "n_cells" in rows else np.nan * mean
    sd = sd.where(~_copied(rows, metric, sd, n))
    v = sd**2 / n
    part = pd.DataFrame(
        {"r": rows["r"], "mean": mean, "v": v, "dd": v**2 / (n - 1), "s2": sd**2, "n": n}
    )
    part = part[part["mean"].notna()]
    # several rows at one r (should not happen within one setting): average them
    g = part.groupby("r")
    m = g["mean"].count()
    out = pd.DataFrame(
        {
            "mean": g["mean"].mean(),
            "v": g["v"].sum(min_count=1) / m**2,
            "dd": g["dd"].sum(min_count=1) / m**4,
            "s2": g["s2"].mean(),
            "n": g["n"].mean(),
        }
    )
    return out.sort_index()


def curve(df: pd.DataFrame, method: str, metric: str) -> pd.Series:
    """Mean of ``metric`` vs r for ``method`` (index r ascending), NaNs dropped."""
    return points(df, method, metric)["mean"].astype(float)


def estimate(p: pd.DataFrame) -> Estimate | None:
    """The mean over the rows of ``points`` (None when there are none)."""
    if p.empty:
        return None
    k = len(p)
    v = p["v"].sum(skipna=False) / k**2
    dd = p["dd"].sum(skipna=False) / k**4
    s2 = p["s2"].mean(skipna=False) if "s2" in p else math.nan
    n = p["n"].mean(skipna=False) if "n" in p else math.nan
    return Estimate(float(p["mean"].mean()), float(v), float(dd), math.sqrt(s2), float(n))


def baseline_value(df: pd.DataFrame, metric: str) -> float | None:
    """kMeans' value of ``metric`` (it does not depend on r: the mean over its rows)."""
    e = estimate(points(df, BASELINE, metric))
    return e.mean if e else None


def _t(a: Estimate, b: Estimate, shift: float = 0.0) -> tuple[float, float]:
    """Welch's t of ``a.mean - b.mean - shift`` and its degrees of freedom (NaN, NaN when a
    variance is unknown or both are zero: nothing to test against)."""
    var = a.var + b.var
    if math.isnan(var) or var <= 0:
        return math.nan, math.nan
    den = a.dof_den + b.dof_den
    dof = var**2 / den if den > 0 else math.inf
    return (a.mean - b.mean - shift) / math.sqrt(var), dof


def welch(a: Estimate, b: Estimate) -> float:
    """Two-sided p-value of Welch's t-test of ``a.mean == b.mean`` (NaN when it cannot run: an
    sd unknown, or no variance on either side)."""
    t, dof = _t(a, b)
    return math.nan if math.isnan(t) else float(2 * stats.t.sf(abs(t), dof))


def margin_test(a: Estimate, b: Estimate, low: float, high: float) -> tuple[bool, float]:
    """Whether ``a.mean - b.mean`` lies in ``[low, high]`` (either bound may be infinite), and
    the one-sided p-value on that side: inside, the larger p of the two one-sided tests that it
    is above ``low`` and below ``high`` (TOST); outside, the p that it is beyond the bound it
    crossed."""
    diff = a.mean - b.mean
    inside = low <= diff <= high
    ps = []
    for bound, sign in ((low, +1), (high, -1)):
        if math.isinf(bound):
            continue
        t, dof = _t(a, b, bound)
        if math.isnan(t):
            return inside, math.nan
        # inside: evidence that diff is beyond ``bound`` on the inner side; outside: past it
        ps.append(float(stats.t.sf(sign * t if inside else -sign * t, dof)))
    if not ps:
        return inside, math.nan
    if inside:
        return True, max(ps)
    return False, min(ps)


def hedges_g(a: Estimate, b: Estimate) -> float:
    """Hedges' g of ``a`` minus ``b``: the difference over the pooled per-repetition sd, times
    the small-sample correction ``1 - 3 / (4 (n_a + n_b) - 9)``; NaN when an sd is unknown."""
    na, nb = a.n, b.n
    if not (na > 1 and nb > 1) or math.isnan(a.sd) or math.isnan(b.sd):
        return math.nan
    pooled = math.sqrt(((na - 1) * a.sd**2 + (nb - 1) * b.sd**2) / (na + nb - 2))
    if pooled == 0:
        return math.nan
    return (1 - 3 / (4 * (na + nb) - 9)) * (a.mean - b.mean) / pooled


def effect_text(a: Estimate, b: Estimate, fmt: str = ".3g", unit: str = "") -> str:
    """``Δ = …, g = …``: the difference of means and Hedges' g."""
    g = hedges_g(a, b)
    gtxt = "n/a" if math.isnan(g) else f"{g:+.2f}"
    return f"Δ = {a.mean - b.mean:+{fmt}}{unit}, g = {gtxt}"


def p_text(p: float, name: str = "p") -> str:
    """A p-value as computed: ``p n/a`` when no test could run, ``p < 1e-300`` where it
    underflows, never 0."""
    if p is None or math.isnan(p):
        return f"{name} n/a (no sd from independent repetitions)"
    if p < P_FLOOR:
        return f"{name} < {P_FLOOR:g}"
    return f"{name} = {p:.2g}"


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (NaN entries stay NaN and are not in the family).

    Sorted ascending, the i-th smallest of m p-values is multiplied by m - i (i from 0), the
    products made non-decreasing and capped at 1: rejecting where the adjusted p < α controls
    the family-wise error rate at α. (scipy's :func:`~scipy.stats.false_discovery_control` does
    Benjamini-Hochberg/Yekutieli only, which control the false discovery rate, not this.)
    """
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = len(q)
    if m == 0:
        return out
    order = np.argsort(q, kind="stable")
    adjusted = np.minimum(np.maximum.accumulate((m - np.arange(m)) * q[order]), 1.0)
    res = np.empty(m)
    res[order] = adjusted
    out[ok] = res
    return out


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
