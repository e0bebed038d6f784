"""How a run uses the machine or a cluster: workers, BLAS threads, and the joblib backend.

Backends (``backend=`` in the config):

* ``loky`` (default), ``threading``, ``multiprocessing``, ``sequential``: joblib's own;
* ``dask`` and ``ray``: a cluster given by address, or one started for the run
  (:mod:`kmdr.engine.backends`).

Workers on this machine are at most one per core (:func:`resolve_parallelism` caps ``n_jobs``
and says so). Every job runs through :func:`guarded_job`: a worker watches the process that runs
the run and exits within a second of its death (:class:`kmdr.engine.session.ProcessState`), and a
job that ends with ``sys.exit`` or another non-error BaseException is a one-line
:class:`CellAborted`.

Results never depend on the backend, on ``n_jobs`` or on the machine's cores: every cell carries
its own seed, and is computed with the BLAS/OpenMP threads of its identity (``blas_threads``,
default 1; another number of threads adds sums in another order), whatever process or thread
computes it (:mod:`kmdr.engine.threads`). :func:`results_as_completed` works with
backends that cannot stream results (multiprocessing, ray) by dispatching in small batches, so
finished cells are still persisted while the run goes on.
"""

from __future__ import annotations

import importlib
import os
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from kmdr._errors import one_line

__all__ = [
    "BackendError",
    "CellAborted",
    "CellFailed",
    "JobTimedOut",
    "Parallelism",
    "RunFailed",
    "cell_failed",
    "guarded_job",
    "import_modules",
    "resolve_parallelism",
    "results_as_completed",
]

#: The modules a worker imports before its first cell (kmdr.engine.work and what it imports
#: lazily), so that no cell's timings or limit hold the scientific stack's import.
WORKER_MODULES = ("kmdr.engine.work", "kmdr.cluster", "kmdr.reducers", "kmdr.metrics")


class RunFailed(RuntimeError):
    """A run failed in a way its one-line message says whole (shown as it is, not as a cell's
    error with its type). ``traced``: whether its traceback, which the run's log keeps and the
    line points to, says more than the line (False when kmdr raised it to report an outcome)."""

    traced = True


class BackendError(RunFailed):
    """The parallel backend could not be started or failed; the message is one line."""


@dataclass(frozen=True)
class Parallelism:
    """What a run uses: ``n_jobs`` workers on a machine with ``cores`` cores shared by
    ``launcher_jobs`` runs at once (a Hydra joblib launcher).

    The BLAS/OpenMP threads of each worker are not copied here: they belong to the cells'
    identity, held by the :class:`~kmdr.config.schema.Experiment` alone (its
    ``blas_threads``), which the functions below that need them are given."""

    n_jobs: int
    launcher_jobs: int
    cores: int
    #: The workers the config asked for, when more than the backend can run (then capped).
    requested: int | None = None
    #: Whether the workers run on this machine (not on a cluster given by address).
    runs_here: bool = True

    def cap_message(self, backend: str) -> str | None:
        """The one line saying ``n_jobs`` was capped, or None."""
        if self.requested is None:
            return None
        if backend == "sequential":
            return (
                f"[kmdr] n_jobs={self.requested} capped to 1: backend=sequential computes one "
                "cell at a time in this process; use backend=loky for workers"
            )
        return (
            f"[kmdr] n_jobs={self.requested} capped to {self.n_jobs}: backend={backend} runs "
            f"at most one worker per core here ({self.cores} cores); more would only contend "
            "for them"
        )

    def oversubscription_message(self, blas_threads: int) -> str | None:
        """The one line saying the workers' threads (``blas_threads`` each, the experiment's)
        outnumber this run's cores, or None.

        ``blas_threads`` is never lowered to fit (it is part of every cell's identity): the
        cells' numbers stay those of their identity, only their timings suffer."""
        share = _share(self.cores, self.launcher_jobs)
        threads = self.n_jobs * blas_threads
        if not self.runs_here or blas_threads == 1 or threads <= share:
            return None
        fix = (
            f"use n_jobs={share // blas_threads} (or -1)"
            if blas_threads <= share
            else f"blas_threads above {share} cannot have a core per thread here"
        )
        return (
            f"[kmdr] n_jobs={self.n_jobs} x blas_threads={blas_threads} = {threads} "
            f"threads on this run's {share} core(s) contend for them (same numbers, slower "
            f"cells, timings that measure the contention); {fix}"
        )


