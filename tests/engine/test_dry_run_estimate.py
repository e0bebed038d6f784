"""A dry run's time estimate reads earlier cells of the same k-means protocol and scales their
clustering by the starts asked for: an ORL run with one start no longer borrows the clustering
time of the online-phase diagnostic (a hundred times slower), which made it ~4 minutes for a run
of under a second. (How close estimates come to measured runs is a bench, not a test.)"""

from __future__ import annotations

import csv

import pytest

from kmdr.engine.dry_run import earlier_times

COLUMNS = ["dataset", "reducer_name", "reduce_seconds", "cluster_seconds", "shared_seconds",
           "kmeans_init", "kmeans_n_init", "kmeans_online_phase", "cell_id"]  # fmt: skip


def _cells(folder, rows, extra=()):
    folder.mkdir(parents=True)
    with open(folder / "cells.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        columns = [c for c in COLUMNS if c != "cell_id"]
        writer.writerow([*columns, *extra, "cell_id"])
        writer.writerows([*row, f"c{i}"] for i, row in enumerate(rows))


def test_clustering_time_per_start_of_the_same_protocol(tmp_path):
    # the paper's protocol: 5 random starts, 0.5 s; the diagnostic: online phase, 60 s
    _cells(tmp_path / "paper", [["orl", "none", 0.01, 0.5, "", "random", 5, ""]] * 4)
    _cells(tmp_path / "online", [["orl", "none", 0.01, 60.0, "", "random", 5, "True"]] * 4)
    reduce, per_start, shared = earlier_times(tmp_path, "orl", ("random", False))["none"]
    assert per_start == pytest.approx(0.1) and reduce == pytest.approx(0.01) and shared == 0
    online = earlier_times(tmp_path, "orl", ("random", True))["none"][1]
    assert online == pytest.approx(12.0)
    # a protocol no earlier cell ran: every cell of the reducer, per start
    other = earlier_times(tmp_path, "orl", ("k-means++", False))["none"][1]
    assert other == pytest.approx((0.1 + 12.0) / 2)


def test_the_runs_start_is_the_median_of_the_earlier_runs_of_its_backend(tmp_path):
    import json

    from kmdr.engine.dry_run import earlier_start

    assert earlier_start(tmp_path, "loky") is None  # nothing recorded: no start added
    runs = tmp_path / "exp" / "runs"
    runs.mkdir(parents=True)
    for i, (backend, start) in enumerate([("loky", 0.4), ("loky", 0.6), ("loky", 2.0),
                                          ("dask", 9.0)]):  # fmt: skip
        record = {"run_id": f"r{i}", "backend": backend, "start_seconds": start}
        (runs / f"r{i}.json").write_text(json.dumps(record))
    (runs / "old.json").write_text(json.dumps({"run_id": "old", "backend": "loky"}))
    assert earlier_start(tmp_path, "loky") == pytest.approx(0.6)
    assert earlier_start(tmp_path, "dask") == pytest.approx(9.0)


def test_impossible_times_never_make_an_estimate_negative(tmp_path):
    _cells(tmp_path / "edited", [["orl", "sign", -5.0, "-inf", -1.0, "random", 5, ""]] * 2)
    assert earlier_times(tmp_path, "orl", ("random", False))["sign"] == (0.0, 0.0, 0.0)
    import json

    from kmdr.engine.dry_run import earlier_start

    runs = tmp_path / "edited" / "runs"
    runs.mkdir()
    (runs / "r.json").write_text(
        json.dumps({"run_id": "r", "backend": "loky", "start_seconds": -3})
    )
    assert earlier_start(tmp_path, "loky") is None


@pytest.mark.parametrize(
    ("own_cells", "says_committed"),
    [
        pytest.param(False, True, id="an-empty-folder-goes-by-the-committed-runs"),
        pytest.param(True, False, id="a-folder-with-earlier-cells-goes-by-its-own"),
    ],
)
def test_a_dry_run_into_an_empty_folder_estimates_from_the_committed_record(
    tmp_path, monkeypatch, capsys, own_cells, says_committed
):
    """``kmdr experiment=... dry_run=true results_dir=/tmp/empty`` from a checkout: the folder
    holds no earlier cell, so the estimate comes from the committed ``results/`` (the start
    folder's), and the total says where from."""
    import json

    import kmdr

    monkeypatch.chdir(tmp_path)
    overrides = ["dataset=synth", "reducer=sign", "r_grid=[5]", "repeats=1", "dry_run=true",
                 "n_jobs=1", "progress=false"]  # fmt: skip
    params = json.dumps(dict(kmdr.compose(*overrides[:4]).dataset.params))
    committed = [["synth", "sign", 0.01, 0.5, "", "k-means++", 5, ""]] * 2
    other_size = ["synth", "sign", 9.0, 9.0, "", "k-means++", 5, ""]  # another n: not read
    with_params = [[*row, params] for row in committed] + [[*other_size, '{"n_samples": 9}']]
    _cells(tmp_path / "results" / "exp", with_params, extra=["dataset_params"])
    if own_cells:
        _cells(tmp_path / "mine" / "exp", [["synth", "sign", 0.02, 1.0, "", "k-means++", 5, ""]])
    folder = tmp_path / "mine"
    assert kmdr.run(overrides, results_dir=folder).empty
    said = capsys.readouterr().err
    total = next(line for line in said.splitlines() if "total:" in line)
    assert "about" in total, said
    assert ("from the committed runs in results/" in total) == says_committed
    if says_committed:  # the committed cells of this dataset's size alone: 0.01 + 0.5 s
        assert "~0.5 s of work" in said or "~1 s of work" in said, said
    assert not (folder / "custom").exists()


def test_a_kinds_own_cells_are_estimated_from_the_experiments_recorded_runs(
    tmp_path, monkeypatch, capsys
):
    """The coresets kind's cells have no reducer-level estimate; a dry run into an empty folder
    goes by the wall time per computed cell of the committed runs of its experiment."""
    import json
    import re

    import kmdr

    monkeypatch.chdir(tmp_path)
    runs = tmp_path / "results" / "mine" / "runs"
    runs.mkdir(parents=True)
    record = {"run_id": "r0", "wall_seconds": 10.0, "n_cells_computed": 5}
    (runs / "r0.json").write_text(json.dumps(record))
    overrides = ["experiment=ss22_usps_reducers", "name=mine", "dataset=synth", "r_grid=[5]",
                 "repeats=1", "dry_run=true", "n_jobs=1", "progress=false"]  # fmt: skip
    assert kmdr.run(overrides, results_dir=tmp_path / "empty").empty
    total = next(line for line in capsys.readouterr().err.splitlines() if "total:" in line)
    n = int(re.search(r"total: (\d+) of", total).group(1))
    assert f"about {duration(2.0 * n)}, at the wall time per cell" in total, total
    assert "results/mine/" in total


def duration(seconds: float) -> str:
    from kmdr.engine.progress import duration_text

    return f"{seconds:.1f} s" if seconds < 10 else duration_text(seconds)
