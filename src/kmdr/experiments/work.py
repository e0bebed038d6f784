"""The work done in a worker: the r-independent shared work, and one cell (reduce, cluster,
evaluate). Module-level functions only, so that every joblib backend can pickle them.

A cell's ``reduce_seconds`` is its shared work's measured seconds plus its own fit + transform
time: what a user running that cell alone would see. ``shared_seconds`` and ``shared_key`` say
which part was shared.
"""

from __future__ import annotations

import os
import time

import numpy as np

from kmdr.experiments.cells import Cell, reducer_kwargs
from kmdr.experiments.seeds import shared_random_state, stream_seeds
from kmdr.experiments.spec import FIRST_OF_CLASS  # the label-informed start (interfaces §5)

__all__ = [
    "cell_job",
    "compute_cell",
    "compute_shared_work",
    "first_of_class_indices",
    "limit_blas_threads",
    "shared_job",
]


_LIMITED: dict[int, int] = {}  # pid -> BLAS threads applied in that worker process


def limit_blas_threads(threads: int | None, parent_pid: int) -> None:
    """Limit BLAS/OpenMP threads of this worker process to ``threads``, once per process.

    threadpoolctl's context manager costs ~10 ms per call (it scans the loaded libraries), more
    than a small cell, so a worker process applies the limit once and keeps it. The parent
    process (sequential and threading backends) is limited by the runner around the whole run
    instead, and restored after it.
    """
    pid = os.getpid()
    if threads is None or pid == parent_pid or _LIMITED.get(pid) == threads:
        return
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=threads)
    _LIMITED[pid] = threads


def first_of_class_indices(y) -> np.ndarray:
    """The index of the first point of each class, in the order of the sorted class labels."""
    _, first = np.unique(np.asarray(y), return_index=True)
    return np.asarray(first, dtype=np.intp)


def compute_shared_work(name: str, params: dict, r: int, n_clusters: int, X, seed: int):
    """``reducer.compute_shared`` for one (shared key, repetition), seeded by ``seed``."""
    from kmdr.reducers import make_reducer

    params, k = reducer_kwargs(params, n_clusters)
    state = shared_random_state(seed)
    red = make_reducer(name, r, n_clusters=k, random_state=state, **params)
    return red.compute_shared(X, random_state=state)


def _cluster(reducer, C, n_clusters: int, kmeans_settings: dict, y, random_state):
    """Lloyd's k-means on C (or the reducer's own clustering, e.g. sparsified k-means)."""
    from kmdr.cluster import kmeans

    settings = dict(kmeans_settings)
    if settings["init"] == FIRST_OF_CLASS:
        rows = first_of_class_indices(y)
        centers = C[rows]
        settings["init"] = centers.toarray() if hasattr(centers, "toarray") else centers
    cluster = getattr(reducer, "cluster", None) or kmeans
    return cluster(
        C,
        n_clusters,
        n_init=settings["n_init"],
        max_iter=settings["max_iter"],
        init=settings["init"],
        tol=settings["tol"],
        random_state=random_state,
    )


def compute_cell(cell: Cell, X, y, n_clusters: int, shared=None, objective=None) -> dict:
    """Reduce, cluster and evaluate one cell; return its metric and timing columns.

    ``shared`` is the cell's :class:`~kmdr.reducers.SharedWork` (None: the reducer computes its
    r-independent work itself, and that time is part of the measured fit). The partition is
    evaluated on the ORIGINAL ``X`` (``objective``) and on C (``objective_reduced``);
    ``objective`` is a :class:`~kmdr.metrics.ObjectiveEvaluator` of X made once for all cells
    (None: one is made here).
    """
    from kmdr.metrics import ari, clustering_accuracy, kmeans_objective, nmi
    from kmdr.reducers import make_reducer

    red_seed, km_seed = stream_seeds(cell.seed)
    params, k = reducer_kwargs(cell.params, n_clusters)
    reducer = make_reducer(cell.reducer_name, cell.r, n_clusters=k, random_state=red_seed, **params)
    start = time.perf_counter()
    C = reducer.fit_transform(X, shared=shared)
    own = time.perf_counter() - start
    shared_seconds = float(shared.seconds) if shared is not None else 0.0
    start = time.perf_counter()
    result = _cluster(reducer, C, n_clusters, cell.kmeans, y, km_seed)
    cluster_seconds = time.perf_counter() - start
    labels = result.labels
    reduce_seconds = shared_seconds + own
    return {
        "objective": objective(labels) if objective is not None else kmeans_objective(X, labels),
        "objective_reduced": kmeans_objective(C, labels),
        "accuracy": clustering_accuracy(y, labels),
        "nmi": nmi(y, labels),
        "ari": ari(y, labels),
        "n_iter": int(result.n_iter),
        "converged": bool(result.converged),
        "shared_seconds": shared_seconds,
        "shared_key": key_text(shared.key) if shared is not None else "",
        "reduce_seconds": reduce_seconds,
        "cluster_seconds": cluster_seconds,
        "total_seconds": reduce_seconds + cluster_seconds,
    }


def key_text(key: tuple | None) -> str:
    """A shared key as the text cells.csv and the sidecars show."""
    return "" if key is None else "/".join(str(part) for part in key)


def cell_job(cell, X, y, n_clusters, shared, objective, threads, parent_pid):
    """One cell in a worker: (cell, its metrics)."""
    limit_blas_threads(threads, parent_pid)
    return cell, compute_cell(cell, X, y, n_clusters, shared, objective)


def shared_job(ident, name, params, r, n_clusters, X, seed, threads, parent_pid):
    """One shared work in a worker: (its (key, repetition), the SharedWork)."""
    limit_blas_threads(threads, parent_pid)
    return ident, compute_shared_work(name, params, r, n_clusters, X, seed)
