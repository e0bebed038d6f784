"""``kind: cells``: the resumable, concurrency-safe sweep over (reducer, r, repetition) cells.

1. plan the cells (:func:`~kmdr.results.cells.plan_cells`) and skip those already done: a
   valid row of ``cells.csv`` (the record: reused, never recomputed) or a valid cell file;
2. group them into jobs: the cells of a reducer that declares its reduction deterministic
   (:meth:`~kmdr.reducers.BaseReducer.is_deterministic`) and that differ only in repetition are
   one job, which reduces once and runs k-means once per repetition with each cell's own seed;
   every other cell is a job of its own;
3. run the jobs in parallel, longest first. The r-independent work (``reducer.compute_shared``:
   SVD, leverage or Laplacian scores) is computed in the worker by the first job that needs it
   and kept in that worker process (:class:`~kmdr.engine.work.SharedWorkMemo`), once per
   shared key when it is deterministic
   (:meth:`~kmdr.reducers.BaseReducer.shared_is_deterministic`), else once per (shared key,
   repetition) with the same seed as ever; reducers with equal keys share it. Jobs that need no
   shared work never wait for any. Each cell is charged the measured seconds of the shared work
   and of the reduction it used. The data reaches the workers as :mod:`kmdr.engine.job_data` says
   (in every job on this machine; once per worker on a cluster, never inside a job).

Every cell of a job is *claimed* in the store just before the job is handed to a worker (a lock
the kernel drops if this process dies), so two runs sweeping into one folder at the same time
never compute a cell twice: a cell the other run holds is left out of the job, left to that run
and waited for at the end (taken over if that run dies; given up on, in one line naming the
holder, after ``claim_timeout`` seconds without its heartbeat: :mod:`._locks`). Each finished
cell is written atomically as soon as its job is back, and ``cells.csv`` is rebuilt every few
seconds, so a killed run shows as incomplete, with what it finished.

With ``cell_time_limit``, a job may take that many seconds per cell. A job computed in a
process's main thread (n_jobs=1, loky, multiprocessing) stops itself at its deadline
(:func:`kmdr.engine.signals.time_limit`); one in a dask worker's thread cannot be stopped, so the
run, which looks at its cells' deadlines every second (:class:`_TimeLimits`), restarts that worker
(dask reschedules the job, which returns at once), and a process that is still computing
:data:`GRACE` seconds past its deadline (stuck in one C call) is killed. A timed-out cell is never
written: the run record lists it with its limit (``timed_out``), the sweep goes on with the other
cells, and the run then fails with one line counting them (:class:`CellsTimedOut`); the next run
computes them again. Killing a loky worker ends the jobs of the whole pool: the cells then in
flight are computed again.

With ``block_rows`` (``backend=dask``) step 3 differs (the run's data path,
:mod:`kmdr.engine.data_path`): the run's data are row blocks, and the cells are computed one
after another, each spread over the cluster's workers block by block
(:func:`kmdr.engine.chunked.compute_chunked_cell`); they are claimed, written and reused exactly
as above, with the same identities as in-memory cells.
"""

from __future__ import annotations

import contextlib
import os
import time
from concurrent.futures import BrokenExecutor

from kmdr._log import say, verbose, warn
from kmdr.engine import job_data, signals
from kmdr.engine.parallel import (
    CellAborted,
    JobTimedOut,
    RunFailed,
    cell_failed,
    results_as_completed,
)
from kmdr.engine.threads import pin_threads
from kmdr.engine.work import group_job, key_text
from kmdr.results import locks as _locks
from kmdr.results.cells import Cell, cell_row, identity_dicts, plan_cells, planned_count
from kmdr.results.locks import CellLock
from kmdr.results.provenance import now
from kmdr.results.store import CellStore

__all__ = ["CELLS", "CellsKind", "CellsTimedOut", "compute_from_blocks", "compute_in_memory"]

