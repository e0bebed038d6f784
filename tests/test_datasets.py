"""Datasets: the real files (through the mirror ../shared/datasets), the fetch logic, the CLI.

Each real dataset is loaded once per module into a temporary cache, with KMDR_DATA_MIRROR pointing
at the shared folder and downloads disabled (no test touches the network).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import requests
import scipy.io as sio

import kmdr.datasets as kd
from kmdr.datasets import _registry

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
needs_shared = pytest.mark.skipif(
    not (SHARED / "SOURCES.md").is_file(), reason=f"shared data mirror {SHARED} is absent"
)


def _no_download(entry, cache_dir):
    raise requests.ConnectionError(f"network disabled in tests ({entry.url})")


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """No test downloads: pooch's download step fails at once, as it does offline."""
    monkeypatch.setattr(_registry, "_download", _no_download)


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """load(name): the real dataset, loaded once per module via the shared mirror."""
    if not (SHARED / "SOURCES.md").is_file():
        pytest.skip(f"shared data mirror {SHARED} is absent")
    cache = tmp_path_factory.mktemp("cache")
    loaded: dict[str, kd.Dataset] = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_registry, "_download", _no_download)
        mp.setenv(kd.MIRROR_ENV, str(SHARED))
        mp.setenv(kd.DATA_DIR_ENV, str(cache))

        def load(name: str) -> kd.Dataset:
            if name not in loaded:
                loaded[name] = kd.load_dataset(name)
            return loaded[name]

        yield load


def _class_sizes(y: np.ndarray) -> np.ndarray:
    return np.bincount(y)


def _check_common(ds: kd.Dataset, shape, k, per_class, lo, hi):
    assert ds.X.shape == shape
    assert isinstance(ds.X, np.ndarray) and ds.X.dtype == np.float64
    assert ds.y.dtype == np.int64 and ds.y.shape == (shape[0],)
    assert ds.n_clusters == k and ds.y.min() == 0 and ds.y.max() == k - 1
    assert np.all(_class_sizes(ds.y) == per_class)
    assert ds.X.min() == lo and ds.X.max() == hi
    assert ds.feature_names is None and not ds.is_sparse
    assert ds.n_samples == shape[0] and ds.n_features == shape[1]
    assert "SYNTHETIC" not in ds.description


# --- real datasets -------------------------------------------------------------------------


def test_orl_shape_and_subject_order(real):
    ds = real("orl")
    _check_common(ds, (400, 4096), 40, 10, 0.0, 242.0)
    assert np.array_equal(ds.y, np.repeat(np.arange(40), 10))  # rows in subject order
    # Same pixels and order as Roweis' olivettifaces.mat (images as columns, subject = j // 10).
    faces = sio.loadmat(_registry.fetch("orl/olivettifaces.mat", dataset="orl"))["faces"]
    assert np.array_equal(ds.X, faces.T.astype(np.float64))
    assert ds.image(0).shape == (64, 64) and ds.image_order == "F"


def test_orl_raw_numeric_file_order(real):
    ds = real("orl_raw")
    _check_common(ds, (400, 10304), 40, 10, 0.0, 251.0)
    assert np.array_equal(ds.y, np.repeat(np.arange(40), 10))
    faces = SHARED / "orl" / "orl_faces"
    # Row 0 is s1/1, row 1 is s1/2 (not s1/10, the lexicographic second), row 10 is s2/1.
    for row, rel in [(0, "s1/1.pgm"), (1, "s1/2.pgm"), (9, "s1/10.pgm"), (10, "s2/1.pgm")]:
        assert np.array_equal(ds.X[row], kd.read_pgm(faces / rel).ravel()), rel
    assert ds.image(0).shape == (112, 92)
    # The 400 + README registry hashes rebuild the manifest whose sha256 SOURCES.md gives.
    manifest = "7ebf5d45a470fbeda204b52d8067570063b0cbe098e3b2a3fb7c1e7c2c3999e3"
    assert kd.orl_faces_manifest_sha256() == manifest


def test_read_pgm_header_with_comment(tmp_path):
    raster = np.arange(6, dtype=np.uint8)
    path = tmp_path / "x.pgm"
    path.write_bytes(b"P5\n# a comment\n3 2\n255\n" + raster.tobytes())
    assert np.array_equal(kd.read_pgm(path), raster.reshape(2, 3))


def test_coil20(real):
    ds = real("coil20")
    _check_common(ds, (1440, 1024), 20, 72, 0.0, 1.0)
    assert ds.image(0).shape == (32, 32)


