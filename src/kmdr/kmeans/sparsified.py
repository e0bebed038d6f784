"""Sparsified k-means: Lloyd's iterations on data that keep only m of their p entries per row.

Pourkamali-Anaraki and Becker, *Preconditioned Data Sparsification for Big Data with Applications
to PCA and K-means*, IEEE Trans. Inf. Theory 63(5), 2017 (the "PD" baseline of Liu, Shen, Tsang,
NIPS 2017). The input is a CSR matrix W whose row i stores the m kept entries of a (preconditioned)
point y_i, at the positions Omega_i, drawn uniformly without replacement; see
:class:`kmdr.reducers.PreconditionedSparsification`, which produces W and calls this module.

The two steps of the paper's algorithm, both computed from the kept entries only:

* assignment: point i goes to the center mu minimizing ``sum_{l in Omega_i} (y_il - mu_l)^2``,
  the distance on its own kept coordinates (all rows keep m coordinates, so the distances of
  different rows are on the same scale);
* update: coordinate l of a center is the average of ``y_il`` over the points of the cluster that
  kept l (the minimizer of the kept-coordinate distances, ``(sum R_i R_i^T)^{-1} sum R_i R_i^T
  y_i``). Given how many points kept l, the set that kept it is a uniform random subset of the
  cluster, so this is an unbiased estimate of the cluster mean (:func:`sparsified_centers`).

Each iteration costs O(n m k) (one sparse-dense product with the k centers) plus O(k p) to form
the centers; nothing is O(n p).

Starts. A center cannot be a single sparsified point (it would be zero off that point's m
coordinates), so the starts pick k seed points and cluster around them: ``"k-means++"`` draws the
seeds with probability proportional to the (estimated) squared distance to the nearest seed so far
(Arthur and Vassilvitskii 2007, the authors' default start), ``"random"`` draws k distinct points
uniformly. The runner passes each cell's own k-means start (``kmeans_init``), so a preset with
random starts (lst17's) runs PD with random starts, not the authors' k-means++.
Distances between two sparsified points are estimated without bias from their kept entries,
``||y_i - y_j||^2 ~ (p/m)(||w_i||^2 + ||w_j||^2) - 2 (p/m)^2 <w_i, w_j>`` (clipped at 0;
exact when m = p). Every point joins its nearest seed and the first centers are the
:func:`sparsified_centers` of that partition; Lloyd's iterations follow.

The authors' rules. :func:`authors_sparsified_kmeans` follows the authors' code instead
(SparsifiedKMeans 2.1 with its defaults; see its docstring): kept zeros not stored, sparse first
centers with a distance over the coordinates a point and a center both store, their k-means++,
update, empty-cluster action and stop. pb17's presets run it; the functions above are kmdr's own
variant, which lst17's PD runs.

Two passes. The paper's two-pass algorithm (:func:`second_pass`) reads the original data once
more after sparsified k-means: each point goes to the nearest of the (unpreconditioned) centers
by its exact distance, and each center becomes the exact mean of its points. The authors' code
(SparsifiedKMeans, ``kmeans_sparsified.m``) computes the same assignment; it averages the points
over the one-pass labels instead, a difference that changes the centers, not the labels.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from kmdr.kmeans.lloyd import INITS, KMeansResult, check_centers, check_kmeans_params
from kmdr.metrics import cluster_sums

__all__ = [
    "authors_sparsified_kmeans",
    "check_sparsified",
    "second_pass",
    "sparsified_centers",
    "sparsified_kmeans",
    "sparsified_start",
]

#: The second pass reads the original rows in blocks of about this many entries (8 bytes each).
_PASS_ENTRIES = 1 << 22


def check_sparsified(W) -> tuple[sp.csr_matrix, int]:
    """``W`` as a canonical float64 CSR matrix and m, its number of stored entries per row.

    Raises a one-line ValueError unless every row stores the same number m >= 1 of entries (the
    output of :class:`~kmdr.reducers.PreconditionedSparsification`; stored zeros count as kept).
    """
    if not sp.issparse(W):
        raise ValueError(
            "X must be a scipy.sparse matrix with the same number of stored entries per row (the "
            f"output of PreconditionedSparsification), got {type(W).__name__}"
        )
    W = sp.csr_matrix(W, dtype=np.float64)
    if not W.has_canonical_format:
        W = W.copy()
        W.sum_duplicates()  # sorts indices; keeps stored zeros
    per_row = np.diff(W.indptr)
    if W.shape[0] < 1 or per_row.min() < 1 or per_row.min() != per_row.max():
        raise ValueError(
            "X must store the same number (>= 1) of entries in every row, the kept entries of "
            f"PreconditionedSparsification; its rows store {per_row.min(initial=0)} to "
            f"{per_row.max(initial=0)}"
        )
    if not np.isfinite(W.data).all():
        raise ValueError("X must be finite (it contains NaN or inf)")
    return W, int(per_row[0])


def _mask(W: sp.csr_matrix) -> sp.csr_matrix:
    """The indicator of the kept positions (same structure as W, every stored value 1)."""
    return sp.csr_matrix((np.ones_like(W.data), W.indices, W.indptr), shape=W.shape)


def _sums_and_counts(W: sp.csr_matrix, M: sp.csr_matrix, labels: np.ndarray, n_clusters: int):
    """Per cluster and coordinate: the sum of the kept values and how many points kept it."""
    n = W.shape[0]
    # The k x n cluster indicator times W (and times the mask): scipy's sparse product visits
    # each stored entry once, O(n m + k p), and is several times faster than a bincount over
    # (cluster, coordinate) pairs (which needs n m int64 temporaries).
    Z = sp.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(n_clusters, n))
    return (Z @ W).toarray(), (Z @ M).toarray()


def sparsified_centers(W, labels, n_clusters: int, fallback=None) -> np.ndarray:
    """The centers of a partition of sparsified points: per-coordinate means over kept entries.

    Coordinate l of center c is the mean of the kept values ``W[i, l]`` over the points i with
    ``labels[i] == c`` that kept l. A coordinate no point of the cluster kept takes the value of
    ``fallback`` (broadcast to shape (n_clusters, p); default 0).

    Parameters
    ----------
    W : sparse matrix of shape (n_samples, p)
        Sparsified points (the stored entries are the kept ones, zeros included).
    labels : array of int, shape (n_samples,)
    n_clusters : int
    fallback : float or array broadcastable to (n_clusters, p), optional

    Returns
    -------
    ndarray of shape (n_clusters, p)
    """
    W = sp.csr_matrix(W, dtype=np.float64)
    return _centers(W, _mask(W), np.asarray(labels, dtype=np.intp), n_clusters, fallback)


def _centers(W, M, labels, n_clusters, fallback) -> np.ndarray:
    sums, counts = _sums_and_counts(W, M, labels, n_clusters)
    centers = np.zeros((n_clusters, W.shape[1]))
    if fallback is not None:
        centers[:] = fallback
    seen = counts > 0
    centers[seen] = sums[seen] / counts[seen]
    return centers


class _Problem:
    """The sparsified data and what every restart reuses (kept-entry norms, mask, scales)."""

    def __init__(self, W: sp.csr_matrix, m: int):
        self.W = W
        self.M = _mask(W)
        self.n, self.p = W.shape
        self.scale = self.p / m  # 1 / (probability that a coordinate is kept)
        self.kept_sq = np.asarray(W.multiply(W).sum(axis=1)).ravel()
        # The mean of each coordinate over the points that kept it: the value a center takes
        # where its own points kept nothing (a prior that every cluster shares).
        one = np.zeros(self.n, np.intp)
        self.global_mean = _centers(W, self.M, one, 1, None)[0]
        sums, counts = _sums_and_counts(W.multiply(W).tocsr(), self.M, one, 1)
        seen = counts[0] > 0
        second = np.zeros(self.p)
        second[seen] = sums[0, seen] / counts[0, seen]
        variances = np.maximum(second - self.global_mean**2, 0.0)
        # scikit-learn's tol is relative to the mean per-feature variance of the data.
        self.mean_variance = float(variances[seen].mean()) if seen.any() else 0.0

    def centers(self, labels: np.ndarray, n_clusters: int, fallback=None) -> np.ndarray:
        """:func:`sparsified_centers` with the mask built once."""
        return _centers(self.W, self.M, labels, n_clusters, fallback)

    def kept_distances(self, centers: np.ndarray) -> np.ndarray:
        """n x k: ``sum_{l in Omega_i} (y_il - c_l)^2`` for every point i and center c."""
        d2 = self.kept_sq[:, None] - 2.0 * (self.W @ centers.T) + self.M @ (centers**2).T
        return np.maximum(np.asarray(d2), 0.0)

    def seed_distances(self, j: int) -> np.ndarray:
        """Unbiased estimates of ``||y_i - y_j||^2`` for every i, from kept entries only."""
        w_j = self.W[j].toarray().ravel()
        cross = np.asarray(self.W @ w_j).ravel()
        est = self.scale * (self.kept_sq + self.kept_sq[j]) - 2.0 * self.scale**2 * cross
        est = np.maximum(est, 0.0)
        est[j] = 0.0
        return est


def _seed(problem: _Problem, n_clusters: int, init: str, rng) -> np.ndarray:
    """Initial labels: every point joins the nearest of k seed points (see the module docstring)."""
    n = problem.n
    if init == "random":
        seeds = rng.choice(n, n_clusters, replace=False)
        dist = np.column_stack([problem.seed_distances(j) for j in seeds])
        return np.argmin(dist, axis=1)
    dist = np.empty((n, n_clusters))
    first = rng.randint(n)
    dist[:, 0] = problem.seed_distances(first)
    closest = dist[:, 0].copy()
    chosen = {first}
    for c in range(1, n_clusters):
        total = closest.sum()
        if total > 0:
            j = int(rng.choice(n, p=closest / total))
        else:  # every point coincides with a seed (estimated): any new point will do
            j = int(rng.choice(np.setdiff1d(np.arange(n), list(chosen))))
        chosen.add(j)
        dist[:, c] = problem.seed_distances(j)
        np.minimum(closest, dist[:, c], out=closest)
    return np.argmin(dist, axis=1)


def _fill_empty(labels, dist, n_clusters):
    """Give every empty cluster the point farthest from its own center (scikit-learn's rule).

    Returns the relocated clusters (their old center carries no information).
    """
    counts = np.bincount(labels, minlength=n_clusters)
    empty = np.flatnonzero(counts == 0)
    if empty.size == 0:
        return empty
    own = dist[np.arange(len(labels)), labels]
    for c in empty:
        movable = counts[labels] > 1  # never empty another cluster
        i = int(np.argmax(np.where(movable, own, -1.0)))
        counts[labels[i]] -= 1
        labels[i] = c
        counts[c] = 1
        own[i] = -1.0  # a point moves once
    return empty


def _lloyd(problem: _Problem, centers, labels, n_clusters, max_iter, tol_abs):
    """One run of sparsified Lloyd from ``centers`` (and the partition they came from, if any)."""
    converged = False
    n_iter = 0
    for _ in range(max_iter):
        n_iter += 1
        dist = problem.kept_distances(centers)
        new_labels = np.argmin(dist, axis=1)
        if labels is not None and np.array_equal(new_labels, labels):
            converged = True  # centers are the centroids of these labels
            break
        labels = new_labels
        fallback = centers.copy()
        relocated = _fill_empty(labels, dist, n_clusters)
        fallback[relocated] = problem.global_mean
        new_centers = problem.centers(labels, n_clusters, fallback)
        shift = float(((new_centers - centers) ** 2).sum())
        centers = new_centers
        if shift <= tol_abs:
            converged = True
            dist = problem.kept_distances(centers)
            labels = np.argmin(dist, axis=1)
            break
    else:
        dist = problem.kept_distances(centers)
        labels = np.argmin(dist, axis=1)
    inertia = float(dist[np.arange(problem.n), labels].sum())
    return labels, inertia, n_iter, centers, converged


def sparsified_kmeans(
    W,
    n_clusters: int,
    *,
    n_init: int = 5,
    max_iter: int = 500,
    init="k-means++",
    tol: float = 1e-4,
    random_state=None,
) -> KMeansResult:
    """Cluster sparsified points with the paper's sparsified k-means, best of ``n_init`` runs.

    Parameters
    ----------
    W : sparse matrix of shape (n_samples, p)
        The same number m of stored (kept) entries in every row; see :func:`check_sparsified`.
    n_clusters : int in [1, n_samples]
    n_init : int >= 1, default=5
        Restarts; the run with the lowest inertia is kept.
    max_iter : int >= 1, default=500
        Lloyd iterations per run.
    init : {"k-means++", "random", "sample"} or ndarray of shape (n_clusters, p)
        Seeding (module docstring); an array is used as the first centers (dense, in the
        coordinates of W), with ``n_init`` runs all starting there.
    tol : float >= 0, default=1e-4
        Stop when the squared center shift is at most ``tol`` times the mean per-coordinate
        variance (estimated from the kept entries), as scikit-learn does; ``tol=0`` stops only
        when the labels no longer change.
    random_state : None, int or RandomState

    Returns
    -------
    KMeansResult
        ``inertia`` is the objective the algorithm minimizes, the sum over points of the squared
        distance to their center on their m kept coordinates (about m/p times the full-space
        objective); ``cluster_centers`` are in the coordinates of W (preconditioned space).
    """
    W, m = check_sparsified(W)
    n = W.shape[0]
    check_kmeans_params(
        "sparsified_kmeans",
        n,
        n_clusters=n_clusters,
        n_init=n_init,
        max_iter=max_iter,
        tol=tol,
        init=init,
    )
    given = None if isinstance(init, str) else check_centers(init, n_clusters, W.shape[1])
    rng = check_random_state(random_state)
    problem = _Problem(W, m)
    tol_abs = float(tol) * problem.mean_variance
    best = None
    for _ in range(n_init):
        if given is not None:
            centers, labels = given.copy(), None
        else:
            labels = _seed(problem, n_clusters, INITS[init], rng)
            fallback = np.tile(problem.global_mean, (n_clusters, 1))
            centers = problem.centers(labels, n_clusters, fallback)
        run = _lloyd(problem, centers, labels, n_clusters, max_iter, tol_abs)
        if best is None or run[1] < best[1]:
            best = run
    labels, inertia, n_iter, centers, converged = best
    return KMeansResult(
        labels=np.asarray(labels, dtype=np.intp),
        inertia=inertia,
        n_iter=int(n_iter),
        cluster_centers=centers,
        converged=bool(converged),
    )


def sparsified_start(W, n_clusters: int, *, init="k-means++", random_state=None) -> np.ndarray:
    """The first centers :func:`sparsified_kmeans` starts from (one start; module docstring):
    passed back as ``init``, the run is that of ``init="k-means++"`` apart from the random
    draws, so a caller can time the start apart from Lloyd's iterations."""
    W, m = check_sparsified(W)
    problem = _Problem(W, m)
    labels = _seed(problem, n_clusters, INITS[init], check_random_state(random_state))
    return problem.centers(labels, n_clusters, np.tile(problem.global_mean, (n_clusters, 1)))


def second_pass(X, centers, first: KMeansResult | None = None) -> KMeansResult:
    """The second pass of the two-pass algorithm over the original data ``X``.

    One pass over the rows of ``X`` (dense or sparse, read in blocks): each point is assigned to
    the nearest of ``centers`` (k x d, the sparsified k-means centers mapped back to the original
    features) by its exact squared distance, and the sums and counts of each cluster are
    accumulated on the way, so that the returned centers are the exact means of the original
    points of each returned cluster (a cluster no point chose keeps its center from
    ``centers``). The inertia is the exact k-means objective of that partition on ``X``,
    ``sum ||x||^2 - sum_c |S_c| ||mu_c||^2``, from the same pass.

    Parameters
    ----------
    X : array or sparse matrix of shape (n_samples, d)
    centers : array of shape (n_clusters, d)
    first : KMeansResult, optional
        The sparsified k-means run: its ``n_iter`` and ``converged`` are reported.

    Returns
    -------
    KMeansResult
    """
    centers = np.asarray(centers, dtype=np.float64)
    n, d = X.shape
    if centers.ndim != 2 or centers.shape[1] != d or not np.isfinite(centers).all():
        raise ValueError(
            f"centers must be a finite (n_clusters, {d}) array for X with {d} features, got "
            f"shape {centers.shape}"
        )
    k = centers.shape[0]
    labels = np.empty(n, dtype=np.intp)
    sums = np.zeros((k, d))
    counts = np.zeros(k)
    total_sq = 0.0
    c_sq = (centers**2).sum(axis=1)
    block = max(1, _PASS_ENTRIES // max(d, 1))
    for start in range(0, n, block):
        rows = X[start : start + block]
        sq = (
            np.asarray(rows.multiply(rows).sum(axis=1)).ravel()
            if sp.issparse(rows)
            else np.einsum("ij,ij->i", rows, rows)
        )
        dist = sq[:, None] - 2.0 * np.asarray(rows @ centers.T) + c_sq[None, :]
        lab = np.argmin(dist, axis=1)
        labels[start : start + len(lab)] = lab
        part = cluster_sums(rows, lab, k)
        sums += part.toarray() if sp.issparse(part) else np.asarray(part)
        counts += np.bincount(lab, minlength=k)
        total_sq += float(sq.sum())
    seen = counts > 0
    means = centers.copy()
    means[seen] = sums[seen] / counts[seen, None]
    inertia = max(total_sq - float((counts[seen] * (means[seen] ** 2).sum(axis=1)).sum()), 0.0)
    return KMeansResult(
        labels=labels,
        inertia=inertia,
        n_iter=int(first.n_iter) if first is not None else 0,
        cluster_centers=means,
        converged=bool(first.converged) if first is not None else True,
    )


# -- the authors' rules ---------------------------------------------------------------------------
#
# SparsifiedKMeans 2.1 (``kmeans_sparsified.m`` and its ``private/`` helpers), with its defaults
# (unbiasedDistance, unbiasedInitialization, MLcorrection on; denseCenters off; EmptyAction
# 'singleton'). Their code holds the sketch as a MATLAB sparse matrix of the kept values scaled
# by p2/m (p2 the padded dimension), so a kept value that is exactly 0 is not stored, and reads
# its own sampling rate as gamma = m/d (d the original dimension). The names below follow theirs:
# S the scaled sketch (one row per point here, one column there), C the k centers.

#: A center matrix turns dense once more than this fraction of its entries is nonzero.
_AUTHORS_DENSE_FRACTION = 0.99
#: Their k-means++ redraws a seed already chosen at most this many times, then gives up.
_AUTHORS_REDRAWS = 400


class _AuthorsProblem:
    """The authors' sketch and the distances their code computes on it.

    Distances are summed entry by entry in the order of the stored entries, from the
    differences themselves, as their mex file (SparseMatrixMinusCluster.c) sums them: on data
    with small integer values many points lie at exactly equal distances from two centers, and
    only the same arithmetic gives the same first-nearest center.
    """

    def __init__(self, W: sp.csr_matrix, m: int, n_features: int):
        self.n, self.p2 = W.shape
        self.gamma = m / n_features  # their SparsityLevel after the sampling: small_p / p
        self.S = W.copy()
        self.S.data = self.S.data / (m / self.p2)  # their X: kept values over small_p / p2
        self.S.eliminate_zeros()  # MATLAB's sparse storage keeps no zero
        self.S.sort_indices()
        self.M = _mask(self.S)
        self.row_of = np.repeat(np.arange(self.n), np.diff(self.S.indptr))

    def _sums(self, rows, values) -> np.ndarray:
        return np.bincount(rows, weights=values * values, minlength=self.n)

    def distances(self, C: np.ndarray, dense: bool) -> np.ndarray:
        """n x k distances to the centers C. Held dense: ``sum_{l stored} (x_l - c_l/gamma)^2``
        over the point's stored coordinates. Held sparse (only their nonzeros stored): over the
        coordinates both store, ``(x_l / gamma_c - c_l / gamma)^2``, gamma_c the fraction of its
        coordinates the center stores; a center storing nothing is at distance 0 from every
        point (their loop over its empty support)."""
        out = np.zeros((self.n, len(C)))
        idx, x = self.S.indices, self.S.data
        for k, c in enumerate(C):
            scaled = c / self.gamma
            if dense:
                out[:, k] = self._sums(self.row_of, x - scaled[idx])
                continue
            support = c != 0
            gamma_c = support.sum() / self.p2
            if gamma_c == 0:
                continue
            both = support[idx]
            out[:, k] = self._sums(self.row_of[both], x[both] / gamma_c - scaled[idx[both]])
        return np.sqrt(out)

    def assign(self, C: np.ndarray, dense: bool):
        """Their findClusterAssignments: the nearest center (first on ties) and its distance."""
        dist = self.distances(C, dense)
        labels = np.argmin(dist, axis=1)
        return labels, dist[np.arange(self.n), labels]

    def row(self, i: int) -> np.ndarray:
        return self.S[i].toarray().ravel()


def _authors_seeds(problem: _AuthorsProblem, n_clusters: int, init: str, rng) -> np.ndarray:
    """Their starts: 'sample' (k distinct points) or Arthur_initialization (k-means++ on the
    sketch, every distance to a seed held dense, a redrawn seed rejected up to 400 times)."""
    n = problem.n
    if init == "random":
        chosen = rng.choice(n, n_clusters, replace=False)
        return np.vstack([problem.row(i) for i in chosen])
    chosen = [int(rng.randint(n))]
    for _ in range(n_clusters - 1):
        C = np.vstack([problem.row(i) for i in chosen])
        _, dist = problem.assign(C, dense=True)
        weights = dist**2
        probs = weights / weights.sum() if weights.sum() > 0 else None  # None: uniform
        i = int(rng.choice(n, p=probs))
        for _ in range(_AUTHORS_REDRAWS - 1):
            if i not in chosen:
                break
            i = int(rng.choice(n, p=probs))
        if i in chosen:
            raise ValueError("k-means++ on the sketch drew only seeds already chosen (400 draws)")
        chosen.append(i)
    return np.vstack([problem.row(i) for i in chosen])


def _authors_lloyd(problem: _AuthorsProblem, C, dense, n_clusters, max_iter, tol):
    """Their iterations: assign, update each center as gamma times the sum of the scaled values
    over how many points stored each coordinate, give an empty cluster the point farthest from
    its center (the same point for every empty cluster), turn the centers dense past 99%
    nonzero, stop when the centers move by less than ``tol`` (Frobenius norm)."""
    counts_of = problem.M
    shift, n_iter = np.inf, 0
    for _ in range(max_iter):
        n_iter += 1
        labels, dist = problem.assign(C, dense)
        old = C
        sums, counts = _sums_and_counts(problem.S, counts_of, labels, n_clusters)
        C = problem.gamma * sums / (counts + 1e-16)
        members = np.bincount(labels, minlength=n_clusters)
        far = int(np.argmax(dist))
        for c in np.flatnonzero(members == 0):
            C[c] = problem.row(far)
        if not dense and np.count_nonzero(C) / C.size > _AUTHORS_DENSE_FRACTION:
            dense = True
        shift = float(np.linalg.norm(old - C))
        if shift < tol:
            break
        if np.isnan(C).any():
            raise ValueError("the sparsified k-means centers became NaN")
    # their labels and objective are those of the last assignment, before the last update
    return labels, float((dist**2).sum()), n_iter, C, bool(shift < tol)


def authors_sparsified_kmeans(
    W,
    n_clusters: int,
    *,
    n_kept: int,
    n_features: int,
    n_init: int = 1,
    max_iter: int = 100,
    init="k-means++",
    tol: float = 1e-6,
    random_state=None,
) -> KMeansResult:
    """Sparsified k-means by its authors' rules (SparsifiedKMeans 2.1 with its defaults).

    Where :func:`sparsified_kmeans` keeps every sampled entry and holds its centers dense, the
    authors' code

    * stores only the sampled entries that are not exactly 0 (a point may store fewer than m,
      or none: it is then at distance 0 from every sparse center);
    * starts from k seed points held as *sparse* centers, and measures a point's distance to such
      a center over the coordinates both store, until more than 99% of the centers' entries are
      nonzero; from then on over the point's stored coordinates;
    * seeds by k-means++ on the sketch (the distance to a seed over the point's stored
      coordinates, the seed held dense with zeros where it stores nothing);
    * updates a center coordinate as the mean of the values stored there by its points (0 where
      none stored one); an empty cluster takes the point farthest from its center;
    * stops when the centers move by less than ``tol`` (Frobenius norm, absolute; their default
      1e-6) or after ``max_iter`` iterations (their default 100), and returns the labels of the
      last assignment.

    Parameters
    ----------
    W : sparse matrix of shape (n_samples, p2)
        The kept (unscaled) values of the preconditioned points, at most ``n_kept`` per row.
    n_clusters : int
    n_kept : int
        m, the entries sampled per row.
    n_features : int
        d, the dimension before padding (their sampling rate is m / d).
    n_init, max_iter, init, tol, random_state
        As :func:`sparsified_kmeans` (``init`` "random" is their 'sample' start); the run with
        the lowest objective is kept, as their Replicates.

    Returns
    -------
    KMeansResult
        ``cluster_centers`` in the preconditioned space (a center set to an empty cluster's
        point holds that point's scaled values, as theirs does); ``inertia`` their objective, the
        sum of the squared distances of the last assignment.
    """
    W = sp.csr_matrix(W, dtype=np.float64)
    per_row = np.diff(W.indptr)
    if per_row.size and per_row.max() > n_kept:
        raise ValueError(f"X stores up to {per_row.max()} entries per row, more than m = {n_kept}")
    check_kmeans_params(
        "authors_sparsified_kmeans",
        W.shape[0],
        n_clusters=n_clusters,
        n_init=n_init,
        max_iter=max_iter,
        tol=tol,
        init=init,
    )
    given = None if isinstance(init, str) else check_centers(init, n_clusters, W.shape[1])
    rng = check_random_state(random_state)
    problem = _AuthorsProblem(W, n_kept, n_features)
    best = None
    for _ in range(n_init):
        if given is not None:
            run = _authors_lloyd(problem, given.copy(), True, n_clusters, max_iter, tol)
        else:
            seeds = _authors_seeds(problem, n_clusters, INITS[init], rng)
            run = _authors_lloyd(problem, seeds, False, n_clusters, max_iter, tol)
        if best is None or run[1] < best[1]:
            best = run
    labels, inertia, n_iter, centers, converged = best
    return KMeansResult(
        labels=np.asarray(labels, dtype=np.intp),
        inertia=inertia,
        n_iter=int(n_iter),
        cluster_centers=centers,
        converged=converged,
    )
