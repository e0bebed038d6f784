"""Tests of kmdr.kmeans.lloyd.kmeans."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs

from kmdr.kmeans.lloyd import KMeansResult, kmeans
from kmdr.metrics import kmeans_objective


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(n_samples=150, centers=3, n_features=4, cluster_std=1.5, random_state=0)
    return X, y


@pytest.mark.parametrize("init", ["k-means++", "random", "sample"])
def test_kmeans_result_shape_and_ids(blobs, init):
    X, _ = blobs
    res = kmeans(X, 3, init=init, random_state=0)
    assert isinstance(res, KMeansResult)
    assert res.labels.shape == (150,) and res.labels.dtype.kind == "i"
    assert set(np.unique(res.labels)) <= {0, 1, 2}
    assert res.cluster_centers.shape == (3, 4)
    assert 1 <= res.n_iter <= 500


def test_sample_is_an_alias_of_random(blobs):
    X, _ = blobs
    a = kmeans(X, 4, init="random", n_init=2, random_state=3)
    b = kmeans(X, 4, init="sample", n_init=2, random_state=3)
    np.testing.assert_array_equal(a.labels, b.labels)


def test_inertia_is_objective_in_clustered_space(blobs):
    X, _ = blobs
    res = kmeans(X, 3, tol=0, random_state=1)  # tol=0: stops only when the labels are stable
    assert res.converged
    assert res.inertia == pytest.approx(kmeans_objective(X, res.labels) * np.sum(X**2), rel=1e-9)


def test_same_seed_same_labels_and_sparse_input(blobs):
    X, _ = blobs
    a = kmeans(X, 3, n_init=3, random_state=7)
    b = kmeans(X, 3, n_init=3, random_state=7)
    np.testing.assert_array_equal(a.labels, b.labels)
    assert a.inertia == b.inertia
    c = kmeans(sp.csr_matrix(X), 3, n_init=3, random_state=7)
    np.testing.assert_array_equal(a.labels, c.labels)
    assert c.inertia == pytest.approx(a.inertia, rel=1e-9)


def test_sparse_input_with_64_bit_indices(blobs):
    # scipy's sparse products may return int64 index arrays, which scikit-learn's KMeans refuses.
    X, _ = blobs
    X32 = sp.csr_matrix(X)
    X64 = X32.copy()
    X64.indices, X64.indptr = X32.indices.astype(np.int64), X32.indptr.astype(np.int64)
    assert X64.indices.dtype == np.int64
    a = kmeans(X32, 3, n_init=2, random_state=5)
    b = kmeans(X64, 3, n_init=2, random_state=5)
    np.testing.assert_array_equal(a.labels, b.labels)


def test_restarts_and_iteration_cap(blobs):
    X, _ = blobs
    # scikit-learn draws the restarts' starts in sequence from one generator, so the first of
    # ten restarts is the single run: the best of ten can only be as good or better.
    one = kmeans(X, 6, n_init=1, init="random", random_state=0)
    ten = kmeans(X, 6, n_init=10, init="random", random_state=0)
    assert ten.inertia <= one.inertia
    capped = kmeans(X, 6, n_init=1, max_iter=1, random_state=0)
    assert capped.n_iter == 1 and not capped.converged


def test_one_cluster_and_n_clusters():
    X = np.arange(12, dtype=float).reshape(6, 2)
    res = kmeans(X, 1, random_state=0)
    np.testing.assert_array_equal(res.labels, 0)
    np.testing.assert_allclose(res.cluster_centers, X.mean(axis=0, keepdims=True))
    res = kmeans(X, 6, init="random", random_state=0)
    assert res.inertia == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"n_clusters": 0}, "n_clusters"),
        ({"n_clusters": 11}, "n_clusters"),
        ({"n_clusters": 2.5}, "n_clusters"),
        ({"n_init": 0}, "n_init"),
        ({"max_iter": 0}, "max_iter"),
        ({"tol": -1.0}, "tol"),
        ({"tol": float("nan")}, "tol"),
        ({"init": "kmeans++"}, "init"),
    ],
)
def test_bad_parameters(kwargs, param):
    X = np.random.default_rng(0).normal(size=(10, 3))
    args = {"n_clusters": 2, **kwargs}
    with pytest.raises(ValueError, match=param):
        kmeans(X, **args)


@pytest.mark.parametrize(
    ("X", "message"),
    [
        (np.array([[0.0, np.nan], [1.0, 1.0]]), "Input X contains NaN"),
        (sp.csr_matrix(np.array([[0.0, np.inf], [1.0, 1.0]])), "Input X contains infinity"),
        (np.ones(5), "Expected 2D array, got 1D array"),
        (np.ones((0, 3)), r"Found array with 0 sample\(s\)"),
        (np.array([["a", "b"], ["c", "d"]]), "could not convert string to float"),
    ],
)
def test_bad_data(X, message):
    with pytest.raises(ValueError, match=message):
        kmeans(X, 1)


@pytest.fixture(scope="module")
def separated():
    # Four tight, far-apart blobs: from their true centers, Lloyd's first assignment is already
    # the true partition, so the run stops after 1-2 iterations with the true labels.
    centers = np.array([[0, 0, 0], [20, 0, 0], [0, 20, 0], [0, 0, 20]], dtype=float)
    X, y = make_blobs(n_samples=200, centers=centers, cluster_std=0.5, random_state=0)
    true_centers = np.array([X[y == j].mean(axis=0) for j in range(4)])
    return X, y, true_centers


@pytest.mark.parametrize("sparse", [False, True])
def test_start_from_true_centers_keeps_true_labels(separated, sparse):
    X, y, centers = separated
    data = sp.csr_matrix(X) if sparse else X
    res = kmeans(data, 4, init=centers, max_iter=30, random_state=0)
    # Labels follow the rows of init (scikit-learn's array semantics), not a permutation of them.
    np.testing.assert_array_equal(res.labels, y)
    assert res.n_iter <= 2 and res.converged
    np.testing.assert_allclose(res.cluster_centers, centers, rtol=1e-12, atol=1e-12)


def test_start_from_given_centers_is_one_deterministic_run(separated):
    X, _, centers = separated
    # Poor but valid starts (the first four points): the result must not depend on the seed or
    # on n_init, because one run from the given centers is made.
    start = X[:4]
    a = kmeans(X, 4, init=start, n_init=5, random_state=0)
    b = kmeans(X, 4, init=start.tolist(), n_init=1, random_state=123)
    np.testing.assert_array_equal(a.labels, b.labels)
    assert a.inertia == b.inertia
    # The start matters: row j of init seeds cluster j, so reversing it reverses the labels.
    c = kmeans(X, 4, init=centers[::-1], random_state=0)
    np.testing.assert_array_equal(c.labels, 3 - kmeans(X, 4, init=centers).labels)


@pytest.mark.parametrize(
    ("init", "message"),
    [
        (np.zeros((3, 3)), r"shape \(3, 3\).*\(4, 3\)"),
        (np.zeros((4, 2)), r"shape \(4, 2\).*\(4, 3\)"),
        (np.zeros(12), r"shape \(12,\)"),
        (np.full((4, 3), np.nan), "finite"),
        (object(), "The 'init' parameter of kmeans must be a str among"),
    ],
)
def test_bad_initial_centers(separated, init, message):
    X, _, _ = separated
    with pytest.raises(ValueError, match=message):
        kmeans(X, 4, init=init)


# --- no copy of X: the fit is scikit-learn's copy_x=True fit, bit for bit, and X is unchanged ---


def _bits(a):
    return np.ascontiguousarray(a).view(f"i{a.itemsize}").copy()


def _reference(X, k, **kw):
    """scikit-learn's KMeans with its own copy of X (what kmeans() did before)."""
    from sklearn.cluster import KMeans

    return KMeans(k, algorithm="lloyd", copy_x=True, **kw).fit(X)


