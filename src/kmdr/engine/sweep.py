"""``kind: cells``: the resumable, concurrency-safe sweep over (reducer, r, repetition) cells.

1. plan the cells (:func:`~kmdr.results.cells.plan_cells`) and skip those already done: a
   valid row of ``cells.csv`` (the record: reused, never recomputed);
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
   and of the reduction it used. The data reach the workers as :func:`compute_in_memory` says
   (in every job on this machine; once per worker on dask, never inside a job).

The run holds its folder's lock (:func:`kmdr.results.locks.folder_lock`), so it alone writes
the folder: each finished cell's row is appended to ``cells.csv`` as soon as its job is back
(sorted at the run's end), so a killed run shows as incomplete, with what it finished, and the
next run reuses it.

With ``cell_time_limit``, a job may take that many seconds per cell on every backend but
threading's: the run's process ends it past its deadline, even inside one C call
(:mod:`kmdr.engine.deadlines`; with one worker the jobs then compute in one worker process,
never in the run's). A timed-out cell is never written: the run record lists it with its limit
and the seconds it ran (``timed_out``), the sweep goes on with the other cells, and the run then
fails with one line counting them; the next run computes them again.

With ``block_rows`` (``backend=dask``) step 3 differs (the run's data path,
:mod:`kmdr.engine.data_path`): the run's data are row blocks, and the cells are computed one
after another, each spread over the cluster's workers block by block
(:func:`kmdr.engine.blocks.compute_chunked_cell`); they are written and reused exactly as
above, with the same identities as in-memory cells.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
import warnings
from collections.abc import Iterable, Iterator
from concurrent.futures import BrokenExecutor

from kmdr._log import say, warn
from kmdr.config.kinds import CELLS_READ
from kmdr.engine import signals
from kmdr.engine.backends import CLUSTER_BACKENDS, RunFailed, cell_failed
from kmdr.engine.cell_kinds import CellKind, Job
from kmdr.engine.data_path import RowBlocks
from kmdr.engine.deadlines import Deadlines
from kmdr.engine.progress import Ticking
from kmdr.engine.work import describe_cells, group_job, key_text
from kmdr.engine.worker import process_state, run_job
from kmdr.results.cells import Cell, cell_row, identity_dicts, plan_cells
from kmdr.results.provenance import now


class ReducerCells:
    """kmdr's own kind of cells: (reducer, r, repetition), reduced, clustered by Lloyd on the
    reduced data and scored on all of it (:func:`kmdr.engine.work.group_job`); the
    :class:`~kmdr.engine.cell_kinds.CellKind` the sweep of cells runs."""

    name = "cells"
    # what it reads is declared beside the config (kmdr.config.kinds.CELLS_READ), so that building
    # an experiment of it loads no engine
    reads = CELLS_READ
    columns: tuple[str, ...] = ()

    def plan(self, ctx) -> list[Cell]:
        return plan_cells(ctx.experiment, ctx.X, ctx.n_clusters, ctx.data_fingerprint)

    def shared_data(self, ctx) -> dict:
        from kmdr.metrics import ObjectiveEvaluator

        return {"X": ctx.X, "y": ctx.y, "objective": ObjectiveEvaluator(ctx.X)}

    def compute(self, state, job: Job, *, X, y, objective):
        return group_job(state, job, X=X, y=y, objective=objective)

    def compute_chunked(self, cell, blocks, client, n_clusters, sketches, progress):
        from kmdr.engine.blocks import compute_chunked_cell

        return compute_chunked_cell(cell, blocks, client, n_clusters, sketches, progress=progress)


class Sweep:
    """A resumable sweep of cells, of the kind of cells it is given (see the module docstring):
    an experiment kind (:mod:`kmdr.config.kinds`) whose cells ``kind``
    (a :class:`~kmdr.engine.cell_kinds.CellKind`) plans and computes."""

    writes_cells = True

    def __init__(self, kind: CellKind) -> None:
        if not isinstance(kind, CellKind):
            raise TypeError(f"{type(kind).__name__} is not a kmdr.engine.cell_kinds.CellKind")
        self.kind = kind

    @property
    def name(self) -> str:
        return self.kind.name

    @property
    def reads(self) -> tuple[str, ...]:
        return tuple(self.kind.reads)

    def __getattr__(self, name: str):
        # the kind's optional parts (check_against_data, settings_doc, ...) are the sweep's
        if name.startswith("__") or name == "kind":
            raise AttributeError(name)
        return getattr(self.kind, name)

    def plan(self, ctx) -> list[Cell]:
        return self.kind.plan(ctx)

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
                f"done ({store.csv_path})"
            )
        blocks = isinstance(ctx.data_path, RowBlocks)
        chunked = getattr(self.kind, "compute_chunked", None)
        if blocks and chunked is None:
            raise RunFailed(
                f"block_rows: the {self.name} kind computes each cell on data in memory (on "
                "dask, without block_rows, its cells run on the cluster's workers)",
                traced=False,
            )
        ctx.save_record()
        shared_log: dict = {}
        ctx.record["timed_out"] = []
        ctx.record["not_finite"] = []
        if pending:  # a run that reuses every cell starts no pool or cluster
            ctx.start_workers()
        try:
            if blocks:
                compute_from_blocks(ctx, ctx.data_path.blocks_of(ctx.dataset), pending,
                                    len(cells), chunked)  # fmt: skip
            else:
                compute_in_memory(ctx, pending, len(cells), shared_log, self.kind)
        finally:
            # Interrupted or not, cells.csv ends up sorted: a signal now waits.
            with signals.deferred():
                process_state().memo.forget(ctx.outcome.run_id)
                ctx.record["shared_work"] = _shared_record(shared_log)
                done_now = store.done_ids()
                ctx.record["cells_done"] = identity_dicts(c for c in cells if c.cell_id in done_now)
                ctx.record["n_cells_computed"] = outcome.n_computed
                ctx.record["n_cells_reused"] = outcome.n_reused
                store.rebuild_csv()
        if ctx.record["timed_out"]:
            raise RunFailed(_timed_out_line(ctx, len(cells)), traced=False)
        if ctx.record["not_finite"]:
            first, n = ctx.record["not_finite"][0], len(ctx.record["not_finite"])
            if "not finite" not in first["error"]:  # a kind's own reason (a coreset's solve)
                raise RunFailed(
                    f"{ctx.experiment.name}: {n} of {len(cells)} cells were not written (first: "
                    f"{first['error']}; each is listed under not_finite in the run record)",
                    traced=False,
                )
            raise RunFailed(
                f"{ctx.experiment.name}: {n} of {len(cells)} cells were not finite and were not "
                f"written (first: reducer {first['reducer']!r}, r={first['r']}, repetition "
                f"{first['repetition']}; each is listed under not_finite in the run record); "
                "keep the reducer's output at the data's scale and run the same command",
                traced=False,
            )


CELLS = Sweep(ReducerCells())


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
    from kmdr.results.runs import load_runs

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


def compute_in_memory(ctx, pending: list[Cell], total: int, shared_log: dict, kind) -> None:
    """Run the pending cells as jobs on the workers, each holding the whole matrix; persist each
    as it comes back (``outcome.n_computed`` counts). ``shared_log`` collects, per shared work
    (key, repetition or None), the seconds of each computation the workers reported.

    Every job carries X, y and the run's objective evaluator (``||A||^2`` and the centered A, made
    once: F is scored on A). loky memory-maps the arrays above 1 MB, so each worker maps one file;
    on dask joblib scatters the three to every worker once (its ``scatter``), so no task carries
    them; Ray's pool pickles them with the jobs. Whichever way, a worker computes on the same X
    bit for bit, so a cell's numbers do not depend on the backend."""
    data = kind.shared_data(ctx) if pending else {}
    ctx.workers_ready()  # the evaluator built while they started
    with _scattered(ctx, data), _in_process_if_one_job(ctx.execution, pending):
        _run_jobs(ctx, pending, total, shared_log, data, kind.compute)


