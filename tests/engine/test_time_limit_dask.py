"""``cell_time_limit`` on dask. The jobs' side (:meth:`kmdr.engine.deadlines.Deadlines.on_dask`),
on a real LocalCluster of two worker processes: jobs stopped at their limit end only
themselves, and the jobs queued behind them are computed even when every worker was restarted
at once (the data scattered to them lost with them). The ``kmdr`` command on a LocalCluster of
its own, with the plug-in whose cells of one r are one LAPACK call (an exact SVD) or a sleep
that never ends: those cells are stopped within the limit and its grace, the others written
(test_time_limit.py runs the same on this machine's backends)."""

from __future__ import annotations

import time

import numpy as np
import pytest
from joblib import delayed

from _backends import needs_dask
from _procs import make_plugin
from _time_limit import LIMIT as RUN_LIMIT
from _time_limit import LONG_LIMIT, LONG_SVD, SVD, check_two_timed_out, run
from kmdr.engine.cell_kinds import Job
from kmdr.engine.deadlines import Deadlines, grace, watched

pytestmark = [
    pytest.mark.slow,
    needs_dask,
]

LIMIT = 1.0


def job(*, job: Job, X, hang: bool) -> tuple[int, float]:
    """A job as :func:`kmdr.engine.worker.run_job` is one (its Job and its data by name): it
    says when it starts and ends; it hangs, or sums the shared ``X``."""
    with watched(job.watch):
        if hang:
            time.sleep(3600)
        return job.watch.index, float(X.sum())


def named(deadlines, index: int) -> Job:
    return Job((), 1, None, "token", 0, deadlines.watch(index))


@pytest.fixture
def fresh_client():
    """A LocalCluster of its own (its workers get restarted), not the session's."""
    from distributed import Client

    with Client(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as client:
        client.wait_for_workers(2)
        yield client


@pytest.mark.parametrize(
    ("hanging", "n_jobs"),
    [
        ({0}, 4),  # one worker restarted: the other goes on, the restarted one comes back
        ({0, 1}, 6),  # both at once: the scattered X is lost with them and scattered again
    ],
)
def test_stopped_jobs_end_alone_and_the_others_are_computed(fresh_client, hanging, n_jobs):
    client = fresh_client
    X = np.arange(12.0).reshape(3, 4)
    workers = set(client.scheduler_info()["workers"])
    with Deadlines(dict.fromkeys(range(n_jobs), LIMIT), client, (X,)) as deadlines:
        deadlines.new_round()
        results = dict(
            deadlines.on_dask(
                delayed(job)(job=named(deadlines, i), X=X, hang=i in hanging) for i in range(n_jobs)
            )
        )
    assert results == {i: X.sum() for i in range(n_jobs) if i not in hanging}
    assert deadlines.stopped.keys() == hanging
    assert all(LIMIT < s <= LIMIT + grace(LIMIT) for s in deadlines.stopped.values())
    # the stopped jobs' workers were restarted (new addresses), and are back
    now = set(client.scheduler_info()["workers"])
    assert len(now) == 2 and len(now - workers) == len(hanging)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return make_plugin(tmp_path_factory.mktemp("plugin"))


@pytest.mark.parametrize(
    ("action", "limit"),
    [
        pytest.param(SVD, RUN_LIMIT, id="svd"),
        # a sleep that never ends, in Python: as stopped (a minute on 2 loaded cores)
        pytest.param("sleep:4", RUN_LIMIT, id="sleep", marks=pytest.mark.longhaul),
        # the full size: an exact SVD of 4000 x 4000 (about 35 s on one thread here)
        pytest.param(LONG_SVD, LONG_LIMIT, id="svd-35-seconds", marks=pytest.mark.longhaul),
    ],
)
def test_the_command_stops_cells_past_the_limit_on_dask(project, tmp_path, action, limit):
    backend = ("n_jobs=2", "backend=dask")
    proc, code = run(project, tmp_path, action, *backend, f"cell_time_limit={limit:g}")
    check_two_timed_out(proc, code, tmp_path, limit)
