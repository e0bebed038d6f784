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


def test_sign_projection_is_fair_and_independent():
    # 200 x 1000 signs: the fraction of + is 1/2 within 4 standard errors, and so are the
    # fractions of equal neighbours along both axes (adjacent bits of one byte, and rows).
    est = SignRandomProjection(200, random_state=1).fit(np.ones((2, 1000)))
    P = np.sign(est.components_).astype(np.int8)
    assert set(np.unique(P)) == {-1, 1}
    se = 0.5 / np.sqrt(P.size)
    assert abs((P > 0).mean() - 0.5) < 4 * se
    assert abs((P[:, 1:] == P[:, :-1]).mean() - 0.5) < 4 * se
    assert abs((P[1:] == P[:-1]).mean() - 0.5) < 4 * se
    # the seed fixes the draw; another seed gives another one
    again = SignRandomProjection(200, random_state=1).fit(np.ones((2, 1000))).components_
    np.testing.assert_array_equal(np.sign(again), P)
    other = SignRandomProjection(200, random_state=2).fit(np.ones((2, 1000))).components_
    assert (np.sign(other) != P).mean() > 0.4


@pytest.mark.parametrize("cls", [SignRandomProjection, AchlioptasProjection])
@pytest.mark.parametrize("kind", ["dense", "fortran", "csr", "csc"])
def test_entrywise_projection_equals_product_with_components(cls, kind):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 70)) * (rng.random((30, 70)) < 0.3)
    est = cls(29, random_state=0)
    est._BLOCK_BYTES = 8 * 70 * 8  # blocks of 8 columns of R and a last one of 5: the loop runs
    data = {
        "dense": X,
        "fortran": np.asfortranarray(X),
        "csr": sp.csr_matrix(X),
        "csc": sp.csc_matrix(X),
    }[kind]
    C = est.fit_transform(data)
    assert isinstance(C, np.ndarray) and C.shape == (30, 29)
    np.testing.assert_allclose(C, X @ est.components_.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(est.transform(data), C)


@pytest.mark.parametrize("cls", [SignRandomProjection, AchlioptasProjection])
@pytest.mark.parametrize("kind", ["csr", "csc"])
def test_entrywise_projection_sparse_block_width_does_not_change_c(cls, kind):
    # C = X R is built in blocks of R's columns; for sparse X any block width gives C to the
    # last bit (for dense X BLAS may round differently at another width: not tested)
    rng = np.random.default_rng(1)
    X = rng.standard_normal((50, 300)) * 10.0 ** rng.integers(-3, 4, size=(50, 300))
    X *= rng.random((50, 300)) < 0.2
    data = {"csr": sp.csr_matrix(X), "csc": sp.csc_matrix(X)}[kind]
    outputs = []
    # 8 columns, 40, all of R at once; and (CSR) blocks of 8 rows of X times 8 columns of R
    for block_bytes in (8 * 300 * 8, 40 * 300 * 8, 1 << 30, 8 * 8 * 8):
        est = cls(100, random_state=0)
        est._BLOCK_BYTES = est._SPARSE_BLOCK_BYTES = block_bytes
        outputs.append(est.fit_transform(data))
    for C in outputs[1:]:
        np.testing.assert_array_equal(C.view(np.int64), outputs[0].view(np.int64))


def test_achlioptas_entries():
    est = AchlioptasProjection(9, random_state=0).fit(np.ones((3, 3000)))
    R = to_dense(est.components_)
    values, counts = np.unique(np.round(R * np.sqrt(9 / 3), 12), return_counts=True)
    np.testing.assert_array_equal(values, [-1, 0, 1])
    np.testing.assert_allclose(counts / R.size, [1 / 6, 2 / 3, 1 / 6], atol=0.01)


def test_gaussian_entries_variance():
    est = GaussianProjection(10, random_state=0).fit(np.ones((3, 5000)))
    R = est.components_
    assert R.shape == (10, 5000)
    assert R.var() == pytest.approx(1 / 10, rel=0.03)


def test_gaussian_entries_are_normal_with_variance_one_over_r():
    from scipy import stats

    r = 40
    est = GaussianProjection(r, random_state=3).fit(np.ones((2, 2500)))
    z = est.components_.ravel() * np.sqrt(r)  # should be standard normal: 100000 entries
    assert est.scale_ == 1 / np.sqrt(r)
    assert stats.kstest(z, "norm").pvalue > 1e-3
    se = 1 / np.sqrt(z.size)
    assert abs(z.mean()) < 4 * se
    assert abs(z.var() - 1) < 4 * np.sqrt(2) * se
    # columns of R (one per output coordinate) are uncorrelated
    corr = np.corrcoef(est.matrix_, rowvar=False)[np.triu_indices(r, 1)]
    assert np.abs(corr).max() < 5 / np.sqrt(2500)


def test_gaussian_draw_is_fixed_by_the_seed():
    X = np.random.default_rng(0).standard_normal((5, 300))
    a = GaussianProjection(20, random_state=7).fit_transform(X)
    np.testing.assert_array_equal(a, GaussianProjection(20, random_state=7).fit_transform(X))
    # a RandomState instance is read like sklearn's: a RandomState(7) gives the same draw
    b = GaussianProjection(20, random_state=np.random.RandomState(7)).fit_transform(X)
    np.testing.assert_array_equal(a, b)
    other = GaussianProjection(20, random_state=8).fit_transform(X)
    assert np.all(a != other)
    # sparse and dense inputs give C = A R; the matrix is d x r, C-ordered, components_ its .T
    est = GaussianProjection(20, random_state=7).fit(X)
    assert est.matrix_.flags.c_contiguous and est.matrix_.shape == (300, 20)
    np.testing.assert_array_equal(est.components_, est.matrix_.T)
    np.testing.assert_allclose(est.transform(sp.csr_matrix(X)), X @ est.matrix_, rtol=1e-12)


def test_sparse_embedding_one_signed_entry_per_feature():
    est = SparseEmbedding(6, random_state=0).fit(np.ones((2, 200)))
    Phi = est.components_.toarray()  # r x d
    assert Phi.shape == (6, 200)
    assert np.all((Phi != 0).sum(axis=0) == 1)
    np.testing.assert_array_equal(np.abs(Phi).sum(axis=0), 1.0)
    np.testing.assert_array_equal(Phi[est.hash_, np.arange(200)], est.signs_)
    assert set(np.unique(est.signs_)) == {-1.0, 1.0}
    assert set(np.unique(est.hash_)) == set(range(6))


def signed_bucket_sum(est, X):
    """The reference construction: column h(i) of C accumulates s_i X[:, i], feature by feature."""
    expected = np.zeros((X.shape[0], est.n_components_))
    for i in range(X.shape[1]):
        expected[:, est.hash_[i]] += est.signs_[i] * X[:, i]
    return expected


def test_sparse_embedding_is_signed_bucket_sum():
    X, Xs = sparse_pair(20, 30)
    est = SparseEmbedding(5, dense_output=False, random_state=3).fit(X)
    expected = signed_bucket_sum(est, X)
    np.testing.assert_allclose(est.transform(X), expected, atol=1e-12)
    Cs = est.transform(Xs)
    assert isinstance(Cs, sp.csr_matrix)
    np.testing.assert_allclose(Cs.toarray(), expected, atol=1e-12)
    # no duplicate entries in a row, so that consumers reading .data directly are right
    Cs_copy = Cs.copy()
    Cs_copy.sum_duplicates()
    assert Cs_copy.nnz == Cs.nnz
    for dense_output in (True, "auto"):  # "auto": this C is dense (density > DENSE_ABOVE)
        dense_out = SparseEmbedding(5, dense_output=dense_output, random_state=3).fit_transform(Xs)
        assert isinstance(dense_out, np.ndarray) and dense_out.flags.c_contiguous
        np.testing.assert_allclose(dense_out, expected, atol=1e-12)
    assert isinstance(est.transform(sp.csr_array(Xs)), sp.csr_array)


def random_csr(rng, n, d, row_nnz):
    """CSR with row_nnz distinct signed entries per row; wide value range, so that summation order
    would show in the last bits."""
    cols = np.concatenate([rng.choice(d, row_nnz, replace=False) for _ in range(n)])
    vals = rng.standard_normal(n * row_nnz) * 10.0 ** rng.integers(-3, 4, size=n * row_nnz)
    return sp.csr_matrix((vals, cols, np.arange(0, n * row_nnz + 1, row_nnz)), shape=(n, d))


@pytest.mark.parametrize("seed", range(3))
def test_sparse_embedding_dense_and_sparse_outputs_agree_to_the_last_bit(seed):
    rng = np.random.default_rng(seed)
    X = random_csr(rng, 40, 300, 25)
    dense = SparseEmbedding(8, dense_output=True, random_state=seed).fit_transform(X)
    sparse = SparseEmbedding(8, dense_output=False, random_state=seed).fit_transform(X)
    assert sp.issparse(sparse) and isinstance(dense, np.ndarray)
    # both paths add a row's contributions in the order of its nonzeros: equal, not just close
    np.testing.assert_array_equal(dense, sparse.toarray())
    est = SparseEmbedding(8, random_state=seed).fit(X)
    np.testing.assert_allclose(dense, signed_bucket_sum(est, X.toarray()), rtol=1e-12, atol=1e-9)
    # CSC input is converted to CSR with sorted indices: the same as sorting X's rows first
    X_sorted = X.copy()
    X_sorted.sort_indices()
    np.testing.assert_array_equal(est.transform(X.tocsc()), est.transform(X_sorted))


@pytest.mark.parametrize("block", [1, 30, 1 << 40])
def test_sparse_embedding_row_blocks_do_not_change_c(block):
    # the dense C is accumulated a block of rows at a time (blocks of about `block` nonzeros:
    # one row each, a few rows, all rows at once); every block size gives the sparse product
    rng = np.random.default_rng(5)
    X = random_csr(rng, 40, 300, 25)
    est = SparseEmbedding(8, dense_output=True, random_state=0)
    est._BLOCK_NONZEROS = block
    dense = est.fit_transform(X)
    sparse = SparseEmbedding(8, dense_output=False, random_state=0).fit_transform(X)
    np.testing.assert_array_equal(dense.view(np.int64), sparse.toarray().view(np.int64))


def test_sparse_embedding_auto_output_follows_expected_density():
    from kmdr.reducers.sparse_embedding import DENSE_ABOVE

    rng = np.random.default_rng(0)
    X = random_csr(rng, 200, 5000, 10)  # 10 nonzeros per row
    for r, dense in ((5, True), (20, True), (200, False), (2000, False)):
        expected_density = 1 - (1 - 1 / r) ** 10
        assert (expected_density > DENSE_ABOVE) == dense  # the cases bracket the threshold
        C = SparseEmbedding(r, random_state=0).fit_transform(X)
        assert isinstance(C, np.ndarray) == dense
        C_dense = np.asarray(C.toarray() if sp.issparse(C) else C)
        assert abs(np.count_nonzero(C_dense) / C_dense.size - expected_density) < 0.05


@pytest.mark.parametrize("cls", PROJECTIONS)
def test_r_larger_than_d_is_allowed(cls):
    X = np.random.default_rng(0).standard_normal((10, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns that the dimension is not reduced
        C = cls(5, random_state=0).fit_transform(X)
    assert C.shape == (10, 5)