def _scattered(ctx, data: dict):
    """On dask, joblib's backend with ``data`` scattered to every worker before the first job
    (its other settings, the number of workers among them, those the run's backend set)."""
    limited = ctx.execution.cell_time_limit is not None  # the jobs scatter it themselves
    if ctx.execution.backend != "dask" or not data or limited:
        return contextlib.nullcontext()
    from joblib import parallel_config

    params = dict(ctx.execution.backend_params)
    return parallel_config(backend="dask", scatter=list(data.values()), **params)


def compute_from_blocks(ctx, blocks, pending: list[Cell], total: int, compute_chunked) -> None:
    """The pending cells one after another, each from the run's row ``blocks`` (a
    :class:`~kmdr.datasets.blocks.RowBlocks`) on the run's dask client (the kind's
    ``compute_chunked``, e.g. :func:`kmdr.engine.blocks.compute_chunked_cell`: a cell's blocks
    spread over the workers), persisted in the store as every cell is."""
    from kmdr.engine.blocks import prepare_on_a_worker

    client = ctx.client
    if pending:
        if client is None:
            raise RuntimeError("block_rows: the run has no dask client (backend=dask starts one)")
        prepare_on_a_worker(client, blocks)
    sketches: dict = {}  # the run's shared sketch SVDs (approximate leverage scores)
    with _progress(ctx, total) as bar:
        persist = _persister(ctx, bar)
        for cell in pending:
            signals.raise_if_received()
            # this process drives the cell (a small k-means, a sketch's SVD run here)
            try:
                with process_state().threads(cell.blas_threads):
                    progress = bar.set_postfix_str
                    metrics = compute_chunked(
                        cell, blocks, client, ctx.n_clusters, sketches, progress
                    )
            except Exception as err:
                raise cell_failed(f"{describe_cells([cell])} on row blocks", err) from err
            bar.set_postfix_str("")  # the next line says what the next cell does
            persist(cell, metrics)