def resolve_parallelism(execution, blas_threads: int, launcher_n_jobs: int = 1) -> Parallelism:
    """Workers and BLAS threads for ``execution`` (a :class:`~kmdr.config.schema.Execution`)
    whose cells compute with ``blas_threads`` threads each, when a Hydra launcher runs
    ``launcher_n_jobs`` jobs at once on this machine (its own ``n_jobs``: -1 all cores, -2 one
    less, ...; 1 for one job at a time): the one place ``n_jobs`` is resolved.

    ``n_jobs = -1`` means as many workers as this run's share of the cores (cores //
    launcher_jobs) holds with ``blas_threads`` threads each, ``-2`` one less, and so on. BLAS
    threads are ``blas_threads`` (the experiment's, default 1), never worked out from the cores:
    they are part of every cell's identity, so a cell's numbers never depend on the machine or on
    ``n_jobs``.
    Workers and threads that an explicit ``n_jobs`` makes outnumber the cores are run as asked,
    with one line saying so (:meth:`Parallelism.oversubscription_message`).

    A backend that runs its workers on this machine (every one but a dask scheduler or a Ray
    cluster given by address) gets at most one worker per core: more only contend for the cores,
    and thousands of loky workers exhaust the system's semaphores and hang. ``backend=sequential``
    (joblib's) runs one job at a time whatever ``n_jobs`` says: its parallelism is one job. The
    result says when an ``n_jobs`` given was capped (``requested``;
    :meth:`Parallelism.cap_message`).
    """
    import joblib

    cores = int(joblib.cpu_count())
    launcher_n_jobs = int(launcher_n_jobs)
    launcher_jobs = launcher_n_jobs if launcher_n_jobs > 0 else cores + 1 + launcher_n_jobs
    launcher_jobs = max(1, launcher_jobs)
    blas_threads = int(blas_threads)
    fit = max(1, _share(cores, launcher_jobs) // max(1, blas_threads))
    asked = execution.n_jobs
    n_jobs = asked if asked > 0 else max(1, fit + 1 + asked)
    requested = None
    runs_here = _runs_here(execution)
    if execution.backend == "sequential" and n_jobs > 1:  # joblib's runs one job at a time
        requested, n_jobs = (asked if asked > 1 else None), 1
    elif runs_here and n_jobs > cores:
        requested, n_jobs = n_jobs, cores
    return Parallelism(n_jobs, launcher_jobs, cores, requested, runs_here)


def _share(cores: int, launcher_jobs: int) -> int:
    """The cores one of ``launcher_jobs`` runs sharing the machine may use (at least one)."""
    return max(1, cores // max(1, launcher_jobs))


def _runs_here(execution) -> bool:
    """Whether the backend's workers run on this machine (not on a cluster given by address)."""
    if execution.backend == "dask":
        return not execution.dask.scheduler
    if execution.backend == "ray":
        return not execution.ray.address
    return True


class CellFailed(RunFailed):
    """A cell's own code (its reducer, its k-means, its data's block) raised an error; the
    message is one line naming the reducer, the cell and the error, whose traceback is in the
    run's log."""


def cell_failed(what: str, err: Exception) -> CellFailed:
    """The :class:`CellFailed` for ``err`` in the cells ``what`` names
    (:func:`kmdr.engine.sweep.describe_cells`); raise it from ``err``, so that the run's log keeps
    the cell's own traceback."""
    return CellFailed(f"{what} failed ({one_line(err, with_type=True)})")


class CellAborted(RuntimeError):
    """A cell's code ended the job with a BaseException that is not an error (``sys.exit``, a
    KeyboardInterrupt of its own, ...), or the worker computing it died; the message is one line
    naming the reducer and the cell."""


@dataclass(frozen=True)
class JobTimedOut:
    """What a job returns instead of its result when it ran past its time limit: the ids of its
    cells."""

    cell_ids: tuple[str, ...]


def guarded_job(what: str, parent_pid: int, cell_ids: tuple, limit, func, *args):
    """Run ``func(*args)``, a job of the run of process ``parent_pid`` computing the cells
    ``cell_ids``, in a worker (or that process): a ``sys.exit`` or any other non-error
    BaseException in the job becomes a :class:`CellAborted` naming ``what`` (the reducer and
    cells), which the run reports in one line, instead of ending the run silently or taking the
    worker down. A real Ctrl-C of the run's own process stays an interrupt.

    ``limit``: the seconds each cell may take (``cell_time_limit``), or None. The job may take
    ``limit`` per cell; past that it stops (:func:`kmdr.engine.signals.time_limit`, in a process's
    main thread) and returns a :class:`JobTimedOut`."""
    from kmdr.engine import signals

    budget = None if limit is None else float(limit) * len(cell_ids)
    if os.getpid() != parent_pid:
        # A worker nobody warmed (a pool the run started itself) imports what cells need
        # first: neither a cell's timings nor its limit hold the scientific stack's import.
        # Once imported, this is a look-up.
        import_modules(WORKER_MODULES)
    try:
        with signals.time_limit(budget):
            return func(*args)
    except signals.CellTimedOut:
        return JobTimedOut(tuple(cell_ids))
    except Exception as err:
        raise cell_failed(what, err) from err
    except BaseException as err:
        own_signal = isinstance(err, signals.Interrupted) or not signals.handling()
        if os.getpid() == parent_pid and isinstance(err, KeyboardInterrupt) and own_signal:
            raise  # a signal to this process, not the cell's doing
        detail = " ".join(str(err).split())
        raise CellAborted(
            f"{what} raised {type(err).__name__}{f'({detail})' if detail else ''}, which ends "
            "a process, not a cell; a reducer must raise an exception"
        ) from None


def import_modules(modules: tuple[str, ...]) -> int:
    """A warm-up job: import ``modules`` in the worker; its process id."""
    for module in modules:
        importlib.import_module(module)
    return os.getpid()


#: joblib's warning when a generator of results is closed early (joblib.parallel).
_CANCELLED = r".*(tasks which were still being processed|have been successfully executed)"


def results_as_completed(jobs: Iterable, n_jobs: int, backend: str) -> Iterator:
    """The results of ``jobs`` (joblib ``delayed`` calls) with the active backend (named
    ``backend``), each as soon as it is available.

    Backends that stream results get ``return_as="generator_unordered"``; those that cannot
    (joblib's multiprocessing backend, Ray's) get the jobs in batches of a few per worker on one
    pool, so results still come back while the run goes on. ``jobs`` is consumed lazily.

    joblib's multiprocessing backend forks this process by default on Linux, and this process
    has threads (a progress ticker, a library's own pool): a child
    forked while one of them holds a lock waits for it forever, and the run with it. Its workers
    are spawned instead, a fresh interpreter each as loky's are, whose parent is still this
    process (the workers' watch on it holds). joblib takes the start method as a
    ``multiprocessing`` context given as ``Parallel``'s backend; the worker count and the
    memory-map settings stay the active ``parallel_config``'s.
    """
    import multiprocessing

    from joblib import Parallel

    try:
        parallel = Parallel(return_as="generator_unordered")
    except ValueError as err:
        if "return_as" not in str(err):
            raise
        parallel = None
    if parallel is not None:
        outputs = parallel(jobs)
        try:
            # not `yield from`, which would close outputs itself, outside the filter below
            for output in outputs:  # noqa: UP028
                yield output
        finally:
            # Closed before the end (a stop signal, a failed cell): joblib cancels the jobs still
            # running and warns that they were cancelled, which the run's own line already says.
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", _CANCELLED, UserWarning)
                outputs.close()
        return
    batch_size = max(1, 2 * n_jobs)
    start = multiprocessing.get_context("spawn") if backend == "multiprocessing" else None
    with Parallel(return_as="list", backend=start) as pool:
        batch = []
        for job in jobs:
            batch.append(job)
            if len(batch) >= batch_size:
                yield from pool(batch)
                batch = []
        if batch:
            yield from pool(batch)