def _fit_without_copy_as_copying_fit(X, k, data=None, **kw):
    """kmeans(copy_x=False) on X: X's values (``data``, default X) come back bit for bit, and the
    result is scikit-learn's copying fit's to the last bit."""
    data = X if data is None else data
    before = _bits(data)
    res = kmeans(X, k, copy_x=False, **kw)
    np.testing.assert_array_equal(_bits(data), before)
    if not isinstance(kw.get("init"), str) and "init" in kw:
        kw["n_init"] = 1  # kmeans runs given centers once
    ref = _reference(X.copy(), k, **kw)
    np.testing.assert_array_equal(res.labels, ref.labels_)
    assert res.inertia == ref.inertia_ and res.n_iter == ref.n_iter_
    np.testing.assert_array_equal(_bits(res.cluster_centers), _bits(ref.cluster_centers_))
    return res


def _offset_data(seed, n=400, d=30, offset=7.0, dtype=np.float64):
    # a nonzero mean with a wide range of magnitudes: (x - m) + m != x for many entries
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * 10.0 ** rng.integers(-3, 2, size=(n, d)) + offset
    return X.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("init", ["random", "k-means++", "array"])
def test_kmeans_leaves_x_bit_for_bit_and_matches_a_copying_fit(dtype, init):
    X = _offset_data(0, dtype=dtype)
    mean = X.mean(axis=0)
    assert np.any(_bits((X - mean) + mean) != _bits(X))  # the round trip alone would change X
    start = X[:5].astype(np.float64) if init == "array" else init
    _fit_without_copy_as_copying_fit(
        X, 5, init=start, n_init=2, max_iter=50, tol=0.0, random_state=3
    )