@contextlib.contextmanager
def _progress(ctx, total: int):
    """The run's progress bar, ticking while the block computes, closed after."""
    # What the run took before its first cell (workers, the data on their way), for the
    # estimate of the next dry run (kmdr.engine.dry_run).
    ctx.record["start_seconds"] = round(time.perf_counter() - ctx.started, 3)
    bar = ctx.progress(
        total, ctx.outcome.n_reused, f"{ctx.experiment.name}: cells", "cell", _start_text(ctx)
    )
    try:
        with Ticking(bar):
            yield bar
    finally:
        bar.close()


def _persister(ctx, bar):
    """``persist(cell, metrics)``: append a finished cell's row to cells.csv and count it."""

    def persist(cell: Cell, metrics: dict) -> None:
        signals.raise_if_received()
        if isinstance(metrics, str):  # not finite: never a row; said, recorded, the sweep goes on
            ctx.record["not_finite"].append(
                {"cell_id": cell.cell_id, "reducer": cell.reducer_id, "r": cell.r,
                 "repetition": cell.repetition, "error": str(metrics)}
            )  # fmt: skip
            warn(f"[kmdr] {ctx.experiment.name}: cell {cell.cell_id} (repetition "
                 f"{cell.repetition}) is not written: {metrics}")  # fmt: skip
            bar.update(1)
            return
        run = {**ctx.parallelism.record, "run_id": ctx.outcome.run_id, "finished_at": now()}
        row = cell_row(cell, metrics, experiment=ctx.experiment.name, shape=ctx.shape, run=run)
        ctx.store.write_cell(cell.cell_id, row)
        ctx.outcome.n_computed += 1
        bar.update(1)

    return persist


def _in_process_if_one_job(execution, pending: list[Cell]):
    """Joblib's sequential backend when a run on this machine has a single job to compute.

    One job keeps one worker busy and the others idle, so handing it to a worker only costs: the
    worker gets its own copy of the data (loky memory-maps X into a file, a second copy beside the
    run's), which at RCV1-v2's size (804,414 rows) is 0.7 GiB of the run's peak. The cell computes
    the same numbers in the run's process (the same seed and BLAS threads). A cluster backend keeps
    its workers: there the data live on the workers, not here.
    """
    limited = execution.cell_time_limit is not None  # the run's process must never be stuck
    if limited or execution.backend in CLUSTER_BACKENDS or len(group_cells(pending)) != 1:
        return contextlib.nullcontext()
    from joblib import parallel_config

    return parallel_config(backend="sequential")