#: Seconds between two rebuilds of cells.csv while a run goes on.
CSV_EVERY = 5.0
#: Seconds past its deadline after which the process of a job that should have stopped itself
#: (in a process's main thread) is killed: it is stuck in a call the alarm cannot interrupt.
GRACE = 5.0


class ClaimTimeout(RuntimeError):
    """The run gave up waiting for a cell another process claimed (one line naming it)."""


class CellsTimedOut(RunFailed):
    """Cells of the run went past ``cell_time_limit`` and were stopped (one line counting them;
    the run record names each)."""

    traced = False  # raised by kmdr to report the outcome: no traceback says more


class CellsKind:
    """The ``cells`` experiment kind (see the module docstring)."""

    name = "cells"
    writes_cells = True
    #: The experiment settings a sweep of cells reads (an override of another is refused:
    #: :func:`kmdr.config.overrides.check_kind_reads`).
    reads = ("dataset", "reducers", "r_grid", "repeats", "seed", "kmeans", "aggregation",
             "blas_threads")  # fmt: skip

    def plan(self, ctx) -> list[Cell]:
        return plan_cells(ctx.experiment, ctx.X, ctx.n_clusters, ctx.data_fingerprint)

    def looks_parallel(self, experiment, experiment_dir) -> bool:
        """Whether a run of ``experiment`` into ``experiment_dir`` looks, before its data loads,
        to have jobs for more than one worker: its plan has more than one cell, and the folder
        holds fewer done cells than that (:meth:`~kmdr.results.store.CellStore.done_estimate`).
        The session warms its pool ahead only then; a wrong guess costs time, never a result
        (the run's first parallel call starts the pool itself)."""
        reducers = ((red.name, red.max_r) for red in experiment.reducers)
        size = planned_count(reducers, experiment.r_grid, experiment.repeats)
        return size > 1 and CellStore(experiment_dir, read_only=True).done_estimate() < size

    def run(self, ctx) -> None:
        cells = self.plan(ctx)
        ctx.record["expected_cells"] = identity_dicts(cells)
        ctx.record["cells_done"] = []
        store, outcome = ctx.store, ctx.outcome
        done = store.done_ids()
        pending = [c for c in cells if c.cell_id not in done]
        outcome.n_expected = len(cells)
        outcome.n_reused = len(cells) - len(pending)
        if outcome.n_reused:
            store.rebuild_csv()  # a previous run may have been killed before rebuilding it
            stopped = _stopped_before(store.root, outcome.run_id)
            what = f"resuming {stopped}" if stopped else "reusing the cells already computed"
            say(
                f"[kmdr] {ctx.experiment.name}: {what}: {outcome.n_reused} of {len(cells)} cells "
                f"done ({store.cells_dir})"
            )
        ctx.save_record()
        shared_log: dict = {}
        ctx.record["timed_out"] = []
        if pending:  # a run that reuses every cell starts no pool or cluster
            ctx.start_workers()
        try:
            ctx.data_path.compute(ctx, pending, len(cells), shared_log)
        finally:
            # Interrupted or not, cells.csv ends up holding every cell file: a signal now waits.
            with signals.deferred():
                ctx.services.state.memo.forget(ctx.outcome.run_id)
                ctx.record["shared_work"] = _shared_record(shared_log)
                done_now = store.done_ids()
                ctx.record["cells_done"] = identity_dicts(c for c in cells if c.cell_id in done_now)
                ctx.record["n_cells_computed"] = outcome.n_computed
                ctx.record["n_cells_reused"] = outcome.n_reused
                store.rebuild_csv()
        if ctx.record["timed_out"]:
            raise CellsTimedOut(_timed_out_line(ctx, len(cells)))


CELLS = CellsKind()


