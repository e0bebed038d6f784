"""The checks the claims are made of: each reads a summary and returns the comparisons (a
:class:`~.verdicts.Part`) that :func:`~.verdicts.decide` judges by the one verdict rule.

Every check only builds comparisons, each with its test's p-value, the side its estimate lies on
and the numbers behind it (means, Δ, Hedges' g); none decides a verdict of its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from kmdr.report.claims.significance import (
    BASELINE,
    Estimate,
    effect_text,
    estimate,
    margin_test,
    points,
    welch,
)
from kmdr.report.claims.verdicts import (
    CONVERGE_TOL,
    FLAT_SHARE,
    LAPSCORES,
    NEAR_ACCURACY,
    SIGNIFICANT_GROWTH,
    TIMER_FLOOR,
    TREND_MARGIN,
    Comparison,
    Part,
)

__all__ = [
    "check_beats_lapscores",
    "check_converges",
    "check_each",
    "check_faster_than_full",
    "check_flat",
    "check_grows",
    "check_leads_accuracy",
    "check_lowest",
    "check_near_accuracy",
    "check_slowest",
    "check_trails",
    "check_trend",
    "titled",
]


def spearman(s: pd.Series) -> float:
    """Spearman rank correlation of a curve with its r (0 for a constant or 1-point curve)."""
    if len(s) < 2 or s.nunique() < 2:
        return 0.0
    return float(stats.spearmanr(np.asarray(s.index, dtype=float), s.to_numpy()).statistic)


def quarters(p: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The first and the last quarter of the r grid of ``points`` (at least one point each)."""
    n = max(1, math.ceil(len(p) / 4))
    return p.iloc[:n], p.iloc[-n:]


def _difference(a: Estimate, b: Estimate, direction: int) -> tuple[float, bool]:
    """Welch's two-sided p of a vs b, and whether a lies beyond b in ``direction``."""
    return welch(a, b), direction * (a.mean - b.mean) > 0


# --------------------------------------------------------------------------------------------
# Trends
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


def check_trend(df: pd.DataFrame, methods: Sequence[str], metric: str, direction: int) -> Part:
    """Each method's last-quarter mean against its first-quarter mean: for the claim when
    significantly beyond it in ``direction``; short unless also by at least
    :data:`TREND_MARGIN` (relative) with Spearman ρ of that sign. A method at kMeans' level from
    the smallest r is converged (shown, not counted) when the claim asks it to move away from
    that floor's side."""
    comps, missing = [], []
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
        pv, favours = _difference(q4, q1, direction)
        short = []
        if not direction * change >= TREND_MARGIN:
            short.append(f"change below the {TREND_MARGIN:.0%} margin")
        if not direction * rho > 0:
            short.append("ρ of the other sign")
        text = (
            f"Q1 {q1.mean:.4g} → Q4 {q4.mean:.4g} ({change:+.1%}, {effect_text(q4, q1, '.3g')}), "
            f"ρ = {rho:+.2f}"
        )
        conv, why = (False, "")
        if direction == better:
            conv, why = _converged(df, p, metric)
        if conv:
            text = f"converged: {why}; {text}"
        comps.append(Comparison(m, text, pv, favours, ", ".join(short), counted=not conv))
    return Part(tuple(comps), tuple(missing))


def check_grows(
    df: pd.DataFrame, method: str, metric: str, factor: float = SIGNIFICANT_GROWTH
) -> Part:
    """``method``'s time from the first to the last quarter of the r grid: for the claim when it
    grows significantly; short unless by ×``factor`` with Spearman ρ ≥ 0.5 and a last quarter
    above the timer floor."""
    p = points(df, method, metric)
    if len(p) < 2:
        return Part(no_data=f"{method} was not run")
    first, last = quarters(p)
    q1, q4 = estimate(first), estimate(last)
    pv, favours = _difference(q4, q1, +1)
    ratio = q4.mean / q1.mean if q1.mean > 0 else math.inf
    rho = spearman(p["mean"])
    short = []
    if ratio < factor:
        short.append(f"×{ratio:.2f} below ×{factor:g}")
    if rho < 0.5:
        short.append("ρ < 0.5")
    if q4.mean < TIMER_FLOOR:
        short.append(f"under the {TIMER_FLOOR * 1e3:g} ms timer floor")
    text = (
        f"Q1 {q1.mean:.3g}s → Q4 {q4.mean:.3g}s (×{ratio:.2f}, {effect_text(q4, q1, '.3g', 's')})"
        f", ρ = {rho:+.2f}"
    )
    return Part((Comparison(method, text, pv, favours, ", ".join(short)),))


