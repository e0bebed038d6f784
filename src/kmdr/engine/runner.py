"""The experiment runner: one run of an :class:`~kmdr.config.schema.Experiment`
(:func:`execute`), called by :meth:`kmdr.engine.session.Session.run` once the session has checked
the config, started the workers and loaded the data. What the run uses of the session comes as one
typed value, :class:`RunServices`; the runner never holds the session.

1. check the config against the data's shape (nothing is written before this);
2. write the run record (``runs/<run_id>.json``, status ``running``; removed again at the end of
   a complete run that computed nothing, which changed nothing to record);
3. start the parallel backend (:mod:`~kmdr.engine.parallel`) and hand the run to its
   experiment kind (:mod:`~kmdr.config.kinds`: ``cells`` sweeps cells,
   ``leverage_scores`` draws bmd09 Figure 1's scores), its lines kept in the run's log file
   beside its record (``runs/<run_id>.log``, :func:`_logged`) with the backends' own logs and the
   traceback of a failure;
4. close the record with the status (complete, interrupted, failed with its one-line reason).

With ``dry_run`` it stops after planning: it prints what it would compute and reuse and an
estimate of the time, and writes nothing. A dry run given the data's declared facts
(:class:`~kmdr.datasets.DeclaredData`) plans from its shape, sparsity and fingerprint without
loading it (``ctx.X`` is then a :class:`~kmdr.reducers.DataFacts` that loads the matrix only if a
reducer's plan needs it). The summaries and figures are the caller's to draw
(:func:`kmdr.app.drawing.draw`): the run layer does not know how results are presented.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kmdr import _kernels
from kmdr._errors import one_line
from kmdr._log import LOGGER, say, verbose, warn
from kmdr.config.checks import check_against_data
from kmdr.config.kinds import get_kind
from kmdr.config.schema import Execution, Experiment, Output
from kmdr.engine import signals
from kmdr.engine.backends import Parallelism
from kmdr.engine.data_path import data_facts
from kmdr.engine.parallel import RunFailed
from kmdr.engine.progress import progress_bar
from kmdr.engine.resume_check import check_resume
from kmdr.results.locks import folder_lock
from kmdr.results.provenance import new_run_id, now, run_record
from kmdr.results.store import CellStore

__all__ = [
    "RUN_LOG",
    "WORKER_LOG",
    "RunContext",
    "RunOutcome",
    "RunServices",
    "execute",
    "run_started",
]

#: The attribute a stop or an error carries once the run it ended may have written cells.
_STARTED = "kmdr_run_started"
#: The attribute an error carries when the run's workers logged it (the file's path): none does
#: since the workers log where their backend sends them; kept for the callers that read it.
WORKER_LOG = "kmdr_worker_log"
#: The attribute an error carries when the run's log file holds its traceback (the file's path).
RUN_LOG = "kmdr_run_log"
#: The loggers of the backends a run uses, whose records go to the run's log file while it runs
#: (and to the terminal only when the run is verbose).
BACKEND_LOGGERS = ("distributed", "dask", "ray")


def run_started(err: BaseException) -> bool:
    """Whether the run that ``err`` ended had started computing (its record written, cells
    perhaps finished and kept), rather than stopping while it was checked or loaded."""
    return bool(getattr(err, _STARTED, False))


@dataclass(frozen=True)
class RunServices:
    """What one run uses of the :class:`~kmdr.engine.session.Session` it runs in, handed down as
    one value (:meth:`~kmdr.engine.session.Session.services`): the engine never holds the
    session, and never calls back into it."""

    #: The run's workers, resolved once by the session.
    parallelism: Parallelism
    #: This process's :class:`~kmdr.engine.session.ProcessState` (thread pools, the memo of
    #: shared reductions).
    state: object
    #: The run's joblib backend, not yet entered: entering it starts it and yields its
    #: description for the record and its dask client (None off dask).
    backend: contextlib.AbstractContextManager
    #: The entry function of every job (picklable by reference).
    worker_job: Callable
    #: ``ticking(progress)``: a context that ticks a logged progress bar every second from the
    #: session's thread.
    ticking: Callable
    #: Where the run's data live (:mod:`kmdr.engine.data_path`), chosen once by the session.
    data_path: object


@dataclass
class RunOutcome:
    """What a run did (returned by :meth:`kmdr.engine.session.Session.run`)."""

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


@dataclass
class RunContext:
    """Everything an experiment kind needs to run."""

    experiment: Experiment
    execution: Execution
    output: Output
    #: What the run uses of its session (workers' entry, this process's state, the backend).
    services: RunServices
    dataset: object
    X: object
    y: object
    n_clusters: int
    store: CellStore
    record: dict
    outcome: RunOutcome
    progress: Callable
    #: When the run started (``time.perf_counter``).
    started: float = 0.0
    #: The dask client of a run on ``backend=dask`` once its backend started (else None).
    client: object = None
    #: What the run enters while it runs (its backend, once :meth:`start_workers` is called).
    entered: contextlib.ExitStack | None = None

    @property
    def shape(self) -> tuple[int, int, int]:
        return (int(self.X.shape[0]), int(self.X.shape[1]), int(self.n_clusters))

    @property
    def parallelism(self) -> Parallelism:
        """The run's workers, as the session resolved them."""
        return self.services.parallelism

    @property
    def data_path(self):
        """Where the run's data live, and how its cells are computed on them."""
        return self.services.data_path

    @property
    def data_fingerprint(self) -> str:
        """The fingerprint of the data the cells run on (part of each cell's identity)."""
        return self.record["dataset"]["fingerprint"]

    def save_record(self) -> None:
        self.store.write_sidecar(self.outcome.run_id, self.record)

    def start_workers(self) -> None:
        """Start the run's backend (its pool or cluster, and joblib's config for it), once, for
        the rest of the run; a kind calls it before computing on workers, so a run that computes
        nothing there (every cell reused; a kind that computes in this process) starts none.
        The record gets its description, the context its dask client."""
        if "backend_info" not in self.record:
            backend, self.client = self.entered.enter_context(self.services.backend)
            self.record["backend_info"] = backend


