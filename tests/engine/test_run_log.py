"""Each run that computes keeps a log file beside its record (``runs/<run_id>.log``): what it said,
and the traceback of a failure, which the terminal gets as one line naming that file (the whole
traceback only with ``verbosity=verbose``). Real processes: the ``kmdr`` command with a plug-in
reducer that raises deep inside a cell."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from _procs import kmdr, make_plugin, plugin_env, wait_for

pytestmark = pytest.mark.slow

TINY = [
    "dataset=synth",
    "+dataset.params={n_samples:60,n_features:12,n_clusters:3}",
    "reducers=[{name:misbehave}]",
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


@pytest.mark.fault(
    "a reducer that raises inside a cell (a plain error deep in its code)",
    gets="exit 1, one line naming the cell, the cause and the run's log file, which holds the "
    "traceback; the finished cells kept",
)
@pytest.mark.parametrize("n_jobs", ["1", "2"])
def test_a_failure_is_one_line_and_its_traceback_is_in_the_runs_log(tmp_path, n_jobs):
    proc = _run(tmp_path, f"n_jobs={n_jobs}")
    assert proc.returncode == 1, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("kmdr: error:")]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "ZeroDivisionError" in lines[0] and "the reducer divided by zero" in lines[0]
    assert lines[0].startswith("kmdr: error: reducer 'misbehave' in cell r=4 repetition 0 (")
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
    root = make_plugin(tmp_path / "plugin")
    env = {**os.environ, **plugin_env(root, "none:0")}
    args = [sys.executable, "-m", "kmdr.app", *TINY, f"results_dir={tmp_path / 'r'}", "n_jobs=1"]
    for _ in range(2):  # the second run reuses every cell: no record, no log of its own
        subprocess.run(args, env=env, cwd=tmp_path, check=True, capture_output=True, timeout=300)
    runs = tmp_path / "r" / "custom" / "runs"
    records = {p.stem for p in runs.glob("*.json")}
    assert len(records) == 1 and {p.stem for p in runs.glob("*.log")} <= records


@pytest.mark.fault(
    "a worker process prints on stderr while it computes a cell (a library's warning or "
    "traceback, loky's resource tracker relaunched in it)",
    gets="written into the run's log file, not onto the terminal (verbosity=verbose: the terminal)",
)
def test_what_a_worker_prints_goes_to_the_runs_log(tmp_path):
    proc = _run(tmp_path, "n_jobs=2", action="stderr:4")
    assert proc.returncode == 0, proc.stderr
    assert "a worker's own line" not in proc.stderr
    (log,) = (tmp_path / "r" / "custom" / "runs").glob("*.log")
    assert "a worker's own line on stderr" in log.read_text()
    shown = _run(tmp_path / "verbose", "n_jobs=2", "verbosity=verbose", action="stderr:4")
    assert shown.returncode == 0 and "a worker's own line on stderr" in shown.stderr


def _descendants(pid: int) -> list[int]:
    """The processes under ``pid``, read from /proc (each one's parent is field 4 of its stat)."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = [], [pid]
    while frontier:
        children = [p for p, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.fault(
    "loky's resource tracker process dies during a run (killed, or taken by the out-of-memory "
    "killer)",
    gets="the run finishes; the relaunched tracker's tracebacks (cleanup of resources it never "
    "registered) go into the run's log file, loky's one warning that it relaunched it stays",
)
def test_the_relaunched_resource_trackers_tracebacks_go_to_the_runs_log(tmp_path):
    root = make_plugin(tmp_path / "plugin")
    release = tmp_path / "release"
    env = {**os.environ, **plugin_env(root, "hold:4", release)}
    env.pop("HYDRA_FULL_ERROR", None)
    # data over joblib's memmapping threshold (1 MB): the workers' shared copy is a resource
    # the tracker follows, and the relaunched one is told to clean up what it never saw
    grid = ["+dataset.params={n_samples:20000,n_features:12,n_clusters:3}", "r_grid=[2,4,6,8]"]
    args = [
        *(a for a in TINY if not a.startswith(("r_grid=", "+dataset"))),
        *grid,
        f"results_dir={tmp_path / 'r'}",
        "n_jobs=2",
    ]
    proc = kmdr(*args, env=env, cwd=tmp_path)
    try:
        # the run computes (its log is open, a worker holds its cell), then the trackers die
        wait_for(lambda: list((tmp_path / "r" / "custom" / "runs").glob("*.log")), "the log", proc)
        tracker = wait_for(
            lambda: [p for p in _descendants(proc.pid) if "resource_tracker" in _cmdline(p)],
            "loky's resource tracker",
            proc,
        )
        for pid in tracker:
            os.kill(pid, signal.SIGKILL)
        release.touch()
        assert proc.wait() == 0, proc.stderr
    finally:
        proc.kill()
    # loky's warning that it relaunched the tracker (a Python warning) stays; the tracebacks of
    # the new tracker are in the log
    assert "Traceback" not in proc.stderr and "KeyError" not in proc.stderr, proc.stderr
    (log,) = (tmp_path / "r" / "custom" / "runs").glob("*.log")
    assert "KeyError" in log.read_text()
