"""A results folder whose files are not regular files: a FIFO, a folder or a symbolic link where
cells.csv, a cell file, a run record or summary.csv should be. Real FIFOs and links, the
commands run in this process (their ``main``, as their console scripts call it): each command
runs once over a folder holding one FIFO of each kind, in an experiment of its own. A FIFO opened
the usual way would make a command wait forever: a watchdog opens a FIFO a command still waits on
after a minute (so that the command returns) and the test fails."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pandas as pd
import pytest

import _command
import kmdr
from kmdr.report.build import main as kmdr_report
from kmdr.results.compare import main as kmdr_compare
from kmdr.results.summary import write_summaries

pytestmark = pytest.mark.slow

TINY = ["dataset=synth", "dataset.params.n_samples=200", "dataset.params.n_features=50",
        "reducer=sign", "r_grid=[3,5]", "repeats=2", "kmeans.n_init=1", "n_jobs=1",
        "progress=false"]  # fmt: skip
#: The experiment holding each kind of FIFO.
FIFO_IN = {"cells.csv": "fifo_csv", "run": "fifo_run", "summary.csv": "fifo_summary"}
#: Seconds a command may run before the watchdog takes it for one waiting on a FIFO (the
#: commands here take a few seconds).
PATIENCE = 60


@contextlib.contextmanager
def watchdog(fifos: list[Path], waited: list[str], label: str):
    """Run the block; if it still runs after :data:`PATIENCE` seconds, note ``label`` in
    ``waited`` and open each of ``fifos`` still a FIFO for reading and writing and close it,
    again each second until the block ends: a command blocked opening one (for either) goes on,
    to an end of file, and the test fails rather than hangs."""
    done = threading.Event()

    def watch() -> None:
        if done.wait(PATIENCE):
            return
        waited.append(label)
        while not done.is_set():
            for fifo in fifos:
                with contextlib.suppress(OSError):
                    if stat.S_ISFIFO(os.stat(fifo).st_mode):
                        os.close(os.open(fifo, os.O_RDWR | os.O_NONBLOCK))
            done.wait(1)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def _command_here(main, argv: list[str], capfd) -> tuple[int, str]:
    """``main(argv)`` (``None``: ``kmdr`` itself) in this process: its exit status and what it
    said, on stderr, in kmdr's log and as warnings, one line each; ``main`` the name of a console
    script: the script run as a process (its stderr; a wait is its timeout)."""
    if isinstance(main, str):  # an installed console script, run as a process
        script = Path(sys.executable).with_name(main)
        done = subprocess.run([script, *argv], capture_output=True, text=True, timeout=PATIENCE)
        return done.returncode, done.stderr
    with warnings.catch_warnings(record=True) as warned, _command.said() as logged:
        warnings.simplefilter("always")
        status = _command.exit_status(_command.kmdr if main is None else main, argv)
    err = capfd.readouterr().err
    lines = [*err.splitlines(), *logged, *(str(w.message) for w in warned)]
    return status or 0, "\n".join(lines)


@pytest.fixture(scope="module")
def computed(tmp_path_factory) -> Path:
    """A results folder of TINY's four cells and summary.csv in each experiment of FIFO_IN,
    computed once for the module, in this process (the commands under test run in processes)."""
    results = tmp_path_factory.mktemp("computed") / "results"
    for name in FIFO_IN.values():
        kmdr.run([*TINY, f"name={name}", "figures=false"], results_dir=results)
        write_summaries(results / name)
    return results


@pytest.fixture
def results(computed, tmp_path) -> Path:
    """A copy of :func:`computed` for the test to damage."""
    return Path(shutil.copytree(computed, tmp_path / "results", symlinks=True))


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def test_a_fifo_in_a_results_folder_makes_no_command_wait(results, tmp_path, monkeypatch, capfd):
    exps = {where: results / name for where, name in FIFO_IN.items()}
    fifos = [
        exps["cells.csv"] / "cells.csv",
        sorted((exps["run"] / "runs").glob("*.json"))[0],
        exps["summary.csv"] / "summary.csv",
    ]
    for fifo in fifos:
        _fifo(fifo)
    more = [arg.replace("repeats=2", "repeats=3") for arg in TINY]
    names = ",".join(FIFO_IN.values())
    commands = [
        # a dry run with cells to do reads every cells.csv for its estimate
        (None, [*more, f"name={FIFO_IN['cells.csv']}", f"results_dir={results}", "dry_run=true"]),
        (kmdr_report, [str(results)]),
        ("kmdr-figures", [str(results)]),  # the console script: its one run in a process
        (kmdr_compare, [str(results), str(results)]),  # stops at fifo_csv's
        (None, ["-m", *TINY, f"name={names}", f"results_dir={results}", "figures=false"]),
    ]
    waited = []
    monkeypatch.chdir(tmp_path)
    for main, argv in commands:
        name = main if isinstance(main, str) else getattr(main, "__module__", "kmdr")
        label = f"{name} {' '.join(argv)}"
        with watchdog(fifos, waited, label):
            _, said_all = _command_here(main, argv, capfd)
        assert "Traceback" not in said_all, said_all
        said = [line for line in said_all.splitlines() if "FIFO" in line]
        assert all("not a regular file" in line for line in said), said_all
        for fifo in fifos:  # each FIFO named at most once, in one line
            assert len({line for line in said if fifo.name in line}) <= 1, said_all
    assert waited == [], f"waited on a FIFO: {waited}"
    # each run ends with every cell there, in a regular cells.csv
    for exp in exps.values():
        cells = pd.read_csv(exp / "cells.csv")
        assert len(cells) == 4 and (exp / "cells.csv").is_file()


def test_a_linked_cells_csv_is_followed_and_its_target_updated(results, tmp_path, monkeypatch):
    exp = results / FIFO_IN["cells.csv"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (exp / "cells.csv").rename(elsewhere / "cells.csv")
    (exp / "cells.csv").symlink_to(elsewhere / "cells.csv")
    more = [arg.replace("repeats=2", "repeats=3") for arg in TINY]
    monkeypatch.chdir(tmp_path)
    _command.kmdr([*more, f"name={exp.name}", f"results_dir={results}", "figures=false"])
    assert (exp / "cells.csv").is_symlink()
    assert (exp / "cells.csv").resolve() == (elsewhere / "cells.csv").resolve()
    assert len(pd.read_csv(elsewhere / "cells.csv")) == 6  # the new repetition's two cells
    assert not [p for p in elsewhere.iterdir() if p.name.endswith(".tmp")]
