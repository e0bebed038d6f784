"""PD: preconditioned sparsification and sparsified k-means (Pourkamali-Anaraki and Becker 2017)."""

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs

from _reducer_helpers import pooled_chisquare
from kmdr.kmeans.lloyd import KMeansResult
from kmdr.kmeans.sparsified import _Problem, sparsified_centers, sparsified_kmeans
from kmdr.metrics import clustering_accuracy
from kmdr.reducers import PreconditionedSparsification, make_reducer, max_components, reducer_label
from kmdr.reducers.sparsified import (
    fwht,
    inverse_precondition,
    keep_uniform,
    kept_positions,
    padded_dimension,
    precondition,
    preconditioned_entries,
)


def _blobs(n=600, d=200, k=5, seed=0):
    return make_blobs(
        n, n_features=d, centers=k, cluster_std=1.0, center_box=(-10, 10), random_state=seed
    )


def _csr(pos, vals, p):
    n, m = pos.shape
    return sp.csr_matrix((vals.ravel(), pos.ravel(), np.arange(0, n * m + 1, m)), shape=(n, p))


# -- the preconditioner ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["dct", "hadamard"])
def test_preconditioner_is_orthogonal_and_inverts(kind):
    rng = np.random.default_rng(0)
    d = 37  # not a power of two: Hadamard pads to 64
    p = padded_dimension(d, kind)
    assert p == (64 if kind == "hadamard" else 37)
    signs = rng.choice([-1.0, 1.0], p)
    Q = precondition(np.eye(d), signs, kind)  # row i: the image of e_i
    np.testing.assert_allclose(Q @ Q.T, np.eye(d), atol=1e-12)
    X = rng.standard_normal((20, d))
    Y = precondition(X, signs, kind)
    np.testing.assert_allclose(np.linalg.norm(Y, axis=1), np.linalg.norm(X, axis=1), rtol=1e-12)
    np.testing.assert_allclose(Y @ Y.T, X @ X.T, atol=1e-10)
    np.testing.assert_allclose(inverse_precondition(Y, signs, kind, d), X, atol=1e-12)
    # The sign flip is part of it: the same rows without it transform differently.
    assert not np.allclose(precondition(X, np.ones(p), kind), Y)


def test_fwht_is_the_normalized_hadamard_matrix():
    Y = np.random.default_rng(1).standard_normal((5, 32))
    H = scipy.linalg.hadamard(32) / np.sqrt(32)
    np.testing.assert_allclose(fwht(Y), Y @ H.T, atol=1e-12)
    with pytest.raises(ValueError, match="power-of-two"):
        fwht(np.ones((2, 12)))


def test_preconditioning_spreads_a_spike():
    # One large coordinate becomes p coordinates of equal magnitude: why uniform sampling works.
    d = 64
    Y = precondition(np.eye(d)[:1] * 8.0, np.ones(d), "hadamard")
    np.testing.assert_allclose(np.abs(Y), 1.0)


# -- the sparsification ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["dct", "hadamard"])
def test_exactly_r_kept_entries_per_row_with_preconditioned_values(kind):
    X, _ = _blobs(n=50, d=40)
    red = PreconditionedSparsification(7, preconditioner=kind, random_state=3)
    W = red.fit_transform(X)
    p = padded_dimension(40, kind)
    assert sp.issparse(W) and W.shape == (50, p)
    assert (np.diff(W.indptr) == 7).all()
    Y = precondition(X, red.signs_, kind)
    for i in range(50):
        cols = W.indices[W.indptr[i] : W.indptr[i + 1]]
        assert len(set(cols)) == 7
        np.testing.assert_array_equal(W.data[W.indptr[i] : W.indptr[i + 1]], Y[i, cols])


def test_kept_positions_are_uniform_and_ignore_the_data():
    # A matrix whose energy sits in 3 columns: the draw must still be uniform over the p columns.
    n, d, r = 4000, 50, 5
    X = np.zeros((n, d))
    X[:, :3] = 100.0
    W = PreconditionedSparsification(r, random_state=0).fit_transform(X)
    counts = np.bincount(W.indices, minlength=d)
    assert pooled_chisquare(counts, np.full(d, 1.0 / d)) > 1e-3
    # Pairs: two given columns are kept together with probability r(r-1) / (d(d-1)).
    kept = sp.csr_matrix((np.ones(W.nnz), W.indices, W.indptr), shape=W.shape)
    both = kept[:, 0].toarray().ravel() * kept[:, 1].toarray().ravel()
    expected = n * r * (r - 1) / (d * (d - 1))
    assert abs(both.sum() - expected) < 5 * np.sqrt(expected)


