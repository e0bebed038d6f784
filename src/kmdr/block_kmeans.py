"""Lloyd's k-means on row blocks that stay on the Dask workers: the in-memory algorithm, not an
approximation of it.

A chunked cell (:mod:`kmdr.engine.chunked`) leaves its reduced matrix C where it was computed,
as one future per row block. :func:`kmeans_on_blocks` clusters it there with the rules of
scikit-learn's ``KMeans(algorithm="lloyd")``, which :func:`kmdr.cluster.kmeans` runs in memory,
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
* each iteration: every block assigns its rows to the nearest center (the first of equal ones)
  and returns its per-cluster sums, counts, the number of labels that changed and its share of
  the inertia; the driver relocates an empty cluster to the row farthest from its center (each
  block offers its farthest rows), averages, and measures the centers' shift;
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
workers, where the cell's scores read them (:mod:`kmdr.engine.chunked`);
:attr:`BlockedKMeans.labels` gathers them for a caller that wants them whole.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass

import numpy as np

__all__ = [
    "BlockedKMeans",
    "center_blocks",
    "choice_with_weights",
    "gather_rows",
    "kmeans_on_blocks",
    "results_in_order",
]

#: Entries of the start's cumulative sum the driver holds at once (8 MiB of float64).
CHUNK = 1 << 20


# -- in the workers ----------------------------------------------------------------------------


def _as_float(C):
    """C as float64: dense C-ordered, or CSR."""
    import scipy.sparse as sp

    if sp.issparse(C):
        return sp.csr_matrix(C, dtype=np.float64)
    return np.ascontiguousarray(C, dtype=np.float64)


def _sum_after(C, carry: np.ndarray) -> np.ndarray:
    """``carry`` plus the rows of dense C added one after another, as NumPy's ``sum(axis=0)``
    adds a C-ordered matrix's rows: block after block, the column sums of the whole matrix."""
    C = _as_float(C)
    total = carry
    for lo in range(0, C.shape[0], 4096):
        total = np.add.reduce(np.concatenate([total[None], C[lo : lo + 4096]]), axis=0)
    return total


def _centered(C, mean):
    """Dense C, as float64, minus the column mean (a new block)."""
    return np.subtract(_as_float(C), mean, order="C")


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


def _assign(C, norms, previous, centers: np.ndarray, update: bool):
    """One E-step on the block: its labels, and what the driver needs of it
    (``(sums, counts, changed, inertia)``; sums only when ``update``)."""
    import scipy.sparse as sp

    k = centers.shape[0]
    distances = C @ centers.T
    distances *= -2.0
    distances += np.einsum("ij,ij->i", centers, centers)
    labels = np.argmin(distances, axis=1).astype(np.int32)
    nearest = distances[np.arange(labels.shape[0]), labels]
    inertia = float(np.sum(nearest + norms))
    changed = labels.shape[0] if previous is None else int(np.count_nonzero(labels != previous))
    counts = np.bincount(labels, minlength=k).astype(np.float64)
    sums = None
    if update:
        indicator = sp.csr_matrix(
            (np.ones(labels.shape[0]), (labels, np.arange(labels.shape[0]))),
            shape=(k, labels.shape[0]),
        )
        sums = indicator @ C
        sums = sums.toarray() if sp.issparse(sums) else np.asarray(sums)
    return labels, (sums, counts, changed, inertia)


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


def _inertia(C, labels: np.ndarray, centers: np.ndarray) -> float:
    """Sum of squared distances of the block's rows to their centers."""
    gap = np.asarray(C - centers[labels])
    return float(np.einsum("ij,ij->", gap, gap))


def _mapping(labels: np.ndarray, other: np.ndarray, k: int):
    """The block's part of scikit-learn's same-clustering test: each cluster's first partner in
    ``other``, and whether the block is consistent with it."""
    mapping = np.full(k, -1, dtype=np.int64)
    first = np.unique(labels, return_index=True)
    mapping[first[0]] = other[first[1]]
    return mapping, bool(np.array_equal(mapping[labels], other))


