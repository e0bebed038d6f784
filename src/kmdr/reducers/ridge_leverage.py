"""Feature sampling by rank-k ridge leverage scores (Cohen, Musco, Musco, SODA 2017)."""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from kmdr.reducers._base import BaseReducer
from kmdr.reducers._builtins import declared_plan
from kmdr.reducers._sampling import sample_columns
from kmdr.reducers._svd import SVDResult, thin_svd
from kmdr.reducers._validation import check_count, column_subset, independent_random_state


@dataclass(frozen=True)
class RidgeScores:
    """Ridge leverage scores of the columns of A and the ridge they were computed with.

    Attributes
    ----------
    scores : ndarray of shape (n_features,)
        ``tau_i`` (exact or approximate).
    regularization : float
        lambda, ``||A - A_k||_F^2 / k`` (or its estimate on the sketch).
    """

    scores: np.ndarray
    regularization: float


def _numerical_rank_cutoff(singular_values: np.ndarray, shape: tuple[int, int]) -> float:
    # numpy.linalg.matrix_rank's default: singular values at or below this are rounding noise.
    if singular_values.size == 0:
        return 0.0
    return float(singular_values.max() * max(shape) * np.finfo(np.float64).eps)


def ridge_regularization(singular_values: np.ndarray, k: int) -> float:
    """lambda = ||A - A_k||_F^2 / k = (sum of sigma_j^2 over j > k) / k, from all of A's sigmas."""
    s = np.sort(np.asarray(singular_values, dtype=np.float64))[::-1]
    return float(np.sum(s[k:] ** 2) / k)


def exact_ridge_leverage_scores(svd: SVDResult, k: int, shape: tuple[int, int]) -> RidgeScores:
    """Exact rank-k ridge leverage scores of the d columns of A from its complete thin SVD.

    With ``A = U Sigma V^T`` and lambda = ``||A - A_k||_F^2 / k``,
    ``tau_i = a_i^T (A A^T + lambda I)^+ a_i = sum_j sigma_j^2 / (sigma_j^2 + lambda) v_ij^2``.
    Singular values below numpy's rank tolerance count as zero; when A has rank <= k, lambda = 0
    and the pseudo-inverse makes tau the ordinary leverage scores of A (each direction weighs 1).

    Parameters
    ----------
    svd : SVDResult
        All nonzero singular values of A (``min(n, d)`` of them or the numerical rank) and their
        right singular vectors.
    k : int
        The target rank.
    shape : tuple
        ``A.shape`` (for the rank tolerance).
    """
    s = svd.singular_values
    s = np.where(s > _numerical_rank_cutoff(s, shape), s, 0.0)
    lam = ridge_regularization(s, k)
    s2 = s**2
    with np.errstate(invalid="ignore", divide="ignore"):
        weights = np.where(s2 > 0, s2 / (s2 + lam), 0.0)
    scores = weights @ (svd.components**2)
    return RidgeScores(scores=scores, regularization=lam)


def gram_svd(A) -> SVDResult:
    """All nonzero singular values and right singular vectors of a scipy.sparse ``A``.

    Through the eigendecomposition of the smaller Gram matrix (``A^T A`` when d <= n, else
    ``A A^T`` and ``v_j = A^T u_j / sigma_j``), which never densifies ``A``: its cost is one sparse
    product and a dense min(n, d)^2 eigenproblem. The Gram matrix squares the condition number, so
    singular values below sqrt(eps) sigma_1 lose their relative accuracy; the ridge scores weigh
    them by ``sigma^2 / (sigma^2 + lambda)`` and are unaffected unless lambda is itself that small
    (A numerically of rank <= k).
    """
    n, d = A.shape
    A = sp.csr_array(A)
    gram = (A.T @ A) if d <= n else (A @ A.T)
    eigvals, vectors = scipy.linalg.eigh(gram.toarray(), check_finite=False)
    eigvals, vectors = eigvals[::-1], vectors[:, ::-1]
    keep = eigvals > max(eigvals[0], 0.0) * max(n, d) * np.finfo(np.float64).eps
    s = np.sqrt(eigvals[keep])
    # d <= n: the eigenvectors are V; else they are U, and V^T = Sigma^-1 U^T A.
    Vt = vectors[:, keep].T if d <= n else np.asarray((A.T @ vectors[:, keep]).T) / s[:, None]
    return SVDResult(singular_values=s, components=np.ascontiguousarray(Vt))


