"""The papers' curve-only claims, written as statements our results can check.

bzmd14 (Figs. 1-3) and lst17 (Figs. 1-3) publish curves, not numbers, and say in words what the
curves show (bzmd14 §7.5 and §8, lst17 §4.2). Each :class:`Claim` restates one such sentence as a
checkable statement, with its thresholds in the text, and a check over the experiment's summary
(one row per dataset, method and r with ``<metric>_mean`` columns, see docs/results-layout.md)
that returns a :class:`Verdict`: ``holds``, ``fails``, ``partly`` or ``no data``, with the numbers
behind it.

The thresholds (stated in every statement):

* a trend ("decreases/increases as r grows") compares the mean over the first quarter of the r
  grid with the mean over the last quarter, and needs a relative change of at least
  :data:`TREND_MARGIN` in the claimed direction plus a Spearman rank correlation of the curve
  with r of the claimed sign; Spearman ρ is reported beside it;
* "approaches kMeans" means within :data:`CONVERGE_TOL` (relative) of kMeans' F at the largest r;
* "near-kMeans accuracy" means within :data:`NEAR_ACCURACY` (absolute) of kMeans' P;
* "lowest"/"faster"/"superior" compare means over the r grid (areas under the curves), and
  per-r comparisons are reported as evidence;
* "nearly flat" means the last-quarter mean is at most :data:`FLAT_RATIO` times the first-quarter
  mean.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from kmdr.experiments.aggregate import is_baseline

HOLDS = "holds"
FAILS = "fails"
PARTLY = "partly"
NO_DATA = "no data"
VERDICTS = (HOLDS, PARTLY, FAILS, NO_DATA)

TREND_MARGIN = 0.01
CONVERGE_TOL = 0.05
NEAR_ACCURACY = 0.05
FLAT_RATIO = 2.0
SIGNIFICANT_GROWTH = 1.5

#: How the claims and their evidence name the no-reduction baseline; its rows are found by
#: ``reducer_name == "none"`` (:func:`kmdr.experiments.aggregate.is_baseline`), whatever the label.
BASELINE = "kMeans"
#: bzmd14's methods other than Laplacian scores (its five randomized/SVD reducers).
BZMD14_METHODS = ("Sampl/SVD", "Sampl/ApproxSVD", "RP", "SVD", "ApprSVD")
LAPSCORES = "LapScores"
#: lst17's dimensionality reduction methods we run (LLE and PD are optional and not run).
LST17_METHODS = ("SE", "RP", "SVD", "LLE", LAPSCORES, "PD")


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
# Helpers over a summary DataFrame
# --------------------------------------------------------------------------------------------


def curve(df: pd.DataFrame, method: str, metric: str) -> pd.Series:
    """Mean of ``metric`` vs r for ``method`` (index r ascending), NaNs dropped; ``BASELINE``
    selects the no-reduction rows by registry name, a label never matches them."""
    col = f"{metric}_mean" if f"{metric}_mean" in df else metric
    base = is_baseline(df)
    rows = df[base] if method == BASELINE else df[(df["method"] == method) & ~base]
    if rows.empty or col not in rows:
        return pd.Series(dtype=float)
    s = rows.groupby("r")[col].mean().sort_index()
    return s.dropna().astype(float)


def baseline_value(df: pd.DataFrame, metric: str) -> float | None:
    """kMeans' value of ``metric`` (it does not depend on r: the mean over its rows)."""
    s = curve(df, BASELINE, metric)
    return float(s.mean()) if len(s) else None


def spearman(s: pd.Series) -> float:
    """Spearman rank correlation of a curve with its r (0 for a constant or 1-point curve)."""
    if len(s) < 2:
        return 0.0
    x = pd.Series(s.index, dtype=float).rank().to_numpy()
    y = pd.Series(s.to_numpy()).rank().to_numpy()
    if np.std(x) == 0 or np.std(y) == 0:
        return 0.0
    return float(np.corrcoef(x, y)[0, 1])


def quartiles(s: pd.Series) -> tuple[float, float]:
    """Means of the curve over the first and the last quarter of its r values (at least one)."""
    n = max(1, math.ceil(len(s) / 4))
    return float(s.iloc[:n].mean()), float(s.iloc[-n:].mean())


