"""Verdicts on the papers' curve-only claims: the types, the statistical test and the checks.

A :class:`Claim` restates one sentence of a paper as a checkable statement; its ``check`` reads
the experiment's summary (one row per dataset, method and r, with ``<metric>_mean``,
``<metric>_std`` (ddof 1) and ``n_cells`` columns, see docs/results-layout.md) and returns a
:class:`Verdict`: ``holds``, ``partly``, ``tie``, ``fails`` or ``no data``, with the numbers and
the test behind it. The catalogs of claims live in one module per paper (:mod:`.bzmd14`,
:mod:`.lst17`).

**The test.** Every comparison ("A beats B", "A leads", "faster than full", "lowest", a trend
between the first and the last quarter of the r grid) is a Welch t-test, two-sided, at
:data:`ALPHA` = 0.05, computed from the summary's mean, sd and n (:func:`welch`). A comparison of
two curves compares their means over the common r grid: the mean over R points has variance
``Σ s_r²/n_r / R²`` and Welch-Satterthwaite degrees of freedom, which for a single point is
exactly :func:`scipy.stats.ttest_ind_from_stats` with ``equal_var=False``. Why Welch per point
rather than a paired test over r on the per-r means: the per-r means of one method share its
trend in r, so a paired test over r sees a consistent 0.005 margin on 20 points as significant
however noisy each point is (PIE's "LapScores leads": margins of 0.001-0.017 inside per-point sds
of 0.006-0.02); Welch uses the repetitions' own noise, which is what separates a real lead from
a tie. It treats the r points as independent although they share seeds, and it tests each
comparison at ``ALPHA`` with no multiplicity correction: both are stated, not hidden.

**Outcomes.** A significant difference in the claimed direction is a win, one against it a loss,
anything else a **tie**; a claim over several methods (or points) *holds* when every one wins,
is a *tie* when none wins and none loses, *fails* when something loses and too little wins,
and is *partly* otherwise. A method whose F or P sits at kMeans' level from the smallest r to the
last quarter of the grid is **converged**: a trend claim ("F decreases", "P increases") does not
count it for or against, since a curve at the floor cannot move (SVD's F from r = 5). "At
kMeans' level" is the claims' own tolerance (F within :data:`CONVERGE_TOL` relative, P within
:data:`NEAR_ACCURACY`, either side), not "not significantly different": on Synth with random
starts Lloyd's local optima make the noise so wide that F = 0.02 is "within noise" of the
optimum 7e-7, which is no floor.
A time curve is **flat** when its growth is not significant, when it stays under
:data:`TIMER_FLOOR` (timer noise), or when it grows by at most :data:`FLAT_SHARE` of what its
neighbour grows over the same grid (RP for SE) — not by a bare ratio, which millisecond timings
blow up.
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

#: Level of every test (two-sided).
ALPHA = 0.05
#: How every verdict's evidence names its test.
TEST = f"Welch t, two-sided, α = {ALPHA:g}"
TREND_MARGIN = 0.01
CONVERGE_TOL = 0.05
NEAR_ACCURACY = 0.05
SIGNIFICANT_GROWTH = 1.5
#: A time under this many seconds is timer noise: a curve that stays below it is flat.
TIMER_FLOOR = 0.005
#: A curve is flat next to a neighbour when it grows by at most this share of the neighbour's
#: growth (both in seconds, last quarter minus first quarter of the r grid).
FLAT_SHARE = 0.25

#: How the claims and their evidence name the no-reduction baseline; its rows are found by
#: ``reducer_name == "none"`` (:func:`kmdr.experiments.aggregate.is_baseline`), whatever the label.
BASELINE = "kMeans"
LAPSCORES = "LapScores"

WIN, TIE_OUTCOME, LOSS, CONVERGED = 1, 0, -1, None
_MARK = {WIN: "✓", TIE_OUTCOME: "=", LOSS: "✗", CONVERGED: "≈"}


@dataclass(frozen=True)
class Verdict:
    verdict: str
    evidence: str


@dataclass(frozen=True)
class Claim:
    """One checkable statement from a paper.

    ``check`` receives the summary rows of ``experiment`` restricted to ``dataset`` (all rows when
    ``dataset`` is None) and returns a :class:`Verdict`; it is only called on non-empty data.
    """

    id: str
    paper: str
    figure: str
    source: str
    statement: str
    experiment: str
    dataset: str | None
    check: Callable[[pd.DataFrame], Verdict]
    note: str = field(default="")


# --------------------------------------------------------------------------------------------
# Estimates and the test
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """A mean over summary points, the variance of that mean and the Welch-Satterthwaite
    denominator ``Σ v_i² / (n_i - 1)`` (NaN when a point has no sd, e.g. one repetition)."""

    mean: float
    var: float
    dof_den: float


def points(df: pd.DataFrame, method: str, metric: str) -> pd.DataFrame:
    """Per-r ``mean``, ``v`` (variance of the mean, sd²/n) and ``dd`` (v²/(n-1)) of ``metric``
    for ``method``, r ascending; ``BASELINE`` selects the no-reduction rows by registry name."""
    col = f"{metric}_mean" if f"{metric}_mean" in df else metric
    base = is_baseline(df)
    rows = df[base] if method == BASELINE else df[(df["method"] == method) & ~base]
    if rows.empty or col not in rows:
        return pd.DataFrame(columns=["mean", "v", "dd"], dtype=float)
    mean = rows[col].astype(float)
    sd = rows[f"{metric}_std"].astype(float) if f"{metric}_std" in rows else np.nan * mean
    n = rows["n_cells"].astype(float) if "n_cells" in rows else np.nan * mean
    v = sd**2 / n
    part = pd.DataFrame({"r": rows["r"], "mean": mean, "v": v, "dd": v**2 / (n - 1)})
    part = part[part["mean"].notna()]
    # several rows at one r (should not happen within one setting): average them
    g = part.groupby("r")
    m = g["mean"].count()
    out = pd.DataFrame(
        {
            "mean": g["mean"].mean(),
            "v": g["v"].sum(min_count=1) / m**2,
            "dd": g["dd"].sum(min_count=1) / m**4,
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
    return Estimate(float(p["mean"].mean()), float(v), float(dd))


def baseline_value(df: pd.DataFrame, metric: str) -> float | None:
    """kMeans' value of ``metric`` (it does not depend on r: the mean over its rows)."""
    e = estimate(points(df, BASELINE, metric))
    return e.mean if e else None


