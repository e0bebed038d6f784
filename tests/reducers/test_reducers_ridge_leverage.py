"""Ridge leverage score sampling (Cohen, Musco, Musco 2017): scores, sampling, cost preservation."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits, make_blobs

from _reducer_helpers import decaying_matrix, pooled_chisquare, sparse_pair, to_dense
from kmdr.reducers import (
    LeverageScoreSampler,
    RidgeLeverageSampler,
    make_reducer,
    max_components,
    reducer_label,
)
from kmdr.reducers._sampling import sample_columns
from kmdr.reducers.ridge_leverage import ridge_leverage_scores_against, sketch_size


def naive_ridge_scores(A, k):
    """tau_i = a_i^T (A A^T + lambda I)^+ a_i, lambda = ||A - A_k||_F^2 / k, as written."""
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    A_k = (U[:, :k] * s[:k]) @ Vt[:k]
    lam = np.linalg.norm(A - A_k, "fro") ** 2 / k
    inverse = np.linalg.pinv(A @ A.T + lam * np.eye(A.shape[0]))
    return np.einsum("ni,nm,mi->i", A, inverse, A), lam


def rank_k_leverage(A, k):
    _, _, Vt = np.linalg.svd(A, full_matrices=False)
    return np.sum(Vt[:k] ** 2, axis=0)


def kmeans_cost(C, labels):
    C = to_dense(C)
    return sum(((C[labels == j] - C[labels == j].mean(0)) ** 2).sum() for j in np.unique(labels))


@pytest.mark.parametrize("shape", [(30, 20), (20, 30)])
@pytest.mark.parametrize("k", [1, 3, 7])
@pytest.mark.parametrize("sparse", [False, True])
def test_exact_scores_equal_the_definition(shape, k, sparse):
    A = decaying_matrix(*shape, decay=0.85, seed=k)
    expected, lam = naive_ridge_scores(A, k)
    est = make_reducer("ridge_leverage", 5, n_clusters=k, random_state=0)
    est.fit(sp.csr_matrix(A) if sparse else A)
    assert est.regularization_ == pytest.approx(lam, rel=1e-10)
    np.testing.assert_allclose(est.ridge_leverage_scores_, expected, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(est.probabilities_, expected / expected.sum(), rtol=1e-8)


def test_sparse_exact_scores_on_a_sparse_matrix():
    X, Xs = sparse_pair(n=50, d=30)
    expected, _ = naive_ridge_scores(X, 4)
    est = RidgeLeverageSampler(3, n_clusters=4, random_state=0).fit(Xs)
    np.testing.assert_allclose(est.ridge_leverage_scores_, expected, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("k", [1, 2, 5, 10])
def test_score_bounds_from_the_paper(k):
    # Cohen-Musco-Musco: every tau_i is in [0, 1] and they sum to at most 2k (sum_j
    # sigma_j^2 / (sigma_j^2 + lambda) <= k + tail / lambda = 2k). Against the rank-k leverage
    # scores l_i: l_i sigma_k^2 / (sigma_k^2 + lambda) <= tau_i and
    # tau_i <= l_i + ||(A - A_k) e_i||^2 / lambda.
    # A lambda off by a factor or a missing square in sigma breaks the sandwich on this spectrum.
    A = decaying_matrix(60, 40, decay=0.9, seed=k)
    tau = RidgeLeverageSampler(n_clusters=k).fit(A).ridge_leverage_scores_
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    tail = A - (U[:, :k] * s[:k]) @ Vt[:k]
    lam = np.sum(tail**2) / k
    lev = rank_k_leverage(A, k)
    assert np.all(tau >= 0) and np.all(tau <= 1 + 1e-12)
    assert k * s[k - 1] ** 2 / (s[k - 1] ** 2 + lam) <= tau.sum() <= 2 * k
    assert np.all(tau >= lev * s[k - 1] ** 2 / (s[k - 1] ** 2 + lam) - 1e-12)
    assert np.all(tau <= lev + np.sum(tail**2, axis=0) / lam + 1e-12)
    # The ridge really interpolates: strictly between the lower and upper bound in aggregate.
    assert tau.sum() > k * s[k - 1] ** 2 / (s[k - 1] ** 2 + lam) + 1e-3


def test_scores_do_not_depend_on_the_scale_of_A():
    # lambda scales like sigma^2, so tau(cA) = tau(A): a lambda built from sigma (not sigma^2),
    # or a fixed lambda, fails this.
    A = decaying_matrix(40, 30, seed=3)
    tau = RidgeLeverageSampler(n_clusters=3).fit(A).ridge_leverage_scores_
    for c in (1e-3, 7.0, 1e4):
        scaled = RidgeLeverageSampler(n_clusters=3).fit(c * A).ridge_leverage_scores_
        np.testing.assert_allclose(scaled, tau, rtol=1e-9)


def test_rank_at_most_k_gives_plain_leverage_scores():
    # ||A - A_k|| = 0 so lambda = 0 and (A A^T)^+ makes tau the leverage scores of A's rank.
    rng = np.random.default_rng(0)
    A = rng.standard_normal((30, 3)) @ rng.standard_normal((3, 25))
    est = RidgeLeverageSampler(n_clusters=5).fit(A)
    assert est.regularization_ == 0.0
    np.testing.assert_allclose(est.ridge_leverage_scores_, rank_k_leverage(A, 3), atol=1e-10)
    assert est.ridge_leverage_scores_.sum() == pytest.approx(3.0)


@pytest.mark.parametrize("sparse", [False, True])
def test_scores_against_A_itself_are_exact(sparse):
    # The approximate route measures A's columns against a sketch B; with B = A it must return the
    # exact scores, including the part of each column outside B's column space (n > rank here).
    A = decaying_matrix(40, 25, seed=5)
    expected, lam = naive_ridge_scores(A, 4)
    got = ridge_leverage_scores_against(sp.csr_matrix(A) if sparse else A, A, 4)
    assert got.regularization == pytest.approx(lam, rel=1e-10)
    np.testing.assert_allclose(got.scores, expected, rtol=1e-8, atol=1e-12)
    # And against a thin B (fewer columns than A's rank) the out-of-span term must be counted:
    B = A[:, :6]
    s = np.linalg.svd(B, compute_uv=False)
    lam_b = np.sum(s[4:] ** 2) / 4
    inverse = np.linalg.inv(B @ B.T + lam_b * np.eye(40))
    naive = np.einsum("ni,nm,mi->i", A, inverse, A)
    np.testing.assert_allclose(ridge_leverage_scores_against(A, B, 4).scores, naive, rtol=1e-8)


@pytest.mark.slow  # heavy: exact and sketched scores of a real data set, four times
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("k", [5, 10])
def test_approximate_scores_within_a_constant_factor_on_digits(k, sparse):
    # Real data: scikit-learn's bundled handwritten digits (1797 x 64, some pixels always 0).
    # Sketch size k + 3k = 4k < 64 columns, so the sketch is a genuine compression.
    X = load_digits().data
    assert sketch_size(k, 1 / 3) < X.shape[1]
    exact = RidgeLeverageSampler(n_clusters=k).fit(X).ridge_leverage_scores_
    used = np.linalg.norm(X, axis=0) > 0
    for seed in range(3):
        est = make_reducer("ridge_leverage_approx", 5, n_clusters=k, random_state=seed)
        approx = est.fit(sp.csr_matrix(X) if sparse else X).ridge_leverage_scores_
        np.testing.assert_array_equal(approx[~used], 0.0)
        ratio = approx[used] / exact[used]
        assert ratio.min() >= 0.5 and ratio.max() <= 4.0, (ratio.min(), ratio.max())


def test_sampling_follows_the_scores_and_rescales():
    A = decaying_matrix(50, 20, decay=0.8, seed=1)
    est = RidgeLeverageSampler(4000, n_clusters=3, random_state=0).fit(A)
    counts = np.bincount(est.selected_features_, minlength=20)
    assert pooled_chisquare(counts, est.probabilities_) > 1e-3
    np.testing.assert_allclose(
        est.scales_, 1 / np.sqrt(4000 * est.probabilities_[est.selected_features_])
    )
    C = est.transform(A)
    np.testing.assert_allclose(C, A[:, est.selected_features_] * est.scales_)
    # E[C C^T] = A A^T for this rescaling; with 4000 draws the Frobenius error is small.
    assert np.linalg.norm(C @ C.T - A @ A.T) < 0.1 * np.linalg.norm(A @ A.T)


def test_the_sampler_is_leverage_samplings():
    # Same helper, same draws: LeverageScoreSampler with the same probabilities and seed.
    A = decaying_matrix(30, 20, seed=2)
    lev = LeverageScoreSampler(9, n_clusters=3, random_state=4).fit(A)
    idx, scales = sample_columns(lev.probabilities_, 9, 4)
    np.testing.assert_array_equal(idx, lev.selected_features_)
    np.testing.assert_allclose(scales, lev.scales_)


def test_sparse_input_stays_sparse_and_matches_dense():
    X, Xs = sparse_pair(n=40, d=25)
    dense = RidgeLeverageSampler(8, n_clusters=3, random_state=1).fit_transform(X)
    C = RidgeLeverageSampler(8, n_clusters=3, random_state=1).fit_transform(Xs)
    assert sp.issparse(C)
    np.testing.assert_allclose(C.toarray(), dense, atol=1e-12)


@pytest.mark.parametrize("name", ["ridge_leverage", "ridge_leverage_approx"])
def test_projection_cost_preservation_on_blobs(name):
    # r = O(k log k) draws keep the k-means cost of a FIXED partition within a constant factor
    # (CMM17: a projection-cost-preserving sketch). Features with very different scales make
    # the scores matter: uniform sampling with the same rescaling is unbiased too, but its spread
    # on the same data leaves the band (checked below, so the band is not trivially met).
    X, y = make_blobs(n_samples=300, n_features=200, centers=4, cluster_std=2.0, random_state=0)
    rng = np.random.default_rng(0)
    X = X * np.exp(rng.normal(0.0, 1.0, 200))
    k, r = 4, int(np.ceil(10 * 4 * np.log(4)))
    partitions = {"true": y, "random": rng.integers(0, k, 300)}
    shared = make_reducer(name, r, n_clusters=k, random_state=0).compute_shared(X)
    for labels in partitions.values():
        base = kmeans_cost(X, labels)
        ratios = [
            kmeans_cost(
                make_reducer(name, r, n_clusters=k, random_state=seed).fit_transform(
                    X, shared=shared
                ),
                labels,
            )
            / base
            for seed in range(30)
        ]
        assert min(ratios) >= 0.75 and max(ratios) <= 1.25, (min(ratios), max(ratios))
        uniform = [
            kmeans_cost(X[:, idx] * scales, labels) / base
            for idx, scales in (sample_columns(np.full(200, 1 / 200), r, s) for s in range(30))
        ]
        assert min(uniform) < 0.75 or max(uniform) > 1.25


def test_shared_work():
    A = decaying_matrix(40, 30, seed=0)
    # Dense exact: one thin SVD per repetition serves every r.
    shared = RidgeLeverageSampler(n_clusters=3).compute_shared(A)
    est = RidgeLeverageSampler(6, n_clusters=3, random_state=0).fit(A, shared=shared)
    alone = RidgeLeverageSampler(6, n_clusters=3, random_state=0).fit(A)
    np.testing.assert_allclose(est.ridge_leverage_scores_, alone.ridge_leverage_scores_)
    assert est.shared_seconds_ == shared.seconds
    # Approximate: one sketch serves every r; its scores do not depend on r.
    approx = RidgeLeverageSampler(n_clusters=3, scores="approximate", random_state=1)
    sketch = approx.compute_shared(A)
    fits = [
        RidgeLeverageSampler(r, n_clusters=3, scores="approximate", random_state=1).fit(
            A, shared=sketch
        )
        for r in (2, 10)
    ]
    np.testing.assert_array_equal(fits[0].ridge_leverage_scores_, fits[1].ridge_leverage_scores_)
    with pytest.raises(ValueError, match="compute it with this reducer's compute_shared"):
        RidgeLeverageSampler(2, n_clusters=4, scores="approximate").fit(A, shared=sketch)


def test_reproducible_and_registered():
    A = decaying_matrix(30, 20, seed=4)
    for name in ("ridge_leverage", "ridge_leverage_approx"):
        first = make_reducer(name, 7, n_clusters=3, random_state=5).fit_transform(A)
        again = make_reducer(name, 7, n_clusters=3, random_state=5).fit_transform(A)
        np.testing.assert_array_equal(first, again)
        assert max_components(name, 30, 20) is None  # draws with replacement
        assert "CMM17" in reducer_label(name)
    assert make_reducer("ridge_leverage_approx", 2, n_clusters=2).scores == "approximate"


def test_errors_are_one_line_and_early():
    A = decaying_matrix(10, 8, seed=0)
    with pytest.raises(ValueError, match=r"n_clusters=None is invalid .* \[1, 8\]"):
        RidgeLeverageSampler(2).fit(A)
    with pytest.raises(ValueError, match=r"n_clusters=9 is invalid"):
        RidgeLeverageSampler(2, n_clusters=9).fit(A)
    with pytest.raises(ValueError, match="no nonzero entry"):
        RidgeLeverageSampler(2, n_clusters=2).fit(np.zeros((5, 4)))
    with pytest.raises(ValueError, match="'scores' parameter"):
        RidgeLeverageSampler(2, n_clusters=2, scores="fast").fit(A)
