"""Aggregates from hand-made cells CSVs and sidecars (docs/results-layout.md)."""

from __future__ import annotations

import pandas as pd
import pytest

from _results_factory import make_cells, preset, write_experiment
from kmdr.papers.bmd09.table1 import table1
from kmdr.papers.published import BMD09_FIG1_TERMS, BMD09_TABLE1
from kmdr.results import runs
from kmdr.results import summary as agg
from kmdr.results.reading import is_baseline
from kmdr.results.runs import PRESET_DEFAULTS

METRICS = agg.METRICS


GRID = {"leverage": [5, 10], "sign": [5, 10], "none": [64]}
TABLE1_PRESET = preset("bmd09 Table 1", figure="bmd09_table1", section="table1", paper="bmd09")


def test_summary_matches_pandas(tmp_path):
    cells = make_cells("bzmd14_orl", GRID, reps=3)
    exp = write_experiment(tmp_path, "bzmd14_orl", cells)
    written = agg.write_summaries(exp)
    assert exp / "summary.csv" in written
    summary = agg.load_summary(exp)
    assert len(summary) == 5
    assert (summary["aggregation"] == "mean").all()
    assert summary["complete"].all()
    assert (summary["n_cells"] == 3).all() and (summary["n_expected"] == 3).all()
    direct = cells.groupby(["dataset", "reducer", "r"])[METRICS].agg(["mean", "std", "min", "max"])
    for _, row in summary.iterrows():
        ref = direct.loc[(row["dataset"], row["reducer"], row["r"])]
        for m in METRICS:
            for s in ("mean", "std", "min", "max"):
                assert row[f"{m}_{s}"] == pytest.approx(ref[(m, s)], rel=1e-8, abs=1e-12)
    assert "best_objective" not in summary.columns
    # what is read is summary.csv itself, not a recomputation: the identity columns the writer
    # leaves out at their defaults (no online phase, each reducer its own seeds) are filled in
    written = pd.read_csv(exp / "summary.csv")
    assert "seed_from" not in written and "kmeans_online_phase" not in written
    assert (summary["seed_from"] == "").all() and (summary["kmeans_online_phase"] == "False").all()
    (exp / "cells.csv").unlink()  # nothing left to recompute from
    assert agg.load_summary(exp)["objective_mean"].tolist() == written["objective_mean"].tolist()


def test_missing_cell_is_flagged_incomplete(tmp_path):
    full = make_cells("bzmd14_orl", GRID, reps=3)
    # an interrupted sweep: one cell of sign r=10 and every cell of leverage r=10 missing
    cut = full[
        ~((full["reducer"] == "sign") & (full["r"] == 10) & (full["repetition"] == 2))
        & ~((full["reducer"] == "leverage") & (full["r"] == 10))
    ]
    exp = write_experiment(tmp_path, "bzmd14_orl", cut, expected=full)
    comp = agg.read_experiment(exp).completeness.set_index(["reducer", "r"])
    assert comp.loc[("sign", 10), "n_cells"] == 2
    assert comp.loc[("sign", 10), "n_expected"] == 3
    assert not comp.loc[("sign", 10), "complete"]
    assert comp.loc[("sign", 10), "missing_repetitions"] == "2"
    # a point with no cell at all is still listed, not silently dropped
    assert comp.loc[("leverage", 10), "n_cells"] == 0
    assert not comp.loc[("leverage", 10), "complete"]
    assert comp.loc[("sign", 5), "complete"]
    summary = agg.read_experiment(exp).summary
    assert not summary["complete"].all()
    assert summary["n_cells"].sum() == len(cut)
    assert summary["n_expected"].sum() == len(full)


def test_without_sidecar_the_grid_is_inferred(tmp_path):
    cells = make_cells("custom", GRID, reps=2)
    cells = cells.drop(index=cells.index[0])  # leverage r=5 repetition 0
    exp = tmp_path / "custom"
    exp.mkdir()
    cells.to_csv(exp / "cells.csv", index=False)
    comp = agg.read_experiment(exp).completeness.set_index(["reducer", "r"])
    assert not comp.loc[("leverage", 5), "complete"]
    assert (comp["expected_from"] == "inferred").all()


def test_other_cells_files_beside_cells_csv_are_never_read(tmp_path):
    cells = make_cells("custom", GRID, reps=2)
    exp = write_experiment(tmp_path, "custom", cells)
    before = agg.read_experiment(exp).summary
    again = cells[(cells["reducer"] == "sign") & (cells["r"] == 5) & (cells["repetition"] == 0)]
    extra = again.assign(repetition=2, objective=0.5)
    pd.concat([again.assign(objective=0.123), extra]).to_csv(exp / "cells_backup.csv", index=False)
    loaded = agg.read_experiment(exp).cells
    assert len(loaded) == len(cells)
    hit = loaded[(loaded["reducer"] == "sign") & (loaded["r"] == 5) & (loaded["repetition"] == 0)]
    assert hit["objective"].item() == pytest.approx(again["objective"].item())
    pd.testing.assert_frame_equal(agg.read_experiment(exp).summary, before)


