"""Datasets: the real files (found as kmdr finds them, see _data.py), the fetch logic, the CLI.

Each real dataset is loaded once per session from the data cache, the mirror or a download; the
tests of the fetch logic itself run offline (their downloads fail at once).
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import requests
import scipy.io as sio

import _data
import kmdr.datasets as kd
from _bad_data import DAMAGED_CACHE, DAMAGED_MIRROR, UNREGISTERED
from _cases import DOES_NOT_IMPORT, case
from _data import mirror_of, pin, real_dataset, real_file
from kmdr.datasets import _registry

_REAL_DOWNLOAD = _registry._download


def _no_download(entry, cache_dir):
    raise requests.ConnectionError(f"network disabled in tests ({entry.url})")


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """No test downloads: pooch's download step fails at once, as it does offline."""
    monkeypatch.setattr(_registry, "_download", _no_download)


@pytest.fixture(scope="module")
def real():
    """load(name): the real dataset (loaded once per session), or a skip with kmdr's reason."""
    return real_dataset


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
    faces = sio.loadmat(real_file("orl/olivettifaces.mat", "orl"))["faces"]
    assert np.array_equal(ds.X, faces.T.astype(np.float64))
    assert ds.image(0).shape == (64, 64) and ds.image_order == "F"


def test_orl_raw_numeric_file_order(real):
    ds = real("orl_raw")
    _check_common(ds, (400, 10304), 40, 10, 0.0, 251.0)
    assert np.array_equal(ds.y, np.repeat(np.arange(40), 10))
    # Row 0 is s1/1, row 1 is s1/2 (not s1/10, the lexicographic second), row 10 is s2/1.
    for row, rel in [(0, "s1/1.pgm"), (1, "s1/2.pgm"), (9, "s1/10.pgm"), (10, "s2/1.pgm")]:
        face = real_file(f"orl/orl_faces/{rel}", "orl_raw")
        assert np.array_equal(ds.X[row], kd.read_pgm(face).ravel()), rel
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
    where = {"data_dir": _data.CACHE, "mirror": _data.MIRROR}
    st = kd.dataset_status("usps", **where)
    assert st.present and (st.n_samples, st.n_features, st.n_clusters) == (11000, 256, 10)
    assert st.sha256 == _registry.registry()["usps/USPS_11000x256_uint8.mat"].known_hash
    real("orl_raw")
    assert kd.dataset_status("orl_raw", **where).sha256 == kd.orl_faces_manifest_sha256()


# --- the catalog ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["orl", "orl_raw", "coil20", "usps", "pie"])
def test_catalog_facts_are_the_loaded_data(real, name):
    entry, ds = kd.dataset_info(name), real(name)
    assert entry.kind == "file" and entry.name == ds.name == name
    facts = (entry.n_samples, entry.n_features, entry.n_clusters, entry.sparse)
    assert facts == (ds.n_samples, ds.n_features, ds.n_clusters, ds.is_sparse)


@pytest.mark.parametrize("name", ["synth", "sparse_text", "mixture"])
def test_catalog_facts_of_generated_data_are_the_defaults(name):
    entry = kd.dataset_info(name)
    assert entry.kind == "synthetic"
    assert (entry.n_samples, entry.n_features, entry.n_clusters) == (
        entry.params["n_samples"],
        entry.params["n_features"],
        entry.params["n_clusters"],
    )


def test_catalog_entries_are_consistent():
    reg = _registry.registry()
    names = kd.available_datasets()
    assert names == tuple(kd.DATASETS) and len(set(names)) == len(names)
    displays = [kd.dataset_info(n).display_name for n in names]
    assert len(set(displays)) == len(displays)
    for name in names:
        entry = kd.dataset_info(name)
        assert entry.name == name and entry.kind in kd.DATASET_KINDS
        for path in (*entry.files, *entry.extra_files):
            assert path in reg, (name, path)
        assert (entry.kind == "file") == bool(entry.files)


def test_display_names_as_the_papers_print_them():
    expected = {"coil20": "COIL20", "synth": "Synth", "usps": "USPS", "rcv1": "RCV1"}
    for name, display in expected.items():
        assert kd.dataset_info(name).display_name == display
    with pytest.raises(ValueError, match=r"unknown dataset 'imagenet'; valid names: .*coil20"):
        kd.dataset_info("imagenet")


