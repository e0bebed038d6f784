"""The work done in a worker: the r-independent shared work, and one cell (reduce, cluster,
evaluate). Module-level functions only, so that every joblib backend can pickle them.

A cell's ``reduce_seconds`` is its shared work's measured seconds plus its own fit + transform
time: what a user running that cell alone would see. ``shared_seconds`` and ``shared_key`` say
which part was shared, and ``reduce_timing`` (:data:`TIMING_PER_CELL` or
:data:`TIMING_SHARED_PER_REPETITION`) how it was measured.

Every time is an independent measurement of its own repetition, because the report tests
timings across repetitions (Welch t): a time copied from one repetition to the others would give
those tests zero variance. So

* a job (:func:`group_job`) of a deterministic reducer holds the cells that differ only in
  repetition: it reduces once for all of them (the reduction does not depend on the seed, so each
  cell is clustered on exactly the C it alone would compute), then runs the reduction again for
  each further cell only to time it, and discards that output;
* shared work is taken from a per-process memo (:class:`SharedWorkMemo`, keyed by the run's
  token, the shared key, the repetition or None for deterministic work, and the seed), computed
  there the first time: the first job that needs it computes it, and jobs without shared work
  never wait for any. Deterministic shared work serves every repetition but is timed once per
  repetition (:meth:`SharedWorkMemo.seconds`: computed again and discarded for each further
  repetition); its time is charged to every r of that repetition.

Re-timing costs one more reduction (or shared work) per further repetition; the output used is
always the first one, so no metric depends on it.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

import numpy as np

from kmdr.config.schema import FIRST_OF_CLASS  # the label-informed start (interfaces §5)
from kmdr.config.seeds import shared_random_state, stream_seeds
from kmdr.engine.reducer_checks import checked_reduction, describe, not_finite
from kmdr.results.cells import Cell, reducer_kwargs

#: ``reduce_timing`` of a cell whose whole reduction was run and timed for that cell alone.
TIMING_PER_CELL = "per cell"
#: ``reduce_timing`` of a cell whose reduction includes shared work (``shared_key``): its own
#: fit + transform timed for the cell, plus the shared work timed once per repetition (in the
#: worker that ran it) and charged to every r of that repetition.
TIMING_SHARED_PER_REPETITION = "shared per repetition"


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


def cluster_reduced(reducer, C, X, n_clusters: int, kmeans_settings: dict, y, random_state):
    """Lloyd's k-means on C with the cell's k-means settings (or the reducer's own clustering,
    e.g. sparsified k-means); ``X``: the data C came from, or None when no process holds it
    whole (the chunked path)."""
    from kmdr.kmeans.lloyd import kmeans

    settings = dict(kmeans_settings)
    if settings["init"] == FIRST_OF_CLASS:
        rows = first_of_class_indices(y)
        centers = C[rows]
        settings["init"] = centers.toarray() if hasattr(centers, "toarray") else centers
    kwargs = dict(
        n_init=settings["n_init"],
        max_iter=settings["max_iter"],
        init=settings["init"],
        tol=settings["tol"],
        random_state=random_state,
    )
    own = getattr(reducer, "cluster", None)  # never with the online phase: the config's check
    if settings.get("online_phase"):
        kwargs["online_phase"] = True
    if own is not None:
        return own(C, n_clusters, **kwargs)
    # C is this cell's own array unless the reducer handed back the data itself (the baseline):
    # only then may k-means center it in place (and give it back bit for bit) instead of
    # copying it; the shared X is read by other cells, possibly from other threads.
    return kmeans(C, n_clusters, copy_x=_may_share(C, X), **kwargs)


def _may_share(C, X) -> bool:
    """Whether C's values may live in X's memory (dense or CSR ``data``)."""
    a = C.data if hasattr(C, "toarray") else C
    b = X.data if hasattr(X, "toarray") else X
    return X is not None and bool(np.may_share_memory(a, b))


def _reduce(cell: Cell, X, n_clusters: int, shared):
    """The cell's reducer (seeded by its reducer stream), C, and its own fit + transform seconds."""
    from kmdr.reducers import make_reducer

    red_seed, _ = stream_seeds(cell.seed)
    params, k = reducer_kwargs(cell.params, n_clusters)
    reducer = make_reducer(cell.reducer_name, cell.r, n_clusters=k, random_state=red_seed, **params)
    start = time.perf_counter()
    C = reducer.fit_transform(X, shared=shared)
    return reducer, C, time.perf_counter() - start


