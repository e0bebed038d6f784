"""``cell_time_limit``: a sweep whose cells hang ends by itself, on the local backends. Real
processes: the ``kmdr`` command with a plug-in reducer that sleeps forever (stopped by the alarm
in a process's main thread) in the cells of one r; the other cells are kept, the hung ones named
in the run record, and a second run with a larger limit computes them. A limit that cannot hold
is refused before any work, in this process."""

from __future__ import annotations

import re

import pandas as pd
import pytest

import kmdr as api
from _cases import case
from _procs import kmdr, make_plugin, plugin_env, sidecars

#: 2 r values x 2 reducers x 2 repetitions = 8 cells; the plug-in's 2 at r=4 hang.
GRID = ("r_grid=[2,4]", "repeats=2")
#: The limit: a healthy cell here takes milliseconds (a worker imports the libraries before a
#: cell's clock starts), so a second tells the hung cells from the others and keeps the wait short.
LIMIT = 1


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return make_plugin(tmp_path_factory.mktemp("plugin"))


def run(project, results, action: str, *extra: str):
    args = ["-cd", str(project / "conf"), "experiment=faulty", f"results_dir={results}"]
    proc = kmdr(*args, *GRID, *extra, env=plugin_env(project, action), cwd=results)
    return proc, proc.wait()


def rows(results) -> pd.DataFrame:
    return pd.read_csv(results / "faulty" / "cells.csv")


def check_two_timed_out(proc, code: int, results) -> None:
    """6 rows, the 2 hung cells named in the record and counted in one line, exit 1."""
    assert code == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert "Traceback" not in proc.stderr, proc.stderr
    assert lines[-1].startswith(
        f"kmdr: error: faulty: 2 of 8 cells went past cell_time_limit={LIMIT} s"
    )
    assert "with a larger cell_time_limit" in lines[-1]
    assert "its traceback" not in lines[-1]  # kmdr's own raise: no traceback says more
    done = rows(results)
    assert len(done) == 6
    assert not ((done["reducer"] == "misbehave") & (done["r"] == 4)).any()
    [record] = [s for s in sidecars(results / "faulty") if s.get("timed_out")]
    assert record["status"] == "failed"
    assert {(c["reducer"], c["r"], c["repetition"]) for c in record["timed_out"]} == {
        ("misbehave", 4, 0),
        ("misbehave", 4, 1),
    }
    assert {c["limit_seconds"] for c in record["timed_out"]} == {float(LIMIT)}


BACKENDS = [
    pytest.param(("n_jobs=1",), id="in-process"),
    pytest.param(("n_jobs=2", "backend=loky"), id="loky"),
]


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_hung_cells_are_stopped_and_a_resume_computes_them(project, tmp_path, backend):
    proc, code = run(project, tmp_path, "sleep:4", *backend, f"cell_time_limit={LIMIT}")
    check_two_timed_out(proc, code, tmp_path)
    if "backend=loky" not in backend:
        return  # the resume is the same after either: once is enough
    # The same sweep with a larger limit (the reducer now returns): only the 2 are computed (in
    # one process: which cells a run computes is the store's answer, whatever the backend).
    proc, code = run(project, tmp_path, "none:0", "n_jobs=1", "cell_time_limit=60")
    assert code == 0, proc.stderr
    assert "resuming the run" in proc.stderr and "(2 computed, 6 reused)" in proc.stderr
    assert len(rows(tmp_path)) == 8


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        case(
            ("cell_time_limit=0",),
            says="'cell_time_limit' must be > 0",
            doing="configure",
            cause="cell_time_limit is the seconds a cell may take: 0 or a negative number allows "
            "none",
            fix="give a number of seconds above 0 (cell_time_limit=600), or null for no limit",
        ),
        case(
            ("cell_time_limit=5", "backend=threading", "n_jobs=2"),
            says="a cell running in a thread cannot be stopped; use backend=loky",
            doing="configure",
            cause="the threading backend computes cells in threads, which no alarm can stop",
            fix="use backend=loky (or n_jobs=1) with cell_time_limit",
        ),
        case(
            ("cell_time_limit=5", "backend=ray"),
            says="cannot stop a cell on a Ray worker",
            doing="configure",
            cause="a Ray worker's cell cannot be stopped from the run's process",
            fix="use backend=loky (or dask, where the limit is not applied) with cell_time_limit",
        ),
    ],
)
def test_a_limit_that_cannot_hold_is_refused_before_any_work(tmp_path, extra, says):
    with pytest.raises(api.ConfigError, match=re.escape(says)):
        api.run("dataset=synth", *extra, f"results_dir={tmp_path}")
    assert not any(tmp_path.iterdir())
