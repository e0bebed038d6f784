"""SVD features (bzmd14 Alg. 3) and Laplacian score selection (He, Cai, Niyogi 2005)."""

import numpy as np
import pytest
import scipy.sparse as sp

from _reducer_helpers import decaying_matrix, never_densified, sparse_pair, to_dense
from kmdr.reducers import LaplacianScoreSelector, SVDFeatures, thin_svd
from kmdr.reducers.laplacian import heat_kernel_graph, heat_kernel_scale


def _equal_up_to_column_signs(C, expected, atol=1e-9):
    signs = np.sign(np.sum(C * expected, axis=0))
    np.testing.assert_allclose(C * signs, expected, atol=atol)


@pytest.mark.parametrize("sparse", [False, True])
def test_svd_features_equal_A_V_r(sparse):
    A = decaying_matrix(40, 30, decay=0.85)
    U, s, Vt = np.linalg.svd(A)
    r = 6
    est = SVDFeatures(r)
    C = est.fit_transform(sp.csr_matrix(A) if sparse else A)
    _equal_up_to_column_signs(C, A @ Vt[:r].T)
    _equal_up_to_column_signs(C, U[:, :r] * s[:r])
    np.testing.assert_allclose(est.singular_values_, s[:r], rtol=1e-10)
    np.testing.assert_allclose(est.components_ @ est.components_.T, np.eye(r), atol=1e-12)


@pytest.mark.parametrize("shape", [(40, 90), (90, 40)])
def test_exact_svd_features_compute_their_own_rank_and_match_the_thin_svd(shape):
    A = decaying_matrix(*shape, decay=0.8)
    full = thin_svd(A)
    for r in (1, 3, 12, 40):
        est = SVDFeatures(r)
        # Nothing is shared across r: each fit computes (and is charged) its own rank-r factor.
        assert est.shared_key(A) is None
        C = est.fit_transform(A)
        assert est.shared_seconds_ == 0.0
        # Same features as projecting on the thin SVD's vectors, signs included (svd_flip).
        expected = A @ full.top(r).T
        np.testing.assert_allclose(C, expected, atol=1e-10 * np.abs(expected).max())
        np.testing.assert_array_equal(SVDFeatures(r).fit_transform(A), C)  # reproducible


def test_svd_features_are_not_centred():
    A = decaying_matrix(30, 20) + 100.0  # a large mean: PCA would remove it
    C = SVDFeatures(1).fit_transform(A)
    top = np.linalg.svd(A)[2][0]
    _equal_up_to_column_signs(C, (A @ top)[:, None])


def test_approximate_svd_features_project_on_orthonormal_Z():
    A = decaying_matrix(60, 40, decay=0.7)
    r = 5
    est = SVDFeatures(r, svd="approximate", random_state=0).fit(A)
    Z = est.components_.T
    np.testing.assert_allclose(Z.T @ Z, np.eye(r), atol=1e-12)
    np.testing.assert_allclose(est.transform(A), A @ Z, atol=1e-12)
    s = np.linalg.svd(A, compute_uv=False)
    assert np.linalg.norm(A - A @ Z @ Z.T) ** 2 <= (1 + 1 / 3) * (s[r:] ** 2).sum()


def _dense_laplacian_scores(X, n_neighbors, t):
    """He-Cai-Niyogi scores written directly from the paper, dense and loop-based."""
    n, d = X.shape
    dist = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    S = np.zeros((n, n))
    for i in range(n):
        neighbours = [j for j in np.argsort(dist[i], kind="stable") if j != i][:n_neighbors]
        for j in neighbours:
            S[i, j] = S[j, i] = np.exp(-(dist[i, j] ** 2) / (2 * t**2))
    D = np.diag(S.sum(axis=1))
    L = D - S
    one = np.ones(n)
    scores = np.empty(d)
    for r in range(d):
        f = X[:, r]
        f_tilde = f - (f @ D @ one) / (one @ D @ one) * one
        den = f_tilde @ D @ f_tilde
        scores[r] = np.inf if den <= 1e-12 * (f @ D @ f) else (f_tilde @ L @ f_tilde) / den
    return scores


@pytest.mark.parametrize("t", ["auto", 2.5])
def test_laplacian_scores_match_direct_formula(t):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 8)) * np.arange(1, 9)
    X[:, 3] = 7.0  # a constant feature
    X[:, 5] = X[:, 0] + 0.01 * rng.standard_normal(30)  # a smooth one
    est = LaplacianScoreSelector(3).fit(X) if t == "auto" else LaplacianScoreSelector(3, t=t).fit(X)
    t_ref = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1)).mean() if t == "auto" else t
    assert est.t_ == pytest.approx(t_ref, rel=1e-12)
    expected = _dense_laplacian_scores(X, 5, t_ref)
    assert np.isinf(est.scores_[3]) and np.isinf(expected[3])
    finite = np.isfinite(expected)
    np.testing.assert_allclose(est.scores_[finite], expected[finite], rtol=1e-9)
    np.testing.assert_array_equal(est.selected_features_, np.argsort(expected, kind="stable")[:3])
    np.testing.assert_array_equal(est.transform(X), X[:, est.selected_features_])