def _evaluate(cell: Cell, reducer, C, own: float, X, y, n_clusters, shared, objective):
    """Cluster C with the cell's k-means seed and score it; the cell's metric and timing columns
    (:func:`finite_cell`'s line instead when they are not finite)."""
    from kmdr.metrics import kmeans_objective, label_scores

    _, km_seed = stream_seeds(cell.seed)
    shared_seconds = float(shared.seconds) if shared is not None else 0.0
    # finite_cell judges the cell's numbers below: numpy's overflow warnings (and scikit-learn's
    # about the clusters an overflow leaves) would only stand above its one line
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"), _held_warnings() as held:
        start = time.perf_counter()
        result = cluster_reduced(reducer, C, X, n_clusters, cell.kmeans, y, km_seed)
        cluster_seconds = time.perf_counter() - start
        labels = result.labels
        metrics = cell_metrics(
            label_scores(y, labels),
            result,
            objective=objective(labels) if objective is not None else kmeans_objective(X, labels),
            objective_reduced=kmeans_objective(C, labels),
            shared_seconds=shared_seconds,
            shared_key=shared.key if shared is not None else None,
            reduce_seconds=shared_seconds + own,
            cluster_seconds=cluster_seconds,
            shared_per_repetition=shared is not None,
        )
    metrics = finite_cell(cell, result, metrics)  # a cell not finite: its one line alone
    if isinstance(metrics, str):
        return metrics
    for w in held:  # a finite cell's warnings are the user's, as they were raised
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, registry=_SHOWN)
    return metrics


#: The warnings a finite cell gave back (:func:`_held_warnings`) and the filters showed, for
#: the filters' "default" action (once per message and place), as a module's registry is.
_SHOWN: dict = {}


@contextmanager
def _held_warnings() -> Iterator[list]:
    """The warnings raised in the block, held back in the list it gives, in the main thread; in
    another, shown as they come (the warnings module's state is the process's, and catching
    them there would take other threads' warnings)."""
    if threading.current_thread() is not threading.main_thread():
        yield []
        return
    with warnings.catch_warnings(record=True) as held:
        warnings.simplefilter("always")  # the filters apply when they are given back
        yield held


def finite_cell(cell: Cell, result, metrics: dict) -> dict | str:
    """``metrics``, unless the cell's k-means centers (``result``) or a metric is NaN or
    infinite: then one line naming the reducer and the cell, which the sweep records without
    writing the cell (its reduced data were checked when reduced). Reduced values near the float
    range (1e300) are finite, and k-means' squared distances and sums of them overflow."""
    centers = getattr(result, "cluster_centers", None)
    bad = [] if centers is None or np.isfinite(centers).all() else ["its k-means centers"]
    # accuracy, NMI and ARI compare integer labels, finite whatever k-means computed; they are
    # NaN by design where the data have no labels (a user's unlabeled file), so not checked.
    bad += [
        k
        for k, v in metrics.items()
        if k not in ("accuracy", "nmi", "ari")
        and isinstance(v, float | np.floating)
        and not np.isfinite(v)
    ]
    if bad:
        return (
            f"{describe(cell)}: {', '.join(bad)} not finite (NaN or infinite: "
            "k-means on the reduced data overflowed or divided by zero); keep the reducer's "
            "output at the data's scale"
        )
    return metrics


def cell_metrics(
    scores: dict,
    result,
    *,
    objective: float,
    objective_reduced: float,
    shared_seconds: float,
    shared_key: tuple | None,
    reduce_seconds: float,
    cluster_seconds: float,
    shared_per_repetition: bool,
) -> dict:
    """A cell's metric and timing columns, from the partition's ``accuracy``, ``nmi`` and
    ``ari`` (``scores``: from the labels in memory, from the summed blocks' contingency tables
    on row blocks, :func:`~kmdr.metrics.contingency_scores`, the same values), k-means'
    ``result``, F (on A) and the objective on C, and the seconds each step took: the one place a
    cell's row is made, in memory (:func:`compute_cell`) or from row blocks
    (:func:`kmdr.engine.blocks.compute_chunked_cell`)."""
    return {
        "objective": objective,
        "objective_reduced": objective_reduced,
        "accuracy": scores["accuracy"],
        "nmi": scores["nmi"],
        "ari": scores["ari"],
        "n_iter": int(result.n_iter),
        "converged": bool(result.converged),
        "shared_seconds": shared_seconds,
        "shared_key": key_text(shared_key),
        "reduce_seconds": reduce_seconds,
        "cluster_seconds": cluster_seconds,
        "total_seconds": reduce_seconds + cluster_seconds,
        "reduce_timing": TIMING_SHARED_PER_REPETITION if shared_per_repetition else TIMING_PER_CELL,
    }


