"""One cell whose data are row blocks (:class:`~kmdr.datasets.blocks.RowBlocks`), reduced and scored
on a dask.distributed cluster without the matrix A ever being whole in one process.

:func:`compute_chunked_cell` computes the same :class:`~kmdr.results.cells.Cell` as the in-memory
path (:func:`kmdr.engine.work.compute_cell`) and returns the same metric and timing columns:

1. the reducer is built in the driver (this process) and fitted from the shape alone, seeded as
   the in-memory cell's (``stream_seeds(cell.seed)``): a ``"rowwise"`` reducer draws the very
   operator the in-memory fit draws (:meth:`~kmdr.reducers.BaseReducer.fit_rows`); a
   ``"sketch"`` reducer is fitted on a FastFrobeniusSVD computed over the blocks (below);
2. the RowBlocks object and the fitted reducer are scattered to every worker once; each task
   names a block by its index and its worker computes the block itself (reads its shard, cuts it,
   generates it), so no data travels inside the task graph. The block's rows of C stay on the
   worker; only the block's column sums and sums of squares (of A and of C) come back;
3. k-means runs where C is, with the cell's k-means seed and settings
   (:func:`~kmdr.kmeans.blocks.kmeans_on_blocks`: scikit-learn's Lloyd, as in memory,
   each iteration one call per worker over its blocks of C returning their per-cluster sums);
   a dense C's blocks are replaced by centered ones first (spread evenly over the workers), as
   k-means centers a dense C. The labels stay on the
   workers too. A reducer with its own clustering (PD's sparsified k-means) gathers its sketch
   (m of d entries per row) and clusters it in the driver instead;
4. the objective F on the ORIGINAL data takes one more pass over the blocks: each worker reads
   its block's labels where they are and returns its per-cluster sums of the centered rows and
   their sum of squares, and the driver forms F as :class:`~kmdr.metrics.ObjectiveEvaluator`
   does (dense A centered by its column mean, sparse A not; the explicit residuals, one pass
   more, when the clusters are tight). The value equals the in-memory ``objective`` within
   1e-12 relative (other summation order of the same terms); F on C is formed the same way from
   C's blocks. Accuracy, NMI and ARI depend on the partition only through its class x cluster
   table: each worker counts its block's (the block's true labels, made by the worker, against
   the labels it holds) and the driver scores the sum
   (:func:`~kmdr.metrics.contingency_scores`: the values of the whole label vectors, to the
   last bit). The first point of each class (the ``first-of-class`` start) is found the same
   way, one number per class and block.

What travels where, and the limit: the driver holds the centers and per-block summaries (k x d
cluster sums of A's dense blocks, k x r of C's, a class x cluster table), never a vector of n
values, so its memory does not grow with n; no process holds A or C whole, and the labels stay
on the workers. A reducer with its own clustering (sparsified k-means) is the exception: its
sketch and the true labels are gathered in the driver. What must fit is the workers' share of C
(n x r x 8 bytes over the cluster for a dense C; a worker writes what passes its memory target to
disk, as Dask does) and one block of A per task.

Reducers: ``"rowwise"`` ones (sign, achlioptas, gaussian, sparse_embedding, srht, sparsified)
give C equal to the in-memory C (bit for bit on sparse data; within 1e-12 relative on dense data,
where BLAS may pick other kernels for another number of rows; each reducer states it), so the
chunked cell has the in-memory cell's partition and metrics (up to that rounding). ``"sketch"``
ones (svd_approx, leverage_approx) run FastFrobeniusSVD's two passes over the blocks with the
in-memory sketch R (the same draw): the range ``Y = A R`` is found block by block and
orthonormalised by dask's tall-and-skinny QR (:func:`dask.array.linalg.tsqr`, Y never gathered),
then ``B = Q^T A`` is summed over the blocks and its top right singular vectors taken in the
driver. A QR is unique up to the signs of Q's columns, and those signs leave B's right singular
vectors unchanged, so Z is the in-memory Z up to rounding (amplified by the inverse spectral gaps
of B); the cell's C, partition and F follow within that rounding, not bit for bit. Every other
reducer needs the whole matrix and is refused in one line before any work
(:func:`~kmdr.config.checks.chunked_refusal`).
"""

from __future__ import annotations

import operator
import time

import numpy as np

