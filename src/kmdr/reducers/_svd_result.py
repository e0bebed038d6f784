"""The result every SVD routine returns (:class:`SVDResult`), its sign convention, and the
complete thin SVD that every exact route falls back to.

Singular values come in decreasing order and the matching right singular vectors as the
orthonormal ROWS of ``components`` (rank x d, the layout of scikit-learn's ``PCA.components_``).
Signs are fixed with scikit-learn's ``svd_flip`` (largest absolute entry of each row positive)
so that results are deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
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
    as forming and diagonalising the Gram matrix but several times slower in practice, and without
    squaring the condition number, so small singular values and their vectors stay accurate:
    :func:`exact_svd` uses it as the accurate fallback. Falls back to the slower, more robust
    ``gesvd`` if ``gesdd`` fails to converge.
    """
    try:
        _, s, Vt = scipy.linalg.svd(A, full_matrices=False, check_finite=False)
    except np.linalg.LinAlgError:
        _, s, Vt = scipy.linalg.svd(
            A, full_matrices=False, check_finite=False, lapack_driver="gesvd"
        )
    return _flipped(s, Vt)


def _truncate(result: SVDResult, rank: int) -> SVDResult:
    return SVDResult(result.singular_values[:rank], result.components[:rank])
