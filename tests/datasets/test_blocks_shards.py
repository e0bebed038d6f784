"""Shard folders: write_shards and ShardBlocks round trip bit for bit (dense and sparse, one block
a shard or re-blocked), the fingerprint follows the shards' content, and a changed, truncated or
missing file is a one-line DatasetError naming the file (real files edited, no mocks)."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from kmdr.datasets import DataIntegrityError, Dataset, DatasetError, load_dataset
from kmdr.datasets.blocks import (
    ShardBlocks,
    SplitBlocks,
    bounds_of_rows,
    load_blocks,
    write_shards,
)


def _dataset(sparse: bool, n: int = 53) -> Dataset:
    rng = np.random.default_rng(1)
    X = rng.standard_normal((n, 9))
    X[X < 0.3] = 0.0
    return Dataset("toy", sp.csr_matrix(X) if sparse else X, np.arange(n) % 4, 4, None, "toy")


def _dense(X):
    return X.toarray() if sp.issparse(X) else X


def _same(a, b) -> None:
    assert sp.issparse(a) == sp.issparse(b) and a.shape == b.shape
    if sp.issparse(a):
        for x, y in [(a.indptr, b.indptr), (a.indices, b.indices)]:
            np.testing.assert_array_equal(x, y)
        assert a.data.tobytes() == b.data.tobytes()
    else:
        assert a.dtype == b.dtype == np.float64 and a.tobytes() == b.tobytes()


@pytest.fixture(params=[False, True], ids=["dense", "sparse"])
def folder(request, tmp_path):
    ds = _dataset(request.param)
    return write_shards(ds, tmp_path / "shards", rows=20), ds


def test_a_shard_folder_round_trips_bit_for_bit(folder):
    path, ds = folder
    manifest = json.loads((path / "manifest.json").read_text())
    assert [s["file"] for s in manifest["shards"]] == [f"shard-0000{i}.npz" for i in range(3)]
    assert [s["rows"] for s in manifest["shards"]] == [20, 20, 13]
    blocks = load_blocks("shards", path=str(path))  # one block a shard
    assert isinstance(blocks, ShardBlocks) and blocks.bounds == ((0, 20), (20, 40), (40, 53))
    assert blocks.is_sparse == ds.is_sparse and blocks.n_clusters == 4
    for i, (lo, hi) in enumerate(blocks.bounds):
        _same(pickle.loads(pickle.dumps(blocks)).block(i), ds.X[lo:hi])
    np.testing.assert_array_equal(blocks.labels(), ds.y)
    whole = load_dataset("shards", path=str(path))
    _same(whole.X, ds.X)
    np.testing.assert_array_equal(whole.y, ds.y)
    assert whole.fingerprint == blocks.fingerprint and whole.fingerprint.startswith("shards:")
    assert len(pickle.dumps(blocks)) < 10 * 1024


@pytest.mark.parametrize("bounds", [[(0, 53)], [(0, 7), (7, 41), (41, 53)], [(0, 20), (20, 53)]])
def test_shards_re_blocked_give_the_rows_across_shards(folder, bounds):
    path, ds = folder
    blocks = load_blocks("shards", path=str(path), bounds=bounds)
    assert blocks.bounds == tuple(bounds)
    for i, (lo, hi) in enumerate(bounds):
        _same(blocks.block(i), ds.X[lo:hi])
    assert blocks.fingerprint == load_blocks("shards", path=str(path)).fingerprint


def test_shards_written_from_generated_blocks_and_re_cut(tmp_path):
    params = {"n_samples": 90, "n_features": 300, "n_clusters": 3, "nnz_per_row": 8.0,
              "topic_terms": 20, "data_dir": tmp_path / "cache"}  # fmt: skip
    source = load_blocks("sparse_text", rows=40, **params)
    whole = load_dataset("sparse_text", **params)
    one = write_shards(source, tmp_path / "a")  # a shard a block
    cut = write_shards(source, tmp_path / "b", rows=25)  # shards across the blocks
    assert [s["rows"] for s in json.loads((cut / "manifest.json").read_text())["shards"]] == [
        25, 25, 25, 15,
    ]  # fmt: skip
    for path in (one, cut):
        got = load_dataset("shards", path=str(path))
        _same(got.X, whole.X)
        np.testing.assert_array_equal(got.y, whole.y)
    # the same rows in other shards are other files: the fingerprint names the files
    assert (
        load_dataset("shards", path=str(one)).fingerprint
        != load_blocks("shards", path=str(cut)).fingerprint
    )


def test_the_fingerprint_follows_the_content(tmp_path):
    ds = _dataset(False)
    a = load_blocks("shards", path=str(write_shards(ds, tmp_path / "a", rows=20)))
    b = load_blocks("shards", path=str(write_shards(ds, tmp_path / "b", rows=20)))
    X = ds.X.copy()
    X[52, 8] += 1.0  # one value of the last shard
    changed = Dataset("toy", X, ds.y, 4, None, "toy")
    c = load_blocks("shards", path=str(write_shards(changed, tmp_path / "c", rows=20)))
    assert a.fingerprint == b.fingerprint != c.fingerprint


def _one_line(err) -> str:
    text = str(err.value)
    assert "\n" not in text
    return text


def test_a_changed_shard_is_refused_when_read(folder):
    path, _ = folder
    blocks = load_blocks("shards", path=str(path))
    shard = path / "shard-00001.npz"
    data = bytearray(shard.read_bytes())
    data[-30] ^= 0xFF  # same size, other content
    shard.write_bytes(bytes(data))
    blocks.block(0)  # the other shards still read
    with pytest.raises(DataIntegrityError) as err:
        blocks.block(1)
    text = _one_line(err)
    assert "shard-00001.npz has sha256" in text and "write_shards" in text
    with pytest.raises(DataIntegrityError, match=r"shard-00001\.npz has sha256"):
        load_dataset("shards", path=str(path))


def test_a_truncated_shard_is_refused_before_any_shard_is_read(folder):
    path, _ = folder
    shard = path / "shard-00002.npz"
    shard.write_bytes(shard.read_bytes()[:-100])
    with pytest.raises(DataIntegrityError) as err:
        load_blocks("shards", path=str(path))
    text = _one_line(err)
    assert "shard-00002.npz has" in text and "truncated" in text and "restore it" in text


@pytest.mark.parametrize("missing", ["shard-00000.npz", "labels.npy"])
def test_a_missing_file_is_refused(folder, missing):
    path, _ = folder
    (path / missing).unlink()
    with pytest.raises(DatasetError) as err:
        load_blocks("shards", path=str(path))
    assert f"{missing} is missing" in _one_line(err)


def test_a_shard_the_manifest_does_not_list_is_refused(folder):
    path, _ = folder
    (path / "shard-00003.npz").write_bytes((path / "shard-00002.npz").read_bytes())
    with pytest.raises(DatasetError) as err:
        load_blocks("shards", path=str(path))
    assert "shard-00003.npz is not in the manifest" in _one_line(err)


def test_a_changed_label_file_is_refused(folder):
    path, ds = folder
    y = ds.y.copy()
    y[[0, 1]] = y[[1, 0]]
    np.save(path / "labels.npy", y)  # the same size: only the hash tells
    blocks = load_blocks("shards", path=str(path))
    with pytest.raises(DataIntegrityError, match=r"labels\.npy has sha256"):
        blocks.labels()
    with pytest.raises(DataIntegrityError, match=r"labels\.npy has sha256"):
        blocks.prepare()  # what a run does before it hands out the blocks


def test_a_blocks_labels_are_its_slice_of_the_file(folder):
    path, ds = folder
    blocks = load_blocks("shards", path=str(path), rows=7)
    blocks.prepare()
    parts = [blocks.block_labels(i) for i in range(blocks.n_blocks)]
    assert all(p.dtype == np.int64 for p in parts)
    assert np.array_equal(np.concatenate(parts), ds.y)
    (path / "labels.npy").write_bytes((path / "labels.npy").read_bytes()[:-8])
    with pytest.raises(DataIntegrityError, match=r"labels\.npy has .* bytes"):
        blocks.block_labels(0)  # cut short after the check: its size tells


@pytest.mark.parametrize(
    "edit, match",
    [
        (lambda p: (p / "manifest.json").unlink(), "has no manifest.json"),
        (lambda p: (p / "manifest.json").write_text("{not json"), "cannot be read"),
        (lambda p: (p / "manifest.json").write_text('{"format": "other"}'), "cannot be read"),
    ],
)
def test_a_bad_manifest_is_one_line(folder, edit, match):
    path, _ = folder
    edit(path)
    with pytest.raises(DatasetError, match=match) as err:
        load_dataset("shards", path=str(path))
    _one_line(err)


def test_bad_arguments(tmp_path, folder):
    path, ds = folder
    with pytest.raises(DatasetError, match="needs the folder: path=") as err:
        load_dataset("shards")
    _one_line(err)
    with pytest.raises(DatasetError, match="needs the folder: path="):
        load_blocks("shards", path="???")  # a config's dataset.params.path left unset
    with pytest.raises(DatasetError, match="does not exist"):
        load_blocks("shards", path=str(tmp_path / "nowhere"))
    with pytest.raises(DatasetError, match="not an empty folder"):
        write_shards(ds, path)
    with pytest.raises(DatasetError, match="rows per shard"):
        write_shards(ds, tmp_path / "new", rows=0)
    with pytest.raises(DatasetError, match="cover 50 rows of 53"):
        load_blocks("shards", path=str(path), bounds=[(0, 50)])


def test_split_blocks_write_the_split(tmp_path):
    ds = _dataset(True, n=10)
    blocks = SplitBlocks(ds, bounds_of_rows(10, 4))
    got = load_blocks("shards", path=str(write_shards(blocks, tmp_path / "s")))
    assert got.bounds == blocks.bounds
    _same(sp.vstack(list(got.blocks()), format="csr"), ds.X)
