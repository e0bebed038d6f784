"""Verdict logic of the papers' claims on small hand-made cell tables (one row per repetition)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from _cases import case
from kmdr.papers.bzmd14.claims import BZMD14_METHODS
from kmdr.papers.lst17.claims import LST17_METHODS
from kmdr.papers.pb17.claims import SPARSIFIED as PB17_METHODS
from kmdr.report import claims as C
from kmdr.report.claims import rankings
from kmdr.report.claims import verdicts as V

RS = list(range(5, 105, 5))


def _summary(
    curves: dict[str, dict[str, list[float] | float]], rs=RS, rel_sd=0.02, sd=None, n=5, seed=0
) -> pd.DataFrame:
    """Cells: ``curves[method][metric]`` is a list over ``rs`` (or one value for kMeans); every
    point has ``n`` repetitions whose values have exactly that mean and sd ``sd`` (default:
    ``rel_sd`` times the mean), their noise drawn independently per point and metric."""
    rng = np.random.default_rng(seed)

    def values(v, metric):
        s = abs(v) * rel_sd if sd is None else sd
        if n < 2 or not s or np.isnan(s):
            return [v] * n
        z = rng.standard_normal(n)
        z = (z - z.mean()) / z.std(ddof=1)
        return list(v + s * z)

    rows = []
    for method, metrics in curves.items():
        base = method == C.BASELINE
        grid = [1000] if base else rs
        for i, r in enumerate(grid):
            drawn = {m: values(v if base else v[i], m) for m, v in metrics.items()}
            for rep in range(n):
                row = {"dataset": "d", "reducer_name": "none" if base else method.lower(),
                       "method": method, "r": r, "repetition": rep,
                       "seed": f"{method}/{r}/{rep}"}  # fmt: skip
                row.update({m: drawn[m][rep] for m in metrics})
                rows.append(row)
    return pd.DataFrame(rows)


def _claim(claim_id: str) -> C.Claim:
    return next(c for c in C.all_claims() if c.id == claim_id)


def _run(claim_id: str, df: pd.DataFrame) -> C.Verdict:
    claim = _claim(claim_id)
    df = df.assign(dataset=claim.dataset)
    return C.evaluate(claim, {claim.experiment: df})


DECREASING = [0.5 + 1.0 / r for r in RS]
INCREASING = [0.5 + r / 1000 for r in RS]


def test_decreasing_objective_holds_on_decreasing_and_fails_on_increasing_curves():
    down = _summary({m: {"objective": DECREASING} for m in BZMD14_METHODS})
    v = _run("bzmd14-F-decreases-usps", down)
    assert v.verdict == C.HOLDS and "ρ = -1.00" in v.evidence
    up = _summary({m: {"objective": INCREASING} for m in BZMD14_METHODS})
    assert _run("bzmd14-F-decreases-usps", up).verdict == C.FAILS
    # one method decreasing, the others significantly increasing: the losses make it fail
    mixed = _summary({m: {"objective": DECREASING if m == "RP" else INCREASING}
                      for m in BZMD14_METHODS})  # fmt: skip
    v = _run("bzmd14-F-decreases-usps", mixed)
    assert v.verdict == C.FAILS and "1 of 5 comparisons for the claim, 4 against" in v.evidence
    # one decreasing, the others flat within their noise: partly
    flat = [0.5] * len(RS)
    some = _summary({m: {"objective": DECREASING if m == "RP" else flat}
                     for m in BZMD14_METHODS})  # fmt: skip
    v = _run("bzmd14-F-decreases-usps", some)
    assert v.verdict == C.PARTLY and "1 of 5 comparisons for the claim, 0 against" in v.evidence


def test_flat_noise_is_a_tie_not_a_decrease_nor_a_failure():
    flat = [0.5 + (0.0001 if i % 2 else 0.0) for i in range(len(RS))]
    df = _summary({m: {"objective": flat} for m in BZMD14_METHODS})
    v = _run("bzmd14-F-decreases-orl", df)
    assert v.verdict == C.TIE and C.TEST in v.evidence
    # the same curves with no noise at all: the alternation is no trend either (ρ ≈ 0)
    assert (
        _run(
            "bzmd14-F-decreases-orl",
            _summary({m: {"objective": flat} for m in BZMD14_METHODS}, sd=0.0),
        ).verdict
        != C.HOLDS
    )


def test_claim_without_data_is_no_data():
    v = C.evaluate(_claim("lst17-rp-time-grows-rcv1"), {})
    assert v.verdict == C.NO_DATA
    # the experiment ran but the claim's method did not
    df = _summary({"SE": {"reduce_seconds": [0.01] * len(RS)}}).assign(dataset="rcv1")
    assert C.evaluate(_claim("lst17-rp-time-grows-rcv1"), {"lst17_rcv1": df}).verdict == C.NO_DATA


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="no results for dataset coil20",
            doing="read",
            cause="a paper's claim is about one dataset, and the experiment folder it reads holds "
            "results of another (the experiment was run with dataset=...); the claim is not "
            "judged on other data",
            fix="run the experiment's preset as it is (`kmdr experiment=NAME`), or send runs on "
            "other data to a results folder of their own (results_dir=...)",
        )
    ],
)
def test_a_claim_is_never_judged_on_another_dataset(says):
    df = _summary({"RP": {"reduce_seconds": [0.001 * r for r in RS]}}, rel_sd=0.01)
    v = C.evaluate(_claim("lst17-rp-time-grows-coil20"), {"lst17_coil20": df.assign(dataset="orl")})
    assert v.verdict == C.NO_DATA and says in v.evidence
    assert _run("lst17-rp-time-grows-coil20", df).verdict == C.HOLDS  # the same rows, right name


def test_converges_to_kmeans():
    near = {m: {"objective": DECREASING} for m in BZMD14_METHODS}
    near[C.BASELINE] = {"objective": 0.505}
    assert _run("bzmd14-F-approaches-kmeans-pie", _summary(near)).verdict == C.HOLDS
    far = {m: {"objective": [0.8] * len(RS)} for m in BZMD14_METHODS}
    far[C.BASELINE] = {"objective": 0.5}
    v = _run("bzmd14-F-approaches-kmeans-pie", _summary(far))
    assert v.verdict == C.FAILS and "F − F_kMeans +0.3" in v.evidence
    assert "5 of 5 repetitions beyond the tolerance" in v.evidence
    # already at kMeans' level from the smallest r (exact SVD): still converged
    there = {m: {"objective": [0.505, *([0.492] * (len(RS) - 1))]} for m in BZMD14_METHODS}
    there[C.BASELINE] = {"objective": 0.5}
    assert _run("bzmd14-F-approaches-kmeans-pie", _summary(there, rel_sd=0.005)).verdict == C.HOLDS
    # within the tolerance on average, but too noisy to show it: not a hold
    assert _run("bzmd14-F-approaches-kmeans-pie", _summary(there, rel_sd=0.05)).verdict == C.TIE


@pytest.mark.slow
def test_lapscores_lead_and_trail():
    lead = {m: {"accuracy": [0.5] * len(RS)} for m in BZMD14_METHODS}
    lead[C.LAPSCORES] = {"accuracy": [0.7] * len(RS)}
    lead[C.BASELINE] = {"accuracy": 0.6}
    assert _run("bzmd14-lapscores-lead-coil20", _summary(lead)).verdict == C.HOLDS
    lead[C.BASELINE] = {"accuracy": 0.9}  # kMeans significantly beats LS: the claim fails
    v = _run("bzmd14-lapscores-lead-coil20", _summary(lead))
    assert v.verdict == C.FAILS and "5 of 6 comparisons for the claim, 1 against" in v.evidence
    lead[C.BASELINE] = {"accuracy": 0.7}  # kMeans level with LS: partly
    assert _run("bzmd14-lapscores-lead-coil20", _summary(lead)).verdict == C.PARTLY
    beat = {m: {"accuracy": [0.8] * len(RS), "objective": [0.5] * len(RS)}
            for m in BZMD14_METHODS}  # fmt: skip
    beat[C.LAPSCORES] = {"accuracy": [0.7] * len(RS), "objective": [0.6] * len(RS)}
    assert _run("bzmd14-beat-lapscores-orl", _summary(beat)).verdict == C.HOLDS
    beat[C.LAPSCORES] = {"accuracy": [0.9] * len(RS), "objective": [0.4] * len(RS)}
    assert _run("bzmd14-beat-lapscores-orl", _summary(beat)).verdict == C.FAILS


def test_synth_near_kmeans_accuracy_by_r20():
    good = {m: {"accuracy": [0.6 if r < 20 else 0.99 for r in RS]} for m in BZMD14_METHODS}
    good[C.BASELINE] = {"accuracy": 1.0}
    assert _run("bzmd14-synth-accurate-r20", _summary(good, rel_sd=0.005)).verdict == C.HOLDS
    # the same means with wide noise: within the tolerance, but not shown to be: no verdict
    assert _run("bzmd14-synth-accurate-r20", _summary(good, rel_sd=0.05)).verdict == C.TIE
    late = {m: {"accuracy": [0.6 if r < 60 else 0.99 for r in RS]} for m in BZMD14_METHODS}
    late[C.BASELINE] = {"accuracy": 1.0}
    assert _run("bzmd14-synth-accurate-r20", _summary(late)).verdict == C.FAILS


@pytest.mark.slow
def test_lle_and_ls_underperform():
    n = len(RS)
    good = {m: {"accuracy": [0.6] * n} for m in ("SE", "RP", "SVD", "PD")}
    df = _summary({**good, "LLE": {"accuracy": [0.3] * n}, C.LAPSCORES: {"accuracy": [0.4] * n}})
    assert _run("lst17-lle-lapscores-trail-coil20", df).verdict == C.HOLDS
    # LLE significantly above every one: LS still trails, but those losses make it fail
    mixed = _summary(
        {**good, "LLE": {"accuracy": [0.65] * n}, C.LAPSCORES: {"accuracy": [0.4] * n}}
    )
    v = _run("lst17-lle-lapscores-trail-coil20", mixed)
    assert v.verdict == C.FAILS and "4 of 8 comparisons for the claim, 4 against" in v.evidence
    # LLE level with them (not significant): partly
    level = _summary({**good, "LLE": {"accuracy": [0.6] * n}, C.LAPSCORES: {"accuracy": [0.4] * n}})
    assert _run("lst17-lle-lapscores-trail-coil20", level).verdict == C.PARTLY
    both_lead = _summary(
        {**good, "LLE": {"accuracy": [0.9] * n}, C.LAPSCORES: {"accuracy": [0.9] * n}}
    )
    assert _run("lst17-lle-lapscores-trail-coil20", both_lead).verdict == C.FAILS
    # LLE not run: the LS part alone decides (a method not run counts neither way), and the
    # evidence says LLE was not run
    no_lle = _summary({**good, C.LAPSCORES: {"accuracy": [0.4] * n}})
    verdict = _run("lst17-lle-lapscores-trail-coil20", no_lle)
    assert verdict.verdict == C.HOLDS and "LLE was not run" in verdict.evidence


@pytest.mark.slow
def test_sparse_embedding_times():
    n = len(RS)
    df = _summary(
        {
            "SE": {"reduce_seconds": [0.001] * n},
            "RP": {"reduce_seconds": [0.001 * r for r in RS]},
            "SVD": {"reduce_seconds": [1.0] * n},
            "LLE": {"reduce_seconds": [2.0] * n},
            C.LAPSCORES: {"reduce_seconds": [0.5] * n},
            "PD": {"reduce_seconds": [0.01] * n},
        }
    )
    assert _run("lst17-se-lowest-time-coil20", df).verdict == C.HOLDS
    assert _run("lst17-se-time-flat-coil20", df).verdict == C.HOLDS
    assert _run("lst17-rp-time-grows-coil20", df).verdict == C.HOLDS
    assert _run("lst17-svd-lle-slowest-coil20", df).verdict == C.HOLDS
    # LLE faster than PD and LapScores: significantly against the claim
    quick_lle = df.copy()
    quick_lle.loc[quick_lle["method"] == "LLE", "reduce_seconds"] *= 0.0005  # 2 s → 1 ms
    assert _run("lst17-svd-lle-slowest-coil20", quick_lle).verdict == C.FAILS
    # SE growing like RP: not flat, and RP's time does not grow if it is constant
    grown = df.copy()
    se, rp = grown["method"] == "SE", grown["method"] == "RP"
    grown.loc[se, "reduce_seconds"] *= 0.1 * grown.loc[se, "r"] / 1.0
    grown.loc[rp, "reduce_seconds"] *= 0.05 / (0.001 * grown.loc[rp, "r"])
    assert _run("lst17-se-time-flat-coil20", grown).verdict == C.FAILS
    # a constant RP time (within its noise) does not grow: a tie, not a failure
    assert _run("lst17-rp-time-grows-coil20", grown).verdict == C.TIE


def test_faster_than_full_kmeans():
    n = len(RS)
    fast = {m: {"cluster_seconds": [0.1] * n} for m in LST17_METHODS}
    fast[C.BASELINE] = {"cluster_seconds": 1.0}
    assert _run("lst17-faster-than-full-coil20", _summary(fast)).verdict == C.HOLDS
    slow = {m: {"cluster_seconds": [2.0] * n} for m in LST17_METHODS}
    slow[C.BASELINE] = {"cluster_seconds": 1.0}
    v = _run("lst17-faster-than-full-coil20", _summary(slow))
    assert v.verdict == C.FAILS and "0 of 6 comparisons for the claim, 6 against" in v.evidence


def test_every_claim_is_well_formed():
    ids = [c.id for c in C.all_claims()]
    assert len(ids) == len(set(ids))
    for c in C.all_claims():
        assert c.paper in ("bzmd14", "lst17", "pb17", "ss22") and c.statement and c.source
        assert C.evaluate(c, {}).verdict == C.NO_DATA


def test_the_baseline_is_found_by_registry_name_not_label():
    near = {m: {"objective": DECREASING} for m in BZMD14_METHODS}
    near[C.BASELINE] = {"objective": 0.505}
    df = _summary(near)
    claim = "bzmd14-F-approaches-kmeans-pie"
    # the baseline labelled "All", as bmd09's preset labels it: still the baseline
    relabelled = df.assign(method=df["method"].replace({C.BASELINE: "All"}))
    assert _run(claim, relabelled).verdict == C.HOLDS
    # a row labelled "kMeans" whose reducer is not "none" is no baseline
    impostor = df.assign(reducer_name=df["reducer_name"].replace({"none": "mine"}))
    v = _run(claim, impostor)
    assert v.verdict == C.NO_DATA and "kMeans was not run" in v.evidence


# --------------------------------------------------------------------------------------------
# Noise-aware verdicts and each paper's time measure
# --------------------------------------------------------------------------------------------


def test_one_point_is_scipys_welch_test():
    rng = np.random.default_rng(11)
    a, b = rng.normal(0.62, 0.03, 5), rng.normal(0.55, 0.05, 7)
    t = V.test(V.Sample(a), V.Sample(b))
    assert t.p == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue, rel=1e-10)
    assert not t.paired and t.diff == pytest.approx(a.mean() - b.mean())


def _correlated(
    levels: dict[str, float], shifts: dict[str, np.ndarray], seeds=None
) -> pd.DataFrame:
    """Cells whose r points within one repetition move together: repetition ``i`` of a method
    is ``level + shift[i]`` at every r (plus a trend shared by all)."""
    rows = [
        {"dataset": "d", "reducer_name": m.lower(), "method": m, "r": r, "repetition": i,
         "seed": (seeds or {}).get((m, i), f"{m}/{i}/{r}"),
         "accuracy": levels[m] + shifts[m][i] + 0.001 * r}
        for m in levels for i in range(len(shifts[m])) for r in RS
    ]  # fmt: skip
    return pd.DataFrame(rows)


def test_correlated_r_points_count_once_per_repetition():
    rng = np.random.default_rng(5)
    shifts = {"RP": rng.normal(0, 0.03, 5), "SE": rng.normal(0, 0.03, 5)}
    df = _correlated({"RP": 0.62, "SE": 0.58}, shifts)
    v = V.decide(rankings.check_leads_accuracy(df, "RP", ("SE",)))
    got = v.outcomes[0][2]
    means = {m: df[df.method == m].groupby("repetition")["accuracy"].mean() for m in shifts}
    per_rep = stats.ttest_ind(means["RP"], means["SE"], equal_var=False).pvalue
    pooled = stats.ttest_ind(
        df[df.method == "RP"]["accuracy"], df[df.method == "SE"]["accuracy"], equal_var=False
    ).pvalue
    assert got == pytest.approx(per_rep, rel=1e-9)
    assert pooled < got / 1e3  # what treating the 20 r as independent would have printed
    assert "Δ = +" in v.evidence and "g = +" in v.evidence


def test_repetitions_sharing_seeds_are_paired():
    rng = np.random.default_rng(6)
    common = rng.normal(0, 0.05, 6)  # each repetition's shared draw, the same for both
    shifts = {"RP": common + rng.normal(0, 0.002, 6), "SE": common + rng.normal(0, 0.002, 6)}
    seeds = {(m, i): f"rep{i}" for m in shifts for i in range(6)}
    df = _correlated({"RP": 0.6, "SE": 0.59}, shifts, seeds)
    a = V.sample(V.table(df, "RP", "accuracy"))
    b = V.sample(V.table(df, "SE", "accuracy"))
    t = V.test(a, b)
    assert t.paired and t.p < 0.01
    assert t.p == pytest.approx(stats.ttest_rel(a.values, b.values).pvalue, rel=1e-9)
    # the same values under seeds of their own: independent samples, far less evidence
    unpaired = V.test(V.Sample(a.values), V.Sample(b.values))
    assert not unpaired.paired and unpaired.p > 100 * t.p


def test_exact_equality_is_a_sign_test_whose_p_accounts_for_n():
    same = {m: {"objective": [7.5e-7] * len(RS)} for m in BZMD14_METHODS}
    same[C.BASELINE] = {"objective": 7.5e-7}
    v = _run("bzmd14-F-approaches-kmeans-synth_kmeanspp", _summary(same, sd=0.0))
    # 5 of 5 within the tolerance: p = 0.031 one-sided each, 0.16 after Holm over 5: no outcome
    # of five repetitions could decide, so the claim is untestable at n = 5, never a tie
    assert v.verdict == C.NOT_TESTABLE and "0 of 5 comparisons for the claim" in v.evidence
    assert "untestable at n = 5" in v.evidence
    assert "no spread: exact sign test on 5 repetitions, p = 0.031" in v.evidence
    assert "no test needed" not in v.evidence and "Δ = +0" in v.evidence
    # with 10 repetitions that agree the sign test can decide: p = 0.00098, Holm 0.0049
    ten = _summary(same, sd=0.0, n=10)
    assert _run("bzmd14-F-approaches-kmeans-synth_kmeanspp", ten).verdict == C.HOLDS
    # exactly 10% above kMeans at the largest r: outside the 5% tolerance in every repetition
    far = {m: {"objective": [0.55] * len(RS)} for m in BZMD14_METHODS}
    far[C.BASELINE] = {"objective": 0.5}
    assert _run("bzmd14-F-approaches-kmeans-pie", _summary(far, sd=0.0, n=10)).verdict == C.FAILS


def test_a_tie_states_the_smallest_effect_its_n_could_detect():
    rng = np.random.default_rng(7)
    a, b = V.Sample(rng.normal(0, 1, 5)), V.Sample(rng.normal(0.1, 1, 5))
    t = V.test(a, b)
    g, delta = t.detectable(V.ALPHA)
    assert delta == pytest.approx(g * t.sd)
    # an effect of that size is found by the t-test at α 80% of the time (simulated)
    x, y = rng.normal(0, 1, (20000, 5)), rng.normal(g, 1, (20000, 5))
    power = (stats.ttest_ind(x, y, axis=1).pvalue < V.ALPHA).mean()
    assert power == pytest.approx(0.8, abs=0.015)
    assert t.detectable(V.ALPHA / 4)[0] > g  # a stricter level needs a larger effect
    more = V.test(V.Sample(rng.normal(0, 1, 20)), V.Sample(rng.normal(0, 1, 20)))
    assert more.detectable(V.ALPHA)[0] < g  # more repetitions see smaller effects
    v = V.decide(V.Part((V.Comparison("m", V.effect_text(t), t.p, t.diff > 0, test=t),)))
    assert v.verdict == C.TIE and f"|g| ≥ {g:.2f} at α = 0.05, power 0.8" in v.evidence


def test_a_six_fold_speed_up_with_five_repetitions_is_decided():
    """sparse_text's clustering: kMeans 14.5 ± 4.6 s over 5 repetitions, every reduced method
    about 6x faster at each of 12 r: one comparison per method decides it."""
    grid = [10, 50, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]
    fast = _summary({m: {"cluster_seconds": [14.5 / 6] * len(grid)} for m in LST17_METHODS},
                    rs=grid, rel_sd=0.3)  # fmt: skip
    full = _summary({C.BASELINE: {"cluster_seconds": 14.5}}, sd=4.6, seed=1)
    v = _run("lst17-faster-than-full-sparse_text", pd.concat([fast, full], ignore_index=True))
    assert v.verdict == C.HOLDS and "6 of 6 comparisons for the claim" in v.evidence
    assert "×0.167" in v.evidence and "95% CI ×" in v.evidence


def test_all_methods_at_the_optimum_is_untestable_not_a_failure():
    # Synth with k-means++ starts: every method and LapScores at P = 1, F at the optimum, no sd:
    # ten zero-spread sign tests at n = 5 could never pass Holm's correction
    n = len(RS)
    same = {"accuracy": [1.0] * n, "objective": [7.5e-7] * n}
    df = _summary({m: same for m in (*BZMD14_METHODS, C.LAPSCORES)}, sd=0.0)
    v = _run("bzmd14-beat-lapscores-synth_kmeanspp", df)
    assert v.verdict == C.NOT_TESTABLE and C.TEST in v.evidence
    assert "untestable at n = 5" in v.evidence


@pytest.mark.slow
def test_a_lead_is_holds_only_when_significant():
    # PIE: LapScores above every rival by 0.001-0.017, as today's results
    n = len(RS)
    curves = {m: {"accuracy": [0.19] * n} for m in BZMD14_METHODS}
    curves[C.LAPSCORES] = {"accuracy": [0.193] * n}
    curves[C.BASELINE] = {"accuracy": 0.191}
    noisy = _run("bzmd14-lapscores-lead-pie", _summary(curves, sd=0.02))
    assert noisy.verdict == C.TIE
    sharp = _run("bzmd14-lapscores-lead-pie", _summary(curves, sd=0.0005))
    assert sharp.verdict == C.HOLDS
    # a significant deficit is a failure, whatever the noise elsewhere
    curves[C.LAPSCORES] = {"accuracy": [0.15] * n}
    assert _run("bzmd14-lapscores-lead-pie", _summary(curves, sd=0.005)).verdict == C.FAILS


def test_a_point_without_sd_cannot_be_significant():
    n = len(RS)
    curves = {m: {"accuracy": [0.5] * n} for m in BZMD14_METHODS}
    curves[C.LAPSCORES] = {"accuracy": [0.7] * n}
    curves[C.BASELINE] = {"accuracy": 0.6}
    df = _summary(curves, sd=np.nan, n=1)  # one repetition: ddof-1 sd is NaN
    v = _run("bzmd14-lapscores-lead-coil20", df)
    assert v.verdict == C.TIE and "no sd" in v.evidence


def test_no_fixed_window_sets_a_curve_at_the_floor_aside():
    n = len(RS)
    curves = {m: {"objective": DECREASING} for m in BZMD14_METHODS}
    curves["SVD"] = {"objective": [0.503] * n}  # at kMeans' F from r = 5: nothing to decrease
    curves[C.BASELINE] = {"objective": 0.5}
    v = _run("bzmd14-F-decreases-coil20", _summary(curves, rel_sd=0.005))
    # the paper states no window: SVD's comparison counts, not significant, so only partly
    assert v.verdict == C.PARTLY and "converged" not in v.evidence
    assert "4 of 5 comparisons for the claim, 0 against, 1 not significant" in v.evidence
    # a converged accuracy curve must stay at kMeans' level: a collapse (LLE) is a failure
    acc = {m: {"accuracy": INCREASING} for m in LST17_METHODS}
    acc["LLE"] = {"accuracy": [0.6 - r / 200 for r in RS]}
    acc[C.BASELINE] = {"accuracy": 0.55}
    v = _run("lst17-accuracy-increases-coil20", _summary(acc, rel_sd=0.01))
    assert v.verdict == C.FAILS and "LLE: Q1" in v.evidence and "✗" in v.evidence


def test_lst17_speed_claim_reads_clustering_time():
    # reduction makes the total slower than k-means on all features, clustering is faster:
    # lst17's Figure 3 (clustering time) says faster, so the claim holds
    n = len(RS)
    curves = {
        m: {"cluster_seconds": [0.1] * n, "reduce_seconds": [2.0] * n, "total_seconds": [2.1] * n}
        for m in LST17_METHODS
    }
    curves[C.BASELINE] = {"cluster_seconds": 1.0, "reduce_seconds": 0.0, "total_seconds": 1.0}
    df = _summary(curves)
    v = _run("lst17-faster-than-full-coil20", df)
    assert v.verdict == C.HOLDS and "cluster_seconds" in v.evidence
    # bzmd14's running time is the total: the same table says slower there
    bz = {m: curves["RP"] for m in (*BZMD14_METHODS, C.LAPSCORES)}
    bz[C.BASELINE] = curves[C.BASELINE]
    assert _run("bzmd14-faster-coil20", _summary(bz)).verdict == C.FAILS


def test_a_time_trend_is_a_ratio_tested_on_its_log():
    """A time's change over r is tested on each repetition's log ratio (Q4 over Q1) and shown as
    the ratio with its 95% interval; Hedges' g on a near-deterministic time would only say how
    small the noise is. The test is scipy's one-sample t-test on those logs."""
    from kmdr.report.claims.checks import change, check_grows, check_trend
    from kmdr.report.claims.significance import table

    df = _summary({"RP": {"reduce_seconds": [0.001 * r for r in RS],
                          "accuracy": INCREASING}}, n=6)  # fmt: skip
    (comp,) = check_grows(df, "RP", "reduce_seconds").comparisons
    (trend,) = check_trend(df, ["RP"], "reduce_seconds", +1).comparisons
    logs, _, _ = change(table(df, "RP", "reduce_seconds"), log=True)
    expected = stats.ttest_1samp(logs.values, 0.0).pvalue
    for c in (comp, trend):
        assert c.test.log and c.p == pytest.approx(expected, rel=1e-12)
        assert "ratio ×" in c.text and "95% CI" in c.text and "g = " not in c.text
    # the last quarter over the first: ×18.5 (95 ms / 5 ms, the quarters' means of 5..100)
    assert np.exp(logs.values.mean()) == pytest.approx(np.mean(RS[-5:]) / np.mean(RS[:5]), 0.05)
    # accuracy is no time: its trend keeps Δ and g
    (acc,) = check_trend(df, ["RP"], "accuracy", +1).comparisons
    assert not acc.test.log and "g = " in acc.text


