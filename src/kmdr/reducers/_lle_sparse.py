"""Standard LLE on scipy.sparse rows, with no dense n x d or n x n array.

The method of scikit-learn's ``LocallyLinearEmbedding(method="standard",
eigen_solver="arpack")``, step for step, on CSR data:

1. the ``n_neighbors`` nearest neighbours of every row, itself excluded (scikit-learn's
   ``NearestNeighbors`` on the sparse rows, asked for ``n_neighbors + 1`` and the first dropped);
2. barycentre weights: for each point the k x k local Gram matrix of its neighbours' differences
   to it (computed from sparse row differences), regularized by ``reg * trace`` (``reg`` when the
   trace is 0), solved against ones and normalized to sum 1;
3. ``M = (I - W)^T (I - W)`` as a sparse matrix, and its bottom r + 1 eigenvectors by ARPACK in
   shift-invert mode around 0 (``scipy.sparse.linalg.eigsh(M, r + 1, sigma=0)``, tol 1e-6, 100
   iterations, start vector uniform on [-1, 1] from ``random_state``), the constant one dropped.

Memory beyond X itself is O(n k^2) for M and its factorization's fill, O(n r) for the
eigenvectors and ARPACK's basis; neighbours are searched in chunks by scikit-learn.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg import solve
from scipy.sparse.linalg import eigsh
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_random_state

__all__ = ["barycenter_weights", "fit_sparse_lle", "sparse_lle_memory_bytes", "transform_sparse"]

#: ARPACK's settings in scikit-learn's LocallyLinearEmbedding (its defaults tol, max_iter).
_ARPACK_TOL = 1e-6
_ARPACK_MAX_ITER = 100


def sparse_lle_memory_bytes(n_samples: int, n_neighbors: int, n_components: int) -> int:
    """Rough memory of the sparse path beyond X itself, in bytes, without the neighbour search
    (which scikit-learn chunks by its ``working_memory``: see the reducer's estimate).

    W (n k entries, value and index), M (about n k^2 / 2), the sparse LU factors of M in
    shift-invert mode (about 6 n k^2 entries: 13.4 million at n = 15 564, k = 12), ARPACK's
    Lanczos basis (about 2 (r + 1) + 1 vectors of length n) and the embedding (n r).
    """
    n, k, r = int(n_samples), int(n_neighbors), int(n_components)
    return 12 * n * k + 12 * 7 * n * k * k + 8 * n * (2 * (r + 1) + 1 + r)


def _local_grams(X, Y, indices, chunk_rows: int) -> np.ndarray:
    """The k x k Gram matrices of ``Y[indices[i]] - X[i]``, one per row i: shape (n, k, k).

    A chunk of m points stacks its m k difference rows, each point's block moved to its own
    range of columns, so one sparse product gives exactly the block-diagonal Gram matrices.
    """
    n, k = indices.shape
    d = X.shape[1]
    out = np.zeros((n, k, k))
    for start in range(0, n, chunk_rows):
        stop = min(start + chunk_rows, n)
        m = stop - start
        diff = (Y[indices[start:stop].ravel()] - X[np.repeat(np.arange(start, stop), k)]).tocsr()
        diff.sum_duplicates()
        block_of_entry = np.repeat(np.arange(m * k) // k, np.diff(diff.indptr))
        cols = diff.indices.astype(np.int64) + block_of_entry * d
        moved = sp.csr_array((diff.data, cols, diff.indptr), shape=(m * k, m * d))
        gram = (moved @ moved.T).tocoo()
        out[start + gram.row // k, gram.row % k, gram.col % k] = gram.data
    return out


def barycenter_weights(X, Y, indices, reg: float) -> np.ndarray:
    """scikit-learn's barycentre weights of the rows of sparse ``X`` over the rows
    ``indices`` of sparse ``Y``: shape (n, k), every row summing to 1."""
    X, Y = sp.csr_array(X), sp.csr_array(Y)
    n, k = indices.shape
    chunk_rows = max(1, min(1024, (2**31 - 1) // max(X.shape[1], 1)))
    grams = _local_grams(X, Y, indices, chunk_rows)
    ones = np.ones(k)
    weights = np.empty((n, k))
    for i in range(n):
        gram = grams[i]
        trace = np.trace(gram)
        gram.flat[:: k + 1] += reg * trace if trace > 0 else reg
        w = solve(gram, ones, assume_a="pos")
        weights[i] = w / np.sum(w)
    return weights


def fit_sparse_lle(X, n_neighbors: int, n_components: int, reg: float, random_state):
    """``(embedding, reconstruction error, fitted NearestNeighbors)`` of sparse ``X``."""
    X = sp.csr_array(X)
    n = X.shape[0]
    nbrs = NearestNeighbors(n_neighbors=n_neighbors + 1).fit(X)
    indices = nbrs.kneighbors(X, return_distance=False)[:, 1:]
    weights = barycenter_weights(X, X, indices, reg)
    indptr = np.arange(0, n * n_neighbors + 1, n_neighbors)
    W = sp.csr_array((weights.ravel(), indices.ravel(), indptr), shape=(n, n))
    I_minus_W = sp.eye_array(n, format="csr") - W
    M = I_minus_W.T @ I_minus_W
    v0 = check_random_state(random_state).uniform(-1, 1, n)
    try:
        values, vectors = eigsh(
            M, n_components + 1, sigma=0.0, tol=_ARPACK_TOL, maxiter=_ARPACK_MAX_ITER, v0=v0
        )
    except RuntimeError as err:
        raise ValueError(
            f"LLE's sparse eigenproblem failed in ARPACK ({' '.join(str(err).split())}); "
            "raise reg or n_neighbors"
        ) from None
    return vectors[:, 1:], float(np.sum(values[1:])), nbrs


def transform_sparse(X, train, nbrs, embedding, n_neighbors: int, reg: float) -> np.ndarray:
    """scikit-learn's out-of-sample rule on sparse rows: each new point's barycentre weights
    over its ``n_neighbors`` nearest training points (``train``, searched by ``nbrs``), applied
    to their embedding."""
    X = sp.csr_array(X)
    indices = nbrs.kneighbors(X, n_neighbors=n_neighbors, return_distance=False)
    weights = barycenter_weights(X, train, indices, reg)
    return np.einsum("ik,ikr->ir", weights, embedding[indices])