from kmdr.config.checks import ONLINE_PHASE_ON_BLOCKS, chunked_refusal
from kmdr.config.schema import FIRST_OF_CLASS
from kmdr.config.seeds import shared_random_state, stream_seeds
from kmdr.datasets.blocks import stack_rows
from kmdr.engine import signals
from kmdr.kmeans._block_centering import center_blocks
from kmdr.kmeans.blocks import gather_rows, kmeans_on_blocks, results_in_order
from kmdr.results.cells import Cell, reducer_kwargs

__all__ = ["compute_chunked_cell", "fitted_reducer", "prepare_on_a_worker"]


# -- in the workers: each task computes its block from the scattered RowBlocks ----------------


def _limited(threads: int):
    """The cell's BLAS/OpenMP thread count for one task (the libraries a worker has loaded)."""
    from kmdr._native import limited_threads

    return limited_threads(threads, load=False)


def _block(blocks, i: int):
    """Block ``i`` as the in-memory path prepares data (float64, CSR when sparse), held to the
    check a loaded dataset passes (:func:`~kmdr.datasets.blocks.matrix_problem`: real, finite):
    a :class:`~kmdr.datasets.DatasetError` naming the block and its rows otherwise (a NaN in a
    shard, say), as no whole-matrix check ran before the blocks were handed out."""
    from kmdr.datasets.blocks import DatasetError, matrix_problem
    from kmdr.engine.work import prepare_data

    X = prepare_data(blocks.block(i))
    problem = matrix_problem(X)
    if problem is not None:
        lo, hi = blocks.bounds[i]
        raise DatasetError(f"{blocks.name}: row block {i} (rows {lo} to {hi}): {problem}")
    return X


def _nnz_counts_task(blocks, i: int) -> np.ndarray:
    """How many of block ``i``'s rows hold each number of nonzeros."""
    from kmdr.reducers import nnz_counts

    return nnz_counts(_block(blocks, i))


def _reduce_task(blocks, i: int, reducer, threads: int):
    """Block ``i``'s rows of C, and what F needs of the block: ``||block||^2`` and, for dense
    blocks, its column sums (for the column mean)."""
    import scipy.sparse as sp

    X = _block(blocks, i)
    with _limited(threads):
        C = reducer.transform_rows(X, blocks.bounds[i][0])
    if sp.issparse(X):
        if not X.has_canonical_format:  # duplicate entries: ||A||^2 of their sums, as F's
            X = X.copy()
            X.sum_duplicates()
        return C, float(X.data @ X.data), None
    return C, float(np.einsum("ij,ij->", X, X)), X.sum(axis=0)


def _score_task(X, labels, m: int, mean):
    """A block's per-cluster sums (of its rows centered by ``mean`` when dense) and the sum of
    squares they are measured about; ``labels``: the block's clusters."""
    import scipy.sparse as sp

    from kmdr.metrics import cluster_sums

    if sp.issparse(X):
        return cluster_sums(X, labels, m), None
    centered = np.subtract(X, mean, order="C")
    about = float(np.einsum("ij,ij->", centered, centered))
    return cluster_sums(centered, labels, m), about


def _prepare_task(blocks) -> None:
    blocks.prepare()


def _first_of_class_task(blocks, i: int) -> np.ndarray:
    """The row (its index in the whole matrix) where each class first appears in block ``i``,
    -1 for a class the block does not hold."""
    y = blocks.block_labels(i)
    classes, first = np.unique(y, return_index=True)
    out = np.full(max(int(blocks.n_clusters), int(classes[-1]) + 1), -1, dtype=np.int64)
    out[classes] = first + blocks.bounds[i][0]
    return out


def _table_task(blocks, i: int, labels, k: int) -> np.ndarray:
    """Block ``i``'s class x cluster count table (``labels``: the block's clusters, < k)."""
    y = blocks.block_labels(i)
    classes = max(int(blocks.n_clusters), int(y.max()) + 1)
    return np.bincount(y * k + labels, minlength=classes * k).reshape(classes, k)


def _residual_task(X, labels, centroids, mean) -> float:
    """A block's sum of squared distances of its centered rows to their centroids."""
    from kmdr.metrics import squared_residuals

    return squared_residuals(np.subtract(X, mean, order="C"), centroids[labels])


def _score_block_task(blocks, i: int, labels, m: int, mean):
    """:func:`_score_task` of block ``i`` of A, made here."""
    return _score_task(_block(blocks, i), labels, m, mean)


