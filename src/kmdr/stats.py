"""The statistics over repetitions, at the base of the package (it reads no cell, no config):
one number per repetition (:class:`Sample`), the 95% t-interval of a mean, the tests on them
(Welch's or the paired t-test, two-sided or against a tolerance; the sign test where no
repetition differs from another; the ratio of two sets of timings), Hedges' g, the smallest
effect a test could have detected, Holm's correction and how a p-value is printed; and, across
datasets, Demšar's procedure (Friedman with Iman and Davenport's F, Nemenyi's critical
difference) and the random-effects pool of per-group estimates (DerSimonian and Laird, with I²
and a prediction interval).

**The unit of replication is the repetition.** Two samples are paired when their repetitions
share seeds; otherwise their per-repetition numbers are independent (Welch's t).

**Copies of one computation are one observation, its timings are not.** A deterministic score
repeated in every repetition is one value (:attr:`Sample.single`): against a side that varies it
is a constant. Its times are measurements of the machine, one per repetition, and are never
single: a time ratio is always a test on both sets of timings (:func:`ratio_test`).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats
from statsmodels.stats.power import TTestIndPower, TTestPower

#: Level of every test, after Holm's correction within the claim.
ALPHA = 0.05
#: The power at which a comparison not significant states the smallest effect it could have
#: detected.
POWER = 0.8
#: p-values below this are printed as ``p < 1e-300`` (they are at the edge of double precision).
P_FLOOR = 1e-300
#: Why a comparison of two single computations has no p.
ONE_COMPUTATION = "one computation, no test"
#: The level of every interval the report and figures draw.
LEVEL = 0.95


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


# --------------------------------------------------------------------------------------------
# The t-interval of a mean
# --------------------------------------------------------------------------------------------


def t_half_width(sd, n, level: float = LEVEL):
    """Half the width of the ``level`` t-interval of a mean of ``n`` values of sd ``sd``
    (arrays broadcast; NaN where n < 2)."""
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = stats.t.ppf(0.5 + level / 2, n - 1) * np.asarray(sd, dtype=float) / np.sqrt(n)
    half = np.where(n >= 2, half, np.nan)
    return float(half) if half.ndim == 0 else half


def t_interval(values, level: float = LEVEL, bounds=(-math.inf, math.inf)):
    """Mean of ``values`` (NaN left out) and its ``level`` t-interval, clipped to ``bounds``
    (the range the measure can take: an accuracy's interval never passes 1). The mean alone
    when they do not vary or there are fewer than two."""
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    mean = float(v.mean()) if v.size else math.nan
    if v.size < 2 or np.ptp(v) == 0:
        return mean, mean, mean
    half = t_half_width(v.std(ddof=1), v.size, level)
    return mean, max(mean - half, bounds[0]), min(mean + half, bounds[1])


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
    ratios), ``ci`` the two-sided 95% interval of ``diff`` (on the tested scale), ``dof`` the
    t-test's degrees of freedom (NaN for a sign test or no test).
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
    dof: float = math.nan

    def detectable(self, alpha: float, power: float = POWER) -> tuple[float, float]:
        """The smallest ``|g|`` (and ``|Δ|`` on the tested scale) this design detects with
        ``power`` at level ``alpha`` (Student t power, :mod:`statsmodels.stats.power`); NaN when
        it cannot (fewer than two repetitions, or no sd)."""
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
    return Test(float(res.pvalue), **base, ci=(float(ci.low), float(ci.high)), dof=float(res.df))


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
    # the single side's value is the mean of its copies (all equal for a deterministic score;
    # a time is never single, see :func:`ratio_test`)
    if a.single:  # a - b = a's value - b: the other side's repetitions, negated
        assert b is not None
        varying = Sample(a.mean - b.values, b.reps, b.seeds, b.copied)
    else:
        varying = Sample(a.values - b.mean, a.reps, a.seeds, a.copied)
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
    the one-sided test on that side (:func:`equivalence`: inside, the two one-sided tests, TOST;
    outside, the test that it is beyond the bound it crossed), each by :func:`test`. Where
    neither side varies, each test is the exact sign test (``exact``)."""
    diff = a.mean - (b.mean if b is not None else 0.0)
    return equivalence(diff, low, high, lambda bound, alt: test(a, b, bound, alt), test(a, b))


def margin_test_from_summary(
    a: Sample, mean_b: float, sd_b: float, n_b: int, low: float, high: float, log: bool = False
) -> tuple[bool, Test]:
    """:func:`margin_test` against a sample known only by its mean, sd and size (a published
    table): the same :func:`equivalence`, each one-sided test Welch's from the summary
    (:func:`welch_from_summary`)."""
    plain = welch_from_summary(a, mean_b, sd_b, n_b, log=log)

    def one_sided(bound: float, alternative: str) -> Test:
        return welch_from_summary(a, mean_b, sd_b, n_b, log, bound, alternative)

    return equivalence(plain.diff, low, high, one_sided, plain)


def equivalence(diff: float, low: float, high: float, one_sided, plain: Test) -> tuple[bool, Test]:
    """The one rule of every margin in kmdr: whether the estimate ``diff`` lies in ``[low,
    high]``, and its test. Inside, the larger p of the two one-sided tests that the difference is
    above ``low`` and below ``high`` (Schuirmann's two one-sided tests, TOST: equivalence shown
    at level α when that p < α, that is when the 1 - 2α interval lies within the margin);
    outside, the smaller p of the tests that it is beyond a bound it crossed (shown beyond the
    margin). ``one_sided(bound, alternative)`` is the test of ``diff - bound`` on one side
    (scipy's ``greater`` or ``less``); ``plain`` the two-sided test, whose effect and interval
    are the ones shown (against b, not against the bound)."""
    inside = low <= diff <= high
    tests = []
    for bound, above in ((low, True), (high, False)):
        if math.isinf(bound):
            continue
        # inside: evidence that diff is beyond ``bound`` on the inner side; outside: past it
        alt = ("greater" if above else "less") if inside else ("less" if above else "greater")
        tests.append(one_sided(bound, alt))
    if not tests:
        return inside, plain
    if inside:
        chosen = max(tests, key=lambda t: -1.0 if math.isnan(t.p) else t.p)
        if any(math.isnan(t.p) for t in tests):
            chosen = next(t for t in tests if math.isnan(t.p))
    else:
        chosen = min(tests, key=lambda t: math.inf if math.isnan(t.p) else t.p)
    # the effect shown is that of a against b, not against the bound
    return inside, replace(chosen, diff=plain.diff, g=plain.g, ci=plain.ci)  # fmt: skip


def equivalence_interval(t: Test, alpha: float = ALPHA) -> tuple[float, float]:
    """The 1 - 2α interval of ``t``'s difference (its t quantile on ``t.dof``): the one TOST
    reads, equivalence shown at level α within any margin that holds it."""
    low, high = t.ci
    if math.isnan(low) or t.exact or math.isnan(t.dof):
        return low, high
    half = (high - low) / 2 * stats.t.ppf(1 - alpha, t.dof) / stats.t.ppf(0.975, t.dof)
    return t.diff - half, t.diff + half


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


def welch_from_summary(
    a: Sample,
    mean_b: float,
    sd_b: float,
    n_b: int,
    log: bool = False,
    shift: float = 0.0,
    alternative: str = "two-sided",
) -> Test:
    """Welch's t-test of ``mean(a) - mean_b - shift`` (``a`` one value per repetition) against a
    sample known only by its mean, sd and size, as a published table gives it
    (``scipy.stats.ttest_ind_from_stats``; ``alternative`` as scipy's): a :class:`Test` whose
    ``diff`` is the difference of the means (on the log scale, ``log``, the log of the ratio of
    the geometric means), its interval Welch's two-sided 95%, its ``sd`` the pooled one (what
    :meth:`Test.detectable` turns into the smallest effect)."""
    n_a = a.n
    diff = a.mean - mean_b
    sd_a = a.sd if n_a > 1 else math.nan
    pooled = (
        math.sqrt(((n_a - 1) * sd_a**2 + (n_b - 1) * sd_b**2) / (n_a + n_b - 2))
        if n_a > 1 and n_b > 1
        else math.nan
    )
    j = 1 - 3 / (4 * (n_a + n_b - 2) - 1) if n_a + n_b > 2 else math.nan
    g = j * diff / pooled if pooled > 0 else math.nan
    alt = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}[alternative]
    base = {"diff": diff, "g": g, "paired": False, "n_a": n_a, "n_b": n_b, "sd": pooled,
            "log": log, "alternative": alt}  # fmt: skip
    if n_a < 2 or n_b < 2:
        return Test(math.nan, **base, why="no sd from independent repetitions")
    va, vb = sd_a**2 / n_a, sd_b**2 / n_b
    if va + vb == 0:
        return Test(math.nan, **base, why="neither side varies")
    res = stats.ttest_ind_from_stats(
        a.mean - shift, sd_a, n_a, mean_b, sd_b, n_b, equal_var=False, alternative=alternative
    )
    dof = (va + vb) ** 2 / (va**2 / (n_a - 1) + vb**2 / (n_b - 1))
    half = float(stats.t.ppf(0.975, dof)) * math.sqrt(va + vb)
    return Test(float(res.pvalue), **base, ci=(diff - half, diff + half), dof=float(dof))


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


