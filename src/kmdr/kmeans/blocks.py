"""Lloyd's k-means on row blocks that stay on the Dask workers: the in-memory algorithm, not an
approximation of it.

A chunked cell (:mod:`kmdr.engine.blocks`) leaves its reduced matrix C where it was computed,
as one future per row block. :func:`kmeans_on_blocks` clusters it there with the rules of
scikit-learn's ``KMeans(algorithm="lloyd")``, which :func:`kmdr.kmeans.lloyd.kmeans` runs in memory,
so that on data that also fit in memory a blocked cell has the in-memory cell's partition:

* a dense C is centered by its column mean first (summed in row order, as NumPy sums it in
  memory, so the mean is the same to the last bit), a sparse one is not;
* starts: k-means++ with ``2 + floor(log k)`` local trials, k distinct random rows, or given
  centers (the first point of each class), drawn from one ``RandomState`` in the order the
  ``n_init`` loop draws them. k-means++'s D² sampling is a search in a cumulative sum of the
  distances: each block answers it from the totals of the blocks before it, and returns the
  candidate rows it holds. The uniform draws of the first center and of the random rows are
  NumPy's ``RandomState.choice`` with scikit-learn's weights, reproduced in the driver a chunk
  of the cumulative sum at a time (the same sums, in the same order: the same index);
* each iteration is one task on each worker, the centers in it: the worker runs scikit-learn's
  own Lloyd kernel (``lloyd_iter_chunked_dense``/``_sparse``, with the threads the worker was
  given) on its blocks one after another, read from its own store (Dask spills and reads them
  back as any data), keeps their new labels, and returns each block's per-cluster sums and
  counts and how many labels changed; the driver adds them in block order, forms the inertia
  from them, relocates an empty cluster to the row farthest from its center (each block offers
  its farthest rows), averages, and measures the centers' shift (:class:`_OnWorkers`);
* it stops when no label changes, when the squared shift is at most ``tol`` times the mean
  per-feature variance of C (scikit-learn's relative ``tol``), or after ``max_iter``
  iterations, after which the labels are assigned once more to the final centers; the restart
  with the lowest inertia is kept unless its partition is the kept one's.

What can differ from memory is rounding: per-block sums are added in block order, not in one
pass, so centers, inertia and F agree within about 1e-12 relative and a label can only differ
where two centers are equally near to that precision. Two further differences, stated here: when
several clusters are empty at once, each takes the farthest rows in decreasing distance
(scikit-learn takes them in ``argpartition``'s order), which permutes cluster ids but not the
partition; MATLAB's online phase moves one row at a time over the whole matrix and is refused
with row blocks (:func:`~kmdr.config.checks.check_block_rows`).

dask-ml's KMeans and Spark MLlib's also cluster data no process holds whole, but both start from
k-means|| (a seeding that oversamples candidates in a few passes), which draws other centers
than k-means++ from the same seed, and neither follows scikit-learn's stopping and relocation
rules: neither gives the in-memory partition that a reproduction compares with, hence this
module.

The driver holds the centers and per-block summaries (O(k x r) per block), the candidate rows of
k-means++, and a chunk of the start's cumulative sum; C, its row norms and the labels stay on the
workers (each block where it was made, unless the centering pass moves a few to even out the
workers' shares), where the cell's scores read them (:mod:`kmdr.engine.blocks`);
:attr:`BlockedKMeans.labels` gathers them for a caller that wants them whole.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass

import numpy as np

from kmdr._native import limited_threads
from kmdr.kmeans._block_centering import as_float, center_blocks

# the dispatch; choice_with_weights and results_in_order are API
from kmdr.kmeans._block_dispatch import (
    block_data,
    check_workers,
    choice_with_weights,
    in_order,
    placement,
    results_in_order,
    spread,
)

__all__ = [
    "BlockedKMeans",
    "choice_with_weights",
    "gather_rows",
    "kmeans_on_blocks",
    "results_in_order",
]


# -- in the workers ----------------------------------------------------------------------------


def _squared_norms(C) -> np.ndarray:
    import scipy.sparse as sp

    if sp.issparse(C):
        return np.asarray(C.multiply(C).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", C, C)


def _variance_parts(C, mean: np.ndarray) -> np.ndarray:
    """The block's column sums of squared deviations from ``mean``."""
    import scipy.sparse as sp

    if sp.issparse(C):
        C = C.toarray()
    deviation = C - mean
    return np.einsum("ij,ij->j", deviation, deviation)


