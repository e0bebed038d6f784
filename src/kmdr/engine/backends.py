"""The workers a run uses (``n_jobs`` resolved once: :func:`resolve_parallelism`) and the joblib
backend its cells are computed on (:func:`backend`): each backend hands its settings to
``joblib.parallel_config``. ``n_jobs`` goes from the run's Execution through these two functions,
called by the run's session, to ``parallel_config``. Workers on this machine are at most one per
core (:func:`resolve_parallelism` caps ``n_jobs`` and says so).

* ``loky`` (default), ``threading``, ``multiprocessing``, ``sequential``: joblib's own, with
  ``n_jobs`` workers and ``backend_params``;
* ``dask``: a ``distributed.Client`` to ``dask.scheduler``, or to a ``LocalCluster`` of ``n_jobs``
  single-threaded worker processes started for the run and closed after (``pip install
  'kmdr[dask]'``). A scheduler's address is first asked for its identity within Dask's connect
  timeout (``distributed.comm.timeouts.connect``): the client alone, even given that timeout,
  waits forever on an address that accepts a connection and never answers;
* ``ray``: ``ray.init`` (``ray.address``, or a local Ray of ``n_jobs`` CPUs) and
  ``ray.util.joblib.register_ray`` (``pip install 'kmdr[ray]'``); under ``cell_time_limit`` the
  jobs go to Ray as tasks of their own instead (:meth:`kmdr.engine.deadlines.Deadlines.on_ray`).

:func:`backend` yields a description of the backend for the run record and, on dask, the client
(what the row-block path sends a cell's block tasks to), and raises
:class:`RunFailed` (one line) when it cannot start. While it is active the
libraries' own loggers show errors only, unless the run is verbose: their INFO and WARNING lines
are start-up and shutdown chatter, and what goes wrong reaches the run as an exception.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import logging
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

from kmdr._errors import one_line
from kmdr._log import verbose
from kmdr.engine.signals import sigint_blocked

#: The modules a worker imports before its first cell, so that no cell's timings or limit hold
#: the scientific stack's import.
WORKER_MODULES = ("kmdr.engine.work", "kmdr.kmeans.lloyd", "kmdr.reducers", "kmdr.metrics")


class RunFailed(RuntimeError):
    """A run failed in a way its one-line message says whole (shown as it is, not as a cell's
    error with its type): a cell's own error (:func:`cell_failed`), a cell's code that ended its
    process (``sys.exit``, a KeyboardInterrupt of its own, a worker that died), cells past their
    time limit, a parallel backend that could not start or failed.
    ``traced``: whether its traceback, which the run's log keeps and the line points to, says
    more than the line (False when kmdr raised it to report an outcome)."""

    def __init__(self, message: str, traced: bool = True):
        super().__init__(message)
        self.traced = traced


def cell_failed(what: str, err: Exception) -> RunFailed:
    """The :class:`RunFailed` for ``err``, raised by a cell's own code (its reducer, its k-means,
    its data's block) in the cells ``what`` names (:func:`kmdr.engine.work.describe_cells`):
    one line naming the reducer, the cell and the error. Raise it from ``err``, so that the
    run's log keeps the cell's own traceback."""
    return RunFailed(f"{what} failed ({one_line(err, with_type=True)})")


#: The backends whose workers may run on other machines: the run's process computes none of their
#: jobs, and stops one past its time limit through the cluster (kmdr.engine.deadlines).
CLUSTER_BACKENDS = ("dask", "ray")


@dataclass(frozen=True)
class Parallelism:
    """What a run uses: ``workers`` (its ``n_jobs`` resolved) on a machine with ``cores`` cores
    shared by ``launcher_jobs`` runs at once (a Hydra joblib launcher).

    The BLAS/OpenMP threads of each worker are not copied here: they belong to the cells'
    identity, held by the :class:`~kmdr.config.schema.Experiment` alone (its
    ``blas_threads``), which the functions below that need them are given."""

    workers: int
    launcher_jobs: int
    cores: int
    #: The workers the config asked for, when more than the backend can run (then capped).
    requested: int | None = None
    #: Whether the workers run on this machine (not on a cluster given by address).
    runs_here: bool = True

    @property
    def record(self) -> dict:
        """What a run's record and each of its cells' rows say of it."""
        return {"n_jobs": self.workers}

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
            f"[kmdr] n_jobs={self.requested} capped to {self.workers}: backend={backend} runs "
            f"at most one worker per core here ({self.cores} cores); more would only contend "
            "for them"
        )

    def oversubscription_message(self, blas_threads: int) -> str | None:
        """The one line saying the workers' threads (``blas_threads`` each, the experiment's)
        outnumber this run's cores, or None.

        ``blas_threads`` is never lowered to fit (it is part of every cell's identity): the
        cells' numbers stay those of their identity, only their timings suffer."""
        share = _share(self.cores, self.launcher_jobs)
        threads = self.workers * blas_threads
        if not self.runs_here or blas_threads == 1 or threads <= share:
            return None
        fix = (
            f"use n_jobs={share // blas_threads} (or -1)"
            if blas_threads <= share
            else f"blas_threads above {share} cannot have a core per thread here"
        )
        return (
            f"[kmdr] n_jobs={self.workers} x blas_threads={blas_threads} = {threads} "
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


def _need(module: str, extra: str):
    from kmdr.config.checks import backend_installed

    backend_installed(extra)  # the one check, which the run's config passed before any work
    return importlib.import_module(module)


@contextlib.contextmanager
def _quiet(*names: str) -> Iterator[None]:
    """The loggers ``names`` at errors only while the block runs (unless the run is verbose)."""
    loggers = [] if verbose() else [logging.getLogger(name) for name in names]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


@contextlib.contextmanager
def _started(where: str) -> Iterator[None]:
    """A backend's start: anything it raises is one :class:`RunFailed` naming ``where``."""
    try:
        yield
    except RunFailed:
        raise
    except Exception as err:
        raise RunFailed(f"could not start {where} ({one_line(err, with_type=True)})") from None


def _answers_within(distributed, address: str) -> float:
    """Dask's connect timeout, in seconds, once the scheduler at ``address`` has answered a
    request within it (else :class:`RunFailed`, one line)."""
    import asyncio

    import dask
    from dask.utils import parse_timedelta

    seconds = float(parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), "s"))

    async def identity():
        async with distributed.rpc(address, timeout=seconds) as scheduler:
            return await asyncio.wait_for(scheduler.identity(), seconds)

    try:
        asyncio.run(identity())
    except (OSError, TimeoutError, asyncio.TimeoutError) as err:
        what = "answered nothing" if isinstance(err, TimeoutError) else "could not be reached"
        raise RunFailed(
            f"the dask scheduler at {address} {what} within {seconds:g} s (Dask's "
            "distributed.comm.timeouts.connect): check that a dask scheduler listens at that "
            "address and is running, or raise the timeout (e.g. "
            "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=60s)"
        ) from None
    return seconds


