"""Random projections (sign, Gaussian, Achlioptas) and the sparse embedding (lst17 Alg. 1)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from _reducer_helpers import sparse_pair, to_dense
from kmdr.reducers import (
    AchlioptasProjection,
    GaussianProjection,
    SignRandomProjection,
    SparseEmbedding,
)

PROJECTIONS = [SignRandomProjection, GaussianProjection, AchlioptasProjection, SparseEmbedding]


@pytest.mark.parametrize("cls", PROJECTIONS)
def test_squared_norms_preserved_in_expectation(cls):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 40)) * np.linspace(0.2, 3.0, 40)
    ratios = np.array(
        [np.sum(to_dense(cls(8, random_state=seed).fit_transform(x)) ** 2) for seed in range(300)]
    ) / np.sum(x**2)
    standard_error = ratios.std(ddof=1) / np.sqrt(len(ratios))
    assert standard_error > 0
    assert abs(ratios.mean() - 1.0) < 4 * standard_error


def test_sign_projection_entries():
    est = SignRandomProjection(7, random_state=0).fit(np.ones((3, 50)))
    R = to_dense(est.components_)
    assert R.shape == (7, 50)
    np.testing.assert_array_equal(np.abs(R), 1 / np.sqrt(7))
    assert 0.3 < (R > 0).mean() < 0.7


def test_achlioptas_entries():
    est = AchlioptasProjection(9, random_state=0).fit(np.ones((3, 3000)))
    R = to_dense(est.components_)
    values, counts = np.unique(np.round(R * np.sqrt(9 / 3), 12), return_counts=True)
    np.testing.assert_array_equal(values, [-1, 0, 1])
    np.testing.assert_allclose(counts / R.size, [1 / 6, 2 / 3, 1 / 6], atol=0.01)


def test_gaussian_entries_variance():
    est = GaussianProjection(10, random_state=0).fit(np.ones((3, 5000)))
    R = est.components_
    assert R.var() == pytest.approx(1 / 10, rel=0.03)


def test_sparse_embedding_one_signed_entry_per_feature():
    est = SparseEmbedding(6, random_state=0).fit(np.ones((2, 200)))
    Phi = est.components_.toarray()  # r x d
    assert Phi.shape == (6, 200)
    assert np.all((Phi != 0).sum(axis=0) == 1)
    np.testing.assert_array_equal(np.abs(Phi).sum(axis=0), 1.0)
    np.testing.assert_array_equal(Phi[est.hash_, np.arange(200)], est.signs_)
    assert set(np.unique(est.signs_)) == {-1.0, 1.0}
    assert set(np.unique(est.hash_)) == set(range(6))


def test_sparse_embedding_is_signed_bucket_sum():
    X, Xs = sparse_pair(20, 30)
    est = SparseEmbedding(5, random_state=3).fit(X)
    expected = np.zeros((20, 5))
    for i in range(30):
        expected[:, est.hash_[i]] += est.signs_[i] * X[:, i]
    np.testing.assert_allclose(est.transform(X), expected, atol=1e-12)
    Cs = est.transform(Xs)
    assert isinstance(Cs, sp.csr_matrix)
    np.testing.assert_allclose(Cs.toarray(), expected, atol=1e-12)
    # no duplicate entries in a row, so that consumers reading .data directly are right
    Cs_copy = Cs.copy()
    Cs_copy.sum_duplicates()
    assert Cs_copy.nnz == Cs.nnz
    dense_out = SparseEmbedding(5, dense_output=True, random_state=3).fit_transform(Xs)
    assert isinstance(dense_out, np.ndarray)
    np.testing.assert_allclose(dense_out, expected, atol=1e-12)
    assert isinstance(est.transform(sp.csr_array(Xs)), sp.csr_array)


@pytest.mark.parametrize("cls", PROJECTIONS)
def test_r_larger_than_d_is_allowed(cls):
    X = np.random.default_rng(0).standard_normal((10, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns that the dimension is not reduced
        C = cls(5, random_state=0).fit_transform(X)
    assert C.shape == (10, 5)
