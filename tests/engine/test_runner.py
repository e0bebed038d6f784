"""The experiment runner end to end on tiny data: CSV layout, sidecar, figures, seeds, sharing."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from _run_configs import run_alone, synth_run
from kmdr.config.schema import ConfigError, from_config
from kmdr.config.seeds import cell_seed, shared_seed, stream_seeds
from kmdr.results.records import CSV_COLUMNS

METRICS = ["objective", "objective_reduced", "accuracy", "nmi", "ari", "n_iter", "seed"]
KEY = ["dataset", "reducer", "r", "repetition"]


def tiny_config(results_dir, **over):
    run_config = synth_run(
        results_dir,
        "tiny",
        (90, 24, 3),
        reducers=[{"name": "leverage"}, {"name": "svd"}, {"name": "sign"}, {"name": "none"}],
        r_grid=[2, 4],
        repeats=2,
        seed=7,
        kmeans={"n_init": 2, "max_iter": 50, "init": "k-means++", "tol": 0.0},
    )
    return {**run_config, **over}


def run(results_dir, **over):
    spec = from_config(tiny_config(results_dir, **over))
    outcome = run_alone(*spec)
    return outcome, pd.read_csv(outcome.experiment_dir / "cells.csv")


@pytest.mark.slow
def test_end_to_end_csv_sidecar_and_figures(tmp_path):
    outcome, df = run(tmp_path, figures=True)
    # 3 reducers x 2 r x 2 repetitions, plus kMeans once per repetition (r = d).
    assert len(df) == 3 * 2 * 2 + 2 == outcome.n_expected == outcome.n_computed
    assert list(df.columns[: len(CSV_COLUMNS)]) == list(CSV_COLUMNS)
    assert not df.duplicated(KEY).any()
    assert set(df.loc[df.reducer == "none", "r"]) == {24}
    assert set(df.method) == {"Sampl/SVD", "SVD", "RP", "kMeans"}
    assert df[["objective", "objective_reduced"]].ge(0).all().all()
    assert (df.objective <= 1).all() and df.accuracy.between(0, 1).all()
    assert (df.reduce_seconds >= df.shared_seconds).all()
    assert np.allclose(df.total_seconds, df.reduce_seconds + df.cluster_seconds)
    # leverage shares one rank-k (k = 3) SVD per repetition; svd (rank r), sign, none: nothing.
    assert set(df.loc[df.reducer == "leverage", "shared_key"]) == {"exact_svd/3"}
    assert (df.loc[df.reducer == "leverage", "shared_seconds"] > 0).all()
    assert df.loc[df.reducer.isin(["svd", "sign", "none"]), "shared_key"].isna().all()
    assert (df.n_jobs == 1).all() and (df.blas_threads == 1).all()

    sidecars = list((outcome.experiment_dir / "runs").glob("*.json"))
    assert len(sidecars) == 1
    side = json.loads(sidecars[0].read_text())
    assert side["status"] == "complete" and side["skipped"] is None
    assert len(side["expected_cells"]) == len(side["cells_done"]) == len(df)
    assert side["versions"]["numpy"] and side["cpu_count"] >= 1 and "revision" in side["git"]
    # leverage's rank-k exact SVD is deterministic: computed once for both repetitions (the
    # output every cell uses), and timed once per repetition: each repetition is charged its
    # own measurement, the same one at every r of that repetition.
    (work,) = side["shared_work"]
    assert work["key"] == "exact_svd/3" and work["repetition"] is None and work["seconds"] > 0
    lev = df[df.reducer == "leverage"]
    per_rep = lev.groupby("repetition")["shared_seconds"]
    assert (per_rep.nunique() == 1).all() and per_rep.first().nunique() == 2
    assert set(lev.reduce_timing) == {"shared per repetition"}
    assert set(df.loc[df.reducer != "leverage", "reduce_timing"]) == {"per cell"}
    # svd is deterministic: reduced once for the clustering, re-run per repetition to be timed
    svd = df[df.reducer == "svd"]
    assert (svd.groupby("r")["reduce_seconds"].nunique() == 2).all()

    # The run returns its mean accuracy (what a sweeper optimises) and draws nothing itself.
    assert outcome.mean_accuracy == pytest.approx(df.accuracy.mean(), rel=1e-12)
    figures = outcome.experiment_dir / "figures"
    assert not figures.exists()
    from kmdr.app.drawing import draw

    assert draw(outcome.experiment_dir) == []
    pngs, pdfs = list(figures.glob("*.png")), list(figures.glob("*.pdf"))
    assert pngs and pdfs
    assert all(p.stat().st_size > 0 for p in pngs + pdfs)


@pytest.mark.slow
def test_same_numbers_for_n_jobs_1_and_2_and_for_a_rerun(tmp_path):
    _, a = run(tmp_path / "a")
    _, b = run(tmp_path / "b")
    _, c = run(tmp_path / "c", n_jobs=2)
    a, b, c = (x.sort_values(KEY).reset_index(drop=True) for x in (a, b, c))
    pd.testing.assert_frame_equal(a[KEY + METRICS], b[KEY + METRICS])
    pd.testing.assert_frame_equal(a[KEY + METRICS], c[KEY + METRICS])
    assert (c.n_jobs == 2).all()


def test_another_seed_changes_the_numbers(tmp_path):
    _, a = run(tmp_path / "a", reducers=[{"name": "sign"}])
    _, b = run(tmp_path / "b", reducers=[{"name": "sign"}], seed=8)
    assert not np.array_equal(a.sort_values(KEY).seed, b.sort_values(KEY).seed)


def test_seeds_are_stable_and_distinct():
    s = cell_seed(0, "orl", "sign", 10, 0)
    assert s == cell_seed(0, "orl", "sign", 10, 0)
    others = {
        cell_seed(0, "orl", "sign", 10, 1),
        cell_seed(0, "orl", "sign", 15, 0),
        cell_seed(0, "orl", "svd", 10, 0),
        cell_seed(1, "orl", "sign", 10, 0),
    }
    assert s not in others and len(others) == 4
    assert 0 <= s < 2**63
    assert shared_seed(0, "orl", ("thin_svd",), 0) != shared_seed(0, "orl", ("thin_svd",), 1)
    a, b = stream_seeds(s)
    assert a != b and (a, b) == stream_seeds(s)


def test_growing_the_grid_keeps_existing_cells(tmp_path):
    _, small = run(tmp_path, reducers=[{"name": "sign"}], r_grid=[2])
    outcome, big = run(tmp_path, reducers=[{"name": "sign"}], r_grid=[2, 4])
    assert outcome.n_reused == 2 and outcome.n_computed == 2
    merged = big[big.r == 2].sort_values(KEY).reset_index(drop=True)
    pd.testing.assert_frame_equal(
        merged[KEY + METRICS], small.sort_values(KEY)[KEY + METRICS].reset_index(drop=True)
    )


def test_unavailable_dataset_is_skipped_with_its_reason(tmp_path, monkeypatch):
    import kmdr.datasets as datasets

    def unavailable(name, **kwargs):
        raise datasets.DatasetUnavailable(f"{name}: cannot obtain the file (test)")

    monkeypatch.setattr(datasets, "load_dataset", unavailable)
    spec = from_config(tiny_config(tmp_path))
    outcome = run_alone(*spec)
    assert outcome.skipped == "synth: cannot obtain the file (test)"
    assert not (outcome.experiment_dir / "cells.csv").exists()
    (side,) = (outcome.experiment_dir / "runs").glob("*.json")
    assert json.loads(side.read_text())["skipped"] == outcome.skipped


def test_r_above_what_the_data_allows_fails_before_writing(tmp_path):
    spec = from_config(tiny_config(tmp_path, reducers=[{"name": "svd"}], r_grid=[5, 500]))
    with pytest.raises(ConfigError, match=r"r = 500 is too large for reducer 'svd'.*1\.\.24"):
        run_alone(*spec)
    assert not (tmp_path / "tiny").exists()


def test_leverage_scores_kind(tmp_path):
    spec = from_config(
        tiny_config(tmp_path, kind="leverage_scores", leverage={"reducer": "leverage", "r": 10})
    )
    outcome = run_alone(*spec)
    table = pd.read_csv(outcome.experiment_dir / "leverage_scores.csv")
    assert list(table.columns[:3]) == ["term", "score", "times_drawn"]
    assert len(table) == 24 and table.times_drawn.sum() == 10
    assert table.score.sum() == pytest.approx(3.0)  # leverage scores sum to k


def test_quick_grid_is_merged(tmp_path):
    cfg = tiny_config(
        tmp_path, quick=True, quick_grid={"r_grid": [3], "repeats": 1, "kmeans": {"n_init": 1}}
    )
    spec = from_config(cfg)
    assert spec.experiment.r_grid == (3,) and spec.experiment.repeats == 1
    assert spec.experiment.kmeans.n_init == 1 and spec.experiment.kmeans.max_iter == 50


def test_recorded_versions_are_the_installed_ones_and_import_nothing():
    """A run record's package versions: the installed distributions', whether the process has
    imported a package (its module says its version) or not (its metadata, read without
    importing it: scikit-learn and matplotlib take seconds to import)."""
    import subprocess
    import sys

    code = (
        "import json, sys\n"
        "from importlib.metadata import version\n"
        "from kmdr.results.provenance import _PACKAGES, versions\n"
        "before = versions()\n"
        "unimported = [n for n in ('sklearn', 'matplotlib') if n in sys.modules]\n"
        "import sklearn, matplotlib\n"
        "after = versions()\n"
        "installed = {n: version(d) for n, d in _PACKAGES.items()}\n"
        "print(json.dumps([before, after, installed, unimported]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before, after, installed, imported_by_recording = json.loads(out.stdout)
    assert imported_by_recording == []
    for name, value in installed.items():
        assert before[name] == after[name] == value, name


def test_the_start_line_gives_each_reducer_the_r_its_cells_have(tmp_path, capsys):
    import kmdr

    # the baseline keeps all d features whatever r_grid says, and a max_r cuts one reducer's grid
    kmdr.run(
        "dataset=synth",
        "+dataset.params={n_samples:90,n_features:24,n_clusters:3}",
        "reducer=[sign,svd,leverage,none]",
        "reducers.svd.max_r=2",
        "r_grid=[2,4]",
        "repeats=1",
        "n_jobs=1",
        "figures=false",
        results_dir=tmp_path,
    )
    [start] = [line for line in capsys.readouterr().err.splitlines() if "cells: start" in line]
    methods = "sign, leverage at r = 2, 4; svd at r = 2; none at r = 24"
    assert f"synth (90 x 24), {methods}, 1 repetition, 1 job -> " in start