def group_cells(cells: list[Cell]) -> list[list[Cell]]:
    """The cells as jobs: those with equal ``group_key`` together (a deterministic reducer's
    cells that differ only in repetition), each job where its first cell is in ``cells``."""
    groups: dict[tuple, list[Cell]] = {}
    for cell in cells:
        groups.setdefault(cell.group_key, []).append(cell)
    return list(groups.values())


def _timed_out_line(ctx, total: int) -> str:
    """The one line of a run whose cells went past their time limit."""
    stopped = ctx.record["timed_out"]
    limit = ctx.execution.cell_time_limit
    first = stopped[0]
    return (
        f"{ctx.experiment.name}: {len(stopped)} of {total} cells went past "
        f"cell_time_limit={limit:g} s and were stopped (first: reducer {first['reducer']!r}, "
        f"r={first['r']}, repetition {first['repetition']}; each is listed under timed_out in "
        "the run record); run the same command, with a larger cell_time_limit, to compute them"
    )


def _stopped_before(exp_dir, run_id: str) -> str | None:
    """How the experiment's last run before ``run_id`` ended when it did not finish ("the run
    20261124T... interrupted"), else None: only then is this run a resumption."""
    from kmdr.results.reading import load_runs

    runs = [r for r in load_runs(exp_dir, say=lambda _: None) if r.get("status") != "skipped"]
    # by start time (ms): two runs of one second have ids in no particular order
    runs.sort(key=lambda r: (str(r.get("started_at", "")), str(r.get("run_id", ""))))
    last = next((r for r in reversed(runs) if r.get("run_id") != run_id), None)
    status = None if last is None else last.get("status")
    if status in ("interrupted", "failed", "running"):
        ended = "stopped" if status == "running" else status
        return f"the run {last.get('run_id', '?')}, {ended}"
    return None


def _shared_record(log: dict) -> list[dict]:
    """The run record's ``shared_work``: each shared work computed by this run, once, with the
    seconds of its first computation (repetition None: deterministic, one for all repetitions);
    ``computations`` counts the worker processes that computed it."""
    rows = sorted(
        log.items(), key=lambda kv: (repr(kv[0][0]), -1 if kv[0][1] is None else kv[0][1])
    )
    return [
        {
            "key": key_text(key),
            "repetition": rep,
            "seconds": seconds[0],
            "computations": len(seconds),
        }
        for (key, rep), seconds in rows
    ]


