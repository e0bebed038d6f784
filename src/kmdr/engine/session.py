"""The run path, and the one owner of everything process-wide a run uses.

    with Session(execution) as session:
        outcome = session.run(experiment, output)

:meth:`Session.run` is the one way every route runs an experiment, in benchopt's shape:

1. plan: check what the objects alone cannot tell (the experiment against the execution, the
   reducers' parameters against their classes), choose where the data live (in memory or row
   blocks, :mod:`kmdr.engine.data_path`), load them once per session, check the config against
   their shape (nothing is written before this), and, for a dry run, say what would be computed
   (:mod:`kmdr.engine.dry_run`) and stop;
2. execute: under the folder's lock, write the run record (``runs/<run_id>.json``, status
   ``running``; removed again at the end of a complete run that computed nothing), and hand the
   run to its experiment kind (:mod:`~kmdr.config.kinds`: ``cells`` runs its jobs through
   ``joblib.Parallel(return_as="generator_unordered")`` under the run's ``parallel_config``,
   :mod:`kmdr.engine.sweep`, writing each cell as it comes), its lines kept in the run's log
   file beside its record (``runs/<run_id>.log``) with the backends' own logs and the
   traceback of a failure;
3. close the record with the status (complete, interrupted, failed with its one-line reason).

Process-wide things each have one owner here:

* the workers: resolved once per ``blas_threads``
  (:func:`~kmdr.engine.backends.resolve_parallelism`), and the joblib backend each run starts
  (:func:`kmdr.engine.backends.backend`; joblib keeps its loky pool for the next run);
* the stop signals, entered around each run (:func:`kmdr.engine.signals.stop_on_signals`);
* the datasets a session loaded (:meth:`Session.load`);
* what one process keeps across the jobs it computes (:mod:`kmdr.engine.worker`), and the
  session successive ``kmdr.run`` calls and a multirun's jobs share (:func:`default_session`).

The summaries and figures are the caller's to draw (:func:`kmdr.app.drawing.draw`).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kmdr import _native
from kmdr._errors import one_line
from kmdr._log import LOGGER, say, verbose, warn
from kmdr.config.checks import check_against_data, check_reducer_params, declared_valid
from kmdr.config.kinds import get_kind
from kmdr.config.schema import Execution, Experiment, Output, check_together
from kmdr.engine import signals
from kmdr.engine.backends import (
    Parallelism,
    RunFailed,
    backend,
    resolve_parallelism,
)
from kmdr.engine.data_path import data_facts, data_path, load_data
from kmdr.engine.progress import progress_bar
from kmdr.engine.worker import process_state
from kmdr.results.locks import folder_lock
from kmdr.results.provenance import new_run_id, now, run_record
from kmdr.results.store import CellStore

__all__ = ["Session"]

#: The loggers of the backends a run uses, whose records go to the run's log file while it runs
#: (and to the terminal only when the run is verbose).
BACKEND_LOGGERS = ("distributed", "dask", "ray")
#: The logger of a failed run's traceback: the run's log file, the terminal only when verbose.
_FAILURES = f"{LOGGER}.failure"


@dataclass
class RunOutcome:
    """What a run did (returned by :meth:`Session.run`)."""

    experiment: str
    experiment_dir: Path
    run_id: str
    skipped: str | None = None
    status: str = "running"
    error: str | None = None
    n_expected: int = 0
    n_computed: int = 0
    n_reused: int = 0
    wall_seconds: float = 0.0
    messages: list[str] = field(default_factory=list)
    #: The mean ``accuracy`` over the run's cells (computed or reused) of a complete run of a
    #: kind with cells; None otherwise.
    mean_accuracy: float | None = None
    #: The ids of the cells the run asked for (computed or reused), in plan order.
    cell_ids: tuple[str, ...] = ()
    #: The run's log file when it failed and the file holds its traceback.
    log: str | None = None

    @property
    def started(self) -> bool:
        """Whether the run had started computing when it stopped or failed (its record written,
        cells perhaps finished and kept), rather than while it was checked or loaded."""
        return self.status in ("failed", "interrupted")


@dataclass
class RunContext:
    """Everything an experiment kind needs to run."""

    experiment: Experiment
    execution: Execution
    output: Output
    #: The run's workers, resolved once by the session.
    parallelism: Parallelism
    #: Where the run's data live, and how its cells are computed on them.
    data_path: object
    dataset: object
    X: object
    y: object
    n_clusters: int
    store: CellStore
    record: dict
    outcome: RunOutcome
    progress: object
    #: When the run started (``time.perf_counter``).
    started: float = 0.0
    #: The dask client of a run on ``backend=dask`` once its backend started (else None).
    client: object = None
    #: What the run enters while it runs (its backend, once :meth:`start_workers` is called).
    entered: contextlib.ExitStack | None = None
    #: Called before the run's first joblib call: waits for its workers' warm-up.
    workers_ready: Callable[[], None] = lambda: None

    @property
    def shape(self) -> tuple[int, int, int]:
        return (int(self.X.shape[0]), int(self.X.shape[1]), int(self.n_clusters))

    @property
    def data_fingerprint(self) -> str:
        """The fingerprint of the data the cells run on (part of each cell's identity)."""
        return self.record["dataset"]["fingerprint"]

    def save_record(self) -> None:
        self.store.write_sidecar(self.outcome.run_id, self.record)

    def start_workers(self) -> None:
        """Start the run's backend (its pool or cluster, and joblib's config for it), once, for
        the rest of the run; a kind calls it before computing on workers, so a run that computes
        nothing there starts none. The record gets its description, the context its client."""
        if "backend_info" not in self.record:
            threads = self.experiment.blas_threads
            started = backend(self.execution, self.parallelism.workers, threads)
            info, self.client, self.workers_ready = self.entered.enter_context(started)
            self.record["backend_info"] = info


class Session:
    """The owner of a run's processes, threads, signal handlers and caches (see the module
    docstring). ``execution``: how runs in it execute (default: :class:`Execution`'s
    defaults); ``launcher_n_jobs``: how many jobs a Hydra launcher runs at once on this machine
    (they share the cores)."""

    def __init__(self, execution: Execution | None = None, *, launcher_n_jobs: int = 1):
        self.execution = execution if execution is not None else Execution()
        self.launcher_n_jobs = int(launcher_n_jobs)
        self._parallelism: dict[int, Parallelism] = {}
        self._data: dict[str, object] = {}
        self._lock = threading.Lock()
        self.open = False
        #: The :class:`RunOutcome` of the run in progress or the last one (None before a run
        #: gets its record): what a caller reads when :meth:`run` raised.
        self.last: RunOutcome | None = None

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
        config_files=None,
    ) -> RunOutcome:
        """Run (or resume) ``experiment`` in this session (see the module docstring); its
        :class:`RunOutcome`. ``dataset``: an already loaded :class:`kmdr.datasets.Dataset` to
        run on instead; ``config_files``: what its record names under that key. Its lines go
        to the ``kmdr`` logger (:mod:`kmdr._log`).

        Raises :class:`~kmdr.config.errors.ConfigError` before any work for a config that cannot
        run or does not fit the data, :class:`~kmdr.engine.backends.RunFailed` for a backend
        that fails (after the record says ``failed``), and KeyboardInterrupt when stopped
        (:attr:`last` tells whether cells may have been computed). A dataset that cannot
        be obtained is not an error: the outcome's ``skipped`` holds the reason and the record
        says so."""
        if not self.open:
            raise RuntimeError("Session.run needs an open session: use `with Session(...) as s`")
        output = output if output is not None else Output()
        self.last = None
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
            return _execute(self, par, path, experiment, output, data, config_files)


