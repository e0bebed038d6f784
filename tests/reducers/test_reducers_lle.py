"""LLE (Roweis and Saul 2000) through scikit-learn, with its one-line feasibility guard."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import spearmanr
from sklearn.datasets import make_blobs, make_swiss_roll
from sklearn.manifold import LocallyLinearEmbedding

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


def test_sparse_input_is_densified_to_the_same_embedding():
    X = _data(n=120, d=15)
    X[X < 0] = 0.0
    dense = LocallyLinearReducer(4, random_state=0).fit_transform(X)
    sparse = LocallyLinearReducer(4, random_state=0).fit_transform(sp.csr_matrix(X))
    np.testing.assert_allclose(sparse, dense, atol=1e-10)


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
    big = sp.eye(5000, 50_000, format="csr")
    with pytest.raises(ValueError, match=r"needs about \d+ MiB") as err:
        LocallyLinearReducer(2, max_memory_mb=1000).fit(big)  # densifying it: 1.9 GB
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