def execute(
    services: RunServices,
    experiment: Experiment,
    execution: Execution,
    output: Output,
    dataset,
    *,
    config: dict | None = None,
) -> RunOutcome:
    """One run of ``experiment`` on ``dataset`` with ``services``; see the module docstring.

    ``dataset``: the loaded :class:`kmdr.datasets.Dataset` (or its
    :class:`~kmdr.datasets.blocks.RowBlocks`), the :class:`~kmdr.datasets.DatasetUnavailable` its
    loading raised, or, for a dry run, its :class:`~kmdr.datasets.DeclaredData`. ``config``: the
    full resolved config to record (default: the three objects). Its lines go to the ``kmdr``
    logger (:mod:`kmdr._log`).

    Raises :class:`~kmdr.config.errors.ConfigError` before writing anything when the config does
    not fit the data. A dataset that cannot be obtained is not an error: the outcome's
    ``skipped`` holds the reason and the record says so. A backend that fails raises
    :class:`~kmdr.engine.parallel.BackendError` after the record says ``failed``.
    """
    from kmdr.datasets import DatasetUnavailable

    dry_run = output.dry_run
    exp_dir = Path(output.results_dir) / experiment.name
    outcome = RunOutcome(experiment.name, exp_dir, new_run_id())
    started = time.perf_counter()
    par = services.parallelism
    # A dry run writes no record: it needs only the data's part of one (not the versions, the
    # BLAS libraries and the git revision, a look at the process and two git calls).
    record = {}
    if not dry_run:  # the BLAS libraries the record lists are those the kernels' check reads
        blas = services.state.pools.info()
        record = run_record(experiment, execution, output, outcome.run_id, config, par, blas)
        kernels = _kernels.mismatch(blas)
        if kernels:
            warn(kernels)
    if par.requested is not None:
        warn(par.cap_message(execution.backend))
    oversubscribed = par.oversubscription_message(experiment.blas_threads)
    if oversubscribed:
        warn(oversubscribed)
    kind = get_kind(experiment.kind)

    if isinstance(dataset, DatasetUnavailable):
        outcome.skipped = " ".join(str(dataset).split())
        outcome.status = "skipped"
        if not dry_run:
            store = CellStore(exp_dir)
            record.update(status="skipped", skipped=outcome.skipped, finished_at=now())
            record.update(expected_cells=[], cells_done=[])
            store.write_sidecar(outcome.run_id, record)
        return outcome

    X, y, sparse, fingerprint = data_facts(services.data_path, experiment, execution, dataset)
    n, d = X.shape
    k = int(dataset.n_clusters)
    # a ConfigError before any write; a kind that computes no cells checks the data itself
    check = getattr(kind, "check_against_data", check_against_data)
    check(experiment, n, d, k, sparse=sparse)
    check_resume(experiment, exp_dir)  # a ConfigError: one reducer and one label per id
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
    ctx = RunContext(
        experiment,
        execution,
        output,
        services,
        dataset,
        X,
        y,
        k,
        store,
        record,
        outcome,
        progress_bar(output.progress, output.progress_every),
        started,
    )
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
        outcome.mean_accuracy = _mean_accuracy(ctx)
        outcome.cell_ids = tuple(c["cell_id"] for c in ctx.record.get("expected_cells") or ())
        if kind.writes_cells and outcome.n_computed == 0:
            # A run that changed nothing leaves no file behind: its record would only say so,
            # and a committed results folder must stay as it was (nothing for git to show).
            store.remove_sidecar(outcome.run_id)
    return outcome


