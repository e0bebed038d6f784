"""Bad data settings, damaged or unreadable data files and bad generator parameters: each is one
line naming the problem and the fix, raised when the data is loaded, before any cell is computed;
never a traceback, and no data file removed behind the user's back.

The files are real files written to a temporary cache or mirror (damaged copies of the real
data, found as kmdr finds it); the commands are the real entry points.
"""

from __future__ import annotations

import bz2
import re
from pathlib import Path

import numpy as np
import pytest
import requests
import scipy.io as sio
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file

import kmdr.datasets as kd
from _bad_data import (
    DAMAGED_CACHE,
    DAMAGED_MIRROR,
    PARAM_CLUSTERS_ROWS,
    PARAM_RANGE,
    PARAM_UNKNOWN,
    UNREADABLE,
    UNREGISTERED,
    kmdr_fails,
    one_line,
    put,
    reproduce,
)
from _cases import case
from _data import mirror_of, pin, real_file
from _nips_fixture import random_counts, real_docnames, write_nips_mat
from kmdr.app import listing
from kmdr.datasets import _registry


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """No download: a file not in the cache or mirror is missing at once, as offline."""

    def no_download(entry, cache_dir):
        raise requests.ConnectionError(f"network disabled in tests ({entry.url})")

    monkeypatch.setattr(_registry, "_download", no_download)


# --- the synthetic generators' parameters ------------------------------------------------------


# A value out of range or a name added with '+' fails the generator's checks, before any work
# (the line names the dataset and gives the defaults, or the valid names).
@pytest.mark.parametrize(
    ("dataset", "key", "value", "words"),
    [
        case("synth", "n_samples", "0", says="parameter 'n_samples' must be an integer >= 1",
             **PARAM_RANGE),
        case("synth", "n_samples", "-5", says="parameter 'n_samples' must be an integer >= 1",
             **PARAM_RANGE),
        case("synth", "std", "-1", says="parameter 'std' must be a number >= 0.0", **PARAM_RANGE),
        case("synth", "n_clusters", "1",
             says="n_clusters is 1: a dataset with fewer than two classes has nothing to cluster",
             doing="configure",
             cause="the data has a single class (here synth with dataset.params.n_clusters=1): "
             "there is nothing to cluster and no accuracy to score",
             fix="give data with at least two classes (dataset.params.n_clusters=2 or more)"),
        case("synth", "n_clusters", "80",
             **PARAM_CLUSTERS_ROWS),
        case("synth", "nosuch", "1", **PARAM_UNKNOWN),
        case("sparse_text", "n_samples", "0", says="parameter 'n_samples' must be an integer >= 1",
             **PARAM_RANGE),
        case("sparse_text", "topic_weight", "2",
             says="parameter 'topic_weight' must be a number >= 0.0 and <= 1.0", **PARAM_RANGE),
        case("sparse_text", "nosuch", "1", **PARAM_UNKNOWN),
        case("mixture", "ratio", "1.5",
             says="parameter 'ratio' must be a number > 0.0 and <= 1.0", **PARAM_RANGE),
        case("mixture", "spread", "0", says="parameter 'spread' must be a number > 0.0",
             **PARAM_RANGE),
        case("mixture", "nosuch", "1", **PARAM_UNKNOWN),
    ],
)  # fmt: skip
@pytest.mark.slow
def test_a_bad_generator_parameter_is_one_line(dataset, key, value, words, capsys, tmp_path):
    # the generators' parameters are typed keys: set without '+', added with '+' when unknown
    small = [] if key == "n_samples" else ["dataset.params.n_samples=60"]
    known = key in kd.dataset_info(dataset).params
    argv = [f"dataset={dataset}", *small, f"{'' if known else '+'}dataset.params.{key}={value}"]
    line = kmdr_fails([*argv, "r_grid=[1]"], capsys, tmp_path / "r")
    assert words in line and key in line
    if "must be a" in words:
        assert f"got {value}" in line  # the value given
    if words.startswith("Value "):  # a type: Hydra's composition names the key
        assert line.startswith(f"kmdr: error: dataset.params.{key}: ")
        return
    assert line.startswith(f"kmdr: error: dataset {dataset!r}: ")
    assert line.count(f"dataset {dataset!r}") == 1  # named once, not twice
    if "n_clusters is" not in words:
        assert "defaults: n_samples=" in line  # the valid values, to fix it


