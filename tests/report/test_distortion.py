"""The theory section's distortion of oblivious maps against r: MMR19's shape and the margin its
log factor gives the slope, the fixed partitions' claims (equivalence tests on the slope and on
c, every eligible pair), the found partitions as their own line, and the committed CSVs against
the cells."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kmdr.report import distortion as D
from kmdr.report.claims.verdicts import FAILS, HOLDS, TIE, decide

ROOT = Path(__file__).resolve().parents[2]
GRID = (5, 10, 20, 50, 100, 200)


@pytest.mark.parametrize(
    ("r", "k", "c"),
    [(10, 5, 1.0), (100, 40, 0.5), (1000, 68, 2.0), (5, 3, 0.01)],
)
def test_mmr_eps_solves_the_shape_and_c_through_inverts_it(r, k, c):
    eps = D.mmr_eps(r, k, c)
    assert eps**2 * r == pytest.approx(c * math.log(k / eps), rel=1e-9)
    assert D.c_through(eps, r, k) == pytest.approx(c, rel=1e-9)
    assert D.mmr_eps(4 * r, k, c) < eps < D.mmr_eps(r, k, 2 * c)  # falls with r, grows with c


@pytest.mark.parametrize(("k", "c"), [(5, 0.05), (5, 1.0), (20, 0.3), (68, 0.03), (68, 3.0)])
def test_the_shapes_slope_lies_within_the_log_factors_margin_of_minus_a_half(k, c):
    """The least-squares slope of MMR19's shape over r is in [-1/2, -1/2 + δ], δ taken at the
    largest ε of the range (the smallest r)."""
    eps = np.array([D.mmr_eps(r, k, c) for r in GRID])
    slope = np.polyfit(np.log(GRID), np.log(eps), 1)[0]
    delta = D.slope_margin(k, float(eps.max()))
    assert -0.5 < slope <= -0.5 + delta
    assert 0 < delta < 0.5 / (2 * math.log(k / eps.max()))  # below 1/(4L): the margin is tight


def _fixed(shape, groups, *, reps=8, noise=0.02, seed=0, c=0.3):
    """A fixed-partition table: ``groups`` of (dataset, reducer, k, d), each repetition's cells
    ``shape(r, k, c)`` times per-cell log-normal noise, as the signed distortion of two
    partitions (k-means on A, and a random one at half of it)."""
    rng = np.random.default_rng(seed)
    rows = []
    for dataset, reducer, k, d in groups:
        for rep in range(reps):
            for r in GRID:
                eps = shape(r, k, c) * math.exp(rng.normal(0, noise))
                sign = 1 if (rep + r) % 2 else -1
                rows.append(
                    {"dataset": dataset, "reducer_name": reducer, "methods": "RP",
                     "experiments": f"x_{dataset}", "r": r, "repetition": rep,
                     "seed": hash((dataset, reducer, r, rep)) % 10**6, "n_samples": 100,
                     "n_features": d, "n_clusters": k, "kmeans_A": sign * eps,
                     "random_0": -sign * eps / 2}
                )  # fmt: skip
    return pd.DataFrame(rows)


GROUPS = [("a", "sign", 5, 100), ("b", "sign", 40, 400), ("c", "sign", 40, 900)]


def test_fixed_eps_is_the_largest_partition_or_the_mean_of_one_kind():
    table = _fixed(lambda r, k, c: 0.2, GROUPS[:1], reps=1, noise=0.0)
    assert np.allclose(D.fixed_eps(table)["distortion"], 0.2)
    assert np.allclose(D.fixed_eps(table, "random")["distortion"], 0.1)
    assert "kmeans_A" not in D.fixed_eps(table).columns


@pytest.mark.parametrize(
    ("groups", "d_pairs", "k_pairs"),
    [
        pytest.param(GROUPS, ["d: 400 vs 900 at k = 40 (sign)"],
                     ["k: 5 vs 40 (sign, other data)", "k: 5 vs 40 (sign, other data)"],
                     id="one pair at the same k, every pair at different k"),
        pytest.param([("a", "sign", 5, 100), ("b", "sparse_embedding", 40, 400)], [], [],
                     id="two maps: no pair"),
        pytest.param([("a", "sign", 5, 100), ("b", "sign", 5, 100)], [], [],
                     id="same k and d: neither"),
        pytest.param([("a", "sign", 5, 100), ("b", "sign", 10, 100), ("c", "sign", 20, 100)], [],
                     ["k: 5 vs 10 (sign, other data)", "k: 5 vs 20 (sign, other data)",
                      "k: 10 vs 20 (sign, other data)"], id="three k: three pairs"),
    ],
)  # fmt: skip
def test_every_eligible_pair_is_compared(groups, d_pairs, k_pairs):
    found_d, found_k = D.c_pairs(_fixed(D.mmr_eps, groups, reps=2))
    assert [label for label, *_ in found_d] == d_pairs
    assert [label for label, *_ in found_k] == k_pairs


@pytest.mark.parametrize(
    ("shape", "reps", "noise", "verdicts"),
    [
        # the pool of three groups is random-effects: their slopes differ (I² near 1), so
        # three groups cannot show the mean within its margin, though each group's is
        pytest.param(D.mmr_eps, 8, 0.02, [HOLDS, TIE, HOLDS, HOLDS],
                     id="on MMR19's shape, one c: all hold but the pool of three groups"),
        pytest.param(lambda r, k, c: 0.3 * r**-1.0, 8, 0.02, [FAILS, FAILS, HOLDS, HOLDS],
                     id="r^-1: the slope fails, c still agrees within x2 where the k differ"),
        pytest.param(lambda r, k, c: D.mmr_eps(r, k, c) * (1 + k / 5), 8, 0.02,
                     [HOLDS, HOLDS, HOLDS, FAILS], id="growing with k: 'k alone' fails"),
        pytest.param(lambda r, k, c: D.mmr_eps(r, k, c) * (1 + (k == 40)), 8, 0.02,
                     [HOLDS, HOLDS, HOLDS, FAILS], id="c x4 at k = 40 only: 'k alone' fails"),
        pytest.param(D.mmr_eps, 3, 1.0, [TIE, TIE, TIE, TIE],
                     id="noisy, three repetitions: nothing shown either way"),
    ],
)  # fmt: skip
def test_the_claims_by_the_reports_rule(shape, reps, noise, verdicts):
    """The equivalence tests: a claim holds only where every TOST is significant; outside the
    margin and significant it fails; noise at small n is a tie, never 'holds'."""
    parts = D.claim_parts(_fixed(shape, GROUPS, reps=reps, noise=noise))
    labels = [[c.label for c in part.comparisons] for part in parts]
    assert labels == [
        ["a RP", "b RP", "c RP"],
        ["every dataset and map"],
        ["d: 400 vs 900 at k = 40 (sign)"],
        ["k: 5 vs 40 (sign, other data)", "k: 5 vs 40 (sign, other data)"],
    ]
    assert [decide(part).verdict for part in parts] == verdicts


@pytest.mark.parametrize(
    ("offset", "favours"), [(0.0, True), (0.04, True), (-0.04, True), (0.3, False)]
)
def test_a_slope_comparison_favours_the_claim_only_inside_the_margin(offset, favours):
    """The margin is δ of the shape's log factor: a slope within it favours, beyond it not."""
    values = np.array([-0.5 + offset + e for e in (-0.01, 0.0, 0.01, 0.005, -0.005)])
    comp = D._slope_comparison("x", D.Sample(values), 0.06)
    assert comp.favours is favours
    assert comp.p < 0.05


