"""A dry run's time estimate reads earlier cells of the same k-means protocol and scales their
clustering by the starts asked for: an ORL run with one start no longer borrows the clustering
time of the online-phase diagnostic (a hundred times slower), which made it ~4 minutes for a run
of under a second. (How close estimates come to measured runs is a bench, not a test.)"""

from __future__ import annotations

import csv

import pytest

from kmdr.engine.dry_run import earlier_times

COLUMNS = ["dataset", "reducer_name", "reduce_seconds", "cluster_seconds", "shared_seconds",
           "kmeans_init", "kmeans_n_init", "kmeans_online_phase"]  # fmt: skip


def _cells(folder, rows):
    folder.mkdir(parents=True)
    with open(folder / "cells.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
        writer.writerows(rows)


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
