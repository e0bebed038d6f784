"""A run stopped by a signal, or whose worker or reducer ends a process: real ``kmdr`` processes,
real signals (``os.kill``/``os.killpg``), each test waiting for a STATE (cell files on disk, the
sidecar saying running, a line on stderr), never for a time.

The ``faulty`` preset (tests/_procs.py) runs ``sign`` and a plugin reducer ``misbehave`` at r = 6,
4, 2 (jobs run largest r first); ``misbehave`` sleeps, exits or dies in its r = 2 cell on demand,
so the five other cells are on disk when it does.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import sys
from pathlib import Path

import pandas as pd
import pytest

from _procs import (
    Proc,
    alive,
    cell_files,
    children,
    kmdr,
    make_plugin,
    one_line,
    plugin_env,
    sidecars,
    statuses,
    wait_for,
)

# Every test here starts a process or sends a signal.
pytestmark = pytest.mark.slow

fault = pytest.mark.fault


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return make_plugin(tmp_path_factory.mktemp("plugin"))


def start(project, results, action="none:0", *extra, flags=()):
    args = [*flags, "-cd", str(project / "conf"), "experiment=faulty", f"results_dir={results}"]
    return kmdr(*args, *extra, env=plugin_env(project, action), cwd=results)


def stuck(project, results, n_jobs: int, *extra):
    """A run whose last cell sleeps for an hour, once the other five cells are on disk."""
    proc = start(project, results, "sleep:2", f"n_jobs={n_jobs}", *extra)
    exp = results / "faulty"
    wait_for(lambda: len(cell_files(exp)) >= 5, "five cells on disk", proc)
    wait_for(lambda: statuses(exp) == ["running"], "the sidecar saying running", proc)
    return proc, exp


def _kept(exp, n: int | None = 5) -> None:
    """The n finished cells (None: some) are on disk and cells.csv lists exactly them (never a
    lagging or partial file)."""
    files = sorted(path.stem for path in cell_files(exp))
    assert len(files) == n if n is not None else files
    assert sorted(pd.read_csv(exp / "cells.csv")["cell_id"]) == files


@pytest.mark.parametrize(
    ("signum", "group", "status", "words", "n_jobs"),
    [
        pytest.param(
            signal.SIGTERM,
            False,
            143,
            "interrupted (SIGTERM)",
            2,
            marks=fault(
                "kmdr is sent SIGTERM mid-run (kill, a batch system's cancel)",
                gets="like Ctrl-C: one line, exit 143, sidecar interrupted, workers stopped, "
                "finished cells kept",
            ),
            id="sigterm",
        ),
        pytest.param(
            signal.SIGTERM,
            True,
            143,
            "interrupted (SIGTERM)",
            2,
            marks=fault(
                "SIGTERM to kmdr's whole process group, workers included (timeout(1), a "
                "service manager)",
                gets="one line, exit 143, sidecar interrupted (not failed), cells kept",
            ),
            id="sigterm-group",
        ),
        pytest.param(
            signal.SIGINT,
            True,
            130,
            "interrupted;",
            2,
            marks=fault(
                "Ctrl-C (SIGINT to the whole process group) mid-run with parallel workers",
                gets="one line, exit 130, sidecar interrupted, workers stopped, cells kept",
            ),
            id="ctrl-c",
        ),
        pytest.param(
            signal.SIGHUP,
            False,
            129,
            "interrupted (SIGHUP)",
            1,
            marks=fault(
                "the terminal running kmdr is closed (SIGHUP) mid-run",
                gets="like Ctrl-C: one line, exit 129, sidecar interrupted, cells kept",
            ),
            id="sighup",
        ),
    ],
)
# A run's finished cells come back as they complete from joblib 1.4 on (kept by a stop)
@pytest.mark.floors
def test_a_stop_signal_ends_the_run_like_ctrl_c(
    project, tmp_path, signum, group, status, words, n_jobs
):
    proc, exp = stuck(project, tmp_path, n_jobs)
    workers = children(proc.pid)
    try:
        proc.signal(signum, group=group)
        assert proc.wait() == status, proc.stderr
    finally:
        proc.kill()
    line = one_line(proc.stderr)
    assert line.startswith(f"kmdr: {words}") and "run the same command to resume" in line
    assert statuses(exp) == ["interrupted"]
    _kept(exp)
    wait_for(lambda: not [pid for pid in workers if alive(pid)], "the workers to exit", timeout=60)


@fault(
    "SIGTERM while the cell runs in kmdr's own process (n_jobs=1)",
    gets="one line, exit 143, sidecar interrupted, cells kept",
)
def test_sigterm_with_one_worker(project, tmp_path):
    proc, exp = stuck(project, tmp_path, 1)
    try:
        proc.signal(signal.SIGTERM)
        assert proc.wait() == 143, proc.stderr
    finally:
        proc.kill()
    assert one_line(proc.stderr).startswith("kmdr: interrupted (SIGTERM)")
    assert statuses(exp) == ["interrupted"]
    _kept(exp)


@fault(
    "Ctrl-C pressed again, then SIGTERM, while kmdr is stopping (writing cells.csv)",
    gets="the stop completes: one line, exit 130, sidecar interrupted, cells.csv whole",
)
def test_more_signals_while_stopping_do_not_cut_the_stop_short(project, tmp_path):
    proc, exp = stuck(project, tmp_path, 2)
    # The run is stopped while the signals arrive, so it handles them one after another as it
    # goes on: the later ones while it is stopping.
    proc.signal(signal.SIGSTOP)
    try:
        proc.signal(signal.SIGINT, group=True)
        proc.signal(signal.SIGTERM)
        proc.signal(signal.SIGCONT)
        assert proc.wait() == 130, proc.stderr
    finally:
        proc.kill()
    assert one_line(proc.stderr).startswith("kmdr: interrupted;")
    assert statuses(exp) == ["interrupted"]
    _kept(exp)


_NO_DASK = importlib.util.find_spec("distributed") is None


def _backends(loky: tuple[str, str], dask: tuple[str, str]) -> list:
    """The ``backend`` parameters of a test run on loky and on a dask LocalCluster: each with
    its fault case and outcome; dask's skipped where distributed is not installed."""
    return [
        pytest.param("loky", marks=fault(loky[0], gets=loky[1])),
        pytest.param(
            "dask",
            marks=[
                fault(dask[0], gets=dask[1]),
                pytest.mark.skipif(_NO_DASK, reason="needs dask.distributed (kmdr[dask])"),
            ],
        ),
    ]


