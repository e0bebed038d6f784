"""The checks the claims are made of: each reads a summary and returns the comparisons (a
:class:`~.verdicts.Part`) that :func:`~.verdicts.decide` judges by the one verdict rule. Here the
trends over r and the closeness to kMeans, and the combinators; the rankings between methods are
in :mod:`.rankings`.

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
    difference,
    effect_text,
    estimate,
    margin_test,
    points,
)
from kmdr.report.claims.verdicts import (
    CONVERGE_TOL,
    FLAT_SHARE,
    NEAR_ACCURACY,
    SIGNIFICANT_GROWTH,
    TIMER_FLOOR,
    TREND_MARGIN,
    Comparison,
    Part,
)

__all__ = [
    "check_converges",
    "check_each",
    "check_flat",
    "check_grows",
    "check_near_accuracy",
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
        pv, favours = difference(q4, q1, direction)
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
    pv, favours = difference(q4, q1, +1)
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
