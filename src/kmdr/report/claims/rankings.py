"""The ranking checks of the claims: one method against others (or against kMeans) over their
common r grid, each comparison a test on one number per repetition (its mean over that grid),
with the side its estimate lies on and the numbers behind it; times are compared as ratios (on
their log). :func:`~.verdicts.decide` judges them by the one verdict rule."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import pandas as pd

from kmdr.report.claims.significance import (
    ALPHA,
    BASELINE,
    Sample,
    Test,
    difference,
    effect_text,
    log_of,
    p_text,
    ratio_text,
    sample,
    table,
    test,
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


def _tables(df, methods: Sequence[str], metric: str) -> dict[str, pd.DataFrame]:
    """Each method's :func:`~.significance.table` of ``metric``, built once for a check."""
    return {m: table(df, m, metric) for m in dict.fromkeys(methods)}


def _over_r(tables: dict, method: str, grid=None) -> Sample | None:
    """``method``'s per-repetition mean over ``grid`` of its table in ``tables`` (its whole r
    grid when None; kMeans: its single value, whatever the grid)."""
    return sample(tables[method], None if method == BASELINE else grid)


def _common_grid(tables: dict, methods: Sequence[str]) -> pd.Index:
    """The r the tables of ``methods`` all hold (kMeans, which has no r grid, left out)."""
    grid = None
    for m in methods:
        if m == BASELINE:
            continue
        idx = pd.Index(tables[m].columns)
        grid = idx if grid is None else grid.intersection(idx)
    return grid if grid is not None else pd.Index([])


def time_ratio(a: Sample, b: Sample) -> tuple[Test, str]:
    """The test of time ``a`` against time ``b`` as a ratio (Welch's or paired t on the log of
    each repetition's time) and its text: the ratio of the means, Δ in seconds, and the ratio of
    the geometric means with its 95% interval (the tested ratio; g says nothing of a measure
    this close to deterministic)."""
    la, lb = log_of(a), log_of(b)
    if la is None or lb is None:
        t = Test(math.nan, a.mean - b.mean, math.nan, False, a.n, b.n, math.nan,
                 why="a time of 0 s has no ratio")  # fmt: skip
    else:
        t = replace(difference(la, lb, -1)[0], log=True)
    ratio = a.mean / b.mean if b.mean > 0 else math.inf
    tested = f", {ratio_text(t)}" if t.log else ""
    return t, f"×{ratio:.3g}, Δ = {a.mean - b.mean:+.3g}s{tested}"


def check_beats_lapscores(df: pd.DataFrame, methods: Sequence[str]) -> Part:
    """Each method against LapScores over their common r grid, on mean P (higher is for the
    claim) and on mean F (lower is for it): two comparisons per method."""
    tables = {
        metric: _tables(df, (LAPSCORES, *methods), metric) for metric in ("accuracy", "objective")
    }
    if tables["accuracy"][LAPSCORES].empty:
        return Part(no_data="LapScores was not run")
    comps, missing = [], []
    for m in methods:
        grid = _common_grid(tables["accuracy"], (m, LAPSCORES))
        if len(grid) == 0:
            missing.append(m)
            continue
        for metric, direction, fmt, label in (
            ("accuracy", +1, ".3f", "P"),
            ("objective", -1, ".4g", "F"),
        ):
            a, b = _over_r(tables[metric], m, grid), _over_r(tables[metric], LAPSCORES, grid)
            if a is None or b is None:
                missing.append(f"{m} ({label})")
                continue
            t, favours = difference(a, b, direction)
            text = f"{a.mean:{fmt}} vs {b.mean:{fmt}} ({effect_text(t, '.3g')})"
            comps.append(Comparison(f"{m} {label}", text, t.p, favours, test=t))
    return Part(tuple(comps), tuple(missing))


def _rank(df, subject: str, others: Sequence[str], metric: str, direction: int, unit="") -> Part:
    """``subject``'s per-repetition mean ``metric`` over r against each other method's on their
    common r grid: for the claim when significantly above (``direction`` +1) or below (-1)."""
    tables = _tables(df, (subject, *others), metric)
    if tables[subject].empty:
        return Part(no_data=f"{subject} was not run")
    comps, missing = [], []
    fmt = ".3g" if unit else ".3f"
    for m in others:
        if tables[m].empty:
            missing.append(m)
            continue
        grid = _common_grid(tables, (subject, m))
        a, b = _over_r(tables, subject, grid), _over_r(tables, m, grid)
        if a is None or b is None:
            missing.append(m)
            continue
        if unit == "s":
            t, effect = time_ratio(a, b)
        else:
            t, effect = difference(a, b, direction)[0], effect_text(difference(a, b, 1)[0])
        favours = direction * t.diff > 0
        text = f"{a.mean:{fmt}}{unit} vs {b.mean:{fmt}}{unit} ({effect})"
        comps.append(Comparison(f"{subject} vs {m}", text, t.p, favours, test=t))
    return Part(tuple(comps), tuple(missing), head="per-repetition means over the common r grid")


