"""NIPS's and RCV1's files, pinned: NIPS's ``nips_1-17.mat`` by the git blob id of its public
copy, RCV1's LIBSVM file by its published sha256.

The real files cannot be had here (no network), so the tests write files of the same format (a
MATLAB v5 file with ``counts`` words x docs and the metadata variables; a bz2 LIBSVM file) and
check what the pins do with them: a file that differs from the pinned one by one byte is refused
in one line naming the file, the expected and the found digest, from the mirror and from a
download (a local HTTP server stands for the source), and nothing is kept; and, with the
test-written files pinned in a temporary mirror, ``make reproduce``'s path
(``scripts/reproduce.py --only``) runs ``bmd09_table1``, ``bmd09_fig1`` and ``lst17_rcv1`` end
to end.
"""

from __future__ import annotations

import bz2
import contextlib
import dataclasses
import functools
import hashlib
import http.server
import logging
import subprocess
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import requests
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file

import kmdr.datasets as kd
from _bad_data import DAMAGED_MIRROR, DOWNLOAD_MISMATCH, reproduce
from _cases import case
from _nips_fixture import sectioned_counts, write_nips_mirror
from kmdr._log import LOGGER
from kmdr.datasets import _registry

NIPS = "nips/nips_1-17.mat"
RCV1 = "rcv1/rcv1_train.multiclass.bz2"


def _no_download(entry, cache_dir):
    raise requests.ConnectionError(f"network disabled in tests ({entry.url})")