# -- in the driver -----------------------------------------------------------------------------


def choice_with_weights(
    random_state, n: int, size: int | None = None, chunk: int = CHUNK
) -> np.ndarray | int:
    """``random_state.choice(n, size, replace=False, p=ones(n)/n)`` (``size=None``: one index,
    with replacement), as NumPy computes it, holding ``chunk`` entries of its cumulative sum at a
    time instead of n: scikit-learn draws its uniform starts so."""
    p_value = 1.0 / n  # ones(n) / ones(n).sum(): every weight the same double

    def cdf_chunks(zeroed: np.ndarray):
        carry = 0.0
        for lo in range(0, n, chunk):
            p = np.full(min(chunk, n - lo), p_value)
            inside = zeroed[(zeroed >= lo) & (zeroed < lo + p.shape[0])]
            p[inside - lo] = 0.0
            cdf = np.cumsum(np.concatenate([[carry], p]))[1:]
            carry = cdf[-1]
            yield cdf

    def search(values: np.ndarray, zeroed: np.ndarray) -> np.ndarray:
        last = 0.0
        for cdf in cdf_chunks(zeroed):
            last = cdf[-1]
        found = np.zeros(values.shape[0], dtype=np.int64)
        for cdf in cdf_chunks(zeroed):
            found += np.searchsorted(cdf / last, values, side="right")
        return found

    if size is None:
        return int(search(np.atleast_1d(random_state.random_sample()), np.empty(0, np.int64))[0])
    taken: list[int] = []
    while len(taken) < size:
        values = random_state.rand(size - len(taken))
        new = search(values, np.asarray(taken, dtype=np.int64))
        _, first = np.unique(new, return_index=True)
        taken.extend(int(i) for i in new[np.sort(first)])
    return np.asarray(taken, dtype=np.int64)


def results_in_order(futures):
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


def _in_order(futures) -> list:
    return list(results_in_order(futures))


@dataclass
class BlockedKMeans:
    """The best of ``n_init`` Lloyd runs on row blocks (:class:`kmdr.cluster.KMeansResult`'s
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


def center_blocks(client, parts: list) -> tuple[list, np.ndarray]:
    """Dense C's blocks centered by its column mean, as scikit-learn centers a dense X before
    k-means: ``(centered blocks, mean)``. The column sums are taken in row order, block after
    block, as NumPy sums the whole matrix, so the mean is the in-memory mean to the last bit. The
    centered blocks are new; the caller lets the originals go."""
    width = client.submit(operator.attrgetter("shape"), parts[0], pure=False).result()[1]
    total, n = np.zeros(width), 0
    for part in parts:
        total = client.submit(_sum_after, part, total, pure=False)
    for shape in client.gather([client.submit(np.shape, p, pure=False) for p in parts]):
        n += shape[0]
    mean = total.result() / n
    return [client.submit(_centered, part, mean, pure=False) for part in parts], mean


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

    def split(self, futures, parts: int) -> list[list]:
        """Futures of tuples as ``parts`` lists of futures, one per tuple position."""
        submit = self.client.submit
        return [[submit(operator.getitem, f, j, pure=False) for f in futures] for j in range(parts)]

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
        totals = _in_order([blocks.client.submit(_total, c, pure=False) for c in closest])
        if potential is None:
            potential = sum(t[0] for t in totals)
        offsets = np.concatenate([[0.0], np.cumsum([t[1] for t in totals])[:-1]])
        values = random_state.uniform(size=trials) * potential
        found = _in_order(blocks.map(_candidates, closest, offsets, tail=(values,)))
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
        pots = sum(_in_order([blocks.client.submit(operator.itemgetter(1), t) for t in tried]))
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


def _relocate(blocks: _Blocks, labels, centers_old, sums, counts) -> None:
    """scikit-learn's relocation of empty clusters, in place on ``sums`` and ``counts``."""
    empty = np.flatnonzero(counts == 0)
    if not empty.size:
        return
    found = _in_order(blocks.map(_farthest, labels, blocks.starts, tail=(centers_old, empty.size)))
    distance = np.concatenate([f[0] for f in found])
    index = np.concatenate([f[1] for f in found])
    owner = np.concatenate([f[2] for f in found])
    rows = np.vstack([f[3] for f in found])
    order = np.lexsort((index, -distance))[: empty.size]
    for new, at in zip(empty, order, strict=True):
        old = owner[at]
        sums[old] -= rows[at]
        sums[new] = rows[at]
        counts[new] = 1.0
        counts[old] -= 1.0