def trend(s: pd.Series, direction: int, margin: float = TREND_MARGIN) -> tuple[bool, str]:
    """Whether the curve moves in ``direction`` (+1 up, -1 down) as r grows, and the numbers."""
    q1, q4 = quartiles(s)
    rho = spearman(s)
    change = (q4 - q1) / abs(q1) if q1 != 0 else math.copysign(math.inf, q4 - q1)
    ok = direction * change >= margin and direction * rho > 0
    return ok, f"Q1 {q1:.4g} → Q4 {q4:.4g} ({change:+.1%}), ρ = {rho:+.2f}"


def _combine(results: dict[str, bool], evidence: list[str], missing: Sequence[str]) -> Verdict:
    """holds if every method passes, partly if some do, fails if none; no data if none was run."""
    text = "; ".join(evidence)
    if missing:
        text += ("; " if text else "") + "not run: " + ", ".join(missing)
    if not results:
        return Verdict(NO_DATA, text or "none of the methods was run")
    n_ok = sum(results.values())
    if n_ok == len(results):
        return Verdict(HOLDS, text)
    if n_ok == 0:
        return Verdict(FAILS, text)
    return Verdict(PARTLY, text)


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------


def check_trend(df: pd.DataFrame, methods: Sequence[str], metric: str, direction: int) -> Verdict:
    results, evidence, missing = {}, [], []
    for m in methods:
        s = curve(df, m, metric)
        if len(s) < 2:
            missing.append(m)
            continue
        ok, text = trend(s, direction)
        results[m] = ok
        evidence.append(f"{m}: {text} {'✓' if ok else '✗'}")
    return _combine(results, evidence, missing)


def check_converges(df: pd.DataFrame, methods: Sequence[str], tol: float = CONVERGE_TOL) -> Verdict:
    base = baseline_value(df, "objective")
    if base is None:
        return Verdict(NO_DATA, "kMeans was not run")
    results, evidence, missing = {}, [], []
    for m in methods:
        s = curve(df, m, "objective")
        if len(s) < 2:
            missing.append(m)
            continue
        gap_first = (s.iloc[0] - base) / base
        gap_last = (s.iloc[-1] - base) / base
        ok = abs(gap_last) <= tol and (abs(gap_last) <= abs(gap_first) or abs(gap_first) <= tol)
        results[m] = ok
        evidence.append(
            f"{m}: F − F_kMeans {gap_first:+.1%} at r = {s.index[0]} → {gap_last:+.1%} at "
            f"r = {s.index[-1]} {'✓' if ok else '✗'}"
        )
    return _combine(results, [f"F_kMeans = {base:.4g}", *evidence], missing)


def check_near_accuracy(
    df: pd.DataFrame, methods: Sequence[str], r_targets: Sequence[int], tol: float = NEAR_ACCURACY
) -> Verdict:
    """Each method's mean P within ``tol`` of kMeans' at one of ``r_targets`` (e.g. 20, 30)."""
    base = baseline_value(df, "accuracy")
    if base is None:
        return Verdict(NO_DATA, "kMeans was not run")
    results, evidence, missing = {}, [f"P_kMeans = {base:.3f}"], []
    for m in methods:
        s = curve(df, m, "accuracy")
        vals = {r: float(s[r]) for r in r_targets if r in s.index}
        if not vals:
            missing.append(m)
            continue
        ok = any(v >= base - tol for v in vals.values())
        results[m] = ok
        shown = ", ".join(f"P(r={r}) = {v:.3f}" for r, v in vals.items())
        evidence.append(f"{m}: {shown} {'✓' if ok else '✗'}")
    return _combine(results, evidence, missing)


def _mean_over_r(df, method, metric, r_values=None) -> float | None:
    s = curve(df, method, metric)
    if r_values is not None:
        s = s[s.index.isin(r_values)]
    return float(s.mean()) if len(s) else None


