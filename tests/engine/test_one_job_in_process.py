"""A run on this machine with a single job to compute computes it in its own process.

A worker would only hold a second copy of the data (loky memory-maps X into a file for it), which
at RCV1-v2's size is 0.7 GiB of the run's peak; with two jobs or more the workers compute.
"""

from __future__ import annotations

import os

import pytest

import kmdr as api
from _command import installed
from _procs import FAULTY, kmdr, make_plugin, plugin_env

pytestmark = pytest.mark.slow

#: The plugin reducer alone, which writes the pid of the process computing its cell (``pid:0``).
ALONE = "reducer=misbehave"


def test_a_single_job_is_computed_by_the_run_itself(tmp_path, monkeypatch):
    # kmdr.run in this process: the run's process is this one
    root = make_plugin(tmp_path / "plugin")
    pids = tmp_path / "pids.txt"
    faulty = [o for o in FAULTY if not o.startswith(("+reducers=", "r_grid="))]
    monkeypatch.setenv("KMDR_TEST_MISBEHAVE", "pid:0")
    monkeypatch.setenv("KMDR_TEST_RELEASE", str(pids))
    with installed(root / "site"):
        api.run(faulty, ALONE, "r_grid=[2]", "backend=loky", "n_jobs=2", results_dir=tmp_path)
    assert [int(line) for line in pids.read_text().split()] == [os.getpid()]


def test_several_jobs_go_to_the_workers(tmp_path):
    root = make_plugin(tmp_path / "plugin")
    pids = tmp_path / "pids.txt"
    proc = kmdr(
        "-cd",
        str(root / "conf"),
        "experiment=faulty",
        ALONE,
        "r_grid=[2,4,6]",
        "backend=loky",
        "n_jobs=2",
        f"results_dir={tmp_path / 'results'}",
        env=plugin_env(root, action="pid:0", release=pids),
    )
    assert proc.wait() == 0, proc.stderr
    computed_by = {int(line) for line in pids.read_text().split()}
    assert computed_by and proc.pid not in computed_by