@pytest.mark.parametrize(
    "backend",
    _backends(
        (
            "the kmdr process is killed with kill -9 while its workers compute a long cell",
            "each worker notices and exits within seconds instead of computing on",
        ),
        (
            "the kmdr process is killed with kill -9 while its dask LocalCluster computes a "
            "long cell",
            "the cluster's worker processes exit within seconds",
        ),
    ),
)
def test_workers_exit_soon_after_the_main_process_is_killed(project, tmp_path, backend):
    proc, _ = stuck(project, tmp_path, 2, f"backend={backend}")
    workers = [pid for pid in children(proc.pid) if alive(pid)]
    assert workers
    try:
        proc.signal(signal.SIGKILL)
        proc.wait()
        # the sleeping cell would run for an hour
        wait_for(lambda: not [p for p in workers if alive(p)], "the workers to exit", timeout=60)
    finally:
        proc.kill()
        for pid in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _workers(pid: int) -> list[int]:
    """The loky workers of the run ``pid`` (none yet: [])."""
    found = []
    for kid in children(pid):
        with contextlib.suppress(OSError):
            if b"popen_loky" in Path(f"/proc/{kid}/cmdline").read_bytes():
                found.append(kid)
    return found


def _failed_one_line(proc, exp, *words):
    assert proc.wait() == 1, proc.stderr
    line = one_line(proc.stderr)
    assert line.startswith("kmdr: error: faulty failed (CellAborted: "), line
    for word in words:
        assert word in line, line
    (record,) = sidecars(exp)
    assert record["status"] == "failed" and "CellAborted" in record["error"]
    _kept(exp, None)  # the cells in flight beside the failing one may not have finished


@pytest.mark.parametrize(
    ("action", "n_jobs", "raised"),
    [
        pytest.param(
            "exit",
            2,
            "SystemExit(0)",
            marks=fault(
                "a reducer calls sys.exit(0) in a worker",
                gets="one line naming the reducer and the cell; sidecar failed; cells kept",
            ),
            id="sys.exit-worker",
        ),
        pytest.param(
            "exit",
            1,
            "SystemExit(0)",
            marks=fault(
                "a reducer calls sys.exit(0) in kmdr's own process (n_jobs=1)",
                gets="one line naming the reducer and the cell; exit 1, not a silent 0",
            ),
            id="sys.exit-main",
        ),
        pytest.param(
            "keyboard",
            2,
            "KeyboardInterrupt",
            marks=fault(
                "a reducer raises KeyboardInterrupt itself (no key was pressed)",
                gets="one line naming the reducer and the cell; sidecar failed, not interrupted",
            ),
            id="keyboard-worker",
        ),
        pytest.param(
            "keyboard",
            1,
            "KeyboardInterrupt",
            marks=fault(
                "a reducer raises KeyboardInterrupt in kmdr's own process (n_jobs=1)",
                gets="one line naming the reducer and the cell; sidecar failed",
            ),
            id="keyboard-main",
        ),
        pytest.param(
            "base",
            2,
            "Abort(the reducer gave up)",
            marks=fault(
                "a reducer raises its own BaseException subclass",
                gets="one line naming the reducer, the cell and the exception; cells kept",
            ),
            id="base-exception",
        ),
    ],
)
def test_a_reducer_ending_the_process_is_one_line_naming_the_cell(
    project, tmp_path, action, n_jobs, raised
):
    proc = start(project, tmp_path, f"{action}:2", f"n_jobs={n_jobs}")
    try:
        _failed_one_line(proc, tmp_path / "faulty", "reducer 'misbehave'", "r=2", raised)
    finally:
        proc.kill()