def _execute(session, par, path, experiment, output, dataset, config_files) -> RunOutcome:
    """:meth:`Session.run` once the data are loaded (``dataset``: the loaded data, the
    DatasetUnavailable its loading raised, or a dry run's DeclaredData)."""
    from kmdr.datasets import DatasetUnavailable

    dry_run = output.dry_run
    exp_dir = Path(output.results_dir) / experiment.name
    execution = session.execution
    outcome = session.last = RunOutcome(experiment.name, exp_dir, new_run_id())
    started = time.perf_counter()
    # A dry run writes no record: it needs only the data's part of one (not the versions, the
    # BLAS libraries and the git revision, a look at the process and two git calls).
    record = {}
    if not dry_run:  # the BLAS libraries the record lists are those the kernels' check reads
        blas = process_state().thread_pools().info()
        record = run_record(experiment, execution, output, outcome.run_id, par, blas, config_files)
        kernels = _native.mismatch(blas)
        if kernels:
            warn(kernels)
    for line in (par.cap_message(execution.backend),
                 par.oversubscription_message(experiment.blas_threads)):  # fmt: skip
        if line:
            warn(line)
    kind = get_kind(experiment.kind)

    if isinstance(dataset, DatasetUnavailable):
        outcome.skipped = " ".join(str(dataset).split())
        outcome.status = "skipped"
        if not dry_run:
            record.update(status="skipped", skipped=outcome.skipped, finished_at=now())
            record.update(expected_cells=[], cells_done=[])
            CellStore(exp_dir).write_sidecar(outcome.run_id, record)
        return outcome

    X, y, sparse, fingerprint = data_facts(path, experiment, execution, dataset)
    n, d = X.shape
    k = int(dataset.n_clusters)
    # a ConfigError before any write; a kind that computes no cells checks the data itself
    check = getattr(kind, "check_against_data", check_against_data)
    check(experiment, n, d, k, sparse=sparse)
    store = CellStore(exp_dir)
    record["dataset"] = {
        "name": experiment.dataset.name,
        "params": experiment.dataset.params,
        "n_samples": n,
        "n_features": d,
        "n_clusters": k,
        "sparse": sparse,
        "description": getattr(dataset, "description", ""),
        "fingerprint": fingerprint,
    }
    progress = progress_bar(output.progress, output.progress_every)
    ctx = RunContext(experiment, execution, output, par, path, dataset, X, y, k, store, record,
                     outcome, progress, started)  # fmt: skip
    if dry_run:
        from kmdr.engine.dry_run import describe

        outcome.status = "dry_run"
        outcome.messages.append(describe(ctx, kind))
        say(outcome.messages[-1])
        return outcome

    # One writer per folder: a second run waits here, then reuses what the first one wrote.
    with folder_lock(exp_dir, say):
        store.clean_temporaries()
        store.write_sidecar(outcome.run_id, record)
        with _logged(store.run_log(outcome.run_id)):
            _run_kind(ctx, kind, started)
        expected = [c["cell_id"] for c in ctx.record.get("expected_cells") or ()]
        outcome.cell_ids = tuple(expected)
        valid = store.csv_record().valid
        values = [float(valid[c]["accuracy"]) for c in set(expected) & valid.keys()]
        if values and len(values) == len(set(expected)):
            outcome.mean_accuracy = float(np.mean(values))
        if kind.writes_cells and outcome.n_computed == 0:
            # A run that changed nothing leaves no file behind: its record would only say so,
            # and a committed results folder must stay as it was (nothing for git to show).
            store.remove_sidecar(outcome.run_id)
    return outcome


