"""ss22's claims on cells built here: each case a construction with a known truth (as the
authors', clearly worse, clearly better; reducing first free, costly, faster), so that every
verdict below can come out otherwise."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kmdr.papers.ss22 import claims as S
from kmdr.papers.ss22 import published as P
from kmdr.report import claims as C
from kmdr.report.claims.significance import Sample, equivalence_interval
from kmdr.report.claims.verdicts import AGAINST, FOR, NOT_SIGNIFICANT

ROOT = Path(__file__).resolve().parents[3]
TABLE = ROOT / "results" / P.TABLE
GRID = [(10, 50), (20, 100)]
REPS = 10


def _published() -> pd.DataFrame:
    return pd.read_csv(TABLE)


def _authors_cells(construction: str, factor: float, spread: float = 1.0, seed=0, reps=REPS):
    """kmdr's cells of ``construction`` on Benchmark: per (k, m) of GRID, ``reps`` distortions
    drawn from the authors' log-normal (their log mean and sd) times ``factor``."""
    pub = _published().set_index(["dataset", "algorithm", "k", "coreset_size_factor"])
    rng = np.random.default_rng(seed)
    rows = []
    for k, m in GRID:
        row = pub.loc[("Benchmark", construction, k, m)]
        logs = rng.normal(row["distortion_log_mean"], spread * row["distortion_log_std"], reps)
        for i, v in enumerate(np.exp(logs) * factor):
            rows.append({"dataset": "benchmark", "construction": construction, "k": k,
                         "coreset_size": k * m, "repetition": i, "seed": 100 + i,
                         "distortion": v, "reducer": "none", "r": np.nan,
                         "total_seconds": 1.0 + 0.01 * i})  # fmt: skip
    return pd.DataFrame(rows)


def _claim(construction: str) -> C.Claim:
    return S.authors_claim("ss22_benchmark", construction)


@pytest.mark.parametrize(
    "construction, factor, spread, verdict",
    [
        # drawn from the authors' own law: shown within ×(1 ± 0.01)
        ("Sensitivity Sampling", 1.0, 1.0, C.HOLDS),
        ("Sensitivity Sampling", 1.2, 1.0, C.FAILS),  # 20% more distortion: beyond the margin
        ("Group Sampling", 1.0, 1.0, C.HOLDS),
        ("Group Sampling", 0.9, 1.0, C.FAILS),  # lower: still not the authors' number
        ("StreamKM++", 1.0, 1.0, C.HOLDS),
        # the same law, five times the authors' spread: neither shown, never "the same"
        ("Sensitivity Sampling", 1.0, 5.0, C.TIE),
    ],
)
def test_beside_the_authors_verdicts(construction, factor, spread, verdict):
    cells = {"ss22_benchmark": _authors_cells(construction, factor, spread)}
    got = C.evaluate(_claim(construction), cells, ROOT / "results")
    assert got.verdict == verdict, got.evidence
    assert "ratio of medians" in got.evidence and "margin ×(1 ± 0.01); ε " in got.evidence
    assert C.TIE == "undecided"
    if verdict == C.TIE:  # undecided says what equivalence these repetitions could show
        assert "could show equivalence within ×(1 ± " in got.evidence
        assert "could detect" not in got.evidence  # an equivalence test detects no difference
    elif verdict == C.HOLDS:
        assert "2 of 2 comparisons for the claim" in got.evidence
    else:
        want = "×1.2" if factor > 1 else "×0.9"
        assert (
            want in got.evidence and "0 of 2 comparisons for the claim, 2 against" in got.evidence
        )


def test_cells_name_constructions_by_kmdrs_registry_names():
    cells = _authors_cells("Group Sampling", 1.25).assign(construction="group")
    got = C.evaluate(_claim("Group Sampling"), {"ss22_benchmark": cells}, ROOT / "results")
    assert got.verdict == C.FAILS and "ratio of medians ×1.2" in got.evidence
    assert set(S.canonical(cells)["construction"]) == {"Group Sampling"}
    from kmdr.coresets import available_coresets

    assert set(S.DISPLAY) <= set(available_coresets())  # every name kmdr runs has its label


