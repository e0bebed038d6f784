"""The checks the claims are made of: each reads the cells and returns the comparisons (a
:class:`~.verdicts.Part`) that :func:`~.verdicts.decide` judges by the one verdict rule. Here the
trends over r and the closeness to kMeans, and the combinators; the rankings between methods are
in :mod:`.rankings`.

Every check only builds comparisons, each with its test (on one number per repetition), the side
its estimate lies on and the numbers behind it (means, Δ, Hedges' g); none decides a verdict of
its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd
from scipy import stats

from kmdr.report.claims.significance import (
    ALPHA,
    BASELINE,
    Sample,
    Test,
    as_sample,
    curve,
    effect_text,
    interval_text,
    is_time,
    margin_test,
    p_text,
    sample,
    table,
    test,
)
from kmdr.report.claims.verdicts import (
    CONVERGE_FLOOR,
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
    "tolerance_of",
]


def spearman(s: pd.Series) -> float:
    """Spearman rank correlation of a curve with its r (0 for a constant or 1-point curve)."""
    if len(s) < 2 or s.nunique() < 2:
        return 0.0
    return float(stats.spearmanr(np.asarray(s.index, dtype=float), s.to_numpy()).statistic)


def rho_sample(wide: pd.DataFrame) -> Sample | None:
    """Each repetition's own Spearman ρ of its curve with r (the repetitions with every r of
    the grid), as a :class:`Sample`; None when fewer than two r or no repetition remain."""
    part = wide.dropna()
    if part.empty or part.shape[1] < 2:
        return None
    values = [spearman(pd.Series(row.to_numpy(), index=part.columns)) for _, row in part.iterrows()]
    single = bool(wide.attrs.get("single"))
    return as_sample(values, part.index, bool(wide.attrs.get("copied")), single)


def quarters(wide: pd.DataFrame) -> tuple[list, list]:
    """The r of the first and of the last quarter of a :func:`~.significance.table`'s r grid
    (at least one each)."""
    rs = list(wide.columns)
    n = max(1, math.ceil(len(rs) / 4))
    return rs[:n], rs[-n:]


def change(wide: pd.DataFrame, log: bool = False) -> tuple[Sample | None, float, float]:
    """Each repetition's own change from the first to the last quarter of the r grid (its
    last-quarter mean minus its first-quarter mean; with ``log``, the log of their ratio, as
    times are compared), and the two quarters' means over the repetitions."""
    first, last = quarters(wide)
    q1, q4 = sample(wide, first), sample(wide, last)
    both = wide[list(dict.fromkeys([*first, *last]))].dropna()
    if both.empty or q1 is None or q4 is None:
        return None, math.nan, math.nan
    q1s, q4s = (both[q].mean(axis=1).to_numpy(dtype=float) for q in (first, last))
    values = np.log(q4s / q1s) if log else q4s - q1s
    single = bool(wide.attrs.get("single"))
    return as_sample(values, both.index, bool(wide.attrs.get("copied")), single), q1.mean, q4.mean


def change_test(delta: Sample, log: bool) -> Test:
    """The test of a :func:`change` against none: on the log of each repetition's ratio for a
    time (shown as the ratio with its 95% interval; a near-deterministic measure's g says only
    how small its noise is), on the difference otherwise."""
    if log and not np.isfinite(delta.values).all():
        return Test(math.nan, math.nan, math.nan, False, delta.n, 0, math.nan,
                    why="a time of 0 s has no ratio", log=True)  # fmt: skip
    return replace(test(delta, None), log=log)


# --------------------------------------------------------------------------------------------
# Trends
# --------------------------------------------------------------------------------------------


