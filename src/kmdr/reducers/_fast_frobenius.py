"""FastFrobeniusSVD: the approximate top right singular vectors of one Gaussian sketch."""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.utils import check_random_state

from kmdr.reducers._svd_result import SVDResult, _flipped


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
