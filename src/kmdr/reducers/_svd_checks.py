"""When a result of the squared-spectrum routes (Gram matrix, ARPACK) is accurate enough to be
called exact: the acceptance rules of :func:`kmdr.reducers._svd.exact_svd` and their constants.
"""

from __future__ import annotations

import math

import numpy as np

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
