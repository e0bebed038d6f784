"""LLE (Roweis and Saul 2000): scikit-learn on dense data, the sparse path on sparse data, and
their one-line feasibility guards."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import spearmanr
from sklearn.datasets import make_blobs, make_swiss_roll
from sklearn.manifold import LocallyLinearEmbedding

from _reducer_helpers import never_densified
from kmdr.reducers import LocallyLinearReducer, make_reducer, max_components, reducer_label
from kmdr.reducers.lle import lle_memory_bytes


def _data(n=300, d=20, seed=0):
    X, _ = make_blobs(n, n_features=d, centers=4, cluster_std=2.0, random_state=seed)
    return X


@pytest.mark.parametrize("r", [2, 12])  # ARPACK (r + 1 < 10, n > 200), then the dense solver
def test_equals_scikit_learn_called_directly(r):
    X = _data()
    C = make_reducer("lle", r, random_state=0).fit_transform(X)
    ref = LocallyLinearEmbedding(n_neighbors=12, n_components=r, random_state=0).fit_transform(X)
    assert C.shape == (300, r)
    np.testing.assert_allclose(C, ref, atol=1e-10)


def test_defaults_are_roweis_12_neighbours():
    est = make_reducer("lle", 3)
    assert isinstance(est, LocallyLinearReducer)
    assert est.n_neighbors == 12
    assert reducer_label("lle") == "LLE"


def test_random_state_reproduces_the_arpack_embedding():
    X = _data(seed=1)
    a = LocallyLinearReducer(3, random_state=5).fit_transform(X)
    b = LocallyLinearReducer(3, random_state=5).fit_transform(X)
    np.testing.assert_array_equal(a, b)


def _sparse_data(n=300, d=80, seed=0):
    return sp.random(n, d, density=0.2, random_state=seed, format="csr")


def _dense_barycenter_weights(X, ind, reg):
    """scikit-learn's barycenter_weights, written out on dense rows (the test's oracle)."""
    k = ind.shape[1]
    out = np.empty(ind.shape)
    for i, rows in enumerate(ind):
        C = X[rows] - X[i]
        G = C @ C.T
        trace = np.trace(G)
        G.flat[:: k + 1] += reg * trace if trace > 0 else reg
        w = np.linalg.solve(G, np.ones(k))
        out[i] = w / w.sum()
    return out


def test_sparse_weights_equal_scikit_learns_barycenter_weights():
    from sklearn.neighbors import NearestNeighbors

    from kmdr.reducers._lle_sparse import barycenter_weights

    X = _sparse_data()
    dense = X.toarray()
    ind = NearestNeighbors(n_neighbors=13).fit(dense).kneighbors(dense, return_distance=False)
    ind = ind[:, 1:]
    got = barycenter_weights(X, X, ind, 1e-3)
    np.testing.assert_allclose(got, _dense_barycenter_weights(dense, ind, 1e-3), rtol=0, atol=1e-10)
    np.testing.assert_allclose(got.sum(axis=1), 1.0)


def _same_subspace(A, B):
    """Largest deviation between the orthogonal projections onto the columns of A and of B."""
    qa, _ = np.linalg.qr(A)
    qb, _ = np.linalg.qr(B)
    return np.abs(qa @ qa.T - qb @ qb.T).max()


@pytest.mark.slow
@pytest.mark.parametrize("r", [2, 5, 20])
def test_sparse_path_equals_scikit_learns_arpack_lle(r):
    X = _sparse_data()
    est = LocallyLinearReducer(r, random_state=3)
    C = est.fit_transform(never_densified(X, "the sparse LLE path's input"))
    ref = LocallyLinearEmbedding(
        n_neighbors=12, n_components=r, eigen_solver="arpack", random_state=3
    ).fit(X.toarray())
    assert est.sparse_input_ and C.shape == (300, r)
    assert _same_subspace(C, ref.embedding_) < 1e-6
    # Column by column up to sign, where the eigenvalues are apart (scikit-learn's order).
    signs = np.sign(np.sum(C * ref.embedding_, axis=0))
    close = np.all(np.isclose(C * signs, ref.embedding_, atol=1e-6), axis=0)
    assert close.mean() > 0.5
    np.testing.assert_allclose(est.reconstruction_error_, ref.reconstruction_error_, rtol=1e-8)


@pytest.mark.slow
def test_sparse_path_is_seeded_and_not_deterministic():
    X = _sparse_data(seed=2)
    a = LocallyLinearReducer(3, random_state=5).fit_transform(X)
    b = LocallyLinearReducer(3, random_state=5).fit_transform(X)
    np.testing.assert_array_equal(a, b)
    assert not LocallyLinearReducer(30).is_deterministic(X)  # ARPACK from random_state
    assert LocallyLinearReducer(30).is_deterministic(X.toarray())  # dense eigh


@pytest.mark.slow
def test_sparse_transform_places_training_points_near_their_embedding():
    X = _sparse_data(n=250)
    est = LocallyLinearReducer(3, random_state=0).fit(
        never_densified(X, "the sparse LLE path's input")
    )
    np.testing.assert_allclose(
        est.transform(never_densified(X, "the sparse LLE path's input")), est.embedding_, atol=0.05
    )


def test_sparse_limits_are_the_sparse_paths():
    # RCV1's shape: refused dense (X densified is 5.9 GB), accepted sparse up to the r that the
    # memory estimate allows; more points than max_samples_sparse are refused in one line.
    with pytest.raises(ValueError, match="max_samples=10000"):
        max_components("lle", 15564, 47236)
    top = max_components("lle", 15564, 47236, sparse=True)
    assert 1000 <= top < 15564
    with pytest.raises(ValueError, match="max_samples_sparse=20000") as err:
        max_components("lle", 20001, 47236, sparse=True)
    assert "\n" not in str(err.value) and "drop lle" in str(err.value)
    with pytest.raises(ValueError, match=r"n_samples=101 .* max_samples_sparse=100") as err:
        LocallyLinearReducer(2, max_samples_sparse=100).fit(_sparse_data(n=101))
    assert "\n" not in str(err.value)


def test_unrolls_a_swiss_roll():
    # The property LLE exists for: the 2-D embedding of a swiss roll orders the points along the
    # roll (one coordinate is monotone in the roll parameter t), which no coordinate of the 3-D
    # points does.
    X, t = make_swiss_roll(1500, noise=0.0, random_state=0)
    C = LocallyLinearReducer(2, random_state=0).fit_transform(X)
    assert max(abs(spearmanr(C[:, j], t)[0]) for j in range(2)) > 0.99
    assert max(abs(spearmanr(X[:, j], t)[0]) for j in range(3)) < 0.5


def test_transform_places_training_points_near_their_embedding():
    X = _data(n=250)
    est = LocallyLinearReducer(3, random_state=0).fit(X)
    np.testing.assert_allclose(est.transform(X), est.embedding_, atol=0.05)


def test_max_components():
    assert max_components("lle", 1440, 1024) == 1024  # COIL20: lst17's r up to 1000 fits
    assert max_components("lle", 50, 1024) == 49
    with pytest.raises(ValueError, match=r"n_components=50 .* \[1, 49\]"):
        LocallyLinearReducer(50).fit(_data(n=50, d=60))


@pytest.mark.parametrize(
    "shape, match",
    [
        ((15564, 47236), "max_samples=10000"),  # RCV1, where lst17 gave up too
        ((9000, 47236), "max_memory_mb=4096"),  # few points, but X densified is 3.2 GB
    ],
)
def test_infeasible_shapes_fail_in_one_line_before_work(shape, match):
    with pytest.raises(ValueError, match=match) as err:
        max_components("lle", *shape)  # what the runner calls before any cell
    assert "\n" not in str(err.value) and "drop lle" in str(err.value)


def test_fit_refuses_too_many_points_before_any_work(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("LLE started on data it should have refused")

    monkeypatch.setattr(LocallyLinearEmbedding, "fit_transform", boom)
    X = np.zeros((101, 3))
    with pytest.raises(ValueError, match=r"n_samples=101 .* max_samples=100") as err:
        LocallyLinearReducer(2, max_samples=100).fit(X)
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match=r"needs about \d+ MiB") as err:
        max_components("lle", 5000, 50_000, max_memory_mb=1000)  # dense: X alone is 1.9 GB
    assert "\n" not in str(err.value)


def test_memory_estimate_counts_the_dense_eigenproblem():
    n, d = 1440, 1024
    assert lle_memory_bytes(n, d, 100) == 8 * (n * d + n * 100 + 2 * n * n)
    assert lle_memory_bytes(n, d, 2) == 8 * (n * d + n * 2)  # ARPACK: sparse M
    assert lle_memory_bytes(n, d) == lle_memory_bytes(n, d, min(n, d))


def test_too_many_neighbours_fails_in_one_line():
    with pytest.raises(ValueError, match=r"n_neighbors=12 .* n_samples=10") as err:
        LocallyLinearReducer(2).fit(_data(n=10))
    assert "\n" not in str(err.value)


def test_the_runners_up_front_check_knows_the_data_are_sparse():
    from types import SimpleNamespace

    from kmdr.config.checks import check_against_data
    from kmdr.config.errors import ConfigError

    lle = SimpleNamespace(id="lle", name="lle", params={}, max_r=100)
    spec = SimpleNamespace(kind="cells", dataset="sparse_text", r_grid=[10, 1000], reducers=[lle])
    check_against_data(spec, 15564, 47236, 53, sparse=True)  # the sparse path: accepted
    with pytest.raises(ConfigError, match="max_samples=10000") as err:
        check_against_data(spec, 15564, 47236, 53)  # the same shape dense: refused
    assert "\n" not in str(err.value)
