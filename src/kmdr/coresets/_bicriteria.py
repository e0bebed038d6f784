"""The rough solution sensitivity and group sampling start from: k-means++ seeding, no Lloyd step.

The authors' constructions (sheikhomar/eval-k-means-coresets, ``gs/source/main.cpp``) seed
``2k`` centers by plain k-means++ (one candidate per step, their ``KMeans(2k, true, 0)``) and
assign every point to its nearest seed: a bicriteria approximation, cheap and good enough for
sensitivities. scikit-learn's :func:`~sklearn.cluster.kmeans_plusplus` with ``n_local_trials=1``
draws the seeds (its arithmetic, not the authors': the draws are k-means++'s D^2 draws either way).

The assignment is the authors' ``ClusterAssignmentList::assignAll``
(``gs/source/clustering/cluster_assignment_list.cpp``), reached through ``KMeans::run`` with no
Lloyd iteration (``gs/source/clustering/kmeans.cpp``):

- the seeds are copied from a ``std::set`` of their row indices, so they are in increasing row
  order, and a cluster's number is its seed's rank in that order;
- each row's distance to a seed is the norm of the explicit difference ``x - c``, compared with a
  strict ``<`` seed after seed: a tie goes to the seed of the lowest row index;
- what is stored, and what the constructions sample by, is that Euclidean *distance*, not its
  square.

:func:`nearest_seed` reproduces that rule without the ``n x 2k x d`` explicit differences: the
usual expansion ``|x|^2 - 2 x.c + |c|^2`` (a matrix product) finds, for each row, the seeds within
its rounding error of the nearest, and only those are measured by explicit differences, the first
of the smallest winning. A dense row's distance to its seed is its explicit difference's norm, as
there (on the Benchmark, whose differences are exact, every tie stays a tie); a sparse row's is the
expansion's unless it was measured, since densifying every sparse row would cost ``n d``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import kmeans_plusplus
from sklearn.utils.extmath import row_norms, safe_sparse_dot

__all__ = ["bicriteria", "nearest_seed"]

#: Entries of the (rows x seeds x features) explicit differences measured at a time.
_BUDGET = 2**22


def _dense(rows) -> np.ndarray:
    return rows.toarray() if sp.issparse(rows) else np.asarray(rows, dtype=np.float64)


def _explicit(X, rows, centers, seeds) -> np.ndarray:
    """The squared norms of ``X[rows] - centers[seeds]``, by explicit differences."""
    out = np.empty(rows.size)
    step = max(1, _BUDGET // max(1, centers.shape[1]))
    for i in range(0, rows.size, step):
        diff = _dense(X[rows[i : i + step]]) - centers[seeds[i : i + step]]
        out[i : i + step] = np.einsum("ij,ij->i", diff, diff)
    return out


def nearest_seed(X, centers):
    """Each row's nearest of ``centers`` (dense, in the order ties go by) and its squared
    distance, as the authors' ``assignAll`` decides it: explicit differences, a tie to the first.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
    sq_dist : ndarray of shape (n_samples,)
    """
    n, d = X.shape
    centers = np.asarray(centers, dtype=np.float64)
    x_sq = row_norms(X, squared=True).astype(np.float64)
    c_sq = row_norms(centers, squared=True)
    # how far the expansion may be from the explicit difference (a generous bound on the rounding
    # of a d-term dot product and the two norms)
    slack = 16 * (d + 2) * np.finfo(np.float64).eps * (x_sq + c_sq.max())
    labels = np.empty(n, dtype=np.intp)
    sq_dist = np.empty(n)
    step = max(1, _BUDGET // max(1, centers.shape[0] * d))
    for start in range(0, n, step):
        chunk = slice(start, min(start + step, n))
        expanded = x_sq[chunk, None] - 2 * safe_sparse_dot(X[chunk], centers.T) + c_sq[None, :]
        best = expanded.min(axis=1)
        near = expanded <= (best + 2 * slack[chunk])[:, None]
        # a row near a seed (its own) is measured too: its distance is exactly 0 there
        unsure = (near.sum(axis=1) > 1) | (best <= 2 * slack[chunk])
        label = near.argmax(axis=1)  # the only candidate of a sure row
        dist = np.maximum(expanded[np.arange(label.size), label], 0.0)
        rows, seeds = np.nonzero(near & unsure[:, None])  # by row, then seed: the authors' order
        if rows.size:
            measured = _explicit(X, start + rows, centers, seeds)
            # the first of each row's smallest (seeds are in order within a row)
            first = np.flatnonzero(np.diff(rows, prepend=-1))
            smallest = np.minimum.reduceat(measured, first)
            per_row = np.diff(first, append=rows.size)
            winners = np.flatnonzero(measured == np.repeat(smallest, per_row))
            winners = winners[np.flatnonzero(np.diff(rows[winners], prepend=-1))]
            label[rows[winners]] = seeds[winners]
            dist[rows[winners]] = measured[winners]
        if not sp.issparse(X):  # every dense row's distance from its explicit difference
            sure = np.flatnonzero(~unsure)
            dist[sure] = _explicit(X, start + sure, centers, label[sure])
        labels[chunk], sq_dist[chunk] = label, dist
    return labels, sq_dist


def bicriteria(X, weight, n_centers, rng, squared=False):
    """Seed ``n_centers`` centers by plain weighted k-means++ and assign each row to its nearest
    by the authors' rule (:func:`nearest_seed`, the seeds in increasing row order).

    Returns
    -------
    labels : ndarray of shape (n_samples,)
        Each row's nearest seed, numbered by the seeds' row order.
    dist : ndarray of shape (n_samples,)
        Its distance to that seed (a row's cost is ``weight * dist``, as the authors'), or the
        squared distance when ``squared`` (kmdr's textbook variants).
    """
    n_centers = min(n_centers, X.shape[0])
    _, seeds = kmeans_plusplus(
        X, n_centers, sample_weight=weight, random_state=rng, n_local_trials=1
    )
    labels, sq_dist = nearest_seed(X, _dense(X[np.unique(seeds)]))
    return labels, (sq_dist if squared else np.sqrt(sq_dist))