def _run_jobs(ctx, pending: list[Cell], total: int, shared_log: dict, data: dict, compute) -> None:
    """:func:`compute_in_memory` with the jobs' ``data`` arguments ready: the jobs through
    :func:`_as_completed`, each cell persisted as it comes.

    With ``cell_time_limit`` the run's process ends a job past its deadline
    (:class:`~kmdr.engine.deadlines.Deadlines`). On this machine that ends the round of jobs it
    was part of (its pool breaks), and the jobs of the round that did not come back run again in
    the next one; on dask and Ray it ends that job alone. The stopped job's cells go to the
    record's ``timed_out``.
    A cell is written only from a job that came back, so none is lost or written twice."""
    from joblib import delayed

    token = ctx.outcome.run_id  # names this run's shared works in the workers' memos
    limit = ctx.execution.cell_time_limit
    jobs = dict(enumerate(group_cells(pending)))
    backend = ctx.execution.backend
    deadlines = None
    if limit is not None:
        budgets = {index: limit * len(cells) for index, cells in jobs.items()}
        client = ctx.client if backend == "dask" else None
        deadlines = Deadlines(budgets, client, tuple(data.values()), ray=backend == "ray")

    def job(index: int, cells: list[Cell]):
        signals.raise_if_received()  # a stop whose exception library code lost: no more jobs
        watch = None if deadlines is None else deadlines.watch(index)
        spec = Job(tuple(cells), ctx.n_clusters, cells[0].shared_seed, token, os.getpid(), watch)
        return delayed(run_job)(compute, job=spec, **data)

    with _progress(ctx, total) as bar, deadlines or contextlib.nullcontext():
        persist = _persister(ctx, bar)
        while jobs:
            index_of = {cells[0].cell_id: index for index, cells in jobs.items()}
            if deadlines is not None:
                deadlines.new_round()
            round_jobs = (job(index, cells) for index, cells in list(jobs.items()))
            try:
                # closed as soon as the loop ends, by an error or a signal: the jobs still
                # running are cancelled here, not whenever the generator is collected
                with contextlib.closing(
                    _as_completed(round_jobs, ctx.parallelism.workers, backend, deadlines)
                ) as results:
                    for pairs, report, took in results:
                        index = index_of[pairs[0][0].cell_id]
                        cells = jobs.pop(index)
                        if deadlines is not None:
                            deadlines.returned(index)
                            if took > deadlines.budgets[index]:  # back before it was ended
                                _timed_out(ctx, cells, limit, round(took, 3))
                                continue
                        if report is not None:
                            ident, seconds = report
                            shared_log.setdefault(ident, []).append(seconds)
                        for cell, metrics in pairs:
                            persist(cell, metrics)
            except Exception as err:
                if deadlines is None or not deadlines.stopped.keys() & jobs.keys():
                    _raise_round_error(err)
            if deadlines is not None:
                for index in sorted(deadlines.stopped.keys() & jobs.keys()):
                    _timed_out(ctx, jobs.pop(index), limit, deadlines.stopped[index])


def _raise_round_error(err: Exception) -> None:
    """Raise what ended a round of jobs that no deadline ended: a worker's death in one line."""
    if not isinstance(err, BrokenExecutor) or signals.received() is not None:
        raise err  # a cell's error, or the signal that stops this run ended a worker too
    raise RunFailed(
        "a worker process died while computing one of the cells (killed, e.g. by the "
        f"out-of-memory killer, or it called os._exit: {type(err).__name__}); finished "
        "cells are kept, run the same command to compute the others"
    ) from None


def _timed_out(ctx, cells: list[Cell], limit: float, seconds: float) -> None:
    """Record ``cells``, stopped at their time limit after ``seconds``, in the run record, and
    say so."""
    for cell in cells:
        ctx.record["timed_out"].append(
            {
                "cell_id": cell.cell_id,
                "reducer": cell.reducer_name,
                "r": cell.r,
                "repetition": cell.repetition,
                "limit_seconds": limit,
                "seconds": seconds,
            }
        )
        warn(
            f"[kmdr] {ctx.experiment.name}: cell {cell.cell_id} went past "
            f"cell_time_limit={limit:g} s: stopped after {seconds:.1f} s"
        )


def _start_text(ctx) -> str:
    """What the start line of a logged run says besides the counts: the data, the methods and
    grid, where the results go."""
    experiment = ctx.experiment
    n, d, _ = ctx.shape
    # each method at the r its cells have (the baseline at d, a reducer's max_r cuts the grid),
    # methods with the same r named together, in the experiment's order
    grids: dict[str, set[int]] = {entry.id or entry.name: set() for entry in experiment.reducers}
    for cell in ctx.record["expected_cells"]:
        grids.setdefault(cell["reducer"], set()).add(int(cell["r"]))  # a kind's own ids too
    together: dict[tuple[int, ...], list[str]] = {}
    for reducer, rs in grids.items():
        if rs:
            together.setdefault(tuple(sorted(rs)), []).append(reducer)
    methods = "; ".join(
        f"{', '.join(labels)} at r = {', '.join(map(str, rs))}" for rs, labels in together.items()
    )
    return (
        f"{experiment.dataset.name} ({n} x {d}), {methods}, {experiment.repeats} repetition"
        f"{'s' if experiment.repeats > 1 else ''}, {ctx.parallelism.workers} job"
        f"{'s' if ctx.parallelism.workers > 1 else ''} -> "
        f"{ctx.store.root}"
    )