def test_an_equivalence_test_shows_less_with_fewer_repetitions():
    def smallest(reps):
        cells = _authors_cells("Sensitivity Sampling", 1.0, reps=reps, seed=3)
        part = S.authors_part(S.canonical(cells), _published()[lambda d: d.algorithm.eq(
            "Sensitivity Sampling")])  # fmt: skip
        low, high = equivalence_interval(part.comparisons[0].test)
        return max(abs(low), abs(high))  # the narrowest margin TOST would meet

    assert smallest(3) > smallest(10) > 0.0


def test_welch_log_matches_scipy_on_the_runs():
    rng = np.random.default_rng(1)
    a, b = rng.normal(0.02, 0.01, 10), rng.normal(0.03, 0.02, 10)
    t = S.welch_log(Sample(a), float(b.mean()), float(b.std(ddof=1)), 10)
    from scipy import stats

    ref = stats.ttest_ind(a, b, equal_var=False)
    assert t.p == pytest.approx(ref.pvalue) and t.log
    low, high = ref.confidence_interval(0.95)
    assert t.ci == pytest.approx((low, high))


@pytest.mark.parametrize("construction", ["BICO"])
def test_constructions_kmdr_does_not_run_are_labelled(construction):
    cells = {"ss22_benchmark": _authors_cells("Sensitivity Sampling", 1.0)}
    got = C.evaluate(_claim(construction), cells, ROOT / "results")
    assert got.verdict == C.NO_DATA and got.evidence.startswith("not run by kmdr: ")


# --------------------------------------------------------------------------------------------
# Reducers before coresets
# --------------------------------------------------------------------------------------------


def _reducer_cells(effect: dict, time_factor: dict, reps: int = REPS, noise: float = 0.002):
    """One construction alone and behind reducer "rp" at r = 5, 20, 80: the distortion of
    repetition i is the unreduced one's times ``effect[r]`` (same seeds: paired) times a small
    noise; the total time is the unreduced one's times ``time_factor[r]``."""
    rng = np.random.default_rng(7)
    base = 1.02 * np.exp(rng.normal(0, 0.01, reps))
    times = 2.0 * np.exp(rng.normal(0, 0.05, reps))
    rows = []
    for i in range(reps):
        rows.append({"dataset": "usps", "construction": "Sensitivity Sampling", "k": 10,
                     "coreset_size": 500, "repetition": i, "seed": i, "distortion": base[i],
                     "reducer": "none", "r": np.nan, "total_seconds": times[i]})  # fmt: skip
        for r, f in effect.items():
            d = base[i] * f * math.exp(rng.normal(0, noise))
            t = times[i] * time_factor[r] * math.exp(rng.normal(0, 0.05))
            rows.append({"dataset": "usps", "construction": "Sensitivity Sampling", "k": 10,
                         "coreset_size": 500, "repetition": i, "seed": i, "distortion": d,
                         "reducer": "rp", "r": r, "total_seconds": t})  # fmt: skip
    return pd.DataFrame(rows)


def _outcomes(verdict: C.Verdict) -> dict[str, str]:
    return {label: outcome for label, outcome, _p, _adj in verdict.outcomes}


def test_reducing_first_costs_accuracy_at_small_r_and_is_free_from_larger_r():
    cells = _reducer_cells({5: 1.10, 20: 1.0, 80: 1.0}, {5: 0.5, 20: 0.6, 80: 1.0})
    free, faster = S.reducer_claims("ss22_reducers_usps", "Sensitivity Sampling")
    v = C.evaluate(free, {"ss22_reducers_usps": cells})
    got = _outcomes(v)
    assert got["usps, k = 10, m = 50, rp r = 5"] == AGAINST
    assert got["usps, k = 10, m = 50, rp r = 20"] == FOR
    assert got["usps, k = 10, m = 50, rp r = 80"] == FOR
    assert v.verdict == C.FAILS and "paired" in v.evidence
    assert "Sensitivity to kmdr's tolerance" in v.evidence
    t = _outcomes(C.evaluate(faster, {"ss22_reducers_usps": cells}))
    assert t["usps, k = 10, m = 50, rp r = 5"] == FOR
    assert t["usps, k = 10, m = 50, rp r = 80"] == NOT_SIGNIFICANT