def test_usps_labels_are_the_digit(real):
    ds = real("usps")
    _check_common(ds, (11000, 256), 10, 1100, 0.0, 1.0)
    # The file codes gnd = digit + 1. The mean 0 is a ring: its centre is much darker than the
    # ring around it; the mean 1 is a bright vertical stroke through the centre.
    zero = ds.X[ds.y == 0].mean(axis=0).reshape(16, 16)
    one = ds.X[ds.y == 1].mean(axis=0).reshape(16, 16)
    assert zero[6:10, 6:10].mean() < 0.5 * zero[2:14, 2:14].mean()
    assert one[6:10, 6:10].mean() > 1.5 * one[2:14, 2:14].mean()
    assert one[:, :3].mean() < 0.5 * zero[:, :3].mean()  # a 1 is narrow, a 0 is wide
    assert ds.y[0] == 1  # the file's first image is a one (gnd 2)
    image0 = ds.X[0].reshape(16, 16)
    assert image0[:, 6:10].mean() > image0[:, :4].mean()


def test_pie_transposed(real):
    ds = real("pie")
    _check_common(ds, (2856, 1024), 68, 42, 0.0, 255.0)
    assert np.array_equal(ds.y, np.repeat(np.arange(68), 42))  # classes are contiguous blocks
    # Rows are images: the nearest other image of a face is the same person (under another
    # illumination). With the wrong orientation, rows would mix pixels of all people.
    X = ds.X
    q = np.arange(0, 2856, 7)
    d2 = (X[q] ** 2).sum(1)[:, None] - 2 * X[q] @ X.T + (X**2).sum(1)[None, :]
    d2[np.arange(q.size), q] = np.inf
    assert np.mean(ds.y[d2.argmin(axis=1)] == ds.y[q]) > 0.95
    assert ds.image(0).shape == (32, 32)


def test_dataset_status_and_sha(real, tmp_path):
    real("usps")  # make sure the cache holds it
    st = kd.dataset_status("usps")
    assert st.present and (st.n_samples, st.n_features, st.n_clusters) == (11000, 256, 10)
    assert st.sha256 == _registry.registry()["usps/USPS_11000x256_uint8.mat"].sha256


# --- registry and fetch --------------------------------------------------------------------


def test_registry_lists_every_file():
    reg = _registry.registry()
    for path in kd.MAIN_FILE.values():
        assert path in reg
    pgms = [p for p in reg if p.startswith("orl/orl_faces/") and p.endswith(".pgm")]
    assert len(pgms) == 400
    unknown = sorted(p for p, e in reg.items() if e.sha256 is None)
    assert unknown == ["nips/nips_1-17.mat", "rcv1/rcv1_train.multiclass.bz2"]
    for e in reg.values():
        assert e.url.startswith(("https://", "http://"))
        assert e.sha256 is None or len(e.sha256) == 64


def test_unknown_name_lists_valid_names():
    with pytest.raises(ValueError, match="unknown dataset 'mnist'") as err:
        kd.load_dataset("mnist")
    for name in kd.DATASETS:
        assert name in str(err.value)
    assert set(kd.available_datasets()) == {
        "orl", "orl_raw", "coil20", "usps", "pie", "synth", "nips", "rcv1", "sparse_text",
    }  # fmt: skip


def test_file_datasets_take_no_params():
    with pytest.raises(ValueError, match="no parameters"):
        kd.load_dataset("orl", seed=1)


def _corrupt_mirror(tmp_path: Path, rel: str) -> Path:
    mirror = tmp_path / "mirror"
    (mirror / rel).parent.mkdir(parents=True)
    (mirror / rel).write_bytes(b"not the real file\n")
    return mirror


def test_corrupted_mirror_file_names_file_and_hashes(tmp_path):
    rel = "usps/USPS_11000x256_uint8.mat"
    mirror = _corrupt_mirror(tmp_path, rel)
    expected = _registry.registry()[rel].sha256
    actual = _registry.sha256(mirror / rel)
    with pytest.raises(ValueError) as err:
        kd.load_dataset("usps", data_dir=tmp_path / "cache", mirror=mirror)
    assert isinstance(err.value, kd.DataIntegrityError)
    msg = str(err.value)
    assert rel in msg and expected in msg and actual in msg
    assert not (tmp_path / "cache" / rel).exists()  # nothing bad lands in the cache