def _residual_block_task(blocks, i: int, labels, centroids, mean) -> float:
    """:func:`_residual_task` of block ``i`` of A, made here."""
    return _residual_task(_block(blocks, i), labels, centroids, mean)


def _summary(reduced) -> tuple:
    """What the driver needs of a reduced block: ``||A_block||^2``, A's column sums (dense A),
    ``||C_block||^2``, C's column sums and C's rows."""
    import scipy.sparse as sp

    C, a_norm, a_sums = reduced
    c_norm = float(C.multiply(C).sum()) if sp.issparse(C) else float(np.einsum("ij,ij->", C, C))
    return a_norm, a_sums, c_norm, np.asarray(C.sum(axis=0)).ravel(), C.shape[0], sp.issparse(C)


def _range_task(blocks, i: int, R, threads: int) -> np.ndarray:
    """Block ``i``'s rows of the range sketch ``Y = A R``."""
    with _limited(threads):
        return np.asarray(_block(blocks, i) @ R)


def _project_task(Q_block, blocks, i: int, threads: int) -> np.ndarray:
    """Block ``i``'s term of ``B = Q^T A``."""
    import scipy.sparse as sp

    X = _block(blocks, i)
    with _limited(threads):
        return np.asarray((X.T @ Q_block).T if sp.issparse(X) else Q_block.T @ X)


# -- in the driver ----------------------------------------------------------------------------


def _sketch_svd(client, blocks_f, blocks, rank: int, eps: float, rng, threads: int):
    """FastFrobeniusSVD of the blocks' matrix at ``rank``: the in-memory sketch R, the range
    ``Y = A R`` block by block, Q from dask's tall-and-skinny QR of Y (kept on the workers),
    ``B = Q^T A`` summed in block order, and B's top right singular vectors."""
    import dask
    import dask.array as da

    from kmdr.reducers import sketch_operator, svd_of_projection

    R = sketch_operator(blocks.n_features, rank, eps, rng)
    width = R.shape[1]
    [R_f] = client.scatter([R], broadcast=True, hash=False)
    sizes = [hi - lo for lo, hi in blocks.bounds]
    parts = [
        da.from_delayed(
            dask.delayed(_range_task, pure=False)(blocks_f, i, R_f, threads),
            shape=(size, width),
            dtype=np.float64,
        )
        for i, size in enumerate(sizes)
    ]
    Y = da.concatenate(parts, axis=0)
    # tsqr wants every chunk at least as tall as it is wide: small blocks are merged for the QR
    Q, _ = da.linalg.tsqr(Y.rechunk({0: _qr_chunks(sizes, width)}))
    Q = Q.rechunk({0: tuple(sizes)})
    terms = [
        dask.delayed(_project_task, pure=False)(q, blocks_f, i, threads)
        for i, q in enumerate(Q.to_delayed().ravel())
    ]
    futures = client.compute(terms)
    B = np.zeros((width, blocks.n_features))
    for term in results_in_order(futures):
        B += term
    return svd_of_projection(B, rank)


def _qr_chunks(sizes: list[int], width: int) -> tuple[int, ...]:
    """Row chunks of at least ``width`` rows each (consecutive blocks merged; one chunk if the
    whole matrix is shorter)."""
    chunks, at = [], 0
    for size in sizes:
        at += size
        if at >= width:
            chunks.append(at)
            at = 0
    if at:
        if chunks:
            chunks[-1] += at
        else:
            chunks.append(at)
    return tuple(chunks)


