"""The dask and Ray sessions a run's joblib backend runs on (``backend=dask``, ``backend=ray``).

* ``dask``: with ``dask.scheduler=<address>`` the run connects to that scheduler; without one it
  starts a ``dask.distributed.LocalCluster`` of ``n_jobs`` single-threaded worker processes for
  the run and closes it after (``pip install 'kmdr[dask]'``);
* ``ray``: with ``ray.address=<address>`` the run joins that Ray cluster; without one it starts a
  local Ray with ``n_jobs`` CPUs (``pip install 'kmdr[ray]'``).

Either yields a description of the backend for the run record, and raises
:class:`~kmdr.run.parallel.BackendError` (one line) when it cannot start.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
from collections.abc import Iterator

from kmdr._errors import one_line
from kmdr.run.parallel import BackendError, Parallelism

__all__ = ["dask_session", "ray_session"]


def _need(module: str, extra: str):
    try:
        return importlib.import_module(module)
    except ImportError:
        raise BackendError(
            f"backend={extra} needs {module.split('.')[0]}, which is not installed: "
            f"pip install 'kmdr[{extra}]'"
        ) from None


@contextlib.contextmanager
def dask_session(spec, par: Parallelism) -> Iterator[dict]:
    distributed = _need("dask.distributed", "dask")
    # dask logs every worker start and stop at INFO: keep the run's output readable.
    for name in ("distributed", "dask"):
        logging.getLogger(name).setLevel(logging.ERROR)
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