def welch(a: Estimate, b: Estimate) -> float:
    """Two-sided p-value of Welch's t-test of ``a.mean == b.mean`` (NaN when an sd is unknown).

    Zero variance on both sides: equal means are a certain tie (p = 1), different ones a certain
    difference (p = 0)."""
    diff = a.mean - b.mean
    var = a.var + b.var
    if math.isnan(var):
        return math.nan
    if var == 0:
        return 1.0 if diff == 0 else 0.0
    den = a.dof_den + b.dof_den
    dof = var**2 / den if den > 0 else math.inf
    return float(2 * stats.t.sf(abs(diff) / math.sqrt(var), dof))


def compare(a: Estimate, b: Estimate, direction: int) -> tuple[int, float]:
    """WIN when ``a`` is significantly above ``b`` (``direction`` +1) or below (-1), LOSS when
    significantly the other way, TIE otherwise (also when the test cannot run: no sd)."""
    p = welch(a, b)
    if not p < ALPHA:
        return TIE_OUTCOME, p
    return (WIN if direction * (a.mean - b.mean) > 0 else LOSS), p


def p_text(p: float) -> str:
    return "p n/a (no sd)" if math.isnan(p) else f"p = {p:.2g}"


def spearman(s: pd.Series) -> float:
    """Spearman rank correlation of a curve with its r (0 for a constant or 1-point curve)."""
    if len(s) < 2 or s.nunique() < 2:
        return 0.0
    return float(stats.spearmanr(np.asarray(s.index, dtype=float), s.to_numpy()).statistic)