def test_kmeans_without_copy_on_many_blocks(monkeypatch):
    import kmdr.kmeans.lloyd as cluster

    monkeypatch.setattr(cluster, "_BLOCK_ELEMENTS", 7 * 30)  # 7 rows a block, a partial last one
    X = _offset_data(1, n=403)
    _fit_without_copy_as_copying_fit(X, 4, init="random", n_init=1, tol=0.0, random_state=0)


@pytest.mark.parametrize("case", ["fortran", "read-only", "large mean", "sparse"])
def test_kmeans_copy_fallbacks_leave_x_unchanged(case):
    X = _offset_data(2)
    if case == "fortran":
        X = np.asfortranarray(X)
    elif case == "read-only":
        X.flags.writeable = False
    elif case == "large mean":  # half the entries change: recording them costs more than a copy
        X[::2] += 1e6
        mean = X.mean(axis=0)
        assert np.mean(_bits((X - mean) + mean) != _bits(X)) > 0.4
    elif case == "sparse":
        X = sp.csr_matrix(np.where(X > 7.5, X, 0.0))
    data = X.data if sp.issparse(X) else X
    _fit_without_copy_as_copying_fit(
        X, 3, data=data, init="random", n_init=2, tol=0.0, random_state=4
    )


def test_kmeans_restores_x_when_the_fit_raises(monkeypatch):
    import sklearn.cluster._kmeans as skm

    def boom(X, *args, **kwargs):
        assert not np.allclose(X.mean(axis=0), 7.0)  # X is centered in place at this point
        raise KeyboardInterrupt

    monkeypatch.setattr(skm, "_kmeans_single_lloyd", boom)
    X = _offset_data(3)
    before = _bits(X)
    with pytest.raises(KeyboardInterrupt):
        kmeans(X, 3, init="random", random_state=0, copy_x=False)
    np.testing.assert_array_equal(_bits(X), before)


def test_kmeans_restores_x_when_a_warning_is_an_error():
    # 3 distinct points, 4 clusters: scikit-learn warns after it has added the mean back
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    base = _offset_data(4, n=3, d=5)
    base[0] *= 1e3
    X = np.repeat(base, 10, axis=0)
    mean = X.mean(axis=0)
    assert np.any(_bits((X - mean) + mean) != _bits(X))
    before = _bits(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        with pytest.raises(ConvergenceWarning):
            kmeans(X, 4, init="random", random_state=0, copy_x=False)
    np.testing.assert_array_equal(_bits(X), before)


def test_kmeans_by_default_never_writes_x(monkeypatch):
    # The default is safe for an X other threads read (the runner's shared data): scikit-learn
    # gets its own copy, so the array the caller passed is never centered, not even for a moment.
    import sklearn.cluster._kmeans as skm

    X = _offset_data(5)
    original = skm._kmeans_single_lloyd
    seen = []

    def spy(X_fit, *args, **kwargs):
        seen.append(np.may_share_memory(X_fit, X))
        return original(X_fit, *args, **kwargs)

    monkeypatch.setattr(skm, "_kmeans_single_lloyd", spy)
    kmeans(X, 3, init="random", n_init=2, random_state=0)
    assert seen == [False, False]
    seen.clear()
    kmeans(X, 3, init="random", n_init=2, random_state=0, copy_x=False)
    assert seen == [True, True]


def test_kmeans_without_copy_accepts_read_only_sparse_x():
    # joblib memory-maps a large CSR matrix read-only in loky workers
    X = sp.csr_matrix(np.where(_offset_data(6) > 7.5, 1.0, 0.0))
    for a in (X.data, X.indices, X.indptr):
        a.flags.writeable = False
    _fit_without_copy_as_copying_fit(X, 3, data=X.data, init="random", n_init=1, random_state=0)
