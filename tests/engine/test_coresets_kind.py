"""The coresets kind end to end, in this process: cells with a cell's identity in cells.csv, the
distortion on the original data, resume, and its one-line refusals."""

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
