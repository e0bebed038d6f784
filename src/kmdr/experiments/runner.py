"""The experiment runner: a resumable joblib sweep over (reducer, r, repetition) cells.

One run of an :class:`~kmdr.experiments.spec.ExperimentSpec`:

1. load the data and check the r-grid against its shape (nothing is written before this);
2. plan the cells, and skip those whose file already exists under ``cells/`` (resume); a cell's
   id hashes everything that changes its numbers (dataset and its params, reducer id, name and
   params, r, repetition, base seed, k-means settings);
3. compute the r-independent work (``reducer.compute_shared``: SVD, leverage or Laplacian
   scores) once per (shared key, repetition), in parallel over keys; reducers with equal keys
   share it (exact leverage sampling and exact SVD features read one thin SVD);
4. run the cells in parallel (joblib; ``n_jobs`` and the backend from the config, BLAS threads
   limited per worker with threadpoolctl); each cell reduces, clusters, evaluates the partition
   on the ORIGINAL A and in the reduced space, and is persisted atomically as soon as it is back;
   the ``none`` reducer (k-means on all of A) is one cell per repetition (r = d);
5. rebuild ``cells.csv`` from the cell files, write the run's sidecar, then the summaries and
   figures (a failure there is reported and never loses the CSV).

A cell's ``reduce_seconds`` is its shared work's measured seconds plus its own fit + transform
time: what a user running that cell alone would see. ``shared_seconds`` and ``shared_key`` say
which part was shared.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import json
import os
import platform
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from kmdr._git import code_revision
from kmdr.experiments.seeds import (
    cell_seed,
    shared_random_state,
    shared_seed,
    stable_digest,
    stream_seeds,
)
from kmdr.experiments.spec import ExperimentSpec, ReducerSpec, check_against_data
from kmdr.experiments.store import (
    METRIC_COLUMNS,
    CellStore,
    atomic_write_text,
    expected_cell_dicts,
)

__all__ = ["Cell", "RunOutcome", "compute_cell", "plan_cells", "run_experiment"]

#: Bump when a change to the runner changes the numbers a cell produces (invalidates caches).
CELL_FORMAT = 1


@dataclass(frozen=True)
class Cell:
    """One (reducer, r, repetition) of an experiment."""

    dataset: str
    reducer_id: str
    reducer_name: str
    label: str
    params: dict
    r: int
    repetition: int
    seed: int
    cell_id: str
    shared_key: tuple | None = None


@dataclass
class RunOutcome:
    """What a run did (returned by :func:`run_experiment`)."""

    experiment: str
    experiment_dir: Path
    run_id: str
    skipped: str | None = None
    n_expected: int = 0
    n_computed: int = 0
    n_reused: int = 0
    wall_seconds: float = 0.0
    messages: list[str] = field(default_factory=list)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


def cell_identity(spec: ExperimentSpec, red: ReducerSpec, r: int, repetition: int) -> dict:
    """Everything that changes a cell's numbers (its id is a hash of this)."""
    return {
        "format": CELL_FORMAT,
        "dataset": spec.dataset,
        "dataset_params": spec.dataset_params,
        "reducer": red.id,
        "reducer_name": red.name,
        "reducer_params": red.params,
        "r": int(r),
        "repetition": int(repetition),
        "base_seed": spec.seed,
        "kmeans": {
            "n_init": spec.kmeans.n_init,
            "max_iter": spec.kmeans.max_iter,
            "init": spec.kmeans.init,
            "tol": spec.kmeans.tol,
        },
    }


