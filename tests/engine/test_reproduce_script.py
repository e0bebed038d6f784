"""scripts/reproduce.py end to end, as `make reproduce` runs it, on real data: its refusals,
skips and figure settings through its ``main`` in this process; its stop signals and their resume
through the command, in a subprocess."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from _cases import case
from _overrides import overridden
from _procs import Proc, cells_done, children, statuses, wait_for
from kmdr.results.locks import folder_lock

pytestmark = pytest.mark.slow  # every test here runs experiments on real data

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "reproduce.py"
#: Three of the presets' reducers (their slowest left out), two r, one repetition, one k-means
#: start: 5 cells an experiment, more than the two workers take at once.
SMALL = [
    "~reducers",
    "+reducers={sign: {name: sign}, svd: {name: svd}, none: {name: none}}",
    "r_grid=[5,10]",
    "repeats=1",
    "kmeans.n_init=1",
    "kmeans.max_iter=20",
    "n_jobs=2",
]


def test_no_figures_when_the_override_says_so(tmp_path, reproduce):
    args = ["--results", str(tmp_path), "--only", "bzmd14_orl", "--override", *SMALL]
    code, out, err = reproduce(*overridden(args, "figures=false"))
    assert code == 0, err[-2000:]
    assert (tmp_path / "bzmd14_orl" / "cells.csv").is_file()
    assert not (tmp_path / "bzmd14_orl" / "figures").exists()
    # an override every sweep of cells reads, which bmd09 Figure 1's kind does not: left out
    # there, with a line, not refused for every preset
    assert (
        "[reproduce] bmd09_fig1: --override repeats=1 left out (repeats kind=leverage_scores does "
        "not read" in out
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        case(
            ["--override", "kmeans.nope=1"],
            says="Could not override 'kmeans.nope'",
            doing="run",
            cause="make reproduce's --override names a setting the experiments do not have",
            fix="override a setting kmdr --cfg job lists (e.g. --override kmeans.n_init=1)",
        ),
        case(
            ["--only", "bzmd14_orl", "nope"],
            says="--only nope: not an experiment make reproduce runs",
            doing="run",
            cause="--only names an experiment that make reproduce does not run",
            fix="give names kmdr-list prints (e.g. --only bzmd14_orl)",
        ),
        case(
            ["--only", "bzmd14_orl", "--compare-with", "/nonexistent/results"],
            says="--compare-with /nonexistent/results does not exist; give the results folder",
            doing="run",
            cause="--compare-with names a folder that does not exist",
            fix="give the results folder to compare with (--compare-with results)",
        ),
    ],
)
def test_a_bad_argument_stops_before_any_work(args, says, tmp_path, reproduce):
    results = tmp_path / "results"
    code, _, err = reproduce("--results", str(results), *args)
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"reproduce.py: error: {says}"), err
    assert not results.exists()


def _start(*args: str) -> Proc:
    return Proc([sys.executable, str(SCRIPT), *args])


def _drawer(pid: int) -> int | None:
    """The script's drawing process (a multiprocessing spawn child), once it exists."""
    for kid in children(pid):
        try:
            cmdline = Path(f"/proc/{kid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in cmdline:
            return kid
    return None


@pytest.mark.parametrize(
    ("signum", "group", "status", "says"),
    [
        case(
            signal.SIGINT, True, 130,
            says="[reproduce] interrupted; finished cells are kept under",
            doing="run",
            cause="Ctrl-C was pressed while make reproduce computed",
            fix="run the same command again: it resumes from the kept cells",
            id="ctrl-c",
        ),
        case(
            signal.SIGTERM, False, 143,
            says="[reproduce] interrupted (SIGTERM); finished cells are kept under",
            doing="run",
            cause="make reproduce was sent SIGTERM (kill, a batch system's cancel)",
            fix="run the same command again: it resumes from the kept cells",
            id="sigterm",
        ),
    ],
)  # fmt: skip
def test_a_stop_signal_is_one_line_and_the_same_command_resumes(
    tmp_path, reproduce, signum, group, status, says
):
    # A real signal: Ctrl-C's SIGINT goes to the whole process group (the script, its workers
    # and its drawing process), SIGTERM to the script alone. The script must surely be
    # mid-experiment when it arrives, whatever the machine's speed: the script is stopped
    # (SIGSTOP) once the watched experiment's first cell file is on disk, signalled, and
    # continued. Ctrl-C comes in the second of two experiments (the resume below needs one
    # finished before it), SIGTERM in the first and only one.
    only = ["bzmd14_orl", "bzmd14_usps"] if signum == signal.SIGINT else ["bzmd14_orl"]
    args = ["--results", str(tmp_path), "--override", *SMALL, "--only", *only]
    watched = tmp_path / only[-1]
    proc = _start(*args)
    try:
        wait_for(lambda: cells_done(watched), f"a first {only[-1]} cell on disk", proc)
        proc.signal(signal.SIGSTOP)
        proc.signal(signum, group=group)
        proc.signal(signal.SIGCONT)
        assert proc.wait() == status, proc.stderr
    finally:
        proc.kill()
    err = proc.stderr
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith(says)
    assert statuses(watched) == ["interrupted"]
    assert sorted(pd.read_csv(watched / "cells.csv")["cell_id"]) == sorted(cells_done(watched))
    if signum != signal.SIGINT:
        return

    # The same command again (its main, here), to its end: it resumes, and every figure is
    # drawn (the first experiment's while the second computes) before it returns.
    code, _, err = reproduce(*args)
    assert code == 0, err[-2000:]
    assert "warning" not in err
    times = pd.read_csv(tmp_path / "reproduce_times.csv").set_index("experiment")
    assert sorted(times.index) == ["bzmd14_orl", "bzmd14_usps"]
    assert set(times["status"]) == {"done"}
    assert times.loc["bzmd14_orl", "computed"] == 0  # all of it was kept
    assert times.loc["bzmd14_orl", "reused"] == times.loc["bzmd14_orl", "cells"]
    assert times.loc["bzmd14_usps", "computed"] < times.loc["bzmd14_usps", "cells"]
    for name in ("bzmd14_orl", "bzmd14_usps"):
        exp = tmp_path / name
        cells = pd.read_csv(exp / "cells.csv")
        assert len(cells) == times.loc[name, "cells"] and cells["cell_id"].is_unique
        summary = pd.read_csv(exp / "summary.csv")
        assert summary["n_cells"].sum() == len(cells)  # summarized after the last cell
        for ext in ("png", "pdf"):
            assert (exp / "figures" / f"{name}.{ext}").stat().st_size > 1000
        # the run records keep the config as given: figures on, even though another process
        # drew them
        records = [json.loads(p.read_text()) for p in (exp / "runs").glob("*.json")]
        assert records and all(r["config"]["figures"] is True for r in records)


def test_ctrl_c_while_the_last_figures_are_drawn(tmp_path):
    proc = _start("--results", str(tmp_path), "--only", "bzmd14_orl", "--override", *SMALL)
    orl = tmp_path / "bzmd14_orl"
    drawer = None
    try:
        # The drawing process is stopped as soon as it exists, so the script, once its last
        # experiment is complete, surely waits for the last figures when Ctrl-C comes.
        drawer = wait_for(lambda: _drawer(proc.pid), "the drawing process", proc)
        os.kill(drawer, signal.SIGSTOP)
        wait_for(lambda: statuses(orl) == ["complete"], "the last experiment complete", proc)
        proc.signal(signal.SIGINT, group=True)
        os.kill(drawer, signal.SIGCONT)
        assert proc.wait() == 130, proc.stderr
    finally:
        if drawer is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(drawer, signal.SIGCONT)
        proc.kill()
    assert "Traceback" not in proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("[reproduce] interrupted; finished cells are kept under")
    assert len(pd.read_csv(orl / "cells.csv")) == len(cells_done(orl)) > 0


def test_ctrl_c_as_the_drawing_process_starts(tmp_path):
    # The test holds the experiment's folder lock, so the script cannot finish the (small)
    # experiment before the signal arrives, however fast or loaded the machine is.
    held = contextlib.ExitStack()
    held.enter_context(folder_lock(tmp_path / "bzmd14_orl", print))
    proc = _start("--results", str(tmp_path), "--only", "bzmd14_orl", "--override", *SMALL)
    try:
        wait_for(lambda: _drawer(proc.pid), "the drawing process", proc)
        proc.signal(signal.SIGINT, group=True)
        held.close()
        assert proc.wait() == 130, proc.stderr
    finally:
        held.close()
        proc.kill()
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("[reproduce] interrupted;")


ROOT = Path(__file__).resolve().parents[2]


def _tracked_results() -> list[str]:
    """The files of results/ the repository tracks, relative to results/."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "results"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return [p.removeprefix("results/") for p in listed.stdout.split("\0") if p]


def _bytes(root: Path, paths: list[str]) -> dict[str, bytes]:
    return {p: (root / p).read_bytes() for p in paths if (root / p).exists()}


def _files(results: Path) -> set[Path]:
    """The files of a results folder that git would show (not the ignored caches and locks)."""
    ignored = {"cells", ".locks", ".cache"}
    return {p for p in results.rglob("*") if p.is_file() and not ignored & set(p.parts)}


@pytest.mark.parametrize(
    "experiment",
    # dss24_real names its folder after its dataset (dss24_mnist), not after itself
    ["bmd09_table1", "dss24_real"],
)
def test_a_skipped_experiment_changes_nothing_the_second_time(tmp_path, reproduce, experiment):
    """The committed results copied, then `make reproduce`'s steps on the copy for an experiment
    whose data is missing, skipped twice: the second skip changes nothing (its time is kept, its
    reason given once) and no written file names a path of this machine. (That a reproduction
    reusing every committed cell, with its figures and report, changes no tracked file is
    tests/test_fresh_clone.py's check, on every preset of a fresh clone: the report reads the
    results folder alone, which the second skip leaves as it was.)"""
    tracked = _tracked_results()
    if "SKIPPED.md" not in tracked:
        pytest.skip("no committed results to reuse")
    copy = tmp_path / "results"
    shutil.copytree(ROOT / "results", copy, ignore=shutil.ignore_patterns("cells", ".locks"))

    # its data is not on this machine: the first skip may reword the recorded reason (the
    # loader's words change with the code), the second changes nothing
    for _ in range(2):
        before = _bytes(copy, tracked)
        files = _files(copy)
        code, out, _ = reproduce("--results", str(copy), "--only", experiment)
        assert code == 0 and f"{experiment}: SKIPPED" in out, out
    assert _bytes(copy, tracked) == before
    assert _files(copy) - files == set()  # no record of a no-op
    skipped = (copy / "SKIPPED.md").read_text()
    assert skipped.count(f"`{experiment}`") == 1
    written = skipped + (copy / "reproduce_times.csv").read_text()
    for path in (str(ROOT), str(Path.home()), os.environ.get("KMDR_DATA_MIRROR") or str(ROOT)):
        assert path + "/" not in written, path