def _run_kind(ctx: RunContext, kind, started: float) -> None:
    """Run ``kind`` under the backend; the record always ends with the run's status."""
    status, outcome = "failed", ctx.outcome
    # The run's process computes with the cells' threads too: the jobs a joblib backend runs here
    # (one worker, a single job, the threading backend), a kind computing here, and the objective
    # evaluator every worker scores with (its ||A||^2 a BLAS sum whose rounding follows the
    # thread count). Even when loky's workers compute every cell this is faster: the ORL grid
    # ran 0.4-0.7 s slower without it, likely this process's OpenBLAS threads spinning.
    # Where the pool's workers compute every cell, this process computes with numpy alone (the
    # evaluator): scikit-learn and scipy.linalg are not imported for their pools before the
    # workers start (0.8 s); a job run here pins them itself, from this thread. (The sequential
    # backend has always one worker.)
    one = ctx.parallelism.workers == 1
    here = not kind.writes_cells or ctx.execution.backend == "threading" or one
    try:
        with (
            process_state().threads(ctx.experiment.blas_threads, load=here),
            contextlib.ExitStack() as ctx.entered,
        ):
            kind.run(ctx)
        status = "complete"
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    except Exception as err:
        if signals.received() is not None:  # e.g. a worker the same SIGTERM ended first
            status = "interrupted"
            raise signals.interrupt(signals.received()) from None
        outcome.error = str(err) if isinstance(err, RunFailed) else one_line(err, with_type=True)
        traced = getattr(err, "traced", True)  # a traceback that says more than its line
        logging.getLogger(_FAILURES).error(
            f"run {outcome.run_id} failed", exc_info=err if traced else None
        )
        log_path = ctx.store.run_log(outcome.run_id)
        if traced and log_path.is_file():  # its traceback, and what the backends logged
            outcome.log = str(log_path)
        raise
    finally:
        outcome.status = status
        outcome.wall_seconds = time.perf_counter() - started
        if outcome.error:
            ctx.record["error"] = outcome.error
        ctx.record.update(status=status, finished_at=now(), wall_seconds=outcome.wall_seconds)
        with signals.deferred():  # a signal now must not leave the record saying "running"
            ctx.save_record()


