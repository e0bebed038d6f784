"""Each run that computes keeps a log file beside its record (``runs/<run_id>.log``): what it said,
and the traceback of a failure, which the terminal gets as one line naming that file (the whole
traceback only with ``verbosity=verbose``). Real processes: the ``kmdr`` command with a plug-in
reducer that raises deep inside a cell."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from _cases import case
from _command import kmdr as kmdr_here
from _overrides import overridden
from _procs import make_plugin, plugin_env

pytestmark = pytest.mark.slow

TINY = [
    "dataset=synth",
    "+dataset.params={n_samples:60,n_features:12,n_clusters:3}",
    "reducer=misbehave",
    "r_grid=[2,4]",
    "repeats=1",
    "kmeans.n_init=1",
    "figures=false",
    "progress=false",
]


def _run(tmp_path, *args: str, action: str = "raise:4") -> subprocess.CompletedProcess:
    root = make_plugin(tmp_path / "plugin")
    env = {**os.environ, **plugin_env(root, action)}
    env.pop("HYDRA_FULL_ERROR", None)
    return subprocess.run(
        [sys.executable, "-m", "kmdr.app", *TINY, f"results_dir={tmp_path / 'r'}", *args],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("n_jobs", "says"),
    [
        case(
            n,
            says="kmdr: error: reducer 'misbehave' in cell r=4 repetition 0 (",
            doing="plugin",
            cause="a reducer raised an error inside a cell; the line names the cell, the error "
            "and the run's log, which holds the traceback",
            fix="fix the reducer's code (the traceback in the log shows where), then run the "
            "same command: the finished cells are kept",
            id=f"n_jobs={n}",
        )
        for n in ("1", "2")
    ],
)
def test_a_failure_is_one_line_and_its_traceback_is_in_the_runs_log(tmp_path, n_jobs, says):
    proc = _run(tmp_path, f"n_jobs={n_jobs}")
    assert proc.returncode == 1, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("kmdr: error:")]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "ZeroDivisionError" in lines[0] and "the reducer divided by zero" in lines[0]
    assert lines[0].startswith(says)
    (log,) = (tmp_path / "r" / "custom" / "runs").glob("*.log")
    assert f"its traceback: {log}" in lines[0]
    text = log.read_text()
    assert "Traceback (most recent call last)" in text and "the reducer divided by zero" in text
    assert "cells: start" not in text or "custom: cells" in text  # its own lines are there too


def test_verbose_shows_the_traceback_on_the_terminal_too(tmp_path):
    proc = _run(tmp_path, "n_jobs=1", "verbosity=verbose")
    assert proc.returncode == 1
    assert "Traceback (most recent call last)" in proc.stderr
    assert proc.stderr.rstrip().splitlines()[-1].startswith("kmdr: error:")


def test_a_run_that_computes_nothing_leaves_no_log(tmp_path):
    # the command in this process, on a built-in reducer: no process or plug-in is the point
    args = [*TINY, f"results_dir={tmp_path / 'r'}", "n_jobs=1"]
    for _ in range(2):  # the second run reuses every cell: no record, no log of its own
        kmdr_here(overridden(args, "reducer=sign"))
    runs = tmp_path / "r" / "custom" / "runs"
    records = {p.stem for p in runs.glob("*.json")}
    assert len(records) == 1 and {p.stem for p in runs.glob("*.log")} <= records