def test_best_of_trials_picks_lowest_objective(tmp_path):
    cells = make_cells("bmd09_table1", {"leverage": [15, 30, 60], "none": [200]}, 4, "nips")
    exp = write_experiment(tmp_path, "bmd09_table1", cells, config={"aggregation": "best"})
    summary = agg.read_experiment(exp).summary
    assert (summary["aggregation"] == "best").all()
    for _, row in summary.iterrows():
        group = cells[(cells["reducer"] == row["reducer"]) & (cells["r"] == row["r"])]
        best = group.loc[group["objective"].idxmin()]
        assert row["best_repetition"] == best["repetition"]
        assert row["best_objective"] == pytest.approx(best["objective"])
        assert row["best_accuracy"] == pytest.approx(best["accuracy"])
        assert row["objective_mean"] == pytest.approx(group["objective"].mean())


def test_aggregation_comes_from_the_config_never_the_name(tmp_path):
    cells = make_cells("bmd09_x", {"leverage": [15]}, 2, "nips")
    assert runs.aggregation_of(write_experiment(tmp_path, "bmd09_x", cells)) == "mean"
    best = write_experiment(tmp_path, "mine", cells, config={"aggregation": "best"})
    assert runs.aggregation_of(best) == "best"


def test_table1_beside_published(tmp_path):
    cells = make_cells(
        "bmd09_table1", {"leverage": [15, 30, 60], "none": [200]}, 3, "nips", shape=(30, 200, 3)
    )
    expected = cells
    cells = cells.iloc[1:]  # one trial of leverage r = 15 missing
    config = {"aggregation": "best", "preset": TABLE1_PRESET}
    exp = write_experiment(tmp_path, "bmd09_table1", cells, expected=expected, config=config)
    written = agg.write_summaries(exp)
    assert {p.name for p in written} == {"summary.csv", "table1.csv", "table1.md"}
    table = pd.read_csv(exp / "table1.csv")
    assert list(table["column"]) == ["5k", "10k", "20k", "All"]
    assert list(table["r"]) == [15, 30, 60, 200]
    row = table[table["column"] == "10k"].iloc[0]
    group = cells[(cells["reducer"] == "leverage") & (cells["r"] == 30)]
    best = group.loc[group["objective"].idxmin()]
    assert row["P_ours"] == pytest.approx(best["accuracy"])
    assert row["F_ours"] == pytest.approx(best["objective"])
    assert (row["P_published"], row["F_published"]) == BMD09_TABLE1["nips"]["10k"]
    assert not table.loc[table["column"] == "5k", "complete"].item()
    md = (exp / "table1.md").read_text()
    assert f"{best['accuracy']:.3f}" in md and f"{best['objective']:.3f}" in md
    assert "published (bmd09)" in md
    for p, f in BMD09_TABLE1["nips"].values():
        assert f"{p:.3f}" in md and f"{f:.3f}" in md
    assert "Bio (k = 3)" in md and "not run" in md  # the dataset we did not run still shows
    assert "* incomplete" in md.replace("\\", "")


def test_published_numbers_are_the_papers():
    assert BMD09_TABLE1["nips"]["All"] == (0.881, 0.747)
    assert BMD09_TABLE1["bio"]["10k"] == (0.935, 0.726)
    assert len(BMD09_FIG1_TERMS) == 11 and BMD09_FIG1_TERMS[0] == "ruyter"


def test_empty_folder_writes_nothing(tmp_path):
    exp = write_experiment(tmp_path, "lst17_rcv1", None, skipped="rcv1 not available")
    assert agg.read_experiment(exp).cells.empty
    assert agg.write_summaries(exp) == []
    assert runs.skip_reasons(exp) == ["rcv1 not available"]
    assert not (exp / "summary.csv").exists()


def _two_settings(reps: int = 2) -> pd.DataFrame:
    """A multirun over kmeans.n_init=1,3 into one experiment: same dataset, reducers, r and
    repetitions, different numbers."""
    one = make_cells("mine", GRID, reps, seed=1, kmeans_n_init=1)
    three = make_cells("mine", GRID, reps, seed=3, kmeans_n_init=3)
    return pd.concat([one, three], ignore_index=True)


