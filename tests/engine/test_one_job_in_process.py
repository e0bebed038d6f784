"""A run on this machine with a single job to compute computes it in its own process.

A worker would only hold a second copy of the data (loky memory-maps X into a file for it), which
at RCV1-v2's size is 0.7 GiB of the run's peak; with two jobs or more the workers compute.
"""

from __future__ import annotations

import pytest

from _procs import kmdr, make_plugin, plugin_env

pytestmark = pytest.mark.slow


def _computing_pids(tmp_path, r_grid: str) -> tuple[int, list[int]]:
    root = make_plugin(tmp_path / "plugin")
    pids = tmp_path / "pids.txt"
    proc = kmdr(
        "-cd",
        str(root / "conf"),
        "experiment=faulty",
        "reducers=[{id: misbehave, name: misbehave, params: {}}]",
        f"r_grid={r_grid}",
        "backend=loky",
        "n_jobs=2",
        f"results_dir={tmp_path / 'results'}",
        env=plugin_env(root, action="pid:0", release=pids),
    )
    assert proc.wait() == 0, proc.stderr
    return proc.pid, [int(line) for line in pids.read_text().split()]


def test_a_single_job_is_computed_by_the_run_itself(tmp_path):
    run_pid, pids = _computing_pids(tmp_path, "[2]")
    assert pids and set(pids) == {run_pid}


def test_several_jobs_go_to_the_workers(tmp_path):
    run_pid, pids = _computing_pids(tmp_path, "[2,4,6]")
    assert len(set(pids)) >= 1 and run_pid not in pids
