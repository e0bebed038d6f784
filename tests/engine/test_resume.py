"""Resume: a run interrupted part-way (kill -9 or Ctrl-C) loses no finished cell, leaves no
partial row, and a re-run computes only the missing cells."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

import kmdr.engine.work as work
from _command import said
from _run_configs import run_alone, synth_run
from kmdr._io import temporary_path
from kmdr.config.schema import from_config
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


def snapshot(exp_dir):
    """cell id -> its cells.csv row's fields, for the rows of whole lines (a line cut short by
    a kill is not a row)."""
    with open(exp_dir / "cells.csv", newline="") as fh:
        header, *rows = csv.reader(fh)
    return {r[header.index("cell_id")]: r for r in rows if len(r) == len(header)}


def check_complete(outcome, before):
    df = pd.read_csv(outcome.experiment_dir / "cells.csv")
    assert len(df) == N_CELLS and not df.duplicated(KEY).any()
    # The cells finished before the interruption were not recomputed: the same rows, kept.
    after = snapshot(outcome.experiment_dir)
    assert len(after) == N_CELLS
    assert {name: after[name] for name in before} == before
    assert outcome.n_reused == len(before) and outcome.n_computed == N_CELLS - len(before)
    return df


@pytest.mark.slow
def test_kill_9_part_way_then_resume(tmp_path):
    code = (
        "import json, sys\n"
        "from kmdr.config.schema import from_config\n"
        "from kmdr.engine.session import Session\n"
        "spec = from_config(json.loads(sys.argv[1]))\n"
        "with Session(spec.execution) as session:\n"
        "    session.run(spec.experiment, spec.output)\n"
    )
    cfg = config(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-c", code, json.dumps(cfg)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    exp = tmp_path / "resume"
    deadline = time.monotonic() + 90
    try:
        while not (exp / "cells.csv").exists() or len(snapshot(exp)) < 5:
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.002)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    before = snapshot(exp)
    assert 5 <= len(before) < N_CELLS
    assert CellStore(exp).done_ids() == set(before)  # every whole line a valid row
    assert not (exp / "cells").exists()  # no per-cell cache

    outcome = run_alone(*from_config(cfg))
    check_complete(outcome, before)
    assert not list(exp.glob(".*.tmp"))


@pytest.mark.slow
def test_a_row_cut_short_by_a_kill_is_set_aside_and_its_cell_computed_again(tmp_path):
    cfg = config(tmp_path, reducers=[{"name": "sign"}], r_grid=[2, 4], repeats=2)
    first = run_alone(*from_config(cfg))
    path = first.experiment_dir / "cells.csv"
    text = path.read_bytes()
    cut = text[: len(text) - len(text.splitlines()[-1]) // 2 - 1]  # the last row half written
    path.write_bytes(cut)
    lines: list[str] = []
    with said(lines):
        again = run_alone(*from_config(cfg))
    assert again.n_computed == 1 and again.n_reused == 3
    assert "1 row(s) not trusted (it has" in "".join(lines)
    rejected = pd.read_csv(first.experiment_dir / "cells.rejected.csv")
    assert len(rejected) == 1 and rejected["line"].tolist() == [5]
    assert len(pd.read_csv(path)) == 4 and CellStore(first.experiment_dir).untrusted() is None


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
        run_alone(*spec)
    exp = tmp_path / "resume"
    # cells.csv was rebuilt on the way out: exactly the finished cells, no partial row.
    assert len(pd.read_csv(exp / "cells.csv")) == 7
    (side,) = (exp / "runs").glob("*.json")
    side = json.loads(side.read_text())
    assert side["status"] == "interrupted" and len(side["cells_done"]) == 7
    assert side["n_cells_computed"] == 7
    before = snapshot(exp)
    assert len(before) == 7

    monkeypatch.setattr(work, "compute_cell", real)
    lines: list[str] = []
    with said(lines):
        outcome = run_alone(*spec)
    check_complete(outcome, before)
    # it says it resumes the run that was interrupted
    assert f"resuming the run {side['run_id']}, interrupted: 7 of {N_CELLS} cells done" in "".join(
        lines
    )
    # A third run has nothing left to do, and resumes nothing: it reuses the cells
    lines.clear()
    with said(lines):
        again = run_alone(*spec)
    assert again.n_computed == 0 and again.n_reused == N_CELLS
    text = "".join(lines)
    assert "resuming" not in text and "reusing the cells already computed" in text


def test_a_changed_setting_is_a_different_cell(tmp_path):
    small = config(tmp_path, reducers=[{"name": "sign"}], r_grid=[2], repeats=1)
    run_alone(*from_config(small))
    changed = dict(small, kmeans={"n_init": 3, "max_iter": 100})
    outcome = run_alone(*from_config(changed))
    assert outcome.n_computed == 1 and outcome.n_reused == 0
    # Both cells stay in cells.csv: they share (dataset, reducer, r,
    # repetition) but not their settings, so neither replaces the other.
    store = CellStore(outcome.experiment_dir)
    assert len(store.done_ids()) == 2
    df = pd.read_csv(outcome.experiment_dir / "cells.csv")
    assert len(df) == 2 and sorted(df.kmeans_n_init) == [2, 3]
    assert df.duplicated(KEY).any() and df.cell_id.nunique() == 2


@pytest.mark.slow
def test_leftover_temporary_files_are_ignored_and_removed(tmp_path):
    exp = tmp_path / "resume"
    exp.mkdir(parents=True)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    leftover = temporary_path(exp / "cells.csv", pid=int(dead.stdout))  # a dead writer's
    leftover.write_text("experiment,")
    foreign = exp / ".cells.csv.tmp"  # not named by kmdr._io: whose it is is unknown, kept
    foreign.write_text("experiment,")
    cfg = config(tmp_path, reducers=[{"name": "sign"}], r_grid=[2], repeats=1)
    outcome = run_alone(*from_config(cfg))
    assert outcome.n_computed == 1 and list(exp.glob(".*.tmp")) == [foreign]
