"""Exact and approximate (FastFrobeniusSVD) right singular vectors of a data matrix.

Every routine returns an :class:`SVDResult`: singular values in decreasing order and the matching
right singular vectors as the orthonormal ROWS of ``components`` (rank x d, the layout of
scikit-learn's ``PCA.components_``), signs fixed with scikit-learn's ``svd_flip`` (largest absolute
entry of each row positive) so that results are deterministic.

:func:`exact_svd` picks the cheapest exact route, the Gram matrix of the smaller side
(:func:`_gram_svd`) or ARPACK (:func:`_arpack_svd`), accepts its result only by the rules of
the checks below (a resolved gap, an accuracy near LAPACK's gesdd, a small backward error), and
falls back to the complete thin SVD (:func:`thin_svd`); :func:`fast_frobenius_svd` is the
approximate one. The reducers take all of them from here; the routes' parts are read
(``scripts/bench/bench_svd.py``) and tested (``tests/reducers``) through this module too.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.linalg.blas
import scipy.sparse as sp
import scipy.sparse.linalg
from sklearn.utils import check_random_state
from sklearn.utils.extmath import svd_flip

__all__ = [
    "ARPACK_RANK_FACTOR",
    "GESDD_ACCURACY_FACTOR",
    "GRAM_SUBSET_FRACTION",
    "SVD_METHODS",
    "SVDResult",
    "exact_svd",
    "fast_frobenius_svd",
    "sketch_operator",
    "sparse_svd",
    "svd_of_projection",
    "thin_svd",
]


# ----------------------------------------------------------------------------------------------
# The result every routine returns, its sign convention, the complete thin SVD.
# ----------------------------------------------------------------------------------------------


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


# ----------------------------------------------------------------------------------------------
# When a squared-spectrum result (Gram matrix, ARPACK) is accurate enough to be called exact.
# ----------------------------------------------------------------------------------------------

#: The Gram and ARPACK routes square the spectrum: the top-``rank`` subspace they return is off by
#: about machine epsilon * lambda_1 / (lambda_rank - lambda_{rank+1}) (lambda = sigma^2). They are
#: accepted while that bound stays below 1e-10 relative, i.e. while the relative eigen-gap at the
#: cut exceeds this (see also :data:`GESDD_ACCURACY_FACTOR`).
_MIN_RELATIVE_GAP = np.finfo(np.float64).eps / 1e-10

#: ... or while their bound is within this factor of gesdd's own. gesdd is backward stable, so its
#: subspace is off by about eps * sigma_1 / (sigma_rank - sigma_{rank+1}) (Wedin); the squared
#: routes' bound divided by that is sigma_1 / (sigma_rank + sigma_{rank+1}) <= sigma_1 /
#: sigma_rank, whatever the gap. Where the gap is tiny (a cut inside a flat noise bulk) the
#: subspace is ill-defined for gesdd too, and paying for the full SVD buys at most this factor.
#: Measured sigma_1 / (sigma_r + sigma_{r+1}) at r = 100: USPS 14, COIL20 35, ORL 73, PIE 76
#: (those cuts now pass on the Gram route, which knows sigma_{r+1}; ORL and PIE fail the 1e-10
#: rule there; ARPACK uses sigma_1 / sigma_r, ~2x stricter); Synth about 1e4 from r = 10 (its
#: bulk sits 1e4 below the clusters: relative eigen-gap 2e-11, gesdd's bound 1.4e-9, the squared
#: routes' 1.4e-5), so Synth at r >= 10 still falls back to gesdd: this factor is not widened to
#: let a 1e4 times larger error through. Measured effect on SVD features at r = 100 (one BLAS
#: thread): ORL 0.29 s -> 0.042 s, PIE 0.97 s -> 0.16 s, and the subspace agrees with gesdd's to
#: 3.9e-12 and 2.9e-12 (sin theta), within gesdd's own bound (9.8e-12 and 3.2e-12).
GESDD_ACCURACY_FACTOR = 100.0

_EPS = float(np.finfo(np.float64).eps)

#: A gap sigma_rank - sigma_{rank+1} at most this many times eps * sigma_1 is unresolvable: a
#: backward-stable SVD (gesdd) is exact for A + E with ||E||_2 about eps * ||A||_2 (the bound
#: LAPACK's users' guide states for its SVD drivers), which moves every singular value by up to
#: ||E||_2 (Weyl) and so can close such a gap. The top-rank subspace is then not determined by the
#: data (Davis-Kahan: angle <= residual / gap, here >= 1/10): gesdd's choice inside the cluster is
#: as arbitrary as any other, and a subspace-angle criterion is meaningless; the backward error
#: (:data:`_BACKWARD_ERROR_FACTOR`) is the test that is left.
_UNRESOLVED_GAP_FACTOR = 10.0

#: Backward-error acceptance at an unresolvable cut (:func:`_backward_ok`): with u_i = A v_i /
#: ||A v_i||, | ||A v_i|| - sigma_i | <= F eps sigma_1 and ||A^T u_i - sigma_i v_i|| <= F eps
#: sigma_1^2 / sigma_i (the second has that floor for ANY solver, gesdd included: u_i inherits
#: the rounding of A v_i, eps sigma_1 / sigma_i relative; it is also the Gram route's own residual
#: order, eps ||A||^2 / sigma_i), the rows of V orthonormal to F eps, and the captured energy
#: sum sigma_i^2 equal to ||A V||_F^2 within F eps sigma_1 sum sigma_i. Why F = 1000: gesdd's own
#: vectors measure 2-10 eps sigma_1 on the first test and ~0.25 F eps sigma_1^2 / sigma_i on the
#: second (a 200 x 300 matrix with sigma_1 / sigma_i = 1e4), so 1000 is the smallest round
#: constant that accepts gesdd's own answer with a margin for the size factor p(n).
_BACKWARD_ERROR_FACTOR = 1000.0


def _gap_ok(eigvals: np.ndarray, rank: int, next_exact: bool = False) -> bool:
    """Whether eigenvalues (decreasing; ``rank + 1`` of them, or ``rank`` = all) make the squared
    spectrum accurate enough: a relative gap above ``_MIN_RELATIVE_GAP`` or a bound within
    ``GESDD_ACCURACY_FACTOR`` of gesdd's (:func:`_near_gesdd_accuracy`). ``next_exact``: the
    ``rank + 1``-th value is an eigenvalue, not an upper bound on one."""
    following = eigvals[rank] if eigvals.size > rank else 0.0
    if eigvals[0] <= 0:
        return False
    gap = eigvals[rank - 1] - following > _MIN_RELATIVE_GAP * eigvals[0]
    return bool(gap or _near_gesdd_accuracy(eigvals, rank, next_exact))


def _near_gesdd_accuracy(eigvals: np.ndarray, rank: int, next_exact: bool = False) -> bool:
    """Whether the squared routes' subspace bound is within ``GESDD_ACCURACY_FACTOR`` of gesdd's.

    Their ratio is sigma_1 / (sigma_rank + sigma_{rank+1}). sigma_{rank+1} counts only when
    ``next_exact`` (an upper bound on it would understate the ratio); leaving it out only makes
    the check stricter.
    """
    if not (eigvals[0] > 0 and eigvals[rank - 1] > 0):
        return False
    below = eigvals[rank] if next_exact and eigvals.size > rank else 0.0
    ratio = math.sqrt(eigvals[0]) / (math.sqrt(eigvals[rank - 1]) + math.sqrt(max(below, 0.0)))
    return bool(ratio <= GESDD_ACCURACY_FACTOR)


def _unresolved_gap(sigma_1: float, k: int, rest_vals: np.ndarray) -> bool:
    """Whether sigma_k - sigma_{k+1} of a deflated A' (eigenvalues ``rest_vals`` of its Gram
    matrix) is below what a backward-stable solver of the original A (``sigma_1``) resolves.

    A backward-stable SVD is exact for some A + E with ||E||_2 <= p * eps * ||A||_2 (LAPACK's
    error bound takes p = 1), and each singular value moves by at most ||E||_2 (Weyl), so a gap
    below ``_UNRESOLVED_GAP_FACTOR * eps * sigma_1`` can close, and the order of the vectors on
    either side swap, under rounding of the data alone. The gap is read from the deflated
    problem's eigenvalues, whose own error (eps * lambda'_1 on lambda, so eps * lambda'_1 /
    sigma on sigma) is added to it, so a gap the computation cannot see is never called
    unresolvable.
    """
    lam = np.maximum(rest_vals, 0.0)
    if lam.size <= k or not lam[k - 1] > 0:
        return False
    s_cut, s_next = math.sqrt(lam[k - 1]), math.sqrt(lam[k])
    own_error = _EPS * lam[0] / s_cut
    return s_cut - s_next + 2 * own_error <= _UNRESOLVED_GAP_FACTOR * _EPS * sigma_1


def _backward_ok(A, s: np.ndarray, Vt: np.ndarray) -> bool:
    """Backward-error acceptance of ``rank`` pairs (s_i, v_i), with u_i = A v_i / ||A v_i||.

    With F = ``_BACKWARD_ERROR_FACTOR``: (a) the rows of Vt are orthonormal to F eps, each
    | ||A v_i|| - s_i | <= F eps ||A||_2, and ||A^T u_i - s_i v_i|| <= F eps ||A||_2^2 / s_i.
    The last has a floor no solver beats: u_i recomputed from v_i carries the rounding of A v_i,
    eps ||A||_2 / s_i relative, which A^T turns into eps ||A||_2^2 / s_i; gesdd's own vectors
    measure up to a few thousand eps ||A||_2 there when ||A||_2 / s_i = 1e4. Together these say
    that (s, V) is an exact singular set of a matrix within about F eps ||A||_2 of A; (b) the
    captured energy sum s_i^2 equals ||A V||_F^2 to F eps ||A||_2 sum s_i (the first-order effect
    of such residuals), so ``||A - A V V^T||_F`` is optimal to working precision.
    """
    sigma_1 = float(s[0])
    tol = _BACKWARD_ERROR_FACTOR * _EPS
    if np.abs(Vt @ Vt.T - np.eye(s.size)).max() > tol:
        return False
    AV = np.asarray(A @ Vt.T)
    norms = np.linalg.norm(AV, axis=0)
    if not (np.all(norms > 0) and np.all(s > 0)):
        return False
    residual = np.linalg.norm(np.asarray(A.T @ (AV / norms)) - Vt.T * s, axis=0)
    if np.abs(norms - s).max() > tol * sigma_1 or np.any(residual > tol * sigma_1**2 / s):
        return False
    return abs(float(np.sum(s**2)) - float(np.sum(norms**2))) <= tol * sigma_1 * float(np.sum(s))


# ----------------------------------------------------------------------------------------------
# The ARPACK route of the exact SVD (scipy.sparse.linalg.svds) and its gap check.
# ----------------------------------------------------------------------------------------------


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


# ----------------------------------------------------------------------------------------------
# The Gram route: the top eigenpairs of the smaller side's Gram matrix, with one deflation of a
# well-separated leading block when the squared spectrum is not accurate enough.
# ----------------------------------------------------------------------------------------------

#: The Gram route asks LAPACK's subset driver (``evr``) for the top ``rank + 1`` eigenpairs only
#: while ``rank + 1 <= GRAM_SUBSET_FRACTION * m``; above it the full divide-and-conquer driver
#: (``evd``), whose cost does not depend on the rank, is faster. Measured by
#: ``scripts/bench/bench_svd.py`` (columns gram and gram_full): the full solve wins from rank/m of
#: about
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


# ----------------------------------------------------------------------------------------------
# FastFrobeniusSVD: the approximate top right singular vectors of one Gaussian sketch.
# ----------------------------------------------------------------------------------------------


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
    R = sketch_operator(A.shape[1], rank, eps, random_state)
    Y = A @ R
    Q, _ = scipy.linalg.qr(Y, mode="economic", check_finite=False)
    B = np.asarray((A.T @ Q).T if sp.issparse(A) else Q.T @ A)
    return svd_of_projection(B, rank)


def sketch_operator(n_features: int, rank: int, eps: float, random_state=None) -> np.ndarray:
    """FastFrobeniusSVD's Gaussian sketch R (d x l, ``l = k + ceil(k / eps + 1)``), drawn from
    ``random_state`` as :func:`fast_frobenius_svd` draws it (a caller running the lemma's two
    passes elsewhere, e.g. over row blocks, draws the same R)."""
    sketch = rank + int(np.ceil(rank / eps + 1))
    return check_random_state(random_state).standard_normal(size=(n_features, sketch))


def svd_of_projection(B: np.ndarray, rank: int) -> SVDResult:
    """FastFrobeniusSVD's last step: the top ``rank`` right singular vectors of ``B = Q^T A``
    (signs fixed as every :class:`SVDResult` here)."""
    return _flipped(*_top_right_singular(np.asarray(B), rank))


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


# ----------------------------------------------------------------------------------------------
# The exact SVD: the cheapest accurate route, else the thin SVD.
# ----------------------------------------------------------------------------------------------

# and tested (tests/reducers) through this one module.

#: Exact methods :func:`exact_svd` can use ("auto" picks one by shape and rank).
SVD_METHODS = ("auto", "gesdd", "gram", "arpack")

#: Dense A: ARPACK is used for ``rank < ARPACK_RANK_FACTOR * min(n, d)**2 / max(n, d)``, the Gram
#: route above. Why that shape term: ARPACK costs a number of passes over A (memory-bound matrix-
#: vector products) that grows with the rank and does not depend on m = min(n, d), while the Gram
#: route costs one compute-bound product (n d m / 2 flops) plus an O(m^3) eigensolve, which
#: dominates when m^3 is comparable with n d m, i.e. its cost relative to one pass is ~ m^2 / max.
#: Measured by ``scripts/bench/bench_svd.py`` (CPU seconds, one BLAS thread, both routes with their
#: gap
#: checks), the first rank of its grid where the Gram route beats ARPACK: COIL20 (m^2/max = 728)
#: 30; PIE (367) 10 (a tie; ARPACK wins at 5); ORL (39) and USPS (6) 5, the smallest tried;
#: Synth (500) 10, where its clustered noise spectrum slows ARPACK (those ranks have no gap and
#: fall back to gesdd anyway). 0.04 puts the switch at 29 (COIL20), 15 (PIE), 20 (Synth), 1.6
#: (ORL), 0.2 (USPS).
ARPACK_RANK_FACTOR = 0.04


def exact_svd(A, rank: int, method: str = "auto") -> SVDResult:
    """The top ``rank`` right singular vectors of ``A``, exact up to rounding.

    Exact leverage scores need rank k and exact SVD features rank r, never all min(n, d) vectors,
    so this computes only what is asked, by the cheapest method that is still exact:

    * ``"gesdd"``: LAPACK's thin SVD of the whole matrix, truncated (O(n d min(n, d)), the most
      accurate; the only choice when the spectrum has no usable gap at ``rank``; a sparse ``A``
      is densified for it);
    * ``"gram"``: the Gram matrix of the smaller side (one BLAS ``syrk``) and its top ``rank + 1``
      eigenpairs by LAPACK's subset driver (``scipy.linalg.eigh(subset_by_index=...)``); when
      n < d the right vectors are ``A^T u_j / sigma_j`` (a sparse ``A`` gives a sparse product,
      densified as the m x m Gram matrix);
    * ``"arpack"``: ``scipy.sparse.linalg.svds`` (implicitly restarted Lanczos on the Gram
      operator, tolerance 0 = machine precision, seeded start vector), O(n d) per iteration;
    * ``"auto"``: scipy.sparse ``A`` always uses ARPACK (never densified while ``rank < min(n,
      d)``); dense ``A`` uses ARPACK for ``rank < ARPACK_RANK_FACTOR * min(n, d)**2 / max(n, d)``
      and the Gram route above it (the crossover measured by ``scripts/bench/bench_svd.py``).

    Acceptance (what "exact" means here). The Gram and ARPACK routes square the condition number,
    so their result is checked, in this order:

    1. Subspace accuracy, where the gap at the cut is resolvable: kept if its subspace error bound
       is below 1e-10 (the relative eigen-gap ``(lambda_rank - lambda_{rank+1}) / lambda_1``
       exceeds ``_MIN_RELATIVE_GAP``) or within ``GESDD_ACCURACY_FACTOR`` of gesdd's own bound
       ``eps sigma_1 / (sigma_rank - sigma_{rank+1})``.
    2. Deflation (Gram route; ARPACK hands over to it): if a leading block of j < rank values is
       separated, it is projected out of A (a backward error eps ||A||, as gesdd's) and the rest
       comes from the Gram matrix of the deflated A', whose rounding is eps sigma_{j+1}^2 instead
       of eps sigma_1^2; rule 1 is applied to A'. This is the route of Synth at r >= 10 (five
       clusters 2e4 times above a flat noise bulk): its subspace then agrees with gesdd's to
       ~1e-10, inside gesdd's own bound (1.4e-9), at 0.3 s instead of gesdd's 0.7-1 s.
    3. Backward error, only where the gap is NOT resolvable (sigma_rank - sigma_{rank+1} <=
       ``_UNRESOLVED_GAP_FACTOR`` eps sigma_1: any backward-stable solver's rounding can close it,
       so the top-rank subspace is not determined by the data, gesdd's choice inside the cluster
       is as arbitrary as any other, and by Davis-Kahan (angle <= residual / gap) no angle
       criterion can hold): kept if each pair's residuals and the captured energy are at working
       precision (:func:`_backward_ok`, constant ``_BACKWARD_ERROR_FACTOR``). That is exact in
       the sense that matters: ``||A - A V V^T||_F`` is optimal to working precision, and so are
       the features' k-means cost and the singular values.

    Otherwise gesdd is used. Signs are fixed with scikit-learn's ``svd_flip`` on the right vectors,
    so every method returns the same vectors up to rounding wherever the singular values are
    distinct. The result is a deterministic function of A (ARPACK's start vector is seeded).

    Parameters
    ----------
    A : ndarray or sparse matrix of shape (n, d)
    rank : int
        1 <= rank <= min(n, d).
    method : {"auto", "gesdd", "gram", "arpack"}, default="auto"

    Returns
    -------
    SVDResult
        ``rank`` singular values (decreasing) and right singular vectors.
    """
    n, d = A.shape
    if (
        isinstance(rank, bool)
        or not isinstance(rank, numbers.Integral)
        or not 1 <= rank <= min(n, d)
    ):
        raise ValueError(f"rank={rank!r} is invalid: it must be an integer in [1, {min(n, d)}]")
    if method not in SVD_METHODS:
        raise ValueError(f"method={method!r} is invalid: it must be one of {SVD_METHODS}")
    return _exact_svd_route(A, rank, method)[0]


def _exact_svd_route(A, rank: int, method: str = "auto") -> tuple[SVDResult, str]:
    """:func:`exact_svd` (arguments checked) and the route that gave its result: ``"arpack"``,
    ``"gram"``, ``"gram+deflation"``, ``"arpack->gram+deflation"`` (ARPACK's result failed the
    acceptance rule, the Gram route's passed), ``"gesdd"`` (asked for) or ``"<routes>->gesdd"``
    (every route tried failed it). Read by ``scripts/bench/bench_svd.py``."""
    n, d = A.shape
    if method == "auto":
        method = _auto_method(A, rank)
    if method == "arpack" and rank >= min(n, d):
        # ARPACK needs rank < min(n, d); then one side is at most rank long and the dense matrix
        # has at most rank * max(n, d) entries.
        method = "gesdd"
    result, route = None, method
    if method == "gram":
        result, route = _gram_route(A, rank)
    elif method == "arpack":
        result = _arpack_svd(A, rank, check_gap=not sp.issparse(A))
        if result is None and not sp.issparse(A):
            # No usable gap for the squared spectrum: the deflated Gram route is still cheaper
            # than gesdd (Synth at r = 10, 15, a cut inside its flat noise bulk).
            result, gram = _gram_route(A, rank)
            route = f"arpack->{gram}"
    if result is None:
        result = _truncate(thin_svd(A.toarray() if sp.issparse(A) else A), rank)
        if method != "gesdd":
            route = f"{route}->gesdd"
    return result, route


def _auto_method(A, rank: int) -> str:
    """ARPACK for sparse ``A`` and for small ranks of dense ``A``, else the Gram route.

    The full thin SVD is never the fastest for ``rank < min(n, d)`` on the benchmarked shapes (the
    Gram matrix is one BLAS-3 call, gesdd is not), so it is kept only as the accurate fallback.
    """
    if sp.issparse(A):
        return "arpack"
    n, d = A.shape
    return "arpack" if rank < ARPACK_RANK_FACTOR * min(n, d) ** 2 / max(n, d) else "gram"


def sparse_svd(A, rank: int) -> SVDResult:
    """Top ``rank`` right singular vectors of a scipy.sparse ``A`` without densifying it.

    ``exact_svd(A, rank)`` for sparse ``A``: ARPACK through ``scipy.sparse.linalg.svds``
    (Lanczos iterations to machine-precision tolerance, so the result is the exact truncated SVD
    up to rounding, unlike a few-pass randomized SVD whose accuracy depends on the spectral gap).
    ARPACK's start vector is seeded, so the result is deterministic. ARPACK needs
    ``rank < min(n, d)``; when ``rank >= min(n, d)`` one dimension is at most ``rank``, the dense
    matrix has at most ``rank * max(n, d)`` entries, and :func:`thin_svd` of the densified matrix
    is used.
    """
    return exact_svd(A, rank, method="arpack")