def fitted_reducer(cell: Cell, blocks, n_clusters: int, client=None, blocks_f=None, sketches=None):
    """The cell's reducer, seeded as the in-memory cell's, fitted for ``blocks`` (a rowwise
    operator drawn in this process; a sketch reducer's SVD computed over the blocks on
    ``client``); raises ValueError (one line) for a reducer that cannot run on row blocks.

    ``sketches``: a dict the caller keeps for the cells of one run on the same blocks. A sketch
    reducer with a shared key (approximate leverage scores: one SVD at rank k for every r of a
    repetition, drawn from the same shared seed) computes it once per (key, repetition) there,
    as the in-memory sweep shares it. The reducer's ``sketch_seconds_`` is the SVD's measured
    time (charged to every cell that uses it), ``sketch_computed_seconds_`` what this call
    spent on it (0 when it came from ``sketches``)."""
    from kmdr.reducers import make_reducer

    message = chunked_refusal(cell.reducer_id, cell.reducer_name, cell.params)
    if message is not None:
        raise ValueError(message)
    red_seed, _ = stream_seeds(cell.seed)
    params, k = reducer_kwargs(cell.params, n_clusters)
    reducer = make_reducer(cell.reducer_name, cell.r, n_clusters=k, random_state=red_seed, **params)
    n, d = blocks.n_samples, blocks.n_features
    if reducer.row_mode() == "sketch":
        state = None
        if cell.shared_key is not None:  # the shared work's seed, as the sweep gives it
            state = shared_random_state(cell.shared_seed)
        rank, eps, rng = reducer.sketch_request(n, d, random_state=state)
        key = cell.shared_ident
        if sketches is not None and key is not None and key in sketches:
            svd, seconds = sketches[key]
            reducer.sketch_computed_seconds_ = 0.0
        else:
            start = time.perf_counter()
            svd = _sketch_svd(client, blocks_f, blocks, rank, eps, rng, cell.blas_threads)
            seconds = reducer.sketch_computed_seconds_ = time.perf_counter() - start
            if sketches is not None and key is not None:
                sketches[key] = (svd, seconds)
        reducer.sketch_seconds_ = seconds
        return reducer.fit_rows(n, d, sketch=svd)
    if not reducer.implements_rows():
        raise ValueError(
            f"reducer {cell.reducer_id!r}: {type(reducer).__name__} is declared to run on row "
            "blocks but implements no transform_rows yet; run it without block_rows"
        )
    nnz_counts = None
    if reducer.needs_nnz_counts(blocks.is_sparse):
        futures = [
            client.submit(_nnz_counts_task, blocks_f, i, pure=False)
            for i in range(len(blocks.bounds))
        ]
        nnz_counts = _summed(results_in_order(futures))
    starts = [lo for lo, _ in blocks.bounds]  # PD's position draws follow the rows
    return reducer.fit_rows(n, d, nnz_counts=nnz_counts, starts=starts)


def _objective(client, sources, labels, counts, squared_norm: float, mean) -> float:
    """F of a partition of a matrix held as row blocks, as :class:`~kmdr.metrics.ObjectiveEvaluator`
    computes it in memory: one pass, two when the clusters are tight. ``sources``: each block's
    arguments, ``(future,)`` for a block held on the workers (C), ``(blocks, i)`` for one each
    task makes (A, never held whole); ``labels``: a future of each block's clusters;
    ``counts``: each cluster's size."""
    from kmdr.metrics import CANCELLATION_RATIO, within_from_sums

    made = len(sources[0]) == 2
    score = _score_block_task if made else _score_task
    residual = _residual_block_task if made else _residual_task
    m = counts.shape[0]
    filled = counts > 0
    futures = [
        client.submit(score, *source, lab, m, mean, pure=False)
        for source, lab in zip(sources, labels, strict=True)
    ]
    sums, about = None, 0.0 if mean is not None else squared_norm
    for part, part_about in results_in_order(futures):
        sums = part if sums is None else sums + part
        if mean is not None:
            about += part_about
    sums = sums[np.flatnonzero(filled)]
    within = within_from_sums(sums, counts[filled], about)
    if mean is not None and within < CANCELLATION_RATIO * about:
        centroids = np.zeros((m, sums.shape[1]))
        centroids[filled] = sums / counts[filled][:, None]
        futures = [
            client.submit(residual, *source, lab, centroids, mean, pure=False)
            for source, lab in zip(sources, labels, strict=True)
        ]
        within = sum(results_in_order(futures))
    if squared_norm == 0.0:
        raise ValueError("A is all zeros: F = 0/0 is undefined")
    return max(within, 0.0) / squared_norm


def prepare_on_a_worker(client, blocks) -> None:
    """Do once, on one worker, what every block needs
    (:meth:`~kmdr.datasets.blocks.RowBlocks.prepare`: sparse_text's document frequencies, a pass
    over every token whose memory grows with n),
    before the cells hand out blocks: the workers that share its data cache folder read the
    result, and the driver never makes the data."""
    client.submit(_prepare_task, blocks, pure=False).result()


def _no_step(name: str) -> None:
    """No measurement at the end of a step."""