def quarters(p: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The first and the last quarter of the r grid of ``points`` (at least one point each)."""
    n = max(1, math.ceil(len(p) / 4))
    return p.iloc[:n], p.iloc[-n:]


def tally(outcomes: dict[str, int | None], partly_min: float = 1) -> str:
    """A verdict from per-method (or per-point) outcomes: holds when all counted ones win, tie
    when none wins and none loses, partly when some win (at least ``partly_min`` if something
    loses), fails otherwise. CONVERGED outcomes are not counted; all converged is a tie."""
    counted = [o for o in outcomes.values() if o is not CONVERGED]
    wins, losses = counted.count(WIN), counted.count(LOSS)
    if counted and wins == len(counted):
        return HOLDS
    if losses == 0:
        return TIE if wins == 0 else PARTLY
    return PARTLY if wins >= max(partly_min, 1) else FAILS


def _verdict(outcomes, evidence: list[str], missing: Sequence[str], partly_min=1) -> Verdict:
    text = f"[{TEST}] " + "; ".join(evidence)
    if missing:
        text += "; not run: " + ", ".join(missing)
    if not outcomes:
        return Verdict(NO_DATA, text if evidence else "none of the methods was run")
    return Verdict(tally(outcomes, partly_min), text)


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------


def _converged(df, p: pd.DataFrame, metric: str) -> tuple[bool, str]:
    """Whether the curve sits at kMeans' level from its smallest r to its last quarter (F within
    :data:`CONVERGE_TOL` relative, P within :data:`NEAR_ACCURACY`), so that no trend can be
    asked of it."""
    base = estimate(points(df, BASELINE, metric))
    if base is None or metric not in ("objective", "accuracy"):
        return False, ""
    first, last = estimate(p.iloc[:1]), estimate(quarters(p)[1])
    # two-sided: a curve well below kMeans' F (or above its P) is not at the floor either
    if metric == "objective":
        ok = all(abs(e.mean - base.mean) <= CONVERGE_TOL * base.mean for e in (first, last))
        tol = f"within {CONVERGE_TOL:.0%}"
    else:
        ok = all(abs(e.mean - base.mean) <= NEAR_ACCURACY for e in (first, last))
        tol = f"within {NEAR_ACCURACY:g}"
    return ok, f"{tol} of kMeans' {base.mean:.4g} from r = {p.index[0]} through Q4"


def check_trend(df: pd.DataFrame, methods: Sequence[str], metric: str, direction: int) -> Verdict:
    """Each method's last-quarter mean significantly beyond its first-quarter mean in
    ``direction`` by at least :data:`TREND_MARGIN` (relative), with Spearman ρ of that sign;
    a method at kMeans' level from the smallest r is converged (not counted)."""
    outcomes, evidence, missing = {}, [], []
    better = -1 if metric == "objective" else +1  # the direction in which kMeans is the floor
    for m in methods:
        p = points(df, m, metric)
        if len(p) < 2:
            missing.append(m)
            continue
        first, last = quarters(p)
        q1, q4 = estimate(first), estimate(last)
        rho = spearman(p["mean"])
        change = (q4.mean - q1.mean) / abs(q1.mean) if q1.mean != 0 else math.inf
        outcome, pv = compare(q4, q1, direction)
        if outcome == WIN and not (direction * change >= TREND_MARGIN and direction * rho > 0):
            outcome = TIE_OUTCOME
        text = f"Q1 {q1.mean:.4g} → Q4 {q4.mean:.4g} ({change:+.1%}, {p_text(pv)}), ρ = {rho:+.2f}"
        if outcome != WIN and direction == better:
            conv, why = _converged(df, p, metric)
            if conv:
                outcome, text = CONVERGED, f"converged: {why}; {text}"
        outcomes[m] = outcome
        evidence.append(f"{m}: {text} {_MARK[outcome]}")
    return _verdict(outcomes, evidence, missing)


def check_converges(df: pd.DataFrame, methods: Sequence[str], tol: float = CONVERGE_TOL) -> Verdict:
    """Each method's F at the largest r within ``tol`` (relative) of kMeans' and, if it started
    farther, closer than at the smallest r; a gap beyond ``tol`` that is not significant is a
    tie."""
    base = estimate(points(df, BASELINE, "objective"))
    if base is None:
        return Verdict(NO_DATA, "kMeans was not run")
    outcomes, evidence, missing = {}, [f"F_kMeans = {base.mean:.4g}"], []
    for m in methods:
        p = points(df, m, "objective")
        if len(p) < 2:
            missing.append(m)
            continue
        gap_first = (p["mean"].iloc[0] - base.mean) / base.mean
        gap_last = (p["mean"].iloc[-1] - base.mean) / base.mean
        ok = abs(gap_last) <= tol and (abs(gap_last) <= abs(gap_first) or abs(gap_first) <= tol)
        pv = welch(estimate(p.iloc[-1:]), base)
        outcome = WIN if ok else (LOSS if pv < ALPHA else TIE_OUTCOME)
        outcomes[m] = outcome
        evidence.append(
            f"{m}: F − F_kMeans {gap_first:+.1%} at r = {p.index[0]} → {gap_last:+.1%} at "
            f"r = {p.index[-1]} ({p_text(pv)}) {_MARK[outcome]}"
        )
    return _verdict(outcomes, evidence, missing)


