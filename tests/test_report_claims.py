"""Verdict logic of the papers' claims on small hand-made summary tables."""

from __future__ import annotations

import pandas as pd

from kmdr.report import claims as C

RS = list(range(5, 105, 5))


def _summary(curves: dict[str, dict[str, list[float] | float]], rs=RS) -> pd.DataFrame:
    """Summary rows: ``curves[method][metric]`` is a list over ``rs`` (or one value for kMeans)."""
    rows = []
    for method, metrics in curves.items():
        if method == C.BASELINE:
            row = {"dataset": "d", "reducer_name": "none", "method": method, "r": 1000}
            row.update({f"{m}_mean": v for m, v in metrics.items()})
            rows.append(row)
            continue
        for i, r in enumerate(rs):
            row = {"dataset": "d", "reducer_name": method.lower(), "method": method, "r": r}
            row.update({f"{m}_mean": v[i] for m, v in metrics.items()})
            rows.append(row)
    return pd.DataFrame(rows)


def _claim(claim_id: str) -> C.Claim:
    return next(c for c in C.CLAIMS if c.id == claim_id)


def _run(claim_id: str, df: pd.DataFrame) -> C.Verdict:
    claim = _claim(claim_id)
    df = df.assign(dataset=claim.dataset)
    return C.evaluate(claim, {claim.experiment: df})


DECREASING = [0.5 + 1.0 / r for r in RS]
INCREASING = [0.5 + r / 1000 for r in RS]


def test_decreasing_objective_holds_on_decreasing_and_fails_on_increasing_curves():
    down = _summary({m: {"objective": DECREASING} for m in C.BZMD14_METHODS})
    v = _run("bzmd14-F-decreases-usps", down)
    assert v.verdict == C.HOLDS and "ρ = -1.00" in v.evidence
    up = _summary({m: {"objective": INCREASING} for m in C.BZMD14_METHODS})
    assert _run("bzmd14-F-decreases-usps", up).verdict == C.FAILS
    mixed = _summary({m: {"objective": DECREASING if m == "RP" else INCREASING}
                      for m in C.BZMD14_METHODS})  # fmt: skip
    assert _run("bzmd14-F-decreases-usps", mixed).verdict == C.PARTLY


def test_flat_noise_is_not_a_decrease():
    flat = [0.5 + (0.0001 if i % 2 else 0.0) for i in range(len(RS))]
    df = _summary({m: {"objective": flat} for m in C.BZMD14_METHODS})
    assert _run("bzmd14-F-decreases-orl", df).verdict == C.FAILS


def test_claim_without_data_is_no_data():
    v = C.evaluate(_claim("lst17-rp-time-grows-rcv1"), {})
    assert v.verdict == C.NO_DATA
    # the experiment ran but the claim's method did not
    df = _summary({"SE": {"reduce_seconds": [0.01] * len(RS)}}).assign(dataset="rcv1")
    assert C.evaluate(_claim("lst17-rp-time-grows-rcv1"), {"lst17_rcv1": df}).verdict == C.NO_DATA


def test_converges_to_kmeans():
    near = {m: {"objective": DECREASING} for m in C.BZMD14_METHODS}
    near[C.BASELINE] = {"objective": 0.505}
    assert _run("bzmd14-F-approaches-kmeans-pie", _summary(near)).verdict == C.HOLDS
    far = {m: {"objective": [0.8] * len(RS)} for m in C.BZMD14_METHODS}
    far[C.BASELINE] = {"objective": 0.5}
    v = _run("bzmd14-F-approaches-kmeans-pie", _summary(far))
    assert v.verdict == C.FAILS and "+60.0%" in v.evidence
    # already at kMeans' level from the smallest r (exact SVD): still converged
    there = {m: {"objective": [0.505, *([0.492] * (len(RS) - 1))]} for m in C.BZMD14_METHODS}
    there[C.BASELINE] = {"objective": 0.5}
    assert _run("bzmd14-F-approaches-kmeans-pie", _summary(there)).verdict == C.HOLDS