def test_constant_feature_is_never_selected_first():
    X = np.random.default_rng(1).standard_normal((20, 4))
    X[:, 0] = 0.0
    est = LaplacianScoreSelector(4).fit(X)
    assert est.selected_features_[-1] == 0


def test_heat_kernel_weights_do_not_underflow_on_pixel_data():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 256, size=(40, 64)).astype(float)
    t = heat_kernel_scale(X)
    W = heat_kernel_graph(X, 5, t)
    assert W.nnz >= 40 * 5
    assert np.all(W.data > 0.1)
    # the failure mode the data-driven default avoids: t = 1 makes every weight 0
    assert np.all(heat_kernel_graph(X, 5, 1.0).data == 0.0)


def test_laplacian_sparse_equals_dense():
    X, Xs = sparse_pair(40, 12)
    dense = LaplacianScoreSelector(4).fit(X)
    sparse = LaplacianScoreSelector(4).fit(Xs)
    np.testing.assert_allclose(sparse.scores_, dense.scores_, rtol=1e-9)
    C = sparse.transform(Xs)
    assert sp.issparse(C)
    np.testing.assert_array_equal(to_dense(C), dense.transform(X))


@pytest.mark.parametrize("method", ["gram", "arpack"])
def test_truncated_svd_is_kept_at_a_cut_inside_a_flat_noise_bulk(method, monkeypatch):
    # Clusters (sigma 20..8) above a noise bulk of width 1e-8 around 1: at r = 8 the relative
    # eigen-gap is ~1e-11 (the 1e-10 rule fails), sigma_1 / sigma_r = 20 (within gesdd's factor).
    from kmdr.reducers import _svd

    rng = np.random.default_rng(0)
    n, d, r = 300, 200, 8
    s = np.concatenate([np.linspace(20.0, 8.0, 5), 1.0 + 1e-8 * rng.random(d - 5)])
    s = np.sort(s)[::-1]
    U = np.linalg.qr(rng.standard_normal((n, d)))[0]
    V = np.linalg.qr(rng.standard_normal((d, d)))[0]
    A = (U * s) @ V.T
    reference = _svd.thin_svd(A).top(r)

    def no_gesdd(_A):
        raise AssertionError("fell back to the full gesdd")

    monkeypatch.setattr(_svd, "thin_svd", no_gesdd)
    got = _svd.exact_svd(A, r, method=method).top(r)
    # gesdd's own accuracy at this cut: eps * sigma_1 / (sigma_r - sigma_{r+1}).
    gesdd_bound = np.finfo(float).eps * s[0] / (s[r - 1] - s[r])
    tolerance = _svd.GESDD_ACCURACY_FACTOR * gesdd_bound
    assert 1e-10 < tolerance < 1e-2  # the comparison below is meaningful
    # The subspace (what features up to rotation and leverage scores depend on) agrees.
    projector_gap = np.linalg.norm(got.T @ got - reference.T @ reference, 2)
    assert projector_gap <= tolerance
    leverage_got, leverage_ref = (got**2).sum(axis=0), (reference**2).sum(axis=0)
    np.testing.assert_allclose(leverage_got, leverage_ref, atol=tolerance)
    # Above the bulk the vectors are well-defined and equal to gesdd's, signs included.
    np.testing.assert_allclose(got[:5], reference[:5], atol=1e-8)


def _planted(s, n=300, seed=1):
    rng = np.random.default_rng(seed)
    d = s.size
    U = np.linalg.qr(rng.standard_normal((n, d)))[0]
    V = np.linalg.qr(rng.standard_normal((d, d)))[0]
    return (U * s) @ V.T


def _no_gesdd(monkeypatch):
    from kmdr.reducers import _svd

    def no_gesdd(_A):
        raise AssertionError("fell back to the full gesdd")

    monkeypatch.setattr(_svd, "thin_svd", no_gesdd)


def _residual(A, Vt):
    return np.linalg.norm(A - (A @ Vt.T) @ Vt)


