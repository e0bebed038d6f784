"""A results folder whose files are not regular files: a FIFO, a folder or a symbolic link where
cells.csv, a cell file, a run record or summary.csv should be. Real FIFOs and links, real
commands in processes (a FIFO opened the usual way would make them wait forever): each command
runs once over a folder holding one FIFO of each kind, in an experiment of its own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import kmdr
from kmdr.results.summary import write_summaries

pytestmark = pytest.mark.slow

TINY = ["dataset=synth", "dataset.params.n_samples=200", "dataset.params.n_features=50",
        "reducer=sign", "r_grid=[3,5]", "repeats=2", "kmeans.n_init=1", "n_jobs=1",
        "progress=false"]  # fmt: skip
BIN = Path(sys.executable).parent
#: The experiment holding each kind of FIFO.
FIFO_IN = {"cells.csv": "fifo_csv", "cell": "fifo_cell", "run": "fifo_run",
           "summary.csv": "fifo_summary"}  # fmt: skip


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    # a command that waited on a FIFO would hit the timeout: no wait is the first thing tested
    return subprocess.run(args, capture_output=True, text=True, cwd=cwd, timeout=120)


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


def test_a_fifo_in_a_results_folder_makes_no_command_wait(results, tmp_path):
    exps = {where: results / name for where, name in FIFO_IN.items()}
    fifos = [
        exps["cells.csv"] / "cells.csv",
        sorted((exps["cell"] / "cells").glob("*.json"))[0],
        sorted((exps["run"] / "runs").glob("*.json"))[0],
        exps["summary.csv"] / "summary.csv",
    ]
    for fifo in fifos:
        _fifo(fifo)
    more = [arg.replace("repeats=2", "repeats=3") for arg in TINY]
    names = ",".join(FIFO_IN.values())
    commands = [
        # a dry run with cells to do reads every cells.csv for its estimate
        [str(BIN / "kmdr"), *more, f"name={FIFO_IN['cells.csv']}", f"results_dir={results}",
         "dry_run=true"],
        [str(BIN / "kmdr-report"), str(results)],
        [str(BIN / "kmdr-figures"), str(results)],
        [str(BIN / "kmdr-compare"), str(results), str(results)],  # stops at fifo_csv's
        [str(BIN / "kmdr-compare"), str(exps["cell"]), str(exps["cell"])],  # reads cell files
        [str(BIN / "kmdr"), "-m", *TINY, f"name={names}", f"results_dir={results}",
         "figures=false"],
    ]  # fmt: skip
    for command in commands:
        done = _run(*command, cwd=tmp_path)  # returns: no wait
        assert "Traceback" not in done.stderr, done.stderr
        said = [line for line in done.stderr.splitlines() if "FIFO" in line]
        assert all("not a regular file" in line for line in said), done.stderr
        for fifo in fifos:  # each FIFO named at most once, in one line
            assert len({line for line in said if fifo.name in line}) <= 1, done.stderr
    # each run ends with every cell there, in a regular cells.csv
    for exp in exps.values():
        cells = pd.read_csv(exp / "cells.csv")
        assert len(cells) == 4 and (exp / "cells.csv").is_file()


def test_a_linked_cells_csv_is_followed_and_its_target_updated(results, tmp_path):
    exp = results / FIFO_IN["cells.csv"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (exp / "cells.csv").rename(elsewhere / "cells.csv")
    (exp / "cells.csv").symlink_to(elsewhere / "cells.csv")
    more = [arg.replace("repeats=2", "repeats=3") for arg in TINY]
    done = _run(str(BIN / "kmdr"), *more, f"name={exp.name}", f"results_dir={results}",
                "figures=false", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (exp / "cells.csv").is_symlink()
    assert (exp / "cells.csv").resolve() == (elsewhere / "cells.csv").resolve()
    assert len(pd.read_csv(elsewhere / "cells.csv")) == 6  # the new repetition's two cells
    assert not [p for p in elsewhere.iterdir() if p.name.endswith(".tmp")]
