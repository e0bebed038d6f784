"""bmd09 Table 1 and Figure 1 end to end on a stand-in NIPS matrix.

The real ``nips_1-17.mat`` cannot be obtained here, so ``make reproduce`` always skips
``bmd09_table1`` and ``bmd09_fig1``. This test writes a file in the real layout with the real 2484
document names and real NIPS terms (tests/_nips_fixture.py; counts made up, with section
structure), serves it from a mirror folder, and runs both presets the way ``scripts/reproduce.py``
does (Hydra compose of ``experiment=<name>``, ``from_config``, ``Session.run``), shrunk:
3 trials, 2 k-means restarts, 300 terms. Then it checks every artefact down the path: cells.csv,
summary.csv (aggregation best), table1.csv / table1.md, leverage_scores.csv, the figures, and the
two bmd09 sections of the report.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import requests

import kmdr.datasets as kd
from _data import pin
from _markdown import unpadded
from _nips_fixture import sectioned_counts, write_nips_mirror
from kmdr.datasets import _registry
from kmdr.papers.published import BMD09_FIG1_TERMS, BMD09_TABLE1, BMD09_TABLE1_COLUMNS
from kmdr.results.records import CSV_COLUMNS, EXTRA_COLUMNS
from kmdr.results.summary import METRICS

N_TERMS = 300
REPEATS = 3
K = 3
R_GRID = (15, 30, 60)  # 5k, 10k, 20k
KEY = ["dataset", "reducer", "r", "repetition"]


def _compose(name: str, overrides: list[str]):
    """As scripts/reproduce.py composes a preset."""
    from hydra import compose, initialize_config_dir

    from kmdr.app import conf_dir

    base = [f"experiment={name}", "quick=false"]
    with initialize_config_dir(config_dir=str(conf_dir()), version_base=None, job_name="kmdr"):
        return compose("config", overrides=base + overrides)


def _run(name: str, overrides: list[str]):
    from _run_configs import run_alone
    from kmdr.config.schema import from_config

    cfg = _compose(name, overrides)
    spec = from_config(cfg)
    # 300 terms occur in the stand-in's 184 documents, not the paper's 6314: the loader says so.
    with pytest.warns(
        UserWarning, match="300 terms occur in the 184 documents; bmd09 reports 6314"
    ):
        outcome = run_alone(*spec)
    assert outcome.skipped is None
    from kmdr.app.drawing import draw

    assert draw(outcome.experiment_dir) == []  # summaries and figures drew without a warning
    return outcome


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Both presets run once into one results folder; returns that folder."""
    tmp = tmp_path_factory.mktemp("bmd09")
    counts, words = sectioned_counts(N_TERMS, strong_terms=BMD09_FIG1_TERMS, seed=0)
    mirror = write_nips_mirror(tmp / "mirror", counts, words)
    root = tmp / "results"

    def no_download(entry, cache_dir):
        raise requests.ConnectionError(f"network disabled in tests ({entry.url})")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_registry, "_download", no_download)
        pin(mp, "nips/nips_1-17.mat", mirror / "nips" / "nips_1-17.mat")  # unpinned: refused
        mp.setenv(kd.MIRROR_ENV, str(mirror))
        mp.setenv("KMDR_DATA_DIR", str(tmp / "datasets"))
        common = [f"results_dir={root}", "progress=false", "n_jobs=1"]
        _run(
            "bmd09_table1",
            [*common, f"repeats={REPEATS}", "kmeans.n_init=2"],
        )
        _run("bmd09_fig1", common)
        # The data the runs used (fetched from the mirror into KMDR_DATA_DIR) for the checks.
        with pytest.warns(UserWarning, match="bmd09 reports 6314"):
            dataset = kd.load_dataset("nips")
    assert (tmp / "datasets" / "nips" / "nips_1-17.mat").is_file()  # copied from the mirror
    return root, dataset


@pytest.fixture(scope="module")
def cells(results):
    root, _ = results
    return pd.read_csv(root / "bmd09_table1" / "cells.csv")


