"""Two runs sweeping into one results folder at once: both finish, each cell is computed once,
no row is lost or duplicated. Real OS processes, not mocks."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd

from kmdr.experiments.store import IDENTITY_COLUMNS

RUN = textwrap.dedent(
    """
    import sys
    from kmdr.experiments.runner import run_experiment
    from kmdr.experiments.spec import spec_from_config

    cfg = {
        "name": "shared",
        "dataset": {"name": "synth",
                    "params": {"n_samples": 200, "n_features": 40, "n_clusters": 4}},
        "reducers": [{"name": "sign"}, {"name": "gaussian"}, {"name": "leverage"}],
        "r_grid": [2, 4, 6, 8, 10, 12],
        "repeats": int(sys.argv[2]),
        "kmeans": {"n_init": 3, "max_iter": 100},
        "n_jobs": 1,
        "blas_threads": 1,
        "results_dir": sys.argv[1],
        "figures": False,
        "progress": False,
    }
    outcome = run_experiment(spec_from_config(cfg), log=lambda msg: None)
    print(outcome.n_computed, outcome.n_reused, outcome.n_expected)
    """
)


def _start(results_dir, repeats: int) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(
        [sys.executable, "-c", RUN, str(results_dir), str(repeats)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _finish(proc: subprocess.Popen) -> tuple[int, int, int]:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    computed, reused, expected = map(int, out.split())
    return computed, reused, expected


def test_two_identical_sweeps_at_once_compute_each_cell_once(tmp_path):
    first, second = _start(tmp_path, 4), _start(tmp_path, 4)
    a, b = _finish(first), _finish(second)
    grid = 3 * 6 * 4
    assert a[2] == b[2] == grid
    # Between them every cell was computed exactly once; each run accounts for all of them.
    assert a[0] + b[0] == grid
    assert a[0] + a[1] == grid and b[0] + b[1] == grid
    cells = pd.read_csv(tmp_path / "shared" / "cells.csv")
    assert len(cells) == grid
    assert not cells.duplicated(list(IDENTITY_COLUMNS)).any()
    assert cells["cell_id"].is_unique
    # Both records are complete, and their computed cells do not overlap.
    records = [json.loads(p.read_text()) for p in (tmp_path / "shared" / "runs").glob("*.json")]
    assert sorted(r["status"] for r in records) == ["complete", "complete"]
    assert sorted(r["n_cells_computed"] for r in records) == sorted([a[0], b[0]])
    run_ids = set(cells["run_id"])
    assert run_ids == {r["run_id"] for r in records if r["n_cells_computed"]}


def test_overlapping_sweeps_share_the_common_cells(tmp_path):
    small, large = _start(tmp_path, 2), _start(tmp_path, 4)
    s, big = _finish(small), _finish(large)
    assert s[2] == 3 * 6 * 2 and big[2] == 3 * 6 * 4
    # The union is computed once: the large sweep's grid holds the small one's.
    assert s[0] + big[0] == 3 * 6 * 4
    cells = pd.read_csv(tmp_path / "shared" / "cells.csv")
    assert len(cells) == 3 * 6 * 4 and cells["cell_id"].is_unique


def test_a_run_killed_mid_sweep_leaves_its_cells_to_the_other(tmp_path):
    doomed = _start(tmp_path, 6)
    cells_dir = tmp_path / "shared" / "cells"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(cells_dir.glob("*.json"))) < 5:
        time.sleep(0.05)
    survivor = _start(tmp_path, 6)
    time.sleep(0.5)
    doomed.send_signal(signal.SIGKILL)  # its claims die with it
    doomed.wait(timeout=30)
    computed, reused, expected = _finish(survivor)
    assert expected == 3 * 6 * 6 and computed + reused == expected
    cells = pd.read_csv(tmp_path / "shared" / "cells.csv")
    assert len(cells) == expected and cells["cell_id"].is_unique