def test_slopes_are_per_repetition():
    table = D.fixed_eps(_fixed(lambda r, k, c: r**-0.5, GROUPS, reps=6, noise=0.0))
    per = D.slopes(table, D.FIXED_GROUP)
    assert len(per) == 3 * 6 and np.allclose(per["slope"], -0.5)


def test_the_held_out_c_is_fitted_on_even_repetitions_and_checked_on_odd():
    table = D.fixed_eps(_fixed(D.mmr_eps, GROUPS, reps=6, noise=0.0, c=0.3))
    held = D.held_out_c(table)
    assert held["c"] == pytest.approx(0.3, rel=1e-3)
    assert held["ratio"] == pytest.approx(1.0, rel=1e-3)
    assert held["n"] == 3 * 3 * len(GRID)


def test_found_partitions_that_are_one_measurement_are_kept_once():
    row = {"method": "RP", "reducer_name": "sign", "dataset": "s", "n_clusters": 5,
           "n_features": 10, "r": 5, "repetition": 0, "distortion": 0.1}  # fmt: skip
    found = pd.DataFrame(
        [{**row, "experiment": "bzmd14_synth"}, {**row, "experiment": "bzmd14_online_phase_synth"},
         {**row, "experiment": "bzmd14_synth_kmeanspp", "distortion": 0.2}]
    )  # fmt: skip
    # kept: the first by preset order (the paper's experiment), whatever the names' order
    order = {"bzmd14_synth": 100.0, "bzmd14_synth_kmeanspp": 120.0,
             "bzmd14_online_phase_synth": 125.0}  # fmt: skip
    kept = D.found_groups(found, order)
    assert sorted(kept["experiment"]) == ["bzmd14_synth", "bzmd14_synth_kmeanspp"]
    also = kept.set_index("experiment")["also"]
    assert (
        also["bzmd14_synth"] == "bzmd14_online_phase_synth" and also["bzmd14_synth_kmeanspp"] == ""
    )