def test_catalog_rejects_bad_entries():
    with pytest.raises(ValueError, match="kind='remote' is invalid"):
        kd.DatasetEntry("x", kd.load_dataset, "remote", "X")
    with pytest.raises(ValueError, match="must list its files"):
        kd.DatasetEntry("x", kd.load_dataset, "file", "X")
    with pytest.raises(TypeError, match="not callable"):
        kd.DatasetEntry("x", "loader", "bundled", "X")


def test_availability_cached_mirror_download(tmp_path, monkeypatch):
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    mirror = mirror_of(tmp_path / "mirror", "coil20/COIL20.mat", dataset="coil20")
    cache = tmp_path / "cache"
    status, reason = kd.availability("coil20", data_dir=cache)
    assert status == "download" and _registry.registry()["coil20/COIL20.mat"].url in reason
    status, reason = kd.availability("coil20", data_dir=cache, mirror=mirror)
    assert status == "mirror" and str(mirror) in reason
    kd.load_dataset("coil20", data_dir=cache, mirror=mirror)
    assert kd.availability("coil20", data_dir=cache) == ("cached", "")
    # a file the registry pins no hash for is unavailable, whatever the cache holds
    (cache / "nips").mkdir()
    (cache / "nips" / "nips_1-17.mat").write_bytes(b"")
    status, reason = kd.availability("nips", data_dir=cache)
    assert status == "download" and "raw.githubusercontent.com" in reason  # pinned: fetchable
    _unpin(monkeypatch, "nips/nips_1-17.mat")
    status, reason = kd.availability("nips", data_dir=cache)
    assert status == "unavailable" and "no pinned hash" in reason
    assert kd.availability("synth") == ("synthetic", "")


# --- registry and fetch --------------------------------------------------------------------


def _unpin(monkeypatch, rel: str) -> None:
    """Take the registered file ``rel``'s hash away for this test, as a registry line with '-'
    (as ss22's files without a published checksum have it)."""
    entry = _registry.registry()[rel]
    monkeypatch.setitem(_registry.registry(), rel, dataclasses.replace(entry, known_hash=None))


