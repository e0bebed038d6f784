"""The joblib backend a run's cells are computed on: each backend hands its settings to
``joblib.parallel_config``.

* ``loky`` (default), ``threading``, ``multiprocessing``, ``sequential``: joblib's own, with
  ``n_jobs`` workers and ``backend_params``;
* ``dask``: a ``distributed.Client`` to ``dask.scheduler``, or to a ``LocalCluster`` of ``n_jobs``
  single-threaded worker processes started for the run and closed after (``pip install
  'kmdr[dask]'``). A scheduler's address is first asked for its identity within Dask's connect
  timeout (``distributed.comm.timeouts.connect``): the client alone, even given that timeout,
  waits forever on an address that accepts a connection and never answers;
* ``ray``: ``ray.init`` (``ray.address``, or a local Ray of ``n_jobs`` CPUs) and
  ``ray.util.joblib.register_ray`` (``pip install 'kmdr[ray]'``).

:func:`backend` yields a description of the backend for the run record and, on dask, the client
(what the row-block path sends a cell's block tasks to), and raises
:class:`~kmdr.engine.parallel.BackendError` (one line) when it cannot start. While it is active the
libraries' own loggers show errors only, unless the run is verbose: their INFO and WARNING lines
are start-up and shutdown chatter, and what goes wrong reaches the run as an exception.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
from collections.abc import Iterator

from kmdr._errors import one_line
from kmdr._log import verbose
from kmdr.engine.parallel import BackendError
from kmdr.engine.signals import sigint_blocked

__all__ = ["backend"]


def _need(module: str, extra: str):
    try:
        return importlib.import_module(module)
    except ImportError:
        raise BackendError(
            f"backend={extra} needs {module.split('.')[0]}, which is not installed: "
            f"pip install 'kmdr[{extra}]'"
        ) from None


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
    """A backend's start: anything it raises is one :class:`BackendError` naming ``where``."""
    try:
        yield
    except BackendError:
        raise
    except Exception as err:
        raise BackendError(f"could not start {where} ({one_line(err, with_type=True)})") from None


def _answers_within(distributed, address: str) -> float:
    """Dask's connect timeout, in seconds, once the scheduler at ``address`` has answered a
    request within it (else :class:`BackendError`, one line)."""
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
        raise BackendError(
            f"the dask scheduler at {address} {what} within {seconds:g} s (Dask's "
            "distributed.comm.timeouts.connect): check that a dask scheduler listens at that "
            "address and is running, or raise the timeout (e.g. "
            "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=60s)"
        ) from None
    return seconds


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
                with sigint_blocked():  # its workers never see a Ctrl-C: the run closes them
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


@contextlib.contextmanager
def backend(execution, n_jobs: int, blas_threads: int) -> Iterator[tuple[dict, object]]:
    """The run's joblib backend for ``execution`` with ``n_jobs`` workers whose cells compute
    with ``blas_threads`` threads, started and active while the block runs; yields its
    description for the run record and, on dask, its client (else None)."""
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
            raise BackendError(
                f"joblib backend {execution.backend!r}: {one_line(err, with_type=True)}"
            ) from None
        with config:
            if execution.backend == "loky" and n_jobs > 1:
                # the pool's workers spawned with Ctrl-C blocked (see sigint_blocked); joblib
                # keeps the pool for the run's jobs
                with sigint_blocked():
                    joblib.Parallel()(joblib.delayed(int)(i) for i in range(n_jobs))
            yield info, client