def check_beats_lapscores(df: pd.DataFrame, methods: Sequence[str]) -> Verdict:
    """Each method: higher mean P and lower mean F than LapScores over the common r grid."""
    ls_acc = curve(df, LAPSCORES, "accuracy")
    if ls_acc.empty:
        return Verdict(NO_DATA, "LapScores was not run")
    results, evidence, missing = {}, [], []
    for m in methods:
        acc = curve(df, m, "accuracy")
        common = acc.index.intersection(ls_acc.index)
        if len(common) == 0:
            missing.append(m)
            continue
        pa, pl = (
            _mean_over_r(df, m, "accuracy", common),
            _mean_over_r(df, LAPSCORES, "accuracy", common),
        )
        fa, fl = (
            _mean_over_r(df, m, "objective", common),
            _mean_over_r(df, LAPSCORES, "objective", common),
        )
        ok = pa > pl and fa < fl
        results[m] = ok
        evidence.append(f"{m}: P {pa:.3f} vs {pl:.3f}, F {fa:.4g} vs {fl:.4g} {'✓' if ok else '✗'}")
    return _combine(results, evidence, missing)


def check_leads_accuracy(df: pd.DataFrame, leader: str, others: Sequence[str]) -> Verdict:
    """``leader``'s mean P over r above every other method's (kMeans: its single value)."""
    lead = _mean_over_r(df, leader, "accuracy")
    if lead is None:
        return Verdict(NO_DATA, f"{leader} was not run")
    beaten, evidence, missing = {}, [], []
    for m in others:
        v = _mean_over_r(df, m, "accuracy")
        if v is None:
            missing.append(m)
            continue
        beaten[m] = lead > v
        evidence.append(f"{m} {v:.3f}")
    text = f"mean P over r: {leader} {lead:.3f} vs " + ", ".join(evidence)
    # how often the leader is on top at a given r
    lead_curve = curve(df, leader, "accuracy")
    tops = 0
    for r, v in lead_curve.items():
        rivals = [curve(df, m, "accuracy").get(r) for m in others if m != BASELINE]
        rivals = [x for x in rivals if x is not None]
        base = baseline_value(df, "accuracy")
        if base is not None:
            rivals.append(base)
        tops += all(v > x for x in rivals)
    text += f"; {leader} on top at {tops} of {len(lead_curve)} r values"
    if missing:
        text += "; not run: " + ", ".join(missing)
    if not beaten:
        return Verdict(NO_DATA, text)
    n = sum(beaten.values())
    if n == len(beaten):
        return Verdict(HOLDS, text)
    return Verdict(PARTLY if n >= len(beaten) / 2 else FAILS, text)


def check_trails(df: pd.DataFrame, laggard: str, others: Sequence[str]) -> Verdict:
    """``laggard``'s mean P over r below every other method's."""
    lag = _mean_over_r(df, laggard, "accuracy")
    if lag is None:
        return Verdict(NO_DATA, f"{laggard} was not run")
    results, evidence, missing = {}, [], []
    for m in others:
        v = _mean_over_r(df, m, "accuracy")
        if v is None:
            missing.append(m)
            continue
        results[m] = lag < v
        evidence.append(f"{m} {v:.3f} {'✓' if lag < v else '✗'}")
    verdict = _combine(results, [f"mean P over r: {laggard} {lag:.3f} vs", *evidence], missing)
    return Verdict(verdict.verdict, verdict.evidence.replace("vs; ", "vs "))


def check_faster_than_full(df: pd.DataFrame, methods: Sequence[str], metric: str) -> Verdict:
    """Every (method, r) cell's mean ``metric`` time below kMeans'; partly if at least half are."""
    base = baseline_value(df, metric)
    if base is None:
        return Verdict(NO_DATA, "kMeans was not run")
    n_cells = n_fast = 0
    evidence, missing = [], []
    for m in methods:
        s = curve(df, m, metric)
        if s.empty:
            missing.append(m)
            continue
        fast = int((s < base).sum())
        n_cells += len(s)
        n_fast += fast
        evidence.append(f"{m} {fast}/{len(s)} (max {s.max():.3g}s)")
    text = f"kMeans {base:.3g}s; cells faster: " + ", ".join(evidence)
    if missing:
        text += "; not run: " + ", ".join(missing)
    if n_cells == 0:
        return Verdict(NO_DATA, text)
    if n_fast == n_cells:
        return Verdict(HOLDS, text)
    return Verdict(PARTLY if n_fast >= n_cells / 2 else FAILS, text)


