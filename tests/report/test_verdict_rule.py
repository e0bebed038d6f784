"""The one verdict rule (Holm within the claim; fails on any significant loss), the p-value and
effect-size printing, and which measurements may enter a test."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from _cases import case
from kmdr.report import claims as C
from kmdr.report.claims import rankings
from kmdr.report.claims import verdicts as V
from kmdr.report.experiments import flag_copied_timings


def _est(sample) -> V.Sample:
    """One number per repetition."""
    return V.Sample(np.asarray(sample, dtype=float))


def _comparison(a, b, label="A vs B") -> V.Comparison:
    """'a above b' as the real checks build it: Welch's two-sided p and the side a lies on."""
    t = V.test(_est(a), _est(b))
    return V.Comparison(label, V.effect_text(t), t.p, t.diff > 0, test=t)


def _claim_of(pairs) -> V.Verdict:
    return V.decide(V.Part(tuple(_comparison(a, b, f"m{i}") for i, (a, b) in enumerate(pairs))))


RNG_SHIFT = np.linspace(-1, 1, 5)  # a fixed spread: two samples differing only by a shift


def _sample(mean, n=5):
    return mean + RNG_SHIFT[:n]


# --------------------------------------------------------------------------------------------
# Holm and the rule
# --------------------------------------------------------------------------------------------


def test_holm_is_the_step_down_adjustment():
    # sorted 0.005, 0.01, 0.03, 0.04 → ×4, ×3, ×2, ×1 = .02, .03, .06, .04 → monotone .06
    got = V.holm([0.01, 0.04, 0.03, 0.005])
    assert got == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert V.holm([0.5, 0.9]).max() <= 1.0  # capped
    nan = V.holm([0.01, math.nan, 0.02])  # an untestable comparison is not in the family
    assert math.isnan(nan[1]) and nan[[0, 2]] == pytest.approx([0.02, 0.02])
    # statsmodels' Holm is the reference
    rng = np.random.default_rng(2)
    for m in (1, 2, 5, 30):
        p = rng.uniform(0, 0.2, m) ** 2
        assert V.holm(p) == pytest.approx(multipletests(p, method="holm")[1], rel=1e-12)


def test_all_wins_hold_and_the_evidence_lists_each_comparison():
    v = _claim_of([(_sample(10), _sample(0))] * 3)
    assert v.verdict == C.HOLDS
    assert "3 of 3 comparisons for the claim, 0 against, 0 not significant" in v.evidence
    assert v.evidence.count("p_Holm") == 3 and "g = +" in v.evidence and "Δ = +10" in v.evidence
    assert [o for _, o, _, _ in v.outcomes] == [V.FOR] * 3


def test_one_significant_loss_fails_whatever_the_wins():
    wins = [(_sample(10), _sample(0))] * 4
    v = _claim_of([*wins, (_sample(0), _sample(10))])
    assert v.verdict == C.FAILS
    assert "4 of 5 comparisons for the claim, 1 against" in v.evidence


def test_all_ties_are_a_tie_and_some_wins_without_loss_are_partly():
    ties = [(_sample(0.1), _sample(0))] * 3
    assert _claim_of(ties).verdict == C.TIE
    v = _claim_of([(_sample(10), _sample(0)), *ties])
    assert v.verdict == C.PARTLY and "1 of 4 comparisons for the claim, 0 against" in v.evidence


def test_a_claim_whose_every_comparison_converged_is_not_testable_not_a_tie():
    converged = V.Comparison("m0", "", 0.5, True, counted=False)
    v = V.decide(V.Part((converged,)))
    assert v.verdict == C.NOT_TESTABLE and "0 of 0 comparisons" in v.evidence
    assert V.decide(V.Part(())).verdict == C.NO_DATA  # nothing ran: no data, as before
    assert "**not testable**" in C.VERDICT_RULE