@pytest.mark.parametrize("kind", ["dct", "hadamard"])
def test_kept_entries_from_nonzeros_equal_the_fast_transform(kind):
    # The sparse path computes only the kept entries from the nonzeros; it must give the entries
    # of the full transform (rows of a large p, an empty row, position 0 kept).
    rng = np.random.default_rng(4)
    n, d, r = 40, 3000, 50
    X = sp.random(n, d, density=0.01, format="csr", random_state=1)
    X.data = rng.standard_normal(X.nnz)
    X = sp.vstack([X, sp.csr_matrix((1, d))]).tocsr()  # an all-zero row
    p = padded_dimension(d, kind)
    signs = rng.choice([-1.0, 1.0], p)
    pos = kept_positions(n + 1, p, r, rng)
    pos[0, 0] = 0  # the DCT's constant row has its own scale
    pos.sort(axis=1)
    full = np.take_along_axis(precondition(X.toarray(), signs, kind), pos, axis=1)
    direct = preconditioned_entries(X, pos, signs, kind)
    np.testing.assert_allclose(direct, full, atol=1e-12)
    assert np.abs(full).max() > 0.1 and (direct[-1] == 0).all()


@pytest.mark.parametrize("kind", ["dct", "hadamard"])
def test_reducer_sparse_path_equals_dense_path(kind):
    X = sp.random(60, 500, density=0.02, format="csr", random_state=2)  # takes the sparse path
    a = PreconditionedSparsification(8, preconditioner=kind, random_state=0).fit_transform(X)
    b = PreconditionedSparsification(8, preconditioner=kind, random_state=0).fit_transform(
        X.toarray()
    )
    assert (a.indices == b.indices).all()
    np.testing.assert_allclose(a.data, b.data, atol=1e-12)


def test_keep_uniform_slots_are_uniform():
    rng = np.random.default_rng(0)
    pos, vals = keep_uniform(np.tile(np.arange(10.0), (3000, 1)), 3, rng)
    assert pos.shape == vals.shape == (3000, 3)
    np.testing.assert_array_equal(vals, pos)  # values come from the kept positions
    assert (np.diff(pos, axis=1) > 0).all()  # sorted, no repeats
    assert pooled_chisquare(np.bincount(pos.ravel(), minlength=10), np.full(10, 0.1)) > 1e-3


def test_transform_is_deterministic_and_seeded():
    X, _ = _blobs(n=40, d=30)
    a = make_reducer("sparsified", 5, random_state=1).fit_transform(X)
    b = make_reducer("sparsified", 5, random_state=1).fit(X).transform(X)
    c = make_reducer("sparsified", 5, random_state=2).fit_transform(X)
    assert (a != b).nnz == 0
    assert not np.array_equal(a.indices, c.indices)


def test_registry_entry_and_bounds():
    assert reducer_label("sparsified") == "PD"
    assert max_components("sparsified", 10, 50) == 50
    assert max_components("sparsified", 10, 50, preconditioner="hadamard") == 64
    with pytest.raises(ValueError, match=r"n_components=51 .* \[1, 50\]"):
        make_reducer("sparsified", 51).fit(np.ones((4, 50)))


# -- sparsified k-means ------------------------------------------------------------------------


@pytest.mark.slow  # heavy: 3000 draws to test an expectation
def test_unbiased_center_estimate():
    # The per-coordinate mean over the points that kept a coordinate, averaged over many draws of
    # kept positions, is the cluster mean (the estimator that divides by the cluster size, or
    # by the expected count, would be off by a factor, or noisier).
    rng = np.random.default_rng(0)
    n, p, m, draws = 60, 20, 5, 3000  # a coordinate kept by none of 60 points: p = 3e-8
    Y = rng.standard_normal((n, p)) * 3.0 + rng.standard_normal(p)
    state = np.random.default_rng(1)
    estimates = np.empty((draws, p))
    for t in range(draws):
        pos, vals = keep_uniform(Y, m, state)
        estimates[t] = sparsified_centers(_csr(pos, vals, p), np.zeros(n, int), 1, np.nan)[0]
    assert np.isfinite(estimates).all()
    se = estimates.std(axis=0) / np.sqrt(draws)
    assert (np.abs(estimates.mean(axis=0) - Y.mean(axis=0)) < 5 * se).all()
    assert se.max() < 0.05  # the test has power: the bias of a wrong estimator is >> 5 se


