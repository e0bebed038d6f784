"""Reducers on row blocks: fit_rows draws the in-memory operator, transform_rows over any split of
the rows gives the in-memory C, the plan says which reducers run on blocks and how, and the
others refuse in one line."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from _cases import case
from kmdr.reducers import (
    SVDResult,
    fast_frobenius_svd,
    make_reducer,
    row_blocks_mode,
    row_blocks_reducers,
)
from kmdr.reducers._validation import independent_random_state

ROWWISE = ["sign", "achlioptas", "gaussian", "sparse_embedding", "srht"]
SPLITS = {
    "one block": (0, 211),
    "three blocks": (0, 70, 140, 211),
    "uneven": (0, 1, 2, 150, 151, 211),
}


def _dense():
    rng = np.random.default_rng(3)
    centers = rng.standard_normal((4, 37)) * 4
    return centers[rng.integers(0, 4, 211)] + rng.standard_normal((211, 37))


def _sparse():
    X = sp.random(211, 300, density=0.04, format="csr", random_state=7)
    X.data = np.round(X.data * 10)  # counts, some rows empty
    X.eliminate_zeros()
    return X


DATA = {"dense": _dense, "sparse": _sparse}


def _stack(parts):
    return sp.vstack(parts, format="csr") if sp.issparse(parts[0]) else np.vstack(parts)


def _rows_of(reducer, X, bounds):
    return _stack([reducer.transform_rows(X[lo:hi], lo) for lo, hi in itertools.pairwise(bounds)])


def _nnz_counts(X):
    return np.bincount(np.diff(X.indptr)) if sp.issparse(X) else None


def _assert_same(C_rows, C, exact):
    assert sp.issparse(C_rows) == sp.issparse(C)
    if sp.issparse(C):  # the same CSR, entry order included
        np.testing.assert_array_equal(C_rows.indptr, C.indptr)
        np.testing.assert_array_equal(C_rows.indices, C.indices)
        C_rows, C = C_rows.data, C.data
    if exact:
        np.testing.assert_array_equal(C_rows, C)
    else:  # dense BLAS products: other kernels for other row counts change the last bits
        assert np.max(np.abs(C_rows - C)) <= 1e-12 * np.max(np.abs(C))


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("kind", DATA)
@pytest.mark.parametrize("name", ROWWISE)
def test_transform_rows_over_any_split_is_transform(name, kind, split):
    X = DATA[kind]()
    C = make_reducer(name, 9, random_state=11).fit_transform(X)
    reducer = make_reducer(name, 9, random_state=11).fit_rows(*X.shape, nnz_counts=_nnz_counts(X))
    # sparse data: every row of C sums its row's entries in storage order, whatever the split
    exact = kind == "sparse" or name in ("sparse_embedding", "srht") or split == "one block"
    _assert_same(_rows_of(reducer, X, SPLITS[split]), C, exact)


@pytest.mark.parametrize("name", ROWWISE)
def test_fit_rows_draws_the_in_memory_operator(name):
    X = _dense()
    fitted = make_reducer(name, 9, random_state=5).fit(X)
    rows = make_reducer(name, 9, random_state=5).fit_rows(*X.shape)
    basis = np.eye(X.shape[1])  # the operator itself: the image of every basis vector
    operator = fitted.transform(basis)
    np.testing.assert_array_equal(rows.transform_rows(basis, 0), operator)
    other = make_reducer(name, 9, random_state=6).fit_rows(*X.shape)
    assert not np.array_equal(other.transform_rows(basis, 0), operator)
    assert rows.n_components_ == fitted.n_components_ == 9
    assert rows.n_features_in_ == X.shape[1]


@pytest.mark.parametrize("dense_output", ["auto", True, False])
@pytest.mark.parametrize("r", [2, 40, 200])
def test_sparse_embedding_blocks_take_the_whole_matrix_form(dense_output, r):
    # r = 2 and 40: C is expected dense enough for "auto" to give an ndarray; r = 200: CSR
    X = _sparse()
    C = make_reducer("sparse_embedding", r, random_state=1, dense_output=dense_output)
    C = C.fit_transform(X)
    reducer = make_reducer("sparse_embedding", r, random_state=1, dense_output=dense_output)
    reducer.fit_rows(*X.shape, nnz_counts=_nnz_counts(X))
    # a first block of short rows alone would choose otherwise; the whole matrix's form is kept
    _assert_same(_rows_of(reducer, X, (0, 3, 211)), C, exact=True)


def test_sparse_embedding_auto_needs_the_row_lengths():
    X = _sparse()
    reducer = make_reducer("sparse_embedding", 9, random_state=1)
    assert reducer.needs_nnz_counts(True) and not reducer.needs_nnz_counts(False)
    reducer.fit_rows(*X.shape)
    with pytest.raises(ValueError, match="needs nnz_counts"):
        reducer.transform_rows(X[:5], 0)
    with pytest.raises(ValueError, match="count each of the"):
        reducer.fit_rows(*X.shape, nnz_counts=np.ones(3, dtype=np.int64))


@pytest.mark.parametrize("name", ["svd_approx", "leverage_approx"])
@pytest.mark.parametrize("kind", DATA)
def test_a_sketch_reducer_fitted_on_the_same_sketch_is_the_in_memory_one(name, kind):
    X = DATA[kind]()
    C = make_reducer(name, 6, n_clusters=4, random_state=2).fit_transform(X)
    reducer = make_reducer(name, 6, n_clusters=4, random_state=2)
    rank, eps, rng = reducer.sketch_request(*X.shape)
    assert rank == (6 if name == "svd_approx" else 4)
    svd = fast_frobenius_svd(X, rank, eps, rng)
    reducer.fit_rows(*X.shape, sketch=svd)
    _assert_same(_rows_of(reducer, X, SPLITS["uneven"]), C, exact=kind == "sparse")


def test_leverage_sketch_request_draws_from_the_shared_stream():
    reducer = make_reducer("leverage_approx", 6, n_clusters=4, random_state=2)
    _, _, rng = reducer.sketch_request(50, 20, random_state=9)
    assert rng.standard_normal() == independent_random_state(9, stream=1).standard_normal()


def test_the_plans_say_which_reducers_run_on_blocks():
    for name in [*ROWWISE, "sparsified"]:
        assert row_blocks_mode(name) == "rowwise"
    assert row_blocks_mode("svd_approx") == row_blocks_mode("leverage_approx") == "sketch"
    refused = ["svd", "leverage", "laplacian", "lle", "ridge_leverage", "ridge_leverage_approx"]
    for name in [*refused, "none", "sparsified_two_pass"]:  # two-pass reads A again
        assert row_blocks_mode(name) is None
    offered = set(row_blocks_reducers())
    assert set(ROWWISE) | {"sparsified", "svd_approx", "leverage_approx"} <= offered
    assert not offered & {*refused, "none"}


_WHOLE_MATRIX = dict(
    says="cannot run on row blocks: it needs the whole matrix",
    doing="run",
    cause="data read in row blocks (a dataset too large for memory, a Dask run) was given to a "
    "reducer that needs the whole matrix at once: exact SVD, leverage scores, Laplacian scores, "
    "LLE, ridge leverage, or no reduction",
    fix="use a reducer that runs on row blocks (a random projection, the sparse embedding, the "
    "approximate SVD), or load the data whole",
)


@pytest.mark.parametrize(
    ("name", "says"),
    [
        case(name, **_WHOLE_MATRIX, id=name)
        for name in ["svd", "leverage", "laplacian", "lle", "ridge_leverage", "none"]
    ],
)
def test_a_reducer_that_needs_the_whole_matrix_refuses_in_one_line(name, says):
    reducer = make_reducer(name, 3, n_clusters=2, random_state=0)
    with pytest.raises(ValueError) as err:
        reducer.fit_rows(50, 20)
    assert "\n" not in str(err.value)
    assert says in str(err.value)
    assert type(reducer).__name__ in str(err.value)


def test_fit_rows_checks_r_as_fit_does():
    with pytest.raises(ValueError, match="n_components"):
        make_reducer("srht", 40, random_state=0).fit_rows(10, 20)  # r > d' = 32
    with pytest.raises(ValueError, match="n_clusters"):
        make_reducer("leverage_approx", 3, n_clusters=30, random_state=0).sketch_request(10, 20)


def test_transform_rows_checks_the_block():
    reducer = make_reducer("sign", 4, random_state=0).fit_rows(10, 6)
    with pytest.raises(ValueError, match="features"):
        reducer.transform_rows(np.ones((2, 5)), 0)
    with pytest.raises(ValueError, match="outside"):
        reducer.transform_rows(np.ones((3, 6)), 8)


def test_a_rowwise_class_without_transform_rows_says_so():
    from kmdr.reducers import BaseReducer, SignRandomProjection

    class Unfinished(SignRandomProjection):  # a plug-in that declares rowwise, implements none
        _transform_rows = BaseReducer._transform_rows

    reducer = Unfinished(4, random_state=0).fit_rows(10, 8)
    assert not reducer.implements_rows()
    assert all(
        make_reducer(name, 4).implements_rows() for name in ("sign", "svd_approx", "sparsified")
    )
    with pytest.raises(NotImplementedError, match="_transform_rows"):
        reducer.transform_rows(np.ones((2, 8)), 0)


def test_sketch_fit_needs_the_sketch():
    reducer = make_reducer("svd_approx", 3, random_state=0)
    with pytest.raises(ValueError, match="sketch="):
        reducer.fit_rows(10, 6)
    svd = SVDResult(np.ones(3), np.eye(6)[:3])
    assert reducer.fit_rows(10, 6, sketch=svd).transform_rows(np.ones((2, 6)), 0).shape == (2, 3)