@pytest.mark.parametrize("method", ["gram", "auto"])
def test_flat_bulk_far_below_the_top_is_solved_by_the_deflated_gram_route(method, monkeypatch):
    # Clusters 1e4 above a flat bulk 1 + 1e-12 j: at r = 8 the gap (1e-12) is below what any
    # backward-stable solver resolves (10 eps sigma_1 = 2e-11), and sigma_1 / sigma_r = 1e4 made
    # the squared routes fall back to gesdd. Deflated of the clusters, the Gram route is kept, and
    # what is determined by the data (the top 3 vectors, the singular values, the captured energy
    # and the residual ||A - A V V^T||_F) equals gesdd's to working precision.
    from kmdr.reducers import _svd

    d, r = 200, 8
    s = np.concatenate([[1e4, 9e3, 8e3], 1.0 + 1e-12 * np.arange(d - 3, 0, -1)])
    A = _planted(s)
    reference = _svd.thin_svd(A)
    _no_gesdd(monkeypatch)
    got, route = _svd._exact_svd_route(A, r, method=method)
    assert route == "gram+deflation"
    Vt, ref = got.top(r), reference.top(r)
    np.testing.assert_allclose(Vt @ Vt.T, np.eye(r), atol=1e-13)
    # Singular values to eps * sigma_1 (gesdd's are off by ~6 eps sigma_1 here as well).
    np.testing.assert_allclose(got.singular_values, s[:r], rtol=1e-14, atol=1e-11)
    optimal = np.sqrt((s[r:] ** 2).sum())
    np.testing.assert_allclose(_residual(A, Vt), optimal, rtol=1e-12)
    np.testing.assert_allclose(_residual(A, ref), optimal, rtol=1e-12)
    np.testing.assert_allclose(
        np.linalg.norm(A @ Vt.T) ** 2, (reference.singular_values[:r] ** 2).sum(), rtol=1e-13
    )
    np.testing.assert_allclose(Vt[:3], ref[:3], atol=1e-12)  # separated: equal, signs included


def test_resolvable_bulk_far_below_the_top_matches_gesdds_subspace(monkeypatch):
    # Synth's case: a few clusters ~1e4 times above a Gaussian noise bulk whose gaps ARE resolved
    # by gesdd (its bound eps sigma_1 / gap ~ 1e-10) but not by the squared spectrum (~1e-6).
    # Deflated, the Gram route's subspace agrees with gesdd's within gesdd's own bound.
    from kmdr.reducers import _svd

    rng = np.random.default_rng(2)
    n, d, r = 300, 200, 10
    noise = np.linalg.svd(rng.standard_normal((n, d)), compute_uv=False)
    s = np.sort(np.concatenate([[1e5, 5e4, 4e4, 3e4, 2e4], noise[: d - 5]]))[::-1]
    A = _planted(s, n)
    reference = _svd.thin_svd(A)
    assert _svd._gap_ok(np.sort(s**2)[::-1][: r + 1], r, next_exact=True) is False  # old rule
    _no_gesdd(monkeypatch)
    got, route = _svd._exact_svd_route(A, r, method="gram")
    assert route == "gram+deflation"
    gesdd_bound = np.finfo(float).eps * s[0] / (s[r - 1] - s[r])
    Vt, ref = got.top(r), reference.top(r)
    sin = np.linalg.norm(Vt.T - ref.T @ (ref @ Vt.T), 2)
    assert sin <= 10 * gesdd_bound < 1e-8
    np.testing.assert_allclose(got.singular_values, reference.singular_values[:r], rtol=1e-12)
    np.testing.assert_allclose(Vt, ref, atol=1e-8)  # every vector, signs included


def test_unresolvable_cut_below_a_second_level_is_accepted_by_backward_error(monkeypatch):
    # 1e8, then 1e4, then a flat bulk at 1: one deflation (of 1e8) leaves sigma'_1 / sigma'_r =
    # 1e4, so the subspace rule fails in the deflated problem too; the cut (gap 1e-12, far below
    # 10 eps sigma_1 = 2e-7) is unresolvable, and the result is kept by its backward error.
    from kmdr.reducers import _svd

    d, r = 200, 5
    s = np.concatenate([[1e8, 1e4], 1.0 + 1e-12 * np.arange(d - 2, 0, -1)])
    A = _planted(s)
    reference = _svd.thin_svd(A)
    _no_gesdd(monkeypatch)
    got, route = _svd._exact_svd_route(A, r, method="gram")
    assert route == "gram+deflation"
    Vt = got.top(r)
    # Its residual is optimal to working precision (eps * sigma_1 against the 1e8 scale).
    optimal = np.sqrt((s[r:] ** 2).sum())
    np.testing.assert_allclose(_residual(A, Vt), optimal, rtol=1e-9)
    np.testing.assert_allclose(_residual(A, reference.top(r)), optimal, rtol=1e-9)
    np.testing.assert_allclose(Vt[:2], reference.top(2), atol=1e-12)