def test_slower_and_beyond_the_margin_both_ways_are_against():
    cells = _reducer_cells({5: 0.9, 20: 1.0, 80: 1.0}, {5: 2.0, 20: 1.0, 80: 1.0})
    free, faster = S.reducer_claims("e", "Sensitivity Sampling")
    assert _outcomes(C.evaluate(free, {"e": cells}))["usps, k = 10, m = 50, rp r = 5"] == AGAINST
    assert _outcomes(C.evaluate(faster, {"e": cells}))["usps, k = 10, m = 50, rp r = 5"] == AGAINST


def test_too_noisy_to_show_equivalence_is_not_counted_for():
    cells = _reducer_cells({5: 1.0, 20: 1.0, 80: 1.0}, {5: 1, 20: 1, 80: 1}, reps=3, noise=0.03)
    free, _ = S.reducer_claims("e", "Sensitivity Sampling")
    v = C.evaluate(free, {"e": cells})
    assert v.verdict == C.TIE, v.evidence


@pytest.mark.parametrize(
    "rs, shown, first",
    [
        ([5, 20, 80], [False, True, True], 20),
        ([80, 5, 20], [True, False, True], 20),
        ([5, 20, 80], [True, False, True], 80),
        ([5, 20, 80], [True, True, False], None),
        ([5, 20, 80], [True, True, True], 5),
    ],
)
def test_first_equivalent_r(rs, shown, first):
    assert S.first_equivalent_r(rs, shown) == first


def test_canonical_reads_aliases_and_sums_the_times():
    cells = pd.DataFrame(
        {"dataset": ["a", "a"], "method": ["x", "x"], "n_clusters": [4, 4],
         "coreset_size": [200, 200], "reducer": [None, "rp"], "r": [3.0, 3.0],
         "repetition": [0, 0], "distortion": [1.1, 1.2], "reduce_seconds": [0.0, 0.5],
         "coreset_seconds": [1.0, 0.5], "solve_seconds": [0.25, 0.25]}
    )  # fmt: skip
    got = S.canonical(cells)
    assert list(got["m"]) == [50, 50] and list(got["reducer"]) == ["", "rp"]
    assert math.isnan(got["r"].iloc[0]) and got["r"].iloc[1] == 3.0
    assert list(got["total_seconds"]) == [1.25, 1.25]


def test_the_claims_follow_the_presets_sections(tmp_path):
    folder = tmp_path / "experiment"
    folder.mkdir()
    presets = {
        "ss22_benchmark": "ss22_authors",
        "ss22_usps": "ss22_authors",
        "ss22_reducers_usps": "ss22_reducers",
        "bzmd14_orl": "curves",
    }
    runs = {
        "ss22_benchmark": ("ss22_benchmark", "[sensitivity, ray_maker]"),
        "ss22_usps": ("usps", "[sensitivity, ray_maker]"),
        "ss22_reducers_usps": ("usps", "[uniform, streamkm]"),
        "bzmd14_orl": ("orl", "[]"),
    }
    for name, section in presets.items():
        dataset, constructions = runs[name]
        (folder / f"{name}.yaml").write_text(
            f"# @package _global_\ndefaults:\n  - override /dataset: {dataset}\nname: {name}\n"
            f"preset:\n  section: {section}\nkind_params:\n  constructions: {constructions}\n"
        )
    (folder / "notes.txt").write_text("not a preset")
    got = S.presets_by_section([folder, tmp_path / "absent"])
    assert got == {
        "ss22_authors": ["ss22_benchmark", "ss22_usps"],
        "ss22_reducers": ["ss22_reducers_usps"],
    }
    claims = S.ss22_claims([folder])
    ids = [c.id for c in claims]
    assert len(ids) == len(set(ids))
    # one claim per construction across the presets on the authors' instances (usps is not
    # one: it has no published number, and a claim on it could never have data)
    assert {c.experiment for c in claims} == {"ss22_benchmark", "ss22_reducers_usps"}
    by_id = {c.id: c for c in claims}
    assert by_id["ss22-ray-maker-as-authors"].experiments == ("ss22_benchmark",)
    assert not any("bico" in i or "group" in i for i in ids)  # not run (by kmdr, or here)
    assert "ss22_reducers_usps-streamkm-reducer-free" in ids
    assert "ss22_reducers_usps-uniform-sampling-reducer-faster" in ids
    assert "ss22_reducers_usps-ray-maker-reducer-free" not in ids  # the preset does not run it
    assert all(c.reads for c in claims if c.id.endswith("-as-authors"))
