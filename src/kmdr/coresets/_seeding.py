"""The authors' k-means++ seeding loop, whose own updates assign the rows: StreamKM++'s weights and
Ray Maker's clusters.

Schwiegelshohn and Sheikh-Omar's ``KMeans::pickInitialCentersViaKMeansPlusPlus``
(sheikhomar/eval-k-means-coresets, ``gs/source/clustering/kmeans.cpp``, with the distances of
``gs/include/utils/distances.hpp``) keeps, for each row, the smallest squared distance to the
seeds picked so far and the seed that gave it: when a seed is picked, every row whose distance to
it is *strictly* smaller than its smallest moves to it, and the next seed is drawn in proportion
to the smallest distances (after the last seed, the rows are compared once more, to move them, not
to draw). A row is thus its first strictly nearest seed in the order they were picked, in that
loop's arithmetic:

- the squared distance is ``|x|^2 + |c|^2 - 2 x.c``, summed in that order, ``0`` for a row and
  itself;
- the squared norms and the dot product are summed column by column, in order (their zero terms
  skipped, which changes no sum).

On the Benchmark, whose points are equidistant block by block, that rounding decides which of the
equidistant seeds a row goes to; :func:`seeding_loop` reproduces it: the sums are column by column
(NumPy's reduction over the outer axis of a C-ordered array adds the rows in order; a CSR row's
product sums its stored entries in order), the comparisons strict, in pick order.

A dense X is copied once, transposed (features x rows), so that each seed's column-by-column
sums read it in order: the loop holds a second copy of the data, as scikit-learn's k-means++ does
not.

Where it differs from theirs: the draws are NumPy's (not their ``std::mt19937`` stream), the first
seed is drawn in proportion to the rows' weights and the next in proportion to weight times
smallest distance (theirs: uniform, and the distance; their rows all weigh 1), and a distance that
rounds below 0 counts as 0 in the draws (their ``std::discrete_distribution`` is given it as is).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["seeding_loop"]

#: Entries of the (features x rows) products summed at a time: a block stays in cache.
_BLOCK = 2**18


def _column_sums(X, c: np.ndarray | None, out: np.ndarray) -> np.ndarray:
    """Each row's ``sum_j X[i, j] * c[j]`` (``X[i, j]**2`` when ``c`` is None), summed over the
    columns in order, as the authors' loops do. A dense X is given transposed (``X.T``,
    C-ordered)."""
    if sp.issparse(X):
        X = X.tocsr()
        X.sort_indices()  # a CSR product sums a row's stored entries in their order
        if c is None:
            squared = X.multiply(X).tocsr()
            squared.sort_indices()
            out[:] = squared @ np.ones(X.shape[1])
        else:
            out[:] = X @ c
        return out
    d, n = X.shape  # a dense X comes transposed, C-ordered: (features x rows)
    step = max(1, _BLOCK // max(1, d))
    buffer = np.empty((d, min(step, n)))
    for start in range(0, n, step):
        rows = X[:, start : start + step]
        block = buffer[:, : rows.shape[1]]
        # the reduction over axis 0 of a C-ordered block adds feature after feature, in order
        np.multiply(rows, rows if c is None else c[:, None], out=block)
        np.add.reduce(block, axis=0, out=out[start : start + rows.shape[1]])
    return out


def _transposed(X) -> np.ndarray:
    """A copy of dense X as (features x rows), C-ordered, copied a block of rows at a time (a
    block's transpose stays in cache): each seed's products are then read in order."""
    n, d = X.shape
    out = np.empty((d, n))
    step = 1024  # rows: a block and its transpose stay in the first caches
    for start in range(0, n, step):
        out[:, start : start + step] = X[start : start + step].T
    return out


def _draw(rng, p: np.ndarray) -> int:
    """A row drawn in proportion to ``p`` (not all 0): one uniform draw against the cumulative
    sum (``RandomState.choice`` checks and copies p, which costs more than the seeding's pass)."""
    cumulative = np.cumsum(p)
    drawn = int(np.searchsorted(cumulative, rng.uniform() * cumulative[-1], side="right"))
    # a product rounded up to the total: the last row that has a weight, not one past it
    return min(drawn, int(np.searchsorted(cumulative, cumulative[-1])))


def seeding_loop(X, weight, n_seeds: int, rng):
    """The authors' seeding loop on ``X``: ``n_seeds`` seeds by D^2 draws, each row kept by the
    first seed strictly nearest in their arithmetic.

    Returns
    -------
    seeds : ndarray of shape (n_seeds,)
        The seeds' rows, in the order they were picked.
    owner : ndarray of shape (n_samples,)
        The row of each row's seed. A seed may own no row (a row equal to an earlier seed is never
        drawn while another row has a positive distance; when all are 0 the draw may repeat one).
    """
    n = X.shape[0]
    data = X if sp.issparse(X) else _transposed(X)
    sq = _column_sums(data, None, np.empty(n))
    smallest = np.full(n, np.finfo(np.float64).max)
    owner = np.full(n, -1, dtype=np.intp)
    dot = np.empty(n)
    weight = np.asarray(weight, dtype=np.float64)
    seeds = [_draw(rng, weight)]
    for c in range(1, n_seeds + 1):
        center = seeds[-1]
        row = X[[center]]
        row = (row.toarray() if sp.issparse(row) else np.asarray(row)).ravel().astype(np.float64)
        _column_sums(data, row, dot)
        distance = (sq + sq[center]) - 2 * dot
        distance[center] = 0.0
        closer = distance < smallest
        owner[closer] = center
        if c == n_seeds:  # the final reassignment: the smallest distances are not kept
            break
        smallest[closer] = distance[closer]
        p = weight * np.maximum(smallest, 0.0)
        seeds.append(_draw(rng, p) if p.sum() > 0 else int(rng.randint(n)))
    return np.array(seeds), owner