# --------------------------------------------------------------------------------------------
# The committed files
# --------------------------------------------------------------------------------------------


def test_the_fixed_slope_recomputed_from_the_committed_csv():
    """Independently of the module: per (dataset, map) and repetition, numpy's least-squares
    slope of log(largest |signed distortion| over the fixed partitions) on log r; their mean is
    the section's, and the section prints it."""
    raw = pd.read_csv(ROOT / "results" / D.FIXED_CSV)
    # one computation, one row: no (dataset, map, r, seed) twice
    assert not raw.duplicated(["dataset", "reducer_name", "r", "seed"]).any()
    assert {"bzmd14_synth", "bzmd14_online_phase_synth"} <= set(
        raw.loc[raw["dataset"] == "synth", "experiments"].iloc[0].split()
    )
    parts = [c for c in raw.columns if c.startswith(("kmeans_A", "perturbed_", "random_"))]
    assert len(parts) == 17
    eps = raw[parts].abs().max(axis=1)
    mine = {}
    for (dataset, reducer), part in raw.assign(eps=eps).groupby(["dataset", "reducer_name"]):
        per_rep = [
            np.polyfit(np.log(rep["r"]), np.log(rep["eps"]), 1)[0]
            for _, rep in part.groupby("repetition")
        ]
        mine[(dataset, reducer)] = float(np.mean(per_rep))
    theirs = D.slopes(D.fixed_eps(raw), D.FIXED_GROUP).groupby(D.FIXED_GROUP)["slope"].mean()
    assert theirs.to_dict() == pytest.approx(mine, abs=1e-12)
    pool = D.slope_pool(D._group_slopes(raw))
    text = D.section_distortion(ROOT / "results")
    assert f"slope is {pool.mean:+.3f} [" in text
    assert f"I² = {pool.i2:.0%}" in text and "prediction interval" in text
    # fixed partitions split their signs; the partitions found on C are nearly all below
    assert 0.3 < float((raw["kmeans_A"] < 0).mean()) < 0.7


def test_the_section_reads_right():
    text = D.section_distortion(ROOT / "results")
    assert text.startswith("### How few dimensions suffice")
    assert f"![Distortion against r]({D.FIGURE})" in text and "STOC 2019" in text
    for gone in ("upper envelope", "puts 95% of the cells", "MMR19 r at that ε"):
        assert gone not in text
    assert "fitted on the even repetitions, a description of the cloud, not a bound" in text
    # the diagnostics that repeat a paper experiment's maps are no pair of their own
    assert "online_phase" not in text.split("| claim (what the data show)")[1]
    for title, _ in D.CLAIMS:
        assert f"| {title} " in text