class _TimeLimits:
    """The run's cells past ``cell_time_limit`` (see the module docstring): :meth:`watch`, called
    every second from the session's thread, gives up on a job that has not stopped itself by its
    deadline (written by :func:`~kmdr.engine.parallel.guarded_job` into its cells' lock files)
    and replaces its worker; :meth:`stopped` records the cells of a job that stopped."""

    def __init__(self, ctx, claimer: _Claimer):
        self.ctx, self.claimer = ctx, claimer
        self.limit = ctx.execution.cell_time_limit
        self.timed_out: set[str] = set()
        #: The worker processes this run killed (loky, multiprocessing).
        self.killed: set[int] = set()
        self._warned = False

    def watch(self) -> None:
        try:
            self._watch()
        except Exception as err:  # the watch must not end the ticking thread with a traceback
            if not self._warned:
                self._warned = True
                warn(f"[kmdr] cell_time_limit: could not check the deadlines ({err})")

    def _watch(self) -> None:
        now = time.time()
        replaced: set = set()
        for claim in list(self.claimer.claims.values()):
            who = _locks.holder(claim.path) or {}
            deadline, worker, address = (
                who.get("deadline"),
                who.get("worker"),
                who.get("dask_worker"),
            )
            if deadline is None or who.get("timed_out") or worker == os.getpid():
                continue
            # a dask worker's thread cannot stop itself; a process's main thread had its alarm
            if now < float(deadline) + (1.0 if address else GRACE):
                continue
            _locks.add_to_holder(claim.path, timed_out=True)
            key = address or worker
            if key in replaced:
                continue
            replaced.add(key)
            self._replace(worker, address)

    def _replace(self, worker, address) -> None:
        """Replace the worker past its deadline: dask restarts it (and reschedules its job,
        which then returns at once); a local process is killed."""
        if address is not None and self.ctx.client is not None:
            self.ctx.client.restart_workers([address])
            return
        if isinstance(worker, int):
            import signal as _signal

            with contextlib.suppress(ProcessLookupError):
                os.kill(worker, getattr(_signal, "SIGKILL", _signal.SIGTERM))
                self.killed.add(worker)

    def given_up(self) -> list[str]:
        """The lock files of the claimed cells :meth:`watch` gave up on."""
        return [
            str(c.path)
            for c in self.claimer.claims.values()
            if (_locks.holder(c.path) or {}).get("timed_out")
        ]

    def stopped(self, claims) -> None:
        """Record the cells of ``claims`` (lock files) as timed out and release them."""
        # a worker's claims are absolute paths (see _run_jobs)
        by_path = {os.path.abspath(c.path): cell_id for cell_id, c in self.claimer.claims.items()}
        cells = {c["cell_id"]: c for c in self.ctx.record["expected_cells"]}
        for path in claims:
            cell_id = by_path.get(os.path.abspath(path))
            if cell_id is None or cell_id in self.timed_out:
                continue
            self.timed_out.add(cell_id)
            self.claimer.release(cell_id)
            cell = cells[cell_id]
            self.ctx.record["timed_out"].append(
                {
                    "cell_id": cell_id,
                    "reducer": cell["reducer"],
                    "r": cell["r"],
                    "repetition": cell["repetition"],
                    "limit_seconds": self.limit,
                }
            )
            warn(
                f"[kmdr] {self.ctx.experiment.name}: cell {cell_id} went past "
                f"cell_time_limit={self.limit:g} s: stopped"
            )


class _Claimer:
    """Hands cells to the workers one at a time, claiming each first; remembers the cells another
    run holds (``deferred``) and releases what it claimed."""

    def __init__(self, store):
        self.store = store
        self.claims: dict[str, CellLock] = {}
        self.deferred: list[Cell] = []

    def adopt(self, cell: Cell, claim: CellLock) -> None:
        """Hold ``claim`` (taken by a blocking wait) for ``cell``."""
        self.claims[cell.cell_id] = claim

    def claimed(self, groups: list[list[Cell]]):
        """Each group with the cells this run could claim, claimed as the group is handed out;
        a group none of whose cells could be claimed is skipped."""
        for group in groups:
            mine = [cell for cell in group if self._claim(cell)]
            if mine:
                yield mine

    def _claim(self, cell: Cell) -> bool:
        if cell.cell_id in self.claims:  # adopted after a wait
            return True
        claim = self.store.try_claim(cell.cell_id)
        if claim is None:  # done meanwhile, or another run is computing it
            self.deferred.append(cell)
            return False
        self.claims[cell.cell_id] = claim
        return True

    def release(self, cell_id: str) -> None:
        claim = self.claims.pop(cell_id, None)
        if claim is not None:
            claim.release()

    def release_all(self) -> None:
        for cell_id in list(self.claims):
            self.release(cell_id)


def compute_in_memory(ctx, pending: list[Cell], total: int, shared_log: dict) -> None:
    """Run the pending cells as jobs on the workers, each holding the whole matrix; persist each
    as it comes back (``outcome.n_computed`` counts). ``shared_log`` collects, per shared work
    (key, repetition or None), the seconds of each computation the workers reported."""
    # The data's way to the workers (kmdr.engine.job_data): in every job, or obtained by each
    # worker once; either way with ||A||^2 and the centered A made once (F is scored on A).
    shipping = (
        job_data.shipped(
            ctx.experiment,
            ctx.execution,
            ctx.X,
            ctx.y,
            ctx.data_fingerprint,
            ctx.services.state.data,
            ctx.services.forget_worker_data,
        )
        if pending
        else contextlib.nullcontext((None, None))
    )
    with shipping as data, _in_process_if_one_job(ctx.execution, pending):
        _run_jobs(ctx, pending, total, shared_log, data)