def check_near_accuracy(
    df: pd.DataFrame, methods: Sequence[str], r_targets: Sequence[int], tol: float = NEAR_ACCURACY
) -> Verdict:
    """Each method's mean P within ``tol`` of kMeans' at one of ``r_targets`` (e.g. 20, 30); a
    method farther below is a loss only when it is significantly below kMeans at every target."""
    base = estimate(points(df, BASELINE, "accuracy"))
    if base is None:
        return Verdict(NO_DATA, "kMeans was not run")
    outcomes, evidence, missing = {}, [f"P_kMeans = {base.mean:.3f}"], []
    for m in methods:
        p = points(df, m, "accuracy")
        p = p[p.index.isin(r_targets)]
        if p.empty:
            missing.append(m)
            continue
        shown, below = [], []
        for r in p.index:
            pv = welch(estimate(p.loc[[r]]), base)
            below.append(pv < ALPHA and p.at[r, "mean"] < base.mean)
            shown.append(f"P(r={r}) = {p.at[r, 'mean']:.3f} ({p_text(pv)})")
        ok = bool((p["mean"] >= base.mean - tol).any())
        outcome = WIN if ok else (LOSS if all(below) else TIE_OUTCOME)
        outcomes[m] = outcome
        evidence.append(f"{m}: {', '.join(shown)} {_MARK[outcome]}")
    return _verdict(outcomes, evidence, missing)


def _over_r(df, method: str, metric: str, grid=None) -> Estimate | None:
    """``method``'s mean of ``metric`` over ``grid`` (its whole r grid when None; kMeans: its
    single value, whatever the grid)."""
    p = points(df, method, metric)
    if grid is not None and method != BASELINE:
        p = p[p.index.isin(grid)]
    return estimate(p)


def _common_grid(df, methods: Sequence[str], metric: str) -> pd.Index:
    grid = None
    for m in methods:
        if m == BASELINE:
            continue
        idx = points(df, m, metric).index
        grid = idx if grid is None else grid.intersection(idx)
    return grid if grid is not None else pd.Index([])


def check_beats_lapscores(df: pd.DataFrame, methods: Sequence[str]) -> Verdict:
    """Each method: significantly higher mean P and lower mean F than LapScores over the common
    r grid (a loss if either is significantly worse, a tie otherwise)."""
    if points(df, LAPSCORES, "accuracy").empty:
        return Verdict(NO_DATA, "LapScores was not run")
    outcomes, evidence, missing = {}, [], []
    for m in methods:
        grid = _common_grid(df, (m, LAPSCORES), "accuracy")
        if len(grid) == 0:
            missing.append(m)
            continue
        parts, shown = [], []
        for metric, direction, fmt in (("accuracy", +1, ".3f"), ("objective", -1, ".4g")):
            a, b = _over_r(df, m, metric, grid), _over_r(df, LAPSCORES, metric, grid)
            o, pv = compare(a, b, direction)
            parts.append(o)
            label = "P" if metric == "accuracy" else "F"
            shown.append(f"{label} {a.mean:{fmt}} vs {b.mean:{fmt}} ({p_text(pv)})")
        outcome = LOSS if LOSS in parts else TIE_OUTCOME if TIE_OUTCOME in parts else WIN
        outcomes[m] = outcome
        evidence.append(f"{m}: {', '.join(shown)} {_MARK[outcome]}")
    return _verdict(outcomes, evidence, missing)