@pytest.mark.slow
def test_the_committed_found_csv_is_the_cells():
    table = pd.read_csv(ROOT / "results" / D.CSV)
    assert set(table["reducer_name"]) == {
        "sign",
        "gaussian",
        "achlioptas",
        "sparse_embedding",
        "srht",
    }
    assert table["reproduced"].dropna().astype(bool).all()
    cost_ratio = table["cost_C"] / table["cost_A"]
    # the CSV keeps its measured columns to 6 significant digits (the script says why)
    assert np.allclose(table["distortion"], (cost_ratio - 1).abs(), rtol=1e-5, atol=1e-5)
    # the CSV's F columns are the committed cells' (same cell ids, same values)
    for exp, part in table.groupby("experiment"):
        cells = pd.read_csv(ROOT / "results" / exp / "cells.csv").set_index("cell_id")
        own = cells.loc[part["cell_id"]]
        assert np.allclose(own["objective"], part["objective"], rtol=1e-9)
        assert np.allclose(own["objective_reduced"], part["objective_reduced"], rtol=1e-9)


@pytest.mark.slow
def test_the_script_recomputes_the_committed_rows():
    """scripts/distortion.py's measure() on bzmd14_synth (generated data, no file) gives the
    committed rows of both files: the same ||C||², hence the same distortion of the found
    partitions, the partition reproduced, and the same fixed-partition distortions."""
    spec = importlib.util.spec_from_file_location("distortion", ROOT / "scripts" / "distortion.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    fixed = script.Fixed()
    fresh = script.measure(ROOT / "results" / "bzmd14_synth", fixed)
    committed = pd.read_csv(ROOT / "results" / D.CSV)
    committed = committed[committed["experiment"] == "bzmd14_synth"].reset_index(drop=True)
    assert list(fresh["cell_id"]) == list(committed["cell_id"])
    assert np.allclose(fresh["norm_C2"], committed["norm_C2"], rtol=1e-5)
    # the CSV keeps the distortion to 6 significant digits (the script says why)
    assert np.allclose(fresh["distortion"], committed["distortion"], rtol=1e-5)
    assert fresh["reproduced"].dropna().astype(bool).tolist() == [True]
    new = fixed.table().set_index(["r", "seed"])
    old = pd.read_csv(ROOT / "results" / D.FIXED_CSV)
    old = old[old["dataset"] == "synth"].set_index(["r", "seed"]).loc[new.index]
    assert np.allclose(new[list(script.PARTITIONS)], old[list(script.PARTITIONS)], rtol=1e-5)


@pytest.mark.parametrize("sparse", [False, True])
def test_a_partitions_cost_keeps_its_digits_where_the_partition_fits(sparse):
    """Planted clusters far apart, as Synth's: the cost is the squared distances to the cluster
    means summed exactly (math.fsum), to 1e-12, where ||M||² less the means' part loses six
    digits of its sixteen."""
    import math

    import scipy.sparse as sp

    spec = importlib.util.spec_from_file_location("distortion", ROOT / "scripts" / "distortion.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    rng = np.random.default_rng(0)
    labels = np.repeat(np.arange(4), 50)
    M = 1e3 * rng.standard_normal((4, 30))[labels] + rng.standard_normal((200, 30))
    shuffled = rng.permutation(labels)
    exact = []
    for part in (labels, shuffled):
        means = np.vstack([M[part == j].mean(axis=0) for j in range(4)])
        exact.append(math.fsum(((M - means[part]) ** 2).ravel()))
    got = script.partition_costs(sp.csr_matrix(M) if sparse else M, np.vstack([labels, shuffled]))
    assert got == pytest.approx(exact, rel=1e-12)
