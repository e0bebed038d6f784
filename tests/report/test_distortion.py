"""The theory section's distortion of the partitions found by oblivious maps, against r: MMR19's
shape, its fitted c, the claim's comparisons, and the committed CSV against the cells."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kmdr.report import distortion as D
from kmdr.report.claims.verdicts import FAILS, HOLDS, decide

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("r", "k", "c"),
    [(10, 5, 1.0), (100, 40, 0.5), (1000, 68, 2.0), (5, 3, 0.01)],
)
def test_mmr_eps_solves_the_shape_and_c_through_inverts_it(r, k, c):
    eps = D.mmr_eps(r, k, c)
    assert eps**2 * r == pytest.approx(c * math.log(k / eps), rel=1e-9)
    assert D.c_through(eps, r, k) == pytest.approx(c, rel=1e-9)
    assert D.mmr_eps(4 * r, k, c) < eps < D.mmr_eps(r, k, 2 * c)  # falls with r, grows with c


def _table(shape, *, c: float = 0.3, noise: float = 0.05, reps: int = 6, seed: int = 0):
    """Cells of two 'experiments' (k = 40 at d = 4096 and 10304, RP) and one of k = 5, with a
    distortion ``shape(r, k)`` times log-normal noise per repetition."""
    rng = np.random.default_rng(seed)
    rows = []
    for exp, k, d in (
        ("bzmd14_orl", 40, 4096),
        ("report_orl_projections", 40, 10304),
        ("bzmd14_synth", 5, 2000),
    ):
        for rep in range(reps):
            wobble = math.exp(rng.normal(0, noise))
            for r in (5, 10, 20, 50, 100):
                rows.append(
                    {
                        "experiment": exp,
                        "dataset": exp,
                        "method": "RP",
                        "reducer_name": "sign",
                        "r": r,
                        "repetition": rep,
                        "n_clusters": k,
                        "n_features": d,
                        "distortion": shape(r, k, c) * wobble,
                    }
                )
    return pd.DataFrame(rows)


def test_fit_c_recovers_the_c_of_data_on_the_shape():
    table = _table(D.mmr_eps, c=0.3, noise=0.0)
    assert D.fit_c(table) == pytest.approx(0.3, rel=1e-3)


@pytest.mark.parametrize(
    ("shape", "verdicts"),
    [
        pytest.param(D.mmr_eps, [HOLDS, HOLDS, HOLDS], id="on MMR19's shape: all hold"),
        pytest.param(
            lambda r, k, c: r**-1.0,
            [HOLDS, HOLDS, HOLDS],
            id="faster than the shape, same c at every k: all hold",
        ),
        pytest.param(lambda r, k, c: 0.2, [FAILS, HOLDS, HOLDS], id="flat in r: the pace fails"),
        pytest.param(
            lambda r, k, c: D.mmr_eps(r, k, c) * (1 + k / 10),
            [HOLDS, HOLDS, FAILS],
            id="growing with k beyond the shape: 'k alone' fails",
        ),
    ],
)
def test_the_claims_by_the_reports_rule(shape, verdicts):
    parts = D.claim_parts(_table(shape))
    labels = [[c.label for c in part.comparisons] for part in parts]
    assert labels == [
        ["bzmd14_orl RP", "bzmd14_synth RP", "report_orl_projections RP"],
        ["d: 4096 vs 10304 at k = 40 (RP)"],
        ["k: 5 vs 40 (RP, other data)"],
    ]
    assert [decide(part).verdict for part in parts] == verdicts


def test_slopes_are_per_repetition():
    table = _table(lambda r, k, c: r**-0.5, noise=0.0)
    per = D.slopes(table)
    assert len(per) == 3 * 6 and np.allclose(per["slope"], -0.5)


@pytest.mark.slow
def test_the_committed_csv_is_the_cells_and_the_section_shows_it():
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
    text = D.section_distortion(ROOT / "results")
    assert text.startswith("### How few dimensions suffice")
    assert f"![Distortion against r]({D.FIGURE})" in text and "STOC 2019" in text
    assert "| falls at least as fast as MMR19's shape " in text and "c = " in text


@pytest.mark.slow
def test_the_script_recomputes_the_committed_rows():
    """scripts/distortion.py's measure() on bzmd14_synth (generated data, no file) gives the
    committed rows: the same ||C||², hence the same distortion, and the partition reproduced."""
    spec = importlib.util.spec_from_file_location("distortion", ROOT / "scripts" / "distortion.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    fresh = script.measure(ROOT / "results" / "bzmd14_synth")
    committed = pd.read_csv(ROOT / "results" / D.CSV)
    committed = committed[committed["experiment"] == "bzmd14_synth"].reset_index(drop=True)
    assert list(fresh["cell_id"]) == list(committed["cell_id"])
    assert np.allclose(fresh["norm_C2"], committed["norm_C2"], rtol=1e-5)
    # the CSV keeps the distortion to 6 significant digits (the script says why)
    assert np.allclose(fresh["distortion"], committed["distortion"], rtol=1e-5)
    assert fresh["reproduced"].dropna().astype(bool).tolist() == [True]
