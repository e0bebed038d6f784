"""Draganov, Saulpic and Schwiegelshohn's distortion as their text defines it
(``coreset_solution``) and as their code computes it (``code_means``), and the code-versus-text
script's table, from tables of cases."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs

from kmdr.coresets.evaluation import solution_family
from kmdr.papers.dss24 import PAPER
from kmdr.papers.dss24.code_vs_text import COLUMNS, CSV_NAME, main
from kmdr.papers.dss24.evaluation import (
    CODE_MEANS,
    CORESET_SOLUTION,
    code_means_measure,
    code_solution,
)

FAMILIES = {"coreset_solution": CORESET_SOLUTION, "code_means": CODE_MEANS}


def _data(sparse):
    X, _ = make_blobs(600, 8, centers=5, random_state=0)
    X[:, 4:] = np.where(np.abs(X[:, 4:]) < 3, 0.0, X[:, 4:])
    return sp.csr_matrix(X) if sparse else X


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize(("sparse", "k"), [(False, 5), (True, 5), (False, 2)])
def test_the_data_itself_has_distortion_one(family, sparse, k):
    A = _data(sparse)
    measured = FAMILIES[family].measure(None, A, A, np.ones(A.shape[0]), k,
                                        np.random.RandomState(0), [])  # fmt: skip
    assert len(measured) == 1  # one candidate solution per coreset, as the authors' code
    assert measured[0]["distortion"] == pytest.approx(1.0, rel=1e-9)
    assert solution_family(family) is FAMILIES[family]


@pytest.mark.parametrize(("n_points", "k", "n_centers"), [(40, 5, 11), (8, 5, 8), (3, 1, 3)])
def test_the_code_solution_is_2k_plus_1_seeds_of_the_coreset(n_points, k, n_centers):
    points = _data(False)[:n_points]
    centers = code_solution(points, np.ones(n_points), k, np.random.RandomState(0))
    assert centers.shape == (n_centers, 8)
    # every seed is a point of the coreset
    assert all(np.any(np.all(points == c, axis=1)) for c in centers)


# A on a line; the coreset: two of its points with weights; centers at 0 and 10.
_LINE = np.array([[0.0], [2.0], [9.0], [11.0], [13.0]])
_CORESET = np.array([[2.0], [11.0], [13.0]])
_WEIGHTS = np.array([2.0, 1.0, 2.0])
_CENTERS = np.array([[0.0], [10.0]])


@pytest.mark.parametrize(
    ("measure", "real", "coreset"),
    [
        # the same centers on both sides (the text): A 0+4+1+1+9, coreset 2*4+1*1+2*9
        ("text", 15.0, 27.0),
        # own means (the code): A's clusters {0, 2} mean 1 and {9, 11, 13} mean 11: 2 + 8;
        # the coreset's {2} and {11, 13}, its means unweighted (12), then weighed: 0 + 1 + 2
        ("code", 10.0, 3.0),
    ],
)
def test_each_measure_costs_a_line_as_its_definition_says(measure, real, coreset):
    from kmdr.coresets.evaluation import measure as same_centers

    fn = same_centers if measure == "text" else code_means_measure
    got = fn(_LINE, _CORESET, _WEIGHTS, _CENTERS)
    assert got["real_cost"] == pytest.approx(real)
    assert got["coreset_cost"] == pytest.approx(coreset)
    assert got["distortion"] == pytest.approx(max(real / coreset, coreset / real))


def test_the_paper_declares_its_families_constructions_and_script():
    assert set(PAPER.solution_families) == {"coreset_solution", "code_means"}
    assert {"fast_coreset_code", "welterweight_code"} <= set(PAPER.coresets)
    assert "kmdr.papers.dss24.code_vs_text" in PAPER.reproduce_steps


@pytest.mark.slow
def test_the_script_writes_one_row_per_difference_with_its_columns(tmp_path, capsys):
    assert main(["--results", str(tmp_path)]) == 0
    table = pd.read_csv(tmp_path / CSV_NAME)
    assert tuple(table.columns) == COLUMNS
    assert table["difference"].notna().all() and table["check"].notna().all()
    run = table[table["check"] != "read"].dropna(subset=["ratio"])
    np.testing.assert_allclose(run["ratio"], run["code_value"].astype(float)
                               / run["text_value"].astype(float), rtol=1e-5)  # fmt: skip
    trees = table[table["difference"].str.startswith("set_all_dists")]
    one = trees[trees["check"].str.contains("of 1 Fast-kmeans")]
    assert one["ratio"].tolist() == [1.0]  # one center: right before the second
    assert (trees["ratio"] >= 1).all() and (trees["ratio"] > 1.05).sum() == len(trees) - 1
    loaders = table[table["difference"].str.contains("loader")]
    assert loaders["code_value"].str.contains("'3' \\| ' '|ValueError").all()
    # seeded: the committed table is what the script writes
    committed = pd.read_csv(Path(__file__).parents[3] / "results" / CSV_NAME)
    for column in COLUMNS:
        ours, theirs = table[column], committed[column]
        numbers = pd.to_numeric(ours, errors="coerce")
        np.testing.assert_allclose(numbers, pd.to_numeric(theirs, errors="coerce"), rtol=1e-4)
        assert (
            ours[numbers.isna()].astype(str).tolist() == theirs[numbers.isna()].astype(str).tolist()
        )