def test_sparsified_centers_by_hand():
    W = sp.csr_matrix(
        (np.array([1.0, 2.0, 3.0, 5.0, 7.0, 0.0]), np.array([0, 1, 0, 2, 1, 2]), [0, 2, 4, 6]),
        shape=(3, 3),
    )
    centers = sparsified_centers(W, np.array([0, 0, 1]), 2, fallback=np.full((2, 3), -1.0))
    # cluster 0 = rows 0, 1: col 0 kept by both (1, 3), col 1 by row 0 only, col 2 by row 1 only
    np.testing.assert_allclose(centers, [[2.0, 2.0, 5.0], [-1.0, 7.0, 0.0]])


@pytest.mark.slow  # heavy: 300 x 40 draws to test an expectation
def test_seed_distance_estimate_is_unbiased():
    # k-means++ on sparsified points estimates ||y_i - y_j||^2 from kept entries only; averaged
    # over the draws of both points' kept positions it is exact.
    rng = np.random.default_rng(2)
    p, m, groups, per_group = 16, 4, 300, 40
    y0 = rng.standard_normal(p) * 3.0
    y1 = -0.5 * y0  # every product y0_l y1_l < 0: the estimate is never clipped at 0
    truth = np.sum((y0 - y1) ** 2)
    state = np.random.default_rng(0)
    means = np.empty(groups)  # one draw of y0's positions, many of y1's, per group
    for g in range(groups):
        pos, vals = keep_uniform(np.vstack([y0, np.tile(y1, (per_group, 1))]), m, state)
        est = _Problem(_csr(pos, vals, p), m).seed_distances(0)[1:]
        assert (est > 0).all()
        means[g] = est.mean()
    assert abs(means.mean() - truth) < 5 * means.std() / np.sqrt(groups)
    assert means.std() / np.sqrt(groups) < 0.05 * truth  # power: a factor p/m would show


def test_full_sampling_is_lloyd():
    # With m = p every entry is kept and sparsified k-means is Lloyd's algorithm.
    X, _ = _blobs(n=300, d=20, k=4, seed=1)
    X += np.random.default_rng(0).standard_normal(X.shape) * 10.0  # overlapping: several steps
    W = sp.csr_matrix(X)
    W.data[W.data == 0] = 1e-300  # keep every entry stored
    init = X[:4].copy()
    ours = sparsified_kmeans(W, 4, init=init, n_init=1, max_iter=300, tol=0.0)
    ref = KMeans(4, init=init, n_init=1, max_iter=300, tol=0.0, algorithm="lloyd").fit(X)
    assert ours.n_iter > 2
    np.testing.assert_array_equal(ours.labels, ref.labels_)
    np.testing.assert_allclose(ours.cluster_centers, ref.cluster_centers_, atol=1e-8)
    np.testing.assert_allclose(ours.inertia, ref.inertia_, rtol=1e-9)


def test_one_iteration_uses_only_kept_coordinates():
    X, _ = _blobs(n=200, d=30, k=3, seed=4)
    red = make_reducer("sparsified", 6, random_state=0)
    W = red.fit_transform(X)
    rng = np.random.default_rng(0)
    init = rng.standard_normal((3, 30)) * 5.0
    res = red.cluster(W, 3, init=init, n_init=1, max_iter=1, tol=0.0, random_state=0)

    def brute_labels(centers):
        out = []
        for i in range(200):
            cols = W.indices[W.indptr[i] : W.indptr[i + 1]]
            vals = W.data[W.indptr[i] : W.indptr[i + 1]]
            out.append(np.argmin(((vals - centers[:, cols]) ** 2).sum(axis=1)))
        return np.array(out)

    labels0 = brute_labels(init)
    assert np.bincount(labels0, minlength=3).min() > 0
    expected = init.copy()
    Wd = W.toarray()
    M = sp.csr_matrix((np.ones(W.nnz), W.indices, W.indptr), shape=W.shape).toarray()
    for c in range(3):
        rows = labels0 == c
        kept = M[rows].sum(axis=0)
        expected[c, kept > 0] = Wd[rows].sum(axis=0)[kept > 0] / kept[kept > 0]
    np.testing.assert_allclose(res.cluster_centers, expected, atol=1e-12)
    np.testing.assert_array_equal(res.labels, brute_labels(expected))