def _column_sums(C) -> np.ndarray:
    return np.asarray(C.sum(axis=0)).ravel()


def _distances_to(rows, C, norms) -> np.ndarray:
    """Squared distances of ``rows`` to the block's rows, as k-means++ computes them."""
    from sklearn.metrics.pairwise import euclidean_distances

    return euclidean_distances(rows, C, Y_norm_squared=norms[None, :], squared=True)


def _first_distances(C, norms, center) -> np.ndarray:
    return _distances_to(center, C, norms)[0]


def _total(closest: np.ndarray) -> tuple[float, float]:
    """The block's potential (a dot product, as the in-memory potential) and the last value of
    its cumulative sum (from which the next blocks' offsets follow)."""
    return float(closest @ np.ones_like(closest)), float(np.cumsum(closest)[-1])


def _candidates(C, closest: np.ndarray, offset: float, values: np.ndarray):
    """Where the cumulative sum of the distances reaches each of ``values`` in this block, if it
    does: ``(positions, found, rows)``; ``found[t]`` is False for a value past the block, and
    ``rows`` are the found ones' (dense)."""
    cumulative = offset + np.cumsum(closest)
    positions = np.searchsorted(cumulative, values)
    found = positions < closest.shape[0]
    return positions, found, _rows(C, positions[found])


def _trials(C, norms, closest: np.ndarray, rows):
    """Each candidate's new distances for the block and the block's share of its potential."""
    distances = _distances_to(rows, C, norms)
    np.minimum(closest, distances, out=distances)
    return distances, distances @ np.ones(distances.shape[1])


def _pick(trials, best: int) -> np.ndarray:
    return trials[0][best].copy()


def _rows(C, positions) -> np.ndarray:
    import scipy.sparse as sp

    rows = C[np.asarray(positions, dtype=np.intp)]
    return rows.toarray() if sp.issparse(rows) else np.array(rows)


# What a worker holds between the tasks of one k-means (``kmeans_on_blocks``): the keys of its
# blocks of C in its own store (managed by Dask: spilled and read back as any data) and, for
# each block, its first row and its current labels, under the clustering's token. Module state:
# a worker process imports this module once, so every task of the clustering on that worker
# finds it; :func:`_held_on_workers` installs and forgets it.
_HELD: dict[str, _Held] = {}


@dataclass
class _Held:
    keys: list
    starts: list[int]
    labels: list


def _worker_threads() -> int:
    """The threads this worker was given (its tasks' thread pool)."""
    from distributed import get_worker

    return int(get_worker().state.nthreads)


def _held(token: str) -> _Held:
    try:
        return _HELD[token]
    except KeyError:
        raise RuntimeError(
            "k-means on row blocks: this worker holds no state of the clustering (it was "
            "restarted, or the task ran on another worker than its blocks')"
        ) from None


def _install(token: str, keys: list, starts: list[int]) -> float:
    """Hold the clustering's state on this worker (its blocks' keys and first rows); the sum of
    its rows' squared norms (the inertia's constant part)."""
    total = 0.0
    for key in keys:
        total += float(_squared_norms(block_data(key)).sum())
    _HELD[token] = _Held(list(keys), list(starts), [None] * len(keys))
    return total


def _forget(token: str) -> None:
    _HELD.pop(token, None)


@functools.cache
def _ones(n: int) -> np.ndarray:
    return np.ones(n)