def test_flatness_is_a_growth_shown_below_a_share_of_the_neighbours():
    n = len(RS)
    base = {"SVD": [1.0] * n, "LLE": [2.0] * n, C.LAPSCORES: [0.5] * n, "PD": [0.2] * n}

    def table(se, rp, rel_sd=0.01):
        cur = {m: {"reduce_seconds": v} for m, v in {**base, "SE": se, "RP": rp}.items()}
        return _summary(cur, rel_sd=rel_sd)

    rp_grows = [0.001 * r for r in RS]  # 5 ms → 100 ms
    # SE grows ×2 (2 ms) while RP grows by 90 ms: significantly below 25% of it + 5 ms
    small = [0.001 + 0.00002 * r for r in RS]
    v = _run("lst17-se-time-flat-coil20", table(small, rp_grows))
    assert v.verdict == C.HOLDS and "25% of RP's growth" in v.evidence
    # SE grows as much as RP: significantly above the margin
    assert _run("lst17-se-time-flat-coil20", table(rp_grows, rp_grows)).verdict == C.FAILS
    # a growth that is not significant is no evidence of flatness: with wide noise, a tie
    noisy = _run("lst17-se-time-flat-coil20", table([0.02] * n, rp_grows, rel_sd=5.0))
    assert noisy.verdict == C.TIE