def test_two_kmeans_settings_are_kept_and_summarized_apart(tmp_path):
    cells = _two_settings()
    cut = cells.drop(index=cells.index[-1])  # n_init=3: one baseline repetition missing
    exp = write_experiment(tmp_path, "mine", cut, expected=cells)
    loaded = agg.read_experiment(exp).cells
    assert len(loaded) == len(cut)  # nothing deduplicated across settings
    summary = agg.read_experiment(exp).summary
    assert len(summary) == 2 * 5  # every point once per setting
    assert set(summary["setting"]) == {"kmeans_n_init=1", "kmeans_n_init=3"}
    assert (summary.groupby(["reducer", "r"]).size() == 2).all()
    # each setting's statistics are its own rows' (never an average over both settings)
    for _, row in summary.iterrows():
        own = cut[
            (cut["kmeans_n_init"] == row["kmeans_n_init"])
            & (cut["reducer"] == row["reducer"])
            & (cut["r"] == row["r"])
        ]
        assert row["n_cells"] == len(own)
        assert row["objective_mean"] == pytest.approx(own["objective"].mean())
        assert row["setting"] == f"kmeans_n_init={row['kmeans_n_init']}"
    # completeness per setting: only the n_init=3 baseline misses a repetition
    bad = summary[~summary["complete"]]
    assert len(bad) == 1
    assert (bad["reducer"].item(), bad["kmeans_n_init"].item()) == ("none", 3)
    assert (bad["n_cells"].item(), bad["n_expected"].item()) == (1, 2)
    # written and read back, the setting and the identity survive
    agg.write_summaries(exp)
    again = agg.load_summary(exp)
    assert list(again["setting"]) == list(summary["setting"])
    assert list(again["kmeans_n_init"]) == list(summary["kmeans_n_init"])


def test_one_setting_has_no_setting_column(tmp_path):
    exp = write_experiment(tmp_path, "mine", make_cells("mine", GRID, 2))
    assert "setting" not in agg.read_experiment(exp).summary.columns
    # two datasets are two settings, but the dataset has its own column already
    both = pd.concat([make_cells("mine", GRID, 2), make_cells("mine", GRID, 2, dataset="usps")])
    exp = write_experiment(tmp_path, "both", both)
    assert "setting" not in agg.read_experiment(exp).summary.columns


def test_seeds_and_reducer_params_are_separate(tmp_path):
    seeds = pd.concat(
        [make_cells("s", GRID, 2, base_seed=0), make_cells("s", GRID, 2, base_seed=1)]
    )
    summary = agg.read_experiment(write_experiment(tmp_path, "s", seeds)).summary
    assert set(summary["setting"]) == {"base_seed=0", "base_seed=1"}
    dense = make_cells("p", {"sign": [5]}, 2, reducer_params='{"density": 1.0}')
    sparse = make_cells("p", {"sign": [5]}, 2, reducer_params='{"density": 0.1}')
    summary = agg.read_experiment(
        write_experiment(tmp_path, "p", pd.concat([dense, sparse]))
    ).summary
    assert len(summary) == 2 and "setting" not in summary.columns  # two points, one setting
    assert (summary["n_cells"] == 2).all()


def test_a_killed_first_run_is_incomplete_not_empty(tmp_path):
    expected = make_cells("killed", GRID, 3)
    exp = write_experiment(tmp_path, "killed", None, expected=expected, status="running")
    comp = agg.read_experiment(exp).completeness
    assert len(comp) == 5 and not comp["complete"].any()
    assert comp["n_cells"].sum() == 0 and comp["n_expected"].sum() == len(expected)
    assert set(comp["method"]) == {"Sampl/SVD", "RP", "kMeans"}  # labels from the sidecar


def test_baseline_is_the_registry_name_never_the_label(tmp_path):
    # a baseline labelled "All features", and a reducer whose label happens to be "kMeans"
    labels = {"none": "All features", "leverage": "kMeans"}
    grid = {"leverage": [15, 30, 60], "none": [64]}
    cells = make_cells("b", grid, 2, "nips", shape=(30, 64, 3), labels=labels)
    assert list(is_baseline(cells).groupby(cells["reducer"]).all()) == [False, True]
    config = {"aggregation": "best", "preset": TABLE1_PRESET}
    exp = write_experiment(tmp_path, "b", cells, config=config)
    table = table1(agg.read_experiment(exp).summary)
    assert list(table["column"]) == ["5k", "10k", "20k", "All"]
    assert table.loc[table["column"] == "All", "reducer"].item() == "none"


def test_preset_defaults_and_last_run_wins(tmp_path):
    cells = make_cells("zz", GRID, 1)
    exp = write_experiment(tmp_path, "zz", cells)
    assert runs.preset_of(exp) == {**PRESET_DEFAULTS, "title": "zz", "order": 1000.0}
    write_experiment(tmp_path, "zz", cells, run_id="run1", config={"preset": TABLE1_PRESET})
    got = runs.preset_of(exp)
    assert (got["figure"], got["section"], got["title"]) == (
        "bmd09_table1",
        "table1",
        "bmd09 Table 1",
    )
    assert [p.name for p in agg.write_summaries(exp)] == ["summary.csv", "table1.csv", "table1.md"]