def _lloyd_block(X, centers: np.ndarray, threads: int, update: bool):
    """One E-step (and the M-step's sums) on one block with scikit-learn's own Lloyd kernel
    (``lloyd_iter_chunked_dense``/``_sparse``: distances by chunks of 256 rows in BLAS, the
    labels and per-cluster sums fused in one pass, ``threads`` OpenMP threads over the chunks;
    the caller holds BLAS to one thread, as scikit-learn does): ``(labels, sums, counts)``, sums
    only when ``update``.

    The kernel relocates clusters empty *in the block* and averages the sums; the block's sums
    are read back as mean x count (rounding of the last bit), unless a cluster was empty in the
    block, where they are summed from the labels instead (the relocation is the driver's, over
    all blocks)."""
    import scipy.sparse as sp
    from sklearn.cluster import _k_means_lloyd as lloyd

    sparse = sp.issparse(X)
    step = lloyd.lloyd_iter_chunked_sparse if sparse else lloyd.lloyd_iter_chunked_dense
    n, k = X.shape[0], centers.shape[0]
    labels = np.empty(n, dtype=np.int32)
    if n == 0:
        return labels, (np.zeros(centers.shape) if update else None), np.zeros(k)
    weights = _ones(n)
    fused = update and n >= k  # fewer rows than clusters: some are empty in the block
    if fused:
        means, weight = np.empty_like(centers), np.empty(k)
        step(X, weights, centers, means, weight, labels, np.empty(k), threads)
    else:
        step(X, weights, centers, None, None, labels, None, threads, update_centers=False)
    counts = np.bincount(labels, minlength=k).astype(np.float64)
    if not update:
        return labels, None, counts
    if fused and counts.all():
        sums = means * counts[:, None]
    else:
        from kmdr.metrics import cluster_sums

        sums = cluster_sums(X, labels, k)
        sums = sums.toarray() if sp.issparse(sums) else np.asarray(sums)
    return labels, sums, counts


def _step(token: str, centers: np.ndarray, update: bool, fresh: bool):
    """One Lloyd iteration over this worker's blocks, one block at a time: their new labels
    stay here; each block's ``(sums, counts)`` (k x r, k; sums only when ``update``) and the
    number of labels that changed (all of them when ``fresh``: a restart's first iteration) go
    back."""
    held = _held(token)
    threads = _worker_threads()
    out, changed = [], 0
    with limited_threads(1, load=False, user_api="blas"):
        for i, key in enumerate(held.keys):
            labels, sums, counts = _lloyd_block(block_data(key), centers, threads, update)
            previous = None if fresh else held.labels[i]
            changed += (
                labels.shape[0] if previous is None else int(np.count_nonzero(labels != previous))
            )
            held.labels[i] = labels
            out.append((sums, counts))
    return out, changed


class _Stepper:
    """The clustering's E-step on one worker, as a Dask actor: the driver calls it directly (no
    task through the scheduler), each call one :func:`_step` over the worker's blocks."""

    def __init__(self, token: str):
        self.token = token

    def step(self, centers: np.ndarray, update: bool, fresh: bool):
        return _step(self.token, centers, update, fresh)


def _farthest_held(token: str, centers: np.ndarray, n: int):
    """The ``n`` rows of each of this worker's blocks farthest from their centers
    (:func:`_farthest`'s four arrays, the blocks' concatenated)."""
    held = _held(token)
    found = [
        _farthest(block_data(key), labels, start, centers, n)
        for key, labels, start in zip(held.keys, held.labels, held.starts, strict=True)
    ]
    return tuple(np.concatenate([f[j] for f in found]) for j in range(4))


def _finish(token: str, centers: np.ndarray, relabel: bool) -> list[tuple]:
    """The end of a restart on this worker's blocks: their labels for the final centers (when
    ``relabel``: the loop ended on the shift, not on unchanged labels) and each block's
    ``(counts, inertia)``, the inertia by scikit-learn's own kernel (``_inertia_dense``/
    ``_sparse``, as its final inertia)."""
    import scipy.sparse as sp
    from sklearn.cluster import _k_means_common as common

    held = _held(token)
    threads = _worker_threads()
    out = []
    with limited_threads(1, load=False, user_api="blas"):
        for i, key in enumerate(held.keys):
            X = block_data(key)
            if relabel:
                held.labels[i], _, counts = _lloyd_block(X, centers, threads, False)
            else:
                counts = np.bincount(held.labels[i], minlength=centers.shape[0])
            inertia = common._inertia_sparse if sp.issparse(X) else common._inertia_dense
            n = X.shape[0]
            value = inertia(X, _ones(n), centers, held.labels[i], threads) if n else 0.0
            out.append((counts.astype(np.float64), float(value)))
    return out


def _labels_held(token: str, i: int) -> np.ndarray:
    """The labels of this worker's i-th block (as a value Dask holds: a future's)."""
    return _held(token).labels[i]