def check_slowest(df: pd.DataFrame, slow: str, others: Sequence[str], metric: str) -> Verdict:
    """``slow``'s mean ``metric`` over r above every other method's."""
    v = _mean_over_r(df, slow, metric)
    if v is None:
        return Verdict(NO_DATA, f"{slow} was not run")
    results, evidence, missing = {}, [], []
    for m in others:
        o = _mean_over_r(df, m, metric)
        if o is None:
            missing.append(m)
            continue
        results[m] = v > o
        evidence.append(f"{m} {o:.3g}s {'✓' if v > o else '✗'}")
    out = _combine(results, evidence, missing)
    return Verdict(out.verdict, f"mean over r: {slow} {v:.3g}s vs " + out.evidence)


def check_each(df: pd.DataFrame, checks: Sequence[Callable[[pd.DataFrame], Verdict]]) -> Verdict:
    """A claim about several methods at once ("LLE and LS underperform"): holds when every part
    holds, partly when some part holds or partly holds, fails when none does; no data when no
    part has data. The evidence lists every part's."""
    parts = [check(df) for check in checks]
    have = [p for p in parts if p.verdict != NO_DATA]
    text = " | ".join(p.evidence for p in parts)
    if not have:
        return Verdict(NO_DATA, text)
    if all(p.verdict == HOLDS for p in parts):
        return Verdict(HOLDS, text)
    if any(p.verdict in (HOLDS, PARTLY) for p in have):
        return Verdict(PARTLY, text)
    return Verdict(FAILS, text)


def check_lowest(df: pd.DataFrame, low: str, others: Sequence[str], metric: str) -> Verdict:
    """``low``'s mean ``metric`` below every other method's at every r: holds; at most r: partly."""
    s = curve(df, low, metric)
    if s.empty:
        return Verdict(NO_DATA, f"{low} was not run")
    rivals = {m: curve(df, m, metric) for m in others}
    missing = [m for m, c in rivals.items() if c.empty]
    rivals = {m: c for m, c in rivals.items() if not c.empty}
    if not rivals:
        return Verdict(NO_DATA, "no other method was run")
    wins = 0
    for r, v in s.items():
        wins += all(v < c.get(r, math.inf) for c in rivals.values())
    means = ", ".join(f"{m} {c.mean():.3g}s" for m, c in rivals.items())
    text = (
        f"{low} lowest at {wins} of {len(s)} r values; mean over r: {low} {s.mean():.3g}s, {means}"
    )
    if missing:
        text += "; not run: " + ", ".join(missing)
    if wins == len(s):
        return Verdict(HOLDS, text)
    return Verdict(PARTLY if wins >= len(s) / 2 else FAILS, text)


def check_flat(df: pd.DataFrame, method: str, metric: str, ratio: float = FLAT_RATIO) -> Verdict:
    s = curve(df, method, metric)
    if len(s) < 2:
        return Verdict(NO_DATA, f"{method} was not run")
    q1, q4 = quartiles(s)
    r = q4 / q1 if q1 > 0 else math.inf
    ok = r <= ratio
    return Verdict(
        HOLDS if ok else FAILS,
        f"{method}: Q1 {q1:.3g}s → Q4 {q4:.3g}s (×{r:.2f}), ρ = {spearman(s):+.2f}",
    )


def check_grows(
    df: pd.DataFrame, method: str, metric: str, factor: float = SIGNIFICANT_GROWTH
) -> Verdict:
    s = curve(df, method, metric)
    if len(s) < 2:
        return Verdict(NO_DATA, f"{method} was not run")
    q1, q4 = quartiles(s)
    r = q4 / q1 if q1 > 0 else math.inf
    rho = spearman(s)
    ok_growth, ok_rho = r >= factor, rho >= 0.5
    verdict = HOLDS if ok_growth and ok_rho else PARTLY if (ok_rho or r > 1) else FAILS
    return Verdict(verdict, f"{method}: Q1 {q1:.3g}s → Q4 {q4:.3g}s (×{r:.2f}), ρ = {rho:+.2f}")