@pytest.mark.slow
def test_cells_csv(results, cells):
    root, dataset = results
    n_reduced = 2 * len(R_GRID) * REPEATS  # Sampl/SVD and SVD at 5k, 10k, 20k
    assert len(cells) == n_reduced + REPEATS  # + All (k-means on all features) once per trial
    assert list(cells.columns) == [*CSV_COLUMNS, *EXTRA_COLUMNS]
    assert not cells.duplicated(KEY).any()
    assert set(cells.experiment) == {"bmd09_table1"} and set(cells.dataset) == {"nips"}
    assert (cells.n_samples == 184).all() and (cells.n_clusters == K).all()
    assert (cells.n_features == N_TERMS).all() and dataset.n_features == N_TERMS
    by_reducer = cells.groupby("reducer")
    assert by_reducer.method.unique().map(list).to_dict() == {
        "leverage": ["Sampl/SVD"],
        "none": ["All"],
        "svd": ["SVD"],
    }
    assert sorted(cells.loc[cells.reducer != "none", "r"].unique()) == list(R_GRID)
    assert set(cells.loc[cells.reducer == "none", "r"]) == {N_TERMS}
    assert sorted(by_reducer.repetition.nunique().unique()) == [REPEATS]
    # the preset's k-means (MATLAB 2009: 'sample' start, 30 iterations) with our overrides
    assert set(cells.kmeans_init) == {"random"}
    assert set(cells.kmeans_n_init) == {2} and set(cells.kmeans_max_iter) == {30}
    assert cells.objective.between(0, 1).all() and cells.accuracy.between(1 / K, 1).all()
    # NIPS is sparse: leverage sampling shares one top-k sparse SVD per trial across r; SVD
    # features need the top r singular vectors, so each cell computes its own.
    assert set(cells.loc[cells.reducer == "leverage", "shared_key"]) == {f"sparse_svd/{K}"}
    assert cells.loc[cells.reducer != "leverage", "shared_key"].isna().all()
    assert np.allclose(cells.total_seconds, cells.reduce_seconds + cells.cluster_seconds)
    # the stand-in has section structure: k-means on all terms finds it in its best trial
    assert cells.loc[cells.reducer == "none", "accuracy"].max() > 0.6

    sidecars = [json.loads(p.read_text()) for p in (root / "bmd09_table1" / "runs").glob("*.json")]
    assert len(sidecars) == 1
    side = sidecars[0]
    assert side["status"] == "complete" and side["skipped"] is None
    assert side["config"]["aggregation"] == "best"
    assert side["dataset"]["n_samples"] == 184 and side["dataset"]["n_features"] == N_TERMS
    assert len(side["expected_cells"]) == len(side["cells_done"]) == len(cells)


def test_summary_keeps_the_lowest_f_trial(results, cells):
    root, _ = results
    summary = pd.read_csv(root / "bmd09_table1" / "summary.csv")
    assert len(summary) == 2 * len(R_GRID) + 1
    assert set(summary.aggregation) == {"best"}
    assert (summary.n_cells == REPEATS).all() and (summary.n_expected == REPEATS).all()
    assert summary.complete.all()
    metrics = [m for m in METRICS if m in cells.columns]
    for m in metrics:
        assert f"best_{m}" in summary.columns and f"{m}_mean" in summary.columns
    for row in summary.itertuples():
        trials = cells[(cells.reducer == row.reducer) & (cells.r == row.r)]
        best = trials.sort_values(["objective", "repetition"], kind="stable").iloc[0]
        assert row.best_repetition == best.repetition
        assert row.best_objective == pytest.approx(trials.objective.min(), rel=1e-9)
        for m in metrics:
            assert getattr(row, f"best_{m}") == pytest.approx(best[m], rel=1e-9, abs=1e-12)
            assert getattr(row, f"{m}_mean") == pytest.approx(trials[m].mean(), rel=1e-9)
            assert getattr(row, f"{m}_min") == pytest.approx(trials[m].min(), rel=1e-9)