@contextlib.contextmanager
def _logged(path: Path):
    """The run's log file at ``path`` while the block runs: the ``kmdr`` logger's lines (what
    the run says), the backends' own logs (kept off the terminal unless the run is verbose) and
    the traceback of a failure (:data:`_FAILURES`)."""
    handler = logging.FileHandler(path, delay=True, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    shown = verbose()
    loggers = [logging.getLogger(name) for name in (LOGGER, *BACKEND_LOGGERS)]
    failures = logging.getLogger(_FAILURES)
    before = [(lg, lg.propagate) for lg in (*loggers[1:], failures)]
    for lg in loggers:
        lg.addHandler(handler)
    for lg, _ in before:  # in the file; on the terminal only when verbose
        lg.propagate = shown
    if not shown:
        failures.addHandler(handler)
    try:
        yield
    finally:
        for lg in (*loggers, failures):
            lg.removeHandler(handler)
        for lg, propagate in before:
            lg.propagate = propagate
        handler.close()


def default_session(execution: Execution, launcher_n_jobs: int = 1) -> Session:
    """This process's session for ``execution``, opened on first use and kept for the next
    calls with the same execution (a call with another closes it and opens a new one); closed
    by :func:`close_default_session` or when the process exits. What ``kmdr.run`` and the jobs of
    a multirun use, so a notebook or a sweep pays start-up once."""
    with process_state().lock:
        current = process_state().default
        wanted = (execution, int(launcher_n_jobs))
        if current is not None and current.open:
            if (current.execution, current.launcher_n_jobs) == wanted:
                current.last = None  # a new job: no earlier run is its
                return current
            current.close()
        process_state().default = Session(execution, launcher_n_jobs=launcher_n_jobs).__enter__()
        return process_state().default


def last_run() -> RunOutcome | None:
    """The run in progress or the last one of this process's session (:func:`default_session`),
    None before any: what a caller reads when its run raised."""
    session = process_state().default
    return None if session is None else session.last


@atexit.register
def close_default_session() -> None:
    """Close the session :func:`default_session` keeps, if any (the end of a multirun)."""
    with process_state().lock:
        session, process_state().default = process_state().default, None
    if session is not None:
        session.close()