@pytest.mark.slow
def test_every_verdict_names_its_test():
    n = len(RS)
    metrics = ("accuracy", "objective", "reduce_seconds", "cluster_seconds", "total_seconds")
    methods = {*BZMD14_METHODS, *LST17_METHODS, *PB17_METHODS, C.LAPSCORES}
    rng = np.random.default_rng(0)
    curves = {m: {k: list(rng.uniform(0.1, 1.0, n)) for k in metrics} for m in methods}
    curves[C.BASELINE] = {k: 0.5 for k in metrics}
    df = _summary(curves)
    # pb17's large-N claims read their bench file, not the cells (tests/papers/test_pb17_claims.py)
    # ss22's claims read coreset cells, which a summary of reducer curves does not hold
    for claim in (c for c in C.all_claims() if not c.reads and c.paper != "ss22"):
        v = C.evaluate(claim, {claim.experiment: df.assign(dataset=claim.dataset)})
        assert v.verdict in C.VERDICTS and v.verdict != C.NO_DATA, claim.id
        assert C.TEST in v.evidence, claim.id
        # every claim prints its effect sizes: Δ and g, or for times the ratio (or, for a
        # growth against a margin in seconds, Δ) with its 95% interval instead of g
        effects = ("Δ = " in v.evidence and "g = " in v.evidence) or "95% CI" in v.evidence
        assert effects, claim.id