def check_trend(df: pd.DataFrame, methods: Sequence[str], metric: str, direction: int) -> Part:
    """Each method's change from its first- to its last-quarter mean, tested on each
    repetition's own change: for the claim when significantly beyond 0 in ``direction``; short
    unless also by at least :data:`TREND_MARGIN` (relative) with Spearman ρ of that sign. No
    window sets a method aside: one already at kMeans' level from the smallest r has no change
    to show, and its comparison says so (not significant)."""
    comps, missing = [], []
    for m in methods:
        wide = table(df, m, metric)
        if wide.shape[1] < 2:
            missing.append(m)
            continue
        delta, q1, q4 = change(wide, log=is_time(metric))
        if delta is None:
            missing.append(m)
            continue
        c = curve(wide)
        rho = spearman(c)
        rel = (q4 - q1) / abs(q1) if q1 != 0 else math.inf
        t = change_test(delta, log=is_time(metric))
        favours = direction * t.diff > 0
        side = "greater" if direction > 0 else "less"
        short = []
        # the margin and ρ's sign are tests too, one-sided in the claimed direction, each on one
        # number per repetition: its own change against the margin, its own curve's ρ against 0
        if is_time(metric):
            shift = direction * math.log1p(TREND_MARGIN)
        else:
            shift = direction * TREND_MARGIN * abs(q1)
        margin = test(delta, None, shift, side)
        if not margin.p < ALPHA:
            short.append(
                f"change not shown beyond the {TREND_MARGIN:.0%} margin ("
                f"{p_text(margin.p, why=margin.why or 'no test')}, one-sided)"
            )
        rhos = rho_sample(wide)
        sign = test(rhos, None, 0.0, side) if rhos is not None else None
        if sign is None or not sign.p < ALPHA:
            got = "no test" if sign is None else p_text(sign.p, why=sign.why or "no test")
            short.append(f"ρ's sign not shown ({got}, one-sided, per-repetition ρ)")
        text = f"Q1 {q1:.4g} → Q4 {q4:.4g} ({rel:+.1%}, {effect_text(t, '.3g')}), ρ = {rho:+.2f}"
        comps.append(Comparison(m, text, t.p, favours, ", ".join(short), test=t))
    return Part(tuple(comps), tuple(missing))


def check_grows(
    df: pd.DataFrame, method: str, metric: str, factor: float = SIGNIFICANT_GROWTH
) -> Part:
    """``method``'s time from the first to the last quarter of the r grid, tested on each
    repetition's own growth: for the claim when it grows significantly; short unless by
    ×``factor`` with Spearman ρ ≥ 0.5 and a last quarter above the timer floor."""
    wide = table(df, method, metric)
    delta, q1, q4 = change(wide, log=True) if wide.shape[1] >= 2 else (None, math.nan, math.nan)
    if delta is None:
        return Part(no_data=f"{method} was not run")
    t = change_test(delta, log=True)
    ratio = q4 / q1 if q1 > 0 else math.inf
    rho = spearman(curve(wide))
    short = []
    if ratio < factor:
        short.append(f"×{ratio:.2f} below ×{factor:g}")
    if rho < 0.5:
        short.append("ρ < 0.5")
    if q4 < TIMER_FLOOR:
        short.append(f"under the {TIMER_FLOOR * 1e3:g} ms timer floor")
    text = f"Q1 {q1:.3g}s → Q4 {q4:.3g}s (×{ratio:.2f}, {effect_text(t)}), ρ = {rho:+.2f}"
    return Part((Comparison(method, text, t.p, t.diff > 0, ", ".join(short), test=t),))


def check_flat(df: pd.DataFrame, method: str, metric: str, neighbour: str | None = None) -> Part:
    """``method``'s time curve is flat: its per-repetition growth from the first to the last
    quarter of the r grid significantly below :data:`FLAT_SHARE` of ``neighbour``'s
    per-repetition growth over the same grid plus the :data:`TIMER_FLOOR` (one-sided, the
    neighbour's noise included); against the claim when significantly above it. Without the
    neighbour, the margin is the timer floor alone."""
    wide = table(df, method, metric)
    grow, q1, q4 = change(wide) if wide.shape[1] >= 2 else (None, math.nan, math.nan)
    if grow is None:
        return Part(no_data=f"{method} was not run")
    nwide = table(df, neighbour, metric) if neighbour is not None else pd.DataFrame()
    ngrow = change(nwide)[0] if nwide.shape[1] >= 2 else None
    if ngrow is not None:
        scaled = ngrow.map(lambda v: FLAT_SHARE * v)
        margin_ms = (FLAT_SHARE * ngrow.mean + TIMER_FLOOR) * 1e3
        margin_txt = (
            f"{FLAT_SHARE:.0%} of {neighbour}'s growth {ngrow.mean * 1e3:.3g} ms + "
            f"{TIMER_FLOOR * 1e3:g} ms"
        )
    else:
        scaled, margin_ms = None, TIMER_FLOOR * 1e3
        margin_txt = f"the {TIMER_FLOOR * 1e3:g} ms timer floor"
    inside, t = margin_test(grow, scaled, -math.inf, TIMER_FLOOR)
    text = (
        f"Q1 {q1:.3g}s → Q4 {q4:.3g}s, growth {grow.mean * 1e3:.3g} ms vs the margin "
        f"{margin_ms:.3g} ms ({margin_txt}; {interval_text(t, 1e3, 'ms')})"
    )
    missing = (neighbour,) if neighbour is not None and ngrow is None else ()
    return Part((Comparison(method, text, t.p, inside, test=t),), missing)


# --------------------------------------------------------------------------------------------
# Closeness to kMeans
# --------------------------------------------------------------------------------------------