def test_registry_lists_every_file():
    reg = _registry.registry()
    for name in kd.DATASETS:
        for path in kd.dataset_info(name).files:
            assert path in reg
    pgms = [p for p in reg if p.startswith("orl/orl_faces/") and p.endswith(".pgm")]
    assert len(pgms) == 400
    # a checksum for every file but the three ss22 files none is published for (refused)
    unpinned = {p for p, e in reg.items() if e.known_hash is None}
    assert unpinned == {
        "census/USCensus1990.data.txt", "tower/Tower.txt", "nytimes/docword.nytimes.txt.gz",
        "adult/adult.data", "song/YearPredictionMSD.txt.zip",
    }  # fmt: skip
    assert not [p for p, e in reg.items() if not e.downloadable]  # every source serves its file
    for e in reg.values():
        assert e.url.startswith(("https://", "http://"))
        if e.path in unpinned:
            continue
        sha256 = len(e.known_hash) == 64
        md5 = e.path.startswith("mnist/") and len(e.known_hash) == len("md5:") + 32
        assert sha256 or md5 or e.path == "nips/nips_1-17.mat"
    # NIPS's count matrix: the public copy at a pinned commit, by its git blob id
    nips = reg["nips/nips_1-17.mat"]
    assert nips.known_hash == "gitblob:fdd8e86fcd2ab7a42a523449a203f981ff77dfd7"
    assert "/d41858040a69cd22198d8de80b0bf0e27c8998f0/" in nips.url
    rcv1 = reg["rcv1/rcv1_train.multiclass.bz2"]
    assert rcv1.known_hash == "79691e3f974aa6a08d5e3116c61aff822fbdb2725e99ed27fde4351af51076a8"
    # MNIST's files as published, pinned by the md5 sums common loaders publish for them
    mnist = {p: e.known_hash for p, e in reg.items() if p.startswith("mnist/")}
    assert mnist == {
        "mnist/train-images-idx3-ubyte.gz": "md5:f68b3c2dcbeaaa9fbdd348bbdeb94873",
        "mnist/train-labels-idx1-ubyte.gz": "md5:d53e105ee54ea40749a09fcbcd1e9432",
        "mnist/t10k-images-idx3-ubyte.gz": "md5:9fb629c4189551a2d022fa330f9573f3",
        "mnist/t10k-labels-idx1-ubyte.gz": "md5:ec29112dd5afa0611ce80d1b7f02629c",
    }


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="has no pinned hash in kmdr's data registry",
            doing="data",
            cause="the data registry lists this file with '-' where its hash goes, so no copy of "
            "it (in the cache, the mirror or a download) can be checked, and none is used",
            fix="check a copy against the source the message names, then put its sha256 "
            "(`sha256sum FILE`) on the file's line of src/kmdr/datasets/registry.txt",
        )
    ],
)
def test_a_file_without_a_pinned_hash_is_refused_not_trusted(says, tmp_path, monkeypatch):
    tried = []
    monkeypatch.setattr(_registry, "_download", lambda entry, cache_dir: tried.append(entry))
    rel = "rcv1/rcv1_train.multiclass.bz2"
    _unpin(monkeypatch, rel)
    for where in ("cache", "mirror"):
        (tmp_path / where / "rcv1").mkdir(parents=True)
        (tmp_path / where / rel).write_bytes(b"anything at all")
    with pytest.raises(kd.DatasetUnavailable) as err:
        _registry.fetch(
            rel, dataset="rcv1", data_dir=tmp_path / "cache", mirror=tmp_path / "mirror"
        )
    message = str(err.value)
    assert "\n" not in message and says in message and "pin its sha256" in message
    assert not tried  # nothing downloaded either
    status, reason = kd.availability("rcv1", data_dir=tmp_path / "cache")
    assert status == "unavailable" and "no pinned hash" in reason


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="unknown dataset 'imagenet'; valid names:",
            doing="data",
            cause="kmdr.datasets.load_dataset was given a name no built-in dataset or installed "
            "plug-in declares",
            fix="use one of the names the message lists (`kmdr-data` lists them with their "
            "status); a plug-in's dataset appears once its package is installed",
        )
    ],
)
def test_unknown_name_lists_valid_names(says):
    with pytest.raises(ValueError, match=re.escape(says)) as err:
        kd.load_dataset("imagenet")
    for name in kd.DATASETS:
        assert name in str(err.value)
    # a subset: plug-ins may add more
    assert {"orl", "coil20", "usps", "pie", "synth", "nips", "rcv1"} <= set(kd.DATASETS)


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="dataset 'orl' takes no parameters",
            doing="data",
            cause="a dataset read from files (orl, coil20, usps, pie, nips, rcv1) was given "
            "parameters; only generated data (synth, sparse_text, mixture) takes any",
            fix="remove the parameters (dataset.params on the command line, the keyword "
            "arguments of load_dataset)",
        )
    ],
)
def test_file_datasets_take_no_params(says):
    with pytest.raises(ValueError, match=re.escape(says)):
        kd.load_dataset("orl", seed=1)


def _corrupt_mirror(tmp_path: Path, rel: str) -> Path:
    mirror = tmp_path / "mirror"
    (mirror / rel).parent.mkdir(parents=True)
    (mirror / rel).write_bytes(b"not the real file\n")
    return mirror


@pytest.mark.parametrize("says", [case(**DAMAGED_MIRROR)])
def test_corrupted_mirror_file_names_file_and_hashes(says, tmp_path):
    rel = "usps/USPS_11000x256_uint8.mat"
    mirror = _corrupt_mirror(tmp_path, rel)
    expected = _registry.registry()[rel].known_hash
    actual = _registry.sha256(mirror / rel)
    with pytest.raises(ValueError) as err:
        kd.load_dataset("usps", data_dir=tmp_path / "cache", mirror=mirror)
    assert isinstance(err.value, kd.DataIntegrityError)
    msg = str(err.value)
    assert f"{says} {rel}" in msg and expected in msg and actual in msg
    assert not (tmp_path / "cache" / rel).exists()  # nothing bad lands in the cache


def test_corrupted_cache_is_replaced_from_mirror(tmp_path):
    rel = "orl/orl_faces/README"
    mirror = mirror_of(tmp_path / "mirror", rel, dataset="orl_raw")
    cache = tmp_path / "cache"
    (cache / rel).parent.mkdir(parents=True)
    (cache / rel).write_bytes(b"corrupted")
    path = _registry.fetch(rel, dataset="orl_raw", data_dir=cache, mirror=mirror)
    assert _registry.sha256(path) == _registry.registry()[rel].known_hash


