"""A dry run's time estimate reads earlier cells of the same k-means protocol and scales their
clustering by the starts asked for: an ORL run with one start no longer borrows the clustering
time of the online-phase diagnostic (a hundred times slower), which made it ~4 minutes for a run
of under a second. (How close estimates come to measured runs is a bench, not a test.)"""

from __future__ import annotations

import pytest

from kmdr.engine.dry_run import earlier_times
from kmdr.results.records import identity_id, row_fields
from kmdr.results.store import CellStore

COLUMNS = ["dataset", "reducer_name", "reduce_seconds", "cluster_seconds", "shared_seconds",
           "kmeans_init", "kmeans_n_init", "kmeans_online_phase"]  # fmt: skip


def _cells(folder, rows):
    """Sealed cells of ``rows`` (values of COLUMNS, one repetition each) in ``folder``."""
    store = CellStore(folder)
    for i, values in enumerate(rows):
        row = {
            "experiment": folder.name, "dataset_params": "{}", "reducer": "x", "method": "x",
            "reducer_params": "{}", "r": 2, "repetition": i, "seed": 1, "base_seed": 0,
            "n_samples": 10, "n_features": 5, "n_clusters": 2, "kmeans_max_iter": 100,
            "kmeans_tol": 1e-4, "data_fingerprint": "content:x", "code_tag": "3/1",
            "objective": 1.5, "objective_reduced": 1.0, "accuracy": 0.9, "nmi": 0.8, "ari": 0.7,
            "n_iter": 3, "shared_key": "", "total_seconds": 0.3, "n_jobs": 1, "blas_threads": 1,
            "converged": True, "reduce_timing": "per cell", "run_id": "run", "finished_at": "1",
            **{c: v for c, v in zip(COLUMNS, values, strict=True) if v != ""},
        }  # fmt: skip
        row["cell_id"] = identity_id(row_fields(row))
        store.write_cell(row["cell_id"], row)


def test_clustering_time_per_start_of_the_same_protocol(tmp_path):
    # the paper's protocol: 5 random starts, 0.5 s; the diagnostic: online phase, 60 s
    _cells(tmp_path / "paper", [["orl", "none", 0.01, 0.5, 0.0, "random", 5, ""]] * 4)
    _cells(tmp_path / "online", [["orl", "none", 0.01, 60.0, 0.0, "random", 5, True]] * 4)
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
    _cells(tmp_path / "edited", [["orl", "sign", -5.0, float("-inf"), -1.0, "random", 5, ""]] * 2)
    assert earlier_times(tmp_path, "orl", ("random", False))["sign"] == (0.0, 0.0, 0.0)
    import json

    from kmdr.engine.dry_run import earlier_start

    runs = tmp_path / "edited" / "runs"
    runs.mkdir()
    (runs / "r.json").write_text(
        json.dumps({"run_id": "r", "backend": "loky", "start_seconds": -3})
    )
    assert earlier_start(tmp_path, "loky") is None
