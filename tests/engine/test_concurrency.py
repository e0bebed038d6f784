"""Two runs sweeping into one results folder at once: both finish, each cell is computed once,
no row is lost or duplicated. Real OS processes, not mocks."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest

import _command as command
from _procs import cell_files, kmdr, make_plugin, one_line, plugin_env, statuses, wait_for
from kmdr.results import locks
from kmdr.results.records import IDENTITY_COLUMNS
from kmdr.results.store import CellStore

RUN = textwrap.dedent(
    """
    import sys
    from kmdr.engine.session import run_experiment
    from kmdr.config.schema import from_config

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
    outcome = run_experiment(*from_config(cfg))
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


@pytest.mark.slow
@pytest.mark.fault(
    "two runs of the same sweep started at once into one folder",
    gets="both finish, each cell computed once, no row lost or duplicated",
)
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
    assert not cells.duplicated([c for c in IDENTITY_COLUMNS if c in cells]).any()
    assert cells["cell_id"].is_unique
    # Both records are complete, and their computed cells do not overlap.
    records = [json.loads(p.read_text()) for p in (tmp_path / "shared" / "runs").glob("*.json")]
    assert sorted(r["status"] for r in records) == ["complete", "complete"]
    assert sorted(r["n_cells_computed"] for r in records) == sorted([a[0], b[0]])
    run_ids = set(cells["run_id"])
    assert run_ids == {r["run_id"] for r in records if r["n_cells_computed"]}


@pytest.mark.slow
def test_overlapping_sweeps_share_the_common_cells(tmp_path):
    small, large = _start(tmp_path, 2), _start(tmp_path, 4)
    s, big = _finish(small), _finish(large)
    assert s[2] == 3 * 6 * 2 and big[2] == 3 * 6 * 4
    # The union is computed once: the large sweep's grid holds the small one's.
    assert s[0] + big[0] == 3 * 6 * 4
    cells = pd.read_csv(tmp_path / "shared" / "cells.csv")
    assert len(cells) == 3 * 6 * 4 and cells["cell_id"].is_unique


@pytest.mark.slow
@pytest.mark.fault(
    "one of two runs sharing a folder is killed (kill -9) mid-sweep",
    gets="the other takes over its claimed cells and completes the sweep",
)
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


# -- waiting for another process's claim: who holds it, and a bounded wait --------------------


def test_a_claim_names_its_holder(tmp_path):
    store = CellStore(tmp_path / "exp")
    claim = store.try_claim("abc")
    try:
        who = store.claim_holder("abc")
        assert who["pid"] == os.getpid() and who["host"] == socket.gethostname()
        assert time.strftime("%Y-%m-%d", time.gmtime()) in who["since"]
    finally:
        claim.release()
    assert store.claim_holder("abc") is None  # released: the file is gone


@pytest.mark.slow
@pytest.mark.fault(
    "a run waits for a cell claimed by another run that is stopped (SIGSTOP, a suspended job)",
    gets="gives up after claim_timeout without a sign of life, one line naming the holder's "
    "pid, host and start; sidecar failed; its own cells kept",
)
def test_a_wait_on_a_stopped_holder_gives_up_naming_it(faulty, tmp_path):
    holder, exp = _stuck(faulty, tmp_path)
    try:
        os.killpg(holder.pid, signal.SIGSTOP)  # the holder, its workers and its heartbeat
        waiter = _faulty_run(faulty, tmp_path, "none:0", "claim_timeout=4")
        try:
            assert waiter.wait() == 1, waiter.stderr
        finally:
            waiter.kill()
    finally:
        holder.kill()
    line = one_line(waiter.stderr)
    assert line.startswith("kmdr: error: faulty failed (ClaimTimeout: cell "), line
    assert f"claimed by process {holder.pid} on host {socket.gethostname()} since 20" in line
    assert "no sign of life for 4 s" in line and "raise claim_timeout" in line
    (waiting,) = [ln for ln in waiter.stderr.splitlines() if "waiting for 1 cells" in ln]
    assert f"(process {holder.pid} on host" in waiting and "claim_timeout" in waiting
    assert sorted(statuses(exp)) == ["failed", "running"]  # the holder never got to write


