"""The dask and Ray sessions a run's joblib backend runs on (``backend=dask``, ``backend=ray``).

* ``dask``: with ``dask.scheduler=<address>`` the run connects to that scheduler; without one it
  starts a ``dask.distributed.LocalCluster`` of ``n_jobs`` single-threaded worker processes for
  the run and closes it after (``pip install 'kmdr[dask]'``);
* ``ray``: with ``ray.address=<address>`` the run joins that Ray cluster; without one it starts a
  local Ray with ``n_jobs`` CPUs (``pip install 'kmdr[ray]'``).

Either yields a description of the backend for the run record, and raises
:class:`~kmdr.engine.parallel.BackendError` (one line) when it cannot start.

While a session lasts, the libraries' own loggers (``distributed``, ``dask``, ``ray``) show
errors only (:func:`library_logs`): their INFO and WARNING lines are start-up and shutdown chatter
(workers and nannies starting and closing, Ray's notice that a local cluster uses token
authentication, its pool ignoring joblib's ``context`` argument), nothing a user acts on; what
goes wrong reaches the run as an exception and is reported in one line. A verbose run (the
``kmdr`` logger at DEBUG) leaves them as they are.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
from collections.abc import Iterator

from kmdr._errors import one_line
from kmdr.engine.parallel import BackendError, Parallelism

__all__ = ["dask_session", "library_logs", "ray_session"]


def _need(module: str, extra: str):
    try:
        return importlib.import_module(module)
    except ImportError:
        raise BackendError(
            f"backend={extra} needs {module.split('.')[0]}, which is not installed: "
            f"pip install 'kmdr[{extra}]'"
        ) from None


@contextlib.contextmanager
def library_logs(*names: str) -> Iterator[None]:
    """Have the loggers ``names`` show errors only while the block runs, unless the run is
    verbose (the ``kmdr`` logger at DEBUG or below); their levels are restored after."""
    kmdr_level = logging.getLogger("kmdr").level
    if kmdr_level and kmdr_level <= logging.DEBUG:
        yield
        return
    loggers = [logging.getLogger(name) for name in names]
    before = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for logger, level in zip(loggers, before, strict=True):
            logger.setLevel(level)


@contextlib.contextmanager
def dask_session(spec, par: Parallelism) -> Iterator[dict]:
    distributed = _need("dask.distributed", "dask")
    with library_logs("distributed", "dask"), _dask_client(distributed, spec, par) as info:
        yield info


@contextlib.contextmanager
def _dask_client(distributed, spec, par: Parallelism) -> Iterator[dict]:
    address = getattr(spec, "dask_scheduler", None)
    cluster = None
    try:
        if address:
            client = distributed.Client(address, timeout="20s")
        else:
            cluster = distributed.LocalCluster(
                n_workers=par.n_jobs,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.ERROR,
            )
            client = distributed.Client(cluster)
    except Exception as err:
        where = f"the dask scheduler at {address}" if address else "a dask LocalCluster"
        raise BackendError(f"could not start {where} ({one_line(err, with_type=True)})") from None
    try:
        yield {"backend": "dask", "scheduler": client.scheduler.address}
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


@contextlib.contextmanager
def ray_session(spec, par: Parallelism) -> Iterator[dict]:
    ray = _need("ray", "ray")
    with library_logs("ray"), _ray_client(ray, spec, par) as info:
        yield info


@contextlib.contextmanager
def _ray_client(ray, spec, par: Parallelism) -> Iterator[dict]:
    address = getattr(spec, "ray_address", None)
    started = False
    try:
        if not ray.is_initialized():
            kwargs = {"address": address} if address else {"num_cpus": par.n_jobs}
            ray.init(
                **kwargs,
                include_dashboard=False,
                log_to_driver=False,
                logging_level=logging.ERROR,
                configure_logging=False,
            )
            started = True
        from ray.util.joblib import register_ray

        register_ray()
    except BackendError:
        raise
    except Exception as err:
        where = f"the Ray cluster at {address}" if address else "a local Ray"
        raise BackendError(f"could not start {where} ({one_line(err, with_type=True)})") from None
    try:
        yield {"backend": "ray", "address": address or "local"}
    finally:
        if started:
            ray.shutdown()
