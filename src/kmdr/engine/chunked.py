"""One cell whose data are row blocks (:class:`~kmdr.datasets.RowBlocks`), reduced and scored on a
dask.distributed cluster without the matrix A ever being whole in one process.

:func:`compute_chunked_cell` computes the same :class:`~kmdr.results.cells.Cell` as the in-memory
path (:func:`kmdr.engine.work.compute_cell`) and returns the same metric and timing columns:

1. the reducer is built in the driver (this process) and fitted from the shape alone, seeded as
   the in-memory cell's (``stream_seeds(cell.seed)``): a ``"rowwise"`` reducer draws the very
   operator the in-memory fit draws (:meth:`~kmdr.reducers.BaseReducer.fit_rows`); a
   ``"sketch"`` reducer is fitted on a FastFrobeniusSVD computed over the blocks (below);
2. the RowBlocks object and the fitted reducer are scattered to every worker once; each task
   names a block by its index and its worker computes the block itself (reads its shard, cuts it,
   generates it), so no data travels inside the task graph, and only the block's rows of C come
   back (with the block's column sums and sum of squares, for step 4);
3. C is gathered in the driver and clustered exactly as in memory (Lloyd via
   :func:`kmdr.cluster.kmeans`, the cell's k-means seed and settings);
4. the objective F on the ORIGINAL data takes one more pass over the blocks: each worker returns
   its block's per-cluster sums of the centered rows and their sum of squares, and the driver
   forms F as :class:`~kmdr.metrics.ObjectiveEvaluator` does (dense A centered by its column mean,
   sparse A not; the explicit residuals, one pass more, when the clusters are tight). The value
   equals the in-memory ``objective`` within 1e-12 relative (other summation order of the same
   terms); accuracy, NMI and ARI come from the labels, as in memory.

What travels where, and the limit: the driver holds y (n labels), C (n x r x 8 bytes dense; its
nonzeros for a sparse C) and the label codes, and receives per block a k x d matrix of cluster
sums (dense A) and d column sums. So the whole cell fits as long as n x r x 8 bytes (about 2x that
while C is stacked and k-means copies it) fits in the driver's memory: 10^8 rows at r = 50 is
40 GB. Beyond that, k-means itself would have to run on blocks, which this path does not do.

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

import time

import numpy as np

from kmdr.config.checks import chunked_refusal
from kmdr.config.seeds import shared_random_state, stream_seeds
from kmdr.datasets.blocks import stack_rows
from kmdr.results.cells import Cell, reducer_kwargs

__all__ = ["compute_chunked_cell", "fitted_reducer"]


# -- in the workers: each task computes its block from the scattered RowBlocks ----------------


def _limited(threads: int):
    """The cell's BLAS/OpenMP thread count for one task (the libraries a worker has loaded)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=int(threads))


def _block(blocks, i: int):
    """Block ``i`` as the in-memory path prepares data: float64, CSR when sparse."""
    from kmdr.engine.job_data import prepare_data

    return prepare_data(blocks.block(i))


def _row_nnz_task(blocks, i: int) -> np.ndarray:
    X = _block(blocks, i)
    return np.diff(X.indptr) if hasattr(X, "indptr") else np.full(X.shape[0], X.shape[1])


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


def _score_task(blocks, i: int, codes, m: int, mean):
    """Block ``i``'s per-cluster sums (of the rows centered by ``mean`` when dense) and the sum
    of squares they are measured about."""
    import scipy.sparse as sp

    from kmdr.metrics import cluster_sums

    X = _block(blocks, i)
    lo, hi = blocks.bounds[i]
    if sp.issparse(X):
        return cluster_sums(X, codes[lo:hi], m), None
    centered = np.subtract(X, mean, order="C")
    about = float(np.einsum("ij,ij->", centered, centered))
    return cluster_sums(centered, codes[lo:hi], m), about


def _residual_task(blocks, i: int, codes, centroids, mean) -> float:
    """Block ``i``'s sum of squared distances of its centered rows to their centroids."""
    lo, hi = blocks.bounds[i]
    residual = np.subtract(_block(blocks, i), mean, order="C") - centroids[codes[lo:hi]]
    return float(np.einsum("ij,ij->", residual, residual))


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


def _in_order(futures):
    """The futures' results one at a time, in order (each released once read), so the driver
    adds them in a fixed order whatever order they finish in; if one fails (or the reader
    stops), those not read yet are cancelled."""
    futures = list(futures)
    read = 0
    try:
        for future in futures:
            value = future.result()
            future.release()
            read += 1
            yield value
    finally:
        left = futures[read:]
        if left:
            left[0].client.cancel(left)


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
    for term in _in_order(futures):
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
    row_nnz = None
    if reducer.needs_row_nnz(blocks.is_sparse):
        futures = [
            client.submit(_row_nnz_task, blocks_f, i, pure=False) for i in range(len(blocks.bounds))
        ]
        row_nnz = np.concatenate(list(_in_order(futures)))
    starts = [lo for lo, _ in blocks.bounds]  # PD's position draws follow the rows
    return reducer.fit_rows(n, d, row_nnz=row_nnz, starts=starts)


