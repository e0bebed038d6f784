"""The coresets kind end to end, in this process: cells with a cell's identity in cells.csv, the
distortion on the original data, resume, and its one-line refusals."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import kmdr
from kmdr.config.errors import ConfigError
from kmdr.plugins import RegistryError

#: The Benchmark at k = 3, alpha = 4 (81 x 12), two constructions, m = 4k and 8k, 2 repetitions.
SMALL = (
    "experiment=ss22_benchmark",
    "name=ss22_small",
    "dataset.params.k=3",
    "dataset.params.alpha=4",
    "repeats=2",
    "kind_params.constructions=[sensitivity,uniform]",
    "kind_params.size_factors=[4,8]",
)


def _cells(results):
    return pd.read_csv(results / "ss22_small" / "cells.csv")


def test_a_run_writes_coreset_cells_and_a_rerun_reuses_them(tmp_path):
    first = kmdr.run(list(SMALL), results_dir=tmp_path)
    cells = _cells(tmp_path)
    assert len(cells) == len(first) == 2 * 2 * 2
    assert set(cells["construction"]) == {"sensitivity", "uniform"}
    assert set(cells["coreset_size"]) == {12, 24}
    assert (cells["distortion"] >= 1).all()
    # the cell's distortion is the first family's (the Benchmark's own solutions) worst
    # candidate's, whose two costs the cell keeps; k-means++'s is measured beside it
    ratio = cells["real_cost"] / cells["coreset_cost"]
    larger = ratio.where(ratio >= 1, 1 / ratio)
    pd.testing.assert_series_equal(cells["distortion"], larger, check_names=False)
    pd.testing.assert_series_equal(cells["distortion"], cells["distortion_benchmark"],
                                   check_names=False)  # fmt: skip
    assert (cells["distortion_kmeanspp"] >= cells["distortion_first"]).all()
    assert "distortion_convex" not in cells
    # a cell is read as any other: F is the cost of the partition of A the first seeding gives
    # (its clusters' own means), over ||A||^2: at most the seeding's cost on A, and at most 1
    assert ((cells["objective"] > 0) & (cells["objective"] <= 1)).all()
    assert (cells["n_iter"] == 0).all() and cells["converged"].isna().all()
    assert cells["cell_id"].is_unique
    runs = sorted((tmp_path / "ss22_small" / "runs").iterdir())
    again = kmdr.run(list(SMALL), results_dir=tmp_path)
    assert len(again) == len(first)
    assert sorted((tmp_path / "ss22_small" / "runs").iterdir()) == runs  # nothing computed
    pd.testing.assert_frame_equal(_cells(tmp_path), cells)


def test_another_size_is_another_cell_and_the_others_are_kept(tmp_path):
    kmdr.run(list(SMALL), results_dir=tmp_path)
    before = set(_cells(tmp_path)["cell_id"])
    kmdr.run([*SMALL[:-1], "kind_params.size_factors=[4,6]"], results_dir=tmp_path)
    after = _cells(tmp_path)
    assert before < set(after["cell_id"])
    assert set(after["coreset_size"]) == {12, 18, 24}


@pytest.mark.parametrize(
    ("override", "error", "message"),
    [
        ("kind_params.size_factors=[40]", ConfigError, "120 is larger than the data's 81 rows"),
        ("kind_params.constructions=[no_such]", RegistryError, "no_such"),
        ("kind_params.solutions=[kmeans++,nope]", ConfigError, "'nope' is none of kmeans"),
        # the Benchmark's own solutions need the Benchmark
        ("dataset=synth", ConfigError, "'benchmark' needs ss22's Benchmark"),
    ],
)
def test_a_grid_the_data_cannot_take_is_one_line(tmp_path, override, error, message):
    key = override.split("=")[0]
    overrides = [o for o in SMALL if not o.startswith((key, f"{key}."))]
    with pytest.raises(Exception, match=message) as caught:
        kmdr.run([*overrides, override], results_dir=tmp_path)
    assert "\n" not in str(caught.value)


@pytest.mark.slow
def test_coreset_cells_are_the_same_on_every_backend_and_stop_at_their_time_limit(tmp_path, client):
    """The kind's cells are a sweep's: computed in workers (loky's, a dask cluster's) they are
    the in-process cells to the bit, and past ``cell_time_limit`` they are stopped, listed in
    the run record and never written, with one line."""
    small = [*SMALL, "repeats=1", "kind_params.size_factors=[4]"]
    here = kmdr.run(small, results_dir=tmp_path / "here")
    columns = ["cell_id", "distortion", "distortion_kmeanspp", "objective", "coreset_points"]
    expected = _cells(tmp_path / "here")[columns]
    for name, backend in {
        "loky": ["n_jobs=2"],
        "dask": ["backend=dask", f"dask.scheduler={client.scheduler.address}", "n_jobs=2"],
    }.items():
        kmdr.run([*small, *backend], results_dir=tmp_path / name)
        pd.testing.assert_frame_equal(_cells(tmp_path / name)[columns], expected)
    assert len(here) == 2
    with pytest.raises(Exception, match="cell_time_limit=1e-06 s") as caught:
        kmdr.run([*small, "cell_time_limit=0.000001"], results_dir=tmp_path / "limited")
    assert "\n" not in str(caught.value)
    assert (
        not (tmp_path / "limited" / "ss22_small" / "cells.csv").exists()
        or _cells(tmp_path / "limited").empty
    )


def test_a_dry_run_counts_the_coreset_cells_by_their_own_ids(tmp_path, capsys):
    kmdr.run([*SMALL, "dry_run=true"], results_dir=tmp_path)
    said = capsys.readouterr().err
    rows = [line.split() for line in said.splitlines() if line.startswith("  none+")]
    assert sorted(row[0] for row in rows) == [
        "none+sensitivityx4", "none+sensitivityx8", "none+uniformx4", "none+uniformx8"
    ]  # fmt: skip
    assert all(row[1] == "2" for row in rows)  # 2 repetitions each, none computed yet
    assert "total: 8 of 8 cells to compute" in said
    assert not (tmp_path / "ss22_small").exists()


#: The pipeline a user runs: blobs (400 x 6, k = 3), a coreset of 60 rows by two constructions,
#: Lloyd on it, beside k-means on all rows (the baseline the kind plans with a Lloyd solve).
PIPELINE = (
    "dataset=synth",
    "dataset.params.n_samples=400",
    "dataset.params.n_features=6",
    "dataset.params.n_clusters=3",
    "dataset.params.side=20",
    "kind=coresets",
    "name=pipes",
    "~reducers",
    "+reducers={none:{name:none},sign:{name:sign}}",
    "r_grid=[3]",
    "repeats=2",
    "kmeans.n_init=2",
    "+kind_params.constructions=[uniform,{name:sensitivity}]",
    "+kind_params.sizes=[60]",
    "+kind_params.solve=[lloyd]",
)


def _pipes(results):
    return pd.read_csv(results / "pipes" / "cells.csv")


def test_a_lloyd_solve_scores_its_centers_on_all_rows_beside_the_declared_baseline(tmp_path):
    from kmdr.results.reading import is_baseline

    kmdr.run(list(PIPELINE), results_dir=tmp_path)
    cells = _pipes(tmp_path)
    base = is_baseline(cells)
    # the baseline: k-means on all rows and all features, one cell per repetition, with the id
    # the same cell has in a sweep of reducers (no coreset, Lloyd, scored on all rows)
    assert base.sum() == 2 and set(cells.loc[base, "reducer"]) == {"none"}
    pipes = cells[~base]
    # none (r = d) and sign at r = 3, two constructions, two repetitions; a coreset cell with no
    # reducer in front is never the baseline, though its reducer is none
    assert len(pipes) == 2 * 2 * 2 and (pipes["reducer_name"] == "none").sum() == 4
    # Lloyd is the default solve, so its column is not written; the rows step is
    assert "solve" not in cells and pipes["coreset"].notna().all()
    assert set(pipes["construction"]) == {"uniform", "sensitivity"}
    # the solve used the run's k-means settings; the steps are timed and add up
    assert (pipes["kmeans_n_init"] == 2).all()
    steps = pipes[["reduce_seconds", "coreset_seconds", "solve_seconds", "assign_seconds"]]
    assert (steps >= 0).all().all()
    assert np.allclose(steps.sum(axis=1), pipes["total_seconds"])
    # F is the partition's cost (its own means), at most the cost of the centers that made it
    assert (pipes["objective"] <= pipes["objective_centers"] + 1e-12).all()
    assert pipes["objective_centers"].between(0, 1).all()


@pytest.mark.parametrize(
    ("override", "message"),
    [
        (["kmeans.online_phase=true"], "kmeans.online_phase=true: a coreset's Lloyd solve"),
        (["kmeans.init=first_of_class", "kmeans.n_init=1"],
         "kmeans.init=first_of_class: a coreset's Lloyd solve"),
    ],
)  # fmt: skip
def test_a_k_means_setting_the_lloyd_solve_cannot_use_is_one_line(tmp_path, override, message):
    with pytest.raises(ConfigError, match=message) as caught:
        kmdr.run([*PIPELINE, *override], results_dir=tmp_path)
    assert "\n" not in str(caught.value) and not (tmp_path / "pipes").exists()


def test_a_coreset_cell_is_its_steps():
    """Its identity's steps, in order: the reducer in front, the construction and its size,
    the solve; a reducer cell has no rows step."""
    from kmdr.engine.coresets import CORESETS
    from kmdr.results.cells import plan_cells

    spec = kmdr.compose(*PIPELINE)
    ctx = SimpleNamespace(experiment=spec, X=np.zeros((400, 6)), n_clusters=3,
                          data_fingerprint="f")  # fmt: skip
    cells = CORESETS.plan(ctx)
    base, coreset = cells[0], cells[-1]
    assert [s.family for s in base.steps] == ["columns", "solve"]
    # the baseline is the cell a sweep of reducers plans for k-means on all features
    reducer_cells = {c.cell_id: c for c in plan_cells(spec, ctx.X, 3, "f")}
    assert reducer_cells[base.cell_id].reducer_id == "none"
    assert [s.family for s in coreset.steps] == ["columns", "rows", "solve"]
    rows = coreset.steps[1]
    assert rows.name in {"uniform", "sensitivity"} and rows.params["size"] == 60
    assert coreset.steps[2].name == "lloyd" and coreset.steps[2].params["n_init"] == 2


def test_the_seedings_cells_do_not_read_the_k_means_settings(tmp_path):
    """A seedings cell's identity has the seedings' own settings: the run's kmeans.* change no
    cell (and the override says it changes nothing)."""
    kmdr.run([*SMALL, "repeats=1"], results_dir=tmp_path)
    before = _cells(tmp_path)
    with pytest.warns(UserWarning, match="does not read"):
        kmdr.run([*SMALL, "repeats=1", "kmeans.n_init=1"], results_dir=tmp_path)
    after = _cells(tmp_path)
    assert set(after["cell_id"]) == set(before["cell_id"])
    assert set(after["kmeans_n_init"]) == {5} and set(after["kmeans_max_iter"]) == {0}


def test_a_construction_s_parameters_and_version_are_in_its_cells_identity(tmp_path, monkeypatch):
    """Parameters given as {name, params} reach the construction and name other cells; a bumped
    construction version recomputes its cells and no other."""
    from kmdr.coresets import coreset_class

    kmdr.run([*SMALL, "repeats=1"], results_dir=tmp_path)
    first = _cells(tmp_path).set_index("construction")["cell_id"]
    monkeypatch.setattr(coreset_class("uniform"), "compat_version", 99)
    again = kmdr.run([*SMALL, "repeats=1"], results_dir=tmp_path)  # the cells this run asks for
    uniform = again[again["construction"] == "uniform"]["cell_id"]
    assert not set(uniform) & set(first.loc[["uniform"]])  # recomputed under the new version
    sensitivity = again[again["construction"] == "sensitivity"]["cell_id"]
    assert set(sensitivity) == set(first.loc[["sensitivity"]])  # reused
    with pytest.raises(ConfigError, match="uniform takes no parameter 'nope'"):
        kmdr.run([*SMALL[:-2], "kind_params.constructions=[{name:uniform,params:{nope:1}}]",
                  "repeats=1", "kind_params.size_factors=[4]"], results_dir=tmp_path)  # fmt: skip


def test_a_coreset_with_fewer_distinct_points_than_k_is_one_line(tmp_path):
    """Lloyd cannot place k centers on fewer distinct points: the cell is not written, and the
    run ends with one line."""
    data = tmp_path / "few.csv"
    rows = ["a,b,label"] + [f"{i % 2},{i % 2},{i % 3}" for i in range(30)]
    data.write_text("\n".join(rows) + "\n")
    with pytest.raises(Exception) as caught:
        kmdr.run(["dataset=file", f"dataset.params.path={data}", "dataset.params.label=label",
                  *PIPELINE[5:10], "r_grid=[1]", "kmeans.n_init=1",
                  "+kind_params.constructions=[uniform]", "+kind_params.sizes=[10]",
                  "+kind_params.solve=[lloyd]"], results_dir=tmp_path)  # fmt: skip
    assert "\n" not in str(caught.value)
    assert "distinct points, fewer than k = 3" in str(caught.value)