def test_table1_beside_the_published_numbers(results):
    root, _ = results
    exp = root / "bmd09_table1"
    summary = pd.read_csv(exp / "summary.csv")
    table = pd.read_csv(exp / "table1.csv")
    assert list(table.columns) == [
        "dataset", "method", "reducer", "column", "r", "P_ours", "F_ours", "P_published",
        "F_published", "n_cells", "n_expected", "complete", "best_repetition",
    ]  # fmt: skip
    # Sampl/SVD and SVD, each with the columns 5k, 10k, 20k and All (All is the shared kMeans row)
    assert len(table) == 2 * len(BMD09_TABLE1_COLUMNS)
    for method, group in table.groupby("method"):
        assert method in ("Sampl/SVD", "SVD")
        assert group.column.tolist() == list(BMD09_TABLE1_COLUMNS)
        assert group.r.tolist() == [*R_GRID, N_TERMS]
    published = BMD09_TABLE1["nips"]
    for row in table.itertuples():
        assert (row.P_published, row.F_published) == published[row.column]
        # "All" is k-means on all terms, repeated under each method with its own reducer
        assert (row.reducer == "none") == (row.column == "All")
        s = summary[(summary.reducer == row.reducer) & (summary.r == row.r)].iloc[0]
        assert row.P_ours == pytest.approx(s.best_accuracy)
        assert row.F_ours == pytest.approx(s.best_objective)
        assert row.best_repetition == s.best_repetition
        assert row.complete and row.n_cells == row.n_expected == REPEATS

    md = unpadded((exp / "table1.md").read_text())
    assert "| NIPS (k = 3) | ours, Sampl/SVD |" in md and "| NIPS (k = 3) | ours, SVD |" in md
    published_line = next(line for line in md.splitlines() if "published (bmd09)" in line)
    assert "0.847 | 0.758 | 0.847 | 0.751 | 0.859 | 0.749 | 0.881 | 0.747" in published_line
    ours_line = next(line for line in md.splitlines() if "ours, Sampl/SVD" in line)
    lev = table[table.method == "Sampl/SVD"]
    expected = " | ".join(f"{p:.3f} | {f:.3f}" for p, f in zip(lev.P_ours, lev.F_ours, strict=True))
    assert expected in ours_line
    assert f"Cells behind our numbers: {2 * len(R_GRID) * REPEATS + REPEATS} of" in md
    assert "incomplete" not in md


def test_leverage_scores_csv(results):
    root, dataset = results
    scores = pd.read_csv(root / "bmd09_fig1" / "leverage_scores.csv", keep_default_na=False)
    assert list(scores.columns) == ["term", "score", "times_drawn", "probability", "feature"]
    assert len(scores) == N_TERMS and scores.feature.tolist() == list(range(N_TERMS))
    assert scores.term.tolist() == dataset.feature_names.tolist()  # the data's column order
    assert scores.score.sum() == pytest.approx(K)  # ||Z_(i)||^2 over the terms: k
    assert scores.probability.sum() == pytest.approx(1.0)
    assert np.allclose(scores.probability, scores.score / K)
    assert scores.times_drawn.sum() == 30  # one sample of r = 10k
    assert (scores.times_drawn >= 0).all()
    # the scores are the exact ones: the row norms of the top-k right singular vectors of A
    _, _, vt = np.linalg.svd(dataset.X.toarray(), full_matrices=False)
    assert np.allclose(scores.score, (vt[:K] ** 2).sum(axis=0), atol=1e-10)
    # the stand-in makes the terms bmd09 names the highest-leverage ones
    top = scores.nlargest(len(BMD09_FIG1_TERMS), "score").term
    assert set(top) == set(BMD09_FIG1_TERMS)

    side = json.loads(next((root / "bmd09_fig1" / "runs").glob("*.json")).read_text())
    assert side["status"] == "complete" and side["kind"] == "leverage_scores"
    assert side["leverage_scores"]["r"] == 30
    assert side["leverage_scores"]["distinct_drawn"] == int((scores.times_drawn > 0).sum())


def test_figures(results):
    root, _ = results
    for name in ("bmd09_table1", "bmd09_fig1"):
        for ext in ("png", "pdf"):
            path = root / name / "figures" / f"{name}.{ext}"
            assert path.is_file() and path.stat().st_size > 1000, path


def test_fig1_plots_the_normalized_scores_its_axis_names(results):
    """bmd09 Figure 1 plots p_i = ||(V_k)_(i)||^2 / k (summing to 1, as the paper's axis and ours
    say), not the unnormalized scores (summing to k); the named terms sit on their own stems."""
    import matplotlib.pyplot as plt

    from kmdr.figures.draw import make_figure

    root, _ = results
    scores = pd.read_csv(root / "bmd09_fig1" / "leverage_scores.csv", keep_default_na=False)
    fig = make_figure(root / "bmd09_fig1")
    try:
        ax = fig.axes[0]
        assert "/\\,k" in ax.get_ylabel()
        stems = np.array([seg[1][1] for seg in ax.collections[0].get_segments()])
        assert np.allclose(stems, scores.probability)
        named = {a.get_text(): a.xy for a in ax.texts}
        assert set(BMD09_FIG1_TERMS) <= set(named)
        for term in BMD09_FIG1_TERMS:
            row = scores[scores.term == term].iloc[0]
            assert named[term] == pytest.approx((row.feature + 1, row.probability))
    finally:
        plt.close(fig)