def as_measurements(s: Sample | None) -> Sample | None:
    """``s`` with ``single`` cleared: timings of a deterministic computation are still one
    measurement per repetition."""
    return None if s is None else replace(s, single=False)


def ratio_test(
    a: Sample | None, b: Sample | None, low: float = -math.inf, high: float = math.inf
) -> Test | None:
    """The test of a's times over b's as a ratio of geometric means: on the per-repetition log
    times of both sets (paired where their seeds are shared, Welch's otherwise), whatever the
    spread of the score they timed. With a bound (``high``: the ratio is below it; ``low``:
    above it), the one-sided :func:`margin_test`; otherwise two-sided. None where a time is not
    positive."""
    la, lb = log_of(as_measurements(a)), log_of(as_measurements(b))
    if la is None or lb is None:
        return None
    if math.isinf(low) and math.isinf(high):
        return replace(test(la, lb), log=True)
    lo = math.log(low) if low > 0 else -math.inf
    hi = math.log(high) if math.isfinite(high) else math.inf
    return replace(margin_test(la, lb, lo, hi)[1], log=True)


# --------------------------------------------------------------------------------------------
# Across datasets: Demšar (2006), Statistical comparisons of classifiers over multiple data sets
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Friedman:
    """Friedman's test on ``n`` datasets (rows) of ``k`` ranked methods: ``chi2`` and its
    asymptotic ``p_chi2``, Iman and Davenport's ``f`` on (k-1, (k-1)(n-1)) degrees of freedom
    and its ``p_f``, and ``p_exact`` the permutation p of the rank sums' statistic (every
    dataset's ranks permuted independently): exact enumeration of all ``permutations`` when
    (k!)^n is small (``draws`` 0; ``smallest`` the least p its ties of the statistic allow),
    else a Monte Carlo estimate from ``draws`` random permutations ((1 + beyond) / (1 +
    draws), never below 1 / (1 + draws))."""

    n: int
    k: int
    chi2: float
    p_chi2: float
    f: float
    p_f: float
    p_exact: float
    draws: int = 0
    permutations: int = 0
    smallest: float = math.nan