def _objective(client, blocks_f, blocks, labels, squared_norm: float, mean) -> float:
    """F of ``labels`` on the blocks' matrix (one pass; two when the clusters are tight)."""
    from kmdr.metrics import CANCELLATION_RATIO, encode_labels, within_from_sums

    codes, counts = encode_labels(labels)
    m = counts.shape[0]
    [codes_f] = client.scatter([codes], broadcast=True, hash=False)
    n_blocks = len(blocks.bounds)
    futures = [
        client.submit(_score_task, blocks_f, i, codes_f, m, mean, pure=False)
        for i in range(n_blocks)
    ]
    sums, about = None, 0.0 if mean is not None else squared_norm
    for part, part_about in _in_order(futures):
        sums = part if sums is None else sums + part
        if mean is not None:
            about += part_about
    within = within_from_sums(sums, counts, about)
    if mean is not None and within < CANCELLATION_RATIO * about:
        centroids = sums / counts[:, None]
        futures = [
            client.submit(_residual_task, blocks_f, i, codes_f, centroids, mean, pure=False)
            for i in range(n_blocks)
        ]
        within = sum(_in_order(futures))
    if squared_norm == 0.0:
        raise ValueError("A is all zeros: F = 0/0 is undefined")
    return max(within, 0.0) / squared_norm


def _no_step(name: str) -> None:
    """No measurement at the end of a step."""


def compute_chunked_cell(
    cell: Cell, blocks, client, n_clusters: int | None = None, sketches=None, steps=None
) -> dict:
    """Reduce, cluster and evaluate one cell whose data are ``blocks`` (a
    :class:`~kmdr.datasets.RowBlocks`) on the dask ``client``; the same metric and timing
    columns as :func:`kmdr.engine.work.compute_cell` (see the module docstring for how they
    relate). ``n_clusters``: k (default: the blocks' ``n_clusters``); ``sketches``: the run's
    shared sketch SVDs (:func:`fitted_reducer`); ``steps``: called as ``steps(name)`` when each
    step ends, ``"reduce"`` (the fit, the blocks made and reduced on the workers, C gathered),
    ``"cluster"`` (k-means in the driver) and ``"score"`` (the pass for F, and the metrics), so a
    benchmark can read each step's wall and peak memory (``scripts/bench_distributed.py``).

    ``reduce_seconds`` is the driver's fit (with a sketch reducer's SVD over the blocks, also
    given as ``shared_seconds``: computed for this cell, never shared) plus the wall time of the
    pass that reduces the blocks (the workers' time in parallel, and the transfers);
    ``cluster_seconds`` is k-means in the driver. ``reduce_timing`` is "shared per repetition"
    for a sketch reducer with a shared key (its SVD's time charged to every cell of the
    repetition, as in memory), else "per cell".
    """
    from kmdr.engine.work import cell_metrics, cluster_reduced
    from kmdr.metrics import kmeans_objective

    k = int(blocks.n_clusters if n_clusters is None else n_clusters)
    y = np.asarray(blocks.labels())
    threads = cell.blas_threads
    start = time.perf_counter()
    [blocks_f] = client.scatter([blocks], broadcast=True, hash=False)
    with _limited(threads):
        reducer = fitted_reducer(cell, blocks, k, client, blocks_f, sketches)
    [reducer_f] = client.scatter([reducer], broadcast=True, hash=False)
    futures = [
        client.submit(_reduce_task, blocks_f, i, reducer_f, threads, pure=False)
        for i in range(len(blocks.bounds))
    ]
    parts, squared_norm, column_sums = [], 0.0, None
    for C_part, part_norm, part_sums in _in_order(futures):
        parts.append(C_part)
        squared_norm += part_norm
        if part_sums is not None:
            column_sums = part_sums if column_sums is None else column_sums + part_sums
    C = stack_rows(parts)
    del parts
    sketch = float(getattr(reducer, "sketch_seconds_", 0.0))
    reduce_seconds = (
        time.perf_counter() - start - getattr(reducer, "sketch_computed_seconds_", 0.0) + sketch
    )
    step = steps if steps is not None else _no_step
    step("reduce")
    _, km_seed = stream_seeds(cell.seed)
    start = time.perf_counter()
    with _limited(threads):
        result = cluster_reduced(reducer, C, None, k, cell.kmeans, y, km_seed)
    cluster_seconds = time.perf_counter() - start
    step("cluster")
    labels = result.labels
    mean = None if column_sums is None else column_sums / blocks.n_samples
    with _limited(threads):
        objective = _objective(client, blocks_f, blocks, labels, squared_norm, mean)
        objective_reduced = kmeans_objective(C, labels)
        metrics = cell_metrics(
            y,
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
    return metrics
