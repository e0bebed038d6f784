"""The one owner of everything process-wide a run uses: :class:`Session`.

    with Session(execution) as session:
        outcome = session.run(experiment, output)

A Session holds, from its start to its end:

* the workers: ``n_jobs`` resolved once per ``blas_threads``
  (:func:`~kmdr.engine.backends.resolve_parallelism`), and the joblib backend each run starts
  (:func:`kmdr.engine.backends.backend`; joblib keeps its loky pool for the next run); while a run
  on ``backend=dask`` lasts, its client, to which the chunked path (``block_rows``,
  :mod:`kmdr.engine.chunked`) sends the tasks of a cell's row blocks;
* the thread that writes a logged run's progress lines at a steady interval
  (:func:`ticking`, :mod:`kmdr.engine.progress`);
* the stop signals: Ctrl-C, SIGTERM and SIGHUP stop a run in one line, exit status 128 +
  signal, finished cells kept (:func:`kmdr.engine.signals.stop_on_signals`, entered and left
  around each run of the session);
* the datasets it loaded (:meth:`Session.load`), so the runs of a multirun or of ``make
  reproduce`` load each once.

Successive runs in one session (a multirun through its Hydra callback, ``scripts/reproduce.py``,
a notebook's ``kmdr.run`` calls, which share :func:`default_session`) reuse its warm workers.

What a process keeps across jobs lives in one :class:`ProcessState` per process (this module's
:data:`_PROCESS`, the only mutable module state of the run path): its BLAS/OpenMP thread pools,
the memo of shared reductions, the watch on the parent process, and
the session that successive runs of the process share (:func:`default_session`). Every job enters
through :func:`worker_job`, which hands that state down, so a worker's memo outlives a job and
the run's process holds the same kind of state for the jobs it computes itself.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import json
import os
import threading
from collections.abc import Callable, Iterator

from kmdr.config.checks import check_reducer_params, declared_valid
from kmdr.config.schema import Execution, Experiment, Output, check_together
from kmdr.engine import signals
from kmdr.engine.backends import Parallelism, resolve_parallelism
from kmdr.engine.data_path import data_path, load_data
from kmdr.engine.parallel import WORKER_MODULES, guarded_job, import_modules
from kmdr.engine.runner import RunOutcome, RunServices, execute
from kmdr.engine.threads import ThreadPools
from kmdr.engine.work import SharedWorkMemo

__all__ = [
    "TICK",
    "WATCH_EVERY",
    "ProcessState",
    "Session",
    "close_default_session",
    "default_session",
    "process_state",
    "run_experiment",
    "ticking",
    "worker_job",
]

#: Seconds between two looks of a logged run's progress at the clock (:func:`ticking`).
TICK = 1.0
#: Seconds between two looks of a worker at its parent (see :meth:`ProcessState.watch_parent`).
WATCH_EVERY = 0.5


class ProcessState:
    """What one process keeps across the jobs it computes (see the module docstring)."""

    def __init__(self) -> None:
        self.pools = ThreadPools()
        self.memo = SharedWorkMemo()
        #: The session successive ``kmdr.run`` calls and a multirun's jobs share
        #: (:func:`default_session`).
        self.default: Session | None = None
        self._watched: set[int] = set()
        self._warm = False
        self._lock = threading.Lock()

    def watch_parent(self, parent_pid: int) -> None:
        """In a worker process started by ``parent_pid`` (the process running the run): make
        this worker exit within :data:`WATCH_EVERY` seconds of that process's death, whatever it
        is computing. A worker killed with its parent (``kill -9``, the OOM killer) would
        otherwise finish its cell, minutes of CPU nobody will read, and a process that is not the
        parent's child (the run's own process, a dask or Ray worker of a remote cluster) watches
        nothing. Idempotent.

        Such a worker also ignores Ctrl-C from then on: the terminal sends SIGINT to the whole
        process group, and the run's process, which receives it too, stops the workers itself (a
        worker hit by a second Ctrl-C while handing back a result would print its own
        traceback)."""
        if os.getpid() == parent_pid or os.getppid() != parent_pid:
            return
        with self._lock:
            if parent_pid in self._watched:
                return
            self._watched.add(parent_pid)
        if threading.current_thread() is threading.main_thread():  # loky runs jobs there
            signals.ignore_sigint()
        threading.Thread(
            target=_watch, args=(parent_pid,), name="kmdr-watch-parent", daemon=True
        ).start()

    def warm(self, parent_pid: int) -> None:
        """In a worker process (not ``parent_pid``'s own): import what cells need, once, before
        the first cell, so that neither a cell's timings nor its limit hold the scientific
        stack's import; then freeze the libraries' objects, which stay for the worker's life, so
        that the collector no longer walks them in each full collection of a cell."""
        with self._lock:
            if self._warm or os.getpid() == parent_pid:
                return
            self._warm = True
        import_modules(WORKER_MODULES)
        gc.freeze()


def _watch(parent_pid: int) -> None:
    import time

    while os.getppid() == parent_pid:  # re-parented (to init or a subreaper) once it dies
        time.sleep(WATCH_EVERY)
    os._exit(1)


#: This process's state: a worker's caches, and the run's process's own for the jobs it runs.
_PROCESS = ProcessState()


def process_state() -> ProcessState:
    """This process's :class:`ProcessState`."""
    return _PROCESS


def worker_job(what: str, parent_pid: int, cell_ids, limit, func, *args):
    """The entry of every job of a run, in whatever process computes it: watch the run's process
    and call ``func(state, *args)`` with this process's :class:`ProcessState`, guarded (and
    limited to ``limit`` seconds per cell) as :func:`~kmdr.engine.parallel.guarded_job` says."""
    _PROCESS.watch_parent(parent_pid)
    _PROCESS.warm(parent_pid)
    return guarded_job(what, parent_pid, cell_ids, limit, func, _PROCESS, *args)


class Session:
    """The owner of a run's processes, threads, signal handlers and caches (see the module
    docstring). ``execution``: how runs in it execute (default: :class:`Execution`'s
    defaults); ``launcher_n_jobs``: how many jobs a Hydra launcher runs at once on this machine
    (its own ``n_jobs``: they share the cores)."""

    def __init__(self, execution: Execution | None = None, *, launcher_n_jobs: int = 1):
        self.execution = execution if execution is not None else Execution()
        self.launcher_n_jobs = int(launcher_n_jobs)
        self.state = _PROCESS
        self._parallelism: dict[int, Parallelism] = {}
        self._data: dict[str, object] = {}
        self._lock = threading.Lock()
        self.open = False

    def __enter__(self) -> Session:
        if self.open:
            raise RuntimeError("this Session is already open; a Session is entered once")
        self.open = True
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """End the session: drop the loaded data. Idempotent."""
        self._data.clear()
        self.open = False

    def parallelism(self, blas_threads: int) -> Parallelism:
        """The workers of this session's runs computing with ``blas_threads`` threads each,
        resolved once (:func:`~kmdr.engine.backends.resolve_parallelism`)."""
        with self._lock:
            par = self._parallelism.get(blas_threads)
            if par is None:
                par = resolve_parallelism(self.execution, blas_threads, self.launcher_n_jobs)
                self._parallelism[blas_threads] = par
        return par

    def services(self, experiment: Experiment, par: Parallelism, path) -> RunServices:
        """What a run of ``experiment`` with ``par`` uses of this session, as the one typed
        value the engine receives (:class:`~kmdr.engine.runner.RunServices`): the engine never
        holds the session itself."""
        from kmdr.engine.backends import backend

        return RunServices(
            parallelism=par,
            state=self.state,
            backend=backend(self.execution, par.n_jobs, experiment.blas_threads),
            worker_job=worker_job,
            ticking=ticking,
            data_path=path,
        )

    def load(self, experiment: Experiment, output: Output, path=None):
        """The experiment's data on ``path`` (:mod:`kmdr.engine.data_path`; default: the one the
        execution asks for), loaded once per session when the path keeps its data; a dry run's
        declared facts are not kept, nor a dataset that could not be obtained (the next run
        tries again: the file or the network may be back)."""
        from kmdr.datasets import DatasetUnavailable

        path = path if path is not None else data_path(self.execution)
        key = json.dumps(
            [experiment.dataset.name, experiment.dataset.params, self.execution.data_dir],
            sort_keys=True,
        )
        if key in self._data:
            return self._data[key]
        data = load_data(path, experiment, self.execution, output)
        keep = path.keeps_loaded and not output.dry_run
        if keep and not isinstance(data, DatasetUnavailable):
            self._data[key] = data
        return data

    def run(
        self,
        experiment: Experiment,
        output: Output | None = None,
        *,
        dataset=None,
        config: dict | None = None,
    ):
        """Run (or resume) ``experiment`` in this session; its
        :class:`~kmdr.engine.runner.RunOutcome`.

        The one way a run goes: what the objects alone cannot tell is checked (the experiment
        against the execution, the reducers' parameters against their classes), the data load
        (:meth:`load`, once per session), and the engine runs it
        (:func:`kmdr.engine.runner.execute`). ``dataset``: an already loaded
        :class:`kmdr.datasets.Dataset` to run on instead; ``config``: the full resolved config
        to record.
        Raises :class:`~kmdr.config.errors.ConfigError` before any work for a config that cannot
        run, :class:`~kmdr.engine.parallel.BackendError` for a backend that fails, and
        KeyboardInterrupt when stopped (:func:`kmdr.engine.runner.run_started` tells whether
        cells may have been computed)."""
        if not self.open:
            raise RuntimeError("Session.run needs an open session: use `with Session(...) as s`")
        output = output if output is not None else Output()
        check_together(experiment, self.execution)
        par = self.parallelism(experiment.blas_threads)
        if not declared_valid(experiment):
            check_reducer_params(experiment)  # imports the reducer classes (and scikit-learn)
        # The stop signals are the session's while it runs (a no-op when the command's own
        # handling is on, or outside the main thread), not between runs: a notebook's Ctrl-C
        # between two kmdr.run calls stays the notebook's.
        with signals.stop_on_signals():
            path = data_path(self.execution)  # in memory or row blocks: decided here, once
            data = self.load(experiment, output, path) if dataset is None else dataset
            services = self.services(experiment, par, path)
            return execute(services, experiment, self.execution, output, data, config=config)


def ticking(progress) -> contextlib.AbstractContextManager:
    """Call ``progress.tick()`` every :data:`TICK` seconds from a thread while the block runs,
    when ``progress`` has a ``tick`` (a :class:`~kmdr.engine.progress.LogProgress`: its lines
    then come while no cell finishes; a tqdm bar redraws itself)."""
    tick = getattr(progress, "tick", None)
    return contextlib.nullcontext() if tick is None else _every(TICK, tick, "kmdr-progress")


@contextlib.contextmanager
def _every(seconds: float, call: Callable[[], None], name: str) -> Iterator[None]:
    """Call ``call()`` every ``seconds`` from a thread named ``name`` while the block runs; the
    thread has ended when the block is left (at most one call away)."""
    stop = threading.Event()
    thread = threading.Thread(target=_repeat, args=(seconds, call, stop), name=name, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _repeat(seconds: float, call: Callable[[], None], stop: threading.Event) -> None:
    while not stop.wait(seconds):
        call()


def run_experiment(
    experiment: Experiment,
    execution: Execution | None = None,
    output: Output | None = None,
    *,
    dataset=None,
    config: dict | None = None,
    launcher_n_jobs: int = 1,
) -> RunOutcome:
    """Run (or resume) ``experiment`` in a :class:`Session` of its own (``with
    Session(execution) as s: s.run(experiment, output)``); the arguments and what it raises:
    :func:`kmdr.engine.runner.execute`."""
    with Session(execution, launcher_n_jobs=launcher_n_jobs) as session:
        return session.run(experiment, output, dataset=dataset, config=config)


def default_session(execution: Execution, launcher_n_jobs: int = 1) -> Session:
    """This process's session for ``execution``, opened on first use and kept for the next
    calls with the same execution (a call with another closes it and opens a new one); closed
    by :func:`close_default_session` or when the process exits. What ``kmdr.run`` and the jobs of
    a multirun use, so a notebook or a sweep pays start-up once."""
    with _PROCESS._lock:
        current = _PROCESS.default
        wanted = (execution, int(launcher_n_jobs))
        if current is not None and current.open:
            if (current.execution, current.launcher_n_jobs) == wanted:
                return current
            current.close()
        _PROCESS.default = Session(execution, launcher_n_jobs=launcher_n_jobs).__enter__()
        return _PROCESS.default


@atexit.register
def close_default_session() -> None:
    """Close the session :func:`default_session` keeps, if any (the end of a multirun)."""
    with _PROCESS._lock:
        session, _PROCESS.default = _PROCESS.default, None
    if session is not None:
        session.close()