@needs_shared
def test_corrupted_cache_is_replaced_from_mirror(tmp_path):
    rel = "orl/orl_faces/README"
    cache = tmp_path / "cache"
    (cache / rel).parent.mkdir(parents=True)
    (cache / rel).write_bytes(b"corrupted")
    path = _registry.fetch(rel, dataset="orl_raw", data_dir=cache, mirror=SHARED)
    assert _registry.sha256(path) == _registry.registry()[rel].sha256


def test_corrupted_cache_without_source_names_hashes(tmp_path, monkeypatch):
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    rel = "orl/orl_faces/README"
    cache = tmp_path / "cache"
    (cache / rel).parent.mkdir(parents=True)
    (cache / rel).write_bytes(b"corrupted")
    with pytest.raises(kd.DataIntegrityError) as err:
        _registry.fetch(rel, dataset="orl_raw", data_dir=cache)
    msg = str(err.value)
    assert rel in msg and _registry.registry()[rel].sha256 in msg
    assert _registry.sha256(cache / rel) in msg


def test_missing_file_offline_names_url_and_mirror_variable(tmp_path, monkeypatch):
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    monkeypatch.setenv(kd.DATA_DIR_ENV, str(tmp_path / "cache"))
    with pytest.raises(kd.DatasetUnavailable) as err:
        kd.load_dataset("coil20")
    msg = str(err.value)
    assert "coil20" in msg and kd.MIRROR_ENV in msg and "\n" not in msg
    assert _registry.registry()["coil20/COIL20.mat"].url in msg
    st = kd.dataset_status("coil20")
    assert not st.present and kd.MIRROR_ENV in st.reason


def test_pooch_download_failure_becomes_unavailable(tmp_path, monkeypatch):
    """The real pooch path, with requests failing at once (as with no network)."""
    monkeypatch.undo()  # restore the real _download

    def refuse(*args, **kwargs):
        raise requests.ConnectionError("no network")

    monkeypatch.setattr(requests, "get", refuse)
    monkeypatch.setattr(requests, "head", refuse)
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    with pytest.raises(kd.DatasetUnavailable, match=r"nips_1-17\.mat"):
        _registry.fetch("nips/nips_1-17.mat", dataset="nips", data_dir=tmp_path)


@needs_shared
def test_mirror_copy_then_cache_hit(tmp_path):
    rel = "orl/orl_faces/README"
    mirror = tmp_path / "mirror"
    (mirror / rel).parent.mkdir(parents=True)
    shutil.copyfile(SHARED / rel, mirror / rel)
    cache = tmp_path / "cache"
    path = _registry.fetch(rel, dataset="orl_raw", data_dir=cache, mirror=mirror)
    assert path == cache / rel and path.read_bytes() == (SHARED / rel).read_bytes()
    shutil.rmtree(mirror)  # the cached copy is used from now on
    assert _registry.fetch(rel, dataset="orl_raw", data_dir=cache, mirror=mirror) == path


def test_data_dir_resolution(tmp_path, monkeypatch):
    monkeypatch.delenv(kd.DATA_DIR_ENV, raising=False)
    repo = Path(__file__).resolve().parents[1]
    assert kd.resolve_data_dir() == repo / "datasets"
    monkeypatch.setenv(kd.DATA_DIR_ENV, str(tmp_path / "env"))
    assert kd.resolve_data_dir() == tmp_path / "env"
    assert kd.resolve_data_dir(tmp_path / "arg") == tmp_path / "arg"


# --- CLI -----------------------------------------------------------------------------------


@needs_shared
def test_cli_table_exit_zero_with_missing(tmp_path, monkeypatch, capsys):
    from kmdr.datasets.cli import main

    monkeypatch.setenv(kd.MIRROR_ENV, str(SHARED))
    monkeypatch.setenv(kd.DATA_DIR_ENV, str(tmp_path))
    assert main(["orl", "synth", "nips"]) == 0
    out = capsys.readouterr().out
    assert _registry.registry()["orl/ORL_64x64.mat"].sha256 in out
    assert "MISSING" in out and "generated (SYNTHETIC)" in out and "1 dataset(s) missing" in out


def test_cli_exit_one_on_corrupted_file(tmp_path, capsys):
    from kmdr.datasets.cli import main

    mirror = _corrupt_mirror(tmp_path, "coil20/COIL20.mat")
    assert main(["coil20", "--mirror", str(mirror), "--data-dir", str(tmp_path / "c")]) == 1
    assert "sha256 mismatch" in capsys.readouterr().err
