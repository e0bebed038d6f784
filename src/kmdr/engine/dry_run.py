"""``dry_run=true``: what a command would compute and reuse, and about how long it would take.

Nothing is written. The estimate comes from earlier cells of the same dataset and reducer found
in any experiment under the results folder: their mean reduction time without the shared work,
plus their mean shared work once per shared work to compute (once per key when it is
deterministic, else once per (key, repetition)), and their clustering time per k-means start
times the starts asked for (``kmeans.n_init``), read from the earlier cells of the same k-means
protocol (its start and whether MATLAB's online phase runs, which alone can make a start a
hundred times slower) where there are some, else from all of them; the total is divided by the
workers. The cells of a deterministic reducer that differ only in repetition are one job: one
reduction and one clustering per cell. Cells with no earlier run of their kind are counted as
"no estimate". To that is added the run's own start (its workers, the data on their way to
them), which outweighs the cells of a small run: the median of what the earlier runs of the same
backend recorded in the results folder took before their first cell (``start_seconds``).

A results folder with no earlier cell of the dataset (a run into an empty folder) is estimated
from the committed record instead (:func:`committed_results`: the checkout's ``results/``, whose
cells time every paper preset), from the cells of the same dataset with the same parameters, and
the total says so.
"""

from __future__ import annotations

import contextlib
import json
import math
import statistics
from collections import Counter, defaultdict
from pathlib import Path
from types import SimpleNamespace

from kmdr.engine.progress import duration_text
from kmdr.results.records import read_table

_TIME_COLUMNS = ("dataset", "reducer_name", "reduce_seconds", "cluster_seconds", "shared_seconds")


def earlier_times(
    results_dir: str | Path,
    dataset: str,
    protocol: tuple[str, bool] | None = None,
    params: dict | None = None,
) -> dict[str, tuple[float, float, float]]:
    """``reducer_name -> (mean reduction seconds per cell without shared work, mean clustering
    seconds per k-means start, mean shared seconds)`` over the cells of ``dataset`` in every
    ``<results_dir>/*/cells.csv`` (read as the store parses it, as texts); the clustering times
    from the cells of k-means ``protocol`` (its start, whether the online phase ran) when there
    are some for that reducer; only the cells of the dataset's parameters ``params`` when given
    (another record's cells of another size say nothing of this one's)."""
    tables = []
    for path in sorted(Path(results_dir).glob("*/cells.csv")):
        try:
            table = read_table(path)  # a FIFO in its place is an OSError, not a wait
        except (OSError, ValueError):  # ValueError: not a cells.csv
            continue
        if set(_TIME_COLUMNS) <= set(table.columns):  # else: no estimate from it
            table = table[table["dataset"] == dataset]
            if params is not None:
                given = table.get("dataset_params", table["dataset"].map(lambda _: "{}"))
                table = table[given.map(lambda text: _parameters(text) == params)]
            if len(table):  # pandas leaves an empty table's columns out of the concatenation
                tables.append(table)
    if not tables:  # a folder with no cells yet: pandas is not even imported
        return {}
    import pandas as pd

    rows = pd.concat(tables, ignore_index=True)

    def number(column: str) -> pd.Series:
        # an empty field (no shared work) is 0, and so is a time no run can take (negative,
        # NaN, infinite: a hand-edited row), so that no estimate is ever negative
        values = pd.to_numeric(rows.get(column, pd.Series(index=rows.index)), errors="coerce")
        return values.where(values.gt(0) & values.lt(math.inf), 0.0)

    shared = number("shared_seconds")
    times = pd.DataFrame({"own": (number("reduce_seconds") - shared).clip(lower=0.0),
                          "start": number("cluster_seconds") / number("kmeans_n_init").clip(1),
                          "shared": shared.where(shared > 0)})  # fmt: skip
    if protocol is not None:  # the start, and the online phase (absent: it did not run)
        init = rows.get("kmeans_init", pd.Series("", rows.index)).fillna("")
        online = rows.get("kmeans_online_phase", pd.Series("", rows.index)).fillna("")
        same = (init == protocol[0]) & (online.str.lower().eq("true") == protocol[1])
        times["same"] = times["start"].where(same)
    columns = ["own", "start", "shared", "same"]
    means = times.groupby(rows["reducer_name"]).mean().reindex(columns=columns)
    return {
        str(name): (
            m.own,
            m.start if pd.isna(m.same) else m.same,
            0.0 if pd.isna(m.shared) else m.shared,
        )
        for name, m in means.iterrows()
    }


def _parameters(text) -> dict | None:
    """A cell's ``dataset_params`` (a JSON text) as a dict; None when it is not one."""
    try:
        value = json.loads(text or "{}")
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def committed_results(results_dir: str | Path) -> Path | None:
    """The committed record to estimate from when ``results_dir`` holds nothing to: the
    ``results`` folder of the start folder (a checkout's root, the default ``results_dir``),
    else the one beside kmdr's configs in a checkout (``conf/``'s sibling); None when neither
    exists (an installed kmdr without a checkout) or it is ``results_dir`` itself."""
    from kmdr.config.errors import ConfigError
    from kmdr.config.presets import conf_dir
    from kmdr.config.schema import Output

    candidates = [Path(Output.results_dir)]
    with contextlib.suppress(ConfigError):  # no configs found: the run itself says so
        candidates.append(conf_dir().parent / Output.results_dir)
    own = Path(results_dir).resolve()
    for folder in candidates:
        if folder.is_dir() and folder.resolve() != own:
            return folder
    return None