def plan_cells(spec: ExperimentSpec, X, n_clusters: int) -> list[Cell]:
    """All cells of ``spec`` on data ``X`` (n x d) with k = ``n_clusters``, expensive ones first.

    The ``none`` reducer ignores the r-grid: one cell per repetition with r = d.
    """
    from kmdr.reducers import make_reducer

    n_features = X.shape[1]
    cells: list[Cell] = []
    for red in spec.reducers:
        grid = (n_features,) if red.name == "none" else spec.r_grid
        params, k = _reducer_kwargs(red.params, n_clusters)
        key = make_reducer(red.name, grid[0], n_clusters=k, **params).shared_key(X)
        for rep in range(spec.repeats):
            for r in grid:
                cid = stable_digest(cell_identity(spec, red, r, rep))[:24]
                cells.append(
                    Cell(
                        dataset=spec.dataset,
                        reducer_id=red.id,
                        reducer_name=red.name,
                        label=red.label,
                        params=dict(red.params),
                        r=int(r),
                        repetition=rep,
                        seed=cell_seed(spec.seed, spec.dataset, red.id, r, rep),
                        cell_id=cid,
                        shared_key=None if key is None else tuple(key),
                    )
                )
    # Longest first (full-space k-means, then large r) so that workers finish together; the
    # order never changes a cell's numbers.
    cells.sort(key=lambda c: (c.reducer_name != "none", -c.r, c.repetition))
    return cells


def _key_str(key: tuple | None) -> str:
    return "" if key is None else "/".join(str(part) for part in key)


# -- work done in the workers (module-level functions: picklable) ---------------------------


def _reducer_kwargs(params: dict, n_clusters: int) -> tuple[dict, int]:
    params = dict(params)
    k = params.pop("n_clusters", n_clusters)
    return params, k


_LIMITED: dict[int, int] = {}  # pid -> BLAS threads applied in that worker process


def limit_blas_threads(threads: int | None, parent_pid: int) -> None:
    """Limit BLAS/OpenMP threads of this worker process to ``threads``, once per process.

    threadpoolctl's context manager costs ~10 ms per call (it scans the loaded libraries), more
    than a small cell, so a worker process applies the limit once and keeps it. The parent
    process (sequential and threading backends) is limited by :func:`run_experiment` around the
    whole run instead, and restored after it.
    """
    pid = os.getpid()
    if threads is None or pid == parent_pid or _LIMITED.get(pid) == threads:
        return
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=threads)
    _LIMITED[pid] = threads


def compute_shared_work(name: str, params: dict, r: int, n_clusters: int, X, seed: int):
    """``reducer.compute_shared`` for one (shared key, repetition), seeded by ``seed``."""
    from kmdr.reducers import make_reducer

    params, k = _reducer_kwargs(params, n_clusters)
    state = shared_random_state(seed)
    red = make_reducer(name, r, n_clusters=k, random_state=state, **params)
    return red.compute_shared(X, random_state=state)


def compute_cell(cell: Cell, X, y, n_clusters: int, kmeans_spec, shared=None) -> dict:
    """Reduce, cluster and evaluate one cell; return its metric and timing columns.

    ``shared`` is the cell's :class:`~kmdr.reducers.SharedWork` (None: the reducer computes its
    r-independent work itself, and that time is part of the measured fit). The partition is
    evaluated on the ORIGINAL ``X`` (``objective``) and on C (``objective_reduced``).
    """
    from kmdr.cluster import kmeans
    from kmdr.metrics import ari, clustering_accuracy, kmeans_objective, nmi
    from kmdr.reducers import make_reducer

    red_seed, km_seed = stream_seeds(cell.seed)
    params, k = _reducer_kwargs(cell.params, n_clusters)
    reducer = make_reducer(cell.reducer_name, cell.r, n_clusters=k, random_state=red_seed, **params)
    start = time.perf_counter()
    C = reducer.fit_transform(X, shared=shared)
    own = time.perf_counter() - start
    shared_seconds = float(shared.seconds) if shared is not None else 0.0
    start = time.perf_counter()
    result = kmeans(
        C,
        n_clusters,
        n_init=kmeans_spec.n_init,
        max_iter=kmeans_spec.max_iter,
        init=kmeans_spec.init,
        tol=kmeans_spec.tol,
        random_state=km_seed,
    )
    cluster_seconds = time.perf_counter() - start
    labels = result.labels
    reduce_seconds = shared_seconds + own
    return {
        "objective": kmeans_objective(X, labels),
        "objective_reduced": kmeans_objective(C, labels),
        "accuracy": clustering_accuracy(y, labels),
        "nmi": nmi(y, labels),
        "ari": ari(y, labels),
        "n_iter": int(result.n_iter),
        "converged": bool(result.converged),
        "shared_seconds": shared_seconds,
        "shared_key": _key_str(shared.key) if shared is not None else "",
        "reduce_seconds": reduce_seconds,
        "cluster_seconds": cluster_seconds,
        "total_seconds": reduce_seconds + cluster_seconds,
    }