@fault(
    "a reducer calls os._exit in a worker (the worker process dies mid-cell)",
    gets="one line saying a worker died; sidecar failed; cells kept",
)
def test_a_worker_that_dies_is_one_line(project, tmp_path):
    proc = start(project, tmp_path, "os_exit:2", "n_jobs=2")
    try:
        _failed_one_line(proc, tmp_path / "faulty", "worker process died")
    finally:
        proc.kill()


@fault(
    "a worker is killed (kill -9, the OOM killer) while it computes a cell",
    gets="one line saying a worker died; sidecar failed; other cells kept",
)
def test_a_worker_killed_mid_cell(project, tmp_path):
    proc, exp = stuck(project, tmp_path, 2)
    try:
        # every worker of the pool: the one computing the last cell among them
        workers = wait_for(lambda: _workers(proc.pid), "the run's workers", proc)
        for worker in workers:
            os.kill(worker, signal.SIGKILL)
        _failed_one_line(proc, exp, "worker process died")
    finally:
        proc.kill()


@fault(
    "n_jobs=1000 on a machine with a few cores",
    gets="capped to the cores with one line saying so; the run completes",
)
def test_n_jobs_beyond_the_cores_is_capped(project, tmp_path):
    proc = start(project, tmp_path, "none:0", "n_jobs=1000")
    try:
        assert proc.wait() == 0, proc.stderr
    finally:
        proc.kill()
    assert "[kmdr] n_jobs=1000 capped to" in proc.stderr
    assert statuses(tmp_path / "faulty") == ["complete"]
    _kept(tmp_path / "faulty", 6)


@fault(
    "SIGTERM to a multirun (-m) while its first job computes",
    gets="one line, exit 143, that job's sidecar interrupted, no later job started",
)
def test_sigterm_to_a_multirun(project, tmp_path):
    proc = start(project, tmp_path, "sleep:2", "n_jobs=1", "seed=0,1", flags=["-m"])
    exp = tmp_path / "faulty"
    try:
        wait_for(lambda: len(cell_files(exp)) >= 5, "five cells on disk", proc)
        proc.signal(signal.SIGTERM)
        assert proc.wait() == 143, proc.stderr
    finally:
        proc.kill()
    assert "kmdr: interrupted (SIGTERM)" in proc.stderr and "Traceback" not in proc.stderr
    assert statuses(exp) == ["interrupted"]
    _kept(exp)


@pytest.mark.parametrize(
    ("signum", "group", "status", "words"),
    [
        pytest.param(
            signal.SIGINT,
            True,
            130,
            "interrupted",
            marks=fault(
                "Ctrl-C while kmdr is still loading the data, before any cell",
                gets="one line, exit 130, no sidecar left saying running",
            ),
            id="ctrl-c",
        ),
        pytest.param(
            signal.SIGTERM,
            False,
            143,
            "interrupted (SIGTERM)",
            marks=fault(
                "SIGTERM while kmdr is still loading the data (a stuck download)",
                gets="one line, exit 143, nothing written",
            ),
            id="sigterm",
        ),
    ],
)
def test_a_stop_signal_while_loading_the_data(project, tmp_path, signum, group, status, words):
    loading = tmp_path / "loading"
    args = ["-cd", str(project / "conf"), "dataset=blocking", "reducer=sign"]
    env = {**plugin_env(project), "KMDR_TEST_LOADING": str(loading)}
    proc = kmdr(*args, f"results_dir={tmp_path / 'results'}", env=env, cwd=tmp_path)
    try:
        wait_for(loading.exists, "the data loading", proc)
        proc.signal(signum, group=group)
        assert proc.wait() == status, proc.stderr
    finally:
        proc.kill()
    assert one_line(proc.stderr) == f"kmdr: {words} before any cell was computed"
    assert not (tmp_path / "results").exists()