@contextlib.contextmanager
def _without_malloc_trim() -> Iterator[None]:
    """The LocalCluster's nannies spawn their workers without ``MALLOC_TRIM_THRESHOLD_``, which
    distributed sets for them (loky's workers have none): with it glibc stops adapting its mmap
    threshold, and the same ORL cells computed 10 to 35 % slower. A nanny writes its pre-spawn
    environment into this process's ``os.environ`` and leaves it there: what it changed is put
    back after."""
    import os

    import dask

    before = dict(os.environ)
    os.environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    try:
        with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
            yield
    finally:
        for key in set(os.environ) | set(before):
            if os.environ.get(key) != before.get(key):
                if key in before:
                    os.environ[key] = before[key]
                else:
                    del os.environ[key]


@contextlib.contextmanager
def _dask(execution, n_jobs: int) -> Iterator[tuple[dict, object]]:
    distributed = _need("dask.distributed", "dask")
    address = execution.dask.scheduler
    where = f"the dask scheduler at {address}" if address else "a dask LocalCluster"
    with _quiet("distributed", "dask"):
        with _started(where):
            if address:
                seconds = _answers_within(distributed, address)
                client = distributed.Client(address, timeout=seconds)
            else:
                # a failed task reaches the run as its exception (one line, its traceback in
                # the run's log), not also as the worker's own log lines
                quiet = logging.DEBUG if verbose() else logging.CRITICAL
                with sigint_blocked(), _without_malloc_trim():  # the run closes its workers
                    client = distributed.Client(
                        n_workers=n_jobs, threads_per_worker=1, processes=True,
                        dashboard_address=":0", silence_logs=quiet,
                    )  # fmt: skip
        with client:
            yield {"backend": "dask", "scheduler": client.scheduler.address}, client