def _cell_job(cell, X, y, n_clusters, kmeans_spec, shared, threads, parent_pid):
    limit_blas_threads(threads, parent_pid)
    return cell, compute_cell(cell, X, y, n_clusters, kmeans_spec, shared)


def _shared_job(ident, name, params, r, n_clusters, X, seed, threads, parent_pid):
    limit_blas_threads(threads, parent_pid)
    return ident, compute_shared_work(name, params, r, n_clusters, X, seed)


# -- the run -----------------------------------------------------------------------------------


def resolve_parallelism(spec: ExperimentSpec) -> tuple[int, int]:
    """(n_jobs, BLAS threads per worker) the run will use."""
    import joblib

    cores = joblib.cpu_count()
    n_jobs = spec.n_jobs if spec.n_jobs > 0 else max(1, cores + 1 + spec.n_jobs)
    threads = spec.blas_threads or max(1, cores // n_jobs)
    return n_jobs, threads


def _versions() -> dict:
    out = {"python": platform.python_version(), "platform": platform.platform()}
    for mod in (
        "kmdr",
        "numpy",
        "scipy",
        "sklearn",
        "pandas",
        "joblib",
        "threadpoolctl",
        "hydra",
        "omegaconf",
        "matplotlib",
    ):
        try:
            out[mod] = importlib.import_module(mod).__version__
        except Exception:  # a missing optional package is just not recorded
            out[mod] = None
    try:
        from threadpoolctl import threadpool_info

        out["blas"] = [
            {k: i.get(k) for k in ("internal_api", "version", "num_threads")}
            for i in threadpool_info()
        ]
    except Exception:
        pass
    return out


def _new_run_id() -> str:
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{uuid.uuid4().hex[:6]}"


def _load(spec: ExperimentSpec):
    from kmdr.datasets import load_dataset

    return load_dataset(spec.dataset, data_dir=spec.data_dir, **spec.dataset_params)


def prepare_data(X):
    """X as float64 (CSR when sparse), once, so workers do not each convert it."""
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        return X if X.dtype == np.float64 else X.astype(np.float64)
    X = np.asarray(X)
    return X if X.dtype == np.float64 else X.astype(np.float64)


def _register_backend(spec: ExperimentSpec) -> None:
    if not spec.backend_register:
        return
    module, _, func = spec.backend_register.partition(":")
    getattr(importlib.import_module(module), func)()


def run_experiment(
    spec: ExperimentSpec,
    *,
    dataset=None,
    config: dict | None = None,
    log: Callable[[str], None] | None = None,
) -> RunOutcome:
    """Run (or resume) ``spec``; see the module docstring.

    ``dataset``: an already loaded :class:`kmdr.datasets.Dataset` (default: load it), or the
    :class:`~kmdr.datasets.DatasetUnavailable` its loading raised. ``config``:
    the full resolved config to record in the sidecar (default: the spec). ``log``: where
    one-line messages go (default: stderr).

    Raises :class:`~kmdr.experiments.spec.ConfigError` before writing anything when the r-grid
    does not fit the data. A dataset that cannot be obtained is not an error: the outcome's
    ``skipped`` holds the reason and the sidecar records it.
    """
    import joblib
    from threadpoolctl import threadpool_limits

    from kmdr.datasets import DatasetUnavailable

    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    exp_dir = Path(spec.results_dir) / spec.name
    run_id = _new_run_id()
    outcome = RunOutcome(spec.name, exp_dir, run_id)
    started = time.perf_counter()
    n_jobs, threads = resolve_parallelism(spec)
    sidecar = {
        "experiment": spec.name,
        "run_id": run_id,
        "kind": spec.kind,
        "status": "running",
        "started_at": _now(),
        "finished_at": None,
        "config": config if config is not None else spec.to_dict(),
        "spec": spec.to_dict(),
        "versions": _versions(),
        "cpu_count": joblib.cpu_count(),
        "os_cpu_count": os.cpu_count(),
        "n_jobs": n_jobs,
        "blas_threads": threads,
        "backend": spec.backend,
        "git": code_revision(),
        "argv": sys.argv,
        "skipped": None,
    }
    store = CellStore(exp_dir)

    try:
        if isinstance(dataset, DatasetUnavailable):  # the caller already tried to load it
            raise dataset
        if dataset is None:
            dataset = _load(spec)
    except DatasetUnavailable as err:
        reason = " ".join(str(err).split())
        outcome.skipped = reason
        sidecar.update(
            status="skipped",
            skipped=reason,
            finished_at=_now(),
            expected_cells=[],
            cells_done=[],
        )
        store.write_sidecar(run_id, sidecar)
        return outcome
    X = prepare_data(dataset.X)
    y = np.asarray(dataset.y)
    n, d = X.shape
    k = int(dataset.n_clusters)
    check_against_data(spec, n, d, k)  # raises ConfigError before anything is written
    sidecar["dataset"] = {
        "name": spec.dataset,
        "params": spec.dataset_params,
        "n_samples": n,
        "n_features": d,
        "n_clusters": k,
        "sparse": bool(sp.issparse(X)),
        "description": getattr(dataset, "description", ""),
    }

    if spec.kind == "leverage_scores":
        from kmdr.experiments.leverage_scores import run_leverage_scores

        return run_leverage_scores(spec, dataset, X, store, sidecar, outcome, threads, log)

    cells = plan_cells(spec, X, k)
    sidecar["expected_cells"] = expected_cell_dicts(cells)
    sidecar["cells_done"] = []
    store.root.mkdir(parents=True, exist_ok=True)
    store.clean_temporaries()
    done = store.done_ids()
    pending = [c for c in cells if c.cell_id not in done]
    outcome.n_expected = len(cells)
    outcome.n_reused = len(cells) - len(pending)
    if outcome.n_reused:
        store.rebuild_csv()  # a previous run may have been killed before rebuilding it
        log(
            f"[kmdr] {spec.name}: resuming, {outcome.n_reused} of {len(cells)} cells already "
            f"done ({exp_dir / 'cells'})"
        )
    store.write_sidecar(run_id, sidecar)

    _register_backend(spec)
    status = "failed"
    try:
        with (
            threadpool_limits(limits=threads),
            joblib.parallel_config(backend=spec.backend, n_jobs=n_jobs, **spec.backend_params),
        ):
            shared = _compute_all_shared(spec, pending, X, k, threads, sidecar)
            _run_cells(spec, pending, X, y, k, shared, threads, n_jobs, store, outcome, len(cells))
        status = "complete"
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    except Exception as err:
        sidecar["error"] = f"{type(err).__name__}: {' '.join(str(err).split())}"
        raise
    finally:
        done_now = store.done_ids()
        sidecar["cells_done"] = expected_cell_dicts(c for c in cells if c.cell_id in done_now)
        sidecar["n_cells_computed"] = outcome.n_computed
        sidecar["n_cells_reused"] = outcome.n_reused
        outcome.wall_seconds = time.perf_counter() - started
        sidecar.update(status=status, finished_at=_now(), wall_seconds=outcome.wall_seconds)
        store.rebuild_csv()
        store.write_sidecar(run_id, sidecar)
    if spec.figures:
        outcome.messages += draw(exp_dir, log)
    return outcome


def _compute_all_shared(spec, pending, X, k, threads, sidecar) -> dict:
    """The shared works the pending cells need, keyed by (shared key, repetition)."""
    from joblib import Parallel, delayed

    needed: dict[tuple, Cell] = {}
    for cell in pending:
        if cell.shared_key is not None:
            needed.setdefault((cell.shared_key, cell.repetition), cell)
    if not needed:
        sidecar["shared_work"] = []
        return {}
    jobs = [
        delayed(_shared_job)(
            ident,
            cell.reducer_name,
            cell.params,
            cell.r,
            k,
            X,
            shared_seed(spec.seed, spec.dataset, ident[0], ident[1]),
            threads,
            os.getpid(),
        )
        for ident, cell in needed.items()
    ]
    bar = _progress(spec, len(jobs), 0, f"{spec.name}: shared work", "task")
    out = {}
    try:
        for ident, work in Parallel(return_as="generator_unordered")(jobs):
            out[ident] = work
            bar.update(1)
    finally:
        bar.close()
    sidecar["shared_work"] = [
        {"key": _key_str(key), "repetition": rep, "seconds": w.seconds}
        for (key, rep), w in sorted(out.items(), key=lambda kv: (repr(kv[0][0]), kv[0][1]))
    ]
    return out


def _run_cells(spec, pending, X, y, k, shared, threads, n_jobs, store, outcome, total) -> None:
    """Run the pending cells; persist each as it comes back (``outcome.n_computed`` counts)."""
    from joblib import Parallel, delayed

    jobs = [
        delayed(_cell_job)(
            cell,
            X,
            y,
            k,
            spec.kmeans,
            shared.get((cell.shared_key, cell.repetition)) if cell.shared_key else None,
            threads,
            os.getpid(),
        )
        for cell in pending
    ]
    n, d = X.shape
    bar = _progress(spec, total, outcome.n_reused, f"{spec.name}: cells", "cell")
    try:
        for cell, metrics in Parallel(return_as="generator_unordered")(jobs):
            row = _row(spec, cell, metrics, n, d, k, n_jobs, threads, outcome.run_id)
            store.write_cell(cell.cell_id, row)
            outcome.n_computed += 1
            bar.update(1)
    finally:
        bar.close()


def _row(spec, cell: Cell, metrics: dict, n, d, k, n_jobs, threads, run_id) -> dict:
    row = {
        "experiment": spec.name,
        "dataset": cell.dataset,
        "reducer": cell.reducer_id,
        "reducer_name": cell.reducer_name,
        "method": cell.label,
        "r": cell.r,
        "repetition": cell.repetition,
        "seed": cell.seed,
        "n_samples": n,
        "n_features": d,
        "n_clusters": k,
        "reducer_params": json.dumps(cell.params, sort_keys=True),
        "kmeans_init": spec.kmeans.init,
        "kmeans_n_init": spec.kmeans.n_init,
        "kmeans_max_iter": spec.kmeans.max_iter,
    }
    row.update({key: metrics[key] for key in METRIC_COLUMNS})
    row.update(
        n_jobs=n_jobs,
        blas_threads=threads,
        converged=metrics["converged"],
        kmeans_tol=spec.kmeans.tol,
        dataset_params=json.dumps(spec.dataset_params, sort_keys=True),
        base_seed=spec.seed,
        cell_id=cell.cell_id,
        run_id=run_id,
        finished_at=_now(),
    )
    return row


def _progress(spec, total, initial, desc, unit):
    from tqdm.auto import tqdm

    return tqdm(
        mininterval=0.5,
        total=total,
        initial=initial,
        desc=desc,
        unit=unit,
        disable=not spec.progress,
        dynamic_ncols=True,
        smoothing=0.1,
    )


def draw(experiment_dir: Path, log: Callable[[str], None]) -> list[str]:
    """Write the summaries and figures of ``experiment_dir``; report, never raise, on failure."""
    import logging

    # matplotlib's PDF backend subsets fonts with fontTools, which logs every glyph at INFO: keep
    # that out of the run's output even when a caller (Hydra's multirun) configured INFO logging.
    logging.getLogger("fontTools").setLevel(logging.WARNING)
    messages = []
    for module, func in (
        ("kmdr.experiments.aggregate", "write_summaries"),
        ("kmdr.experiments.figures", "draw_experiment"),
    ):
        try:
            getattr(importlib.import_module(module), func)(experiment_dir)
        except Exception as err:  # the CSV is safe: say what failed, go on
            msg = (
                f"[kmdr] warning: {module}.{func} failed ({type(err).__name__}: "
                f"{' '.join(str(err).split())}); the CSV is intact, redraw with "
                f"`kmdr-figures {experiment_dir.parent}`"
            )
            log(msg)
            messages.append(msg)
    return messages


def write_text_atomic(path: Path, text: str) -> None:
    """Re-exported for the experiment kinds."""
    atomic_write_text(path, text)
