"""Generated datasets in row blocks: each block drawn alone equals the in-memory rows bit for bit
(1, 3 and uneven splits), the object pickles small, the fingerprint is the in-memory one."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from kmdr.datasets import DatasetError, _generated, _sparse_text, load_dataset
from kmdr.datasets.blocks import GeneratedBlocks, even_bounds, load_blocks

SMALL = {
    "synth": {"n_samples": 301, "n_features": 37, "n_clusters": 4, "seed": 2},
    "synth_tiled": {
        "n_samples": 301, "n_features": 37, "n_clusters": 4, "seed": 2, "tile_rows": 50,
    },
    "sparse_text": {
        "n_samples": 1200, "n_features": 900, "n_clusters": 6, "nnz_per_row": 15.0,
        "topic_terms": 40, "seed": 7,
    },
    "mixture": {"n_samples": 301, "n_features": 37, "n_clusters": 5, "ratio": 0.7, "seed": 2},
}  # fmt: skip
UNEVEN = {
    301: [(0, 1), (1, 120), (120, 121), (121, 301)],
    1200: [(0, 499), (499, 500), (500, 1200)],
}


def _name(case: str) -> str:
    return case.removesuffix("_tiled")


def _assert_same_rows(block, rows, sparse: bool) -> None:
    if sparse:
        assert block.format == "csr" and block.shape == rows.shape
        for a, b in [(block.indptr, rows.indptr), (block.indices, rows.indices)]:
            np.testing.assert_array_equal(a, b)
        assert block.data.tobytes() == rows.data.tobytes()  # bit for bit
        assert block.indices.dtype == rows.indices.dtype
    else:
        assert block.dtype == np.float64 and block.tobytes() == np.ascontiguousarray(rows).tobytes()


@pytest.fixture(autouse=True)
def _small_chunks(monkeypatch, tmp_path):
    """Small token chunks and noise pieces, so that a small block spans several of them."""
    monkeypatch.setattr(_sparse_text, "CHUNK_TOKENS", 2000)
    monkeypatch.setattr("kmdr.datasets._synthetic._DRAW_VALUES", 500)
    monkeypatch.setattr("kmdr.datasets._mixture.TILE_VALUES", 500)  # tiles of 13 rows
    monkeypatch.setenv("KMDR_DATA_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize("case", sorted(SMALL))
@pytest.mark.parametrize("split", ["one", "three", "uneven"])
def test_generated_blocks_are_the_in_memory_rows(case, split):
    params = SMALL[case]
    whole = load_dataset(_name(case), **params)
    n = whole.n_samples
    bounds = {"one": even_bounds(n, 1), "three": even_bounds(n, 3), "uneven": UNEVEN[n]}[split]
    blocks = load_blocks(_name(case), bounds=bounds, **params)
    assert isinstance(blocks, GeneratedBlocks) and blocks.bounds == tuple(bounds)
    assert blocks.fingerprint == whole.fingerprint
    assert (blocks.n_samples, blocks.n_features) == whole.X.shape
    assert blocks.n_clusters == whole.n_clusters and blocks.is_sparse == whole.is_sparse
    np.testing.assert_array_equal(blocks.labels(), whole.y)
    assert blocks.labels().dtype == np.int64
    for i in reversed(range(blocks.n_blocks)):  # the last block first: no earlier draw needed
        lo, hi = bounds[i]
        fresh = pickle.loads(pickle.dumps(blocks))  # as a worker gets it
        _assert_same_rows(fresh.block(i), whole.X[lo:hi], whole.is_sparse)
        labels = fresh.block_labels(i)  # made from the class sizes, not the whole vector
        assert labels.dtype == np.int64
        np.testing.assert_array_equal(labels, whole.y[lo:hi])


@pytest.mark.parametrize("case", sorted(SMALL))
def test_generated_blocks_pickle_small_without_any_row(case):
    blocks = load_blocks(_name(case), rows=100, **SMALL[case])
    blocks.block(blocks.n_blocks - 1)  # sparse_text now holds its document frequencies
    data = pickle.dumps(blocks)
    assert len(data) < 10 * 1024
    assert pickle.loads(data).__dict__.keys() == blocks.__dict__.keys() - {"_df"}


def test_many_even_blocks_pickle_as_small_as_few():
    params = {"n_samples": 10_000_000, "n_features": 784, "tile_rows": 10_000}
    many = load_blocks("synth", rows=10_000, **params)  # 1000 blocks
    again = pickle.loads(pickle.dumps(many))
    assert len(pickle.dumps(many)) < 1024 and again.bounds == many.bounds
    assert again.bounds[-1] == (9_990_000, 10_000_000) and len(again.bounds) == 1000
    uneven = load_blocks("synth", bounds=[(0, 1), (1, 301)], **SMALL["synth"])
    assert pickle.loads(pickle.dumps(uneven)).bounds == ((0, 1), (1, 301))


def test_tiled_synth_differs_from_the_one_stream_and_keeps_old_fingerprints():
    one = load_dataset("synth", **SMALL["synth"])
    spelled = load_dataset("synth", **SMALL["synth"], tile_rows=0)
    tiled = load_dataset("synth", **SMALL["synth_tiled"])
    # tile_rows=0 is the data as before the parameter existed: the same fingerprint, spelled out
    # or not; as the default's own (the committed cells' identity) it is left out of the digest
    assert spelled.fingerprint == one.fingerprint != tiled.fingerprint
    assert not np.array_equal(one.X, tiled.X)
    np.testing.assert_array_equal(one.y, tiled.y)
    # same centers: the rows of one cluster are close to the same mean in both draws
    np.testing.assert_allclose(one.X[:50].mean(0), tiled.X[:50].mean(0), atol=1.0)


def test_default_synth_fingerprint_is_the_committed_one():
    from kmdr.datasets import dataset_info
    from kmdr.datasets._fingerprint import _digest

    entry = dataset_info("synth")
    before = {k: v for k, v in entry.params.items() if k != "tile_rows"}
    assert load_blocks("synth", rows=400).fingerprint == f"generator:synth:{_digest(before)}"


def test_sparse_text_document_frequencies_are_cached_and_checked(tmp_path):
    params = SMALL["sparse_text"]
    blocks = load_blocks("sparse_text", rows=500, data_dir=tmp_path, **params)
    first = blocks.block(2)
    (path,) = (tmp_path / "generated").glob("sparse_text-df-*.npz")
    assert path.name.endswith(blocks.fingerprint.rpartition(":")[2] + ".npz")
    with np.load(path) as f:
        df = f["df"]
    np.testing.assert_array_equal(df, _sparse_text.document_frequencies(blocks.params))
    # a damaged cache is drawn again, never used
    path.write_bytes(path.read_bytes()[:50])
    again = pickle.loads(pickle.dumps(blocks)).block(2)
    _assert_same_rows(again, first, True)
    assert _generated._read_df(path, blocks.n_features) is not None  # written anew


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"rows": 0}, "rows per block must be an int >= 1"),
        ({"rows": 10, "bounds": [(0, 10)]}, "not both"),
        ({}, "has no blocks of its own"),
        ({"bounds": [(0, 10), (11, 301)]}, "consecutive"),
        ({"rows": 10, "tile_rows": -1}, "tile_rows"),
        ({"rows": 10, "colour": 1}, "unknown parameters"),
    ],
)
def test_bad_block_arguments_are_one_line_errors(kwargs, match):
    params = {k: v for k, v in SMALL["synth"].items()}
    with pytest.raises(DatasetError, match=match) as err:
        load_blocks("synth", **params, **kwargs)
    assert "\n" not in str(err.value)


def _traced_peak(make) -> int:
    import tracemalloc

    tracemalloc.start()
    try:
        make()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("tile_rows", [0, 1000])
def test_a_synth_block_takes_the_memory_of_the_block_not_of_the_matrix(tile_rows):
    params = {"n_samples": 20000, "n_features": 500, "n_clusters": 5, "tile_rows": tile_rows}
    blocks = load_blocks("synth", rows=1000, **params)
    whole = 20000 * 500 * 8  # 80 MB
    peak = _traced_peak(lambda: blocks.block(blocks.n_blocks - 2))
    assert peak < whole / 10  # the block (4 MB) and a piece of noise (4 kB here)


def test_a_sparse_text_block_takes_the_memory_of_the_block_not_of_the_matrix(monkeypatch):
    monkeypatch.setattr(_sparse_text, "CHUNK_TOKENS", 50_000)
    blocks = load_blocks("sparse_text", rows=2000, n_samples=60000, n_clusters=20)
    blocks.document_frequencies()  # drawn once (a pass over every token), then cached
    peak = _traced_peak(lambda: blocks.block(blocks.n_blocks - 2))
    whole = 60000 * 76 * 12  # about 55 MB: 76 nonzeros a row, 12 bytes a nonzero
    assert peak < whole / 4  # the block (2 MB), a chunk of tokens, the documents' lengths


def test_prepared_sparse_text_blocks_read_the_cached_frequencies_where_unpickled(monkeypatch):
    blocks = load_blocks("sparse_text", rows=400, **SMALL["sparse_text"])
    expected = load_dataset("sparse_text", **SMALL["sparse_text"]).X[800:1200]
    blocks.prepare()  # on the driver, before the blocks are handed out

    def no_second_pass(params):
        raise AssertionError("the document frequencies were drawn again")

    monkeypatch.setattr(_generated, "document_frequencies", no_second_pass)
    _assert_same_rows(pickle.loads(pickle.dumps(blocks)).block(2), expected, True)