def compute_cell(cell: Cell, X, y, n_clusters: int, shared=None, objective=None) -> dict:
    """Reduce, cluster and evaluate one cell; return its metric and timing columns.

    ``shared`` is the cell's :class:`~kmdr.reducers.SharedWork` (None: the reducer computes its
    r-independent work itself, and that time is part of the measured fit). The partition is
    evaluated on the ORIGINAL ``X`` (``objective``) and on C (``objective_reduced``);
    ``objective`` is a :class:`~kmdr.metrics.ObjectiveEvaluator` of X made once for all cells
    (None: one is made here).
    """
    reducer, C, own = checked_reduction(_reduce, cell, X, n_clusters, shared)
    problem = not_finite(describe(cell), C)
    return problem or _evaluate(cell, reducer, C, own, X, y, n_clusters, shared, objective)


def compute_group(
    cells,
    X,
    y,
    n_clusters: int,
    shared=None,
    objective=None,
    shared_seconds=None,
) -> list:
    """Cells of one deterministic reduction (equal ``group_key``): reduce once, then cluster and
    evaluate each cell with its own k-means seed; ``[(cell, metrics), ...]``.

    Every cell is clustered on the first reduction's C (the reduction does not depend on the
    reducer's seed, so it is exactly what each cell alone would compute), and its metrics are
    those :func:`compute_cell` gives that cell. Each further cell runs the reduction again only
    to time it (its output is discarded): every ``reduce_seconds`` is a measurement of its own.
    ``shared_seconds`` maps a repetition to the seconds its shared work was measured to take
    (None: ``shared.seconds`` for every cell).
    """
    cells = list(cells)

    def shared_of(cell):
        if shared is None or shared_seconds is None:
            return shared
        return replace(shared, seconds=float(shared_seconds[cell.repetition]))

    if len(cells) == 1:
        cell = cells[0]
        metrics = compute_cell(cell, X, y, n_clusters, shared_of(cell), objective)
        return [(cell, metrics)]
    keys = {c.group_key for c in cells}
    if len(keys) != 1 or keys.pop()[0] != "reduce-once":
        raise ValueError("compute_group: the cells differ in more than their repetition")
    reducer, C, own = checked_reduction(_reduce, cells[0], X, n_clusters, shared)
    if problem := not_finite(describe(cells[0]), C):  # every cell of the job fails with it
        return [(cell, problem) for cell in cells]
    out = []
    for i, cell in enumerate(cells):
        if i > 0:
            own = _reduce(cell, X, n_clusters, shared)[2]  # re-timed; C of the first is used
        # a repetition's k-means not finite: that cell alone
        metrics = _evaluate(cell, reducer, C, own, X, y, n_clusters, shared_of(cell), objective)
        out.append((cell, metrics))
    return out


#: How many runs' shared works a process's memo keeps (see :class:`SharedWorkMemo`).
MEMO_RUNS = 2