def test_report_sections(results):
    from kmdr.report.build import build_report

    root, _ = results
    text = unpadded(build_report(root))
    table1 = text[text.index("## bmd09 Table 1") :].split("\n## ", 1)[0]
    nips_rows = [line for line in table1.splitlines() if line.startswith("| NIPS (k = 3) |")]
    assert len(nips_rows) == len(BMD09_TABLE1_COLUMNS)
    for line in nips_rows:
        assert "no data" not in line
        assert "within tolerance" in line or "deviates" in line
    assert "did not run" not in table1
    summary = pd.read_csv(root / "bmd09_table1" / "summary.csv")
    best = summary.set_index(["reducer", "r"])
    lev_5k = best.loc[("leverage", R_GRID[0])]
    assert f"| r = 5k (r = {R_GRID[0]}) | {lev_5k.best_accuracy:.3f} | " in nips_rows[0]
    all_row = best.loc[("none", N_TERMS)]
    assert f"| All (r = {N_TERMS}) | {all_row.best_accuracy:.3f} | " in nips_rows[-1]
    # the All tolerance rests on kMeans' own trials: P at least 2/n (two of the 184 documents)
    tol_p = max(2 * np.nan_to_num(all_row.accuracy_std), 2 / 184)
    tol_f = max(2 * np.nan_to_num(all_row.objective_std), 0.005)
    assert f"| ±{tol_p:.3f} / ±{tol_f:.3f} |" in nips_rows[-1]

    fig1 = text[text.index("## bmd09 Figure 1") :].split("\n## ", 1)[0]
    assert "**No data**" not in fig1
    scores = pd.read_csv(root / "bmd09_fig1" / "leverage_scores.csv")
    ranks = scores.score.rank(ascending=False, method="first").astype(int)
    rank_of = dict(zip(scores.term, ranks, strict=True))
    for term in BMD09_FIG1_TERMS:
        assert f"| {term} | {rank_of[term]} | " in fig1
    assert f"{len(BMD09_FIG1_TERMS)} of {len(BMD09_FIG1_TERMS)} published terms" in fig1
    assert "figures/bmd09_fig1.png" in fig1

    # the header does not call Figure 1 skipped, Table 1 says how many trials ran, and the
    # deviations describe the NIPS matrix that was used rather than one that could not be had
    header = text[: text.index("## bmd09 Table 1")]
    not_run = next((ln for ln in header.splitlines() if ln.startswith("Not run or skipped")), "")
    assert "bmd09_fig1" not in not_run and "bmd09_table1" not in not_run
    trials = pd.read_csv(root / "bmd09_table1" / "cells.csv").repetition.nunique()
    assert f"({trials} trials here)" in table1.splitlines()[0]
    deviations = text[text.index("## Deviations") :]
    nips = next(ln for ln in deviations.splitlines() if ln.startswith("- **NIPS**"))
    assert "could not be obtained" not in nips and f"× {N_TERMS})" in nips


def test_table1_all_rows_name_their_own_point(tmp_path):
    """With two methods, the "All" (kMeans) entry appears under both methods in table1.csv. Its
    rows must name the point they come from (reducer none, r = d), so that (dataset, reducer, r)
    finds it in summary.csv (the report's tolerance reads the trials' sd and n there) and
    table1.md counts its cells once."""
    from _results_factory import make_cells, write_experiment
    from kmdr.results.summary import write_summaries

    grid = {"leverage": [15, 30, 60], "svd": [15, 30, 60], "none": [200]}
    cells = make_cells("bmd09_table1", grid, 2, "nips", shape=(30, 200, 3))
    table1 = {"figure": "bmd09_table1", "section": "table1"}  # as its preset says
    config = {"aggregation": "best", "preset": table1}
    exp = write_experiment(tmp_path, "bmd09_table1", cells, config=config)
    write_summaries(exp)
    table = pd.read_csv(exp / "table1.csv")
    assert len(table) == 8
    assert set(table.loc[table.column == "All", "reducer"]) == {"none"}
    assert set(table.loc[table.column != "All", "reducer"]) == {"leverage", "svd"}
    md = unpadded((exp / "table1.md").read_text())
    assert f"Cells behind our numbers: {len(cells)} of {len(cells)} expected" in md