@pytest.mark.slow
@pytest.mark.fault(
    "a run waits for a cell another live run computes for longer than claim_timeout",
    gets="keeps waiting while the holder's heartbeat goes on, then reuses its cell",
)
def test_a_live_holder_is_waited_for_past_the_timeout(faulty, tmp_path):
    go = tmp_path / "go"
    holder, exp = _stuck(faulty, tmp_path, "hold:2", release=go)  # holds its last cell
    try:
        waiter = _faulty_run(faulty, tmp_path, "none:0", "claim_timeout=6")
        try:
            wait_for(lambda: "waiting for" in waiter.stderr, "the waiting line", waiter)
            # The holder's heartbeat (every 2 s) moves its claim's mtime: see it move four
            # times, i.e. for longer than the waiter's claim_timeout, with the waiter waiting.
            (claim,) = _claims(exp)
            seen = [claim.stat().st_mtime_ns]

            def beats():
                mtime = claim.stat().st_mtime_ns
                if mtime != seen[-1]:
                    seen.append(mtime)
                return len(seen) > 4

            wait_for(beats, "four heartbeats of the holder", waiter)
            go.touch()
            assert waiter.wait() == 0, waiter.stderr
            assert holder.wait() == 0, holder.stderr
        finally:
            waiter.kill()
    finally:
        holder.kill()
    assert "(0 computed, 6 reused)" in waiter.stderr
    # the waiter computed nothing, so it left no run record: the holder's alone
    assert statuses(exp) == ["complete"]


@pytest.mark.slow
@pytest.mark.fault(
    "SIGTERM to a run while it waits for a cell another run computes",
    gets="stops at once: one line, exit 143, its sidecar interrupted; the other run goes on",
)
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
    assert sorted(statuses(exp)) == ["interrupted", "running"]


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    return make_plugin(tmp_path_factory.mktemp("plugin"))


def _faulty_run(project, results, action: str, *extra: str, release=None):
    args = ["-cd", str(project / "conf"), "experiment=faulty", f"results_dir={results}"]
    env = plugin_env(project, action, release)
    return kmdr(*args, "n_jobs=1", *extra, env=env, cwd=results)


def _claims(exp):
    """The lock files of claimed cells (not cells.csv's)."""
    return [p for p in (exp / ".locks").glob("*.lock") if p.name != "cells.csv.lock"]


def _stuck(project, results, action: str = "sleep:2", release=None):
    """A run holding the claim of its last cell (which sleeps), the five others on disk.

    Returns once the claim's file names its holder: the file exists from the instant the holder
    opens it, before it locks it and writes itself in, and a test that stops the holder in
    between (a loaded machine makes that window long) would leave a claim nobody holds, or one
    naming nobody."""
    proc = _faulty_run(project, results, action, release=release)
    exp = results / "faulty"
    wait_for(lambda: len(cell_files(exp)) >= 5, "five cells on disk", proc)

    def held():
        return any((locks.holder(p) or {}).get("pid") == proc.pid for p in _claims(exp))

    wait_for(held, "the last cell's claim, naming its holder", proc)
    return proc, exp


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(
            "0",
            marks=pytest.mark.fault(
                "claim_timeout=0 (a wait that would give up on every live run)",
                gets="one line before any work: claim_timeout must be a float in (0, inf)",
            ),
        ),
        "-5",
    ],
)
def test_a_bad_claim_timeout_is_one_line_before_any_work(value, tmp_path, capsys):

    argv = ["reducer=sign", "r_grid=[2]", "repeats=1", f"results_dir={tmp_path / 'results'}"]
    with pytest.raises(SystemExit) as exc:
        command.kmdr([*argv, f"claim_timeout={value}"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("kmdr: error: The 'claim_timeout' parameter of Execution must be a float")
    assert not (tmp_path / "results").exists()