def _lloyd(blocks, norms, centers, max_iter: int, tol: float, report):
    """One restart: ``(label futures, inertia, centers, n_iter, counts)``, as scikit-learn's
    ``_kmeans_single_lloyd``."""
    labels = [None] * len(blocks.parts)
    strict = False
    for i in range(max_iter):
        steps = blocks.map(_assign, norms, labels, tail=(centers, True))
        new_labels, summaries = blocks.split(steps, 2)
        summaries = _in_order(summaries)
        sums = sum(s[0] for s in summaries)
        counts = sum(s[1] for s in summaries)
        changed = sum(s[2] for s in summaries)
        if report is not None:
            report(i + 1, sum(s[3] for s in summaries))
        _relocate(blocks, new_labels, centers, sums, counts)
        filled = counts > 0
        sums[filled] *= (1.0 / counts[filled])[:, None]
        shift = np.sqrt(np.einsum("ij,ij->i", sums - centers, sums - centers))
        centers, labels = sums, new_labels
        if changed == 0:
            strict = True
            break
        if (shift**2).sum() <= tol:
            break
    if not strict:  # the labels of the final centers
        steps = blocks.map(_assign, norms, [None] * len(norms), tail=(centers, False))
        labels, summaries = blocks.split(steps, 2)
        counts = sum(s[1] for s in _in_order(summaries))
    inertia = sum(_in_order(blocks.map(_inertia, labels, tail=(centers,))))
    return labels, inertia, centers, i + 1, counts


def _same_clustering(client, labels, best, k: int) -> bool:
    """scikit-learn's ``_is_same_clustering`` of two label sets held as blocks."""
    merged = np.full(k, -1, dtype=np.int64)
    for mapping, consistent in _in_order(
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
    mean = sum(_in_order(blocks.client.map(_column_sums, parts, pure=False))) / blocks.n
    spread = sum(
        _in_order([blocks.client.submit(_variance_parts, p, mean, pure=False) for p in parts])
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
    rows), with :func:`kmdr.cluster.kmeans`'s settings; see the module docstring.

    ``init``: ``"k-means++"``, ``"random"`` (``"sample"``) or an array of initial centers (one
    deterministic run). ``report(restart, iteration, inertia)``: called after every iteration
    of every restart (numbered from 1; the inertia of that iteration's assignment); what it
    raises stops the clustering (a caller's stop signal).

    A dense C is clustered centered, as scikit-learn clusters it: ``mean=None`` centers copies
    of the blocks here (:func:`center_blocks`); a caller that centered them already (and let the
    originals go, so that the workers never hold C twice) passes the mean it took. Sparse C is
    never centered."""
    from sklearn.utils import check_random_state

    from kmdr.cluster import INITS, check_kmeans_params

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
        parts = [client.submit(_as_float, part, pure=False) for part in parts]
    elif mean is None:
        parts, mean = center_blocks(client, parts)
    blocks = _Blocks(client, list(parts), list(sizes), sparse)
    norms = blocks.map(_squared_norms)
    tol = _tolerance(blocks, blocks.parts, float(tol))
    if isinstance(init, str):
        init = INITS[init]
    else:
        init = np.asarray(init, dtype=np.float64) - (0.0 if mean is None else mean)
        n_init = 1
    best = None
    for restart in range(n_init):
        centers = _start(blocks, norms, n_clusters, init, state)
        told = None if report is None else functools.partial(report, restart + 1)
        labels, inertia, centers, n_iter, counts = _lloyd(
            blocks, norms, centers, max_iter, tol, told
        )
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
