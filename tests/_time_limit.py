"""What the ``cell_time_limit`` tests of the ``kmdr`` command share: the plug-in's ``faulty``
sweep run as a real process, whose cells of one r (2 of its 8) run past the limit as the test
chooses, and the check that those 2, and only they, were stopped in time."""

from __future__ import annotations

import pandas as pd

from _procs import alive, kmdr, plugin_env, sidecars, wait_for
from kmdr.engine.deadlines import grace

#: 2 r values x 2 reducers x 2 repetitions = 8 cells; the plug-in's 2 at r=4 run past the limit.
GRID = ("r_grid=[2,4]", "repeats=2")
#: The limit of `make test`'s runs: a healthy cell here takes milliseconds (a worker imports the
#: libraries before a job's clock starts), and an exact SVD of 2500 x 2500 (``SVD``) takes 8 s
#: on one thread of an idle core here, more on a loaded one: a stop within the limit and its
#: grace (2 s in all) is not the call returning. The same proportions as the issue's size
#: (``LONG_SVD`` under a limit of ``LONG_LIMIT``: 35 s against 3 + 3), which the `longhaul`
#: cases run.
LIMIT = 1
SVD = "svd2500:4"
LONG_LIMIT = 3
LONG_SVD = "svd4000:4"


def run(project, results, action: str, *extra: str, env: dict | None = None):
    """The ``faulty`` sweep of the plug-in ``project`` into ``results``, its reducer doing
    ``action`` (``env``: more of its environment): the process and its exit status."""
    args = ["-cd", str(project / "conf"), "experiment=faulty", f"results_dir={results}"]
    env = {**plugin_env(project, action, release=results / "pids"), **(env or {})}
    proc = kmdr(*args, *GRID, *extra, env=env, cwd=results)
    return proc, proc.wait()


def rows(results) -> pd.DataFrame:
    return pd.read_csv(results / "faulty" / "cells.csv")


def check_two_timed_out(proc, code: int, results, limit: float) -> None:
    """6 rows, the 2 stopped cells named in the record with the seconds they ran (within the
    limit and its grace) and counted in one line, exit 1; no process that computed them lives."""
    assert code == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert "Traceback" not in proc.stderr, proc.stderr
    assert lines[-1].startswith(
        f"kmdr: error: faulty: 2 of 8 cells went past cell_time_limit={limit:g} s"
    ), proc.stderr
    assert "with a larger cell_time_limit" in lines[-1]
    assert "its traceback" not in lines[-1]  # kmdr's own raise: no traceback says more
    done = rows(results)
    assert len(done) == 6
    assert not ((done["reducer"] == "misbehave") & (done["r"] == 4)).any()
    [record] = [s for s in sidecars(results / "faulty") if s.get("timed_out")]
    assert record["status"] == "failed"
    stopped = record["timed_out"]
    assert {(c["reducer"], c["r"], c["repetition"]) for c in stopped} == {
        ("misbehave", 4, 0),
        ("misbehave", 4, 1),
    }
    assert {c["limit_seconds"] for c in stopped} == {float(limit)}
    assert all(limit <= c["seconds"] <= limit + grace(limit) for c in stopped), stopped
    pids = results / "pids"
    for pid in map(int, pids.read_text().split()) if pids.exists() else ():
        wait_for(lambda pid=pid: not alive(pid), f"the end of process {pid}", timeout=10)


def check_resumed(results, proc, code: int) -> None:
    """A second run with a larger limit computed the 2 stopped cells only, and reused the 6."""
    assert code == 0, proc.stderr
    assert "resuming the run" in proc.stderr and "(2 computed, 6 reused)" in proc.stderr
    assert len(rows(results)) == 8