#: joblib's warning when a generator of results is closed early (joblib.parallel).
_CANCELLED = r".*(tasks which were still being processed|have been successfully executed)"


def _as_completed(jobs: Iterable, workers: int, backend: str, deadlines=None) -> Iterator:
    """The results of ``jobs`` (joblib ``delayed`` calls) with the active backend (named
    ``backend``), each as soon as it is available.

    Under a time limit (``deadlines``), one worker (``workers=1``: the run's own process must not
    be the one stuck) and the multiprocessing backend compute in
    :func:`_in_killable_workers` instead, and dask and Ray run each job as a task of its own
    (:meth:`~kmdr.engine.deadlines.Deadlines.on_dask`,
    :meth:`~kmdr.engine.deadlines.Deadlines.on_ray`).

    Backends that stream results get ``return_as="generator_unordered"``; those that cannot
    (joblib's multiprocessing backend, Ray's) get the jobs in batches of a few per worker on one
    pool, so results still come back while the run goes on. ``jobs`` is consumed lazily.

    joblib's multiprocessing backend forks this process by default on Linux, and this process
    has threads (a progress ticker, a library's own pool): a child
    forked while one of them holds a lock waits for it forever, and the run with it. Its workers
    are spawned instead, a fresh interpreter each as loky's are, whose parent is still this
    process (the workers' watch on it holds). joblib takes the start method as a
    ``multiprocessing`` context given as ``Parallel``'s backend; the worker count and the
    memory-map settings stay the active ``parallel_config``'s.
    """
    from joblib import Parallel

    killable = backend not in CLUSTER_BACKENDS and (workers == 1 or backend == "multiprocessing")
    if deadlines is not None and deadlines.client is not None:
        yield from deadlines.on_dask(jobs)
        return
    if deadlines is not None and deadlines.ray:
        yield from deadlines.on_ray(jobs)
        return
    if deadlines is not None and killable:
        yield from _in_killable_workers(jobs, workers, deadlines)
        return
    try:
        parallel = Parallel(return_as="generator_unordered")
    except ValueError as err:
        if "return_as" not in str(err):
            raise
        parallel = None
    if parallel is not None:
        outputs = parallel(jobs)
        try:
            # not `yield from`, which would close outputs itself, outside the filter below
            for output in outputs:  # noqa: UP028
                yield output
        finally:
            # Closed before the end (a stop signal, a failed cell): joblib cancels the jobs still
            # running and warns that they were cancelled, which the run's own line already says.
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", _CANCELLED, UserWarning)
                outputs.close()
        return
    batch_size = max(1, 2 * workers)
    start = multiprocessing.get_context("spawn") if backend == "multiprocessing" else None
    with Parallel(return_as="list", backend=start) as pool:
        batch = []
        for job in jobs:
            batch.append(job)
            if len(batch) >= batch_size:
                yield from pool(batch)
                batch = []
        if batch:
            yield from pool(batch)


def _in_killable_workers(jobs: Iterable, workers: int, deadlines) -> Iterator:
    """The results of ``jobs`` from a loky process pool of ``workers`` workers started for the
    run, whose workers the run's process may kill (:class:`~kmdr.engine.deadlines.Deadlines`):
    the pool then breaks and says so (``BrokenProcessPool``). Python's multiprocessing pool
    would instead start a new worker and wait forever for the killed one's job. The workers are
    spawned with Ctrl-C blocked, as the loky backend's are; a job still running when the
    results are closed (a stop, an error) has its worker killed with the pool."""
    from concurrent.futures import as_completed

    from joblib.externals.loky import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=workers)
    try:
        with signals.sigint_blocked():
            futures = [pool.submit(func, *args, **kwargs) for func, args, kwargs in jobs]
        for future in as_completed(futures):
            yield future.result()
    finally:
        pool.shutdown(wait=True, kill_workers=True)
