"""The worker pool started early by the Session: warm-up, reuse by the run, no-op where it does
not apply, off when asked. No timing assertions (timings belong in scripts/bench_*.py)."""

from __future__ import annotations

import os
import threading

import pytest
from joblib import Parallel, delayed

from kmdr.config.schema import Execution, Experiment, Output
from kmdr.engine.parallel import resolve_parallelism, results_as_completed
from kmdr.engine.session import Session


def _pid(_):
    return os.getpid()


def _experiment(**keys):
    """A sweep of 2 reducers x 2 r x 2 repetitions on synth: 8 cells, jobs for 2 workers."""
    base = {"dataset": {"name": "synth"}, "reducers": [{"name": "sign"}, {"name": "svd"}]}
    return Experiment(**{**base, "r_grid": (2, 3), "repeats": 2, **keys})


def _Exp():
    return _experiment()


def test_warm_workers_are_the_ones_the_run_uses():
    # joblib does not promise which worker takes which job (one fast worker may take both
    # warm-up jobs), so the test checks what matters: the pool of 2 is never restarted, i.e. no
    # process other than those 2 ever answers, from the warm-up through two runs.
    with Session(Execution(n_jobs=2)) as session:
        par = session.prepare(_Exp(), Output())
        warm = session.wait_for_workers()
        assert warm and os.getpid() not in warm
        with session.backend(_Exp(), par):
            used = set(Parallel()(delayed(_pid)(i) for i in range(8)))
        # a second run with the same pool arguments starts nothing new, reuses the same workers
        assert session.prepare(_Exp(), Output()) is par
        assert session.wait_for_workers() == warm
        with session.backend(_Exp(), par):
            used |= set(Parallel()(delayed(_pid)(i) for i in range(8)))
    seen = used | set(warm)
    assert len(seen) <= 2 and os.getpid() not in seen


@pytest.mark.parametrize(
    "execution, dry_run",
    [
        (Execution(n_jobs=2, backend="threading"), False),
        (Execution(n_jobs=2, backend="multiprocessing"), False),
        (Execution(n_jobs=2, backend="sequential"), False),
        (Execution(n_jobs=1), False),
        (Execution(n_jobs=2), True),
        (Execution(n_jobs=2, warmup=False), False),
    ],
)
def test_no_warmup_where_it_does_not_apply_or_is_off(execution, dry_run):
    with Session(execution) as session:
        session.prepare(_Exp(), Output(dry_run=dry_run))
        assert session.wait_for_workers() == []


def test_a_pool_is_warmed_only_for_a_run_with_jobs_for_it(tmp_path):
    """Before the data loads, the session guesses from the config and the results folder whether
    the run has jobs for more than one worker, and warms the pool only then: a fresh sweep gets
    it; a one-cell run, a run whose folder already holds every cell, and a kind that computes no
    cells (bmd09's leverage scores) do not (their workers would only be waited for)."""
    from kmdr import run

    def warmed(experiment) -> bool:
        with Session(Execution(n_jobs=2)) as session:
            session.prepare(experiment, Output(results_dir=str(tmp_path)))
            return bool(session.wait_for_workers())

    assert warmed(_experiment())
    assert not warmed(_experiment(r_grid=(2,), repeats=1, reducers=[{"name": "sign"}]))
    assert not warmed(Experiment(dataset={"name": "synth"}, kind="leverage_scores"))
    # the same sweep once its cells are done (computed here in one process)
    done = _experiment(name="done")
    run(done, execution=Execution(n_jobs=1), output=Output(results_dir=str(tmp_path)))
    assert not warmed(done)
    # a cell of it gone (its file deleted, cells.csv written without it): warmed again
    store = tmp_path / "done"
    cells = sorted((store / "cells").glob("*.json"))
    lines = (store / "cells.csv").read_text().splitlines(keepends=True)
    cells[0].unlink()
    (store / "cells.csv").write_text("".join(lines[:-1]))
    assert warmed(done)


def test_n_jobs_is_resolved_once_per_session():
    """One function resolves n_jobs (with the launcher's share of the cores), once per
    Session: a second run gets the same object."""
    with Session(Execution(n_jobs=-1), launcher_n_jobs=1) as session:
        first = session.parallelism(1)
        assert session.parallelism(1) is first
    cores = first.cores
    assert first.n_jobs == cores
    # two launcher jobs at once share the cores; -1 means all of the launcher's too
    assert resolve_parallelism(Execution(n_jobs=-1), 1, 2).n_jobs == max(1, cores // 2)
    assert resolve_parallelism(Execution(n_jobs=-1), 1, -1).launcher_jobs == cores


def test_workers_start_from_the_checked_objects():
    """The app and make reproduce start the warm workers from the run's Execution: its
    backend, its n_jobs with the quick grid merged; a config whose n_jobs is invalid never gets
    that far."""
    from kmdr.config.errors import ConfigError
    from kmdr.config.schema import from_config

    base = {"dataset": {"name": "synth"}, "reducers": [{"name": "sign"}]}
    spec = from_config({**base, "n_jobs": 1, "backend": "threading", "backend_params": {}})
    assert spec.execution.backend == "threading"
    assert resolve_parallelism(spec.execution, 1).n_jobs == 1
    quick = {"quick": True, "n_jobs": 1, "quick_grid": {"n_jobs": 2}, "backend": "loky"}
    assert resolve_parallelism(from_config({**base, **quick}).execution, 1).n_jobs == 2
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


@pytest.mark.fault(
    "backend=multiprocessing while another thread of the run's process holds a lock (the "
    "session's heartbeat, a progress ticker, a library's pool)",
    gets="the workers are spawned, not forked: none starts with a copy of the held lock, "
    "which would stop it for good; their parent is the run's process",
)
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
            par = session.prepare(_Exp(), Output())
            with session.backend(_Exp(), par):
                jobs = (delayed(_takes_the_lock)() for _ in range(4))
                answers = list(results_as_completed(jobs, par.n_jobs, "multiprocessing"))
    finally:
        release.set()
        holder.join()
    assert answers == [(True, os.getpid())] * 4