def compute_from_blocks(ctx, blocks, pending: list[Cell], total: int) -> None:
    """The pending cells one after another, each from the run's row ``blocks`` (a
    :class:`~kmdr.datasets.blocks.RowBlocks`) on the run's dask client
    (:func:`kmdr.engine.chunked.compute_chunked_cell`: a cell's blocks spread over the workers),
    claimed and persisted in the store as every cell is."""
    from kmdr.engine.chunked import compute_chunked_cell, prepare_on_a_worker

    client = ctx.client
    if pending:
        if client is None:
            raise RuntimeError("block_rows: the run has no dask client (backend=dask starts one)")
        prepare_on_a_worker(client, blocks)
    sketches: dict = {}  # the run's shared sketch SVDs (approximate leverage scores)
    with _claiming(ctx, total) as (claimer, bar, _):
        persist = _persister(ctx, claimer, bar)
        todo = pending
        while todo:
            for [cell] in claimer.claimed([[c] for c in todo]):
                signals.raise_if_received()
                # this process drives the cell (a small k-means, a sketch's SVD run here)
                pin_threads(ctx.services.state.pools, cell.blas_threads)
                try:
                    metrics = compute_chunked_cell(
                        cell, blocks, client, ctx.n_clusters, sketches, progress=bar.set_postfix_str
                    )
                except Exception as err:
                    raise cell_failed(f"{describe_cells([cell])} on row blocks", err) from err
                bar.set_postfix_str("")  # the next line says what the next cell does
                persist(cell, metrics)
            ctx.store.rebuild_csv()
            todo = _wait_for_others(ctx, claimer, bar)


@contextlib.contextmanager
def _claiming(ctx, total: int):
    """The run's claimer, progress bar and time limits (``(claimer, bar, limits)``), the bar
    ticking and the deadlines watched while the block computes; every claim left released and
    the bar closed after, however it ends."""
    # What the run took before its first cell (workers, the data on their way), for the
    # estimate of the next dry run (kmdr.engine.dry_run).
    ctx.record["start_seconds"] = round(time.perf_counter() - ctx.started, 3)
    claimer = _Claimer(ctx.store)
    bar = ctx.progress(
        total, ctx.outcome.n_reused, f"{ctx.experiment.name}: cells", "cell", _start_text(ctx)
    )
    limits = _TimeLimits(ctx, claimer)
    try:
        with ctx.services.ticking(bar, limits.watch if limits.limit else None):
            yield claimer, bar, limits
    finally:
        claimer.release_all()
        bar.close()


def _persister(ctx, claimer, bar):
    """``persist(cell, metrics)``: write a finished cell's row, release its claim, count it, and
    rebuild cells.csv at the first cell and then every :data:`CSV_EVERY` seconds."""
    last_csv = [float("-inf")]  # the first finished cell makes cells.csv at once

    def persist(cell: Cell, metrics: dict) -> None:
        signals.raise_if_received()
        run = {
            "n_jobs": ctx.parallelism.n_jobs,
            "run_id": ctx.outcome.run_id,
            "finished_at": now(),
        }
        row = cell_row(cell, metrics, experiment=ctx.experiment.name, shape=ctx.shape, run=run)
        ctx.store.write_cell(cell.cell_id, row)
        claimer.release(cell.cell_id)
        ctx.outcome.n_computed += 1
        bar.update(1)
        if time.monotonic() - last_csv[0] >= CSV_EVERY:
            ctx.store.rebuild_csv()
            last_csv[0] = time.monotonic()

    return persist