def _farthest(C, labels: np.ndarray, start: int, centers: np.ndarray, n: int):
    """The block's ``n`` rows farthest from their centers: ``(distances, global indices, labels,
    rows)``."""
    import scipy.sparse as sp

    gap = C - centers[labels]
    gap = np.asarray(gap)
    distances = np.einsum("ij,ij->i", gap, gap)
    n = min(n, distances.shape[0])
    top = np.argsort(-distances, kind="stable")[:n]
    rows = C[top]
    rows = rows.toarray() if sp.issparse(rows) else np.array(rows)
    return distances[top], top + start, labels[top], rows


def _mapping(labels: np.ndarray, other: np.ndarray, k: int):
    """The block's part of scikit-learn's same-clustering test: each cluster's first partner in
    ``other``, and whether the block is consistent with it."""
    mapping = np.full(k, -1, dtype=np.int64)
    first = np.unique(labels, return_index=True)
    mapping[first[0]] = other[first[1]]
    return mapping, bool(np.array_equal(mapping[labels], other))


# -- in the driver -----------------------------------------------------------------------------


@dataclass
class BlockedKMeans:
    """The best of ``n_init`` Lloyd runs on row blocks (:class:`kmdr.kmeans.lloyd.KMeansResult`'s
    fields; ``label_blocks``: one future per block, on the workers)."""

    label_blocks: list
    inertia: float
    n_iter: int
    cluster_centers: np.ndarray
    converged: bool
    counts: np.ndarray

    @property
    def labels(self) -> np.ndarray:
        """The labels of every row, gathered from the workers (which keep them)."""
        return np.concatenate(self.label_blocks[0].client.gather(self.label_blocks))


def gather_rows(client, parts: list, sizes: list[int], positions) -> np.ndarray:
    """The rows at global ``positions`` of a matrix held as row blocks (``parts``: futures of
    ``sizes`` rows each), fetched from their blocks, in that order, dense."""
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    positions = np.asarray(positions, dtype=np.int64)
    owner = np.searchsorted(starts, positions, side="right") - 1
    out = None
    for b in np.unique(owner):
        at = np.flatnonzero(owner == b)
        part = client.submit(_rows, parts[b], positions[at] - starts[b], pure=False).result()
        if out is None:
            out = np.empty((positions.shape[0], part.shape[1]))
        out[at] = part
    return out


