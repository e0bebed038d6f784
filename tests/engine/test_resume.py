"""Resume: a run interrupted part-way (kill -9 or Ctrl-C) loses no finished cell, leaves no
partial row, and a re-run computes only the missing cells."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

import kmdr.engine.work as work
from _cases import case
from _command import said
from _run_configs import synth_run
from kmdr._io import temporary_path
from kmdr.config.schema import from_config
from kmdr.engine.session import run_experiment
from kmdr.results.store import CellStore

KEY = ["dataset", "reducer", "r", "repetition"]


def config(results_dir, **over):
    run_config = synth_run(
        results_dir,
        "resume",
        (150, 30, 4),
        reducers=[{"name": "sign"}, {"name": "gaussian"}],
        r_grid=list(range(2, 22, 2)),
        repeats=4,
        kmeans={"n_init": 2, "max_iter": 100},
    )
    return {**run_config, **over}


N_CELLS = 2 * 10 * 4


def snapshot(cells_dir):
    return {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in cells_dir.glob("*.json")}


def check_complete(outcome, before):
    df = pd.read_csv(outcome.experiment_dir / "cells.csv")
    assert len(df) == N_CELLS and not df.duplicated(KEY).any()
    # The cells finished before the interruption were not recomputed: same files, same bytes.
    after = snapshot(outcome.experiment_dir / "cells")
    assert len(after) == N_CELLS
    assert {name: after[name] for name in before} == before
    assert outcome.n_reused == len(before) and outcome.n_computed == N_CELLS - len(before)
    return df


@pytest.mark.slow
def test_kill_9_part_way_then_resume(tmp_path):
    code = (
        "import json, sys\n"
        "from kmdr.config.schema import from_config\n"
        "from kmdr.engine.session import run_experiment\n"
        "run_experiment(*from_config(json.loads(sys.argv[1])))\n"
    )
    cfg = config(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-c", code, json.dumps(cfg)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    cells_dir = tmp_path / "resume" / "cells"
    deadline = time.monotonic() + 90
    try:
        while len(list(cells_dir.glob("*.json"))) < 5:
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.002)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    before = snapshot(cells_dir)
    assert 5 <= len(before) < N_CELLS
    for name, (_, data) in before.items():  # every file on disk is a whole cell
        assert json.loads(data)["cell_id"] == name[: -len(".json")]

    outcome = run_experiment(*from_config(cfg))
    check_complete(outcome, before)
    assert not list(cells_dir.glob(".*.tmp"))


@pytest.fixture
def ctrl_c_handled():
    """SIGINT handled as at a terminal for the test: a process started in the background of a
    non-interactive shell (or under nohup) begins with SIGINT ignored, and a run keeps a signal
    ignored on entry ignored, by design (kmdr.engine.signals)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.slow
def test_ctrl_c_part_way_then_resume(tmp_path, monkeypatch, ctrl_c_handled):
    real = work.compute_cell
    calls = {"n": 0}

    def interrupted_after_7(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] > 7:  # a real Ctrl-C, to the run's own process (n_jobs=1: it computes)
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the handler raises before this ends
        return real(*args, **kwargs)

    monkeypatch.setattr(work, "compute_cell", interrupted_after_7)
    spec = from_config(config(tmp_path))
    with pytest.raises(KeyboardInterrupt):
        run_experiment(*spec)
    exp = tmp_path / "resume"
    # cells.csv was rebuilt on the way out: exactly the finished cells, no partial row.
    assert len(pd.read_csv(exp / "cells.csv")) == 7
    (side,) = (exp / "runs").glob("*.json")
    side = json.loads(side.read_text())
    assert side["status"] == "interrupted" and len(side["cells_done"]) == 7
    assert side["n_cells_computed"] == 7
    before = snapshot(exp / "cells")
    assert len(before) == 7

    monkeypatch.setattr(work, "compute_cell", real)
    lines: list[str] = []
    with said(lines):
        outcome = run_experiment(*spec)
    check_complete(outcome, before)
    # it says it resumes the run that was interrupted
    assert f"resuming the run {side['run_id']}, interrupted: 7 of {N_CELLS} cells done" in "".join(
        lines
    )
    # A third run has nothing left to do, and resumes nothing: it reuses the cells
    lines.clear()
    with said(lines):
        again = run_experiment(*spec)
    assert again.n_computed == 0 and again.n_reused == N_CELLS
    text = "".join(lines)
    assert "resuming" not in text and "reusing the cells already computed" in text


def test_a_changed_setting_is_a_different_cell(tmp_path):
    small = config(tmp_path, reducers=[{"name": "sign"}], r_grid=[2], repeats=1)
    run_experiment(*from_config(small))
    changed = dict(small, kmeans={"n_init": 3, "max_iter": 100})
    outcome = run_experiment(*from_config(changed))
    assert outcome.n_computed == 1 and outcome.n_reused == 0
    # Both cells stay, in the cell files and in cells.csv: they share (dataset, reducer, r,
    # repetition) but not their settings, so neither replaces the other.
    store = CellStore(outcome.experiment_dir)
    assert len(store.done_ids()) == 2
    df = pd.read_csv(outcome.experiment_dir / "cells.csv")
    assert len(df) == 2 and sorted(df.kmeans_n_init) == [2, 3]
    assert df.duplicated(KEY).any() and df.cell_id.nunique() == 2


@pytest.mark.slow
def test_leftover_temporary_files_are_ignored_and_removed(tmp_path):
    cells = tmp_path / "resume" / "cells"
    cells.mkdir(parents=True)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    leftover = temporary_path(cells / "abc.json", pid=int(dead.stdout))  # a dead writer's
    leftover.write_text('{"half": ')
    foreign = cells / ".abc.json.tmp"  # not named by kmdr._io: whose it is is unknown, kept
    foreign.write_text('{"half": ')
    cfg = config(tmp_path, reducers=[{"name": "sign"}], r_grid=[2], repeats=1)
    outcome = run_experiment(*from_config(cfg))
    assert outcome.n_computed == 1 and list(cells.glob(".*.tmp")) == [foreign]


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="[kmdr] damaged cell file ",
            doing="run",
            cause="a cell file was cut short (a full disk, a copy cut short) before cells.csv got "
            "its row; it is moved aside as <file>.damaged",
            fix="nothing to do: the run computes that cell again and reuses the others",
            warning=True,
        )
    ],
)
def test_a_damaged_cell_file_is_reported_and_recomputed(tmp_path, capfd, says):
    cfg = config(tmp_path, reducers=[{"name": "sign"}], r_grid=[2, 4], repeats=2)
    first = run_experiment(*from_config(cfg))
    cells = first.experiment_dir / "cells"
    victim = sorted(cells.glob("*.json"))[0]
    truncated = victim.read_bytes()[:40]  # e.g. by a full disk or a copy cut short
    victim.write_bytes(truncated)
    (first.experiment_dir / "cells.csv").unlink()  # killed before its first rebuild
    messages = []
    with said(messages):
        again = run_experiment(*from_config(cfg))
    assert again.n_computed == 1 and again.n_reused == 3
    # Reported once, in one line, through the run's log or on stderr.
    reports = [m for m in messages + capfd.readouterr().err.splitlines() if victim.name in m]
    assert len(reports) == 1 and says in reports[0]
    assert (cells / (victim.name + ".damaged")).read_bytes() == truncated  # kept, not deleted
    assert json.loads(victim.read_text())["cell_id"] == victim.stem  # computed again
    df = pd.read_csv(first.experiment_dir / "cells.csv")
    assert len(df) == 4 and victim.stem in set(df.cell_id)