def friedman(ranks, n_permutations: int = 20_000, seed: int = 0) -> Friedman:
    """Demšar's omnibus test on a (datasets x methods) array of ranks (1 = best; ties averaged):
    chi² as :func:`scipy.stats.friedmanchisquare` (with its tie correction), Iman and
    Davenport's F = (N - 1) chi² / (N (k - 1) - chi²)."""
    r = np.asarray(ranks, dtype=float)
    n, k = r.shape

    def statistic(x):
        rbar = x.mean(axis=-2)
        return 12 * n / (k * (k + 1)) * (((rbar - (k + 1) / 2) ** 2).sum(axis=-1))

    observed = float(statistic(r))
    # scipy's chi² corrects for ties within a dataset; the correction is the same for every
    # permutation of a dataset's ranks, so the permutation p reads the uncorrected statistic
    # (scipy.stats.friedmanchisquare's correction, written here as it refuses k = 2)
    ties = sum(float(np.sum(c**3 - c)) for c in (np.unique(row, return_counts=True)[1]
                                                 for row in r))  # fmt: skip
    chi2 = observed / (1 - ties / (n * k * (k * k - 1)))
    p_chi2 = float(stats.chi2.sf(chi2, k - 1))
    f, p_f = iman_davenport(chi2, n, k)
    if math.factorial(k) ** n <= n_permutations:
        perms = np.array(list(itertools.permutations(range(k))))
        choice = itertools.product(range(len(perms)), repeat=n)
        stat = np.array([statistic(np.stack([row[perms[j]] for row, j in zip(r, c, strict=True)]))
                         for c in choice])  # fmt: skip
        p_exact = float(np.mean(stat >= observed - 1e-9))
        smallest = float(np.mean(stat >= stat.max() - 1e-9))
        return Friedman(n, k, chi2, p_chi2, f, p_f, p_exact, 0, len(stat), smallest)
    rng = np.random.default_rng(seed)
    shuffled = rng.permuted(np.broadcast_to(r, (n_permutations, n, k)), axis=-1)
    beyond = np.sum(statistic(shuffled) >= observed - 1e-9)
    p_exact = float((1 + beyond) / (1 + n_permutations))
    return Friedman(
        n, k, chi2, p_chi2, f, p_f, p_exact, n_permutations, 0, 1 / (1 + n_permutations)
    )