@pytest.mark.parametrize("init", ["k-means++", "random"])
@pytest.mark.parametrize("kind", ["dct", "hadamard"])
def test_recovers_well_separated_blobs_at_r_d_over_10(init, kind):
    X, y = _blobs(n=600, d=200, k=5)
    red = make_reducer("sparsified", 20, random_state=0, preconditioner=kind)
    W = red.fit_transform(X)
    res = red.cluster(W, 5, n_init=3, max_iter=100, init=init, tol=1e-4, random_state=0)
    assert isinstance(res, KMeansResult)
    assert clustering_accuracy(y, res.labels) == 1.0
    assert res.converged and res.labels.dtype == np.intp
    # Centers mapped back to the original features are close to the blob means.
    back = red.inverse_precondition(res.cluster_centers)
    means = np.array([X[res.labels == c].mean(axis=0) for c in range(5)])
    assert np.linalg.norm(back - means) < 0.25 * np.linalg.norm(means)


def test_plain_lloyd_on_the_sparse_output_is_not_the_method():
    # The zeros off the kept positions are unknown values: Lloyd that reads them as zeros clusters
    # worse than sparsified k-means (the reason for the cluster hook).
    X, y = _blobs(n=600, d=200, k=5, seed=3)
    red = make_reducer("sparsified", 4, random_state=0)
    W = red.fit_transform(X)
    ours = red.cluster(W, 5, n_init=5, max_iter=100, init="k-means++", tol=1e-4, random_state=0)
    plain = KMeans(5, n_init=5, random_state=0).fit(W)
    assert clustering_accuracy(y, ours.labels) > clustering_accuracy(y, plain.labels_) + 0.1


def test_restarts_keep_the_best_and_seed_reproduces():
    X, _ = _blobs(n=300, d=50, k=6, seed=5)
    red = make_reducer("sparsified", 5, random_state=0)
    W = red.fit_transform(X)
    kw = dict(max_iter=50, init="random", tol=0.0)
    many = sparsified_kmeans(W, 6, n_init=6, random_state=7, **kw)
    again = sparsified_kmeans(W, 6, n_init=6, random_state=7, **kw)
    np.testing.assert_array_equal(many.labels, again.labels)
    state = np.random.RandomState(7)
    singles = [sparsified_kmeans(W, 6, n_init=1, random_state=state, **kw) for _ in range(6)]
    assert many.inertia == pytest.approx(min(s.inertia for s in singles))


def test_bad_input_fails_in_one_line():
    X, _ = _blobs(n=30, d=20)
    red = make_reducer("sparsified", 4, random_state=0)
    W = red.fit_transform(X)
    other = make_reducer("sparsified", 5, random_state=0).fit_transform(X)
    cases = [
        (lambda: red.cluster(other, 3), "kept per row"),
        (lambda: red.cluster(X, 3), "scipy.sparse"),
        (lambda: sparsified_kmeans(sp.csr_matrix(X[:, :5] * (X[:, :5] > 0)), 2), "same number"),
        (lambda: sparsified_kmeans(W, 31), "n_clusters"),
        (
            lambda: sparsified_kmeans(W, 3, init="bogus"),
            "The .init. parameter of sparsified_kmeans must be a str among",
        ),
        (lambda: sparsified_kmeans(W, 3, init=np.zeros((2, 20))), r"shape \(3, 20\)"),
        (lambda: sparsified_kmeans(W, 3, tol=-1), "tol"),
    ]
    for call, match in cases:
        with pytest.raises(ValueError, match=match) as err:
            call()
        assert "\n" not in str(err.value)
