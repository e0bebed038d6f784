"""Two runs sweeping into one results folder at once: the second waits for the first's folder
lock, both finish, each cell is computed once, no row is lost or duplicated. Real OS processes,
not mocks: the other runs are processes, one of the runs is the test's own process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pandas as pd
import pytest

from _procs import cells_done, kmdr, make_plugin, one_line, plugin_env, statuses, wait_for
from kmdr.results.records import IDENTITY_COLUMNS


def config(results_dir, repeats: int) -> dict:
    """The sweep every run of these tests makes, into ``results_dir``."""
    return {
        "name": "shared",
        "dataset": {
            "name": "synth",
            "params": {"n_samples": 200, "n_features": 40, "n_clusters": 4},
        },
        "reducers": [{"name": "sign"}, {"name": "gaussian"}, {"name": "leverage"}],
        "r_grid": [2, 4, 6, 8, 10, 12],
        "repeats": repeats,
        "kmeans": {"n_init": 3, "max_iter": 100},
        "n_jobs": 1,
        "blas_threads": 1,
        "results_dir": str(results_dir),
        "figures": False,
        "progress": False,
    }


RUN = textwrap.dedent(
    """
    import json, sys
    from kmdr.engine.session import Session
    from kmdr.config.schema import from_config

    spec = from_config(json.loads(sys.argv[1]))
    with Session(spec.execution) as session:
        outcome = session.run(spec.experiment, spec.output)
    print(outcome.n_computed, outcome.n_reused, outcome.n_expected)
    """
)


def _run_here(results_dir, repeats: int) -> tuple[int, int, int]:
    """The sweep run in this process: (computed, reused, expected)."""
    from _run_configs import run_alone
    from kmdr.config.schema import from_config

    outcome = run_alone(*from_config(config(results_dir, repeats)))
    return outcome.n_computed, outcome.n_reused, outcome.n_expected


def _start(results_dir, repeats: int) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(
        [sys.executable, "-c", RUN, json.dumps(config(results_dir, repeats))],
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


@pytest.mark.slow
def test_identical_and_overlapping_sweeps_at_once_compute_each_cell_once(tmp_path):
    # Two identical sweeps and a smaller one whose grid the others hold, all at once: the two
    # identical ones are processes, the smaller one runs here meanwhile.
    runs = [_start(tmp_path, 4), _start(tmp_path, 4)]
    smaller = _run_here(tmp_path, 2)
    done = [*(_finish(run) for run in runs), smaller]
    grid = 3 * 6 * 4
    assert [d[2] for d in done] == [grid, grid, 3 * 6 * 2]
    # Between them every cell of the union was computed exactly once; each run accounts for all
    # of its own.
    assert sum(d[0] for d in done) == grid
    assert all(d[0] + d[1] == d[2] for d in done)
    cells = pd.read_csv(tmp_path / "shared" / "cells.csv")
    assert len(cells) == grid
    assert not cells.duplicated([c for c in IDENTITY_COLUMNS if c in cells]).any()
    assert cells["cell_id"].is_unique
    # One of the identical sweeps waited for the other and reused every cell.
    assert 0 in (done[0][0], done[1][0])
    # A run that computed nothing left no record; the others' records say what they computed.
    records = [json.loads(p.read_text()) for p in (tmp_path / "shared" / "runs").glob("*.json")]
    computed = sorted(d[0] for d in done if d[0])
    assert sorted(r["n_cells_computed"] for r in records) == computed
    assert {r["status"] for r in records} == {"complete"}
    assert set(cells["run_id"]) == {r["run_id"] for r in records}


@pytest.mark.slow
def test_a_run_killed_mid_sweep_leaves_its_cells_to_the_other(tmp_path):
    doomed = _start(tmp_path, 6)
    path = tmp_path / "shared" / "cells.csv"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (
        not path.exists() or len(path.read_bytes().splitlines()) < 6
    ):
        time.sleep(0.05)
    # the survivor runs here, waiting for the doomed run's folder lock when it is killed
    killer = threading.Timer(0.5, doomed.send_signal, (signal.SIGKILL,))  # its lock dies with it
    killer.start()
    try:
        computed, reused, expected = _run_here(tmp_path, 6)
    finally:
        killer.cancel()
        doomed.kill()
        doomed.wait(timeout=30)
    assert expected == 3 * 6 * 6 and computed + reused == expected
    cells = pd.read_csv(tmp_path / "shared" / "cells.csv")
    assert len(cells) == expected and cells["cell_id"].is_unique


# -- waiting for another run's folder ----------------------------------------------------------


@pytest.mark.slow
def test_sigterm_while_waiting_for_another_run(faulty, tmp_path):
    holder, exp = _stuck(faulty, tmp_path)
    try:
        waiter = _faulty_run(faulty, tmp_path, "none:0")
        try:
            wait_for(lambda: "waiting for" in waiter.stderr, "the waiting line", waiter)
            waiter.signal(signal.SIGTERM)
            assert waiter.wait() == 143, waiter.stderr
        finally:
            waiter.kill()
        assert holder.popen.poll() is None  # the holder is still computing
    finally:
        holder.kill()
    assert one_line(waiter.stderr).startswith("kmdr: interrupted (SIGTERM)")
    assert statuses(exp) == ["running"]  # the holder's record alone


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    return make_plugin(tmp_path_factory.mktemp("plugin"))


def _faulty_run(project, results, action: str, *extra: str, release=None):
    args = ["-cd", str(project / "conf"), "experiment=faulty", f"results_dir={results}"]
    env = plugin_env(project, action, release)
    return kmdr(*args, "n_jobs=1", *extra, env=env, cwd=results)


def _stuck(project, results, action: str = "sleep:2", release=None):
    """A run computing its last cell (which sleeps), the five others on disk."""
    proc = _faulty_run(project, results, action, release=release)
    exp = results / "faulty"
    wait_for(lambda: len(cells_done(exp)) >= 5, "five cells on disk", proc)
    return proc, exp
