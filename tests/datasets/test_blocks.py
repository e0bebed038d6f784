"""Row blocks (kmdr.datasets.blocks): bounds cover every row once, and blocks are the rows."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from kmdr.datasets import Dataset
from kmdr.datasets.blocks import SplitBlocks, bounds_of_rows, check_bounds, even_bounds


def _dataset(sparse: bool) -> Dataset:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((23, 7))
    X[X < 0.5] = 0.0
    return Dataset("toy", sp.csr_matrix(X) if sparse else X, np.arange(23) % 3, 3, None, "toy")


@pytest.mark.parametrize("n, k", [(23, 1), (23, 3), (23, 23), (5, 2)])
def test_even_bounds_cover_every_row_once_with_sizes_one_apart(n, k):
    bounds = even_bounds(n, k)
    assert check_bounds(bounds, n) == bounds and len(bounds) == k
    sizes = [hi - lo for lo, hi in bounds]
    assert max(sizes) - min(sizes) <= 1


def test_bounds_of_rows_and_bad_bounds():
    assert bounds_of_rows(10, 4) == ((0, 4), (4, 8), (8, 10))
    with pytest.raises(ValueError, match="consecutive"):
        check_bounds([(0, 3), (4, 10)], 10)
    with pytest.raises(ValueError, match="cover 8 rows of 10"):
        check_bounds([(0, 3), (3, 8)], 10)
    with pytest.raises(ValueError, match="n_blocks"):
        even_bounds(3, 4)


@pytest.mark.parametrize("sparse", [False, True])
def test_split_blocks_stack_back_to_the_matrix(sparse):
    ds = _dataset(sparse)
    blocks = SplitBlocks(ds, [(0, 2), (2, 19), (19, 23)])
    stack = sp.vstack if sparse else np.vstack
    whole = stack(list(blocks.blocks()))
    dense = whole.toarray() if sparse else whole
    np.testing.assert_array_equal(dense, ds.X.toarray() if sparse else ds.X)
    assert blocks.n_blocks == 3 and blocks.is_sparse is sparse
    assert blocks.fingerprint.startswith("content:")
    np.testing.assert_array_equal(blocks.labels(), ds.y)
    for i, (lo, hi) in enumerate(blocks.bounds):
        np.testing.assert_array_equal(blocks.block_labels(i), ds.y[lo:hi])


def test_load_blocks_of_a_generated_dataset_are_its_rows():
    from kmdr.datasets import load_dataset
    from kmdr.datasets.blocks import load_blocks

    params = {"n_samples": 300, "n_features": 40, "n_clusters": 3, "seed": 5}
    whole = load_dataset("synth", **params)
    blocks = load_blocks("synth", rows=128, **params)
    assert blocks.bounds == ((0, 128), (128, 256), (256, 300))
    assert blocks.fingerprint == whole.fingerprint
    np.testing.assert_array_equal(np.vstack(list(blocks.blocks())), whole.X)
