"""``dry_run=true``: what a command would compute and reuse, and about how long it would take.

Nothing is written. The estimate comes from earlier cells of the same dataset and reducer found
in any experiment under the results folder: their mean time per cell without the shared work,
plus their mean shared work once per (shared key, repetition), divided by the workers. Cells
with no earlier run of their kind are counted as "no estimate".
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pandas as pd

from kmdr._io import read_csv

__all__ = ["describe", "earlier_times"]


def earlier_times(results_dir: str | Path, dataset: str) -> dict[str, tuple[float, float]]:
    """``reducer_name -> (mean seconds per cell without shared work, mean shared seconds)`` over
    the cells of ``dataset`` in every ``<results_dir>/*/cells.csv``."""
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
    cells["own"] = cells["total_seconds"] - cells["shared_seconds"].fillna(0.0)
    out = {}
    for name, group in cells.groupby("reducer_name"):
        shared = group.loc[group["shared_seconds"] > 0, "shared_seconds"]
        out[str(name)] = (float(group["own"].mean()), float(shared.mean()) if len(shared) else 0.0)
    return out


_TIME_COLUMNS = ("dataset", "reducer_name", "total_seconds", "shared_seconds")


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
    shared_keys = defaultdict(set)
    for c in todo:
        if c.shared_key is not None:
            shared_keys[c.reducer_name].add((c.shared_key, c.repetition))
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
            own, shared = known
            seconds = n_todo * own + len(shared_keys.get(red.name, ())) * shared
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