def iman_davenport(chi2: float, n: int, k: int) -> tuple[float, float]:
    """Iman and Davenport's F = (N - 1) chi² / (N (k - 1) - chi²) of Friedman's chi² on ``n``
    datasets and ``k`` methods, and its p on (k - 1, (k - 1)(N - 1)) degrees of freedom."""
    if n < 2:
        return math.nan, math.nan
    denom = n * (k - 1) - chi2
    f = (n - 1) * chi2 / denom if denom > 0 else math.inf
    return f, float(stats.f.sf(f, k - 1, (k - 1) * (n - 1)))


def nemenyi_cd(k: int, n: int, alpha: float = ALPHA) -> float:
    """Nemenyi's critical difference of mean ranks: q_alpha sqrt(k(k+1) / 6n), where q_alpha
    is the studentized range's quantile for k means and infinite degrees of freedom over
    sqrt 2 (Demšar 2006, Table 5a: 1.960, 2.343, 2.569, 2.728, 2.850 for k = 2..6 at 0.05)."""
    q = stats.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2)
    return float(q * math.sqrt(k * (k + 1) / (6 * n)))


def nemenyi_pairs(mean_ranks: dict, cd: float) -> list[tuple]:
    """The pairs of methods whose mean ranks differ by at least ``cd``."""
    names = list(mean_ranks)
    return [(a, b) for a, b in itertools.combinations(names, 2)
            if abs(mean_ranks[a] - mean_ranks[b]) >= cd]  # fmt: skip


def smallest_pairwise_p(n: int) -> float:
    """The smallest two-sided p a distribution-free pairwise test (the sign test, or Wilcoxon's
    signed-rank test) can reach on ``n`` datasets: every dataset on one side, 2 / 2^n."""
    return min(1.0, 2 * 0.5**n)


# --------------------------------------------------------------------------------------------
# Pooling per-group estimates
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pool:
    """A random-effects pool (DerSimonian and Laird) of ``k`` estimates: ``mean``, its ``se``
    and 95% ``ci``, ``tau2`` the between-group variance, ``i2`` Higgins' I², ``q`` Cochran's Q,
    ``pi`` the 95% prediction interval of a new group's effect (Higgins, Thompson and
    Spiegelhalter 2009: t on k - 2 degrees of freedom), ``weights`` each estimate's share."""

    k: int
    mean: float
    se: float
    ci: tuple
    tau2: float
    i2: float
    q: float
    pi: tuple
    weights: np.ndarray

    def p(self, shift: float = 0.0, alternative: str = "two-sided") -> float:
        """The z-test of ``mean - shift`` (``greater``, ``less`` or two-sided)."""
        z = (self.mean - shift) / self.se
        if alternative == "greater":
            return float(stats.norm.sf(z))
        if alternative == "less":
            return float(stats.norm.cdf(z))
        return float(2 * stats.norm.sf(abs(z)))


def random_effects(estimates, variances) -> Pool:
    """The DerSimonian-Laird pool of ``estimates`` with their sampling ``variances``
    (:func:`statsmodels.stats.meta_analysis.combine_effects`)."""
    from statsmodels.stats.meta_analysis import combine_effects

    y = np.asarray(estimates, dtype=float)
    v = np.asarray(variances, dtype=float)
    k = len(y)
    res = combine_effects(y, v, method_re="dl")
    tau2 = float(res.tau2)
    if tau2 > 0:
        mean, se = float(res.mean_effect_re), float(res.sd_eff_w_re)
    else:  # DerSimonian-Laird truncates τ² at 0 (statsmodels 0.15 leaves it negative)
        tau2 = 0.0
        mean, se = float(res.mean_effect_fe), float(res.sd_eff_w_fe)
    q = float(res.q)
    i2 = max(0.0, (q - (k - 1)) / q) if q > 0 else 0.0
    z = stats.norm.ppf(0.975)
    if k >= 3:
        half = stats.t.ppf(0.975, k - 2) * math.sqrt(tau2 + se**2)
        pi = (mean - half, mean + half)
    else:
        pi = (math.nan, math.nan)
    w = 1 / (v + tau2)
    return Pool(k, mean, se, (mean - z * se, mean + z * se), tau2, i2, q, pi, w / w.sum())