class _OnWorkers:
    """The clustering's blocks where they are, one task per worker for each pass over them: a
    worker holds its blocks' keys and labels between the tasks (:func:`_install`), gets the
    centers once per pass, and answers for each of its blocks.

    Why so: a pass used to be a task per block (and two more to split its result), each with
    the centers in it, and a graph of them built in the driver. Every worker now runs one call
    a pass that reads its blocks from its own store one after another (spilled ones are read
    back one at a time, as Dask reads a task's input), and no block, label or norm ever travels
    after the start. The iteration's call goes to an actor on each worker (:class:`_Stepper`),
    straight from the driver to the worker and back: on 20,000 x 100 (where the arithmetic is
    small) it took a median 478 ms against 680 ms for a task per worker with the centers in it
    and 914 ms for the centers scattered to every worker first and a task per worker after them
    (the 2-core machine at a load average of 27: the hops through the scheduler are what it
    waits for). The rarer passes (the start, relocation, the end) are tasks."""

    #: Seconds between checks that the clustering's workers are still there, while waiting.
    WATCH = 2.0

    def __init__(self, client, parts: list, sizes: list[int]):
        import uuid

        self.client, self.parts, self.sizes = client, parts, sizes
        self.starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        where = placement(client, parts, sizes, move=False)  # where they are
        self.workers = sorted(set(where))
        self.blocks = {w: [i for i, x in enumerate(where) if x == w] for w in self.workers}
        self.token = f"kmeans-on-blocks-{uuid.uuid4().hex}"
        self.norm = None

    def __enter__(self):
        totals = self._each(
            lambda w: (
                _install,
                self.token,
                [self.parts[i].key for i in self.blocks[w]],
                [int(self.starts[i]) for i in self.blocks[w]],
            )
        )
        self.norm = sum(totals)
        self.actors = [
            self.client.submit(
                _Stepper, self.token, workers=[w], allow_other_workers=False, pure=False,
                actor=True,
            )
            for w in self.workers
        ]  # fmt: skip
        self.steppers = [actor.result() for actor in self.actors]
        return self

    def __exit__(self, *exc):
        alive = set(self.client.scheduler_info(n_workers=-1)["workers"])
        workers = [w for w in self.workers if w in alive]
        if workers:
            self.client.run(_forget, self.token, workers=workers, on_error="ignore")

    def _each(self, task, actor: bool = False) -> list:
        """``task(worker)`` (a function and its arguments) run on each worker, pinned there;
        their results in the workers' order. A worker that leaves meanwhile ends the wait."""
        from distributed import wait

        futures = [
            self.client.submit(
                *task(w), workers=[w], allow_other_workers=False, pure=False, actor=actor
            )
            for w in self.workers
        ]
        while True:
            try:
                wait(futures, timeout=self.WATCH)
                break
            except TimeoutError:
                check_workers(self.client, self.workers)
        return self.client.gather(futures)

    def _per_block(self, answers: list) -> list:
        """Each worker's list of per-block answers, as one list in block order."""
        out = [None] * len(self.parts)
        for w, answer in zip(self.workers, answers, strict=True):
            for i, value in zip(self.blocks[w], answer, strict=True):
                out[i] = value
        return out

    def step(self, centers: np.ndarray, update: bool, fresh: bool):
        """One E-step (and the M-step's sums when ``update``) on every block, the centers sent
        once per worker: ``(sums, counts, changed)``, added in block order (sums None unless
        ``update``)."""
        centers = np.ascontiguousarray(centers, dtype=np.float64)
        try:
            calls = [stepper.step(centers, update, fresh) for stepper in self.steppers]
            answers = [call.result() for call in calls]
        except Exception:  # a worker lost says so; any other error is the call's own
            for worker, actor in zip(self.workers, self.actors, strict=True):
                if actor.status != "finished":
                    raise RuntimeError(
                        f"k-means on row blocks: worker {worker} left the cluster or was "
                        "restarted; the blocks it held are lost"
                    ) from None
            check_workers(self.client, self.workers)
            raise
        blocks = self._per_block([a[0] for a in answers])
        counts = functools.reduce(operator.add, (b[1] for b in blocks))
        sums = functools.reduce(operator.add, (b[0] for b in blocks)) if update else None
        return sums, counts, sum(a[1] for a in answers)

    def farthest(self, centers: np.ndarray, n: int):
        """Each block's ``n`` rows farthest from their centers (:func:`_farthest`), concatenated:
        ``(distances, global indices, labels, rows)``."""
        found = self._each(lambda w: (_farthest_held, self.token, centers, n))
        return tuple(np.concatenate([f[j] for f in found]) for j in range(4))

    def finish(self, centers: np.ndarray, relabel: bool):
        """``(counts, inertia)`` of the labels for ``centers`` (assigned anew when
        ``relabel``), added in block order."""
        centers = np.ascontiguousarray(centers, dtype=np.float64)
        blocks = self._per_block(self._each(lambda w: (_finish, self.token, centers, relabel)))
        return functools.reduce(operator.add, (b[0] for b in blocks)), sum(b[1] for b in blocks)

    def labels(self) -> list:
        """The labels as a future per block, on the block's worker (they outlive the state:
        taken before it is forgotten)."""
        from distributed import wait

        where = {i: w for w in self.workers for i in self.blocks[w]}
        futures = [
            self.client.submit(
                _labels_held, self.token, self.blocks[where[i]].index(i), workers=[where[i]],
                allow_other_workers=False, pure=False,
            )
            for i in range(len(self.parts))
        ]  # fmt: skip
        wait(futures)
        return futures


class _Blocks:
    """C's blocks on the cluster and what is known of them."""

    def __init__(self, client, parts: list, sizes: list[int], sparse: bool):
        self.client, self.parts, self.sizes, self.sparse = client, parts, sizes, sparse
        self.starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.n = int(sum(sizes))

    def map(self, fn, *columns, tail=()) -> list:
        """``fn(block, *(column[i] for column in columns), *tail)`` on every block i, where it
        lives (futures)."""
        submit = self.client.submit
        rows = zip(self.parts, *columns, strict=True)
        return [submit(fn, *row, *tail, pure=False) for row in rows]

    def rows(self, positions) -> np.ndarray:
        """The rows at global ``positions`` (fetched from their blocks), in that order."""
        return gather_rows(self.client, self.parts, self.sizes, positions)