# --------------------------------------------------------------------------------------------
# The claims
# --------------------------------------------------------------------------------------------

BZMD14_DATASETS = {
    # experiment: (dataset, figure panel)
    "bzmd14_synth": ("synth", "Fig. 1 (a, c, e)"),
    # the same grid with k-means++ starts (a diagnostic, not a paper panel)
    "bzmd14_synth_kmeanspp": ("synth", "Fig. 1 (a, c, e), k-means++ starts"),
    "bzmd14_usps": ("usps", "Fig. 1 (b, d, f)"),
    "bzmd14_coil20": ("coil20", "Fig. 2 (a, c, e)"),
    "bzmd14_pie": ("pie", "Fig. 3 (a, c, e)"),
    "bzmd14_orl": ("orl", "Fig. 3 (b, d, f)"),
}
LST17_DATASETS = {
    "lst17_coil20": ("coil20", "(a)"),
    "lst17_rcv1": ("rcv1", "(c)"),
    "lst17_sparse_text": ("sparse_text", "(c), stand-in"),
}
_M5 = ", ".join(BZMD14_METHODS)
_LST_DR = ", ".join(LST17_METHODS)


def _bzmd14_claims() -> list[Claim]:
    out: list[Claim] = []
    for exp, (ds, fig) in BZMD14_DATASETS.items():
        name = ds.upper() if ds != "synth" else "Synth"
        tag = exp.removeprefix("bzmd14_")  # unique per experiment: the claim ids use it
        if exp.endswith("_kmeanspp"):
            name += " (k-means++ starts)"
        out.append(
            Claim(
                id=f"bzmd14-F-decreases-{tag}",
                paper="bzmd14",
                figure=fig,
                source="§7.5 ¶2",
                statement=(
                    f"On {name}, F decreases as r grows, for each of {_M5}: mean F over the last "
                    f"quarter of the r grid at least {TREND_MARGIN:.0%} below the first quarter, "
                    "and Spearman ρ(r, F) < 0."
                ),
                experiment=exp,
                dataset=ds,
                check=partial(
                    check_trend, methods=BZMD14_METHODS, metric="objective", direction=-1
                ),
            )
        )
        out.append(
            Claim(
                id=f"bzmd14-F-approaches-kmeans-{tag}",
                paper="bzmd14",
                figure=fig,
                source="§7.5 ¶2",
                statement=(
                    f"On {name}, F of each of {_M5} approaches kMeans' F as r grows: within "
                    f"{CONVERGE_TOL:.0%} (relative) at the largest r, and, if it started farther "
                    "away, closer there than at the smallest r."
                ),
                experiment=exp,
                dataset=ds,
                check=partial(check_converges, methods=BZMD14_METHODS),
            )
        )
        out.append(
            Claim(
                id=f"bzmd14-faster-{tag}",
                paper="bzmd14",
                figure=fig,
                source="§7.5 ¶1 (Synth), §8 (all)",
                statement=(
                    f"On {name}, every reduced k-means ({_M5}, {LAPSCORES}; reduction + "
                    "clustering) is faster than k-means on all features, at every r "
                    "(partly: at least half of the (method, r) points)."
                ),
                experiment=exp,
                dataset=ds,
                check=partial(
                    check_faster_than_full,
                    methods=(*BZMD14_METHODS, LAPSCORES),
                    metric="total_seconds",
                ),
            )
        )
        if ds in ("pie", "coil20"):
            out.append(
                Claim(
                    id=f"bzmd14-lapscores-lead-{tag}",
                    paper="bzmd14",
                    figure=fig,
                    source="§7.5 ¶2",
                    statement=(
                        f"On {name}, Laplacian scores lead on accuracy: mean P over the r grid "
                        "above every other method's and above kMeans' (partly: above at least half "
                        "of them)."
                    ),
                    experiment=exp,
                    dataset=ds,
                    check=partial(
                        check_leads_accuracy, leader=LAPSCORES, others=(*BZMD14_METHODS, BASELINE)
                    ),
                )
            )
        else:
            out.append(
                Claim(
                    id=f"bzmd14-beat-lapscores-{tag}",
                    paper="bzmd14",
                    figure=fig,
                    source="§7.5 ¶2",
                    statement=(
                        f"On {name} (one of 'all cases but PIE and COIL20'), each of {_M5} beats "
                        "Laplacian scores on both accuracy and F: higher mean P and lower mean F "
                        "over the common r grid."
                    ),
                    experiment=exp,
                    dataset=ds,
                    check=partial(check_beats_lapscores, methods=BZMD14_METHODS),
                )
            )
        if ds == "synth":
            out.append(
                Claim(
                    id=f"bzmd14-{tag}-accurate-r20",
                    paper="bzmd14",
                    figure=fig,
                    source="§7.5 ¶1 and ¶4",
                    statement=(
                        f"On {name} the methods ({_M5}) reach near-kMeans accuracy by r ≈ 20-30: "
                        f"each method's mean P within {NEAR_ACCURACY} of kMeans' at r = 20 or "
                        "r = 30 (partly: some of the methods)."
                    ),
                    experiment=exp,
                    dataset=ds,
                    check=partial(check_near_accuracy, methods=BZMD14_METHODS, r_targets=(20, 30)),
                )
            )
    return out


