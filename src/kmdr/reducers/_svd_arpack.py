"""The ARPACK route of the exact SVD (``scipy.sparse.linalg.svds``) and its gap check."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg

from kmdr.reducers._svd_checks import _MIN_RELATIVE_GAP, _gap_ok, _near_gesdd_accuracy
from kmdr.reducers._svd_result import SVDResult, _flipped


def _arpack_svd(A, rank: int, check_gap: bool) -> SVDResult | None:
    """Top ``rank`` right singular vectors by ARPACK (``svds``), or None if the gap is too small.

    The gap check needs an upper bound on lambda_{rank+1} (= sigma_{rank+1}^2). Asking ARPACK
    for ``rank + 1`` triplets at full precision can cost several times the ``rank`` ones when
    sigma_{rank+1} sits in a cluster (Synth: 0.15 s against 0.03 s at rank 5), so it is bounded
    more cheaply, see :func:`_next_eigenvalue_bound`.
    """
    operand = sp.csr_array(A, dtype=np.float64) if sp.issparse(A) else A
    _, s, Vt = scipy.sparse.linalg.svds(operand, k=rank, rng=0)
    order = np.argsort(s)[::-1]
    s, Vt = s[order], Vt[order]
    if check_gap and not _near_gesdd_accuracy(s**2, rank):
        eigvals = s**2
        bound = _next_eigenvalue_bound(operand, eigvals, Vt)
        if not _gap_ok(np.append(eigvals, bound), rank):
            return None
    return _flipped(s, Vt)


#: Relative tolerance of the Lanczos estimate of lambda_{rank+1} in the ARPACK gap check.
_NEXT_EIGENVALUE_TOL = 1e-4


def _next_eigenvalue_bound(A, eigvals: np.ndarray, Vt: np.ndarray) -> float:
    """An upper bound on lambda_{rank+1} of A^T A, given its top ``rank`` eigenpairs.

    First the energy left, ``||A||_F^2 - sum(eigvals)`` (free, and enough when the rest of the
    spectrum is small, as with a few well-separated clusters); else the largest eigenvalue of
    A^T A deflated of the found vectors, by Lanczos to a relative tolerance of 1e-4 (ARPACK then
    guarantees an eigenvalue within that of its estimate), inflated by that tolerance.
    """
    frobenius = (scipy.sparse.linalg.norm(A) if sp.issparse(A) else np.linalg.norm(A)) ** 2
    left = frobenius - eigvals.sum()
    if eigvals[-1] - left > _MIN_RELATIVE_GAP * eigvals[0]:
        return max(left, 0.0)
    d = A.shape[1]

    def deflated(x):
        x = x - Vt.T @ (Vt @ x)
        y = np.asarray(A.T @ (A @ x))
        return y - Vt.T @ (Vt @ y)

    operator = scipy.sparse.linalg.LinearOperator((d, d), matvec=deflated, dtype=np.float64)
    start = np.random.default_rng(0).standard_normal(d)
    (estimate,) = scipy.sparse.linalg.eigsh(
        operator, k=1, which="LA", tol=_NEXT_EIGENVALUE_TOL, v0=start, return_eigenvectors=False
    )
    return float(estimate) * (1 + _NEXT_EIGENVALUE_TOL)