@fault(
    "the terminal of a kmdr started with nohup is closed (SIGHUP)",
    gets="the run goes on to the end, as nohup asks",
)
def test_nohup_keeps_a_run_going_when_the_terminal_closes(project, tmp_path):
    go = tmp_path / "go"
    args = ["-cd", str(project / "conf"), "experiment=faulty", f"results_dir={tmp_path}"]
    env = plugin_env(project, "hold:2", release=go)
    proc = Proc(
        ["nohup", sys.executable, "-m", "kmdr.app", *args, "n_jobs=1"],
        env=env,
        cwd=tmp_path,
    )
    exp = tmp_path / "faulty"
    try:
        wait_for(lambda: len(cell_files(exp)) >= 5, "five cells on disk", proc)
        proc.signal(signal.SIGHUP)
        go.touch()
        assert proc.wait() == 0, proc.stderr
    finally:
        proc.kill()
    assert statuses(exp) == ["complete"]
    _kept(exp, 6)


@pytest.mark.parametrize(
    "action",
    [
        pytest.param(
            "import_sigint:0",
            marks=fault(
                "Ctrl-C arrives while a plug-in is imported, and its code turns the "
                "KeyboardInterrupt into an ImportError",
                gets="one line saying interrupted, exit 130; the plug-in is not marked broken",
            ),
            id="error-while-handling-it",
        ),
        pytest.param(
            "import_sigint_lost:0",
            marks=fault(
                "Ctrl-C arrives while a plug-in is imported, and its code raises an ImportError "
                "that keeps no trace of the KeyboardInterrupt",
                gets="exit 130, the last line saying interrupted: never a config error",
            ),
            id="error-without-a-trace",
        ),
    ],
)
def test_an_interrupt_that_a_library_turns_into_an_error_is_still_an_interrupt(
    project, tmp_path, action
):
    proc = start(project, tmp_path, action)
    try:
        assert proc.wait() == 130, proc.stderr
    finally:
        proc.kill()
    if action == "import_sigint:0":
        assert one_line(proc.stderr) == "kmdr: interrupted before any cell was computed"
    lines = proc.stderr.strip().splitlines()
    assert lines[-1] == "kmdr: interrupted before any cell was computed", proc.stderr
    assert "kmdr: error" not in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "backend",
    _backends(
        (
            "Ctrl-C to the terminal's process group while the run's loky workers are still "
            "starting (importing numpy and scikit-learn)",
            "one line, exit 130: no worker prints a traceback",
        ),
        (
            "Ctrl-C to the terminal's process group while the run's dask LocalCluster workers "
            "are still starting",
            "one line, exit 130: no worker prints a traceback, the cluster is closed",
        ),
    ),
)
# joblib 1.6: its loky keeps the workers' SIGINT blocked while they start
@pytest.mark.floors
def test_ctrl_c_while_the_workers_start(project, tmp_path, backend):
    starting = tmp_path / "starting"
    starting.mkdir()
    args = ["-cd", str(project / "conf"), "experiment=faulty", f"results_dir={tmp_path}"]
    env = {**plugin_env(project), "KMDR_TEST_WORKER_START": str(starting)}
    proc = kmdr(*args, f"backend={backend}", "n_jobs=2", env=env, cwd=tmp_path)
    try:
        wait_for(lambda: len(list(starting.iterdir())) >= 2, "two workers starting", proc)
        workers = [int(path.name) for path in starting.iterdir()]
        proc.signal(signal.SIGINT, group=True)
        assert proc.wait() == 130, proc.stderr
        assert one_line(proc.stderr).startswith("kmdr: interrupted"), proc.stderr
        wait_for(lambda: not any(alive(pid) for pid in workers), "the workers to exit")
    finally:
        proc.kill()


@fault(
    "Ctrl-C arrives while the run's process is inside a garbage-collector callback (where Python "
    "can only print an exception)",
    gets="no 'Exception ignored' traceback: the signal is delivered again, one line, exit 130",
)
def test_ctrl_c_inside_a_gc_callback_still_stops_the_run(project, tmp_path):
    held = tmp_path / "held"
    args = ["-cd", str(project / "conf"), "experiment=faulty", f"results_dir={tmp_path}"]
    proc = kmdr(*args, "n_jobs=1", env=plugin_env(project, "gc_hold:0", release=held), cwd=tmp_path)
    try:
        wait_for(held.exists, "the gc callback holding the process", proc)
        proc.signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 130, proc.stderr
    finally:
        proc.kill()
    assert one_line(proc.stderr).startswith("kmdr: interrupted"), proc.stderr
