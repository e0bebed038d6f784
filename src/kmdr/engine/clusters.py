"""The dask and Ray sessions a run's joblib backend runs on (``backend=dask``, ``backend=ray``).

* ``dask``: with ``dask.scheduler=<address>`` the run connects to that scheduler, within Dask's own
  connect timeout (``distributed.comm.timeouts.connect``, 30 s by default) for the connection and
  again for the scheduler's first answer: an address that accepts a connection and never answers
  (not a scheduler, or one that is frozen) is one line after that, where the client alone would wait
  forever; without one it starts a ``dask.distributed.LocalCluster`` of ``n_jobs`` single-threaded
  worker processes for the run and closes it after (``pip install 'kmdr[dask]'``);
* ``ray``: with ``ray.address=<address>`` the run joins that Ray cluster; without one it starts a
  local Ray with ``n_jobs`` CPUs (``pip install 'kmdr[ray]'``).

Either yields a description of the backend for the run record, and raises
:class:`~kmdr.engine.parallel.BackendError` (one line) when it cannot start.

The run's own LocalCluster (:func:`local_cluster`) costs seconds to start and to stop, so:

* it starts in the background as soon as the run knows its parallelism (:class:`ClusterStart`,
  by the run's :class:`~kmdr.engine.session.Session`), while the data loads and the run is
  recorded; the run takes it over (waiting for the rest of its start) or, if it ends before using
  it, the Session closes it;
* its workers import what cells need while they start, before they take a job (distributed's
  worker ``preload`` of this module: :func:`dask_setup`), as a warmed loky pool's have;
* they are spawned without distributed's ``MALLOC_TRIM_THRESHOLD_`` (its default pre-spawn
  environment; loky's workers have none): with it glibc no longer adapts its mmap threshold, so
  every large numpy temporary is a fresh mmap to fault in, and cells computed 10 to 35 % slower
  (their recorded times too). The numbers they compute do not depend on it;
* a worker that has closed exits without the interpreter's teardown of the modules it imported
  (:func:`dask_teardown`), which otherwise holds the run's end for a second or two.

The workers of the run's own LocalCluster write their log (a task that failed, with its
traceback) into a file, :func:`worker_log` (named in the run record's ``backend_info`` and in
the one line of a run that fails), not onto the terminal, where the run says what failed in one
line; a verbose run leaves it on the terminal. Workers of a scheduler given by address log where
their cluster sends them.

While a session lasts, the libraries' own loggers (``distributed``, ``dask``, ``ray``) show
errors only (:class:`LibraryLogs`): their INFO and WARNING lines are start-up and shutdown chatter
(workers and nannies starting and closing, Ray's notice that a local cluster uses token
authentication, its pool ignoring joblib's ``context`` argument), nothing a user acts on; what
goes wrong reaches the run as an exception and is reported in one line. A verbose run (the
``kmdr`` logger at DEBUG) leaves them as they are.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import logging
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from kmdr._errors import one_line
from kmdr._log import verbose
from kmdr.engine.parallel import WORKER_MODULES, BackendError, Parallelism
from kmdr.engine.signals import ignore_sigint, sigint_blocked

__all__ = [
    "ClusterStart",
    "LibraryLogs",
    "dask_session",
    "local_cluster",
    "ray_session",
    "wants_local_cluster",
    "worker_log",
]

#: The dask config key that tells the workers of :func:`local_cluster` where to log.
WORKER_LOG_KEY = "kmdr.worker-log"


def worker_log() -> Path:
    """The file the workers of this process's LocalClusters log into (see the module
    docstring): one per run process, in the temporary folder."""
    return Path(tempfile.gettempdir()) / f"kmdr-dask-workers-{os.getpid()}.log"


def _need(module: str, extra: str):
    try:
        return importlib.import_module(module)
    except ImportError:
        raise BackendError(
            f"backend={extra} needs {module.split('.')[0]}, which is not installed: "
            f"pip install 'kmdr[{extra}]'"
        ) from None


class LibraryLogs:
    """The libraries' loggers held at errors only, per logger name: how many blocks hold it
    now, and its level before the first. One per process's run path (the
    :class:`~kmdr.engine.session.Session` makes it): blocks may overlap, a cluster starting in
    the background and the session that takes it over."""

    def __init__(self) -> None:
        self._held: dict[str, list] = {}
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def quiet(self, *names: str) -> Iterator[None]:
        """Have the loggers ``names`` show errors only while the block runs, unless the run is
        verbose (the ``kmdr`` logger at DEBUG or below); their levels are restored after the
        last block holding them ends."""
        if verbose():
            yield
            return
        with self._lock:
            for name in names:
                held = self._held.setdefault(name, [0, logging.getLogger(name).level])
                held[0] += 1
                logging.getLogger(name).setLevel(logging.ERROR)
        try:
            yield
        finally:
            with self._lock:
                for name in names:
                    held = self._held[name]
                    held[0] -= 1
                    if held[0] == 0:
                        logging.getLogger(name).setLevel(held[1])
                        del self._held[name]


@contextlib.contextmanager
def dask_session(
    execution, par: Parallelism, logs: LibraryLogs, started=None, on_client=None
) -> Iterator[dict]:
    """The run's dask client: to ``execution.dask.scheduler``, or to ``started`` (a
    :class:`ClusterStart` begun ahead of the run, taken over here), or to a LocalCluster
    started now. ``on_client(client)`` is called with the client once it is connected, and
    ``on_client(None)`` before it closes (its owner, the Session, hands it to the chunked
    path)."""
    distributed = _need("dask.distributed", "dask")
    with (
        logs.quiet("distributed", "dask"),
        _dask_client(distributed, execution, par, started, on_client) as info,
    ):
        yield info


def local_cluster(distributed, n_workers: int):
    """A ``LocalCluster`` of ``n_workers`` single-threaded worker processes, started and warmed
    (see the module docstring)."""
    import dask

    # A nanny writes its pre-spawn environment into this process's os.environ before it spawns
    # its worker, and leaves it there: an earlier cluster (kmdr's or anyone's in this process)
    # would hand MALLOC_TRIM_THRESHOLD_ on to these workers, and this one would hand
    # OMP_NUM_THREADS=1 and the like on to whatever the process starts next. So the variable is
    # dropped while the nannies spawn, and the variables they changed are put back after.
    before = dict(os.environ)
    os.environ.pop(_MALLOC_TRIM, None)
    try:
        # Distributed reads its pre-spawn environment when it creates the nannies (here); None
        # removes a variable from it (its documented way to unset one).
        settings = {f"distributed.nanny.pre-spawn-environ.{_MALLOC_TRIM}": None}
        # (a nanny hands its workers the dask config it was created with)
        settings[WORKER_LOG_KEY] = None if verbose() else str(worker_log())
        with dask.config.set(settings), sigint_blocked():
            return distributed.LocalCluster(
                n_workers=n_workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.ERROR,
                preload=[__name__],
            )
    finally:
        _restore_environ(before)


#: glibc's setting that distributed gives the workers it spawns (see the module docstring).
_MALLOC_TRIM = "MALLOC_TRIM_THRESHOLD_"


def _restore_environ(before: dict[str, str]) -> None:
    """Put back every variable of os.environ that differs from ``before``, and only those (the
    run's main thread may be reading others meanwhile)."""
    for key in set(os.environ) | set(before):
        if os.environ.get(key) != before.get(key):
            if key in before:
                os.environ[key] = before[key]
            else:
                del os.environ[key]


def dask_setup(worker) -> None:
    """Distributed's preload hook, in each worker of :func:`local_cluster` as it starts (in its
    main thread): import the modules cells need (:data:`~kmdr.engine.parallel.WORKER_MODULES`),
    and ignore Ctrl-C, as a loky worker of a run does
    (:meth:`kmdr.engine.session.ProcessState.watch_parent`): the terminal sends SIGINT to the
    whole process group, and the run's process, which receives it too, closes the cluster
    itself (a worker interrupted on its own prints a traceback). Until here the worker had SIGINT
    blocked (:func:`~kmdr.engine.signals.sigint_blocked`); once ignored, a SIGINT that arrived
    meanwhile is discarded."""
    for module in WORKER_MODULES:
        importlib.import_module(module)
    ignore_sigint()
    _log_to_file()


def _log_to_file() -> None:
    """Send the worker's ``distributed`` log (a failed task's traceback) to the run's worker log
    instead of the terminal, when :func:`local_cluster` named one."""
    import dask

    path = dask.config.get(WORKER_LOG_KEY, None)
    if not path:
        return
    logger = logging.getLogger("distributed")
    to_file = logging.FileHandler(path, delay=True)
    to_file.setFormatter(
        logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
    )
    to_file.setLevel(logging.WARNING)
    for handler in list(logger.handlers):
        if isinstance(handler, logging.StreamHandler) and not isinstance(
            handler, logging.FileHandler
        ):
            logger.removeHandler(handler)
    logger.addHandler(to_file)


def dask_teardown(worker) -> None:
    """Distributed's preload hook, in each worker of :func:`local_cluster` as it closes: once the
    worker process is done (its nanny's queues flushed, its threads joined: multiprocessing has
    run its own exit functions), it ends at the first exit function, without the interpreter's
    teardown of the modules it imported, as a process that multiprocessing forks does."""
    atexit.register(_exit_now)  # registered last, so run first


def _exit_now() -> None:
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


class ClusterStart(threading.Thread):
    """Starts a :func:`local_cluster` of ``n_workers`` workers in the background. Started,
    taken over or closed by its owner, :class:`kmdr.engine.session.Session`, never here."""

    def __init__(self, n_workers: int, logs: LibraryLogs):
        super().__init__(name="kmdr-start-cluster", daemon=True)
        self.n_workers = n_workers
        self.logs = logs
        self.cluster = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            import distributed

            with self.logs.quiet("distributed", "dask"):
                self.cluster = local_cluster(distributed, self.n_workers)
        except BaseException as err:  # the session reports it, in one line
            self.error = err

    def taken(self):
        """The started cluster, once started (raising what its start raised)."""
        self.join()
        if self.error is not None:
            raise self.error
        return self.cluster

    def close(self) -> None:
        """Close the cluster once its start is over; its processes have exited on return."""
        self.join()
        if self.cluster is not None:
            with self.logs.quiet("distributed", "dask"), contextlib.suppress(Exception):
                self.cluster.close()


def wants_local_cluster(execution) -> bool:
    """Whether ``execution`` runs on a dask LocalCluster of its own (no scheduler address)."""
    return execution.backend == "dask" and not execution.dask.scheduler


@contextlib.contextmanager
def _dask_client(distributed, execution, par: Parallelism, started, on_client) -> Iterator[dict]:
    address = execution.dask.scheduler
    cluster = None
    try:
        if address:
            seconds = _connect_timeout()
            _check_answers(distributed, address, seconds)
            client = distributed.Client(address, timeout=seconds)
        else:
            cluster = (started.taken() if started is not None else None) or local_cluster(
                distributed, par.n_jobs
            )
            client = distributed.Client(cluster)
    except BackendError:
        raise
    except Exception as err:
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close()
        where = f"the dask scheduler at {address}" if address else "a dask LocalCluster"
        raise BackendError(f"could not start {where} ({one_line(err, with_type=True)})") from None
    try:
        if on_client is not None:
            on_client(client)
        info = {"backend": "dask", "scheduler": client.scheduler.address}
        if cluster is not None and not verbose():
            info["worker_log"] = str(worker_log())
        yield info
    finally:
        if on_client is not None:
            on_client(None)
        client.close()
        if cluster is not None:
            cluster.close()


def _connect_timeout() -> float:
    """Dask's connect timeout, in seconds (``distributed.comm.timeouts.connect``)."""
    import dask
    from dask.utils import parse_timedelta

    return float(parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), "s"))


def _check_answers(distributed, address: str, seconds: float) -> None:
    """Raise :class:`BackendError` unless the scheduler at ``address`` answers a request within
    ``seconds``: the connection and the first answer each bounded. The client's own start bounds
    the connection only, and waits on a silent peer forever."""
    import asyncio

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


@contextlib.contextmanager
def ray_session(execution, par: Parallelism, logs: LibraryLogs) -> Iterator[dict]:
    ray = _need("ray", "ray")
    with logs.quiet("ray"), _ray_client(ray, execution, par) as info:
        yield info


@contextlib.contextmanager
def _ray_client(ray, execution, par: Parallelism) -> Iterator[dict]:
    address = execution.ray.address
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
