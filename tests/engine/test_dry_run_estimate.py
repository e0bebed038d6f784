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


def _cells(folder, rows):
    folder.mkdir(parents=True)
    with open(folder / "cells.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
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