def test_an_exact_tolerance_is_a_sign_test_too():
    same = {m: {"accuracy": [1.0] * len(RS)} for m in BZMD14_METHODS}
    same[C.BASELINE] = {"accuracy": 1.0}
    v = _run("bzmd14-synth-accurate-r20", _summary(same, sd=0.0))
    assert (
        v.verdict == C.NOT_TESTABLE and "exact sign test on 5 repetitions, p = 0.062" in v.evidence
    )
    assert "cannot reach" in v.evidence  # 5 repetitions never can, after the correction
    assert "untestable at n = 5" in v.evidence


@pytest.mark.parametrize(
    ("reference", "expected"),
    [
        pytest.param(7.5e-7, 0.005, id="near 0: the floor"),
        pytest.param(0.1, 0.005, id="at the crossing: both"),
        pytest.param(0.099, 0.005, id="just below the crossing: the floor, no jump"),
        pytest.param(0.101, 0.00505, id="just above: 5% of it"),
        pytest.param(0.6, 0.03, id="far above: 5% of it"),
    ],
)
def test_the_tolerance_is_one_continuous_rule(reference, expected):
    from kmdr.report.claims.checks import tolerance_of

    assert tolerance_of(reference, C.CONVERGE_TOL, C.CONVERGE_FLOOR) == pytest.approx(expected)
    # continuous: no jump where one term takes over from the other
    crossing = C.CONVERGE_FLOOR / C.CONVERGE_TOL
    below = tolerance_of(crossing * (1 - 1e-9), C.CONVERGE_TOL, C.CONVERGE_FLOOR)
    above = tolerance_of(crossing * (1 + 1e-9), C.CONVERGE_TOL, C.CONVERGE_FLOOR)
    assert above == pytest.approx(below, rel=1e-6)