# --- files: the cache, the mirror, and what is in them -----------------------------------------

COIL20 = "coil20/COIL20.mat"


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="is a file, not a folder; point data_dir (or KMDR_DATA_DIR) to a folder",
            doing="data",
            cause="the data cache (data_dir=, or the KMDR_DATA_DIR variable) names a file",
            fix="point data_dir or KMDR_DATA_DIR to a folder (it is made if missing), or unset "
            "them to use the default cache",
        )
    ],
)
def test_data_dir_naming_a_file_is_one_line(says, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    not_a_folder = put(tmp_path, "cache.txt", b"notes\n")
    with pytest.raises(kd.DatasetError, match=re.escape(says)):
        kd.load_dataset("coil20", data_dir=not_a_folder)
    assert kd.availability("coil20", data_dir=not_a_folder)[0] == "unavailable"
    line = kmdr_fails(["dataset=coil20", f"data_dir={not_a_folder}"], capsys, tmp_path / "r")
    assert f"the data cache {not_a_folder} is a file, not a folder" in line
    assert not_a_folder.read_bytes() == b"notes\n"  # untouched


@pytest.mark.parametrize(
    ("kind", "says"),
    [
        case(
            "missing",
            says="does not exist; point KMDR_DATA_MIRROR (or mirror) to a folder",
            doing="data",
            cause="KMDR_DATA_MIRROR (or the mirror argument) names a folder that does not exist",
            fix="correct the path, or unset KMDR_DATA_MIRROR to download the files instead",
        ),
        case(
            "file",
            says="is a file, not a folder; point KMDR_DATA_MIRROR (or mirror) to a folder",
            doing="data",
            cause="KMDR_DATA_MIRROR (or the mirror argument) names a file, not the folder that "
            "holds the data files",
            fix="point it to the folder holding the data files, or unset it to download them",
        ),
    ],
)
def test_a_mirror_that_is_not_a_folder_is_one_line(kind, says, tmp_path, monkeypatch, capsys):
    mirror = tmp_path / "mirorr"
    if kind == "file":
        put(tmp_path, "mirorr", b"")
    monkeypatch.setenv(kd.MIRROR_ENV, str(mirror))
    monkeypatch.setenv(kd.DATA_DIR_ENV, str(tmp_path / "cache"))
    what = "does not exist" if kind == "missing" else "is a file, not a folder"
    expected = f"the data mirror {mirror} {what}; point KMDR_DATA_MIRROR"
    with pytest.raises(kd.DatasetError, match="the data mirror") as err:
        kd.load_dataset("coil20")
    assert expected in one_line(str(err.value)) and says in str(err.value)
    status, reason = kd.availability("coil20")
    assert status == "unavailable" and expected in reason
    assert expected in kmdr_fails(["dataset=coil20"], capsys, tmp_path / "r")
    # kmdr-list shows it in the dataset's row; generated data does not need the mirror.
    assert listing.main(["datasets"]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line}
    assert "unavailable" in rows["coil20"] and "unavailable" not in rows["synth"]


@pytest.mark.parametrize(
    ("where", "damage", "says"),
    [
        case("cache", "truncate", **DAMAGED_CACHE),
        case("cache", "edit", **DAMAGED_CACHE),
        case("mirror", "edit", **DAMAGED_MIRROR),
        case("mirror", "truncate", **DAMAGED_MIRROR),
    ],
)
def test_a_damaged_data_file_is_one_line_with_the_fix(
    where, damage, says, tmp_path, monkeypatch, capsys
):
    real = real_file(COIL20, "coil20").read_bytes()
    data = (
        real[: len(real) // 2]
        if damage == "truncate"
        else real[:99] + bytes([real[99] ^ 0xFF]) + real[100:]
    )
    folder = tmp_path / where
    put(folder, COIL20, data)
    monkeypatch.setenv(kd.DATA_DIR_ENV, str(tmp_path / "cache"))
    if where == "mirror":
        monkeypatch.setenv(kd.MIRROR_ENV, str(folder))
        fix = "the mirror's copy is damaged or another file: replace it"
    else:
        monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
        fix = "remove it and fetch it again (kmdr-data coil20)"
    with pytest.raises(kd.DataIntegrityError) as err:
        kd.load_dataset("coil20")
    message = one_line(str(err.value))
    assert str(folder / COIL20) in message and f"{says} {COIL20}" in message and fix in message
    assert _registry.registry()[COIL20].known_hash in message
    line = kmdr_fails(["dataset=coil20"], capsys, tmp_path / "r")
    assert line == f"kmdr: error: dataset 'coil20': {message}\n"
    # kmdr-data: the same line, exit 1 even with --allow-missing (damaged is not missing).
    from kmdr.datasets.cli import main

    assert main(["coil20", "--allow-missing"]) == 1
    assert f"ERROR {message}" in capsys.readouterr().err


def _nips_cache(tmp_path: Path, nips_mat: bytes, monkeypatch) -> Path:
    """A cache holding the real (hashed) NIPS labels and the given bytes as nips_1-17.mat, pinned
    (unpinned, kmdr refuses the file before its loader reads it)."""
    cache = tmp_path / "cache"
    labels = "nips_metadata/nips17.labels"
    put(cache, labels, real_file(labels, "nips").read_bytes())
    pin(monkeypatch, "nips/nips_1-17.mat", put(cache, "nips/nips_1-17.mat", nips_mat))
    return cache


def _stand_in_nips(tmp_path: Path) -> bytes:
    n_docs = len(real_docnames())
    words = [f"w{i}" for i in range(50)]
    path = write_nips_mat(tmp_path / "n.mat", random_counts(50, n_docs), words, real_docnames())
    return path.read_bytes()


@pytest.mark.parametrize(
    ("content", "says"),
    [
        case("garbage", **UNREADABLE),
        case("truncated", **UNREADABLE),
        case("other variables", **UNREADABLE),
    ],
)
@pytest.mark.slow
def test_an_unreadable_nips_file_is_one_line(content, says, tmp_path, monkeypatch, capsys):
    if content == "garbage":
        data = b"this is not a MAT file\n" * 40
    elif content == "truncated":
        whole = _stand_in_nips(tmp_path)
        data = whole[: len(whole) * 2 // 3]
    else:
        sio.savemat(tmp_path / "other.mat", {"fea": np.eye(3), "gnd": np.arange(3)})
        data = (tmp_path / "other.mat").read_bytes()
    cache = _nips_cache(tmp_path, data, monkeypatch)
    monkeypatch.setenv(kd.DATA_DIR_ENV, str(cache))
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    with pytest.raises(kd.DatasetError) as err:
        kd.load_dataset("nips")
    message = one_line(str(err.value))
    assert message.startswith(f"dataset 'nips': cannot read {cache / 'nips' / 'nips_1-17.mat'}: ")
    assert says in message and message.endswith("delete it and fetch it again (kmdr-data nips)")
    if content == "other variables":
        assert "variable 'counts' not found" in message
    line = kmdr_fails(["experiment=bmd09_table1", "r_grid=[3]"], capsys, tmp_path / "r")
    assert line == f"kmdr: error: {message}\n"
    assert (cache / "nips" / "nips_1-17.mat").read_bytes() == data  # not removed behind the back


@pytest.mark.parametrize("says", [case(**UNREADABLE)])
def test_a_truncated_rcv1_file_is_one_line(says, tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    X = sp.random(200, 30, density=0.2, random_state=rng, format="csr")
    plain = tmp_path / "plain"
    dump_svmlight_file(X, rng.integers(1, 4, 200), str(plain), zero_based=False)
    whole = bz2.compress(plain.read_bytes())
    cache = tmp_path / "cache"
    path = put(cache, "rcv1/rcv1_train.multiclass.bz2", whole[: len(whole) // 2])
    pin(monkeypatch, "rcv1/rcv1_train.multiclass.bz2", path)
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    with pytest.raises(kd.DatasetError) as err:
        kd.load_dataset("rcv1", data_dir=cache)
    message = one_line(str(err.value))
    assert message.startswith(f"dataset 'rcv1': cannot read {path}: ")
    assert says in message and message.endswith("fetch it again (kmdr-data rcv1)")


@pytest.mark.parametrize("says", [case(**UNREGISTERED)])
def test_an_unregistered_file_is_unavailable_in_one_line(says, tmp_path):
    entry = kd.DatasetEntry(
        "far", lambda **kw: None, "file", "Far", files=("far/data.mat",), params={}
    )
    with pytest.raises(kd.DatasetUnavailable) as err:
        entry.load(data_dir=tmp_path)
    assert f"far/data.mat {says}" in one_line(str(err.value))


@pytest.mark.parametrize("says", [case(**DAMAGED_CACHE)])
def test_reproduce_stops_in_one_line_on_a_damaged_data_file(says, tmp_path, monkeypatch, capsys):
    # the script's main in this process (its process is tested in tests/engine); the download
    # is refused at once (the ``offline`` fixture)
    cache = tmp_path / "cache"
    put(cache, "orl/ORL_64x64.mat", b"MATLAB 5.0 MAT-file, cut short")
    monkeypatch.setenv(kd.DATA_DIR_ENV, str(cache))
    monkeypatch.setenv("KMDR_DOWNLOAD_PROGRESS", "0")
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    args = ["--results", str(tmp_path / "r"), "--only", "bzmd14_orl", "--override", "n_jobs=1"]
    code = reproduce(args)
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in out + err, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    (line,) = lines
    # the command line's line (kmdr experiment=bzmd14_orl), named by the experiment
    cached = cache / "orl/ORL_64x64.mat"
    assert line.startswith(f"[reproduce] bzmd14_orl: dataset 'orl': cached file {cached}")
    assert says in line and "remove it and fetch it again (kmdr-data orl)" in line


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="cannot copy",
            doing="data",
            cause="a data file could not be copied from the mirror into the data cache: the "
            "cache is not writable, is full, or a file stands where a dataset's folder goes",
            fix="make the cache folder the message names writable, with room for the file (move "
            "a stray file away), or point KMDR_DATA_DIR to another folder",
        )
    ],
)
def test_a_cache_that_cannot_hold_the_file_is_one_line(says, tmp_path, monkeypatch):
    mirror = mirror_of(tmp_path / "mirror", COIL20, dataset="coil20")
    cache = tmp_path / "cache"
    put(cache, "coil20", b"a stray file where the folder goes\n")
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    with pytest.raises(kd.DatasetError) as err:
        kd.load_dataset("coil20", data_dir=cache, mirror=mirror)
    message = one_line(str(err.value))
    assert message.startswith(f"{says} {mirror / COIL20} into the data cache as ")
    assert f"make {cache} a writable folder" in message
    assert (cache / "coil20").read_bytes() == b"a stray file where the folder goes\n"


@pytest.mark.parametrize("says", [case(**UNREADABLE)])
def test_a_garbage_nips_file_from_the_mirror_names_both_copies(says, tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    pin(monkeypatch, "nips/nips_1-17.mat", put(mirror, "nips/nips_1-17.mat", b"\x00garbage" * 50))
    labels = "nips_metadata/nips17.labels"
    put(mirror, labels, real_file(labels, "nips").read_bytes())
    cache = tmp_path / "cache"
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    with pytest.raises(kd.DatasetError) as err:
        kd.load_dataset("nips", data_dir=cache, mirror=mirror)
    message = one_line(str(err.value))
    assert message.startswith(f"dataset 'nips': cannot read {cache / 'nips' / 'nips_1-17.mat'}")
    assert says in message and f"delete it (and its source in {mirror} if damaged too)" in message
