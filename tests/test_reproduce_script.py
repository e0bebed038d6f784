"""scripts/reproduce.py end to end, as `make reproduce` runs it (a subprocess, real data)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "reproduce.py"
SMALL = ["r_grid=[5,10]", "repeats=1", "kmeans.n_init=1", "kmeans.max_iter=20", "n_jobs=2"]


def reproduce(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600
    )


def test_every_figure_is_drawn_before_the_script_returns(tmp_path):
    # Two experiments: the first one's figures are drawn while the second one computes.
    names = ["bzmd14_coil20", "bzmd14_orl"]
    done = reproduce("--results", str(tmp_path), "--only", *names, "--override", *SMALL)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "warning" not in done.stderr
    times = pd.read_csv(tmp_path / "reproduce_times.csv")
    assert list(times["experiment"]) == names and set(times["status"]) == {"done"}
    for name in names:
        exp = tmp_path / name
        cells = pd.read_csv(exp / "cells.csv")
        summary = pd.read_csv(exp / "summary.csv")
        assert len(cells) == int(times.set_index("experiment").loc[name, "cells"])
        assert summary["n_cells"].sum() == len(cells)  # summarized after the last cell
        for ext in ("png", "pdf"):
            assert (exp / "figures" / f"{name}.{ext}").stat().st_size > 1000
        # the run record keeps the config as given: figures on, even though another process
        # drew them
        (record,) = (exp / "runs").glob("*.json")
        assert json.loads(record.read_text())["config"]["figures"] is True


def test_no_figures_when_the_override_says_so(tmp_path):
    args = ["--results", str(tmp_path), "--only", "bzmd14_orl", "--override", *SMALL]
    done = reproduce(*args, "figures=false", "r_grid=[5]")
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "bzmd14_orl" / "cells.csv").is_file()
    assert not (tmp_path / "bzmd14_orl" / "figures").exists()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--override", "kmeans.nope=1"], "configuration error: unknown config key 'kmeans.nope'"),
        (["--only", "bzmd14_orl", "nope"], "--only nope: not an experiment make reproduce runs"),
    ],
)
def test_a_bad_argument_stops_before_any_work(args, expected, tmp_path):
    results = tmp_path / "results"
    done = reproduce("--results", str(results), *args)
    assert done.returncode == 2
    assert expected in done.stderr and "Traceback" not in done.stderr
    assert not results.exists()


def test_ctrl_c_is_one_line_and_the_same_command_resumes(tmp_path):
    # A real SIGINT to the whole process group, as Ctrl-C sends it: the script, its workers and
    # its drawing process all receive it.
    args = [sys.executable, str(SCRIPT), "--results", str(tmp_path), "--override", *SMALL]
    args += ["r_grid=[5,10,15,20,25,30]", "--only", "bzmd14_orl", "bzmd14_usps"]
    proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        # wait until the first experiment is done and the second one has started computing
        while not (tmp_path / "bzmd14_usps" / "cells").is_dir() and time.monotonic() < deadline:
            assert proc.poll() is None, "the run ended before it could be interrupted"
            time.sleep(0.05)
        time.sleep(1.0)
        assert proc.poll() is None, "the run ended before it could be interrupted"
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("[reproduce] interrupted; finished cells are kept under")

    done = reproduce(*args[2:])
    assert done.returncode == 0, done.stderr[-2000:]
    times = pd.read_csv(tmp_path / "reproduce_times.csv").set_index("experiment")
    assert times.loc["bzmd14_orl", "computed"] == 0  # all of it was kept
    assert times.loc["bzmd14_orl", "reused"] == times.loc["bzmd14_orl", "cells"]
    assert times.loc["bzmd14_usps", "computed"] < times.loc["bzmd14_usps", "cells"]
    for name in ("bzmd14_orl", "bzmd14_usps"):
        cells = pd.read_csv(tmp_path / name / "cells.csv")
        assert len(cells) == times.loc[name, "cells"] and cells["cell_id"].is_unique
        assert (tmp_path / name / "figures" / f"{name}.png").is_file()