def write_rcv1(path: Path, *, n_samples: int = 15564, n_features: int = 47236, seed: int = 0):
    """A bz2 LIBSVM multiclass file of RCV1's shape: unit-norm tf-idf-like rows with about 20
    terms each, 51 of the 53 labels present (as in LIBSVM's training split)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(1, 52, n_samples)  # 1..51
    X = sp.random(n_samples, n_features, density=20 / n_features, random_state=rng, format="csr")
    X = sp.lil_matrix(X.multiply(1 / np.sqrt(X.multiply(X).sum(axis=1))))
    X[n_samples - 1, n_features - 1] = 0.5  # the last feature index occurs, as in the real file
    plain = path.with_suffix("")
    dump_svmlight_file(X, labels, str(plain), zero_based=False)
    path.write_bytes(bz2.compress(plain.read_bytes()))
    plain.unlink()
    return path


def pin_as_registered(monkeypatch, rel: str, path: Path) -> str:
    """Pin the registered file ``rel`` to the file at ``path``, in the form the registry pins the
    real file (a git blob id for NIPS's, a sha256 for RCV1's); returns the pin."""
    entry = _registry.registry()[rel]
    digest = _registry.file_hash(path, entry)
    pinned = dataclasses.replace(entry, known_hash=digest)
    monkeypatch.setitem(_registry.registry(), rel, pinned)
    return digest


def _one_byte_changed(path: Path) -> bytes:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    return bytes(data)


@pytest.fixture
def written(tmp_path):
    """The two test-written files, in a folder laid out as the mirror: {registered path: file}."""
    folder = tmp_path / "written"
    counts, words = sectioned_counts(200, seed=1)
    write_nips_mirror(folder, counts, words)
    (folder / "rcv1").mkdir()
    write_rcv1(folder / RCV1, n_samples=300, n_features=500)
    return {NIPS: folder / NIPS, RCV1: folder / RCV1}


def test_the_git_blob_id_is_git_hash_object(written):
    for path in written.values():
        git = subprocess.run(["git", "hash-object", str(path)], capture_output=True, text=True)
        assert _registry.git_blob_id(path) == git.stdout.strip()
    data = written[RCV1].read_bytes()
    header = f"blob {len(data)}\0".encode()
    assert _registry.git_blob_id(written[RCV1]) == hashlib.sha1(header + data).hexdigest()


@pytest.mark.parametrize(
    ("rel", "algorithm", "says"),
    [
        case(NIPS, "gitblob", **{**DAMAGED_MIRROR, "says": "gitblob mismatch for"}),
        case(RCV1, "sha256", **DAMAGED_MIRROR),
    ],
)
def test_a_file_one_byte_off_its_pin_is_refused_from_the_mirror(
    rel, algorithm, says, written, tmp_path, monkeypatch
):
    monkeypatch.setattr(_registry, "_download", _no_download)
    mirror, cache = written[rel].parents[1], tmp_path / "cache"
    real_pin = _registry.registry()[rel].known_hash
    # the test-written file is not the published one: the real pin refuses it
    with pytest.raises(kd.DataIntegrityError) as err:
        _registry.fetch(rel, dataset="x", data_dir=cache, mirror=mirror)
    assert "\n" not in str(err.value) and real_pin in str(err.value)
    # pinned as the real file is, it passes; one byte changed, it is refused
    pin = pin_as_registered(monkeypatch, rel, written[rel])
    assert pin.startswith("gitblob:") == (algorithm == "gitblob")
    written[rel].write_bytes(_one_byte_changed(written[rel]))
    found = _registry.file_hash(written[rel], _registry.registry()[rel])
    with pytest.raises(kd.DataIntegrityError) as err:
        _registry.fetch(rel, dataset="x", data_dir=cache, mirror=mirror)
    message = str(err.value)
    assert "\n" not in message and str(written[rel]) in message
    assert f"{says} {rel}: expected {pin}, got {found}" in message
    assert not (cache / rel).exists()  # nothing kept


@pytest.fixture
def source(written):
    """A local HTTP server serving the written files, standing for their public source; yields
    its base URL."""
    handler = functools.partial(
        http.server.SimpleHTTPRequestHandler, directory=str(written[NIPS].parents[1])
    )
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def _said(lines: list[str]):
    """What kmdr says (its logger's INFO records) while the block runs, appended to ``lines``."""
    logger = logging.getLogger(LOGGER)
    handler = logging.Handler(logging.INFO)
    handler.emit = lambda record: lines.append(record.getMessage())
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


@pytest.mark.parametrize(
    ("rel", "says"),
    [case(NIPS, **DOWNLOAD_MISMATCH), case(RCV1, **DOWNLOAD_MISMATCH)],
)
def test_a_download_one_byte_off_its_pin_is_refused_and_not_kept(
    rel, says, written, source, tmp_path, monkeypatch
):
    monkeypatch.setenv("KMDR_DOWNLOAD_PROGRESS", "0")
    entry = _registry.registry()[rel]
    pin = pin_as_registered(monkeypatch, rel, written[rel])
    served = dataclasses.replace(_registry.registry()[rel], url=f"{source}/{rel}")
    monkeypatch.setitem(_registry.registry(), rel, served)
    cache = tmp_path / "cache"
    # the right file downloads, is verified and kept; NIPS's sha256 is reported once verified
    said = []
    with _said(said):
        got = _registry.fetch(rel, dataset="x", data_dir=cache)
    assert got == cache / rel and got.read_bytes() == written[rel].read_bytes()
    reported = [line for line in said if "its sha256 is" in line]
    if entry.algorithm == "gitblob":
        assert reported == [f"{rel} matches its git blob id; its sha256 is {_registry.sha256(got)}"]
    else:
        assert reported == []
    got.unlink()
    # one byte changed at the source: refused in one line, and nothing kept in the cache
    written[rel].write_bytes(_one_byte_changed(written[rel]))
    found = _registry.file_hash(written[rel], served)
    with pytest.raises(kd.DataIntegrityError) as err:
        _registry.fetch(rel, dataset="x", data_dir=cache)
    message = " ".join(str(err.value).split())
    assert "\n" not in str(err.value) and f"{source}/{rel}" in message and rel in message
    assert pin in message and found.partition(":")[2] in message and says in message
    assert [p.name for p in (cache / rel).parent.iterdir()] == []  # nothing kept


@pytest.mark.slow
def test_make_reproduce_runs_nips_and_rcv1_from_a_mirror(tmp_path, monkeypatch, capsys):
    """``scripts/reproduce.py --only bmd09_table1 bmd09_fig1 lst17_rcv1`` (grids of one r) with
    the test-written files, pinned, in a temporary mirror: every experiment runs, none is
    skipped."""
    mirror = tmp_path / "mirror"
    counts, words = sectioned_counts(300, seed=0)
    write_nips_mirror(mirror, counts, words)
    (mirror / "rcv1").mkdir()
    write_rcv1(mirror / RCV1)
    pin_as_registered(monkeypatch, NIPS, mirror / NIPS)
    pin_as_registered(monkeypatch, RCV1, mirror / RCV1)
    monkeypatch.setattr(_registry, "_download", _no_download)
    monkeypatch.setenv(kd.MIRROR_ENV, str(mirror))
    monkeypatch.setenv(kd.DATA_DIR_ENV, str(tmp_path / "cache"))
    results = tmp_path / "results"
    names = ["bmd09_table1", "bmd09_fig1", "lst17_rcv1"]
    # one r, one repetition, few k-means iterations and no figures: what is checked is that
    # each experiment gets its data from the mirror and runs, not the paper's numbers
    small = ["r_grid=[10]", "repeats=1", "kmeans.n_init=1", "kmeans.max_iter=10", "figures=false"]
    args = ["--results", str(results), "--only", *names]
    with pytest.warns(UserWarning, match="300 terms occur in the 184 documents"):
        code = reproduce([*args, "--override", "n_jobs=1", "progress=false", *small])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "skipped" not in out.out.lower() or "0 skipped" in out.out.lower(), out.out
    table1 = pd.read_csv(results / "bmd09_table1" / "cells.csv")
    assert set(table1.dataset) == {"nips"} and (table1.n_samples == 184).all()
    assert set(table1.reducer) == {"leverage", "svd", "none"}
    scores = pd.read_csv(results / "bmd09_fig1" / "leverage_scores.csv")
    assert len(scores) == 300
    rcv1 = pd.read_csv(results / "lst17_rcv1" / "cells.csv")
    assert set(rcv1.dataset) == {"rcv1"} and (rcv1.n_samples == 15564).all()
    assert (rcv1.n_features == 47236).all() and (rcv1.n_clusters == 51).all()
    assert set(rcv1.reducer) == {"sparse_embedding", "sign", "sparsified", "none"}
    skipped = results / "SKIPPED.md"
    assert not skipped.exists() or not any(n in skipped.read_text() for n in names)
