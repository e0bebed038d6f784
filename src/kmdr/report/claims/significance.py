"""The statistics the claims rest on: each method's per-repetition values read from the cells,
the tests on them (Welch's or the paired t-test, two-sided or against a tolerance; the sign test
where no repetition differs from another), Hedges' g or, for times and memory, the ratio with its
95% interval, the smallest effect a test could have detected, Holm's correction and how a p-value
is printed.

**The unit of replication is the repetition.** A method's repetition is one draw of everything
random in its cells (their seeds, the reduction shared by its r points, the machine's load
while they ran), so the r points of one repetition are not independent: a comparison over
several r first reduces each repetition to one number (the mean over the r it covers, or a
difference of two such means) and tests those numbers, one per repetition. Two methods are
paired when their repetitions share seeds (repetition i of both has the same seeds); otherwise
their per-repetition numbers are independent samples (Welch's t). See :mod:`.verdicts` for how a
claim's comparisons are judged with them.

**Copies of one computation are one observation.** A point whose every repetition runs the same
deterministic computation (a start that draws nothing, such as the label-informed first point of
each class, after a reduction that draws nothing: its cells give the same partition, bit for bit,
in every repetition) is measured once, whatever its number of rows: its accuracy, F and time are
one observation (:attr:`Sample.single`). Against a side that varies, it is a fixed value (the
one-sample test of the other side's repetitions); two such points have no test at all ("one
computation, no test").
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.power import TTestIndPower, TTestPower

from kmdr.report.experiments import flag_copied_timings
from kmdr.results.reading import is_baseline, setting_labels

#: Level of every test, after Holm's correction within the claim.
ALPHA = 0.05
#: The power at which a tie states the smallest effect it could have detected.
POWER = 0.8
#: p-values below this are printed as ``p < 1e-300`` (they are at the edge of double precision).
P_FLOOR = 1e-300
#: How the claims and their evidence name the no-reduction baseline; its rows are found by the
#: reducer declared ``baseline=True`` (:func:`kmdr.results.reading.is_baseline`), whatever the
#: label.
BASELINE = "kMeans"
#: What a replicate is, as the report's legend says it.
REPLICATE = (
    "The unit of every test is the repetition: each method's repetition (its own seeds, the "
    "reduction its r points share, the load of the machine while they ran) gives one number, "
    "its mean over the r points the comparison covers (or the difference of two such means), "
    "so r points of one repetition never count as independent samples. A point whose "
    "repetitions repeat one deterministic computation (the same label-informed start after a "
    "reduction that draws nothing) is one observation for its accuracy, F and time alike: "
    "against a side that varies it is a fixed value, and between two such points there is no "
    "test (one computation, no test)."
)
#: The k-means starts that draw from the seed: any other start (the label-informed first point of
#: each class) makes Lloyd deterministic.
RANDOM_STARTS = ("k-means++", "random", "sample")
#: Why a comparison of two single computations has no p.
ONE_COMPUTATION = "one computation, no test"


@dataclass(frozen=True)
class Sample:
    """One number per repetition of a method: ``values`` (in ``reps`` order), ``seeds`` the
    seeds of each repetition's cells (pairing: two samples with equal ``seeds`` are paired), and
    ``copied`` when a value rests on a time copied between repetitions (never tested),
    ``single`` when every repetition repeats one deterministic computation (one observation,
    however many rows)."""

    values: np.ndarray
    reps: tuple = ()
    seeds: tuple | None = None
    copied: bool = False
    single: bool = False

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float:
        return float(np.mean(self.values)) if self.n else math.nan

    @property
    def sd(self) -> float:
        return float(np.std(self.values, ddof=1)) if self.n > 1 else math.nan

    def map(self, f) -> Sample:
        """The same repetitions with ``f`` applied to each value."""
        return Sample(f(self.values), self.reps, self.seeds, self.copied, self.single)


def replicates(cells: pd.DataFrame) -> pd.DataFrame:
    """An experiment's cells as the claims read them: each time flagged where it was copied
    between repetitions (:func:`kmdr.report.experiments.flag_copied_timings`, so that no test
    uses it), whether it is the no-reduction baseline (``is_baseline``, read once) and, on an
    experiment holding several settings, each cell's ``setting`` (a claim is judged per
    setting, never on curves averaged over settings)."""
    if cells.empty or "is_baseline" in cells:
        return cells
    out = cells.reset_index(drop=True)
    out["is_baseline"] = is_baseline(out).to_numpy()
    if "reduce_seconds" in out and "reduce_seconds_copied" not in out:
        out = flag_copied_timings(out, out)
    labels = setting_labels(out) if "dataset" in out else None
    if labels is not None and "setting" not in out:
        out.insert(0, "setting", labels.to_numpy())
    if "single" not in out:
        out["single"] = one_computation(out).to_numpy()
    return out


def one_computation(cells: pd.DataFrame) -> pd.Series:
    """Per cell: whether its point (setting, method, r) repeats one deterministic computation
    in every repetition: a start that draws nothing (``kmeans_init`` not among
    :data:`RANDOM_STARTS`) and the same partition's F, on A and on C, in all of at least two
    repetitions (a reduction that draws something never gives C's F twice to the bit)."""
    no = pd.Series(False, index=cells.index)
    if "kmeans_init" not in cells or "objective" not in cells or "repetition" not in cells:
        return no
    fixed = ~cells["kmeans_init"].astype(str).isin(RANDOM_STARTS)
    if not fixed.any():
        return no
    keys = [c for c in ("setting", "dataset", "method", "r") if c in cells]
    values = [c for c in ("objective", "objective_reduced") if c in cells]
    g = cells.groupby(keys, dropna=False)
    same = g[values].transform("nunique").le(1).all(axis=1)
    many = g["repetition"].transform("nunique").ge(2)
    return fixed & same & many


def table(df: pd.DataFrame, method: str, metric: str) -> pd.DataFrame:
    """``method``'s cells as a table: one row per repetition, one column per r, the value of
    ``metric`` in each (NaN where a cell is missing); ``BASELINE`` selects the no-reduction rows
    by registry name. Its index is (``repetition``, ``seeds``: the repetition's cell seeds as
    one text, "" when the cells have none); ``attrs["copied"]`` says whether any value is a
    copied time. An empty table when the method has no such values."""
    empty = pd.DataFrame(dtype=float)
    empty.attrs["copied"] = False
    if "repetition" not in df or metric not in df:
        return empty
    base = df["is_baseline"] if "is_baseline" in df else is_baseline(df)
    rows = df[base] if method == BASELINE else df[(df["method"] == method) & ~base]
    rows = rows[rows[metric].notna()]
    if rows.empty:
        return empty
    flag = f"{metric}_copied"
    copied = bool(rows[flag].eq(True).any()) if flag in rows else False  # NaN: not copied
    single = bool(rows["single"].all()) if "single" in rows else False
    wide = rows.groupby(["repetition", "r"])[metric].mean().astype(float).unstack("r")
    wide = wide.sort_index().sort_index(axis=1)
    if "seed" in rows:
        seeds = rows.groupby("repetition")["seed"].agg(lambda x: " ".join(sorted(map(str, x))))
    else:
        seeds = pd.Series("", index=wide.index)
    wide.index = pd.MultiIndex.from_arrays(
        [wide.index, seeds.reindex(wide.index).to_numpy()], names=["repetition", "seeds"]
    )
    wide.attrs["copied"] = copied
    wide.attrs["single"] = single
    return wide


def as_sample(values, index: pd.Index, copied: bool, single: bool = False) -> Sample:
    """A :class:`Sample` of ``values`` for the repetitions of a :func:`table`'s ``index``."""
    seeds = tuple(index.get_level_values("seeds"))
    return Sample(
        np.asarray(values, dtype=float),
        tuple(index.get_level_values("repetition")),
        seeds if all(seeds) else None,
        copied,
        single,
    )


def sample(wide: pd.DataFrame, grid=None) -> Sample | None:
    """Each repetition of a :func:`table` reduced to one number: its mean over the r of
    ``grid`` (all its r when None). Repetitions missing any of those r are left out. None when
    no repetition remains."""
    if wide.empty:
        return None
    cols = wide.columns if grid is None else [r for r in wide.columns if r in set(grid)]
    if not len(cols):
        return None
    part = wide[cols].dropna()
    if part.empty:
        return None
    single = bool(wide.attrs.get("single"))
    return as_sample(part.mean(axis=1), part.index, bool(wide.attrs.get("copied")), single)


def curve(wide: pd.DataFrame) -> pd.Series:
    """A :func:`table`'s mean over its repetitions at each r (index r ascending)."""
    return wide.mean(axis=0).dropna().astype(float)


def baseline_value(df: pd.DataFrame, metric: str) -> float | None:
    """kMeans' mean ``metric`` (it does not depend on r)."""
    s = sample(table(df, BASELINE, metric))
    return s.mean if s else None


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Test:
    """One test of ``a - b - shift`` on per-repetition values.

    ``p`` its p-value (NaN: no test possible), ``diff`` the estimated difference (on the tested
    scale), ``g`` Hedges' g (``diff`` over the pooled sd, or over the sd of the paired
    differences, small-sample corrected), ``paired``, ``n_a`` and ``n_b`` (``n_b`` 0 against a
    fixed value), ``sd`` the sd that turns a standardized effect into one on the tested scale,
    ``exact`` when neither side varies (every per-repetition difference is the same: ``p`` is
    then the exact sign test's on them, which accounts for n as any test does),
    ``alternative`` the side tested (``two-sided``, ``larger`` or ``smaller``), ``why`` why there
    is no p (or which test gave it), ``log`` when the values tested are logs (times compared as
    ratios), ``ci`` the two-sided 95% interval of ``diff`` (on the tested scale).
    """

    p: float
    diff: float
    g: float
    paired: bool
    n_a: int
    n_b: int
    sd: float
    exact: bool = False
    alternative: str = "two-sided"
    why: str = ""
    log: bool = False
    ci: tuple = (math.nan, math.nan)

    def detectable(self, alpha: float, power: float = POWER) -> tuple[float, float]:
        """The smallest |g| (and |Δ| on the tested scale) this design detects with ``power`` at
        level ``alpha`` (Student t power, :mod:`statsmodels.stats.power`); NaN when it cannot
        (fewer than two repetitions, or no sd)."""
        alt = self.alternative
        if self.exact:  # a sign test: its smallest p is fixed by n, no effect size in it
            return math.nan, math.nan
        try:
            if self.paired or self.n_b == 0:
                if self.n_a < 2:
                    return math.nan, math.nan
                d = TTestPower().solve_power(
                    nobs=self.n_a, alpha=alpha, power=power, alternative=alt
                )
            else:
                if self.n_a < 2 or self.n_b < 2:
                    return math.nan, math.nan
                d = TTestIndPower().solve_power(
                    nobs1=self.n_a, ratio=self.n_b / self.n_a, alpha=alpha, power=power,
                    alternative=alt,
                )  # fmt: skip
        except (ValueError, RuntimeError, ZeroDivisionError):
            return math.nan, math.nan
        d = abs(float(np.asarray(d).item()))
        return d, d * self.sd if self.sd > 0 else math.nan


def _j(dof: float) -> float:
    """Hedges' small-sample correction for ``dof`` degrees of freedom."""
    return 1 - 3 / (4 * dof - 1) if dof > 0 else math.nan


def _paired(a: Sample, b: Sample | None) -> bool:
    return (
        b is not None
        and a.seeds is not None
        and a.reps == b.reps
        and a.seeds == b.seeds
        and a.n > 1
    )


def test(a: Sample, b: Sample | None, shift: float = 0.0, alternative: str = "two-sided") -> Test:
    """Test of ``mean(a) - mean(b) - shift`` (``b`` None: of ``mean(a) - shift``): paired when
    ``a`` and ``b`` share seeds, Welch's t otherwise; ``alternative`` as in scipy
    (``two-sided``, ``greater``, ``less``). No test (p NaN) on a copied time or on a side with
    one repetition; where neither side varies, the exact sign test (``exact``). A side that is
    one computation (:attr:`Sample.single`) is a fixed value: the other side's repetitions are
    tested against it; two such sides have no test (:data:`ONE_COMPUTATION`)."""
    if a.single or (b is not None and b.single):
        return _against_fixed(a, b, shift, alternative)
    alt_power = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}[alternative]
    bvals = b.values if b is not None else np.array([])
    paired = _paired(a, b)
    diff = a.mean - (b.mean if b is not None else 0.0) - shift
    n_b = 0 if b is None else b.n
    if paired:
        d = a.values - bvals
        sd = float(np.std(d, ddof=1))
        g = _j(a.n - 1) * diff / sd if sd > 0 else math.nan
    elif b is None:
        sd = a.sd
        g = _j(a.n - 1) * diff / sd if sd > 0 else math.nan
    else:
        sd = (
            math.sqrt(((a.n - 1) * a.sd**2 + (b.n - 1) * b.sd**2) / (a.n + b.n - 2))
            if a.n > 1 and b.n > 1
            else math.nan
        )
        g = _j(a.n + b.n - 2) * diff / sd if sd > 0 else math.nan
    base = {"diff": diff, "g": g, "paired": paired, "n_a": a.n, "n_b": n_b, "sd": sd,
            "alternative": alt_power}  # fmt: skip
    if a.copied or (b is not None and b.copied):
        return Test(math.nan, **base, why="a time copied between repetitions")
    if a.n < 2 or (b is not None and not paired and b.n < 2):
        return Test(math.nan, **base, why="no sd from independent repetitions")
    if paired:
        spread = np.ptp(a.values - bvals)
    else:
        spread = max(np.ptp(a.values), np.ptp(bvals) if len(bvals) else 0.0)
    if spread == 0:
        return _sign_test(a, bvals if b is not None else None, shift, alternative, base)
    with warnings.catch_warnings():
        # values equal to many digits (F at the optimum) warn of precision loss; the test is
        # still the right one, and an exactly constant side never gets here
        warnings.simplefilter("ignore", RuntimeWarning)
        if paired:
            d = a.values - bvals
            res = stats.ttest_1samp(d - shift, 0.0, alternative=alternative)
            ci = stats.ttest_1samp(d - shift, 0.0).confidence_interval(0.95)
        elif b is None:
            res = stats.ttest_1samp(a.values - shift, 0.0, alternative=alternative)
            ci = stats.ttest_1samp(a.values - shift, 0.0).confidence_interval(0.95)
        else:
            res = stats.ttest_ind(a.values - shift, bvals, equal_var=False, alternative=alternative)
            two = stats.ttest_ind(a.values - shift, bvals, equal_var=False)
            ci = two.confidence_interval(0.95)
    return Test(float(res.pvalue), **base, ci=(float(ci.low), float(ci.high)))