def test_sides_sharing_their_seeds_are_paired_and_marked_so():
    rng = np.random.default_rng(0)
    base = rng.normal(0.5, 0.1, 30)  # per-repetition values that vary a lot between repetitions
    gain = base + 0.01 + rng.normal(0, 0.002, 30)  # the same repetitions, a small steady gain
    seeds, reps = tuple(f"s{i}" for i in range(30)), tuple(range(30))
    a = V.Sample(gain, reps, seeds)
    b = V.Sample(base, reps, seeds)
    paired = V.test(a, b)
    assert paired.paired and paired.p == pytest.approx(stats.ttest_rel(gain, base).pvalue)
    # the same values with independent seeds: Welch's t, which cannot see the gain
    welch = V.test(V.Sample(gain, reps, seeds), V.Sample(base, reps, tuple(f"t{i}" for i in reps)))
    assert not welch.paired and welch.p > 0.5 and paired.p < 1e-10
    v = V.decide(V.Part((V.Comparison("2-pass vs PD", "", paired.p, True, test=paired),)))
    assert v.verdict == C.HOLDS and "(paired, p = " in v.evidence
    w = V.decide(V.Part((V.Comparison("x", "", welch.p, True, test=welch),)))
    assert "paired" not in w.evidence


def test_a_win_short_of_the_claims_threshold_is_partly_not_holds():
    c = _comparison(_sample(10), _sample(0))
    short = V.Comparison(c.label, c.text, c.p, c.favours, short="change below the 1% margin")
    v = V.decide(V.Part((short,)))
    assert v.verdict == C.PARTLY and "short: change below the 1% margin" in v.evidence


def test_holm_corrects_within_the_claim():
    # five comparisons each at p ≈ 0.02: each alone would win, together none does
    comps = tuple(V.Comparison(f"m{i}", "", 0.02, True) for i in range(5))
    assert V.decide(V.Part(comps)).verdict == C.TIE
    assert V.decide(V.Part(comps[:1])).verdict == C.HOLDS


# 2,000 simulated claims (a minute and more on 2 cores): fewer would not tell α from 2α
@pytest.mark.slow
@pytest.mark.longhaul
def test_pure_noise_claims_hold_and_show_anything_no_more_often_than_alpha():
    """Claims whose methods are equal in truth: one-comparison claims may hold at most α of the
    time, and five-comparison claims show any significant comparison (hold, partly or fail) at
    most α of the time (Holm controls the family-wise error; without it that rate is ~23%)."""
    rng = np.random.default_rng(20240)
    n_claims, n_reps = 1000, 5
    bound = stats.binom.ppf(0.999, n_claims, V.ALPHA)  # what α allows, with 0.1% slack

    def noise_claim(k):
        data = rng.normal(0.5, 0.1, size=(k, 2, n_reps))
        return _claim_of([(pair[0], pair[1]) for pair in data]).verdict

    single = [noise_claim(1) for _ in range(n_claims)]
    assert single.count(C.HOLDS) <= bound
    assert single.count(C.HOLDS) + single.count(C.FAILS) <= bound
    five = [noise_claim(5) for _ in range(n_claims)]
    assert sum(v != C.TIE for v in five) <= bound
    assert five.count(C.HOLDS) <= bound


# --------------------------------------------------------------------------------------------
# p-values, effect sizes, tolerance tests
# --------------------------------------------------------------------------------------------


def test_an_underflowing_p_is_printed_as_a_bound_never_zero():
    wide = np.linspace(-1, 1, 60)  # 60 repetitions a side: t ≈ 9000 on 118 dof
    p = V.test(_est(1000 + wide), _est(wide)).p
    assert p < V.P_FLOOR
    assert V.p_text(p) == "p < 1e-300" and V.p_text(0.0) == "p < 1e-300"
    assert V.p_text(0.0123) == "p = 0.012"
    v = _claim_of([(1000 + wide, wide)])
    assert "p < 1e-300" in v.evidence and "p = 0 " not in v.evidence and "p = 0)" not in v.evidence


def test_hedges_g_is_the_pooled_sd_difference_with_its_correction():
    a, b = np.array([1.0, 2.0, 3.5, 4.0]), np.array([0.0, 0.5, 1.0, 2.5, 3.0])
    pooled = np.sqrt((3 * a.var(ddof=1) + 4 * b.var(ddof=1)) / 7)
    want = (1 - 3 / (4 * 9 - 9)) * (a.mean() - b.mean()) / pooled
    assert V.test(_est(a), _est(b)).g == pytest.approx(want)
    # paired: the mean difference over the sd of the differences, corrected for n - 1
    c = a + np.array([0.1, -0.2, 0.05, 0.3])
    ta = V.Sample(a, (0, 1, 2, 3), ("s0", "s1", "s2", "s3"))
    tc = V.Sample(c, (0, 1, 2, 3), ("s0", "s1", "s2", "s3"))
    d = c - a
    t = V.test(tc, ta)
    assert t.paired
    assert t.g == pytest.approx((1 - 3 / (4 * 3 - 1)) * d.mean() / d.std(ddof=1))