@pytest.mark.parametrize("says", [case(**DAMAGED_CACHE)])
def test_corrupted_cache_without_source_names_hashes(says, tmp_path, monkeypatch):
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    rel = "orl/orl_faces/README"
    cache = tmp_path / "cache"
    (cache / rel).parent.mkdir(parents=True)
    (cache / rel).write_bytes(b"corrupted")
    with pytest.raises(kd.DataIntegrityError) as err:
        _registry.fetch(rel, dataset="orl_raw", data_dir=cache)
    msg = str(err.value)
    assert msg.startswith("cached file") and f"{says} {rel}" in msg
    assert _registry.registry()[rel].known_hash in msg
    assert _registry.sha256(cache / rel) in msg


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="coil20: cannot obtain coil20/COIL20.mat: download of",
            doing="data",
            cause="the file is not in the data cache, no mirror folder holds it, and its "
            "download failed (offline, or the server is down)",
            fix="connect and run `kmdr-data NAME` again, or set KMDR_DATA_MIRROR to a folder "
            "holding the file, or put the file at the cache path the message names",
        )
    ],
)
def test_missing_file_offline_names_url_and_mirror_variable(says, tmp_path, monkeypatch):
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    monkeypatch.setenv(kd.DATA_DIR_ENV, str(tmp_path / "cache"))
    with pytest.raises(kd.DatasetUnavailable) as err:
        kd.load_dataset("coil20")
    msg = str(err.value)
    assert says in msg and kd.MIRROR_ENV in msg and "\n" not in msg
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
    rel = "mnist/t10k-labels-idx1-ubyte.gz"
    with pytest.raises(kd.DatasetUnavailable, match=r"t10k-labels-idx1-ubyte\.gz"):
        _registry.fetch(rel, dataset="mnist", data_dir=tmp_path)


def test_an_unserved_file_is_never_downloaded_and_listed_as_unavailable(tmp_path, monkeypatch):
    """A file whose registered URL no longer serves it (NIPS's count matrix, before its public
    copy was pinned): kmdr-list must not promise a download, and fetching it asks for the file
    instead of trying one (pinned here to an empty file's hash)."""
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    (tmp_path / "empty").write_bytes(b"")
    pin(monkeypatch, "nips/nips_1-17.mat", tmp_path / "empty")
    entry = _registry.registry()["nips/nips_1-17.mat"]
    unserved = dataclasses.replace(entry, downloadable=False)
    monkeypatch.setitem(_registry.registry(), "nips/nips_1-17.mat", unserved)
    tried = []
    monkeypatch.setattr(_registry, "_download", lambda entry, cache_dir: tried.append(entry))
    cache = tmp_path / "cache"
    status, reason = kd.availability("nips", data_dir=cache)
    assert status == "unavailable" and "\n" not in reason
    assert str(cache / "nips" / "nips_1-17.mat") in reason and kd.MIRROR_ENV in reason
    with pytest.raises(kd.DatasetUnavailable, match=kd.MIRROR_ENV) as err:
        _registry.fetch("nips/nips_1-17.mat", dataset="nips", data_dir=cache)
    assert "does not serve it" in str(err.value) and not tried
    # a copy in the mirror (or the cache) makes it obtainable
    mirror = tmp_path / "mirror"
    (mirror / "nips").mkdir(parents=True)
    (mirror / "nips" / "nips_1-17.mat").write_bytes(b"")
    assert kd.availability("nips", data_dir=cache, mirror=mirror)[0] != "unavailable"


def test_a_registry_line_with_an_unknown_flag_is_refused(tmp_path, monkeypatch):
    bad = tmp_path / "registry.txt"
    bad.write_text("x/y.mat - https://example.org/y.mat gone\n")
    monkeypatch.setattr(_registry, "_REGISTRY_FILE", bad)
    _registry.registry.cache_clear()
    try:
        with pytest.raises(ValueError, match="unserved"):
            _registry.registry()
    finally:
        _registry.registry.cache_clear()


def test_mirror_copy_then_cache_hit(tmp_path):
    rel = "orl/orl_faces/README"
    mirror = mirror_of(tmp_path / "mirror", rel, dataset="orl_raw")
    cache = tmp_path / "cache"
    path = _registry.fetch(rel, dataset="orl_raw", data_dir=cache, mirror=mirror)
    assert path == cache / rel and path.read_bytes() == real_file(rel, "orl_raw").read_bytes()
    shutil.rmtree(mirror)  # the cached copy is used from now on
    assert _registry.fetch(rel, dataset="orl_raw", data_dir=cache, mirror=mirror) == path