def _first_of_class(client, blocks_f, n_blocks: int) -> np.ndarray:
    """The first row of each class present (in class order), as
    :func:`~kmdr.engine.work.first_of_class_indices` gives it from the whole label vector, found
    block by block on the workers: the driver reads one number per class and block."""
    futures = [
        client.submit(_first_of_class_task, blocks_f, i, pure=False) for i in range(n_blocks)
    ]
    first = np.empty(0, dtype=np.int64)
    for part in results_in_order(futures):  # blocks in row order: a class's first block wins
        if part.shape[0] > first.shape[0]:
            first = np.concatenate([first, np.full(part.shape[0] - first.shape[0], -1)])
        head = first[: part.shape[0]]
        unseen = head < 0
        head[unseen] = part[unseen]
    return first[first >= 0].astype(np.intp)


def _label_scores(client, blocks_f, label_blocks, k: int) -> dict:
    """Accuracy, NMI and ARI from the sum of the blocks' class x cluster tables, each counted
    where the block's labels are (:func:`~kmdr.metrics.contingency_scores`: the values the
    whole label vectors give)."""
    from kmdr.metrics import contingency_scores

    futures = [
        client.submit(_table_task, blocks_f, i, labels, k, pure=False)
        for i, labels in enumerate(label_blocks)
    ]
    return contingency_scores(_summed(results_in_order(futures)))


def _summed(parts) -> np.ndarray:
    """The sum of the blocks' counts (a vector, or a table of rows), each as long as its own
    block needs (up to the largest nonzero count, or the last class, it holds): the shorter ones
    count zero beyond their end."""
    parts = list(parts)
    total = np.zeros((max(p.shape[0] for p in parts), *parts[0].shape[1:]), dtype=np.int64)
    for part in parts:
        total[: part.shape[0]] += part
    return total


def _cluster_blocks(reducer, parts, info, k: int, settings: dict, blocks, seed, client, report):
    """k-means of the cell on C's blocks, where they were computed
    (:func:`~kmdr.kmeans.blocks.kmeans_on_blocks`): ``(result, C's blocks as clustered,
    the mean they were centered by or None)``. The blocks of a dense C are replaced by centered
    ones, as k-means centers a dense C, so that no worker holds C twice. A reducer with its own
    clustering (sparsified k-means) clusters its gathered C in this process instead, with the
    labels ``blocks`` (a pair: the RowBlocks and its future on the workers) give."""
    from kmdr.engine.work import cluster_reduced

    sizes = [size for *_, size, _ in info]
    if getattr(reducer, "cluster", None) is not None:
        C = stack_rows(client.gather(parts))
        y = np.asarray(blocks[0].labels())
        return cluster_reduced(reducer, C, None, k, settings, y, seed), parts, None
    init = settings["init"]
    if init == FIRST_OF_CLASS:
        init = gather_rows(client, parts, sizes, _first_of_class(client, blocks[1], len(parts)))
    sparse = bool(info[0][-1])
    shift = None
    if not sparse:
        parts, shift = center_blocks(client, parts, sizes)
    result = kmeans_on_blocks(
        client,
        parts,
        sizes,
        k,
        sparse=sparse,
        n_init=settings["n_init"],
        max_iter=settings["max_iter"],
        init=init,
        tol=settings["tol"],
        random_state=seed,
        report=report,
        mean=shift,
    )
    return result, parts, shift