def test_a_tolerance_is_met_only_when_the_confidence_interval_lies_within_it():
    """TOST at α: inside and significant exactly when the (1 - 2α) Welch interval of the
    difference lies within the tolerance."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        a = rng.normal(rng.uniform(-0.2, 0.2), rng.uniform(0.01, 0.2), 6)
        b = rng.normal(0.0, rng.uniform(0.01, 0.2), 7)
        inside, t = V.margin_test(_est(a), _est(b), -0.1, 0.1)
        p = t.p
        va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
        se = math.sqrt(va + vb)
        dof = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
        half = stats.t.ppf(1 - V.ALPHA, dof) * se
        diff = a.mean() - b.mean()
        within = diff - half > -0.1 and diff + half < 0.1
        assert (inside and p < V.ALPHA) == within
        assert inside == (-0.1 <= diff <= 0.1)


# --------------------------------------------------------------------------------------------
# Only independent measurements are tested
# --------------------------------------------------------------------------------------------


def _time_summary(sd_a: float, n: int = 5, **extra) -> pd.DataFrame:
    """Cells of two methods' reduction times at four r: A 1 s + r/100 with sd ``sd_a`` (its
    repetitions' values evenly spread), B 0.2 s with sd 0.01; ``n`` repetitions each."""
    spread = np.linspace(-1, 1, n) / (np.std(np.linspace(-1, 1, n), ddof=1) if n > 1 else 1)
    rows = [
        {"dataset": "d", "reducer_name": name.lower(), "method": name, "r": r, "repetition": i,
         "reduce_seconds": mean + (0.0 if math.isnan(sd) else sd * spread[i]),
         **(extra if name == "A" else {})}
        for name, sd, base in (("A", sd_a, 1.0), ("B", 0.01, 0.2))
        for r in (5, 10, 15, 20)
        for mean in [base + r / 100 if name == "A" else base]
        for i in range(n)
    ]  # fmt: skip
    return pd.DataFrame(rows)


def _slowest(df):
    """The ranking on the cells as the report reads them (copied times flagged)."""
    return V.decide(rankings.check_slowest(C.replicates(df), "A", ("B",), "reduce_seconds"))


def test_a_time_without_spread_is_a_copy_and_never_tested():
    assert _slowest(_time_summary(0.05)).verdict == C.HOLDS
    v = _slowest(_time_summary(0.0))
    assert v.verdict == C.TIE and "p n/a" in v.evidence
    # the flag the report sets from the cells wins over the spread
    v = _slowest(_time_summary(0.05, reduce_seconds_copied=True))
    assert v.verdict == C.TIE and "p n/a" in v.evidence


def test_legacy_cells_with_repeated_times_are_flagged_as_copies():
    base = {"dataset": "d", "dataset_params": "{}", "reducer_params": "{}", "base_seed": 0,
            "kmeans_init": "random", "kmeans_n_init": 1, "kmeans_max_iter": 100,
            "kmeans_tol": 0.0}  # fmt: skip
    cells = pd.DataFrame(
        [
            {**base, "reducer": red, "reducer_name": red, "method": red, "r": 5,
             "repetition": rep, "reduce_seconds": secs}
            for red, secs in (("svd", [0.3] * 3), ("sign", [0.01, 0.02, 0.015]),
                              ("none", [0.0] * 3))
            for rep, secs in enumerate(secs)
        ]
    )  # fmt: skip
    summary = cells.drop(columns=["repetition", "reduce_seconds"]).drop_duplicates()
    flagged = flag_copied_timings(summary, cells).set_index("reducer")
    assert (
        flagged.loc["svd", "reduce_seconds_copied"] and flagged.loc["svd", "total_seconds_copied"]
    )
    assert not flagged.loc["sign", "reduce_seconds_copied"]
    assert not flagged.loc["none", "total_seconds_copied"]  # no reduction: nothing copied
    # cells that record how they were timed are measurements, even when two values coincide
    timed = cells.assign(reduce_timing="per cell")
    assert not flag_copied_timings(summary, timed)["reduce_seconds_copied"].any()