def _rank(
    df, subject: str, others: Sequence[str], metric: str, direction: int, unit: str = ""
) -> Verdict:
    """``subject``'s mean ``metric`` over r significantly above (``direction`` +1) or below (-1)
    each other method's, on their common r grid; partly when it wins against at least half."""
    grid_all = points(df, subject, metric).index
    if len(grid_all) == 0:
        return Verdict(NO_DATA, f"{subject} was not run")
    outcomes, evidence, missing = {}, [], []
    fmt = ".3g" if unit else ".3f"
    for m in others:
        if points(df, m, metric).empty:
            missing.append(m)
            continue
        grid = _common_grid(df, (subject, m), metric)
        a, b = _over_r(df, subject, metric, grid), _over_r(df, m, metric, grid)
        if a is None or b is None:
            missing.append(m)
            continue
        o, pv = compare(a, b, direction)
        outcomes[m] = o
        evidence.append(
            f"{m} {b.mean:{fmt}}{unit} vs {subject} {a.mean:{fmt}}{unit} ({p_text(pv)}) {_MARK[o]}"
        )
    out = _verdict(outcomes, evidence, missing, partly_min=len(outcomes) / 2)
    head = f"mean over the common r grid, each rival vs {subject}: "
    return Verdict(out.verdict, out.evidence.replace("] ", "] " + head, 1))


def check_leads_accuracy(df: pd.DataFrame, leader: str, others: Sequence[str]) -> Verdict:
    """``leader``'s mean P over r significantly above every other method's (kMeans: its value)."""
    return _rank(df, leader, others, "accuracy", +1)


def check_trails(df: pd.DataFrame, laggard: str, others: Sequence[str]) -> Verdict:
    """``laggard``'s mean P over r significantly below every other method's."""
    return _rank(df, laggard, others, "accuracy", -1)


def check_slowest(df: pd.DataFrame, slow: str, others: Sequence[str], metric: str) -> Verdict:
    """``slow``'s mean ``metric`` time over r significantly above every other method's."""
    return _rank(df, slow, others, metric, +1, unit="s")


def check_faster_than_full(df: pd.DataFrame, methods: Sequence[str], metric: str) -> Verdict:
    """Every (method, r) point's mean ``metric`` time significantly below kMeans'; partly when at
    least half of the points are."""
    base = estimate(points(df, BASELINE, metric))
    if base is None:
        return Verdict(NO_DATA, "kMeans was not run")
    outcomes, evidence, missing = {}, [], []
    for m in methods:
        p = points(df, m, metric)
        if p.empty:
            missing.append(m)
            continue
        res = [compare(estimate(p.loc[[r]]), base, -1)[0] for r in p.index]
        for r, o in zip(p.index, res, strict=True):
            outcomes[(m, r)] = o
        evidence.append(
            f"{m} {res.count(WIN)}/{len(res)} faster, {res.count(LOSS)} slower "
            f"(max {p['mean'].max():.3g}s)"
        )
    head = f"{metric} of kMeans {base.mean:.3g}s; points significantly faster: "
    out = _verdict(outcomes, evidence, missing, partly_min=len(outcomes) / 2)
    return Verdict(out.verdict, out.evidence.replace("] ", "] " + head, 1))


def check_lowest(df: pd.DataFrame, low: str, others: Sequence[str], metric: str) -> Verdict:
    """At each r, ``low``'s mean ``metric`` significantly below every other method's (a loss when
    significantly above one); holds at every r, partly at half of them or more."""
    p = points(df, low, metric)
    if p.empty:
        return Verdict(NO_DATA, f"{low} was not run")
    rivals = {m: points(df, m, metric) for m in others}
    missing = [m for m, c in rivals.items() if c.empty]
    rivals = {m: c for m, c in rivals.items() if not c.empty}
    if not rivals:
        return Verdict(NO_DATA, "no other method was run")
    outcomes = {}
    for r in p.index:
        res = [
            compare(estimate(p.loc[[r]]), estimate(c.loc[[r]]), -1)[0]
            for c in rivals.values()
            if r in c.index
        ]
        outcomes[r] = LOSS if LOSS in res else WIN if res and all(o == WIN for o in res) else 0
    n = len(outcomes)
    wins = list(outcomes.values()).count(WIN)
    losses = list(outcomes.values()).count(LOSS)
    means = ", ".join(f"{m} {c['mean'].mean():.3g}s" for m, c in rivals.items())
    text = (
        f"{low} significantly lowest at {wins} of {n} r values, significantly above a rival at "
        f"{losses}; mean over r: {low} {p['mean'].mean():.3g}s, {means}"
    )
    return _verdict(outcomes, [text], missing, partly_min=n / 2)