@contextlib.contextmanager
def _ray(execution, n_jobs: int) -> Iterator[tuple[dict, object]]:
    ray = _need("ray", "ray")
    address = execution.ray.address
    started = False
    with _quiet("ray"):
        with _started(f"the Ray cluster at {address}" if address else "a local Ray"):
            if not ray.is_initialized():
                ray.init(
                    **({"address": address} if address else {"num_cpus": n_jobs}),
                    include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR,
                    configure_logging=False,
                )  # fmt: skip
                started = True
            from ray.util.joblib import register_ray

            register_ray()
        try:
            yield {"backend": "ray", "address": address or "local"}, None
        finally:
            if started:
                ray.shutdown()


def _import_all(names) -> None:
    for name in names:
        importlib.import_module(name)


def _wait(warm) -> None:
    """Wait for the warm-up's imports, before the run's jobs: joblib's calls on one backend
    share its state, and one ends by resetting it, so they never overlap."""
    for _ in warm or ():
        pass


@contextlib.contextmanager
def backend(execution, n_jobs: int, blas_threads: int) -> Iterator[tuple[dict, object]]:
    """The run's joblib backend for ``execution`` with ``n_jobs`` workers whose cells compute
    with ``blas_threads`` threads, started and active while the block runs; yields its
    description for the run record, on dask its client (else None), and the function to call
    before the run's first joblib call (it waits for a loky pool's warm-up)."""
    import joblib

    params = dict(execution.backend_params)
    if execution.backend == "loky":  # the threads a library loaded late in a worker starts with
        params.setdefault("inner_max_num_threads", blas_threads)
    starts = {"dask": _dask, "ray": _ray}.get(execution.backend)
    session = (
        starts(execution, n_jobs)
        if starts is not None
        else contextlib.nullcontext(({"backend": execution.backend}, None))
    )
    with session as (info, client):
        try:
            config = joblib.parallel_config(backend=execution.backend, n_jobs=n_jobs, **params)
        except (ValueError, TypeError) as err:
            raise RunFailed(
                f"joblib backend {execution.backend!r}: {one_line(err, with_type=True)}"
            ) from None
        with config:
            warm = None
            if execution.backend == "loky" and n_jobs > 1 and execution.warmup:
                # the pool started now, its workers spawned with Ctrl-C blocked (see
                # sigint_blocked) and importing what cells need while the run's process goes
                # on; joblib keeps the pool for the run's jobs (warmup=false: the first job
                # starts it)
                with sigint_blocked():
                    warm = joblib.Parallel(return_as="generator_unordered")(
                        joblib.delayed(_import_all)(WORKER_MODULES) for _ in range(n_jobs)
                    )
            try:
                yield info, client, functools.partial(_wait, warm)
            finally:
                if warm is not None:  # never waited for (the run ended before its jobs):
                    with warnings.catch_warnings():  # joblib aborts the warm-up and its pool,
                        # saying it cancelled the tasks: ours, of no use once the run has ended
                        warnings.filterwarnings("ignore", "[0-9]+ tasks which were still being")
                        warm.close()