def test_lapscores_lead_and_trail():
    lead = {m: {"accuracy": [0.5] * len(RS)} for m in C.BZMD14_METHODS}
    lead[C.LAPSCORES] = {"accuracy": [0.7] * len(RS)}
    lead[C.BASELINE] = {"accuracy": 0.6}
    assert _run("bzmd14-lapscores-lead-coil20", _summary(lead)).verdict == C.HOLDS
    lead[C.BASELINE] = {"accuracy": 0.9}  # kMeans beats LS: not 'superior to all'
    assert _run("bzmd14-lapscores-lead-coil20", _summary(lead)).verdict == C.PARTLY
    beat = {m: {"accuracy": [0.8] * len(RS), "objective": [0.5] * len(RS)}
            for m in C.BZMD14_METHODS}  # fmt: skip
    beat[C.LAPSCORES] = {"accuracy": [0.7] * len(RS), "objective": [0.6] * len(RS)}
    assert _run("bzmd14-beat-lapscores-orl", _summary(beat)).verdict == C.HOLDS
    beat[C.LAPSCORES] = {"accuracy": [0.9] * len(RS), "objective": [0.4] * len(RS)}
    assert _run("bzmd14-beat-lapscores-orl", _summary(beat)).verdict == C.FAILS


def test_synth_near_kmeans_accuracy_by_r20():
    good = {m: {"accuracy": [0.6 if r < 20 else 0.99 for r in RS]} for m in C.BZMD14_METHODS}
    good[C.BASELINE] = {"accuracy": 1.0}
    assert _run("bzmd14-synth-accurate-r20", _summary(good)).verdict == C.HOLDS
    late = {m: {"accuracy": [0.6 if r < 60 else 0.99 for r in RS]} for m in C.BZMD14_METHODS}
    late[C.BASELINE] = {"accuracy": 1.0}
    assert _run("bzmd14-synth-accurate-r20", _summary(late)).verdict == C.FAILS


def test_lle_and_ls_underperform():
    n = len(RS)
    good = {m: {"accuracy": [0.6] * n} for m in ("SE", "RP", "SVD", "PD")}
    df = _summary({**good, "LLE": {"accuracy": [0.3] * n}, C.LAPSCORES: {"accuracy": [0.4] * n}})
    assert _run("lst17-lle-lapscores-trail-coil20", df).verdict == C.HOLDS
    # LLE above PD: LS still trails, LLE only partly: partly overall
    mixed = _summary(
        {**good, "LLE": {"accuracy": [0.65] * n}, C.LAPSCORES: {"accuracy": [0.4] * n}}
    )
    assert _run("lst17-lle-lapscores-trail-coil20", mixed).verdict == C.PARTLY
    both_lead = _summary(
        {**good, "LLE": {"accuracy": [0.9] * n}, C.LAPSCORES: {"accuracy": [0.9] * n}}
    )
    assert _run("lst17-lle-lapscores-trail-coil20", both_lead).verdict == C.FAILS
    # LLE not run: the LS part alone decides, LLE is listed as not run
    no_lle = _summary({**good, C.LAPSCORES: {"accuracy": [0.4] * n}})
    verdict = _run("lst17-lle-lapscores-trail-coil20", no_lle)
    assert verdict.verdict == C.PARTLY and "LLE was not run" in verdict.evidence


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
    # LLE as fast as PD: only one of the two slowest holds
    quick_lle = df.copy()
    quick_lle.loc[quick_lle["method"] == "LLE", "reduce_seconds_mean"] = 0.001
    assert _run("lst17-svd-lle-slowest-coil20", quick_lle).verdict == C.PARTLY
    # SE growing like RP: not flat, and RP's time does not grow if it is constant
    grown = df.copy()
    grown.loc[grown["method"] == "SE", "reduce_seconds_mean"] = [0.0001 * r for r in RS]
    grown.loc[grown["method"] == "RP", "reduce_seconds_mean"] = 0.05
    assert _run("lst17-se-time-flat-coil20", grown).verdict == C.FAILS
    assert _run("lst17-rp-time-grows-coil20", grown).verdict == C.FAILS


def test_faster_than_full_kmeans():
    n = len(RS)
    fast = {m: {"total_seconds": [0.1] * n} for m in C.LST17_METHODS}
    fast[C.BASELINE] = {"total_seconds": 1.0}
    assert _run("lst17-faster-than-full-coil20", _summary(fast)).verdict == C.HOLDS
    slow = {m: {"total_seconds": [2.0] * n} for m in C.LST17_METHODS}
    slow[C.BASELINE] = {"total_seconds": 1.0}
    v = _run("lst17-faster-than-full-coil20", _summary(slow))
    assert v.verdict == C.FAILS and "0/20" in v.evidence


def test_every_claim_is_well_formed():
    ids = [c.id for c in C.CLAIMS]
    assert len(ids) == len(set(ids))
    for c in C.CLAIMS:
        assert c.paper in ("bzmd14", "lst17") and c.statement and c.source
        assert C.evaluate(c, {}).verdict == C.NO_DATA


def test_the_baseline_is_found_by_registry_name_not_label():
    near = {m: {"objective": DECREASING} for m in C.BZMD14_METHODS}
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
