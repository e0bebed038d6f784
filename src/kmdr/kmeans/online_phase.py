"""MATLAB's online phase of k-means: single-point moves after the batch (Lloyd) phase.

MATLAB's ``kmeans`` (``'OnlinePhase','on'``, the default of the releases the papers used)
follows each restart's batch phase with this phase; scikit-learn's Lloyd has none.
:func:`kmdr.kmeans.lloyd.kmeans` runs it after every restart with ``online_phase=True``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["OnlineResult", "inertia_of", "online_phase"]

# A sparse X is densified this many elements (2 MiB of float64) at a time.
_BLOCK_ELEMENTS = 1 << 18


@dataclass(frozen=True)
class OnlineResult:
    """What :func:`online_phase` ends with.

    Attributes
    ----------
    labels : ndarray of shape (n_samples,), int
        Cluster index of every row after the single-point moves.
    cluster_centers : ndarray of shape (n_clusters, n_features)
        The centroids of ``labels`` (computed anew from the rows, not the running updates).
    n_passes : int
        Passes through the points (MATLAB counts each as an iteration); a pass that starts and
        finds no move is counted.
    n_moves : int
        Points moved.
    converged : bool
        True when a whole pass found no move that lowers the objective; False when the pass
        budget ran out first.
    """

    labels: np.ndarray
    cluster_centers: np.ndarray
    n_passes: int
    n_moves: int
    converged: bool


def _centroids(X, labels: np.ndarray, n_clusters: int) -> tuple[np.ndarray, np.ndarray]:
    """The centroid of each cluster of ``labels`` and its size (an empty cluster's centroid is
    zero; it is never read before a point moves into it)."""
    import scipy.sparse as sp

    counts = np.bincount(labels, minlength=n_clusters)
    member = sp.csr_matrix(
        (np.ones(labels.size), (labels, np.arange(labels.size))), shape=(n_clusters, labels.size)
    )
    sums = member @ X
    sums = sums.toarray() if sp.issparse(sums) else np.asarray(sums, dtype=np.float64)
    return sums / np.maximum(counts, 1)[:, None], counts


def online_phase(X, labels, n_clusters: int, *, max_passes: int) -> OnlineResult:
    """MATLAB's online phase of ``kmeans``: single-point moves while one lowers the objective.

    From ``labels`` (a batch result), the points are visited in cyclic order; a point x of
    cluster i (of size n_i > 1) moves to the cluster j that lowers the total sum of squared
    distances the most, taking both centroids' moves into account:

    .. math:: \\Delta_j = \\frac{n_j}{n_j + 1} \\lVert x - c_j \\rVert^2
              - \\frac{n_i}{n_i - 1} \\lVert x - c_i \\rVert^2 ,

    if the best :math:`\\Delta_j < 0` (a tie with staying, or a point alone in its cluster,
    stays; among equal best clusters the first is taken). Both centroids and counts are updated
    at once, so the next point sees them. The phase ends when a whole cycle through the points
    moves none (no single-point move lowers the objective any more) or after ``max_passes``
    passes. Every move lowers the objective by :math:`-\\Delta_j` exactly (up to rounding).

    As MATLAB computes it: at every step the change of every point's every move is known (an
    n x k table, of which a move changes the two columns of the clusters it touches), and the
    point that moves is the first after the last moved one, in cyclic order, whose best move
    lowers the objective (the same point a visit of the points in cyclic order would move, since
    the centroids change only when a point moves); a pass ends when that order wraps around.

    Parameters
    ----------
    X : ndarray or scipy.sparse CSR matrix of shape (n_samples, n_features), float
        The points. A sparse X is densified a block of rows at a time (distances as for the
        dense X, bit for bit).
    labels : array-like of shape (n_samples,), int in [0, n_clusters)
        The starting partition; not modified.
    n_clusters : int
        k.
    max_passes : int >= 0
        The most passes through the points (MATLAB's ``MaxIter`` left after the batch phase).

    Returns
    -------
    OnlineResult
    """
    import scipy.sparse as sp

    labels = np.array(labels, dtype=np.intp)
    n = labels.size
    centers, counts = _centroids(X, labels, n_clusters)
    counts = counts.astype(np.float64)
    if sp.issparse(X):
        X = sp.csr_matrix(X)
    rows = np.arange(n)
    # sq[p, j] = |x_p - c_j|^2, one column per cluster (two columns change per move)
    sq = np.empty((n, n_clusters))
    for j in range(n_clusters):
        sq[:, j] = _sq_distances(X, centers[j])
    moves = 0
    passes = 1 if max_passes > 0 else 0
    last = -1  # the point moved last
    converged = False
    while passes:
        # Every point's change of the objective for each move: the cost of adding it to each
        # cluster, and for its own cluster the gain of taking it out (a point alone stays).
        delta = counts / (counts + 1.0) * sq
        leave = np.flatnonzero(counts[labels] > 1)
        mine = labels[leave]
        delta[leave, mine] = counts[mine] / (counts[mine] - 1.0) * sq[leave, mine]
        best = np.argmin(delta, axis=1)
        improving = np.flatnonzero(delta[rows, labels] > delta[rows, best])
        if not improving.size:
            converged = True
            break
        after = improving[improving > last]
        i = int(after[0] if after.size else improving[0])
        if i <= last:  # the cycle wrapped: a new pass
            if passes == max_passes:
                break
            passes += 1
        old, new = int(labels[i]), int(best[i])
        x = _row(X, i)
        counts[new] += 1.0
        counts[old] -= 1.0
        centers[new] += (x - centers[new]) / counts[new]
        centers[old] -= (x - centers[old]) / counts[old]
        labels[i] = new
        sq[:, new] = _sq_distances(X, centers[new])
        sq[:, old] = _sq_distances(X, centers[old])
        moves += 1
        last = i
    centers, _ = _centroids(X, labels, n_clusters)
    return OnlineResult(labels, centers, passes, moves, converged)


def _row(X, i: int) -> np.ndarray:
    """Row i of X as a dense vector."""
    if hasattr(X, "indptr"):
        row = np.zeros(X.shape[1])
        lo, hi = X.indptr[i], X.indptr[i + 1]
        row[X.indices[lo:hi]] = X.data[lo:hi]
        return row
    return X[i]


def _sq_distances(X, center: np.ndarray) -> np.ndarray:
    """|x - center|^2 for every row x of X, summed as for a dense X (a sparse X is densified a
    block of rows at a time)."""
    if hasattr(X, "indptr"):
        rows = max(1, _BLOCK_ELEMENTS // X.shape[1])
        return np.concatenate(
            [
                ((X[lo : lo + rows].toarray() - center) ** 2).sum(axis=1)
                for lo in range(0, X.shape[0], rows)
            ]
        )
    return ((X - center) ** 2).sum(axis=1)


def inertia_of(X, labels: np.ndarray, centers: np.ndarray) -> float:
    """Sum of squared distances of the rows of X to their centers."""
    import scipy.sparse as sp

    if sp.issparse(X):
        diff = X - sp.csr_matrix(centers[labels])
        return float(diff.multiply(diff).sum())
    return float(((X - centers[labels]) ** 2).sum())