def test_data_dir_resolution(tmp_path, monkeypatch):
    monkeypatch.delenv(kd.DATA_DIR_ENV, raising=False)
    repo = Path(__file__).resolve().parents[2]
    assert kd.resolve_data_dir() == repo / "datasets"
    monkeypatch.setenv(kd.DATA_DIR_ENV, str(tmp_path / "env"))
    assert kd.resolve_data_dir() == tmp_path / "env"
    assert kd.resolve_data_dir(tmp_path / "arg") == tmp_path / "arg"


# --- CLI -----------------------------------------------------------------------------------


def test_cli_exit_one_with_missing_after_the_table(tmp_path, monkeypatch, capsys):
    from kmdr.datasets.cli import main

    mirror = mirror_of(tmp_path / "mirror", "orl/ORL_64x64.mat", dataset="orl")
    monkeypatch.setenv(kd.MIRROR_ENV, str(mirror))
    monkeypatch.setenv(kd.DATA_DIR_ENV, str(tmp_path))
    assert main(["orl", "synth", "nips"]) == 1
    out, err = capsys.readouterr()
    assert _registry.registry()["orl/ORL_64x64.mat"].known_hash in out
    assert "MISSING" in out and "generated (SYNTHETIC)" in out
    missing = [line for line in err.splitlines() if line.startswith("MISSING")]
    assert len(missing) == 1 and "nips_1-17.mat" in missing[0] and "download of" in missing[0]
    # present data only: 0; missing data allowed: 0, still listed
    assert main(["orl", "synth"]) == 0
    capsys.readouterr()
    assert main(["orl", "nips", "--allow-missing"]) == 0
    assert "MISSING nips" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_no_names_checks_every_file_dataset(tmp_path, monkeypatch, capsys):
    from kmdr.datasets.cli import main

    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    assert main(["--data-dir", str(tmp_path)]) == 1  # an empty cache, no mirror, no network
    out, err = capsys.readouterr()
    missing = [line for line in err.splitlines() if line.startswith("MISSING")]
    files = [n for n in kd.DATASETS if kd.dataset_info(n).kind == "file"]
    assert [line.split()[1] for line in missing] == [f"{n}:" for n in files]
    # every generated dataset is there (kmdr's, and the papers': ss22's Benchmark, dss24's)
    generated = [n for n in kd.DATASETS if kd.dataset_info(n).kind == "synthetic"]
    assert len(generated) >= 5 and out.count("generated (SYNTHETIC)") == len(generated)


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="unknown datasets ['imagenet']; valid names:",
            doing="data",
            cause="kmdr-data was given a name no built-in dataset or installed plug-in declares",
            fix="use the names the message lists; `kmdr-data` alone checks every dataset",
        )
    ],
)
def test_cli_unknown_name_is_a_usage_error(says, capsys):
    from kmdr.datasets.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["imagenet"])
    assert exc.value.code == 2 and says in capsys.readouterr().err


def test_cli_exit_one_on_corrupted_file(tmp_path, capsys):
    from kmdr.datasets.cli import main

    mirror = _corrupt_mirror(tmp_path, "coil20/COIL20.mat")
    assert main(["coil20", "--mirror", str(mirror), "--data-dir", str(tmp_path / "c")]) == 1
    assert "sha256 mismatch" in capsys.readouterr().err
    mirror_args = ["--mirror", str(mirror), "--data-dir", str(tmp_path / "c")]
    assert main(["coil20", "--allow-missing", *mirror_args]) == 1  # corrupted is not missing


# --- download progress ---------------------------------------------------------------------


@pytest.fixture
def pooch_fetch_calls(monkeypatch):
    """The real _download, with pooch's fetch recording its progressbar argument."""
    import pooch

    calls = []

    def fake_fetch(self, fname, processor=None, downloader=None, progressbar=False):
        calls.append(progressbar)
        return str(Path(self.path) / fname)

    monkeypatch.setattr(_registry, "_download", _REAL_DOWNLOAD)
    monkeypatch.setattr(pooch.Pooch, "fetch", fake_fetch)
    yield calls
    kd.set_download_progress(None)


