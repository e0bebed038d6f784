"""A run stopped by a signal, or whose worker or reducer ends a process: real ``kmdr`` processes,
real signals (``os.kill``/``os.killpg``), each test waiting for a STATE (cell files on disk, the
sidecar saying running, a line on stderr), never for a time. A reducer ending the run's own
process (n_jobs=1) needs no process of its own: kmdr.run here, where the plugin is loaded too.

The ``faulty`` preset (tests/_procs.py) runs ``sign`` and a plugin reducer ``misbehave`` at r = 6,
4, 2 (jobs run largest r first); ``misbehave`` sleeps, exits or dies in its r = 2 cell on demand,
so the five other cells are on disk when it does.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path

import pandas as pd
import pytest

from _backends import needs_dask
from _cases import case
from _command import installed
from _procs import (
    FAULTY,
    Proc,
    alive,
    cells_done,
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

#: What a user does after a stop: the fix of every stop row below.
RESUME = "run the same command again: the finished cells are kept and reused"
#: The end of the line of a reducer that ended a process, and its fix.
ENDS = "which ends a process, not a cell; a reducer must raise an exception"
FIX_RAISE = (
    "make the reducer raise an exception (ValueError, RuntimeError) instead; the finished cells "
    "are kept"
)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return make_plugin(tmp_path_factory.mktemp("plugin"))


def start(project, results, action="none:0", *extra, flags=()):
    args = [*flags, "-cd", str(project / "conf"), "experiment=faulty", f"results_dir={results}"]
    return kmdr(*args, *extra, env=plugin_env(project, action), cwd=results)


def stuck(project, results, n_jobs: int, *extra, flags=()):
    """A run whose last cell sleeps for an hour, once the other five cells are on disk."""
    proc = start(project, results, "sleep:2", f"n_jobs={n_jobs}", *extra, flags=flags)
    exp = results / "faulty"
    wait_for(lambda: len(cells_done(exp)) >= 5, "five cells on disk", proc)
    wait_for(lambda: statuses(exp) == ["running"], "the sidecar saying running", proc)
    return proc, exp


def _kept(exp, n: int | None = 5) -> None:
    """The n finished cells (None: some) are on disk and cells.csv lists exactly them (never a
    lagging or partial file)."""
    files = cells_done(exp)
    assert len(files) == n if n is not None else files
    assert sorted(pd.read_csv(exp / "cells.csv")["cell_id"]) == files


#: How a row's run is started and signalled: ``multirun`` is a Hydra multirun of two jobs (the
#: signal stops the first, and the second never starts); ``while stopping`` sends the signal to
#: the stopped run, then SIGTERM too, then lets it go on: it handles them one after another, the
#: later ones while it is stopping, and they must not cut the stop short.
PLAIN, MULTIRUN, WHILE_STOPPING = "plain", "multirun", "while stopping"


def _sigint_unblocked(pid: int, timeout: float = 60) -> None:
    """Wait until the run's main thread no longer blocks SIGINT. It blocks it while it starts
    workers (kmdr.engine.signals.sigint_blocked), and a Ctrl-C held there comes after a SIGTERM
    sent later: the SIGTERM would be the first signal the run handles."""
    import time

    status = Path(f"/proc/{pid}/status")
    deadline = time.monotonic() + timeout
    while status.exists() and time.monotonic() < deadline:
        lines = status.read_text().splitlines()
        blocked = int(next(ln for ln in lines if ln.startswith("SigBlk:")).split()[1], 16)
        if not blocked & (1 << (signal.SIGINT - 1)):
            return
        time.sleep(0.05)


@pytest.mark.parametrize(
    ("signum", "group", "status", "n_jobs", "how", "says"),
    [
        case(
            signal.SIGTERM, False, 143, 2, PLAIN,
            says="kmdr: interrupted (SIGTERM); ",
            doing="run",
            cause="kmdr was sent SIGTERM (kill, a batch system's cancel) while it computed",
            fix=RESUME,
            id="sigterm",
        ),
        case(
            signal.SIGTERM, False, 143, 1, MULTIRUN,
            says="kmdr: interrupted (SIGTERM); ",
            doing="run",
            cause="kmdr was sent SIGTERM while it computed a cell in its own process (n_jobs=1)",
            fix=RESUME,
            id="sigterm-one-worker",
        ),
        case(
            signal.SIGTERM, True, 143, 2, PLAIN,
            says="kmdr: interrupted (SIGTERM); ",
            doing="run",
            cause="SIGTERM reached kmdr's whole process group, its workers included (timeout, a "
            "service manager)",
            fix=RESUME,
            id="sigterm-group",
        ),
        case(
            signal.SIGINT, True, 130, 2, WHILE_STOPPING,
            says="kmdr: interrupted; ",
            doing="run",
            cause="Ctrl-C was pressed while kmdr computed",
            fix=RESUME,
            id="ctrl-c",
        ),
        case(
            signal.SIGHUP, False, 129, 1, PLAIN,
            says="kmdr: interrupted (SIGHUP); ",
            doing="run",
            cause="the terminal running kmdr was closed while it computed",
            fix=RESUME + "; start long runs with nohup to keep them going",
            id="sighup",
        ),
    ],
)  # fmt: skip
# A run's finished cells come back as they complete from joblib 1.4 on (kept by a stop)
@pytest.mark.floors
def test_a_stop_signal_ends_the_run_like_ctrl_c(
    project, tmp_path, signum, group, status, n_jobs, how, says
):
    extra, flags = ("seed=0,1",), ["-m"]
    if how != MULTIRUN:
        extra, flags = (), ()
    proc, exp = stuck(project, tmp_path, n_jobs, *extra, flags=flags)
    workers = children(proc.pid)
    try:
        if how == WHILE_STOPPING:
            _sigint_unblocked(proc.pid)
            proc.signal(signal.SIGSTOP)
        proc.signal(signum, group=group)
        if how == WHILE_STOPPING:
            proc.signal(signal.SIGTERM)
            proc.signal(signal.SIGCONT)
        assert proc.wait() == status, proc.stderr
    finally:
        proc.kill()
    line = one_line(proc.stderr)
    assert line.startswith(says) and "run the same command to resume" in line
    assert statuses(exp) == ["interrupted"]
    _kept(exp)
    wait_for(lambda: not [pid for pid in workers if alive(pid)], "the workers to exit", timeout=60)


#: The backends a test runs on: loky, and a dask LocalCluster where distributed is installed.
#: A user sees the same on both (what the tests check); the dask run, a scheduler and two nanny
#: processes each with its worker, is a longhaul test.
BACKENDS = [
    "loky",
    pytest.param(
        "dask",
        marks=[
            pytest.mark.longhaul,
            needs_dask,
        ],
    ),
]


@pytest.mark.parametrize("backend", BACKENDS)
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
    assert line.startswith("kmdr: error: "), line
    for word in words:
        assert word in line, line
    (record,) = sidecars(exp)
    assert record["status"] == "failed" and record["error"] in line
    _kept(exp, None)  # the cells in flight beside the failing one may not have finished


@pytest.mark.parametrize(
    ("action", "n_jobs", "says"),
    [
        case(
            "exit", 2,
            says="raised SystemExit(0), " + ENDS,
            doing="plugin",
            cause="a reducer called sys.exit() inside a cell, in a worker",
            fix=FIX_RAISE,
            id="sys.exit-worker",
        ),
        case(
            "exit", 1,
            says="raised SystemExit(0), " + ENDS,
            doing="plugin",
            cause="a reducer called sys.exit() inside a cell, in kmdr's own process (n_jobs=1)",
            fix=FIX_RAISE,
            id="sys.exit-main",
        ),
        case(
            "keyboard", 2,
            says="raised KeyboardInterrupt, " + ENDS,
            doing="plugin",
            cause="a reducer raised KeyboardInterrupt itself (no key was pressed)",
            fix=FIX_RAISE,
            id="keyboard-worker",
        ),
        case(
            "keyboard", 1,
            says="raised KeyboardInterrupt, " + ENDS,
            doing="plugin",
            cause="a reducer raised KeyboardInterrupt itself in kmdr's own process (n_jobs=1)",
            fix=FIX_RAISE,
            id="keyboard-main",
        ),
        case(
            "base", 2,
            says="raised Abort(the reducer gave up), " + ENDS,
            doing="plugin",
            cause="a reducer raised its own BaseException subclass, which is not an error",
            fix="derive the reducer's exception from Exception; the finished cells are kept",
            id="base-exception",
        ),
    ],
)  # fmt: skip
def test_a_reducer_ending_the_process_is_one_line_naming_the_cell(
    project, tmp_path, monkeypatch, action, n_jobs, says
):
    words = ("reducer 'misbehave'", "r=2", says)
    if n_jobs > 1:  # a worker process of the command: the line it prints
        proc = start(project, tmp_path, f"{action}:2", f"n_jobs={n_jobs}")
        try:
            _failed_one_line(proc, tmp_path / "faulty", *words)
        finally:
            proc.kill()
        return
    # the run's own process: this one, through kmdr.run (the command's line is its message)
    import kmdr as api

    monkeypatch.setenv("KMDR_TEST_MISBEHAVE", f"{action}:2")
    with installed(project / "site"), pytest.raises(api.RunError) as info:
        api.run(FAULTY, f"n_jobs={n_jobs}", results_dir=tmp_path)
    line = str(info.value)
    assert "\n" not in line and all(word in line for word in words), line
    (record,) = sidecars(tmp_path / "faulty")
    assert record["status"] == "failed" and line.startswith(record["error"])
    _kept(tmp_path / "faulty", None)


@pytest.mark.parametrize(
    ("how", "says"),
    [
        case(
            "os_exit",
            says="a worker process died while computing one of the cells",
            doing="run",
            cause="a reducer called os._exit, so the worker process computing its cell died",
            fix="make the reducer raise an exception; run the same command to compute the others",
            id="os._exit",
        ),
        case(
            "kill",
            says="a worker process died while computing one of the cells",
            doing="run",
            cause="a worker was killed while it computed a cell (kill -9, the out-of-memory "
            "killer)",
            fix="give the run more memory or fewer workers (n_jobs), then run the same command: "
            "the finished cells are kept",
            id="kill-9",
        ),
    ],
)
def test_a_worker_that_dies_is_one_line(project, tmp_path, how, says):
    if how == "os_exit":
        proc, exp = start(project, tmp_path, "os_exit:2", "n_jobs=2"), tmp_path / "faulty"
    else:
        proc, exp = stuck(project, tmp_path, 2)
    try:
        if how == "kill":  # every worker of the pool: the one computing the last cell among them
            for worker in wait_for(lambda: _workers(proc.pid), "the run's workers", proc):
                os.kill(worker, signal.SIGKILL)
        _failed_one_line(proc, exp, says)
    finally:
        proc.kill()


@pytest.mark.parametrize(
    ("signum", "group", "status", "says"),
    [
        case(
            signal.SIGINT, True, 130,
            says="kmdr: interrupted before any cell was computed",
            doing="run",
            cause="Ctrl-C was pressed while kmdr still loaded the data; nothing was written",
            fix="run the same command again",
            id="ctrl-c",
        ),
        case(
            signal.SIGTERM, False, 143,
            says="kmdr: interrupted (SIGTERM) before any cell was computed",
            doing="run",
            cause="kmdr was sent SIGTERM while it still loaded the data (a stuck download); "
            "nothing was written",
            fix="run the same command again (kmdr-data fetches a dataset ahead of a run)",
            id="sigterm",
        ),
    ],
)  # fmt: skip
def test_a_stop_signal_while_loading_the_data(project, tmp_path, signum, group, status, says):
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
    assert one_line(proc.stderr) == says
    assert not (tmp_path / "results").exists()


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
        wait_for(lambda: len(cells_done(exp)) >= 5, "five cells on disk", proc)
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
        pytest.param("import_sigint:0", id="error-while-handling-it"),
        pytest.param("import_sigint_lost:0", id="error-without-a-trace"),
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


@pytest.mark.parametrize("backend", BACKENDS)
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


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_command_ending_for_a_signal_ignores_the_next_until_it_exits(signum):
    # a signal sent again, or held by a thread that blocked it, while the interpreter exits once
    # the command's handlers are gone would end the process by the signal (status -2 for
    # SIGINT) instead of with 128 + the first signal's number
    from kmdr.engine import signals

    # a command's process starts with the default handlers, whatever an earlier test in this
    # process left (a signal ignored on entry stays ignored, as under nohup)
    for sig in signals.STOP_SIGNALS:
        signal.signal(sig, signal.default_int_handler if sig == signal.SIGINT else signal.SIG_DFL)
    with pytest.raises(SystemExit) as stop, signals.stop_on_signals():
        try:
            os.kill(os.getpid(), signum)
            signals.raise_if_received()
        except KeyboardInterrupt as err:
            signals.exit_stopped(err)
    assert stop.value.code == 128 + signum
    assert all(signal.getsignal(sig) is signal.SIG_IGN for sig in signals.STOP_SIGNALS)
    os.kill(os.getpid(), signum)  # ignored: this process goes on
