"""``kind: cells``: the resumable, concurrency-safe sweep over (reducer, r, repetition) cells.

1. plan the cells (:func:`~kmdr.experiments.cells.plan_cells`) and skip those already on disk;
2. compute the r-independent work (``reducer.compute_shared``: SVD, leverage or Laplacian
   scores) once per (shared key, repetition), in parallel over keys; reducers with equal keys
   share it;
3. run the cells in parallel. A cell is *claimed* in the store just before it is handed to a
   worker (a lock the kernel drops if this process dies), so two runs sweeping into one folder
   at the same time never compute a cell twice: a cell the other run holds is left to it and
   waited for at the end (and taken over if that run dies). Each finished cell is written
   atomically as soon as it is back, and ``cells.csv`` is rebuilt every few seconds, so a killed
   run shows as incomplete, with what it finished.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from kmdr.experiments.cells import Cell, cell_row, identity_dicts, plan_cells
from kmdr.experiments.parallel import results_as_completed
from kmdr.experiments.provenance import now
from kmdr.experiments.seeds import shared_seed
from kmdr.experiments.work import cell_job, key_text, shared_job

__all__ = ["CELLS", "CellsKind"]

#: Seconds between two rebuilds of cells.csv while a run goes on.
CSV_EVERY = 5.0
#: Seconds between two looks at cells another run is computing.
WAIT_POLL = 0.5


class CellsKind:
    """The ``cells`` experiment kind (see the module docstring)."""

    name = "cells"
    writes_cells = True

    def plan(self, ctx) -> list[Cell]:
        return plan_cells(ctx.spec, ctx.X, ctx.n_clusters)

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
            ctx.log(
                f"[kmdr] {ctx.spec.name}: resuming, {outcome.n_reused} of {len(cells)} cells "
                f"already done ({store.cells_dir})"
            )
        ctx.save_record()
        try:
            shared = _compute_all_shared(ctx, pending)
            _run_cells(ctx, pending, shared, len(cells))
        finally:
            done_now = store.done_ids()
            ctx.record["cells_done"] = identity_dicts(c for c in cells if c.cell_id in done_now)
            ctx.record["n_cells_computed"] = outcome.n_computed
            ctx.record["n_cells_reused"] = outcome.n_reused
            store.rebuild_csv()


CELLS = CellsKind()


def _compute_all_shared(ctx, pending: list[Cell]) -> dict:
    """The shared works the pending cells need, keyed by (shared key, repetition)."""
    from joblib import delayed

    spec = ctx.spec
    needed: dict[tuple, Cell] = {}
    for cell in pending:
        if cell.shared_key is not None:
            needed.setdefault((cell.shared_key, cell.repetition), cell)
    if not needed:
        ctx.record["shared_work"] = []
        return {}
    jobs = [
        delayed(shared_job)(
            ident,
            cell.reducer_name,
            cell.params,
            cell.r,
            ctx.n_clusters,
            ctx.X,
            shared_seed(spec.seed, spec.dataset, ident[0], ident[1]),
            ctx.parallelism.blas_threads,
            os.getpid(),
        )
        for ident, cell in needed.items()
    ]
    bar = ctx.progress(len(jobs), 0, f"{spec.name}: shared work", "task")
    out = {}
    try:
        for ident, work in results_as_completed(jobs, ctx.parallelism.n_jobs):
            out[ident] = work
            bar.update(1)
    finally:
        bar.close()
    ctx.record["shared_work"] = [
        {"key": key_text(key), "repetition": rep, "seconds": w.seconds}
        for (key, rep), w in sorted(out.items(), key=lambda kv: (repr(kv[0][0]), kv[0][1]))
    ]
    return out


class _Claimer:
    """Hands cells to the workers one at a time, claiming each first; remembers the cells another
    run holds (``deferred``) and releases what it claimed."""

    def __init__(self, store):
        self.store = store
        self.claims: dict[str, object] = {}
        self.deferred: list[Cell] = []

    def adopt(self, cell: Cell, claim) -> None:
        """Hold ``claim`` (taken by a blocking wait) for ``cell``."""
        self.claims[cell.cell_id] = claim

    def claimed(self, cells: list[Cell]):
        for cell in cells:
            if cell.cell_id in self.claims:  # adopted after a wait
                yield cell
                continue
            claim = self.store.try_claim(cell.cell_id)
            if claim is None:  # done meanwhile, or another run is computing it
                self.deferred.append(cell)
                continue
            self.claims[cell.cell_id] = claim
            yield cell

    def release(self, cell_id: str) -> None:
        claim = self.claims.pop(cell_id, None)
        if claim is not None:
            claim.release()

    def release_all(self) -> None:
        for cell_id in list(self.claims):
            self.release(cell_id)


def _run_cells(ctx, pending: list[Cell], shared: dict, total: int) -> None:
    """Run the pending cells; persist each as it comes back (``outcome.n_computed`` counts)."""
    from joblib import delayed

    from kmdr.metrics import ObjectiveEvaluator

    store, spec, par = ctx.store, ctx.spec, ctx.parallelism
    claimer = _Claimer(store)
    # ||A||^2 and the centered A, once for every cell (F is scored on the original data).
    objective = ObjectiveEvaluator(ctx.X) if pending else None
    bar = ctx.progress(total, ctx.outcome.n_reused, f"{spec.name}: cells", "cell")
    last_csv = [float("-inf")]  # the first finished cell makes cells.csv at once

    def job(cell: Cell):
        work = shared.get((cell.shared_key, cell.repetition)) if cell.shared_key else None
        return delayed(cell_job)(
            cell, ctx.X, ctx.y, ctx.n_clusters, work, objective, par.blas_threads, os.getpid()
        )

    def persist(cell: Cell, metrics: dict) -> None:
        run = {
            "n_jobs": par.n_jobs,
            "blas_threads": par.blas_threads,
            "run_id": ctx.outcome.run_id,
            "finished_at": now(),
        }
        row = cell_row(cell, metrics, experiment=spec.name, shape=ctx.shape, run=run)
        store.write_cell(cell.cell_id, row)
        claimer.release(cell.cell_id)
        ctx.outcome.n_computed += 1
        bar.update(1)
        if time.monotonic() - last_csv[0] >= CSV_EVERY:
            store.rebuild_csv()
            last_csv[0] = time.monotonic()

    try:
        todo = pending
        while todo:
            jobs = (job(cell) for cell in claimer.claimed(todo))
            for cell, metrics in results_as_completed(jobs, par.n_jobs):
                persist(cell, metrics)
            todo = _wait_for_others(ctx, claimer, bar)
    finally:
        claimer.release_all()
        bar.close()


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
        ctx.log(
            f"[kmdr] {ctx.spec.name}: waiting for {len(waiting)} cells another run is "
            f"computing in {store.cells_dir}"
        )
    for i, cell in enumerate(waiting):
        claim = store.try_claim(cell.cell_id, block=True)
        if claim is None:  # the other run wrote it
            ctx.outcome.n_reused += 1
            bar.update(1)
            continue
        claimer.adopt(cell, claim)  # the other run died: this one computes it
        return waiting[i:]
    return []


def progress_bar(enabled: bool) -> Callable:
    """A factory of tqdm bars (disabled ones when ``enabled`` is false)."""

    def make(total, initial, desc, unit):
        from tqdm.auto import tqdm

        return tqdm(
            mininterval=0.5,
            total=total,
            initial=initial,
            desc=desc,
            unit=unit,
            disable=not enabled,
            dynamic_ncols=True,
            smoothing=0.1,
        )

    return make
