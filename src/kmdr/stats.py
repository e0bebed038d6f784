"""The statistics over repetitions, in one place: a method's per-repetition sample, the Student
t-interval of a mean, the tests on two samples (Welch's or the paired t-test, the one-sample test
against a fixed value, the exact sign test where nothing varies, the two one-sided tests against a
margin), Hedges' g and the smallest effect a test could detect, and Holm's correction.

**The unit of replication is the repetition.** A method's repetition is one draw of everything
random in its cells (their seeds, the reduction shared by its r points, the machine's load while
they ran): one number per repetition is what is tested. Two samples are paired when their
repetitions share seeds (repetition i of both has the same seeds); otherwise their numbers are
independent (Welch's t).

**Copies of one computation are one observation.** A sample whose every repetition repeats one
deterministic computation (:attr:`Sample.single`) is a fixed value against a side that varies
(the one-sample test of the other side's repetitions); two such samples have no test at all
(:data:`ONE_COMPUTATION`).

The report's claims, "What to use", the distortion section, the figures' intervals and the
papers' read these; nothing here knows about cells, results or the report.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats
from statsmodels.stats.power import TTestIndPower, TTestPower

__all__ = [
    "ALPHA",
    "ONE_COMPUTATION",
    "POWER",
    "Sample",
    "Test",
    "difference",
    "holm",
    "log_of",
    "margin_test",
    "t_half_width",
    "test",
]

#: Level of every test, after Holm's correction within a family.
ALPHA = 0.05
#: The power at which a tie states the smallest effect it could have detected.
POWER = 0.8
#: Why a comparison of two single computations has no p.
ONE_COMPUTATION = "one computation, no test"


def t_half_width(sd, n, level: float = 0.95):
    """Half the width of the two-sided Student t-interval of a mean at ``level``:
    ``t_{(1 + level)/2, n - 1} * sd / sqrt(n)``, the one interval of a mean over repetitions
    (elementwise for arrays and pandas objects; ``n`` below 2 gives the degrees of freedom of 2
    rows, so that an ``sd`` that is NaN there, as every sample sd of one value is, stays NaN)."""
    return stats.t.ppf(0.5 + level / 2, np.maximum(n - 1, 1)) * sd / np.sqrt(np.maximum(n, 1))


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