def _growth(p: pd.DataFrame) -> tuple[Estimate, Estimate, float]:
    first, last = quarters(p)
    q1, q4 = estimate(first), estimate(last)
    return q1, q4, welch(q4, q1)


def check_flat(df: pd.DataFrame, method: str, metric: str, neighbour: str | None = None) -> Verdict:
    """``method``'s time curve is flat: no significant growth from the first to the last quarter
    of the r grid, or a last quarter under :data:`TIMER_FLOOR`, or a growth of at most
    :data:`FLAT_SHARE` of ``neighbour``'s growth."""
    p = points(df, method, metric)
    if len(p) < 2:
        return Verdict(NO_DATA, f"{method} was not run")
    q1, q4, pv = _growth(p)
    grow = q4.mean - q1.mean
    text = f"[{TEST}] {method}: Q1 {q1.mean:.3g}s → Q4 {q4.mean:.3g}s ({p_text(pv)})"
    if not (pv < ALPHA and grow > 0):
        return Verdict(HOLDS, text + ": no significant growth")
    if q4.mean < TIMER_FLOOR:
        return Verdict(HOLDS, text + f": under the {TIMER_FLOOR * 1e3:g} ms timer floor")
    if neighbour is not None:
        pn = points(df, neighbour, metric)
        if len(pn) >= 2:
            n1, n4, _ = _growth(pn)
            share = grow / (n4.mean - n1.mean) if n4.mean > n1.mean else math.inf
            text += f"; grows {grow * 1e3:.3g} ms vs {neighbour} {(n4.mean - n1.mean) * 1e3:.3g} ms"
            if share <= FLAT_SHARE:
                return Verdict(HOLDS, text + f" ({share:.0%} ≤ {FLAT_SHARE:.0%})")
            return Verdict(FAILS, text + f" ({share:.0%} > {FLAT_SHARE:.0%})")
        text += f"; {neighbour} not run"
    return Verdict(FAILS, text + ": grows significantly")


def check_grows(
    df: pd.DataFrame, method: str, metric: str, factor: float = SIGNIFICANT_GROWTH
) -> Verdict:
    """``method``'s time grows significantly from the first to the last quarter of the r grid
    (above the timer floor), by ×``factor`` and with Spearman ρ ≥ 0.5 (partly: significant but
    one of the two missing); no significant change is a tie, a significant fall fails."""
    p = points(df, method, metric)
    if len(p) < 2:
        return Verdict(NO_DATA, f"{method} was not run")
    q1, q4, pv = _growth(p)
    ratio = q4.mean / q1.mean if q1.mean > 0 else math.inf
    rho = spearman(p["mean"])
    text = (
        f"[{TEST}] {method}: Q1 {q1.mean:.3g}s → Q4 {q4.mean:.3g}s (×{ratio:.2f}, {p_text(pv)}), "
        f"ρ = {rho:+.2f}"
    )
    if not pv < ALPHA or q4.mean < TIMER_FLOOR:
        return Verdict(TIE, text + " (no significant growth above timer noise)")
    if q4.mean < q1.mean:
        return Verdict(FAILS, text)
    return Verdict(HOLDS if ratio >= factor and rho >= 0.5 else PARTLY, text)


def check_each(df: pd.DataFrame, checks: Sequence[Callable[[pd.DataFrame], Verdict]]) -> Verdict:
    """A claim about several parts at once ("LLE and LS underperform"): holds when every part
    holds, tie when every part with data is a tie, partly when some part holds or partly holds,
    fails otherwise; no data when no part has data. The evidence lists every part's."""
    parts = [check(df) for check in checks]
    have = [p for p in parts if p.verdict != NO_DATA]
    text = " | ".join(p.evidence for p in parts)
    if not have:
        return Verdict(NO_DATA, text)
    if all(p.verdict == HOLDS for p in parts):
        return Verdict(HOLDS, text)
    if all(p.verdict == TIE for p in have):
        return Verdict(TIE, text)
    if any(p.verdict in (HOLDS, PARTLY) for p in have):
        return Verdict(PARTLY, text)
    return Verdict(FAILS, text)


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
        return claim.check(df)
    except Exception as exc:  # a malformed table must not stop the report
        return Verdict(NO_DATA, f"check could not run: {type(exc).__name__}: {exc}")