def _against_fixed(a: Sample, b: Sample | None, shift: float, alternative: str) -> Test:
    """:func:`test` where a side is one computation: its value is a constant, so the test is the
    one-sample test of the other side's repetitions against it (Hedges' g over their sd); no
    test when both sides (or the only one) are one computation."""
    one = a.single and (b is None or b.single)
    if one:
        diff = a.mean - (b.mean if b is not None else 0.0) - shift
        alt = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}[alternative]
        return Test(math.nan, diff, math.nan, False, 1, 0 if b is None else 1, math.nan,
                    alternative=alt, why=ONE_COMPUTATION)  # fmt: skip
    if a.single:  # a - b = a's value - b: the other side's repetitions, negated
        assert b is not None
        varying = Sample(a.values[0] - b.values, b.reps, b.seeds, b.copied)
    else:
        varying = Sample(a.values - b.values[0], a.reps, a.seeds, a.copied)
    return test(varying, None, shift, alternative)


def _sign_test(a: Sample, b: np.ndarray | None, shift: float, alternative: str, base) -> Test:
    """Neither side varies: every repetition's difference is the same number, so the t-test has
    no sd; the exact sign test on the per-repetition differences (``scipy.stats.binomtest``)
    still weighs n: five repetitions that all agree give p = 0.031 one-sided, 0.062 two-sided.
    A difference of exactly 0 is no evidence either way (p = 1). Unpaired sides are taken
    repetition by repetition (each side is one value repeated, so any pairing gives the same
    differences)."""
    n = a.n if b is None else min(a.n, len(b))
    d = a.values[:n] - (b[:n] if b is not None else 0.0) - shift
    nonzero = d[d != 0]
    if nonzero.size == 0:
        p = 1.0
    else:
        p = stats.binomtest(int((nonzero > 0).sum()), nonzero.size, 0.5, alternative).pvalue
    diff = base["diff"]
    why = f"no spread: exact sign test on {n} repetitions"
    return Test(float(p), **base, exact=True, why=why, ci=(diff, diff))