def test_backward_error_check_rejects_a_perturbed_subspace():
    from kmdr.reducers import _svd

    s = np.concatenate([[1e4, 9e3, 8e3], np.linspace(2.0, 1.0, 197)])
    A = _planted(s)
    ref = _svd.thin_svd(A)
    r = 8
    assert _svd._backward_ok(A, ref.singular_values[:r], ref.top(r))
    # Rotate v_3 (sigma 8e3) by 1e-8 towards v_9: its residual, ~8e-5, is far above the
    # tolerance 1000 eps sigma_1^2 / sigma_3 = 3e-9, though the energy changes only by 6e-9.
    Vt = ref.top(r + 1).copy()
    c, t = np.cos(1e-8), np.sin(1e-8)
    Vt[2], Vt[r] = c * Vt[2] + t * Vt[r], -t * Vt[2] + c * Vt[r]
    assert not _svd._backward_ok(A, ref.singular_values[:r], Vt[:r])
    # A singular value off by 1e-9 sigma_1 is rejected too.
    shifted = ref.singular_values[:r] + np.eye(r)[2] * 1e-5
    assert not _svd._backward_ok(A, shifted, ref.top(r))


def test_truncated_svd_falls_back_to_gesdd_when_far_less_accurate():
    # A steady decay over 8 orders of magnitude (decay 0.5, rank 28 of 30): no leading block whose
    # deflation makes the squared spectrum accurate at the cut, which gesdd resolves (gap 4e-8,
    # eps sigma_1 = 2e-15): the Gram route would lose the small singular vectors, gesdd is used.
    from kmdr.reducers import _svd

    A = decaying_matrix(30, 70, decay=0.5)
    assert _svd._gram_svd(A, 28) is None
    got, route = _svd._exact_svd_route(A, 28)
    assert route == "gram->gesdd"
    np.testing.assert_array_equal(got.components, _svd.thin_svd(A).top(28))


def test_gram_route_counts_the_next_singular_value_arpack_does_not():
    # sigma_1 / sigma_r = 150 but sigma_1 / (sigma_r + sigma_{r+1}) = 75: within the factor 100
    # only when sigma_{r+1} is known exactly (the Gram route computes it; ARPACK bounds it).
    from kmdr.reducers import _svd

    eigvals = np.array([150.0, 100.0, 1.0 + 1e-9, 1.0]) ** 2
    assert _svd._near_gesdd_accuracy(eigvals, 3, next_exact=True)
    assert not _svd._near_gesdd_accuracy(eigvals, 3, next_exact=False)
    assert _svd._gap_ok(eigvals, 3, next_exact=True) and not _svd._gap_ok(eigvals, 3)


@pytest.mark.parametrize("r", [1, 5, 11])
def test_sparse_svd_features_never_densify_and_equal_the_dense_ones(r):
    X, Xs = sparse_pair(60, 25)
    sparse = SVDFeatures(r).fit(never_densified(Xs))
    dense = SVDFeatures(r).fit(X)
    # Signs are fixed the same way (svd_flip): the same features, not only up to sign.
    np.testing.assert_allclose(sparse.components_, dense.components_, atol=1e-10)
    np.testing.assert_allclose(sparse.singular_values_, dense.singular_values_, rtol=1e-12)
    C = sparse.transform(never_densified(Xs))
    assert isinstance(C, np.ndarray) and C.shape == (60, r)
    np.testing.assert_allclose(C, dense.transform(X), atol=1e-10)


def test_sparse_laplacian_scores_never_densify_and_select_the_same_features():
    X, Xs = sparse_pair(80, 30, density=0.2, seed=3)
    sparse = LaplacianScoreSelector(7).fit(never_densified(Xs))
    dense = LaplacianScoreSelector(7).fit(X)
    assert sparse.t_ == pytest.approx(dense.t_, rel=1e-12)
    np.testing.assert_allclose(sparse.scores_, dense.scores_, rtol=1e-10)
    np.testing.assert_array_equal(sparse.selected_features_, dense.selected_features_)
    C = sparse.transform(never_densified(Xs))
    assert sp.issparse(C)
    np.testing.assert_array_equal(to_dense(C), X[:, dense.selected_features_])


def test_the_densify_trap_catches_copies_of_the_input_not_small_products():
    # The trap the two tests above rely on: it must fire on the input and its rows, and let
    # through a product that is dense by nature and does not grow with d.
    _, Xs = sparse_pair(80, 30, density=0.2, seed=3)
    X = never_densified(Xs)
    for densify in (
        lambda: X.toarray(),
        lambda: X[[0, 5, 9]].toarray(),
        lambda: X[5].toarray(),
        lambda: X.todense(),
        lambda: np.asarray(X, dtype=float),
    ):
        with pytest.raises(AssertionError, match=r"densified|numpy array"):
            densify()
    np.testing.assert_allclose((X @ X.T).toarray(), Xs @ Xs.T.toarray())