def compute_chunked_cell(
    cell: Cell,
    blocks,
    client,
    n_clusters: int | None = None,
    sketches=None,
    steps=None,
    progress=None,
) -> dict | str:
    """Reduce, cluster and evaluate one cell whose data are ``blocks`` (a
    :class:`~kmdr.datasets.blocks.RowBlocks`) on the dask ``client``; the same metric and timing
    columns as :func:`kmdr.engine.work.compute_cell` (see the module docstring for how they
    relate). ``n_clusters``: k (default: the blocks' ``n_clusters``); ``sketches``: the run's
    shared sketch SVDs (:func:`fitted_reducer`); ``steps``: called as ``steps(name)`` when each
    step ends, ``"reduce"`` (the fit, the blocks made and reduced on the workers),
    ``"cluster"`` (k-means on C's blocks) and ``"score"`` (the passes for F, and the metrics),
    so a benchmark can read each step's wall and peak memory
    (``scripts/bench/bench_distributed.py``);
    ``progress``: called with a short text (k-means' restart, iteration and inertia) while the
    cell clusters. A cell whose numbers are not finite gives its one line instead
    (:func:`kmdr.engine.work.finite_cell`), as in memory.

    ``reduce_seconds`` is the driver's fit (with a sketch reducer's SVD over the blocks, also
    given as ``shared_seconds``: computed for this cell, never shared) plus the wall time of the
    pass that reduces the blocks (the workers' time in parallel, and the transfers);
    ``cluster_seconds`` is k-means over C's blocks. ``reduce_timing`` is "shared per repetition"
    for a sketch reducer with a shared key (its SVD's time charged to every cell of the
    repetition, as in memory), else "per cell".
    """
    from kmdr.engine.work import cell_metrics, finite_cell

    if cell.kmeans.get("online_phase"):
        raise ValueError(ONLINE_PHASE_ON_BLOCKS)
    k = int(blocks.n_clusters if n_clusters is None else n_clusters)
    threads = cell.blas_threads
    start = time.perf_counter()
    [blocks_f] = client.scatter([blocks], broadcast=True, hash=False)
    with _limited(threads):
        reducer = fitted_reducer(cell, blocks, k, client, blocks_f, sketches)
    [reducer_f] = client.scatter([reducer], broadcast=True, hash=False)
    reduced = [
        client.submit(_reduce_task, blocks_f, i, reducer_f, threads, pure=False)
        for i in range(len(blocks.bounds))
    ]
    parts = [client.submit(operator.getitem, r, 0, pure=False) for r in reduced]
    info = list(results_in_order([client.submit(_summary, r, pure=False) for r in reduced]))
    del reduced
    squared_norm = sum(i[0] for i in info)
    column_sums = None if info[0][1] is None else sum(i[1] for i in info)
    c_norm = sum(i[2] for i in info)
    # k-means on C's blocks needs its squared norms (scikit-learn refuses infinite ones)
    problem = finite_cell(cell, None, {"the squared norm of its reduced data": float(c_norm)})
    if isinstance(problem, str):  # its one line, in place of the cell's metrics
        return problem
    c_mean = None if info[0][-1] else sum(i[3] for i in info) / blocks.n_samples
    sketch = float(getattr(reducer, "sketch_seconds_", 0.0))
    reduce_seconds = (
        time.perf_counter() - start - getattr(reducer, "sketch_computed_seconds_", 0.0) + sketch
    )
    step = steps if steps is not None else _no_step
    step("reduce")
    _, km_seed = stream_seeds(cell.seed)

    def report(restart, iteration, inertia):
        signals.raise_if_received()  # a stop that library code lost ends k-means here
        if progress is not None:
            progress(f"k-means start {restart}, iteration {iteration}, inertia {inertia:.6g}")

    start = time.perf_counter()
    with _limited(threads):
        result, parts, shift = _cluster_blocks(
            reducer, parts, info, k, cell.kmeans, (blocks, blocks_f), km_seed, client, report
        )
    cluster_seconds = time.perf_counter() - start
    step("cluster")
    if hasattr(result, "label_blocks"):
        label_blocks, counts = result.label_blocks, result.counts
    else:  # clustered in this process: its labels go to the blocks' workers
        label_blocks, counts = _scatter_labels(client, result.labels, info, k)
    mean = None if column_sums is None else column_sums / blocks.n_samples
    a_blocks = [(blocks_f, i) for i in range(len(blocks.bounds))]
    with _limited(threads):
        objective = _objective(client, a_blocks, label_blocks, counts, squared_norm, mean)
        c_blocks = [(part,) for part in parts]
        if shift is not None:  # C's blocks are centered by shift
            c_mean = c_mean - shift
        objective_reduced = _objective(client, c_blocks, label_blocks, counts, c_norm, c_mean)
        metrics = cell_metrics(
            _label_scores(client, blocks_f, label_blocks, counts.shape[0]),
            result,
            objective=objective,
            objective_reduced=objective_reduced,
            # a sketch reducer's SVD over the blocks (in its reduce time), under the in-memory
            # cell's shared key
            shared_seconds=sketch,
            shared_key=cell.shared_key,
            reduce_seconds=reduce_seconds,
            cluster_seconds=cluster_seconds,
            shared_per_repetition=cell.shared_key is not None and sketch > 0,
        )
    step("score")
    return finite_cell(cell, result, metrics)


def _scatter_labels(client, labels, info, k: int):
    """Labels found in this process, as a future per block, and each cluster's size."""
    from kmdr.metrics import encode_labels

    codes, counts = encode_labels(labels)
    ends = np.cumsum([i[-2] for i in info])
    pieces = np.split(codes, ends[:-1])
    return client.scatter(pieces, hash=False), counts.astype(np.float64)
