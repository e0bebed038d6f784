"""The statistics the claims rest on: per-point estimates from a summary, Welch's t-test,
tests against a tolerance, Hedges' g, Holm's step-down correction and how a p-value is printed.

See :mod:`.verdicts` for how a claim's comparisons are judged with them; the reasons for each
choice (Welch per point, tolerances tested one-sided, only independent measurements tested) are
written there, once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from kmdr.results.reading import is_baseline

#: Level of every test, after Holm's correction within the claim.
ALPHA = 0.05
#: p-values below this are printed as ``p < 1e-300`` (they are at the edge of double precision).
P_FLOOR = 1e-300
#: How the claims and their evidence name the no-reduction baseline; its rows are found by the
#: reducer declared ``baseline=True`` (:func:`kmdr.results.summary.is_baseline`), whatever the
#: label.
BASELINE = "kMeans"


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


def difference(a: Estimate, b: Estimate, direction: int) -> tuple[float, bool]:
    """Welch's two-sided p of a vs b, and whether a lies beyond b in ``direction``."""
    return welch(a, b), direction * (a.mean - b.mean) > 0
