"""DaskArrayBlocks: a dask.array's row chunks are the blocks, computed alone; the fingerprint is
streamed from the content, the same whatever the chunks (dense: the in-memory content one)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from kmdr.datasets import Dataset, DatasetError
from kmdr.datasets._fingerprint import content_fingerprint
from kmdr.datasets.blocks import DaskArrayBlocks, SplitBlocks, bounds_of_rows

da = pytest.importorskip("dask.array")


def _matrix(sparse: bool, n: int = 61, d: int = 8):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((n, d))
    X[X < 0.4] = 0.0
    return (sp.csr_matrix(X) if sparse else X), np.arange(n) % 3


def _array(X, rows: int):
    return da.from_array(X, chunks=(rows, -1), asarray=not sp.issparse(X))


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_the_chunks_are_the_blocks_and_the_fingerprint_ignores_them(sparse):
    X, y = _matrix(sparse)
    blocks = DaskArrayBlocks(_array(X, 17), da.from_array(y, chunks=20), n_clusters=3, name="mine")
    assert blocks.bounds == bounds_of_rows(61, 17) and blocks.is_sparse is sparse
    assert (blocks.n_samples, blocks.n_features, blocks.n_clusters) == (61, 8, 3)
    for i, (lo, hi) in enumerate(blocks.bounds):
        got = pickle.loads(pickle.dumps(blocks)).block(i)
        want = X[lo:hi]
        if sparse:
            assert got.format == "csr" and got.dtype == np.float64
            np.testing.assert_array_equal(got.toarray(), want.toarray())
        else:
            assert got.dtype == np.float64 and got.tobytes() == want.tobytes()
    np.testing.assert_array_equal(blocks.labels(), y)
    other = DaskArrayBlocks(_array(X, 50), y, n_clusters=3)
    assert blocks.fingerprint == other.fingerprint
    prefix = "sparse-rows:" if sparse else "content:"
    assert blocks.fingerprint.startswith(prefix)
    changed = X.copy()
    if sparse:
        changed.data[-1] += 1.0  # the last nonzero
    else:
        changed[60, 7] += 1.0
    assert DaskArrayBlocks(_array(changed, 17), y, n_clusters=3).fingerprint != blocks.fingerprint
    relabelled = y.copy()
    relabelled[[0, 1]] = relabelled[[1, 0]]
    assert DaskArrayBlocks(_array(X, 17), relabelled, n_clusters=3).fingerprint != (
        blocks.fingerprint
    )


def test_dense_fingerprint_is_the_in_memory_content_one():
    X, y = _matrix(False)
    blocks = DaskArrayBlocks(_array(X, 9), y, n_clusters=3)
    assert blocks.fingerprint == content_fingerprint(X, y)
    split = SplitBlocks(Dataset("mine", X, y, 3, None, "mine"), bounds_of_rows(61, 30))
    assert blocks.fingerprint == split.fingerprint


def test_a_generated_array_pickles_small_and_blocks_are_computed_where_unpickled():
    array = da.random.default_rng(0).standard_normal((4000, 30), chunks=(500, 30))
    labels = da.arange(4000, chunks=1000) % 4
    blocks = DaskArrayBlocks(array, labels, n_clusters=4)
    fingerprint = blocks.fingerprint  # kept once computed
    data = pickle.dumps(blocks)
    assert len(data) < 10 * 1024  # the array's graph, the labels' and a few numbers
    assert len(data) < len(pickle.dumps((array, labels))) + 1024
    again = pickle.loads(data)
    assert again.fingerprint == fingerprint and again.n_blocks == 8
    np.testing.assert_array_equal(again.block(7), array[3500:].compute())
    np.testing.assert_array_equal(again.labels(), np.arange(4000) % 4)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda X, y: (X, y), "give a dask.array"),
        (lambda X, y: (da.from_array(X[:, 0], chunks=10), y), "shape"),
        (lambda X, y: (da.from_array(X, chunks=(10, 4)), y), "rechunk"),
        (lambda X, y: (_array(X, 10), y[:-1]), "61 rows but y has 60 labels"),
        (lambda X, y: (_array(X, 10), y + 1), "not consecutive from 0"),
        (lambda X, y: (_array(X.astype(complex), 10), y), "complex"),
    ],
)
def test_bad_input_is_one_line_before_any_block(make, match):
    X, y = _matrix(False)
    array, labels = make(X, y)
    with pytest.raises(DatasetError, match=match) as err:
        DaskArrayBlocks(array, labels, n_clusters=3)
    assert "\n" not in str(err.value)


def test_a_block_with_nan_is_refused_when_computed():
    X, y = _matrix(False)
    X[40, 2] = np.nan
    blocks = DaskArrayBlocks(_array(X, 30), y, n_clusters=3)
    blocks.block(0)
    with pytest.raises(DatasetError, match=r"block 1 \(rows 30:60\) holds NaN"):
        blocks.block(1)