def _in_process_if_one_job(execution, pending: list[Cell]):
    """Joblib's sequential backend when a run on this machine has a single job to compute.

    One job keeps one worker busy and the others idle, so handing it to a worker only costs: the
    worker gets its own copy of the data (loky memory-maps X into a file, a second copy beside the
    run's), which at RCV1-v2's size (804,414 rows) is 0.7 GiB of the run's peak. The cell computes
    the same numbers in the run's process (the same seed and BLAS threads). A cluster backend keeps
    its workers: there the data live on the workers, not here.
    """
    if execution.backend in job_data.CLUSTER_BACKENDS or len(group_cells(pending)) != 1:
        return contextlib.nullcontext()
    from joblib import parallel_config

    return parallel_config(backend="sequential")


def _run_jobs(ctx, pending: list[Cell], total: int, shared_log: dict, data: tuple) -> None:
    """:func:`compute_in_memory` with the jobs' ``data`` arguments ready."""
    from joblib import delayed

    token = ctx.outcome.run_id  # names this run's shared works in the workers' memos
    # what the workers print goes to the run's log file, unless the run is verbose; the paths a
    # worker gets are absolute: its working folder is the one its pool started in, which a
    # notebook's os.chdir since then does not change
    log = None if verbose() else os.path.abspath(ctx.store.run_log(token))
    with _claiming(ctx, total) as (claimer, bar, limits):

        def job(cells: list[Cell]):
            signals.raise_if_received()  # a stop whose exception library code lost: no more jobs
            claims = [os.path.abspath(claimer.claims[c.cell_id].path) for c in cells]
            return delayed(ctx.services.worker_job)(
                describe_cells(cells),
                os.getpid(),
                log,
                claims,
                ctx.execution.cell_time_limit,
                group_job,
                cells,
                *data,
                ctx.n_clusters,
                cells[0].shared_seed,
                token,
            )

        persist = _persister(ctx, claimer, bar)
        _compute(ctx, pending, claimer, job, persist, shared_log, bar, limits)


def _compute(ctx, pending, claimer, job, persist, shared_log: dict, bar, limits) -> None:
    """Compute the cells this run claims, then those it waited for, persisting each."""
    todo = pending
    while todo:
        jobs = (job(group) for group in claimer.claimed(group_cells(todo)))
        try:
            # closed as soon as the loop ends, by an error or a signal: the jobs still running
            # are cancelled here, not whenever the generator is collected
            with contextlib.closing(
                results_as_completed(jobs, ctx.parallelism.n_jobs, ctx.execution.backend)
            ) as results:
                for result in results:
                    if isinstance(result, JobTimedOut):
                        limits.stopped(result.claims)
                        continue
                    pairs, report = result
                    if report is not None:
                        ident, seconds = report
                        shared_log.setdefault(ident, []).append(seconds)
                    for cell, metrics in pairs:
                        persist(cell, metrics)
        except BrokenExecutor as err:  # a worker died: name its cell, in one line
            if signals.received() is not None:
                raise  # the signal that stops this run ended it too
            if not limits.killed:
                raise CellAborted(_worker_death(claimer, pending, err)) from None
            # The run killed a worker stuck past its deadline, which ended the pool's jobs: the
            # cells it gave up on are recorded, the others in flight are computed again.
            limits.stopped(limits.given_up())
            claimer.deferred = []
            todo = [
                c
                for c in todo
                if not ctx.store.is_done(c.cell_id) and c.cell_id not in limits.timed_out
            ]
            continue
        todo = _wait_for_others(ctx, claimer, bar)


