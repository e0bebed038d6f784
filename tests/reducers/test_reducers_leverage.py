"""Leverage-score sampling (bmd09 Alg. 1, bzmd14 Alg. 1), the exact truncated SVD behind it and
FastFrobeniusSVD (bzmd14 Lemma 4)."""

import numpy as np
import pytest
import scipy.sparse as sp

from _reducer_helpers import decaying_matrix, pooled_chisquare, sparse_pair, to_dense
from kmdr.reducers import LeverageScoreSampler, _svd, exact_svd, fast_frobenius_svd, thin_svd


def _skewed_matrix(seed=0):
    """Columns of very different weight, so that leverage scores are far from uniform."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((40, 25)) * np.geomspace(10.0, 0.1, 25)


def test_scores_are_squared_row_norms_of_top_k_right_singular_vectors():
    A = decaying_matrix(50, 30)
    k = 4
    est = LeverageScoreSampler(5, n_clusters=k, random_state=0).fit(A)
    Vk = np.linalg.svd(A)[2][:k].T  # d x k, independent reference (numpy, not scipy)
    np.testing.assert_allclose(est.probabilities_, (Vk**2).sum(axis=1) / k, atol=1e-12)
    np.testing.assert_allclose(est.leverage_scores_, (Vk**2).sum(axis=1), atol=1e-12)
    assert est.probabilities_.sum() == pytest.approx(1.0, abs=1e-12)


def test_sqrt_scores_are_proportional_to_row_norms():
    A = decaying_matrix(50, 30)
    est = LeverageScoreSampler(5, n_clusters=3, scores="sqrt", random_state=0).fit(A)
    norms = np.linalg.norm(np.linalg.svd(A)[2][:3], axis=0)
    np.testing.assert_allclose(est.probabilities_, norms / norms.sum(), atol=1e-12)


def test_sampled_columns_carry_exact_rescaling():
    A = _skewed_matrix()
    r = 30
    est = LeverageScoreSampler(r, n_clusters=3, random_state=1)
    C = est.fit_transform(A)
    idx = est.selected_features_
    assert len(np.unique(idx)) < r  # draws with replacement do repeat here
    expected_scales = 1.0 / np.sqrt(r * est.probabilities_[idx])
    np.testing.assert_array_equal(est.scales_, expected_scales)
    for t in range(r):
        np.testing.assert_array_equal(C[:, t], A[:, idx[t]] * expected_scales[t])


def test_draw_frequencies_match_probabilities_and_the_test_has_power():
    A = _skewed_matrix()
    n_draws = 20000
    est = LeverageScoreSampler(n_draws, n_clusters=3, random_state=12345).fit(A)
    counts = np.bincount(est.selected_features_, minlength=A.shape[1])
    assert pooled_chisquare(counts, est.probabilities_) > 1e-3
    # the same test rejects a wrong distribution (uniform) on the same draws
    uniform = np.full(A.shape[1], 1.0 / A.shape[1])
    assert pooled_chisquare(counts, uniform) < 1e-10
    # and rejects draws from a wrong distribution (sqrt scores) against the leverage scores
    wrong = LeverageScoreSampler(n_draws, n_clusters=3, scores="sqrt", random_state=12345).fit(A)
    wrong_counts = np.bincount(wrong.selected_features_, minlength=A.shape[1])
    assert pooled_chisquare(wrong_counts, est.probabilities_) < 1e-10


def test_top_scores_are_deterministic_unscaled_without_repeats():
    A = _skewed_matrix()
    est = LeverageScoreSampler(6, n_clusters=3, scores="top").fit(A)
    order = np.argsort(-est.probabilities_)
    np.testing.assert_array_equal(np.sort(est.selected_features_), np.sort(order[:6]))
    assert len(set(est.selected_features_)) == 6
    np.testing.assert_array_equal(est.transform(A), A[:, est.selected_features_])
    with pytest.raises(ValueError, match=r"n_components=26 .* \[1, 25\]"):
        LeverageScoreSampler(26, n_clusters=3, scores="top").fit(A)


def test_scores_do_not_depend_on_r():
    A = decaying_matrix()
    p5 = LeverageScoreSampler(5, n_clusters=3, random_state=0).fit(A).probabilities_
    p50 = LeverageScoreSampler(50, n_clusters=3, random_state=0).fit(A).probabilities_
    np.testing.assert_array_equal(p5, p50)


def test_sparse_exact_leverage_matches_dense():
    X, Xs = sparse_pair()
    dense = LeverageScoreSampler(8, n_clusters=3, random_state=0)
    sparse = LeverageScoreSampler(8, n_clusters=3, random_state=0)
    Cd, Cs = dense.fit_transform(X), sparse.fit_transform(Xs)
    assert sp.issparse(Cs)
    np.testing.assert_allclose(sparse.probabilities_, dense.probabilities_, atol=1e-10)
    np.testing.assert_array_equal(sparse.selected_features_, dense.selected_features_)
    np.testing.assert_allclose(to_dense(Cs), Cd, rtol=1e-8)


@pytest.mark.parametrize("seed", range(5))
def test_fast_frobenius_svd_orthonormal_and_within_one_plus_eps(seed):
    A = decaying_matrix(80, 60, decay=0.8, seed=seed)
    k, eps = 5, 1 / 3
    Z = fast_frobenius_svd(A, k, eps, random_state=seed).components.T  # d x k
    np.testing.assert_allclose(Z.T @ Z, np.eye(k), atol=1e-12)
    s = np.linalg.svd(A, compute_uv=False)
    best = (s[k:] ** 2).sum()
    err = np.linalg.norm(A - A @ Z @ Z.T) ** 2
    assert best <= err * (1 + 1e-12)
    assert err <= (1 + eps) * best


def test_fast_frobenius_svd_sketch_size_and_sparse_input():
    # l = k + ceil(k/eps + 1): with k = 3, eps = 1/2 the sketch has 3 + 7 = 10 columns; on a
    # rank-10 matrix the sketch then captures the whole row space and Z is exact.
    rng = np.random.default_rng(0)
    A = rng.standard_normal((40, 10)) @ rng.standard_normal((10, 30))
    Z = fast_frobenius_svd(A, 3, 0.5, random_state=0).components
    V3 = np.linalg.svd(A)[2][:3]
    np.testing.assert_allclose(np.abs(Z @ V3.T), np.eye(3), atol=1e-8)
    Zs = fast_frobenius_svd(sp.csr_matrix(A), 3, 0.5, random_state=0).components
    np.testing.assert_allclose(Zs, Z, atol=1e-10)


def test_approximate_leverage_uses_the_sketch_and_is_reproducible():
    A = decaying_matrix(60, 40, decay=0.9)
    a = LeverageScoreSampler(10, n_clusters=4, svd="approximate", random_state=3).fit(A)
    b = LeverageScoreSampler(10, n_clusters=4, svd="approximate", random_state=3).fit(A)
    c = LeverageScoreSampler(10, n_clusters=4, svd="approximate", random_state=4).fit(A)
    np.testing.assert_array_equal(a.probabilities_, b.probabilities_)
    assert not np.array_equal(a.probabilities_, c.probabilities_)
    exact = LeverageScoreSampler(10, n_clusters=4).fit(A).probabilities_
    # close to the exact scores (total variation), not identical
    assert 0 < 0.5 * np.abs(a.probabilities_ - exact).sum() < 0.2


# ---------------------------------------------------------------- exact truncated SVD


def _leverage(components):
    return np.einsum("ij,ij->j", components, components)


@pytest.mark.parametrize("shape", [(30, 70), (70, 30)])  # n < d (vectors via A^T u) and n > d
@pytest.mark.parametrize("method", ["auto", "gesdd", "gram", "arpack"])
@pytest.mark.parametrize("rank", [1, 4, 12])
def test_exact_svd_agrees_with_the_thin_svd(shape, method, rank):
    A = decaying_matrix(*shape, decay=0.8)
    full = thin_svd(A)
    got = exact_svd(A, rank, method=method)
    # the spectrum has a gap at every rank here, so the squared routes are used, not gesdd
    assert _svd._gram_svd(A, rank) is not None
    assert got.components.shape == (rank, shape[1])  # only the rank asked for is computed
    np.testing.assert_allclose(got.singular_values, full.singular_values[:rank], rtol=1e-11)
    # Same vectors, same signs (svd_flip), to ~1e-10: SVD features are reproducible across
    # methods, and so are the leverage scores (relative to the largest one).
    np.testing.assert_allclose(got.components, full.top(rank), atol=1e-10)
    lev, lev_full = _leverage(got.components), _leverage(full.top(rank))
    assert np.abs(lev - lev_full).max() <= 1e-10 * lev_full.max()


def test_exact_svd_of_full_rank_and_sparse_input():
    A = decaying_matrix(30, 50, decay=0.9)
    full = thin_svd(A)
    for method in ("auto", "gram", "arpack"):  # rank = min(n, d): ARPACK cannot, gesdd is used
        np.testing.assert_allclose(
            exact_svd(A, 30, method=method).components, full.components, atol=1e-9
        )
    sparse = exact_svd(sp.csr_matrix(A), 7)
    np.testing.assert_allclose(sparse.components, full.top(7), atol=1e-10)


def test_squared_spectrum_routes_fall_back_to_gesdd_without_a_gap():
    # decay 0.5: lambda_j / lambda_1 = 0.25^(j-1), so the relative gap at rank 12 is ~1e-7, too
    # small for the Gram/ARPACK error bound (eps * lambda_1 / gap ~ 1e-9 > 1e-10). Deflated of
    # its top 9 (separated in the squared spectrum) the Gram route is accurate at 12 again; at
    # rank 28 one deflation is not enough and gesdd is used.
    A = decaying_matrix(30, 70, decay=0.5)
    assert _svd._arpack_svd(A, 12, check_gap=True) is None
    reference = thin_svd(A)
    got, route = _svd._exact_svd_route(A, 12, method="gram")
    assert route == "gram+deflation"
    np.testing.assert_allclose(got.components, reference.top(12), atol=1e-9)
    assert _svd._exact_svd_route(A, 12, method="arpack")[1] == "arpack->gram+deflation"
    assert _svd._gram_svd(A, 28) is None
    for method in ("gram", "auto"):
        got = exact_svd(A, 28, method=method)
        np.testing.assert_array_equal(got.components, reference.top(28))  # gesdd itself
    # With a gap the Gram route is kept (its result differs from gesdd in the last bits).
    assert _svd._gram_route(A, 4)[1] == "gram" and _svd._gram_svd(A, 4) is not None


def test_auto_method_follows_the_measured_crossover():
    # COIL20's shape: the switch is at ARPACK_RANK_FACTOR * 1024**2 / 1440 (29.1 with 0.04)
    coil = np.zeros((1440, 1024))
    switch = _svd.ARPACK_RANK_FACTOR * 1024**2 / 1440
    assert _svd._auto_method(coil, int(np.ceil(switch)) - 1) == "arpack"
    assert _svd._auto_method(coil, int(np.ceil(switch))) == "gram"
    assert _svd._auto_method(coil.T, int(np.ceil(switch)) - 1) == "arpack"  # symmetric in n, d
    assert _svd._auto_method(np.zeros((11000, 256)), 1) == "gram"  # USPS: the Gram route always
    assert _svd._auto_method(sp.csr_matrix(coil), 900) == "arpack"  # sparse: never densified


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rank": 0}, r"rank=0 is invalid.*\[1, 20\]"),
        ({"rank": 21}, "rank=21"),
        ({"rank": 2.0}, "rank=2.0"),
        ({"rank": 3, "method": "lapack"}, "method='lapack'"),
    ],
)
def test_exact_svd_rejects_bad_rank_and_method(kwargs, match):
    with pytest.raises(ValueError, match=match):
        exact_svd(np.ones((20, 30)), **kwargs)


def test_exact_leverage_shares_one_rank_k_factor_across_r():
    A = decaying_matrix(40, 90, decay=0.8)
    k = 3
    est = LeverageScoreSampler(5, n_clusters=k, random_state=0)
    shared = est.compute_shared(A)
    assert shared.key == ("exact_svd", k)
    assert shared.value.components.shape == (k, 90)  # top k only, not the full thin SVD
    expected = _leverage(thin_svd(A).top(k))
    for r in (2, 40, 200):  # one factor serves every r
        fitted = LeverageScoreSampler(r, n_clusters=k, random_state=0).fit(A, shared=shared)
        np.testing.assert_allclose(fitted.leverage_scores_, expected, atol=1e-12)
        assert fitted.shared_seconds_ == shared.seconds
    # another k is another factor
    assert LeverageScoreSampler(5, n_clusters=k + 1).shared_key(A) != shared.key


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(30, 70), (70, 30)])
def test_gram_route_for_every_memory_layout_and_sparse_input(order, shape):
    # syrk is called on A or A^T depending on the layout: both must give A's vectors.
    A = decaying_matrix(*shape, decay=0.8)
    reference = thin_svd(A).top(9)
    for data in (np.asarray(A, order=order), sp.csr_matrix(A), sp.csc_matrix(A)):
        got = exact_svd(data, 9, method="gram")
        np.testing.assert_allclose(got.components, reference, atol=1e-10)
    # the subset eigensolver and the full one give the same vectors
    for subset in (True, False):
        got = _svd._gram_svd(np.asarray(A, order=order), 9, subset=subset)
        np.testing.assert_allclose(got.components, reference, atol=1e-10)


@pytest.mark.parametrize("sparse", [False, True])
def test_arpack_gap_check_bounds_the_next_eigenvalue_from_above(sparse):
    rng = np.random.default_rng(0)
    # Three far-apart clusters plus unit noise: the energy left after rank 3 certifies the gap.
    clustered = np.repeat(rng.standard_normal((3, 60)) * 50, 20, axis=0)
    clustered += rng.standard_normal(clustered.shape)
    slow = decaying_matrix(50, 60, decay=0.95)  # the energy left is many times lambda_{rank+1}
    for A, rank, frobenius_route in ((clustered, 3, True), (slow, 4, False)):
        _, s, Vt = np.linalg.svd(A)
        lam = s**2
        data = sp.csr_matrix(A) if sparse else A
        bound = _svd._next_eigenvalue_bound(data, lam[:rank], Vt[:rank])
        left = lam[rank:].sum()
        assert bound >= lam[rank] * (1 - 1e-10)  # an upper bound on lambda_{rank+1}
        if frobenius_route:
            assert bound == pytest.approx(left, rel=1e-8)
        else:  # the Lanczos estimate: far tighter than the energy left
            assert bound <= lam[rank] * (1 + 3 * _svd._NEXT_EIGENVALUE_TOL) < left