def _plusplus(blocks: _Blocks, norms: list, k: int, random_state) -> np.ndarray:
    """scikit-learn's greedy k-means++ (``_kmeans_plusplus``) over the blocks."""
    trials = 2 + int(np.log(k))
    first = choice_with_weights(random_state, blocks.n)
    center = blocks.rows([first])
    centers = np.empty((k, center.shape[1]))
    centers[0] = center[0]
    closest = blocks.map(_first_distances, norms, tail=(center,))
    potential = None
    for c in range(1, k):
        totals = in_order([blocks.client.submit(_total, c, pure=False) for c in closest])
        if potential is None:
            potential = sum(t[0] for t in totals)
        offsets = np.concatenate([[0.0], np.cumsum([t[1] for t in totals])[:-1]])
        values = random_state.uniform(size=trials) * potential
        found = in_order(blocks.map(_candidates, closest, offsets, tail=(values,)))
        ids = np.full(trials, blocks.n - 1, dtype=np.int64)  # past the end: the last row
        rows, taken = [None] * trials, np.zeros(trials, dtype=bool)
        for b, (positions, hit, block_rows) in enumerate(found):
            new = hit & ~taken
            order = np.flatnonzero(hit)
            for t in np.flatnonzero(new):
                ids[t] = blocks.starts[b] + positions[t]
                j = int(np.searchsorted(order, t))
                rows[t] = block_rows[j : j + 1]
            taken |= hit
        missing = [t for t in range(trials) if rows[t] is None]
        if missing:
            last = blocks.rows(ids[missing])
            for j, t in enumerate(missing):
                rows[t] = last[j : j + 1]
        candidates = np.vstack(rows)
        tried = blocks.map(_trials, norms, closest, tail=(candidates,))
        pots = sum(in_order([blocks.client.submit(operator.itemgetter(1), t) for t in tried]))
        best = int(np.argmin(pots))
        potential = pots[best]
        closest = [blocks.client.submit(_pick, t, best, pure=False) for t in tried]
        centers[c] = candidates[best]
    return centers


def _start(blocks: _Blocks, norms, k: int, init, random_state) -> np.ndarray:
    if isinstance(init, str) and init == "k-means++":
        return _plusplus(blocks, norms, k, random_state)
    if isinstance(init, str):  # random: k distinct rows
        return blocks.rows(choice_with_weights(random_state, blocks.n, k))
    return np.array(init, dtype=np.float64)


def _relocate(held: _OnWorkers, centers_old, sums, counts) -> None:
    """scikit-learn's relocation of empty clusters, in place on ``sums`` and ``counts``."""
    empty = np.flatnonzero(counts == 0)
    if not empty.size:
        return
    distance, index, owner, rows = held.farthest(centers_old, empty.size)
    order = np.lexsort((index, -distance))[: empty.size]
    for new, at in zip(empty, order, strict=True):
        old = owner[at]
        sums[old] -= rows[at]
        sums[new] = rows[at]
        counts[new] = 1.0
        counts[old] -= 1.0


def _inertia_from_sums(norm: float, centers, sums, counts) -> float:
    """The inertia of an assignment to ``centers`` from its per-cluster sums and counts:
    ``sum ||x||^2 - 2 sum_j c_j . s_j + sum_j n_j ||c_j||^2`` (what the whole-block E-step added
    row by row)."""
    return float(
        norm - 2.0 * np.einsum("ij,ij->", centers, sums)
        + counts @ np.einsum("ij,ij->i", centers, centers)
    )  # fmt: skip


def _lloyd(held: _OnWorkers, centers, max_iter: int, tol: float, report):
    """One restart: ``(label futures, inertia, centers, n_iter, counts)``, as scikit-learn's
    ``_kmeans_single_lloyd``."""
    strict = False
    for i in range(max_iter):
        sums, counts, changed = held.step(centers, update=True, fresh=i == 0)
        if report is not None:
            report(i + 1, _inertia_from_sums(held.norm, centers, sums, counts))
        _relocate(held, centers, sums, counts)
        filled = counts > 0
        sums[filled] *= (1.0 / counts[filled])[:, None]
        shift = np.sqrt(np.einsum("ij,ij->i", sums - centers, sums - centers))
        centers = sums
        if changed == 0:
            strict = True
            break
        if (shift**2).sum() <= tol:
            break
    counts, inertia = held.finish(centers, relabel=not strict)  # the final centers' labels
    return held.labels(), inertia, centers, i + 1, counts