def ridge_leverage_scores_against(A, B: np.ndarray, k: int) -> RidgeScores:
    """Generalized ridge leverage scores of the columns of A measured against a sketch B of A.

    ``tau_i^B = a_i^T (B B^T + lambda_B I)^+ a_i`` with ``lambda_B = ||B - B_k||_F^2 / k``: the
    scores of A's columns with respect to a matrix B whose ``B B^T`` approximates ``A A^T``, the
    generalized ridge leverage scores through which Cohen, Musco, Musco (2017) approximate the
    exact ones. With ``B = U_B Sigma_B W^T``,
    ``tau_i^B = sum_j (u_j^T a_i)^2 / (sigma_j^2 + lambda_B) + (||a_i||^2 - ||U_B^T a_i||^2) /
    lambda_B``; the second term (the part of a_i outside B's column space) is dropped when
    lambda_B = 0, as the pseudo-inverse does. ``B = A`` gives the exact scores.

    Parameters
    ----------
    A : ndarray or sparse matrix of shape (n, d)
    B : ndarray of shape (n, m)
    k : int
        The target rank, 1 <= k.
    """
    U, s, _ = scipy.linalg.svd(B, full_matrices=False, check_finite=False)
    keep = s > _numerical_rank_cutoff(s, B.shape)
    U, s2 = U[:, keep], s[keep] ** 2
    lam = ridge_regularization(s[keep], k)
    projected = np.asarray((A.T @ U).T)  # U_B^T A, m x d
    inside = projected**2
    scores = (inside / (s2 + lam)[:, None]).sum(axis=0)
    if lam > 0:
        column_norms = np.asarray(A.multiply(A).sum(axis=0) if sp.issparse(A) else (A**2).sum(0))
        outside = np.maximum(column_norms.ravel() - inside.sum(axis=0), 0.0)  # rounding: >= 0
        scores = scores + outside / lam
    return RidgeScores(scores=scores, regularization=lam)


def sketch_size(k: int, eps: float) -> int:
    """m = k + ceil(k / eps): the number of columns of the sketch B = A Pi."""
    return k + int(np.ceil(k / eps))


def approximate_ridge_leverage_scores(A, k: int, eps: float, random_state=None) -> RidgeScores:
    """Constant-factor approximate ridge leverage scores from a sketch of A's columns.

    ``B = A Pi`` with Pi a d x m Gaussian sketch, entries ``N(0, 1/m)`` (so ``E[B B^T] = A A^T``),
    m = :func:`sketch_size`. The scores are :func:`ridge_leverage_scores_against` ``(A, B, k)``.
    Cost O(nnz(A) m + n m^2) (two products with A and an SVD of the n x m B) instead of the exact
    O(n d min(n, d)); a scipy.sparse A is never densified. The same Pi serves dense and sparse
    input, so both give the same scores (a CountSketch would make ``A Pi`` O(nnz(A)), but the
    product ``U_B^T A`` costs O(nnz(A) m) anyway).

    Why constant factors (the argument behind Cohen, Musco, Musco's generalized scores): if
    ``(1 - c)(A A^T + lambda I) <= B B^T + lambda_B I <= (1 + c)(A A^T + lambda I)`` in the
    positive semidefinite order, every score is within a factor ``1 / (1 -+ c)`` of the exact one,
    because ``a_i`` itself is not sketched, only the matrix it is measured against. A Gaussian Pi
    achieves that with m = O(k / c^2) columns up to a log of the failure probability (the
    ridge's statistical dimension, sum tau <= 2k); the m = k + ceil(k / eps) default is the
    O(k / eps) practical choice, so the factor it achieves is measured rather than assumed:
    approximate / exact between 0.97 and 2.8 on scikit-learn's digits (tests) and between 1.2
    and 1.9 on ORL and COIL20 (``scripts/bench/bench_srht_ridge.py``); mostly overestimates, the
    safe
    side for sampling.
    """
    m = sketch_size(k, eps)
    rng = check_random_state(random_state)
    # Drawn here rather than through GaussianProjection: m > d is legitimate for a sketch of
    # A A^T (small d), and scikit-learn's projection would warn that it does not reduce.
    B = A @ (rng.standard_normal((A.shape[1], m)) / np.sqrt(m))
    return ridge_leverage_scores_against(A, np.asarray(B), k)