def difference(a: Sample, b: Sample, direction: int) -> tuple[Test, bool]:
    """The two-sided test of a against b, and whether a lies beyond b in ``direction``."""
    t = test(a, b)
    return t, direction * t.diff > 0


def margin_test(a: Sample, b: Sample | None, low: float, high: float) -> tuple[bool, Test]:
    """Whether ``mean(a) - mean(b)`` lies in ``[low, high]`` (either bound may be infinite), and
    the one-sided test on that side: inside, the larger p of the two one-sided tests that it is
    above ``low`` and below ``high`` (TOST); outside, the test that it is beyond the bound it
    crossed. Where neither side varies, each test is the exact sign test (``exact``)."""
    diff = a.mean - (b.mean if b is not None else 0.0)
    inside = low <= diff <= high
    tests = []
    for bound, above in ((low, True), (high, False)):
        if math.isinf(bound):
            continue
        # inside: evidence that diff is beyond ``bound`` on the inner side; outside: past it
        alt = ("greater" if above else "less") if inside else ("less" if above else "greater")
        tests.append(test(a, b, bound, alt))
    if not tests:
        return inside, test(a, b)
    if inside:
        chosen = max(tests, key=lambda t: -1.0 if math.isnan(t.p) else t.p)
        if any(math.isnan(t.p) for t in tests):
            chosen = next(t for t in tests if math.isnan(t.p))
    else:
        chosen = min(tests, key=lambda t: math.inf if math.isnan(t.p) else t.p)
    # the effect shown is that of a against b, not against the bound
    plain = test(a, b)
    return inside, replace(chosen, diff=plain.diff, g=plain.g, ci=plain.ci)  # fmt: skip