def _same_clustering(client, labels, best, k: int) -> bool:
    """scikit-learn's ``_is_same_clustering`` of two label sets held as blocks."""
    merged = np.full(k, -1, dtype=np.int64)
    for mapping, consistent in in_order(
        [client.submit(_mapping, a, b, k, pure=False) for a, b in zip(labels, best, strict=True)]
    ):
        if not consistent:
            return False
        seen = mapping >= 0
        clash = seen & (merged >= 0) & (merged != mapping)
        if clash.any():
            return False
        merged[seen & (merged < 0)] = mapping[seen & (merged < 0)]
    return True


def _tolerance(blocks: _Blocks, parts, tol: float) -> float:
    """scikit-learn's tolerance: ``tol`` times the mean per-feature variance of C."""
    if tol == 0:
        return 0.0
    mean = sum(in_order(blocks.client.map(_column_sums, parts, pure=False))) / blocks.n
    spread = sum(
        in_order([blocks.client.submit(_variance_parts, p, mean, pure=False) for p in parts])
    )
    return float(np.mean(spread / blocks.n) * tol)


def kmeans_on_blocks(
    client,
    parts: list,
    sizes: list[int],
    n_clusters: int,
    *,
    sparse: bool,
    n_init: int = 5,
    max_iter: int = 500,
    init="k-means++",
    tol: float = 1e-4,
    random_state=None,
    report=None,
    mean=None,
) -> BlockedKMeans:
    """Lloyd's k-means on C held as row blocks (``parts``: one future per block, ``sizes``: their
    rows), with :func:`kmdr.kmeans.lloyd.kmeans`'s settings; see the module docstring.

    ``init``: ``"k-means++"``, ``"random"`` (``"sample"``) or an array of initial centers (one
    deterministic run). ``report(restart, iteration, inertia)``: called after every iteration
    of every restart (numbered from 1; the inertia of that iteration's assignment); what it
    raises stops the clustering (a caller's stop signal).

    A dense C is clustered centered, as scikit-learn clusters it: ``mean=None`` centers copies
    of the blocks here (:func:`~kmdr.kmeans._block_centering.center_blocks`); a caller that
    centered them
    already (and let the originals go, so that the workers never hold C twice) passes the mean
    it took. Sparse C is never centered."""
    from sklearn.utils import check_random_state

    from kmdr.kmeans.lloyd import INITS, check_kmeans_params

    check_kmeans_params(
        "kmeans_on_blocks",
        sum(sizes),
        n_clusters=n_clusters,
        n_init=n_init,
        max_iter=max_iter,
        tol=tol,
        init=init,
    )
    state = check_random_state(random_state)
    if sparse:
        parts = spread(client, as_float, parts, sizes)
    elif mean is None:
        parts, mean = center_blocks(client, parts, sizes)
    blocks = _Blocks(client, list(parts), list(sizes), sparse)
    tol = _tolerance(blocks, blocks.parts, float(tol))
    if isinstance(init, str):
        init = INITS[init]
    else:
        init = np.asarray(init, dtype=np.float64) - (0.0 if mean is None else mean)
        n_init = 1
    norms = blocks.map(_squared_norms) if isinstance(init, str) and init == "k-means++" else None
    best = None
    with _OnWorkers(client, blocks.parts, blocks.sizes) as held:
        for restart in range(n_init):
            centers = _start(blocks, norms, n_clusters, init, state)
            told = None if report is None else functools.partial(report, restart + 1)
            labels, inertia, centers, n_iter, counts = _lloyd(held, centers, max_iter, tol, told)
            if best is None or (
                inertia < best[1] and not _same_clustering(client, labels, best[0], n_clusters)
            ):
                best = (labels, inertia, centers, n_iter, counts)
    labels, inertia, centers, n_iter, counts = best
    if mean is not None:
        centers = centers + mean
    return BlockedKMeans(
        label_blocks=labels,
        inertia=float(inertia),
        n_iter=int(n_iter),
        cluster_centers=centers,
        converged=bool(n_iter < max_iter),
        counts=counts,
    )
