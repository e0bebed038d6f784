"""Exact and approximate (FastFrobeniusSVD) right singular vectors of a data matrix.

Every routine returns an :class:`~kmdr.reducers._svd_result.SVDResult`: singular values in
decreasing order and the matching right singular vectors as the orthonormal ROWS of
``components``, signs fixed with scikit-learn's ``svd_flip``. :func:`exact_svd` picks the cheapest
exact route (:mod:`._svd_gram`, :mod:`._svd_arpack`, each checked by the rules of
:mod:`._svd_checks`) and falls back to the complete thin SVD; :func:`fast_frobenius_svd`
(:mod:`._fast_frobenius`) is the approximate one. The reducers take all of them from here.
"""

from __future__ import annotations

import numbers

import scipy.sparse as sp

from kmdr.reducers._fast_frobenius import fast_frobenius_svd
from kmdr.reducers._svd_arpack import _NEXT_EIGENVALUE_TOL, _arpack_svd, _next_eigenvalue_bound
from kmdr.reducers._svd_checks import (
    GESDD_ACCURACY_FACTOR,
    _backward_ok,
    _gap_ok,
    _near_gesdd_accuracy,
)
from kmdr.reducers._svd_gram import GRAM_SUBSET_FRACTION, _gram_route, _gram_svd
from kmdr.reducers._svd_result import SVDResult, _truncate, thin_svd

# The routes' parts are named here too: the exact SVD's behaviour is read (scripts/bench_svd.py)
# and tested (tests/reducers) through this one module.
__all__ = [
    "ARPACK_RANK_FACTOR",
    "GESDD_ACCURACY_FACTOR",
    "GRAM_SUBSET_FRACTION",
    "SVD_METHODS",
    "_NEXT_EIGENVALUE_TOL",
    "SVDResult",
    "_arpack_svd",
    "_backward_ok",
    "_gap_ok",
    "_gram_route",
    "_gram_svd",
    "_near_gesdd_accuracy",
    "_next_eigenvalue_bound",
    "exact_svd",
    "fast_frobenius_svd",
    "sparse_svd",
    "thin_svd",
]

#: Exact methods :func:`exact_svd` can use ("auto" picks one by shape and rank).
SVD_METHODS = ("auto", "gesdd", "gram", "arpack")

#: Dense A: ARPACK is used for ``rank < ARPACK_RANK_FACTOR * min(n, d)**2 / max(n, d)``, the Gram
#: route above. Why that shape term: ARPACK costs a number of passes over A (memory-bound matrix-
#: vector products) that grows with the rank and does not depend on m = min(n, d), while the Gram
#: route costs one compute-bound product (n d m / 2 flops) plus an O(m^3) eigensolve, which
#: dominates when m^3 is comparable with n d m, i.e. its cost relative to one pass is ~ m^2 / max.
#: Measured by ``scripts/bench_svd.py`` (CPU seconds, one BLAS thread, both routes with their gap
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
      and the Gram route above it (the crossover measured by ``scripts/bench_svd.py``).

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
    (every route tried failed it). Read by ``scripts/bench_svd.py``."""
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