def check_leads_accuracy(df: pd.DataFrame, leader: str, others: Sequence[str]) -> Part:
    """``leader``'s mean P over r against every other method's (kMeans: its value)."""
    return _rank(df, leader, others, "accuracy", +1)


def check_trails(df: pd.DataFrame, laggard: str, others: Sequence[str]) -> Part:
    """``laggard``'s mean P over r below every other method's."""
    return _rank(df, laggard, others, "accuracy", -1)


def check_slowest(df: pd.DataFrame, slow: str, others: Sequence[str], metric: str) -> Part:
    """``slow``'s mean ``metric`` time over r above every other method's (as a ratio)."""
    return _rank(df, slow, others, metric, +1, unit="s")


def _not_below(a: pd.DataFrame, b: pd.DataFrame | Sample, grid=None) -> str:
    """Why "lower at every r" falls short, decided by a test at each r, not by its means: the
    one-sided test that ``a``'s time at that r is below ``b``'s (at that r, or ``b``'s one
    sample), on the log of each repetition's time (the ratio). "Every r" is an
    intersection-union test: it holds when each r's test is significant at α (no correction
    is needed, since all must pass); the r that are not are listed with their ratio, its 95%
    interval and p."""
    cols = [r for r in a.columns if grid is None or r in set(grid)]
    worse = []
    for r in cols:
        ar = sample(a, [r])
        br = b if isinstance(b, Sample) else sample(b, [r])
        la, lb = log_of(ar), log_of(br)
        if la is None or lb is None:
            worse.append(f"{r} (a time of 0 s)")
            continue
        t = replace(test(la, lb, alternative="less"), log=True)
        if not t.p < ALPHA:
            two = replace(test(la, lb), log=True)
            ratio = ratio_text(two).removeprefix("ratio ")
            worse.append(f"{r} ({ratio}, one-sided {p_text(t.p, why=t.why or 'no test')})")
    if not worse:
        return ""
    shown = "; ".join(worse[:5]) + ("; …" if len(worse) > 5 else "")
    return f"not shown below at r = {shown}"


def check_faster_than_full(df: pd.DataFrame, methods: Sequence[str], metric: str) -> Part:
    """Each method's ``metric`` time against kMeans', one comparison per method: its
    per-repetition mean time over r against kMeans' per-repetition time, as a ratio; for the
    claim when significantly below, short when some r's mean time is not below kMeans'."""
    base = sample(table(df, BASELINE, metric))
    if base is None:
        return Part(no_data="kMeans was not run")
    comps, missing = [], []
    for m in methods:
        wide = table(df, m, metric)
        a = sample(wide)
        if a is None:
            missing.append(m)
            continue
        t, effect = time_ratio(a, base)
        means = wide.mean(axis=0)
        if len(means.dropna()) > 1:
            text = f"mean over r {a.mean:.3g}s, slowest r {means.max():.3g}s ({effect})"
        else:  # one r (or one n): no mean over r to speak of
            text = f"mean {a.mean:.3g}s at its one r ({effect})"
        comps.append(Comparison(m, text, t.p, t.diff < 0, _not_below(wide, base), test=t))
    head = f"{metric} of kMeans {base.mean:.3g}s (n = {base.n})"
    return Part(tuple(comps), tuple(missing), head=head)


def check_lowest(df: pd.DataFrame, low: str, others: Sequence[str], metric: str) -> Part:
    """``low``'s ``metric`` time against each other method's, one comparison per rival: the
    per-repetition means over their common r grid, as a ratio; for the claim when significantly
    lower, short when at some r of that grid ``low``'s mean is not below the rival's."""
    tables = _tables(df, (low, *others), metric)
    if tables[low].empty:
        return Part(no_data=f"{low} was not run")
    comps, missing = [], []
    for m in others:
        grid = _common_grid(tables, (low, m))
        a, b = _over_r(tables, low, grid), _over_r(tables, m, grid)
        if a is None or b is None or tables[m].empty:
            missing.append(m)
            continue
        t, effect = time_ratio(a, b)
        text = f"{a.mean:.3g}s vs {b.mean:.3g}s over {len(grid)} r ({effect})"
        short = _not_below(tables[low], tables[m], grid)
        comps.append(Comparison(f"vs {m}", text, t.p, t.diff < 0, short, test=t))
    if not comps:
        return Part(no_data="no other method was run", missing=tuple(missing))
    return Part(tuple(comps), tuple(missing), head=f"{low} against each rival")