def test_one_repetition_gives_no_test():
    v = _slowest(_time_summary(math.nan, n=1))
    assert v.verdict == C.TIE and "p n/a (no sd from independent repetitions)" in v.evidence


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="not run: B",
            doing="read",
            cause="a claim compares methods of which one (here B) has no value in the results: "
            "it was not in the run, or its cells failed or timed out",
            fix="run the experiment's preset with every method the claim names (`make reproduce` "
            "runs them all); a timed-out cell is named in the run's log",
        )
    ],
)
def test_nan_times_are_not_run_not_a_crash(says):
    df = _time_summary(0.05)
    df.loc[df["method"] == "B", "reduce_seconds"] = math.nan
    v = _slowest(df)
    assert v.verdict == C.NO_DATA and says in v.evidence


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="no repetition column",
            doing="read",
            cause="the claims were given a summary (one row per point) where they read the cells: "
            "they test repetitions, which a summary no longer holds",
            fix="give the experiment's cells (cells.csv, `kmdr.read_results(folder)`), not "
            "summary.csv",
        )
    ],
)
def test_a_summary_instead_of_cells_is_no_data(says):
    claim = next(c for c in C.all_claims() if c.id == "lst17-svd-lle-slowest-coil20")
    df = _time_summary(0.05).drop(columns=["repetition"]).assign(dataset="coil20")
    v = C.evaluate(claim, {claim.experiment: df})
    assert v.verdict == C.NO_DATA and says in v.evidence


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="check could not run",
            doing="read",
            cause="the results a claim reads lack a column it needs (the reason names it): a "
            "cells.csv edited by hand or written by an older or foreign tool",
            fix="regenerate the experiment's files from its cells (`kmdr-figures FOLDER`), or run "
            "it again into a fresh folder",
        )
    ],
)
def test_a_malformed_summary_is_no_data_with_its_reason(says):
    claim = next(c for c in C.all_claims() if c.id == "lst17-svd-lle-slowest-coil20")
    df = _time_summary(0.05).drop(columns=["method"]).assign(dataset="coil20")
    v = C.evaluate(claim, {claim.experiment: df})
    assert v.verdict == C.NO_DATA and says in v.evidence


# --------------------------------------------------------------------------------------------
# Copies of one computation; claims that only zero-spread tests could decide
# --------------------------------------------------------------------------------------------


def _single(value, n=10) -> V.Sample:
    return V.Sample(np.full(n, float(value)), tuple(range(n)), single=True)


@pytest.mark.parametrize(
    ("a", "b", "p_is_nan", "n_a"),
    [
        pytest.param(_single(0.79), _single(0.78), True, 1, id="two single computations: no test"),
        pytest.param(_single(0.79), None, True, 1, id="a single computation alone: no test"),
        # against a side that varies, the single value is a constant: the one-sample test of
        # that side's repetitions, n of them
        pytest.param(_single(0.79), _est(_sample(0.5)), False, 5, id="against a varying side"),
        pytest.param(_est(_sample(0.5)), _single(0.79), False, 5, id="a varying side against it"),
    ],
)
def test_copies_of_one_computation_are_one_observation(a, b, p_is_nan, n_a):
    t = V.test(a, b)
    assert math.isnan(t.p) == p_is_nan and t.n_a == n_a
    if p_is_nan:
        assert t.why == "one computation, no test"
        assert "one computation, no test" in V.p_text(t.p, why=t.why)


def test_cells_repeating_a_deterministic_computation_are_flagged_single():
    rows = []
    for init, method, obj in (("first_of_class", "SVD", [0.2] * 3),
                              ("first_of_class", "RP", [0.2, 0.21, 0.22]),
                              ("k-means++", "SVD", [0.2] * 3)):  # fmt: skip
        for rep, o in enumerate(obj):
            rows.append({"method": method, "r": 5, "repetition": rep, "kmeans_init": init,
                         "objective": o, "objective_reduced": o, "reducer_name": "x",
                         "dataset": init})  # fmt: skip
    got = C.replicates(pd.DataFrame(rows)).groupby(["dataset", "method"])["single"].all()
    # a start that draws nothing and the same F on A and on C every time: one computation;
    # a random reduction, or a random start that happens to agree, are repetitions
    assert got.to_dict() == {("first_of_class", "RP"): False, ("first_of_class", "SVD"): True,
                             ("k-means++", "SVD"): False}  # fmt: skip


