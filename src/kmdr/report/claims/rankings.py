"""The ranking checks of the claims: one method against others (or against kMeans) over their
common r grid, each comparison with its Welch p-value, the side its estimate lies on and the
numbers behind it; :func:`~.verdicts.decide` judges them by the one verdict rule."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from kmdr.report.claims.significance import (
    BASELINE,
    Estimate,
    difference,
    effect_text,
    estimate,
    points,
)
from kmdr.report.claims.verdicts import LAPSCORES, Comparison, Part

__all__ = [
    "check_beats_lapscores",
    "check_faster_than_full",
    "check_leads_accuracy",
    "check_lowest",
    "check_slowest",
    "check_trails",
]


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
            pv, favours = difference(a, b, direction)
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
        pv, favours = difference(a, b, direction)
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
            pv, favours = difference(a, base, -1)
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
            pv, favours = difference(estimate(p.loc[[r]]), estimate(c.loc[[r]]), -1)
            comps.append(Comparison(f"vs {m} r={r}", text, pv, favours, group=f"vs {m}"))
    head = f"{low} mean over r {p['mean'].mean():.3g}s; r values where {low} is lower"
    return Part(tuple(comps), missing, head=head, grouped=True)
