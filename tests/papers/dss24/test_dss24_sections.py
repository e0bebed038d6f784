"""The dss24 section beside the authors, on cells built here (of known truth): each verdict
reachable (equivalent, kmdr higher or lower, undecided), Holm within a family, the matching of
kmdr's cells to the authors' rows (j, γ, merge-and-reduce, no reducer), the Lloyd table's ratios,
why a row has no kmdr number, and the code-versus-text table present, malformed or absent."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kmdr.papers.dss24 import published as P
from kmdr.papers.dss24 import sections as S
from kmdr.report.sections import ReportContext
from kmdr.stats import holm

RESULTS = Path(__file__).resolve().parents[3] / "results"


def _published(*rows: dict) -> pd.DataFrame:
    """A published table as :func:`~kmdr.papers.dss24.published.published` returns it."""
    base = {"table": "distortion", "in_draft": True, "dataset": "Benchmark",
            "method": "Fast Coreset", "construction": "fast_coreset",
            "kmdr_dataset": "dss24_benchmark", "j_centers": 0, "k": 100, "m_scalar": "40",
            "gamma": "", "setting": "static", "mean": 1.10, "sd": 0.001, "n": 5.0}  # fmt: skip
    return pd.DataFrame([{**base, **row} for row in rows])


def _cells(
    values,
    construction="fast_coreset",
    dataset="dss24_benchmark",
    k=100,
    m=40,
    params=None,
    gamma=None,
    solve="seedings",
    column="distortion",
    reducer="none",
):
    """Coreset cells as the coresets kind writes them, one per value (its repetition)."""
    return pd.DataFrame(
        {"dataset": dataset, "construction": construction, "n_clusters": k,
         "coreset_size_factor": m, "coreset_size": m * k,
         "coreset": json.dumps({"name": construction, "params": params or {}, "size": m * k}),
         "dataset_params": json.dumps({} if gamma is None else {"gamma": gamma}),
         "reducer_name": reducer, "solve": solve, "repetition": rep, column: v}
        for rep, v in enumerate(values)
    )  # fmt: skip


def _noisy(centre, sd=0.0005, n=5, seed=0):
    return centre + np.random.default_rng(seed).normal(0, sd, n)


def _one(table, cells) -> dict:
    (row,) = S.compare(table, S.kmdr_cells(cells))
    return row


@pytest.mark.parametrize(
    ("theirs", "sd", "n", "ours", "verdict"),
    [
        (1.10, 0.001, 5, _noisy(1.10), S.EQUIVALENT),
        (1.10, 0.001, 5, _noisy(1.30), S.HIGHER),
        (2.00, 0.001, 5, _noisy(1.50), S.LOWER),
        # the sd a printed variance of 0.0 allows at 3 runs: nothing at ±1% can be shown
        (1.10, P.sd_bound("0.0", 3), 3, _noisy(1.10), S.UNDECIDED),
        (1.10, P.sd_bound("0.0", 3), 3, _noisy(1.11), S.UNDECIDED),
    ],
)
def test_each_verdict_is_reachable(theirs, sd, n, ours, verdict):
    row = _one(_published({"mean": theirs, "sd": sd, "n": float(n)}), _cells(ours))
    assert row["verdict"] == verdict
    assert row["p_holm"] == pytest.approx(row["test"].p)  # a family of one


def test_a_table_of_means_only_is_tested_against_a_fixed_value():
    table = _published({"table": "class_imbalance", "dataset": "Gaussian Mix.",
                        "kmdr_dataset": "dss24_gaussian_mixture", "gamma": "5", "mean": 1.12,
                        "sd": math.nan})  # fmt: skip
    row = _one(table, _cells(_noisy(1.12), dataset="dss24_gaussian_mixture", gamma=5))
    assert row["fixed"] and row["verdict"] == S.EQUIVALENT
    assert "taken as exact" in S._cells_of(row)[-1]


def test_holm_runs_within_one_table_and_construction():
    table = _published({"m_scalar": "40"}, {"m_scalar": "80"}, {"method": "Lightweight",
                       "construction": "lightweight"})  # fmt: skip
    cells = pd.concat([_cells(_noisy(1.11, seed=1)), _cells(_noisy(1.105, seed=2), m=80),
                       _cells(_noisy(1.10, seed=3), construction="lightweight")])  # fmt: skip
    rows = S.compare(table, S.kmdr_cells(cells))
    fast = [r for r in rows if r["construction"] == "fast_coreset"]
    expected = holm([r["test"].p for r in fast])
    assert [r["p_holm"] for r in fast] == pytest.approx(list(expected))
    assert {r["family"] for r in fast} == {2}
    (light,) = [r for r in rows if r["construction"] == "lightweight"]
    assert light["family"] == 1 and light["p_holm"] == pytest.approx(light["test"].p)


@pytest.mark.parametrize(
    ("row", "cells", "matched"),
    [
        # a welterweight coreset's j: "log" is ln(100) -> 4 centers, the published j = log k
        ({"method": "Welterweight", "construction": "welterweight", "j_centers": 4},
         {"construction": "welterweight", "params": {"j": "log"}}, True),
        ({"method": "Welterweight", "construction": "welterweight", "j_centers": 4},
         {"construction": "welterweight", "params": {"j": 2}}, False),
        # γ: the class-imbalance column, on the Gaussian mixture's parameters
        ({"dataset": "Gaussian Mix.", "kmdr_dataset": "dss24_gaussian_mixture", "gamma": "5"},
         {"dataset": "dss24_gaussian_mixture", "gamma": 5}, True),
        ({"dataset": "Gaussian Mix.", "kmdr_dataset": "dss24_gaussian_mixture", "gamma": "0"},
         {"dataset": "dss24_gaussian_mixture", "gamma": 5}, False),
        # merge-and-reduce over blocks is the composition table's streaming column
        ({"table": "composition", "setting": "streaming", "m_scalar": "20"},
         {"construction": "merge_reduce", "m": 20,
          "params": {"construction": "fast_coreset", "params": {}, "n_blocks": 16}}, True),
        ({"table": "composition", "setting": "static", "m_scalar": "20"},
         {"construction": "merge_reduce", "m": 20,
          "params": {"construction": "fast_coreset", "params": {}, "n_blocks": 16}}, False),
        ({"table": "composition", "setting": "static", "m_scalar": "20"},
         {"m": 20}, True),
        # another loader of the same data: ss22's Cover Type is the authors' Cover-Type
        ({"dataset": "Cover-Type", "kmdr_dataset": "dss24_covertype", "k": 500},
         {"dataset": "ss22_covertype", "k": 500}, True),
        # a reducer in front is not the authors' pipeline
        ({}, {"reducer": "gaussian"}, False),
        ({}, {"k": 50}, False),
    ],
)  # fmt: skip
def test_cells_are_matched_to_the_authors_row(row, cells, matched):
    found = _one(_published(row), _cells(_noisy(1.10), **cells))
    assert (found["sample"] is not None) == matched


def test_lloyd_costs_are_set_against_uniform_in_the_same_row():
    base = {"table": "lloyd", "dataset": "MNIST", "kmdr_dataset": "dss24_mnist", "sd": math.nan,
            "n": math.nan}  # fmt: skip
    table = _published(
        {**base, "method": "Uniform Sampling", "construction": "uniform", "mean": 12000.0},
        {**base, "mean": 10800.0},
    )
    lloyd = {"dataset": "dss24_mnist", "solve": "lloyd", "column": "objective_centers"}
    cells = pd.concat([_cells([0.50] * 5, construction="uniform", **lloyd),
                       _cells(0.45 * _noisy(1.0, 0.0005), **lloyd)])  # fmt: skip
    uniform, fast = S.compare(table, S.kmdr_cells(cells))
    assert uniform["sample"] is None and "reference" in uniform["why"]
    assert fast["theirs"] == pytest.approx(0.9)
    assert fast["sample"].mean == pytest.approx(0.9, rel=1e-3)
    assert fast["verdict"] == S.EQUIVALENT


@pytest.mark.parametrize(
    ("row", "why"),
    [
        ({"method": "BICO", "construction": "bico"}, "not run here (no cell of it"),
        ({"dataset": "Adult", "kmdr_dataset": "dss24_adult"}, "needs a download"),
        ({"table": "log_delta", "dataset": "log Delta testbed", "kmdr_dataset": "",
          "method": "Fast-kmeans++", "construction": "fast_kmeanspp"}, "timed by kmdr's bench"),
        ({}, "not run here (no cell of it"),
    ],
)  # fmt: skip
def test_a_row_without_kmdr_number_says_why(row, why):
    found = _one(_published(row), _cells(_noisy(1.1), dataset="dss24_geometric"))
    assert found["sample"] is None and why in found["why"]
    assert why in S._cells_of(found)[-1]


def test_one_seedings_distortion_is_read_where_the_cells_have_it():
    cells = _cells(_noisy(1.30)).assign(distortion_first=_noisy(1.10))
    row = _one(_published({}), cells)
    assert row["sample"].mean == pytest.approx(1.10, abs=0.002)
    assert row["verdict"] == S.EQUIVALENT


def test_the_authors_numbers_are_set_beside_their_codes_measure_and_the_texts_shown():
    cells = _cells(_noisy(1.30)).assign(
        distortion_first=_noisy(1.20), distortion_code_means=_noisy(1.10),
        distortion_coreset_solution=_noisy(1.50),
    )  # fmt: skip
    row = _one(_published({}), cells)
    assert row["sample"].mean == pytest.approx(1.10, abs=0.002) and row["measure"] == "code"
    assert row["text_measure"].mean == pytest.approx(1.50, abs=0.002)
    shown = S._cells_of(row)
    assert shown[4].startswith("1.1 (n = 5") and shown[5] == "1.5"


def test_a_cells_construction_is_its_rows_steps_name_not_its_label():
    # the coresets kind labels a construction with parameters "welterweight(j=log)"
    cells = _cells(_noisy(1.10), construction="welterweight", params={"j": "log"})
    cells["construction"] = "welterweight(j=log)"
    found = S.kmdr_cells(cells)
    assert set(found["construction"]) == {"welterweight"} and set(found["j_centers"]) == {4}


def test_the_authors_code_runs_beside_the_texts_construction_as_a_row_of_its_own():
    cells = pd.concat([_cells(_noisy(1.10)), _cells(_noisy(1.40), "fast_coreset_code")])
    rows = S.compare(_published({}), S.kmdr_cells(cells))
    by = {r["construction"]: r for r in rows}
    assert set(by) == {"fast_coreset", "fast_coreset_code"}
    assert by["fast_coreset_code"]["method"].endswith("(the authors' code)")
    assert by["fast_coreset_code"]["sample"].mean == pytest.approx(1.40, abs=0.002)
    # without the code's cells there is no such row
    assert len(S.compare(_published({}), S.kmdr_cells(_cells(_noisy(1.10))))) == 1


def test_only_the_tables_the_draft_inputs_are_compared():
    table = _published({}, {"in_draft": False})
    assert len(S.compare(table, S.kmdr_cells(pd.DataFrame()))) == 1


class _Exp:
    """What the section reads of an experiment (:class:`kmdr.report.experiments.Experiment`)."""

    def __init__(self, name: str, cells: pd.DataFrame):
        self.name, self.cells = name, cells

    @property
    def has_cells(self) -> bool:
        return len(self.cells) > 0


@pytest.fixture
def root(tmp_path):
    shutil.copytree(RESULTS / P.TABLE.parent, tmp_path / P.TABLE.parent)
    return tmp_path


def test_the_section_without_cells_shows_every_table_and_says_why(root):
    text = S.render_authors(root, [], ReportContext())
    assert "**No kmdr cell**" in text
    for title in P.TABLES.values():
        assert f"### {title}" in text
    assert "90 published numbers: 90 no kmdr number" in text
    assert f"`{S.CODE_VS_TEXT}` is absent" in text


def test_the_section_sets_kmdrs_cells_beside_the_authors(root):
    cells = _cells(_noisy(1.15), dataset="dss24_benchmark")
    text = S.render_authors(root, [_Exp("dss24_distortion", cells)], ReportContext())
    (line,) = [t for t in text.splitlines() if t.startswith("| Benchmark") and "Δ 95% CI" in t]
    assert "Fast Coreset" in line and "1.15 (sd ≤ 0.0866, n = 3)" in line
    assert "undecided (could show" in line


def test_the_section_without_the_published_table_says_so(tmp_path):
    text = S.render_authors(tmp_path, [], ReportContext())
    assert "**No published table**" in text


def test_the_code_versus_text_table_reads_its_file(root):
    pd.DataFrame(
        {"difference": ["tree distances after the first center"], "check": ["5,000 points"],
         "text_value": [1.0], "code_value": [2.75], "ratio": [2.75],
         "note": ["exact tree costs against the code's"]}
    ).to_csv(root / S.CODE_VS_TEXT, index=False)  # fmt: skip
    text = S.render_authors(root, [], ReportContext())
    assert "| difference" in text and "confirmed by" in text
    assert "text 1, code 2.75 (code / text ×2.75); exact tree costs" in text


def test_a_malformed_code_versus_text_file_is_named_not_a_crash(root):
    pd.DataFrame({"difference": ["x"]}).to_csv(root / S.CODE_VS_TEXT, index=False)
    text = S.render_authors(root, [], ReportContext())
    assert "lacks the columns check, text_value" in text


def test_the_speed_claims_are_read_from_the_bench_or_said_absent(root):
    absent = "\n".join(S._speed(root))
    assert "No bench here" in absent
    (root / "bench").mkdir()
    for name in (S.GROWTH, S.LOG_DELTA):
        shutil.copy(RESULTS / name, root / name)
    text = "\n".join(S._speed(root))
    growth = pd.read_csv(root / S.GROWTH).set_index(["method", "k"])
    assert f"×{growth.loc[('fast_coreset', 400), 'cpu_speedup']:.2f} faster" in text
    assert f"grows ×{growth.loc[('sensitivity', 400), 'cpu_growth']:.2f}" in text
    delta = pd.read_csv(root / S.LOG_DELTA)
    assert f"theirs {delta[delta['source'] == 'authors'].relative_slope.iloc[0]:.2%}" in text
