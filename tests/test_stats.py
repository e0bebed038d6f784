"""kmdr.stats against published numbers and the libraries' own: Demšar's (2006) critical
differences and Iman-Davenport example, the t-interval, DerSimonian-Laird's pool, and the rule
that times are measurements (never one computation)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from scipy import stats as sps

from kmdr import stats as S

#: Demšar (2006), Table 5(a): q_0.05 of the Nemenyi test (the studentized range over sqrt 2).
DEMSAR_Q05 = {2: 1.960, 3: 2.343, 4: 2.569, 5: 2.728, 6: 2.850, 7: 2.949, 8: 3.031, 9: 3.102,
              10: 3.164}  # fmt: skip
#: Demšar (2006), Table 5(a): q_0.10.
DEMSAR_Q10 = {2: 1.645, 3: 2.052, 4: 2.291, 5: 2.459, 6: 2.589, 7: 2.693, 8: 2.780, 9: 2.855,
              10: 2.920}  # fmt: skip


@pytest.mark.parametrize(("k", "q"), sorted(DEMSAR_Q05.items()))
def test_nemenyi_cd_follows_demsars_q_table_at_05(k, q):
    n = 14
    assert S.nemenyi_cd(k, n, 0.05) == pytest.approx(q * math.sqrt(k * (k + 1) / (6 * n)), abs=2e-3)


@pytest.mark.parametrize(("k", "q"), sorted(DEMSAR_Q10.items()))
def test_nemenyi_cd_follows_demsars_q_table_at_10(k, q):
    assert S.nemenyi_cd(k, 10, 0.10) == pytest.approx(q * math.sqrt(k * (k + 1) / 60), abs=2e-3)


@pytest.mark.parametrize(
    ("k", "n", "cd"),
    [
        (4, 14, 1.25),  # Demšar's worked example (four C4.5 settings on 14 datasets)
        (7, 5, 4.03),  # the report's Across datasets (7 reducers, 5 datasets)
    ],
)
def test_nemenyi_cd_worked_examples(k, n, cd):
    assert S.nemenyi_cd(k, n) == pytest.approx(cd, abs=5e-3)


@pytest.mark.parametrize(
    ("chi2", "n", "k", "f", "p_below"),
    [
        # Demšar (2006) §3.2.2: chi²_F = 9.28 on N = 14, k = 4 gives F_F = 3.69, above the
        # critical F(3, 39) = 2.85 at 0.05
        (9.28, 14, 4, 3.69, 0.05),
    ],
)
def test_iman_davenport_worked_example(chi2, n, k, f, p_below):
    got, p = S.iman_davenport(chi2, n, k)
    assert got == pytest.approx(f, abs=5e-3)
    assert p < p_below
    assert sps.f.ppf(0.95, k - 1, (k - 1) * (n - 1)) == pytest.approx(2.85, abs=0.01)


@pytest.mark.parametrize(
    "ranks",
    [
        [[1, 2, 3], [1, 3, 2], [2, 1, 3], [1, 2, 3]],
        [[1, 2.5, 2.5], [1, 2, 3], [1.5, 1.5, 3], [1, 3, 2], [2, 1, 3]],  # ties corrected
    ],
)
def test_friedman_chi2_is_scipys(ranks):
    ranks = np.array(ranks, dtype=float)
    f = S.friedman(ranks)
    assert (f.chi2, f.p_chi2) == pytest.approx(sps.friedmanchisquare(*ranks.T))


def test_friedman_exact_p_counts_orderings():
    # two methods, three datasets, the same order on each: the exact p is 2 of 2^3 orderings
    f = S.friedman(np.array([[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]]))
    assert f.p_exact == pytest.approx(2 / 8)


def test_friedman_permutation_p_is_below_the_asymptotic_at_small_n():
    rng = np.random.default_rng(0)
    base = np.array([1, 2, 3, 4, 5, 6, 7], dtype=float)
    ranks = np.stack([base if i < 4 else rng.permutation(base) for i in range(5)])
    f = S.friedman(ranks, n_permutations=5000)
    assert 0 < f.p_exact <= 1 and f.p_f < f.p_chi2


@pytest.mark.parametrize(("n", "p"), [(2, 0.5), (5, 0.0625), (10, 2 / 1024)])
def test_smallest_pairwise_p(n, p):
    assert S.smallest_pairwise_p(n) == pytest.approx(p)
    assert sps.binomtest(n, n, 0.5).pvalue == pytest.approx(p)


@pytest.mark.parametrize(
    ("values", "bounds"),
    [([0.1, 0.4, 0.35, 0.2], (-math.inf, math.inf)), ([0.7, 0.99, 1.0, 0.95], (0.0, 1.0))],
)
def test_t_interval_is_scipys_clipped(values, bounds):
    mean, low, high = S.t_interval(values, bounds=bounds)
    ref = sps.t.interval(0.95, len(values) - 1, np.mean(values), sps.sem(values))
    assert mean == pytest.approx(np.mean(values))
    assert (low, high) == pytest.approx((max(ref[0], bounds[0]), min(ref[1], bounds[1])))


@pytest.mark.parametrize(
    ("y", "v"),
    [
        ([-0.45, -0.55, -0.50, -0.62, -0.41], [0.002, 0.003, 0.001, 0.004, 0.002]),
        ([-0.47, -0.46, -0.44], [0.05, 0.03, 0.05]),  # Q below its df: τ² truncated at 0
    ],
)
def test_random_effects_is_dersimonian_laird(y, v):
    y, v = np.array(y), np.array(v)
    k = len(y)
    w = 1 / v
    fixed = np.sum(w * y) / np.sum(w)
    q = np.sum(w * (y - fixed) ** 2)
    tau2 = max(0.0, (q - (k - 1)) / (np.sum(w) - np.sum(w**2) / np.sum(w)))
    ws = 1 / (v + tau2)
    mean = np.sum(ws * y) / np.sum(ws)
    se = math.sqrt(1 / np.sum(ws))
    pool = S.random_effects(y, v)
    assert (pool.mean, pool.se, pool.tau2, pool.q) == pytest.approx((mean, se, tau2, q))
    assert pool.i2 == pytest.approx(max(0.0, (q - (k - 1)) / q))
    half = sps.t.ppf(0.975, k - 2) * math.sqrt(tau2 + se**2)
    assert pool.pi == pytest.approx((mean - half, mean + half))
    assert pool.weights.sum() == pytest.approx(1.0)


def test_times_of_one_computation_are_measurements():
    """A deterministic score's timings are a sample: the ratio test uses both sets of
    timings (Welch on the logs), never the first repetition as a constant."""
    rng = np.random.default_rng(1)
    a = S.Sample(np.exp(rng.normal(np.log(0.12), 0.1, 10)), single=True)
    b = S.Sample(np.exp(rng.normal(np.log(0.13), 0.1, 10)), single=True)
    t = S.ratio_test(a, b, high=1.0)
    assert t.n_a == 10 and t.n_b == 10 and t.log
    ref = sps.ttest_ind(np.log(a.values), np.log(b.values), equal_var=False, alternative="less")
    assert t.p == pytest.approx(ref.pvalue)


def test_a_fixed_score_is_its_value_not_its_first_copy():
    fixed = S.Sample(np.full(5, 0.8), single=True)
    varying = S.Sample(np.array([0.70, 0.72, 0.69, 0.75, 0.71]))
    t = S.test(varying, fixed)
    assert t.n_b == 0
    assert t.p == pytest.approx(sps.ttest_1samp(varying.values - 0.8, 0.0).pvalue)


@pytest.mark.parametrize(
    "ranks, permutations, smallest",
    [
        # 3 reducers on 2 datasets (wine and iris in docs/guide/running.md): 36 permutations, and
        # the 6 in which both datasets rank alike are all as extreme: never below 1/6
        ([[1, 2, 3], [1, 2, 3]], 36, 1 / 6),
        ([[1, 2, 3], [1, 2, 3], [1, 2, 3]], 216, 1 / 36),
    ],
)
def test_friedman_exact_p_states_the_smallest_it_can_give(ranks, permutations, smallest):
    f = S.friedman(ranks)
    assert f.draws == 0 and f.permutations == permutations
    assert f.smallest == pytest.approx(smallest) and f.p_exact == pytest.approx(smallest)


def test_friedman_monte_carlo_p_states_its_draws():
    ranks = np.tile(np.arange(1, 8), (5, 1))  # 7 reducers on 5 datasets: (7!)^5 permutations
    f = S.friedman(ranks, n_permutations=2_000)
    assert f.draws == 2_000 and f.permutations == 0
    assert f.smallest == f.p_exact == pytest.approx(1 / 2_001)  # at its floor: an estimate


def test_the_guides_two_datasets_can_never_reject():
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[1] / "docs/guide/running.md").read_text("utf-8")
    # the reducers of the guide's wine and iris commands, read from the guide itself
    wine = re.search(r"kmdr name=wine dataset=file .*?'reducer=\[([^\]]+)\]'", guide).group(1)
    iris = re.search(r"kmdr name=iris .*?'reducer=\[([^\]]+)\]'", guide).group(1)
    shared = set(wine.split(",")) & set(iris.split(","))
    f = S.friedman(np.tile(np.arange(1, len(shared) + 1), (2, 1)))
    assert len(shared) == 3 and f.smallest > S.ALPHA
    assert f"{f.permutations} permutations" in guide and "1/6" in guide
    assert f.smallest == pytest.approx(1 / 6)


def _welch_one_sided(a, mean_b, sd_b, n_b, shift, alternative):
    return sps.ttest_ind_from_stats(a.mean() - shift, a.std(ddof=1), len(a), mean_b, sd_b, n_b,
                                    equal_var=False, alternative=alternative).pvalue  # fmt: skip


@pytest.mark.parametrize("center", [0.0, 0.004, 0.02, -0.03])
def test_margin_test_from_summary_is_two_one_sided_welch_tests(center):
    rng = np.random.default_rng(7)
    a = rng.normal(center, 0.005, 10)
    b = rng.normal(0.0, 0.006, 10)
    low, high = math.log(0.99), math.log(1.01)
    inside, t = S.margin_test_from_summary(S.Sample(a), b.mean(), b.std(ddof=1), 10, low, high)
    diff = a.mean() - b.mean()
    assert inside == (low <= diff <= high) and t.diff == pytest.approx(diff)
    lower = _welch_one_sided(a, b.mean(), b.std(ddof=1), 10, low, "greater")
    upper = _welch_one_sided(a, b.mean(), b.std(ddof=1), 10, high, "less")
    if inside:  # TOST: the larger of the two one-sided p
        assert t.p == pytest.approx(max(lower, upper))
    else:  # beyond the bound it crossed
        crossed = (high, "greater") if diff > high else (low, "less")
        assert t.p == pytest.approx(_welch_one_sided(a, b.mean(), b.std(ddof=1), 10, *crossed))
    # the same rule as on two samples (one helper): margin_test gives the same p on them
    assert S.margin_test(S.Sample(a), S.Sample(b), low, high)[1].p == pytest.approx(t.p)
    # its 90% interval is Welch's: TOST at α = 0.05 holds exactly when it lies in the margin
    lo, hi = S.equivalence_interval(t)
    ci = sps.ttest_ind(a, b, equal_var=False).confidence_interval(0.90)
    assert (lo, hi) == pytest.approx((ci.low, ci.high))
    assert (t.p < 0.05 and inside) == (low < lo and hi < high)