def _lst17_claims() -> list[Claim]:
    out: list[Claim] = []
    others = {m: tuple(x for x in LST17_METHODS if x != m) for m in LST17_METHODS}
    for exp, (ds, fig) in LST17_DATASETS.items():
        name = {"coil20": "COIL20", "rcv1": "RCV1", "sparse_text": "sparse_text (RCV1 stand-in)"}[
            ds
        ]
        note = (
            "Synthetic stand-in for RCV1: a check of the method's behaviour on sparse text-like "
            "data, NOT a reproduction of the RCV1 panel."
            if ds == "sparse_text"
            else ""
        )
        # lst17 ran SVD, LLE, LS only on COIL20 and SECTOR ("can't get the results ... within
        # three days on RCV1"): methods missing from a panel are listed as not run and do not
        # count for or against a claim.
        methods = LST17_METHODS
        mlist = ", ".join(methods)
        c = [
            Claim(
                id=f"lst17-accuracy-increases-{ds}",
                paper="lst17",
                figure=f"Fig. 1 {fig}",
                source="§4.2 bullet 1",
                statement=(
                    f"On {name}, clustering accuracy of each of {mlist} increases with the number "
                    f"of dimensions: last-quarter mean P at least {TREND_MARGIN:.0%} above the "
                    "first quarter and Spearman ρ(r, P) > 0."
                ),
                experiment=exp,
                dataset=ds,
                check=partial(check_trend, methods=methods, metric="accuracy", direction=+1),
                note=note,
            ),
            Claim(
                id=f"lst17-time-increases-{ds}",
                paper="lst17",
                figure=f"Figs. 2-3 {fig}",
                source="§4.2 bullet 1",
                statement=(
                    f"On {name}, the running time (reduction + clustering) of each of {mlist} "
                    f"increases with the number of dimensions (same trend test on total seconds)."
                ),
                experiment=exp,
                dataset=ds,
                check=partial(check_trend, methods=methods, metric="total_seconds", direction=+1),
                note=note,
            ),
            Claim(
                id=f"lst17-se-most-accurate-{ds}",
                paper="lst17",
                figure=f"Fig. 1 {fig}",
                source="§4.2 bullet 2",
                statement=(
                    f"On {name}, SE is more accurate than RP and the other baselines: SE's mean P "
                    f"over r above each of {', '.join(x for x in methods if x != 'SE')} (partly: "
                    "above at least half)."
                ),
                experiment=exp,
                dataset=ds,
                check=partial(
                    check_leads_accuracy, leader="SE", others=tuple(x for x in methods if x != "SE")
                ),
                note=note,
            ),
            Claim(
                id=f"lst17-rp-time-grows-{ds}",
                paper="lst17",
                figure=f"Fig. 2 {fig}",
                source="§4.2 bullet 3",
                statement=(
                    f"On {name}, the reduction time of RP grows with the dimensions: last-quarter "
                    f"mean at least ×{SIGNIFICANT_GROWTH} the first-quarter mean and Spearman ρ ≥ "
                    "0.5 (partly: one of the two, or any growth)."
                ),
                experiment=exp,
                dataset=ds,
                check=partial(check_grows, method="RP", metric="reduce_seconds"),
                note=note,
            ),
            Claim(
                id=f"lst17-se-lowest-time-{ds}",
                paper="lst17",
                figure=f"Fig. 2 {fig}",
                source="§4.2 bullet 3",
                statement=(
                    f"On {name}, SE has the lowest reduction time: below each of "
                    f"{', '.join(others['SE'])} at every r "
                    "(partly: at half of the r values or more)."
                ),
                experiment=exp,
                dataset=ds,
                check=partial(
                    check_lowest,
                    low="SE",
                    others=others["SE"],
                    metric="reduce_seconds",
                ),
                note=note,
            ),
            Claim(
                id=f"lst17-se-time-flat-{ds}",
                paper="lst17",
                figure=f"Fig. 2 {fig}",
                source="§4.2 bullet 3",
                statement=(
                    f"On {name}, SE's reduction time is stable (nearly flat in r): last-quarter "
                    f"mean at most ×{FLAT_RATIO:g} the first-quarter mean."
                ),
                experiment=exp,
                dataset=ds,
                check=partial(check_flat, method="SE", metric="reduce_seconds"),
                note=note,
            ),
            Claim(
                id=f"lst17-faster-than-full-{ds}",
                paper="lst17",
                figure=f"Fig. 3 {fig}",
                source="§4.2 bullet 4",
                statement=(
                    f"On {name}, every reduced k-means ({mlist}) is faster than k-means on all "
                    "features: total time (reduction + clustering) below kMeans' at every r "
                    "(partly: at least half of the (method, r) points)."
                ),
                experiment=exp,
                dataset=ds,
                check=partial(check_faster_than_full, methods=methods, metric="total_seconds"),
                note=note,
            ),
        ]
        if ds == "coil20":
            better = ("SE", "RP", "SVD", "PD")
            c.insert(
                3,
                Claim(
                    id=f"lst17-lle-lapscores-trail-{ds}",
                    paper="lst17",
                    figure=f"Fig. 1 {fig}",
                    source="§4.2 bullet 2",
                    statement=(
                        "On COIL20, LLE and LS generally underperform: each one's mean P over r "
                        f"below each of {', '.join(better)} (partly: for one of the two, or "
                        "against some of them)."
                    ),
                    experiment=exp,
                    dataset=ds,
                    check=partial(
                        check_each,
                        checks=(
                            partial(check_trails, laggard="LLE", others=better),
                            partial(check_trails, laggard=LAPSCORES, others=better),
                        ),
                    ),
                ),
            )
            faster = ("SE", "RP", LAPSCORES, "PD")
            c.insert(
                5,
                Claim(
                    id=f"lst17-svd-lle-slowest-{ds}",
                    paper="lst17",
                    figure=f"Fig. 2 {fig}",
                    source="§4.2 bullet 3",
                    statement=(
                        "On COIL20, SVD and LLE are the two slowest to reduce: each one's mean "
                        f"reduction time over r above each of {', '.join(faster)} (partly: for "
                        "one of the two, or against some of them)."
                    ),
                    experiment=exp,
                    dataset=ds,
                    check=partial(
                        check_each,
                        checks=(
                            partial(
                                check_slowest, slow="SVD", others=faster, metric="reduce_seconds"
                            ),
                            partial(
                                check_slowest, slow="LLE", others=faster, metric="reduce_seconds"
                            ),
                        ),
                    ),
                ),
            )
        out.extend(c)
    return out


#: Every claim the report checks, in report order.
CLAIMS: tuple[Claim, ...] = (*_bzmd14_claims(), *_lst17_claims())


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


def evaluate_all(
    summaries: dict[str, pd.DataFrame], claims: Sequence[Claim] = CLAIMS
) -> list[tuple[Claim, Verdict]]:
    return [(c, evaluate(c, summaries)) for c in claims]
