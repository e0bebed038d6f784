"""The transcription of the authors' tables (results/dss24_published/), checked against the
LaTeX of the draft (Andrew-Draganov/Fast-Coreset-Generation at 98e209a, tex/tables/): spot values
copied from the tex by hand, every table's size, the copies the draft does not input agreeing
with the ones it does, and how the printed numbers are read."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from kmdr.papers.dss24 import published as P

RESULTS = Path(__file__).resolve().parents[3] / "results"
DISTORTION = "tex/tables/distortion.tex"
IMBALANCE = "tex/tables/class_imbalance.tex"


@pytest.fixture(scope="module")
def table():
    return P.published(RESULTS)


def _cell(table, file, name, dataset, method, **where):
    rows = table[
        (table["file"] == file)
        & (table["table"] == name)
        & (table["dataset"] == dataset)
        & (table["method"] == method)
    ]
    for column, value in where.items():
        rows = rows[rows[column].astype(str) == str(value)]
    assert len(rows) == 1, (file, name, dataset, method, where, len(rows))
    return rows.iloc[0]


#: Cells read off the tex by hand: (file, table, dataset, method, where, mean, "±" as printed).
SPOTS = [
    (DISTORTION, "distortion", "$c$-outlier", "Lightweight", {"m_scalar": 40}, 1.07, "0.0"),
    (DISTORTION, "distortion", "$c$-outlier", "Lightweight", {"m_scalar": 80}, 5.63, "84.6"),
    (DISTORTION, "distortion", "$c$-outlier", "Uniform Sampling", {"m_scalar": 40}, 405, "24K"),
    (DISTORTION, "distortion", "$c$-outlier", "Welterweight", {"m_scalar": 40}, 9.44, "105"),
    (DISTORTION, "distortion", "Geometric", "Uniform Sampling", {"m_scalar": 40}, 86.3, "8.4K"),
    (DISTORTION, "distortion", "Gaussian Mix.", "BICO", {"m_scalar": 40}, 11.4, "0.69"),
    (DISTORTION, "distortion", "Gaussian Mix.", "Fast Coreset", {"m_scalar": 80}, 1.13, "0.0"),
    (DISTORTION, "distortion", "Benchmark", "Fast Coreset", {"m_scalar": 40}, 1.15, "0.0"),
    (DISTORTION, "distortion", "Benchmark", "BICO", {"m_scalar": 40}, 5.49, "0.03"),
    (DISTORTION, "distortion", "MNIST", "BICO", {"m_scalar": 40}, 6.41, "1.36"),
    (DISTORTION, "distortion", "Song", "Fast Coreset", {"m_scalar": 40}, 1.50, "0.0"),
    (DISTORTION, "distortion", "Census", "Welterweight", {"m_scalar": 80}, 1.06, "0.0"),
    (DISTORTION, "distortion", "Cover-Type", "BICO", {"m_scalar": 40}, 1.49, "1.78"),
    (DISTORTION, "composition", "Adult", "Uniform Sampling", {"setting": "static"}, 895e3, "3.2B"),
    (DISTORTION, "composition", "MNIST", "Uniform Sampling", {"setting": "streaming"}, 1.42, "0.0"),
    (DISTORTION, "composition", "Gaussian Mix.", "BICO", {"setting": "streaming"}, 27.0, "6.72"),
    (DISTORTION, "composition", "Geometric", "Lightweight", {"setting": "streaming"}, 85.2, "2.8K"),
    (DISTORTION, "composition", "Adult", "Welterweight", {"setting": "streaming"}, 1.27, "0.01"),
    (IMBALANCE, "class_imbalance", "Gaussian Mix.", "Fast Coreset", {"gamma": 5}, 1.12, ""),
    (IMBALANCE, "class_imbalance", "Gaussian Mix.", "LW Coreset", {"gamma": 5}, 2.17, ""),
    (IMBALANCE, "class_imbalance", "Gaussian Mix.", "LW Coreset", {"gamma": 3}, 1.36, ""),
    (IMBALANCE, "class_imbalance", "Gaussian Mix.", "$j=\\sqrt{k}$", {"gamma": 5}, 1.18, ""),
    (IMBALANCE, "class_imbalance", "Gaussian Mix.", "$j=2$", {"gamma": 0}, 1.04, ""),
    (IMBALANCE, "lloyd", "Census", "Fast Coreset", {}, 32163, ""),
    (IMBALANCE, "lloyd", "Cover-Type", "Fast Coreset", {}, 9787, ""),
    (IMBALANCE, "lloyd", "MNIST", "Uniform Sampling", {}, 12450, ""),
    ("tex/tables/log_delta_runtime.tex", "log_delta", "log Delta testbed", "Fast-kmeans++",
     {"r": 40}, 15.5, "0.02"),
]  # fmt: skip


@pytest.mark.parametrize(("file", "name", "dataset", "method", "where", "mean", "spread"), SPOTS)
def test_spot_values_from_the_tex(table, file, name, dataset, method, where, mean, spread):
    row = _cell(table, file, name, dataset, method, **where)
    assert row["mean"] == pytest.approx(mean)
    assert (row["spread_text"] or "") == spread
    if spread:
        assert row["spread"] == pytest.approx(P.number(spread))
        assert row["spread_kind"] == "variance"


@pytest.mark.parametrize(
    ("file", "name", "rows"),
    [
        (DISTORTION, "distortion", 9 * 5 * 2),
        (DISTORTION, "composition", 6 * 5 * 2),
        ("tex/tables/composition.tex", "composition", 6 * 4 * 2),
        (IMBALANCE, "class_imbalance", 5 * 4),
        (IMBALANCE, "lloyd", 5 * 4),
        ("tex/tables/lloyds.tex", "lloyd", 5 * 4),
        ("tex/tables/log_delta_runtime.tex", "log_delta", 4),
    ],
)
def test_every_printed_cell_is_a_row(table, file, name, rows):
    assert ((table["file"] == file) & (table["table"] == name)).sum() == rows


@pytest.mark.parametrize(
    ("name", "copy"),
    [("composition", "tex/tables/composition.tex"), ("lloyd", "tex/tables/lloyds.tex")],
)
def test_the_copies_the_draft_does_not_input_agree(table, name, copy):
    keys = ["dataset", "method", "setting"]
    ours = table[(table["table"] == name) & table["in_draft"]].set_index(keys)
    theirs = table[table["file"] == copy].set_index(keys)
    assert not theirs["in_draft"].any()
    assert (ours.loc[theirs.index, "mean_text"] == theirs["mean_text"]).all()


def test_every_name_is_kmdrs(table):
    assert set(table["method"]) <= set(P.METHODS)
    assert set(table["dataset"]) <= set(P.DATASETS)
    assert table["construction"].notna().all()
    assert P.AUTHORS_DATASET["ss22_covertype"] == "Cover-Type"
    assert P.AUTHORS_DATASET["dss24_gaussian_mixture"] == "Gaussian Mix."
    welter = table[table["construction"] == "welterweight"]
    assert set(welter["j"]) == {"2", "log", "sqrt"}


@pytest.mark.parametrize(
    ("text", "value"),
    [("1.07", 1.07), ("24K", 24e3), ("8.4K", 8.4e3), ("895K", 895e3), ("3.2B", 3.2e9),
     ("105", 105.0), ("0.0", 0.0)],
)  # fmt: skip
def test_number_reads_the_tables_suffixes(text, value):
    assert P.number(text) == pytest.approx(value)


def test_number_refuses_what_is_not_a_printed_number():
    assert math.isnan(P.number(""))
    with pytest.raises(ValueError, match="not a number"):
        P.number("1.07 ± 0.0")


@pytest.mark.parametrize(
    ("text", "n", "sd"),
    [
        ("0.0", 5, math.sqrt(0.005 * 5 / 4)),  # printed zero: below the tables' two decimals
        ("0.01", 5, math.sqrt(0.015 * 5 / 4)),
        ("84.6", 5, math.sqrt(84.65 * 5 / 4)),
        ("105", 3, math.sqrt(105.5 * 3 / 2)),
        ("24K", 5, math.sqrt(24_500 * 5 / 4)),
        ("3.2B", 3, math.sqrt(3.25e9 * 3 / 2)),
    ],
)
def test_sd_bound_is_the_largest_sd_the_print_allows(text, n, sd):
    assert P.sd_bound(text, n) == pytest.approx(sd)


@pytest.mark.parametrize(("text", "n"), [("", 5), ("0.16", 1)])
def test_sd_bound_has_none_without_a_spread_or_runs(text, n):
    assert math.isnan(P.sd_bound(text, n))


@pytest.mark.parametrize(
    ("j", "k", "centers"),
    [("log", 100, 4), ("sqrt", 100, 10), ("log", 500, 6), ("sqrt", 500, 22), ("2", 100, 2),
     (7, 100, 7)],
)  # fmt: skip
def test_resolve_j_truncates_as_the_authors(j, k, centers):
    assert P.resolve_j(j, k) == centers


def test_tests_use_the_fewer_runs(table):
    row = _cell(table, DISTORTION, "distortion", "$c$-outlier", "Lightweight", m_scalar=40)
    assert (row["n_runs"], row["n_runs_code"], row["n"]) == ("5", "3", 3)
    assert row["sd"] == pytest.approx(P.sd_bound("0.0", 3))
    imbalance = table[table["table"] == "class_imbalance"]
    assert (imbalance["n"] == 5).all() and imbalance["sd"].isna().all()


def test_a_folder_without_the_table_reads_empty(tmp_path):
    frame = P.published(tmp_path)
    assert frame.empty and {"construction", "sd", "n"} <= set(frame.columns)


def test_readme_names_the_source(table):
    text = (RESULTS / P.TABLE).with_name("README.md").read_text()
    assert P.REPOSITORY in text and P.COMMIT in text
    for file in table["file"].unique():
        assert f"`{file}`" in text
