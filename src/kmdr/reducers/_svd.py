"""Exact and approximate (FastFrobeniusSVD) right singular vectors of a data matrix.

Every routine returns an :class:`SVDResult`: singular values in decreasing order and the matching
right singular vectors as the orthonormal ROWS of ``components`` (rank x d, the layout of
scikit-learn's ``PCA.components_``). Signs are fixed with scikit-learn's ``svd_flip`` (largest
absolute entry of each row positive) so that results are deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg
from sklearn.utils import check_random_state
from sklearn.utils.extmath import svd_flip


@dataclass(frozen=True)
class SVDResult:
    """Top right singular vectors of a matrix A (n x d).

    Attributes
    ----------
    singular_values : ndarray of shape (rank,)
        In decreasing order (for FastFrobeniusSVD: those of ``Q^T A``, approximations of A's).
    components : ndarray of shape (rank, d)
        Orthonormal rows; row j is the j-th right singular vector.
    """

    singular_values: np.ndarray
    components: np.ndarray

    def top(self, rank: int) -> np.ndarray:
        """The top ``rank`` right singular vectors as a (rank, d) array (a view)."""
        if rank > self.components.shape[0]:
            raise ValueError(
                f"rank={rank} is invalid: this decomposition holds only "
                f"{self.components.shape[0]} singular vectors"
            )
        return self.components[:rank]


def _flipped(s: np.ndarray, Vt: np.ndarray) -> SVDResult:
    _, Vt = svd_flip(None, np.array(Vt, copy=True), u_based_decision=False)
    return SVDResult(singular_values=np.asarray(s, dtype=np.float64), components=Vt)


def thin_svd(A: np.ndarray) -> SVDResult:
    """The complete thin SVD of a dense ``A``: all min(n, d) right singular vectors.

    LAPACK's divide-and-conquer ``gesdd`` (scipy's default) costs O(n d min(n, d)), the same order
    as forming and diagonalising the Gram matrix, but without squaring the condition number, so
    small singular values and their vectors stay accurate. One call serves every rank, which is
    what lets exact leverage sampling (rank k) and exact SVD features (rank r, every r of a sweep)
    share it. Falls back to the slower, more robust ``gesvd`` if ``gesdd`` fails to converge.
    """
    try:
        _, s, Vt = scipy.linalg.svd(A, full_matrices=False, check_finite=False)
    except np.linalg.LinAlgError:
        _, s, Vt = scipy.linalg.svd(
            A, full_matrices=False, check_finite=False, lapack_driver="gesvd"
        )
    return _flipped(s, Vt)


def sparse_svd(A, rank: int) -> SVDResult:
    """Top ``rank`` right singular vectors of a scipy.sparse ``A`` without densifying it.

    Uses ARPACK through ``scipy.sparse.linalg.svds`` (Lanczos iterations to machine-precision
    tolerance, so the result is the exact truncated SVD up to rounding, unlike a few-pass
    randomized SVD whose accuracy depends on the spectral gap). ARPACK's start vector is seeded, so
    the result is deterministic. ARPACK needs ``rank < min(n, d)``; when ``rank >= min(n, d)`` one
    dimension is at most ``rank``, the dense matrix has at most ``rank * max(n, d)`` entries, and
    :func:`thin_svd` of the densified matrix is used.
    """
    n, d = A.shape
    if rank >= min(n, d):
        return _truncate(thin_svd(A.toarray()), rank)
    _, s, Vt = scipy.sparse.linalg.svds(sp.csr_array(A, dtype=np.float64), k=rank, rng=0)
    order = np.argsort(s)[::-1]
    return _flipped(s[order], Vt[order])


def _truncate(result: SVDResult, rank: int) -> SVDResult:
    return SVDResult(result.singular_values[:rank], result.components[:rank])


def fast_frobenius_svd(A, rank: int, eps: float, random_state=None) -> SVDResult:
    """FastFrobeniusSVD(A, k, eps) of Boutsidis, Zouzias, Mahoney, Drineas (2014), Lemma 4.

    With ``l = k + ceil(k / eps + 1)``: draw a d x l standard Gaussian ``R``, form ``Y = A R``,
    orthonormalise the columns of Y (Householder QR) into ``Q``, and return the top k right
    singular vectors ``Z`` of ``Q^T A``. One Gaussian sketch, no power iterations: exactly the
    algorithm of the lemma, which bounds ``E ||A - A Z Z^T||_F^2 <= (1 + eps) ||A - A_k||_F^2``.
    (scikit-learn's ``randomized_svd`` adds power iterations and oversampling of its own, so it is
    a different algorithm.) Cost O(n d k / eps); ``A`` may be dense or scipy.sparse.

    Parameters
    ----------
    A : ndarray or sparse matrix of shape (n, d)
    rank : int
        k, with 1 <= k <= min(n, d).
    eps : float in (0, 1)
    random_state : None, int or RandomState
    """
    rng = check_random_state(random_state)
    d = A.shape[1]
    sketch = rank + int(np.ceil(rank / eps + 1))
    R = rng.standard_normal(size=(d, sketch))
    Y = A @ R
    Q, _ = scipy.linalg.qr(Y, mode="economic", check_finite=False)
    B = np.asarray((A.T @ Q).T if sp.issparse(A) else Q.T @ A)
    return _flipped(*_top_right_singular(B, rank))


#: The Gram route below is used only while lambda_k / lambda_1 stays above this: the error of the
#: vectors it returns grows like machine epsilon * lambda_1 / lambda_k (here at most ~1e-10).
_GRAM_MIN_RATIO = 1e-6


def _top_right_singular(B: np.ndarray, rank: int) -> tuple[np.ndarray, np.ndarray]:
    """Top ``rank`` singular values and right singular vectors (rows) of a short, wide B.

    B is l x d with l << d (the sketch Q^T A). Its l x l Gram matrix ``B B^T`` is one matrix
    product, and its eigenpairs give ``sigma_j = sqrt(lambda_j)`` and ``v_j = B^T u_j / sigma_j``:
    several times faster than a full SVD of B, and it matters because approximate SVD features
    redo this for every r. Squaring the spectrum costs accuracy for small singular values, so when
    the k-th is too small against the first the full SVD of B is used instead.
    """
    l = B.shape[0]
    if rank <= l < B.shape[1]:
        eigvals, U = scipy.linalg.eigh(
            B @ B.T, subset_by_index=[l - rank, l - 1], check_finite=False
        )
        eigvals, U = eigvals[::-1], U[:, ::-1]
        if eigvals[-1] > _GRAM_MIN_RATIO * eigvals[0] > 0:
            s = np.sqrt(eigvals)
            return s, (U.T @ B) / s[:, None]
    _, s, Vt = scipy.linalg.svd(B, full_matrices=False, check_finite=False)
    return s[:rank], Vt[:rank]
