"""A results folder whose files are not regular files: a FIFO, a folder or a symbolic link where
cells.csv, a cell file, a run record or summary.csv should be. Real FIFOs and links, real
commands in processes (a FIFO opened the usual way would make them wait forever)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

pytestmark = pytest.mark.slow

TINY = ["dataset=synth", "dataset.params.n_samples=200", "dataset.params.n_features=50",
        "reducer=sign", "r_grid=[3,5]", "repeats=2", "kmeans.n_init=1", "n_jobs=1",
        "progress=false"]  # fmt: skip
BIN = Path(sys.executable).parent


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    # a command that waited on a FIFO would hit the timeout: no wait is the first thing tested
    return subprocess.run(args, capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.fixture(scope="module")
def computed(tmp_path_factory) -> Path:
    """A results folder of TINY's four cells and summary.csv, computed once for the module."""
    where = tmp_path_factory.mktemp("computed")
    results = where / "results"
    done = _run(str(BIN / "kmdr"), *TINY, f"results_dir={results}", "figures=false", cwd=where)
    assert done.returncode == 0, done.stderr
    _run(str(BIN / "kmdr-figures"), str(results), cwd=where)  # summary.csv
    return results


@pytest.fixture
def results(computed, tmp_path) -> Path:
    """A copy of :func:`computed` for the test to damage."""
    return Path(shutil.copytree(computed, tmp_path / "results", symlinks=True))


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


@pytest.mark.parametrize(
    "where",
    [
        pytest.param("cells.csv"),
        pytest.param("cell"),
        pytest.param("run"),
        pytest.param("summary.csv"),
    ],
)  # fmt: skip
def test_a_fifo_in_a_results_folder_makes_no_command_wait(where, results, tmp_path):
    exp = results / "custom"
    target = {
        "cells.csv": exp / "cells.csv",
        "cell": sorted((exp / "cells").glob("*.json"))[0],
        "run": sorted((exp / "runs").glob("*.json"))[0],
        "summary.csv": exp / "summary.csv",
    }[where]
    _fifo(target)
    commands = [
        [str(BIN / "kmdr-report"), str(results)],
        [str(BIN / "kmdr-figures"), str(results)],
        [str(BIN / "kmdr-compare"), str(results), str(results)],
        [str(BIN / "kmdr"), *TINY, f"results_dir={results}", "figures=false"],
    ]
    if where == "cells.csv":  # a dry run with cells to do reads every cells.csv for its estimate
        more = [arg.replace("repeats=2", "repeats=3") for arg in TINY]
        commands.insert(0, [str(BIN / "kmdr"), *more, f"results_dir={results}", "dry_run=true"])
    for command in commands:
        done = _run(*command, cwd=tmp_path)  # returns: no wait
        assert "Traceback" not in done.stderr, done.stderr
        said = [line for line in done.stderr.splitlines() if "FIFO" in line]
        assert len(set(said)) <= 1 and all("not a regular file" in line for line in said)
    # the run ends with every cell there, in a regular cells.csv
    cells = pd.read_csv(exp / "cells.csv")
    assert len(cells) == 4 and (exp / "cells.csv").is_file()


def test_a_linked_cells_csv_is_followed_and_its_target_updated(results, tmp_path):
    exp = results / "custom"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (exp / "cells.csv").rename(elsewhere / "cells.csv")
    (exp / "cells.csv").symlink_to(elsewhere / "cells.csv")
    more = [arg.replace("repeats=2", "repeats=3") for arg in TINY]
    done = _run(str(BIN / "kmdr"), *more, f"results_dir={results}", "figures=false",
                cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (exp / "cells.csv").is_symlink()
    assert (exp / "cells.csv").resolve() == (elsewhere / "cells.csv").resolve()
    assert len(pd.read_csv(elsewhere / "cells.csv")) == 6  # the new repetition's two cells
    assert not [p for p in elsewhere.iterdir() if p.name.endswith(".tmp")]
