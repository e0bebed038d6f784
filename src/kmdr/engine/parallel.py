"""How a run's jobs run on its workers (the workers and the backend:
:mod:`kmdr.engine.backends`), and the errors a run reports in one line.

Every job runs through :func:`guarded_job`: a worker watches the process that runs the run and
exits within a second of its death (:class:`kmdr.engine.session.ProcessState`), and a job that
ends with ``sys.exit`` or another non-error BaseException is a one-line :class:`CellAborted`.

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
    "RunFailed",
    "cell_failed",
    "guarded_job",
    "import_modules",
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


def import_modules(modules: tuple[str, ...]) -> None:
    """Import ``modules`` (a worker's first job, before its cell)."""
    for module in modules:
        importlib.import_module(module)


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
