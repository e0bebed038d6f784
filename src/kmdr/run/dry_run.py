"""``dry_run=true``: what a command would compute and reuse, and about how long it would take.

Nothing is written. The estimate comes from earlier cells of the same dataset and reducer found
in any experiment under the results folder: their mean reduction time without the shared work
and their mean clustering time per cell, plus their mean shared work once per shared work to
compute (once per key when it is deterministic, else once per (key, repetition)), divided by the
workers. The cells of a deterministic reducer that differ only in repetition are one job: one
reduction and one clustering per cell. Cells with no earlier run of their kind are counted as
"no estimate".
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pandas as pd

from kmdr._io import read_csv

__all__ = ["describe", "earlier_times"]


def earlier_times(results_dir: str | Path, dataset: str) -> dict[str, tuple[float, float, float]]:
    """``reducer_name -> (mean reduction seconds per cell without shared work, mean clustering
    seconds per cell, mean shared seconds)`` over the cells of ``dataset`` in every
    ``<results_dir>/*/cells.csv``."""
    frames = []
    for path in sorted(Path(results_dir).glob("*/cells.csv")):
        try:
            frame = read_csv(path, usecols=lambda c: c in _TIME_COLUMNS)
        except (OSError, ValueError):
            continue  # a file being rewritten or from another version: no estimate from it
        if set(_TIME_COLUMNS) <= set(frame.columns):
            frames.append(frame[frame["dataset"].astype(str) == dataset])
    if not frames:
        return {}
    cells = pd.concat(frames, ignore_index=True)
    shared_all = cells["shared_seconds"].fillna(0.0)
    cells["own_reduce"] = (cells["reduce_seconds"] - shared_all).clip(lower=0.0)
    out = {}
    for name, group in cells.groupby("reducer_name"):
        shared = group.loc[group["shared_seconds"] > 0, "shared_seconds"]
        out[str(name)] = (
            float(group["own_reduce"].mean()),
            float(group["cluster_seconds"].mean()),
            float(shared.mean()) if len(shared) else 0.0,
        )
    return out


_TIME_COLUMNS = ("dataset", "reducer_name", "reduce_seconds", "cluster_seconds", "shared_seconds")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def describe(ctx, kind) -> str:
    """The dry-run report of one run (a few lines)."""
    spec = ctx.spec
    head = f"[kmdr] dry run of {spec.name} ({spec.kind}) on {spec.dataset} {ctx.shape[:2]}:"
    if not getattr(kind, "writes_cells", False):
        return f"{head} one {spec.kind} computation, nothing reusable to count"
    cells = kind.plan(ctx)
    done = ctx.store.done_ids()
    todo = [c for c in cells if c.cell_id not in done]
    times = earlier_times(spec.results_dir, spec.dataset)
    per_reducer = Counter(c.reducer_id for c in todo)
    # One reduction per job (a deterministic reducer's repetitions are one job), one shared work
    # per (key, repetition), or per key when it is deterministic.
    # A shared work is counted once, for the first reducer that needs it (equal keys share it).
    jobs = defaultdict(set)
    shared_works = defaultdict(set)
    seen = set()
    for c in todo:
        jobs[c.reducer_id].add(c.group_key)
        if c.shared_key is not None and c.shared_ident not in seen:
            seen.add(c.shared_ident)
            shared_works[c.reducer_id].add(c.shared_ident)
    estimate, unknown = 0.0, 0
    lines = [head]
    for red in spec.reducers:
        n_todo = per_reducer.get(red.id, 0)
        n_all = sum(1 for c in cells if c.reducer_id == red.id)
        known = times.get(red.name)
        if known is None:
            unknown += n_todo
            note = "no earlier run to estimate from" if n_todo else ""
        else:
            reduce, cluster, shared = known
            n_reductions = len(jobs.get(red.id, ()))
            n_shared = len(shared_works.get(red.id, ()))
            seconds = n_reductions * reduce + n_todo * cluster + n_shared * shared
            estimate += seconds
            note = f"~{_duration(seconds)} of work" if n_todo else ""
        lines.append(
            f"  {red.id:<20} {n_todo:>5} to compute, {n_all - n_todo:>5} reused  {note}".rstrip()
        )
    total = f"{len(todo)} of {len(cells)} cells to compute ({len(cells) - len(todo)} reused)"
    if estimate:
        wall = estimate / max(1, ctx.parallelism.n_jobs)
        total += f"; about {_duration(wall)} with {ctx.parallelism.n_jobs} workers"
        if unknown:
            total += f", plus {unknown} cells with no estimate"
    elif todo:
        total += "; no earlier run of these reducers on this dataset to estimate the time from"
    lines.append(f"  total: {total}")
    return "\n".join(lines)