def log_of(s: Sample | None) -> Sample | None:
    """``s`` on the log scale (times compared as ratios); None when a value is not positive."""
    if s is None or not (s.values > 0).all():
        return None
    return s.map(np.log)


def is_time(metric: str) -> bool:
    """Whether ``metric`` is a time (seconds): compared as a ratio, on its log."""
    return metric.endswith("_seconds")


def interval_text(t: Test, scale: float = 1.0, unit: str = "") -> str:
    """``Δ = … (95% CI … to …)``: a difference of near-deterministic measures tested on their
    own scale (a time's growth against a margin in seconds), where g would only say how small
    the noise is; ``scale`` converts to ``unit``."""
    low, high = (scale * v for v in t.ci)
    shown = f"Δ = {scale * t.diff:+.3g} {unit}"
    if math.isnan(low) or t.exact:
        return shown
    return f"{shown} (95% CI {low:+.3g} to {high:+.3g} {unit})"


def effect_text(t: Test, fmt: str = ".3g", unit: str = "") -> str:
    """``Δ = …, g = …``: the difference of the per-repetition means and Hedges' g; on a log
    scale (times, memory: near-deterministic measures, where g only says how small the noise
    is) the ratio and its 95% interval instead (:func:`ratio_text`)."""
    if t.log:
        return ratio_text(t)
    gtxt = "n/a" if math.isnan(t.g) else f"{t.g:+.2f}"
    return f"Δ = {t.diff:+{fmt}}{unit}, g = {gtxt}"


def ratio_text(t: Test) -> str:
    """A test on log values as the ratio of the geometric means and its 95% interval."""
    low, high = t.ci
    if math.isnan(low):
        return f"ratio ×{math.exp(t.diff):.3g}"
    return f"ratio ×{math.exp(t.diff):.3g} (95% CI ×{math.exp(low):.3g}–×{math.exp(high):.3g})"


def p_text(p: float, name: str = "p", why: str = "no sd from independent repetitions") -> str:
    """A p-value as computed: ``p n/a`` when no test could run, ``p < 1e-300`` where it
    underflows, never 0."""
    if p is None or math.isnan(p):
        return f"{name} n/a ({why})"
    if p < P_FLOOR:
        return f"{name} < {P_FLOOR:g}"
    return f"{name} = {p:.2g}"


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (NaN entries stay NaN and are not in the family).

    Sorted ascending, the i-th smallest of m p-values is multiplied by m - i (i from 0), the
    products made non-decreasing and capped at 1: rejecting where the adjusted p < α controls
    the family-wise error rate at α. The tests check it against
    :func:`statsmodels.stats.multitest.multipletests` (``method="holm"``), which is not called
    here because it runs a full garbage collection on every call (about 0.4 s in a report's
    process, once per claim and setting).
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