def _start_text(ctx) -> str:
    """What the start line of a logged run says besides the counts: the data, the methods and
    grid, where the results go."""
    experiment = ctx.experiment
    n, d, _ = ctx.shape
    # each method at the r its cells have (the baseline at d, a reducer's max_r cuts the grid),
    # methods with the same r named together, in the experiment's order
    grids: dict[str, set[int]] = {entry.id or entry.name: set() for entry in experiment.reducers}
    for cell in ctx.record["expected_cells"]:
        grids[cell["reducer"]].add(int(cell["r"]))
    together: dict[tuple[int, ...], list[str]] = {}
    for reducer, rs in grids.items():
        if rs:
            together.setdefault(tuple(sorted(rs)), []).append(reducer)
    methods = "; ".join(
        f"{', '.join(labels)} at r = {', '.join(map(str, rs))}" for rs, labels in together.items()
    )
    return (
        f"{experiment.dataset.name} ({n} x {d}), {methods}, {experiment.repeats} repetition"
        f"{'s' if experiment.repeats > 1 else ''}, {ctx.parallelism.n_jobs} job"
        f"{'s' if ctx.parallelism.n_jobs > 1 else ''} -> "
        f"{ctx.store.root}"
    )


def describe_cells(cells: list[Cell]) -> str:
    """``reducer 'sign' in cell r=5 repetition 0 (<cell id>)``, naming every cell of a job."""
    where = ", ".join(f"r={c.r} repetition {c.repetition} ({c.cell_id})" for c in cells)
    return f"reducer {cells[0].reducer_name!r} in cell{'s' if len(cells) > 1 else ''} {where}"


def _worker_death(claimer: _Claimer, pending: list[Cell], err: BaseException) -> str:
    """The one line for a worker that died: the cells whose worker (written into their lock
    files by :func:`~kmdr.engine.parallel.guarded_job`) is gone, else those in flight."""
    from kmdr._io import is_alive

    by_id = {c.cell_id: c for c in pending}
    lost = []
    for cell_id, claim in claimer.claims.items():
        worker = (_locks.holder(claim.path) or {}).get("worker")
        if isinstance(worker, int) and not is_alive(worker) and cell_id in by_id:
            lost.append(by_id[cell_id])
    what = describe_cells(lost) if lost else "one of the cells being computed"
    return (
        f"a worker process died while computing {what} (killed, e.g. by the out-of-memory "
        f"killer, or it called os._exit: {type(err).__name__}); finished cells are kept, "
        "run the same command to compute the others"
    )


def _wait_for_others(ctx, claimer: _Claimer, bar) -> list[Cell]:
    """Wait for the cells another run held when this run reached them; return what is left to
    compute here: a cell whose holder died (its claim is taken over), and the cells after it.

    This run blocks only while it holds no claim of its own, so two runs waiting on each other's
    cells cannot deadlock.
    """
    deferred, claimer.deferred = claimer.deferred, []
    store = ctx.store
    waiting = [c for c in deferred if not store.is_done(c.cell_id)]
    ctx.outcome.n_reused += len(deferred) - len(waiting)
    bar.update(len(deferred) - len(waiting))
    if waiting:
        who = _locks.describe_holder(store.claim_holder(waiting[0].cell_id))
        say(
            f"[kmdr] {ctx.experiment.name}: waiting for {len(waiting)} cells another run is "
            f"computing in {store.cells_dir} ({who}); a holder showing no sign of life for "
            f"{ctx.execution.claim_timeout:g} s (claim_timeout) is given up on"
        )
    for i, cell in enumerate(waiting):
        try:
            claim = store.try_claim(cell.cell_id, block=True, timeout=ctx.execution.claim_timeout)
        except _locks.LockTimeout as err:
            raise ClaimTimeout(
                f"cell {cell.cell_id} (reducer {cell.reducer_name!r}, r={cell.r}, repetition "
                f"{cell.repetition}) is claimed by "
                f"{_locks.describe_holder(err.holder)}, which has shown no sign of life for "
                f"{err.timeout:g} s (stopped or hung?); end that process (its finished cells "
                "are kept) or raise claim_timeout, then run the same command again"
            ) from None
        if claim is None:  # the other run wrote it
            ctx.outcome.n_reused += 1
            bar.update(1)
            continue
        claimer.adopt(cell, claim)  # the other run died: this one computes it
        return waiting[i:]
    return []