def check_flat(df: pd.DataFrame, method: str, metric: str, neighbour: str | None = None) -> Part:
    """``method``'s time curve is flat: its growth from the first to the last quarter of the r
    grid significantly below :data:`FLAT_SHARE` of ``neighbour``'s growth over the same grid
    plus the :data:`TIMER_FLOOR` (one-sided, the neighbour's noise included); against the claim
    when significantly above it. Without the neighbour, the margin is the timer floor alone."""
    p = points(df, method, metric)
    if len(p) < 2:
        return Part(no_data=f"{method} was not run")
    first, last = quarters(p)
    grow = _growth_estimate(estimate(last), estimate(first))
    share, margin_txt = 0.0, f"the {TIMER_FLOOR * 1e3:g} ms timer floor"
    pn = points(df, neighbour, metric) if neighbour is not None else pd.DataFrame()
    if neighbour is not None and len(pn) >= 2:
        n1, n4 = quarters(pn)
        ngrow = _growth_estimate(estimate(n4), estimate(n1))
        share = FLAT_SHARE
        margin = Estimate(
            share * ngrow.mean + TIMER_FLOOR,
            share**2 * ngrow.var,
            share**4 * ngrow.dof_den,
        )
        margin_txt = (
            f"{FLAT_SHARE:.0%} of {neighbour}'s growth {ngrow.mean * 1e3:.3g} ms + "
            f"{TIMER_FLOOR * 1e3:g} ms"
        )
    else:
        margin = Estimate(TIMER_FLOOR, 0.0, 0.0)
    inside, pv = margin_test(grow, margin, -math.inf, 0.0)
    text = (
        f"Q1 {estimate(first).mean:.3g}s → Q4 {estimate(last).mean:.3g}s, growth "
        f"{grow.mean * 1e3:.3g} ms vs the margin {margin.mean * 1e3:.3g} ms ({margin_txt})"
    )
    missing = (neighbour,) if neighbour is not None and len(pn) < 2 else ()
    return Part((Comparison(method, text, pv, inside),), missing)


def _growth_estimate(last: Estimate, first: Estimate) -> Estimate:
    """Last-quarter minus first-quarter mean, as an estimate (independent quarters)."""
    return Estimate(last.mean - first.mean, last.var + first.var, last.dof_den + first.dof_den)


# --------------------------------------------------------------------------------------------
# Closeness to kMeans
# --------------------------------------------------------------------------------------------


def check_converges(df: pd.DataFrame, methods: Sequence[str], tol: float = CONVERGE_TOL) -> Part:
    """Each method's F at the largest r within ``tol`` (relative) of kMeans' F: for the claim
    when significantly within it (two one-sided tests), against when significantly outside."""
    base = estimate(points(df, BASELINE, "objective"))
    if base is None:
        return Part(no_data="kMeans was not run")
    comps, missing = [], []
    margin = tol * base.mean
    for m in methods:
        p = points(df, m, "objective")
        if len(p) < 2:
            missing.append(m)
            continue
        last = estimate(p.iloc[-1:])
        inside, pv = margin_test(last, base, -margin, margin)
        gap_first = (p["mean"].iloc[0] - base.mean) / base.mean
        gap_last = (last.mean - base.mean) / base.mean
        text = (
            f"F − F_kMeans {gap_first:+.1%} at r = {p.index[0]} → {gap_last:+.1%} at "
            f"r = {p.index[-1]} ({effect_text(last, base, '.3g')})"
        )
        comps.append(Comparison(m, text, pv, inside))
    return Part(tuple(comps), tuple(missing), head=f"F_kMeans = {base.mean:.4g}")


