"""The subsampled randomized Hadamard transform (srht): C = sqrt(d'/r) A D H S."""

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp
import sklearn

from _reducer_helpers import sparse_pair
from kmdr.reducers import SRHTProjection, make_reducer, max_components, reducer_label
from kmdr.reducers.srht import fwht_rows, next_power_of_two


def explicit_srht(est, A):
    """sqrt(d'/r) [A, 0] D H S with H from scipy.linalg.hadamard: the definition, as matrices."""
    n, d = A.shape
    dp, r = est.n_padded_features_, est.n_components_
    padded = np.hstack([A, np.zeros((n, dp - d))])
    D = np.diag(np.concatenate([est.signs_, np.ones(dp - d)]))  # padding signs are irrelevant
    H = scipy.linalg.hadamard(dp) / np.sqrt(dp)
    S = np.zeros((dp, r))
    S[est.selected_columns_, np.arange(r)] = 1.0
    return np.sqrt(dp / r) * padded @ D @ H @ S


@pytest.mark.parametrize("m", [1, 2, 4, 8, 64, 256])
def test_fwht_equals_the_hadamard_product(m):
    Y = np.random.default_rng(m).standard_normal((5, m))
    expected = Y @ scipy.linalg.hadamard(m)
    np.testing.assert_allclose(fwht_rows(Y.copy()), expected, atol=1e-12 * m)


@pytest.mark.parametrize(("d", "padded"), [(1, 1), (2, 2), (5, 8), (13, 16), (16, 16), (33, 64)])
def test_next_power_of_two(d, padded):
    assert next_power_of_two(d) == padded


@pytest.mark.parametrize(("d", "r"), [(16, 5), (13, 5), (33, 64), (3, 1), (100, 30)])
def test_equals_the_explicit_product(d, r):
    A = np.random.default_rng(d).standard_normal((7, d))
    est = SRHTProjection(r, random_state=d).fit(A)
    assert est.n_padded_features_ == next_power_of_two(d)
    np.testing.assert_allclose(est.transform(A), explicit_srht(est, A), atol=1e-12)


def test_sparse_input_and_row_blocks_give_the_dense_result():
    X, Xs = sparse_pair(n=50, d=30)
    est = SRHTProjection(10, random_state=0).fit(X)
    C = est.transform(X)
    C_sparse = est.transform(Xs)
    assert isinstance(C_sparse, np.ndarray)
    np.testing.assert_allclose(C_sparse, C, atol=1e-12)
    # A working memory of ~100 bytes forces one row per block (and a short last block).
    with sklearn.config_context(working_memory=1e-4):
        assert est._block_rows() == 1
        np.testing.assert_allclose(est.transform(Xs), C, atol=1e-12)
        np.testing.assert_allclose(est.transform(X), C, atol=1e-12)
    np.testing.assert_allclose(C, explicit_srht(est, X), atol=1e-12)


def test_signs_and_distinct_columns():
    est = SRHTProjection(100, random_state=0).fit(np.ones((2, 1000)))
    assert est.n_padded_features_ == 1024
    np.testing.assert_array_equal(np.abs(est.signs_), 1.0)
    assert 0.4 < (est.signs_ > 0).mean() < 0.6
    cols = est.selected_columns_
    assert len(np.unique(cols)) == 100  # without replacement
    assert cols.min() >= 0 and cols.max() < 1024
    assert cols.max() >= 1000  # padded positions of A D H are legitimate columns to keep


def test_squared_norms_preserved_in_expectation():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 40)) * np.linspace(0.2, 3.0, 40)  # d' = 64
    ratios = np.array(
        [np.sum(SRHTProjection(8, random_state=seed).fit_transform(x) ** 2) for seed in range(300)]
    ) / np.sum(x**2)
    standard_error = ratios.std(ddof=1) / np.sqrt(len(ratios))
    assert standard_error > 0
    assert abs(ratios.mean() - 1.0) < 4 * standard_error


@pytest.mark.parametrize("d", [13, 32])
def test_full_sampling_is_orthogonal(d):
    # r = d': S is a permutation, so C = A D H S is an isometry of the rows: C C^T = A A^T.
    A = np.random.default_rng(1).standard_normal((6, d))
    dp = next_power_of_two(d)
    C = SRHTProjection(dp, random_state=0).fit_transform(A)
    assert C.shape == (6, dp)
    np.testing.assert_allclose(C @ C.T, A @ A.T, atol=1e-10)


def test_n_components_bounded_by_the_padded_dimension():
    A = np.ones((4, 13))
    assert max_components("srht", 4, 13) == 16
    assert SRHTProjection(16, random_state=0).fit(A).transform(A).shape == (4, 16)
    with pytest.raises(ValueError, match=r"n_components=17 .* must be an integer in \[1, 16\]"):
        SRHTProjection(17).fit(A)


def test_reproducible_with_random_state():
    A = np.random.default_rng(2).standard_normal((5, 20))
    first = make_reducer("srht", 6, random_state=3).fit_transform(A)
    np.testing.assert_array_equal(make_reducer("srht", 6, random_state=3).fit_transform(A), first)
    assert not np.allclose(make_reducer("srht", 6, random_state=4).fit_transform(A), first)


def test_transform_new_rows_with_the_fitted_transform():
    rng = np.random.default_rng(3)
    A, B = rng.standard_normal((8, 20)), rng.standard_normal((3, 20))
    est = make_reducer("srht", 5, n_clusters=2, random_state=0).fit(A)
    assert isinstance(est, SRHTProjection)
    assert reducer_label("srht") == "SRHT"
    np.testing.assert_allclose(est.transform(B), explicit_srht(est, B), atol=1e-12)
    with pytest.raises(ValueError, match="features"):
        est.transform(sp.csr_matrix(np.ones((2, 21))))
