"""pb17's data: scikit-learn's digits 0, 3, 9 as a stand-in for MNIST, and MNIST's IDX loader
(tested on small IDX files the test writes: MNIST itself is not here)."""

import gzip

import numpy as np
import pytest

from _data import pin
from kmdr.datasets import DataIntegrityError, DatasetError, dataset_info, load_dataset
from kmdr.papers.pb17.datasets import MNIST_FILES, read_idx


def test_digits_is_the_three_digit_stand_in():
    ds = load_dataset("digits")
    assert ds.X.shape == (541, 64) and ds.n_clusters == 3 and ds.X.dtype == np.float64
    assert np.bincount(ds.y).tolist() == [178, 183, 180]  # digits 0, 3, 9 in order
    assert ds.image_shape == (8, 8) and ds.X.min() >= 0 and ds.X.max() == 16
    assert "stand-in for MNIST" in ds.description and "NOT MNIST" in ds.description
    assert "MNIST stand-in" in dataset_info("digits").display_name
    # label c is the c-th kept digit: the mean image of "0" has a hole in its middle
    zero, three = ds.X[ds.y == 0].mean(axis=0), ds.X[ds.y == 1].mean(axis=0)
    assert zero.reshape(8, 8)[3:5, 3:5].mean() < three.reshape(8, 8)[3:5, 3:5].mean()


def test_digits_parameter_and_its_one_line_error():
    from sklearn.datasets import load_digits

    target = load_digits().target
    ds = load_dataset("digits", digits=[7, 1])
    assert ds.n_clusters == 2 and len(ds.y) == np.isin(target, [1, 7]).sum()
    assert np.bincount(ds.y).tolist() == [np.sum(target == 1), np.sum(target == 7)]
    for bad in ([3], [3, 3], [1, 10], "39"):
        with pytest.raises(DatasetError, match="'digits' must list") as err:
            load_dataset("digits", digits=bad)
        assert "\n" not in str(err.value)


def _idx(shape, values: np.ndarray) -> bytes:
    header = bytes([0, 0, 0x08, len(shape)]) + np.asarray(shape, dtype=">u4").tobytes()
    return header + np.asarray(values, dtype=np.uint8).tobytes()


def _write_mnist(root, n_train=12, n_test=6, seed=0, monkeypatch=None, edit=None):
    """Four IDX files of MNIST's layout, gzipped as published: random 28x28 images, labels
    cycling over 0..9, each image's first pixel its own index (to check the order rows come back
    in). ``edit(name, raw) -> raw`` changes a file's IDX bytes before it is compressed. With
    ``monkeypatch``, each file is pinned to its own sha256 for the test (the registry pins the
    published files' md5 sums, which no file written here has)."""
    rng = np.random.default_rng(seed)
    labels = {}
    for (img, lab), n in zip(
        ((MNIST_FILES[0], MNIST_FILES[1]), (MNIST_FILES[2], MNIST_FILES[3])),
        (n_train, n_test),
        strict=True,
    ):
        images = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
        offset = 0 if img.startswith("mnist/train") else n_train
        images[:, 0, 0] = np.arange(n) + offset
        y = (np.arange(n) + offset) % 10
        (root / img).parent.mkdir(parents=True, exist_ok=True)
        for name, raw in ((img, _idx((n, 28, 28), images)), (lab, _idx((n,), y))):
            raw = edit(name, raw) if edit is not None else raw
            (root / name).write_bytes(gzip.compress(raw, mtime=0))
            if monkeypatch is not None:
                pin(monkeypatch, name, root / name)
        labels[img] = (images, y)
    return labels


def test_mnist_idx_loader_reads_written_files(tmp_path, monkeypatch):
    written = _write_mnist(tmp_path, monkeypatch=monkeypatch)
    # the ten digits spelled out: at its defaults the entry checks MNIST's own 70,000 rows
    ds = load_dataset("mnist", data_dir=tmp_path, mirror=None, digits=list(range(10)))
    assert ds.X.shape == (18, 784) and ds.n_clusters == 10
    # training set first, then the test set, each in file order
    np.testing.assert_array_equal(ds.X[:, 0], np.arange(18))
    np.testing.assert_array_equal(ds.X[:12].reshape(12, 28, 28), written[MNIST_FILES[0]][0])
    np.testing.assert_array_equal(ds.y, np.arange(18) % 10)
    sub = load_dataset("mnist", data_dir=tmp_path, mirror=None, digits=[0, 3, 9])
    kept = np.flatnonzero(np.isin(np.arange(18) % 10, [0, 3, 9]))
    np.testing.assert_array_equal(sub.X[:, 0], kept)
    np.testing.assert_array_equal(sub.y, np.searchsorted([0, 3, 9], kept % 10))
    assert sub.n_clusters == 3 and sub.image_shape == (28, 28)


def test_an_edited_mnist_file_is_refused_in_one_line(tmp_path, monkeypatch):
    from kmdr.datasets import _registry

    monkeypatch.setattr(_registry, "_download", _no_download)
    cache, mirror = tmp_path / "cache", tmp_path / "mirror"

    def four_pixels(name, raw):
        if name != MNIST_FILES[0]:
            return raw
        raw = bytearray(raw)
        raw[-4:] = bytes(255 - b for b in raw[-4:])
        return bytes(raw)

    _write_mnist(mirror, edit=four_pixels)  # every file well formed; none is the published one
    with pytest.raises(DataIntegrityError) as err:
        load_dataset("mnist", data_dir=cache, mirror=mirror, digits=[0, 3, 9])
    message = str(err.value)
    assert "\n" not in message and "md5 mismatch for mnist/train-images-idx3-ubyte.gz" in message
    assert "expected md5:f68b3c2dcbeaaa9fbdd348bbdeb94873" in message and "replace it" in message
    assert not (cache / MNIST_FILES[0]).exists()  # never copied into the cache


def _no_download(entry, cache_dir):
    raise OSError("no network in this test")


def test_truncated_idx_file_is_a_one_line_error(tmp_path, monkeypatch):
    _write_mnist(tmp_path, monkeypatch=monkeypatch, edit=lambda name, raw: (
        raw[:-100] if name == MNIST_FILES[2] else raw))  # fmt: skip
    path = tmp_path / MNIST_FILES[2]
    with pytest.raises(ValueError, match=r"truncated: \d+ bytes, expected"):
        read_idx(path)
    with pytest.raises(DatasetError, match=r"t10k-images-idx3-ubyte.*truncated") as err:
        load_dataset("mnist", data_dir=tmp_path, mirror=None, digits=[0, 3, 9])
    assert "\n" not in str(err.value)
    plain = tmp_path / "float.idx"
    plain.write_bytes(b"\x00\x00\x0d\x01" + b"\x00" * 8)  # float IDX: not MNIST's bytes
    with pytest.raises(ValueError, match="type code 0x0d"):
        read_idx(plain)
    path.write_bytes(b"not gzip at all")
    with pytest.raises(ValueError, match="not a readable gzip file"):
        read_idx(path)


def test_mnist_missing_says_where_to_put_it(tmp_path, monkeypatch):
    from kmdr.datasets import DatasetUnavailable, _registry

    monkeypatch.setattr(_registry, "_download", _no_download)
    with pytest.raises(DatasetUnavailable, match=r"mnist/train-images-idx3-ubyte\.gz") as err:
        load_dataset("mnist", data_dir=tmp_path, mirror=None)
    assert "\n" not in str(err.value)