def _mean_accuracy(ctx: RunContext) -> float | None:
    """The mean accuracy over the run's expected cells (None without cells)."""
    expected = {c["cell_id"] for c in ctx.record.get("expected_cells") or ()}
    values = [float(f["accuracy"]) for f in ctx.store.rows() if f.get("cell_id") in expected]
    import numpy as np

    return float(np.mean(values)) if values and len(values) == len(expected) else None


def _run_kind(ctx: RunContext, kind, started: float) -> None:
    """Run ``kind`` under the backend; the record always ends with the run's status."""
    from kmdr.engine.threads import run_threads

    status, outcome = "failed", ctx.outcome
    # The run's process computes with the cells' threads too: the jobs a joblib backend runs here
    # (one worker, a single job, the threading backend, whose threads' OpenBLAS count only this
    # thread can set), and the objective evaluator every worker scores with (made here, its
    # ||A||^2 a BLAS sum whose rounding follows the thread count). Even when loky's workers
    # compute every cell this is faster: the ORL grid ran 0.4-0.7 s slower without it, likely
    # this process's unpinned OpenBLAS threads spinning against the workers.
    try:
        with (
            run_threads(ctx.services.state.pools, ctx.experiment.blas_threads),
            contextlib.ExitStack() as ctx.entered,
        ):
            kind.run(ctx)
        status = "complete"
    except KeyboardInterrupt as err:
        status = "interrupted"
        setattr(err, _STARTED, True)
        raise
    except Exception as err:
        if signals.received() is not None:  # e.g. a worker the same SIGTERM ended first
            status = "interrupted"
            stop = signals.Interrupted(signals.received())
            setattr(stop, _STARTED, True)
            raise stop from None
        outcome.error = str(err) if isinstance(err, RunFailed) else one_line(err, with_type=True)
        setattr(err, _STARTED, True)
        traced = getattr(err, "traced", True)  # a traceback that says more than its line
        logging.getLogger(_FAILURES).error(
            f"run {outcome.run_id} failed", exc_info=err if traced else None
        )
        log_path = ctx.store.run_log(outcome.run_id)
        if traced and log_path.is_file():  # its traceback, and what the backends logged
            setattr(err, RUN_LOG, str(log_path))
        raise
    finally:
        outcome.status = status
        outcome.wall_seconds = time.perf_counter() - started
        if outcome.error:
            ctx.record["error"] = outcome.error
        ctx.record.update(status=status, finished_at=now(), wall_seconds=outcome.wall_seconds)
        with signals.deferred():  # a signal now must not leave the record saying "running"
            ctx.save_record()


#: The logger of a failed run's traceback: the run's log file, the terminal only when verbose.
_FAILURES = f"{LOGGER}.failure"


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
