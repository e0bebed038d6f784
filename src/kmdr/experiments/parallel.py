"""How a run uses the machine or a cluster: workers, BLAS threads, and the joblib backend.

Backends (``backend=`` in the config):

* ``loky`` (default), ``threading``, ``multiprocessing``, ``sequential``: joblib's own;
* ``dask``: with ``dask.scheduler=<address>`` the run connects to that scheduler; without one it
  starts a ``dask.distributed.LocalCluster`` of ``n_jobs`` single-threaded worker processes for
  the run and closes it after (``pip install 'kmdr[dask]'``);
* ``ray``: with ``ray.address=<address>`` the run joins that Ray cluster; without one it starts a
  local Ray with ``n_jobs`` CPUs (``pip install 'kmdr[ray]'``).

No register function is needed for any of them.

Results never depend on the backend: every cell carries its own seed, and BLAS threads per
worker are the same number whatever runs the worker. :func:`results_as_completed` works with
backends that cannot stream results (multiprocessing, ray) by dispatching in small batches, so
finished cells are still persisted while the run goes on.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

__all__ = [
    "BackendError",
    "Parallelism",
    "backend_session",
    "resolve_parallelism",
    "results_as_completed",
]


class BackendError(RuntimeError):
    """The parallel backend could not be started or failed; the message is one line."""


@dataclass(frozen=True)
class Parallelism:
    """What a run uses: ``n_jobs`` workers with ``blas_threads`` BLAS threads each, on a machine
    with ``cores`` cores shared by ``launcher_jobs`` runs at once (a Hydra joblib launcher)."""

    n_jobs: int
    blas_threads: int
    launcher_jobs: int
    cores: int


def resolve_parallelism(spec, launcher_jobs: int = 1) -> Parallelism:
    """Workers and BLAS threads for ``spec`` when ``launcher_jobs`` runs share this machine.

    ``n_jobs = -1`` means this run's share of the cores (cores // launcher_jobs), ``-2`` one less,
    and so on. BLAS threads default to cores // (launcher_jobs * n_jobs), at least 1, so that
    parallel jobs of a multirun and their workers never oversubscribe the cores (oversubscribed
    BLAS inflates the recorded times several-fold).
    """
    import joblib

    cores = int(joblib.cpu_count())
    launcher_jobs = max(1, int(launcher_jobs))
    share = max(1, cores // launcher_jobs)
    n_jobs = spec.n_jobs if spec.n_jobs > 0 else max(1, share + 1 + spec.n_jobs)
    threads = spec.blas_threads or max(1, cores // (launcher_jobs * n_jobs))
    return Parallelism(n_jobs, threads, launcher_jobs, cores)


def _one_line(err: BaseException) -> str:
    return f"{type(err).__name__}: {' '.join(str(err).split())}"


def _need(module: str, extra: str):
    try:
        return importlib.import_module(module)
    except ImportError:
        raise BackendError(
            f"backend={extra} needs {module.split('.')[0]}, which is not installed: "
            f"pip install 'kmdr[{extra}]'"
        ) from None


@contextlib.contextmanager
def _dask(spec, par: Parallelism) -> Iterator[dict]:
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
        raise BackendError(f"could not start {where} ({_one_line(err)})") from None
    try:
        yield {"backend": "dask", "scheduler": client.scheduler.address}
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


@contextlib.contextmanager
def _ray(spec, par: Parallelism) -> Iterator[dict]:
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
        raise BackendError(f"could not start {where} ({_one_line(err)})") from None
    try:
        yield {"backend": "ray", "address": address or "local"}
    finally:
        if started:
            ray.shutdown()


@contextlib.contextmanager
def backend_session(spec, par: Parallelism) -> Iterator[dict]:
    """Start the run's backend, make it joblib's active backend, and close it after.

    Yields a description of the backend for the run record. Raises :class:`BackendError` (one
    line) when it cannot start.
    """
    import joblib

    if spec.backend == "dask":
        session = _dask(spec, par)
    elif spec.backend == "ray":
        session = _ray(spec, par)
    else:
        session = contextlib.nullcontext({"backend": spec.backend})
    params = dict(getattr(spec, "backend_params", {}) or {})
    with session as info:
        try:
            config = joblib.parallel_config(backend=spec.backend, n_jobs=par.n_jobs, **params)
        except (ValueError, TypeError) as err:
            raise BackendError(f"joblib backend {spec.backend!r}: {_one_line(err)}") from None
        with config:
            yield info


def results_as_completed(jobs: Iterable, n_jobs: int) -> Iterator:
    """The results of ``jobs`` (joblib ``delayed`` calls) with the active backend, each as soon
    as it is available.

    Backends that stream results get ``return_as="generator_unordered"``; those that cannot
    (joblib's multiprocessing backend, Ray's) get the jobs in batches of a few per worker on one
    pool, so results still come back while the run goes on. ``jobs`` is consumed lazily.
    """
    from joblib import Parallel

    try:
        parallel = Parallel(return_as="generator_unordered")
    except ValueError as err:
        if "return_as" not in str(err):
            raise
        parallel = None
    if parallel is not None:
        yield from parallel(jobs)
        return
    batch_size = max(1, 2 * n_jobs)
    with Parallel(return_as="list") as pool:
        batch = []
        for job in jobs:
            batch.append(job)
            if len(batch) >= batch_size:
                yield from pool(batch)
                batch = []
        if batch:
            yield from pool(batch)