def test_download_progress_when_asked_or_on_a_terminal(pooch_fetch_calls, tmp_path, monkeypatch):
    import io

    from kmdr.datasets import _progress

    entry = _registry.registry()["coil20/COIL20.mat"]
    monkeypatch.delenv(kd.PROGRESS_ENV, raising=False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # not a terminal
    _registry._download(entry, tmp_path)
    kd.set_download_progress(True)
    _registry._download(entry, tmp_path)
    kd.set_download_progress(None)
    monkeypatch.setenv(kd.PROGRESS_ENV, "1")
    _registry._download(entry, tmp_path)
    monkeypatch.setenv(kd.PROGRESS_ENV, "0")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    _registry._download(entry, tmp_path)
    monkeypatch.delenv(kd.PROGRESS_ENV)
    _registry._download(entry, tmp_path)  # a terminal
    assert pooch_fetch_calls == [False, True, True, False, True]
    # without tqdm pooch would raise: no bar then, even when asked
    monkeypatch.setattr(_progress.importlib.util, "find_spec", lambda name: None)
    kd.set_download_progress(True)
    _registry._download(entry, tmp_path)
    assert pooch_fetch_calls[-1] is False
    with pytest.raises(TypeError):
        kd.set_download_progress("yes")


def test_cli_progress_flag_reaches_the_download(pooch_fetch_calls, tmp_path, monkeypatch):
    from kmdr.datasets.cli import main

    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    monkeypatch.delenv(kd.PROGRESS_ENV, raising=False)
    # the fake fetch "downloads" nothing, so the loader fails on the missing file: an ERROR row
    assert main(["coil20", "--progress", "--data-dir", str(tmp_path)]) == 1
    assert pooch_fetch_calls == [True]


# --- plug-ins ------------------------------------------------------------------------------

TOY_MODULE = """
import numpy as np
from kmdr.datasets import Dataset, DatasetEntry


def load_toy(n_per_class=5):
    X = np.vstack([np.zeros((n_per_class, 3)), np.ones((n_per_class, 3))])
    y = np.repeat(np.arange(2), n_per_class)
    return Dataset("toy", X, y, 2, None, "two points repeated (test plug-in)")


def load_bare():
    \"\"\"A loader function with no catalog entry.\"\"\"
    return Dataset("bare", np.eye(4), np.arange(4), 4, None, "identity")


ENTRY = DatasetEntry(
    "toy", load_toy, "bundled", "Toy", n_samples=10, n_features=3, n_clusters=2, sparse=False,
    params={"n_per_class": 5},
)
MISNAMED = DatasetEntry("other", load_toy, "bundled", "Other")
UNREGISTERED = DatasetEntry("far", load_toy, "file", "Far", files=("far/data.mat",))
NOT_A_LOADER = 42
"""

TOY_ENTRY_POINTS = """
[kmdr.datasets]
toy = toyplugin:ENTRY
bare = toyplugin:load_bare
broken = toyplugin_missing_module:ENTRY
misnamed = toyplugin:MISNAMED
far = toyplugin:UNREGISTERED
number = toyplugin:NOT_A_LOADER
orl = toyplugin:ENTRY
"""


@pytest.fixture
def toy_plugin(tmp_path, monkeypatch):
    site = tmp_path / "site"
    info = site / "toyplugin-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toyplugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(TOY_ENTRY_POINTS))
    (site / "toyplugin.py").write_text(textwrap.dedent(TOY_MODULE))
    monkeypatch.syspath_prepend(str(site))
    kd.reload_plugins()
    with pytest.warns(UserWarning, match="plug-in entry point orl = "):  # once, when first listed
        kd.available_datasets()
    yield
    sys.modules.pop("toyplugin", None)
    monkeypatch.undo()
    kd.reload_plugins()


def test_plugin_dataset_through_an_entry_point(toy_plugin):
    kd.reload_plugins()
    with pytest.warns(UserWarning, match="plug-in entry point orl = .* ignored: the built-in data"):
        names = kd.available_datasets()
    assert names[: len(kd._catalog.BUILTIN)] == tuple(kd._catalog.BUILTIN)  # built-ins first
    assert {"toy", "bare", "broken"} <= set(kd.DATASETS)
    assert "toyplugin" not in sys.modules  # listing names imports no plug-in
    assert kd.dataset_info("orl").display_name == "ORL"  # the built-in wins
    ds = kd.load_dataset("toy", n_per_class=3)
    assert ds.X.shape == (6, 3) and ds.n_clusters == 2
    with pytest.raises(ValueError, match=r"unknown parameters \['seed'\]"):
        kd.load_dataset("toy", seed=1)
    entry = kd.dataset_info("toy")
    assert entry.display_name == "Toy" and kd.availability("toy") == ("bundled", "")
    bare = kd.dataset_info("bare")
    assert bare.kind == "bundled" and bare.description == "A loader function with no catalog entry."
    assert kd.load_dataset("bare").n_clusters == 4
    st = kd.dataset_status("toy")
    assert st.present and st.reason == "bundled" and st.n_samples == 10


@pytest.mark.parametrize(
    ("name", "words"),
    [
        case("broken", **DOES_NOT_IMPORT),
        case(
            "misnamed",
            says="declares name 'other'; make the entry point's name and DatasetEntry.name",
            doing="plugin",
            cause="a plug-in's DatasetEntry is registered under an entry-point name that differs "
            "from its own name",
            fix="give the entry point (in the plug-in's pyproject.toml) and DatasetEntry.name "
            "the same name, then reinstall the plug-in",
        ),
        case(
            "number",
            says="it must be a kmdr.datasets.DatasetEntry or a loader function",
            doing="plugin",
            cause="a plug-in's `kmdr.datasets` entry point names something that is neither a "
            "DatasetEntry nor a function returning a Dataset",
            fix="point the entry point at a DatasetEntry or a loader function",
        ),
    ],
)
def test_broken_plugin_is_one_line_and_not_fatal(toy_plugin, name, words):
    status, reason = kd.availability(name)
    assert status == "unavailable" and words in reason and "\n" not in reason
    with pytest.raises(kd.DatasetUnavailable, match=name) as err:
        kd.load_dataset(name)
    assert "\n" not in str(err.value)
    assert kd.load_dataset("toy").n_samples == 10  # the others still work


@pytest.mark.parametrize("says", [case(**UNREGISTERED)])
def test_plugin_file_outside_the_registry_is_unavailable(says, toy_plugin):
    status, reason = kd.availability("far")
    assert status == "unavailable" and f"far/data.mat {says}" in reason


def test_cli_lists_plugins_and_a_broken_one_fails_alone(toy_plugin, capsys):
    from kmdr.datasets.cli import main

    assert main(["toy", "bare"]) == 0
    assert "bundled" in capsys.readouterr().out
    assert main(["toy", "broken"]) == 1
    err = capsys.readouterr().err
    assert "MISSING dataset plug-in entry point broken = " in err and "MISSING toy" not in err


@pytest.mark.slow
def test_real_download_draws_a_progress_bar(tmp_path, monkeypatch, capsys):
    """pooch + tqdm for real, from a local HTTP server (no outside network)."""
    import functools
    import hashlib
    import http.server
    import threading

    served = tmp_path / "served"
    served.mkdir()
    payload = bytes(range(256)) * 400
    (served / "blob.bin").write_bytes(payload)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(served))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    url = f"http://127.0.0.1:{server.server_address[1]}/blob.bin"
    entry = _registry.FileEntry("toy/blob.bin", hashlib.sha256(payload).hexdigest(), url)
    try:
        kd.set_download_progress(True)
        path = _REAL_DOWNLOAD(entry, tmp_path / "cache")
        kd.set_download_progress(False)
        again = _REAL_DOWNLOAD(entry, tmp_path / "cache2")
    finally:
        kd.set_download_progress(None)
        server.shutdown()
        server.server_close()
    assert path.read_bytes() == payload == again.read_bytes()
    err = capsys.readouterr().err
    assert err.count("100%") == 1 and err.count("102k/102k") == 1  # one bar, 102400 bytes


def test_declared_data_tells_what_loading_gives_without_loading():
    """A dry run's facts of generated data (default parameters) are the loaded data's; other
    parameters are not declared facts (None: the caller loads)."""
    from kmdr.datasets import declared_data, load_dataset

    declared = declared_data("synth")
    ds = load_dataset("synth")
    assert declared is not None
    assert (declared.n_samples, declared.n_features, declared.n_clusters, declared.sparse) == (
        ds.n_samples,
        ds.n_features,
        ds.n_clusters,
        ds.is_sparse,
    )
    assert declared.fingerprint == ds.fingerprint
    assert declared_data("synth", n_samples=90) is None
    assert declared_data("no_such_dataset") is None