def test_a_tolerance_relative_to_a_value_near_zero_is_absolute():
    """kMeans' F at the optimum (7.5e-7 on Synth): 5% of it is no distance, so the tolerance is
    its absolute floor, by the one continuous rule max(5% × F, 0.005), both numbers stated, and
    the repetitions stuck far from it are listed."""
    rng = np.random.default_rng(3)
    curves = {m: {"objective": list(1e-6 + rng.uniform(0, 1e-4, len(RS)))} for m in BZMD14_METHODS}
    curves["RP"] = {"objective": [0.02] * (len(RS) - 1) + [0.01]}
    curves[C.BASELINE] = {"objective": 7.5e-7}
    v = _run("bzmd14-F-approaches-kmeans-synth", _summary(curves, rel_sd=0.02))
    assert "tolerance ±0.005 = max(0.05 × F_kMeans, 0.005) (kmdr's: 5.0% relative" in v.evidence
    assert "Sensitivity to kmdr's tolerance: at half it: " in v.evidence
    assert "RP: F 0.02 at r = 5 → 0.01 at r = 100" in v.evidence
    assert "5 of 5 repetitions beyond the tolerance" in v.evidence  # RP's, at F ≈ 0.01
    assert v.verdict == C.FAILS  # RP significantly outside; the others within