def tolerance_of(reference: float, relative: float, absolute: float) -> float:
    """The one tolerance rule, continuous in ``reference``: ``max(relative · |reference|,
    absolute)`` (a relative tolerance of a value near 0 is no distance on its scale, so the
    absolute floor takes over where ``relative · |reference|`` falls below it, without a
    jump)."""
    return max(relative * abs(reference), absolute)


def check_converges(
    df: pd.DataFrame,
    methods: Sequence[str],
    tol: float = CONVERGE_TOL,
    floor: float = CONVERGE_FLOOR,
) -> Part:
    """Each method's F at the largest r within kMeans' F ± ``max(tol · F_kMeans, floor)``
    (:func:`tolerance_of`; F a share of ||A||_F^2, as the paper plots it): for the claim when
    significantly within it (two one-sided tests), against when significantly outside. The
    repetitions beyond the tolerance are listed."""
    base = sample(table(df, BASELINE, "objective"))
    if base is None:
        return Part(no_data="kMeans was not run")
    comps, missing = [], []
    margin = tolerance_of(base.mean, tol, floor)
    for m in methods:
        wide = table(df, m, "objective")
        last = sample(wide, wide.columns[-1:]) if wide.shape[1] >= 2 else None
        if last is None:
            missing.append(m)
            continue
        inside, t = margin_test(last, base, -margin, margin)
        first = curve(wide).iloc[0]
        text = (
            f"F {first:.4g} at r = {wide.columns[0]} → {last.mean:.4g} at r = "
            f"{wide.columns[-1]}, F − F_kMeans {last.mean - base.mean:+.3g} "
            f"({effect_text(t, '.3g')})"
        )
        beyond = np.flatnonzero(np.abs(last.values - base.mean) > margin)
        if beyond.size:
            values = ", ".join(f"{last.values[i]:.3g}" for i in beyond)
            text += f", {beyond.size} of {last.n} repetitions beyond the tolerance (F = {values})"
        comps.append(Comparison(m, text, t.p, inside, test=t, margin=(-margin, margin)))
    head = (
        f"F_kMeans = {base.mean:.4g}, tolerance ±{margin:.3g} = max({tol:.3g} × F_kMeans, "
        f"{floor:.3g}) (kmdr's: {tol:.1%} relative, {floor:g} of ||A||_F^2 absolute)"
    )
    return Part(tuple(comps), tuple(missing), head=head)


def check_near_accuracy(
    df: pd.DataFrame, methods: Sequence[str], r_targets: Sequence[int], tol: float = NEAR_ACCURACY
) -> Part:
    """Each method's mean P no more than ``tol`` below kMeans' at one of ``r_targets``: for the
    claim when significantly so at some target (one-sided, Bonferroni over the targets; or
    exactly), against when significantly more than ``tol`` below at every target."""
    base = sample(table(df, BASELINE, "accuracy"))
    if base is None:
        return Part(no_data="kMeans was not run")
    comps, missing = [], []
    for m in methods:
        wide = table(df, m, "accuracy")
        rs = [r for r in wide.columns if r in set(r_targets)]
        if not rs:
            missing.append(m)
            continue
        tests = [margin_test(sample(wide, [r]), base, -tol, math.inf) for r in rs]
        means = wide[rs].mean(axis=0)
        shown = ", ".join(f"P(r={r}) = {means[r]:.3f}" for r in rs)
        inside = [t for ok, t in tests if ok]
        if inside:
            favours = True
            # the best target, Bonferroni over them
            tested = [x for x in inside if not math.isnan(x.p)]
            if tested:
                t = min(tested, key=lambda x: x.p)
                pv = min(1.0, len(tests) * t.p)
            else:
                t, pv = inside[0], math.nan
        else:
            favours = False
            # against only when beyond the tolerance at every target: the weakest of them
            t = max((x for _, x in tests), key=lambda x: -1.0 if math.isnan(x.p) else x.p)
            pv = math.nan if any(math.isnan(x.p) for _, x in tests) else t.p
        text = f"{shown} ({effect_text(t, '.3g')} at r = {rs[[x for _, x in tests].index(t)]})"
        # inside, p is Bonferroni's over the targets: so is the smallest p a sign test can give
        times = len(tests) if inside else 1
        comps.append(Comparison(m, text, pv, favours, test=t, multiplier=times))
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
    return Part(comps, missing, heads)


def titled(check: Callable[[pd.DataFrame], Part], title: str) -> Callable[[pd.DataFrame], Part]:
    """``check`` with its comparisons' labels prefixed by ``title`` (the parts of a
    :func:`check_each` claim that compare the same methods on different metrics)."""

    def run(df: pd.DataFrame) -> Part:
        part = check(df)
        comps = tuple(replace(c, label=f"{title} {c.label}") for c in part.comparisons)
        return Part(comps, part.missing, part.head, part.no_data)

    return run
