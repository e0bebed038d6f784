"""The run's workers: n_jobs resolved once, joblib's pool reused by a second run, workers spawned
without this process's locks. No timing assertions (timings belong in scripts/bench/bench_*.py)."""

from __future__ import annotations

import os
import threading

import pytest
from joblib import Parallel, delayed

from kmdr.config.schema import Execution, Experiment
from kmdr.engine.backends import backend, resolve_parallelism
from kmdr.engine.session import Session
from kmdr.engine.sweep import _as_completed


def _pid(_):
    return os.getpid()


def _experiment(**keys):
    """A sweep of 2 reducers x 2 r x 2 repetitions on synth: 8 cells, jobs for 2 workers."""
    base = {"dataset": {"name": "synth"}, "reducers": [{"name": "sign"}, {"name": "svd"}]}
    return Experiment(**{**base, "r_grid": (2, 3), "repeats": 2, **keys})


def test_a_second_run_reuses_the_pool_of_the_first():
    # joblib does not promise which worker takes which job, so the test checks what matters:
    # the pool of 2 is never restarted, i.e. no process other than those 2 ever answers.
    used = set()
    with Session(Execution(n_jobs=2)) as session:
        for _ in range(2):
            par = session.parallelism(1)
            with backend(session.execution, par.workers, 1) as (_, _, workers_ready):
                workers_ready()
                used |= set(Parallel()(delayed(_pid)(i) for i in range(8)))
    assert len(used) <= 2 and os.getpid() not in used


def test_n_jobs_is_resolved_once_per_session():
    """One function resolves n_jobs (with the launcher's share of the cores), once per
    Session: a second run gets the same object."""
    with Session(Execution(n_jobs=-1), launcher_n_jobs=1) as session:
        first = session.parallelism(1)
        assert session.parallelism(1) is first
    cores = first.cores
    assert first.workers == cores
    # two launcher jobs at once share the cores; -1 means all of the launcher's too
    assert resolve_parallelism(Execution(n_jobs=-1), 1, 2).workers == max(1, cores // 2)
    assert resolve_parallelism(Execution(n_jobs=-1), 1, -1).launcher_jobs == cores


def test_workers_start_from_the_checked_objects():
    """The app and make reproduce start the workers from the run's Execution: its backend, its
    n_jobs with the quick grid merged; a config whose n_jobs is invalid never gets that far."""
    from kmdr.config.errors import ConfigError
    from kmdr.config.schema import from_config

    base = {"dataset": {"name": "synth"}, "reducers": [{"name": "sign"}]}
    spec = from_config({**base, "n_jobs": 1, "backend": "threading", "backend_params": {}})
    assert spec.execution.backend == "threading"
    assert resolve_parallelism(spec.execution, 1).workers == 1
    quick = {"quick": True, "n_jobs": 1, "quick_grid": {"n_jobs": 2}, "backend": "loky"}
    assert resolve_parallelism(from_config({**base, **quick}).execution, 1).workers == 2
    for bad in (0, "many"):  # the checks report it, before any worker starts
        with pytest.raises(ConfigError, match="n_jobs"):
            from_config({**base, "n_jobs": bad})


#: A lock of this module, held by a thread of the test's process while the pool starts.
_HELD = threading.Lock()


def _takes_the_lock():
    """In a worker: whether this module's lock can be taken (a forked child copies it as held,
    and nobody there ever releases it), and the worker's parent."""
    got = _HELD.acquire(timeout=5)
    if got:
        _HELD.release()
    return got, os.getppid()


def test_multiprocessing_workers_start_without_the_locks_this_process_holds():
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with _HELD:
            taken.set()
            release.wait(60)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert taken.wait(10), "the holding thread never took the lock"
        with Session(Execution(n_jobs=2, backend="multiprocessing")) as session:
            par = session.parallelism(1)
            with backend(session.execution, par.workers, 1):
                jobs = (delayed(_takes_the_lock)() for _ in range(4))
                answers = list(_as_completed(jobs, par.workers, "multiprocessing"))
    finally:
        release.set()
        holder.join()
    assert answers == [(True, os.getpid())] * 4