def check_near_accuracy(
    df: pd.DataFrame, methods: Sequence[str], r_targets: Sequence[int], tol: float = NEAR_ACCURACY
) -> Part:
    """Each method's mean P no more than ``tol`` below kMeans' at one of ``r_targets``: for the
    claim when significantly so at some target (one-sided, Bonferroni over the targets), against
    when significantly more than ``tol`` below at every target."""
    base = estimate(points(df, BASELINE, "accuracy"))
    if base is None:
        return Part(no_data="kMeans was not run")
    comps, missing = [], []
    for m in methods:
        p = points(df, m, "accuracy")
        p = p[p.index.isin(r_targets)]
        if p.empty:
            missing.append(m)
            continue
        tests = [margin_test(estimate(p.loc[[r]]), base, -tol, math.inf) for r in p.index]
        shown = [f"P(r={r}) = {p.at[r, 'mean']:.3f}" for r in p.index]
        # NaN (no test) must not vanish in min/max: a side with any untested target is untested
        inside = [q for ok, q in tests if ok]
        if inside:
            favours = True
            tested = [q for q in inside if not math.isnan(q)]
            pv = min(1.0, len(tests) * min(tested)) if tested else math.nan
        else:
            favours = False
            ps = [q for _, q in tests]
            pv = math.nan if any(math.isnan(q) for q in ps) else max(ps)
        comps.append(Comparison(m, ", ".join(shown), pv, favours))
    return Part(tuple(comps), tuple(missing), head=f"P_kMeans = {base.mean:.3f}")


# --------------------------------------------------------------------------------------------
# Rankings
# --------------------------------------------------------------------------------------------


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


def check_beats_lapscores(df: pd.DataFrame, methods: Sequence[str]) -> Part:
    """Each method against LapScores over their common r grid, on mean P (higher is for the
    claim) and on mean F (lower is for it): two comparisons per method."""
    if points(df, LAPSCORES, "accuracy").empty:
        return Part(no_data="LapScores was not run")
    comps, missing = [], []
    for m in methods:
        grid = _common_grid(df, (m, LAPSCORES), "accuracy")
        if len(grid) == 0:
            missing.append(m)
            continue
        for metric, direction, fmt, label in (
            ("accuracy", +1, ".3f", "P"),
            ("objective", -1, ".4g", "F"),
        ):
            a, b = _over_r(df, m, metric, grid), _over_r(df, LAPSCORES, metric, grid)
            if a is None or b is None:
                missing.append(f"{m} ({label})")
                continue
            pv, favours = _difference(a, b, direction)
            text = f"{a.mean:{fmt}} vs {b.mean:{fmt}} ({effect_text(a, b, '.3g')})"
            comps.append(Comparison(f"{m} {label}", text, pv, favours))
    return Part(tuple(comps), tuple(missing))


def _rank(df, subject: str, others: Sequence[str], metric: str, direction: int, unit="") -> Part:
    """``subject``'s mean ``metric`` over r against each other method's on their common r grid:
    for the claim when significantly above (``direction`` +1) or below (-1)."""
    if len(points(df, subject, metric)) == 0:
        return Part(no_data=f"{subject} was not run")
    comps, missing = [], []
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
        pv, favours = _difference(a, b, direction)
        text = f"{a.mean:{fmt}}{unit} vs {b.mean:{fmt}}{unit} ({effect_text(a, b, '.3g', unit)})"
        comps.append(Comparison(f"{subject} vs {m}", text, pv, favours))
    return Part(tuple(comps), tuple(missing), head="means over the common r grid")


def check_leads_accuracy(df: pd.DataFrame, leader: str, others: Sequence[str]) -> Part:
    """``leader``'s mean P over r against every other method's (kMeans: its value)."""
    return _rank(df, leader, others, "accuracy", +1)