class RidgeLeverageSampler(BaseReducer):
    """Sample r columns of A i.i.d. by rank-k ridge leverage scores, rescaled.

    Cohen, Musco, Musco, *Input Sparsity Time Low-Rank Approximation via Ridge Leverage Score
    Sampling*, SODA 2017. The rank-k ridge leverage score of column ``a_i`` of A is
    ``tau_i = a_i^T (A A^T + lambda I)^+ a_i`` with ``lambda = ||A - A_k||_F^2 / k``; the scores sum
    to at most 2k, and sampling O(k log k / eps^2) columns with ``p_i = tau_i / sum tau`` (any
    constant-factor overestimates work) and rescaling gives a projection-cost-preserving sketch:
    for every rank-k projection P, ``||C - P C||_F^2 + c`` is within 1 +- eps of
    ``||A - P A||_F^2`` with c >= 0 independent of P, so k-means on C is a
    (1 + O(eps))-approximation for A. Not an algorithm of bmd09/bzmd14: the later,
    ridge-regularized form of their leverage sampling, which weighs every singular direction by
    ``sigma_j^2 / (sigma_j^2 + lambda)`` instead of keeping the top k with weight 1.

    The draws are those of :class:`LeverageScoreSampler`: r indices i.i.d. from p, column t of C is
    column ``i_t`` of A times ``1 / sqrt(r p_{i_t})``.

    Parameters
    ----------
    n_components : int, default=2
        r, the number of draws (with replacement, so any r >= 1).
    n_clusters : int
        k, the rank of the ridge; required, 1 <= k <= min(n_samples, n_features).
    scores : {"exact", "approximate"}, default="exact"
        ``"exact"``: from the complete thin SVD of a dense A (every singular direction enters
        the scores, so a truncated SVD cannot serve; computed once per repetition), or from the
        smaller Gram matrix of a sparse A (:func:`gram_svd`, never densified). ``"approximate"``:
        :func:`approximate_ridge_leverage_scores`, the scores against a sketch ``A Pi`` of
        k + ceil(k/eps) columns.
    eps : float in (0, 1), default=1/3
        Sets the sketch size of ``"approximate"``; ignored with ``"exact"``.
    random_state : None, int or RandomState, default=None
        Seeds the draws and, with ``"approximate"``, the sketch (an independent stream derived from
        the same seed).

    Attributes
    ----------
    ridge_leverage_scores_ : ndarray of shape (n_features,)
        ``tau_i`` (exact or approximate).
    regularization_ : float
        lambda.
    probabilities_ : ndarray of shape (n_features,)
        ``tau_i / sum tau``.
    selected_features_ : ndarray of shape (n_components,)
        The column of A behind each column of C (repeats possible).
    scales_ : ndarray of shape (n_components,)
        ``1 / sqrt(r p_{i_t})``.
    n_components_, n_features_in_, shared_seconds_
        See :class:`BaseReducer`.
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "n_clusters": [Interval(Integral, 1, None, closed="left"), None],
        "scores": [StrOptions({"exact", "approximate"})],
        "eps": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
    }

    plan = declared_plan(__name__, "RidgeLeverageSampler")

    def __init__(
        self,
        n_components=2,
        *,
        n_clusters=None,
        scores=plan.defaults["scores"],
        eps=plan.defaults["eps"],
        random_state=None,
    ):
        self.n_components = n_components
        self.n_clusters = n_clusters
        self.scores = scores
        self.eps = eps
        self.random_state = random_state

    def _check_data_params(self, shape):
        check_count(self.n_clusters, "n_clusters", 1, min(shape), shape)

    def _compute_shared_value(self, X, random_state):
        if self.scores == "approximate":
            seed = self.random_state if random_state is None else random_state
            rng = independent_random_state(seed, stream=1)
            return approximate_ridge_leverage_scores(X, self.n_clusters, self.eps, rng)
        return gram_svd(X) if sp.issparse(X) else thin_svd(X)

    def _fit(self, X, shared_value):
        if self.scores == "approximate":
            ridge = shared_value
        else:
            ridge = exact_ridge_leverage_scores(shared_value, self.n_clusters, X.shape)
        if not ridge.scores.sum() > 0:
            raise ValueError(
                "X has no nonzero entry, so every ridge leverage score is 0 and there is nothing "
                "to sample: remove all-zero data"
            )
        self.ridge_leverage_scores_ = ridge.scores
        self.regularization_ = ridge.regularization
        self.probabilities_ = ridge.scores / ridge.scores.sum()
        self.selected_features_, self.scales_ = sample_columns(
            self.probabilities_, self.n_components_, self.random_state
        )

    def _transform(self, X):
        return column_subset(X, self.selected_features_, self.scales_)
