"""The Gram route of the exact SVD: the top eigenpairs of the smaller side's Gram matrix, with
one deflation of a well-separated leading block when the squared spectrum is not accurate enough.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.linalg.blas
import scipy.sparse as sp

from kmdr.reducers._svd_checks import (
    _MIN_RELATIVE_GAP,
    _backward_ok,
    _gap_ok,
    _unresolved_gap,
)
from kmdr.reducers._svd_result import SVDResult, _flipped

#: The Gram route asks LAPACK's subset driver (``evr``) for the top ``rank + 1`` eigenpairs only
#: while ``rank + 1 <= GRAM_SUBSET_FRACTION * m``; above it the full divide-and-conquer driver
#: (``evd``), whose cost does not depend on the rank, is faster. Measured by
#: ``scripts/bench_svd.py`` (columns gram and gram_full): the full solve wins from rank/m of about
#: 0.2 (USPS), 0.25 (ORL, COIL20), 0.28 (PIE), 0.31 (Synth).
GRAM_SUBSET_FRACTION = 0.25


def _gram_eigenpairs(A, rank: int, subset: bool | None) -> tuple[np.ndarray, np.ndarray]:
    """Top ``rank + 1`` (or, without the subset driver, all) eigenpairs of the smaller-side Gram
    matrix of ``A``, in decreasing order."""
    n, d = A.shape
    m = min(n, d)
    if sp.issparse(A):
        gram = (A @ A.T if n < d else A.T @ A).toarray()
    else:
        # BLAS syrk forms a^T a (trans=1) or a a^T (trans=0) of a Fortran-ordered a, upper
        # triangle only (half the flops of a general product; eigh reads only that triangle).
        # A C-ordered A is a Fortran-ordered A^T, so no copy is made in the usual case.
        transposed = not A.flags.f_contiguous
        a = np.asfortranarray(A.T) if transposed else A
        trans = int((n < d) == transposed)  # a^T a = A A^T if n < d, else A^T A
        gram = scipy.linalg.blas.dsyrk(1.0, a, trans=trans)
    if subset is None:
        subset = rank + 1 <= GRAM_SUBSET_FRACTION * m
    window = {"subset_by_index": [m - rank - 1, m - 1]} if subset and rank < m else {}
    eigvals, vecs = scipy.linalg.eigh(
        gram, lower=False, check_finite=False, overwrite_a=True, **window
    )
    return eigvals[::-1], vecs[:, ::-1]


def _from_gram(
    A, eigvals: np.ndarray, vecs: np.ndarray, rank: int
) -> tuple[np.ndarray, np.ndarray]:
    """Singular values and right vectors (rows, signs not fixed) from the Gram eigenpairs."""
    n, d = A.shape
    s = np.sqrt(np.maximum(eigvals[:rank], 0.0))
    top = vecs[:, :rank]
    if n < d:
        with np.errstate(divide="ignore", invalid="ignore"):
            return s, np.asarray(A.T @ top).T / s[:, None]
    return s, np.ascontiguousarray(top.T)


def _gram_svd(
    A: np.ndarray, rank: int, check_gap: bool = True, subset: bool | None = None
) -> SVDResult | None:
    """Top ``rank`` right singular vectors through the Gram matrix of the smaller side.

    ``subset``: use LAPACK's subset eigensolver (None: by ``GRAM_SUBSET_FRACTION``). With
    ``check_gap``, the result must pass the acceptance rule of :func:`exact_svd` (see the module
    constants ``_MIN_RELATIVE_GAP``, ``GESDD_ACCURACY_FACTOR``, ``_UNRESOLVED_GAP_FACTOR``,
    ``_BACKWARD_ERROR_FACTOR``): first the squared spectrum as it is; else deflated of its
    leading block (:func:`_deflated_gram`); else, when the gap at the cut is below what any
    backward-stable solver resolves, by its backward error. None when nothing passes.
    """
    return _gram_route(A, rank, check_gap, subset)[0]


def _gram_route(
    A, rank: int, check_gap: bool = True, subset: bool | None = None
) -> tuple[SVDResult | None, str]:
    """:func:`_gram_svd` and whether it deflated (``"gram"`` or ``"gram+deflation"``)."""
    eigvals, vecs = _gram_eigenpairs(A, rank, subset)
    if not check_gap or _gap_ok(eigvals, rank, next_exact=True):
        return _flipped(*_from_gram(A, eigvals, vecs, rank)), "gram"
    if sp.issparse(A):
        return None, "gram"
    found = _deflated_gram(A, rank, eigvals, vecs, subset)
    if found is None:
        return None, "gram"
    s, Vt, accurate = found
    if accurate or _backward_ok(A, s, Vt):
        return _flipped(s, Vt), "gram+deflation"
    return None, "gram+deflation"


def _deflated_gram(
    A: np.ndarray, rank: int, eigvals: np.ndarray, vecs: np.ndarray, subset: bool | None
) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """The Gram route with its resolvable leading block deflated: (s, Vt, subspace-accurate).

    The squared routes lose accuracy where lambda_1 is large against the gap at the cut: the Gram
    matrix carries an absolute rounding error of eps * lambda_1. When a leading block of j < rank
    singular values is itself well separated (relative eigen-gap above ``_MIN_RELATIVE_GAP`` at
    j: its vectors are accurate to 1e-10), it is removed, ``A' = A (I - V_j^T V_j)`` (formed
    explicitly: a backward error of eps * ||A||, like gesdd's), and the remaining ``rank - j``
    triplets come from the Gram matrix of A', whose rounding is eps * sigma_{j+1}^2 instead. On
    Synth (5 clusters, sigma_1 / sigma_6 = 2e4, then a flat noise bulk) this turns the squared
    routes' bound at r >= 10 from 1.4e-5 into about 1e-13, below gesdd's own 1.4e-9.

    Returns None when no leading block is separated (the cut is then left to gesdd). The flag is
    False when the deflated part still fails the subspace rule (its result is then accepted
    only by :func:`_backward_ok` at an unresolvable cut).
    """
    lam1 = eigvals[0]
    if not lam1 > 0:
        return None
    gaps = eigvals[: rank - 1] - eigvals[1:rank]
    separated = np.flatnonzero(gaps > _MIN_RELATIVE_GAP * lam1)
    if separated.size == 0:
        return None
    j = int(separated[-1]) + 1  # the largest separated leading block, 1 <= j < rank
    s_top, Vt_top = _from_gram(A, eigvals, vecs, j)
    Q, _ = np.linalg.qr(Vt_top.T)  # orthonormal to rounding, so A' is exactly deflated
    deflated = A - (A @ Q) @ Q.T
    rest_vals, rest_vecs = _gram_eigenpairs(deflated, rank - j, subset)
    # One deflation only (two Gram solves, still below gesdd's cost); a spectrum that would need
    # more levels (a steady decay over many orders of magnitude) is left to gesdd.
    accurate = _gap_ok(rest_vals, rank - j, next_exact=True)
    if not accurate and not _unresolved_gap(s_top[0], rank - j, rest_vals):
        return None
    s_rest, Vt_rest = _from_gram(deflated, rest_vals, rest_vecs, rank - j)
    # A' is orthogonal to V_j only up to its rounding (eps * sigma_1, so eps * sigma_1 / sigma_i
    # on v_i): project that out, so that the rows are orthonormal to working precision.
    Vt_rest = Vt_rest - (Vt_rest @ Q) @ Q.T
    return np.concatenate([s_top, s_rest]), np.vstack([Vt_top, Vt_rest]), accurate
