"""SVD features (bzmd14 Alg. 3) and Laplacian score selection (He, Cai, Niyogi 2005)."""

import numpy as np
import pytest
import scipy.sparse as sp

from _reducer_helpers import decaying_matrix, sparse_pair, to_dense
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


def test_truncated_svd_falls_back_to_gesdd_when_far_less_accurate():
    # The same bulk 1e4 below the top (as on Synth at r >= 10): the squared routes would be
    # 1e4 times less accurate than gesdd, so gesdd is used.
    from kmdr.reducers import _svd

    rng = np.random.default_rng(1)
    n, d, r = 300, 200, 8
    s = np.sort(np.concatenate([[1e4, 9e3, 8e3], 1.0 + 1e-8 * rng.random(d - 3)]))[::-1]
    U = np.linalg.qr(rng.standard_normal((n, d)))[0]
    V = np.linalg.qr(rng.standard_normal((d, d)))[0]
    A = (U * s) @ V.T
    assert _svd._gram_svd(A, r) is None
    np.testing.assert_array_equal(_svd.exact_svd(A, r).components, _svd.thin_svd(A).top(r))


def test_gram_route_counts_the_next_singular_value_arpack_does_not():
    # sigma_1 / sigma_r = 150 but sigma_1 / (sigma_r + sigma_{r+1}) = 75: within the factor 100
    # only when sigma_{r+1} is known exactly (the Gram route computes it; ARPACK bounds it).
    from kmdr.reducers import _svd

    eigvals = np.array([150.0, 100.0, 1.0 + 1e-9, 1.0]) ** 2
    assert _svd._near_gesdd_accuracy(eigvals, 3, next_exact=True)
    assert not _svd._near_gesdd_accuracy(eigvals, 3, next_exact=False)
    assert _svd._gap_ok(eigvals, 3, next_exact=True) and not _svd._gap_ok(eigvals, 3)