def _exact(n, m, agree=True):
    comps = []
    for i in range(m):
        a, b = np.full(n, 1.0 if agree else 0.5), np.full(n, 0.5)
        t = V.test(_est(a), _est(b), alternative="greater")
        comps.append(V.Comparison(f"m{i}", "", t.p, True, test=t))
    return V.Part(tuple(comps))


@pytest.mark.parametrize(
    ("n", "m", "verdict", "said"),
    [
        # 0.031 × 5 = 0.16: no outcome could pass Holm's correction
        pytest.param(5, 5, V.NOT_TESTABLE, "untestable at n = 5", id="n=5, 5 comparisons"),
        pytest.param(5, 1, V.HOLDS, "", id="n=5, 1 comparison"),  # 0.031 < 0.05: it can decide
        pytest.param(10, 5, V.HOLDS, "", id="n=10, 5 comparisons"),  # 0.00098 × 5 < 0.05
    ],
)
def test_a_claim_only_zero_spread_tests_could_decide_is_untestable_never_a_tie(n, m, verdict, said):
    got = V.decide(_exact(n, m))
    assert got.verdict == verdict and said in got.evidence


def test_holm_over_the_whole_report_names_the_verdicts_it_would_change():
    """A claim holding on one comparison at p = 0.01 holds within itself; among 20 comparisons
    of the report, Holm's 0.01 × 20 = 0.2 would make it a tie; a p of 1e-6 keeps its verdict."""

    def claim(i):
        return C.Claim(f"c{i}", "p", "f", "s", "statement", "e", None, check=lambda df: None)

    weak = V.decide(V.Part((_comparison(_sample(1.5), _sample(0.0), "w"),)))
    strong = V.decide(V.Part((_comparison(_sample(50.0, 5), _sample(0.0, 5), "s"),)))
    nulls = [V.decide(V.Part((_comparison(_sample(0.0), _sample(0.0), "n"),))) for _ in range(18)]
    assert weak.verdict == strong.verdict == V.HOLDS and 0.001 < weak.outcomes[0][2] < 0.05
    results = [(claim(0), weak), (claim(1), strong)] + [(claim(i + 2), v) for i, v in
                                                         enumerate(nulls)]  # fmt: skip
    said = C.report_wide(results)
    assert "Error is controlled per claim" in said and "over all 20 tested comparisons" in said
    assert "`c0` holds → undecided" in said and "`c1`" not in said
    assert C.report_wide(results[:2]).endswith("no verdict.")


@pytest.mark.parametrize(
    ("slow_at_top", "short"),
    [
        pytest.param(0.3, "", id="below at every r: each r's ratio test passes"),
        pytest.param(1.05, "not shown below at r = 40 (×", id="a mean above at one r: listed"),
    ],
)
def test_every_r_is_a_ratio_test_at_each_r(slow_at_top, short):
    rng = np.random.default_rng(4)
    rows = []
    for rep in range(5):
        rows.append({"method": "kMeans", "r": 10, "repetition": rep, "is_baseline": True,
                     "total_seconds": 1.0 * np.exp(rng.normal(0, 0.1))})  # fmt: skip
        for r, level in ((10, 0.2), (20, 0.25), (40, slow_at_top)):
            rows.append({"method": "RP", "r": r, "repetition": rep, "is_baseline": False,
                         "total_seconds": level * np.exp(rng.normal(0, 0.1))})  # fmt: skip
    part = rankings.check_faster_than_full(pd.DataFrame(rows), ("RP",), "total_seconds")
    (c,) = part.comparisons
    assert c.favours and c.p < 0.05  # faster over r, by the one comparison
    assert (short in c.short) if short else c.short == ""
    if short:
        assert "95% CI" in c.short and "one-sided p = " in c.short