def recorded_seconds_per_cell(ctx, name: str) -> tuple[float, str] | None:
    """The wall seconds per computed cell of experiment ``name``'s recorded runs (their
    ``wall_seconds`` over their ``n_cells_computed``), in the run's own results folder, else in
    the committed record (:func:`committed_results`), with the folder read; None when no run of
    it computed a cell there. Those runs ran on the workers they recorded: an estimate for a
    run of the same settings on a like machine."""
    from kmdr.results.runs import load_runs

    own = Path(ctx.output.results_dir)
    for folder in (own, committed_results(own)):
        if folder is None or not (folder / name).is_dir():
            continue
        runs = load_runs(folder / name, say=lambda _: None)
        done = [(r.get("wall_seconds"), r.get("n_cells_computed")) for r in runs]
        done = [(float(w), int(n)) for w, n in done if isinstance(w, int | float) and n]
        if done:
            return sum(w for w, _ in done) / sum(n for _, n in done), f"{folder}/{name}/"
    return None


def earlier_start(results_dir: str | Path, backend: str) -> float | None:
    """The median of ``start_seconds`` over the run records of ``backend`` in every experiment
    folder of ``results_dir`` (None when none recorded it)."""
    from kmdr.results.runs import experiment_dirs, load_runs

    starts = [
        float(run["start_seconds"])
        for folder in experiment_dirs(results_dir)
        for run in load_runs(folder, say=lambda _: None)
        if run.get("backend") == backend
        and isinstance(run.get("start_seconds"), int | float)
        and math.isfinite(run["start_seconds"])
        and run["start_seconds"] >= 0
    ]
    return statistics.median(starts) if starts else None


def describe(ctx, kind) -> str:
    """The dry-run report of one run (a few lines)."""
    spec = ctx.experiment
    head = (
        f"[kmdr] dry run of {spec.name} ({spec.kind}) on {spec.dataset.name} {ctx.shape[:2]} -> "
        f"{ctx.store.root}:"
    )
    if not getattr(kind, "writes_cells", False):
        return f"{head} one {spec.kind} computation, nothing reusable to count"
    cells = kind.plan(ctx)
    done = ctx.store.done_ids()
    todo = [c for c in cells if c.cell_id not in done]
    # Earlier runs are read only to estimate work to do (every results folder's cells.csv).
    km = spec.kmeans
    protocol = (km.init, bool(km.online_phase))
    source = Path(ctx.output.results_dir)
    times = earlier_times(source, spec.dataset.name, protocol) if todo else {}
    if todo and not times and (committed := committed_results(source)) is not None:
        # nothing to estimate from in the run's own folder (a run into an empty one): the
        # committed record's cells and runs of the same dataset and reducers
        source = committed
        params = json.loads(json.dumps(dict(spec.dataset.params), default=str))
        times = earlier_times(source, spec.dataset.name, protocol, params)
    per_reducer = Counter(c.method_id for c in todo)
    # One reduction per job (a deterministic reducer's repetitions are one job), one shared work
    # per (key, repetition), or per key when it is deterministic.
    # A shared work is counted once, for the first reducer that needs it (equal keys share it).
    jobs = defaultdict(set)
    shared_works = defaultdict(set)
    seen = set()
    for c in todo:
        jobs[c.method_id].add(c.group_key)
        if c.shared_key is not None and c.shared_ident not in seen:
            seen.add(c.shared_ident)
            shared_works[c.method_id].add(c.shared_ident)
    estimate, unknown = 0.0, 0
    lines = [head]
    methods = list(spec.reducers)
    if {c.method_id for c in cells} - {red.id for red in methods}:  # a kind's own: no estimate
        methods = [
            SimpleNamespace(id=i, name=None) for i in dict.fromkeys(c.method_id for c in cells)
        ]
    width = max(20, *(len(red.id) for red in methods))  # the ids in one column
    for red in methods:
        n_todo = per_reducer.get(red.id, 0)
        n_all = sum(1 for c in cells if c.method_id == red.id)
        known = times.get(red.name)
        if known is None:
            unknown += n_todo
            note = "no earlier run to estimate from" if n_todo else ""
        else:
            reduce, per_start, shared = known
            n_reductions = len(jobs.get(red.id, ()))
            n_shared = len(shared_works.get(red.id, ()))
            cluster = per_start * km.n_init
            seconds = n_reductions * reduce + n_todo * cluster + n_shared * shared
            estimate += seconds
            note = f"~{duration_text(seconds)} of work" if n_todo else ""
        counts = f"{n_todo:>5} to compute, {n_all - n_todo:>5} reused"
        lines.append(f"  {red.id:<{width}} {counts}  {note}".rstrip())
    total = f"{len(todo)} of {len(cells)} cells to compute ({len(cells) - len(todo)} reused)"
    if estimate:
        wall = estimate / max(1, ctx.parallelism.workers)
        start = earlier_start(source, ctx.execution.backend)
        wall += start or 0.0
        # a short run in tenths of a second: "about 0 s" would say nothing
        said = f"{wall:.1f} s" if wall < 10 else duration_text(wall)
        total += f"; about {said} with {ctx.parallelism.workers} workers"
        if source != Path(ctx.output.results_dir):
            total += f" (from the committed runs in {source}/: this folder holds none to go by)"
        if start is None:
            total += " (and the run's start, which no earlier run here recorded)"
        if unknown:
            total += f", plus {unknown} cells with no estimate"
    elif todo and (per_cell := recorded_seconds_per_cell(ctx, spec.name)) is not None:
        # no cell-level estimate (a kind's own methods): the experiment's recorded runs
        seconds, where = per_cell
        wall = seconds * len(todo)
        said = f"{wall:.1f} s" if wall < 10 else duration_text(wall)
        total += f"; about {said}, at the wall time per cell of this experiment's runs in {where}"
    elif todo:
        total += "; no earlier run of these reducers on this dataset to estimate the time from"
    lines.append(f"  total: {total}")
    return "\n".join(lines)