def check_trails(df: pd.DataFrame, laggard: str, others: Sequence[str]) -> Part:
    """``laggard``'s mean P over r below every other method's."""
    return _rank(df, laggard, others, "accuracy", -1)


def check_slowest(df: pd.DataFrame, slow: str, others: Sequence[str], metric: str) -> Part:
    """``slow``'s mean ``metric`` time over r above every other method's."""
    return _rank(df, slow, others, metric, +1, unit="s")


def check_faster_than_full(df: pd.DataFrame, methods: Sequence[str], metric: str) -> Part:
    """Every (method, r) point's mean ``metric`` time against kMeans': for the claim when
    significantly below it. Many comparisons: the evidence counts them per method."""
    base = estimate(points(df, BASELINE, metric))
    if base is None:
        return Part(no_data="kMeans was not run")
    comps, missing = [], []
    for m in methods:
        p = points(df, m, metric)
        if p.empty:
            missing.append(m)
            continue
        text = f"max {p['mean'].max():.3g}s"
        for r in p.index:
            a = estimate(p.loc[[r]])
            pv, favours = _difference(a, base, -1)
            comps.append(Comparison(f"{m} r={r}", text, pv, favours, group=m))
    head = f"{metric} of kMeans {base.mean:.3g}s; (method, r) points faster than it"
    return Part(tuple(comps), tuple(missing), head=head, grouped=True)


def check_lowest(df: pd.DataFrame, low: str, others: Sequence[str], metric: str) -> Part:
    """At each r, ``low``'s mean ``metric`` against every other method's there: for the claim
    when significantly lower. The evidence counts the comparisons per rival."""
    p = points(df, low, metric)
    if p.empty:
        return Part(no_data=f"{low} was not run")
    rivals = {m: points(df, m, metric) for m in others}
    missing = tuple(m for m, c in rivals.items() if c.empty)
    rivals = {m: c for m, c in rivals.items() if not c.empty}
    if not rivals:
        return Part(no_data="no other method was run", missing=missing)
    comps = []
    for m, c in rivals.items():
        text = f"mean over r {c['mean'].mean():.3g}s"
        for r in p.index.intersection(c.index):
            pv, favours = _difference(estimate(p.loc[[r]]), estimate(c.loc[[r]]), -1)
            comps.append(Comparison(f"vs {m} r={r}", text, pv, favours, group=f"vs {m}"))
    head = f"{low} mean over r {p['mean'].mean():.3g}s; r values where {low} is lower"
    return Part(tuple(comps), missing, head=head, grouped=True)


def check_each(df: pd.DataFrame, checks: Sequence[Callable[[pd.DataFrame], Part]]) -> Part:
    """A claim about several parts at once ("LLE and LS underperform"): the comparisons of all
    its parts, judged together (one Holm family); each part's label prefixed by its title when
    parts share method names. No data when no part has any comparison."""
    parts = [check(df) for check in checks]
    comps = tuple(c for part in parts for c in part.comparisons)
    missing = tuple(dict.fromkeys(m for part in parts for m in part.missing))
    heads = " | ".join(dict.fromkeys(part.head for part in parts if part.head))
    no_data = "; ".join(part.no_data for part in parts if part.no_data)
    if not comps:
        return Part(missing=missing, no_data=no_data or "none of the methods was run")
    if no_data:
        heads = f"{heads} | {no_data}" if heads else no_data
    grouped = any(part.grouped for part in parts)
    return Part(comps, missing, heads, grouped=grouped)


def titled(check: Callable[[pd.DataFrame], Part], title: str) -> Callable[[pd.DataFrame], Part]:
    """``check`` with its comparisons' labels prefixed by ``title`` (the parts of a
    :func:`check_each` claim that compare the same methods on different metrics)."""

    def run(df: pd.DataFrame) -> Part:
        part = check(df)
        comps = tuple(
            Comparison(f"{title} {c.label}", c.text, c.p, c.favours, c.short, c.counted, c.group)
            for c in part.comparisons
        )
        return Part(comps, part.missing, part.head, part.no_data, part.grouped)

    return run