class SharedWorkMemo:
    """Shared works computed in one process: run token -> {(ident, seed): SharedWork}, the most
    recent runs last. A worker process may serve several runs (loky reuses its workers; a dask or
    Ray worker outlives a run), so only the last :data:`MEMO_RUNS` runs are kept. A process's own
    (:class:`kmdr.engine.worker.ProcessState` holds it)."""

    def __init__(self) -> None:
        self._runs: OrderedDict[str, dict] = OrderedDict()
        self._lock = threading.Lock()
        self._key_locks: dict[tuple, threading.Lock] = {}

    def work(self, token: str, ident: tuple, seed: int, compute):
        """The shared work ``ident`` (shared key, repetition or None) of the run ``token``,
        computed by ``compute()`` the first time this process needs it;
        ``(SharedWork, computed_here)``.

        Threads of one process needing the same work wait for the one computing it, so a
        process computes each shared work once.
        """
        entry = (ident, seed)
        with self._lock:
            table = self._runs.get(token)
            if table is None:
                table = self._runs[token] = {}
                while len(self._runs) > MEMO_RUNS:
                    self._drop_run(next(iter(self._runs)))
            self._runs.move_to_end(token)
            lock = self._key_locks.setdefault((token, entry), threading.Lock())
        with lock:
            work = table.get(entry)
            if work is not None:
                return work, False
            work = compute()
            table[entry] = work
            return work, True

    def seconds(self, token: str, ident: tuple, seed: int, repetition: int, work, compute):
        """The measured seconds of the deterministic shared work ``ident`` in ``repetition``.

        The first repetition that needs it in this process is charged ``work.seconds`` (the
        computation that produced ``work``); each further repetition runs ``compute()`` again,
        keeps only its time and discards its value, so that no two repetitions share one
        measurement.
        """
        entry = (ident, seed)
        with self._lock:
            table = self._runs.setdefault(token, {})
            lock = self._key_locks.setdefault((token, entry), threading.Lock())
        with lock:
            times = table.setdefault((entry, "seconds"), {})
            if repetition not in times:
                times[repetition] = float(work.seconds) if not times else float(compute().seconds)
            return times[repetition]

    def forget(self, token: str) -> None:
        """Drop the run ``token``'s shared works (the runner's own process, after a run)."""
        with self._lock:
            self._drop_run(token)

    def _drop_run(self, token: str) -> None:
        """Drop the run ``token``'s shared works and their locks (caller holds the lock)."""
        self._runs.pop(token, None)
        for key in [k for k in self._key_locks if k[0] == token]:
            del self._key_locks[key]


def key_text(key: tuple | None) -> str:
    """A shared key as the text cells.csv and the sidecars show."""
    return "" if key is None else "/".join(str(part) for part in key)


def group_job(state, job, *, X, y, objective):
    """One job in a worker: a group of cells (:func:`compute_group`), with the shared work they
    need (seeded ``job.shared_seed``) from this process's memo, timed once per repetition,
    computed with the BLAS/OpenMP threads of the cells' identity
    (:meth:`kmdr.engine.worker.ProcessState.threads`, entered by its caller).

    ``job`` is the :class:`~kmdr.engine.cell_kinds.Job` (its cells, k, the shared work's seed,
    the run's token); ``X``, ``y`` and ``objective`` (the run's objective evaluator) reach it as
    :func:`kmdr.engine.sweep.compute_in_memory` says. ``state`` is the process's
    :class:`kmdr.engine.worker.ProcessState` (its thread pools and shared-work memo), handed in
    by the worker's entry function (:func:`kmdr.engine.worker.run_job`).

    Returns ``(pairs, report)``: ``[(cell, metrics), ...]``, and ``(ident, seconds)`` when this
    job computed the shared work (else None), for the run record. A cell whose work is not
    finite has the line saying so in place of its metrics.
    """
    cells, n_clusters, token, shared_seed = job.cells, job.n_clusters, job.token, job.shared_seed
    first = cells[0]
    shared, report, seconds = None, None, None
    if first.shared_key is not None:
        ident = first.shared_ident

        def compute():
            return compute_shared_work(
                first.reducer_name, first.params, first.r, n_clusters, X, shared_seed
            )

        shared, computed = state.memo.work(token, ident, shared_seed, compute)
        if computed:
            report = (ident, float(shared.seconds))
        if ident[1] is None:  # deterministic: one value for every repetition, timed for each
            seconds = {
                c.repetition: state.memo.seconds(
                    token, ident, shared_seed, c.repetition, shared, compute
                )
                for c in cells
            }
    return compute_group(cells, X, y, n_clusters, shared, objective, seconds), report


def describe_cells(cells) -> str:
    """``reducer 'sign' in cell r=5 repetition 0 (<cell id>)``, naming every cell of a job."""
    where = ", ".join(f"r={c.r} repetition {c.repetition} ({c.cell_id})" for c in cells)
    return f"reducer {cells[0].reducer_name!r} in cell{'s' if len(cells) > 1 else ''} {where}"


def prepare_data(X):
    """X as float64 (CSR when sparse), once, so workers do not each convert it.

    The memory order of dense data is kept: BLAS products on a re-ordered copy can round
    differently, and a cell's numbers must not depend on the runner.
    """
    import numpy as np
    import scipy.sparse as sp

    if sp.issparse(X):
        X = sp.csr_matrix(X)
        return X if X.dtype == np.float64 else X.astype(np.float64)
    X = np.asarray(X)
    return X if X.dtype == np.float64 else X.astype(np.float64)
