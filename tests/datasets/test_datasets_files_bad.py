"""Bad data settings, damaged or unreadable data files and bad generator parameters: each is one
line naming the problem and the fix, raised when the data is loaded, before any cell is computed;
never a traceback, and no data file removed behind the user's back.

The files are real files written to a temporary cache or mirror (damaged copies of the real
data, found as kmdr finds it); the commands are the real entry points.
"""

from __future__ import annotations

import bz2
from pathlib import Path

import numpy as np
import pytest
import requests
import scipy.io as sio
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file

import kmdr.datasets as kd
from _bad_data import kmdr_fails, one_line, put, reproduce
from _data import mirror_of, pin, real_file
from _nips_fixture import random_counts, real_docnames, write_nips_mat
from kmdr.app import listing
from kmdr.datasets import _registry

fault = pytest.mark.fault


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """No download: a file not in the cache or mirror is missing at once, as offline."""

    def no_download(entry, cache_dir):
        raise requests.ConnectionError(f"network disabled in tests ({entry.url})")

    monkeypatch.setattr(_registry, "_download", no_download)


# --- the synthetic generators' parameters ------------------------------------------------------

# (dataset, key, value, what the line says, case). A value of the wrong type fails when Hydra
# composes the config against the parameters' typed schema (the line names the key); a value out
# of range or a name added with '+' fails the generator's checks, before any work (the line names
# the dataset and gives the defaults).
SYNTH_PARAMS = [
    ("synth", "n_samples", "0", "must be an integer >= 1, got 0", "synth n_samples=0"),
    ("synth", "n_samples", "-5", "must be an integer >= 1, got -5", "synth n_samples negative"),
    ("synth", "std", "-1", "'std' must be a number >= 0.0", "synth std negative"),
    ("synth", "n_clusters", "1", "n_clusters is 1", "synth with one cluster"),
    ("synth", "n_clusters", "80", "'n_clusters' (80) must be <= 'n_samples' (60)", "synth k > n"),
    ("synth", "nosuch", "1", "unknown parameters ['nosuch']", "synth with an unknown parameter"),
    ("sparse_text", "n_samples", "0", "must be an integer >= 1", "sparse_text n_samples=0"),
    ("sparse_text", "topic_weight", "2", "'topic_weight' must be a number >= 0.0 and <= 1.0",
     "sparse_text topic_weight above 1"),
    ("sparse_text", "nosuch", "1", "unknown parameters ['nosuch']",
     "sparse_text with an unknown parameter"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("dataset", "key", "value", "words"),
    [
        pytest.param(
            *case[:4],
            id=f"{case[0]}-{case[1]}={case[2]}",
            marks=fault(f"kmdr dataset={case[4]}", gets=f"kmdr: error: ... {case[3]}; exit 2"),
        )
        for case in SYNTH_PARAMS
    ],
)
@pytest.mark.slow
def test_a_bad_generator_parameter_is_one_line(dataset, key, value, words, capsys, tmp_path):
    # the generators' parameters are typed keys: set without '+', added with '+' when unknown
    small = [] if key == "n_samples" else ["dataset.params.n_samples=60"]
    known = key in kd.dataset_info(dataset).params
    argv = [f"dataset={dataset}", *small, f"{'' if known else '+'}dataset.params.{key}={value}"]
    line = kmdr_fails([*argv, "r_grid=[1]"], capsys, tmp_path / "r")
    assert words in line
    if words.startswith("Value "):  # a type: Hydra's composition names the key
        assert line.startswith(f"kmdr: error: dataset.params.{key}: ")
        return
    assert line.startswith(f"kmdr: error: dataset {dataset!r}: ")
    assert line.count(f"dataset {dataset!r}") == 1  # named once, not twice
    if "n_clusters is" not in words:
        assert "defaults: n_samples=" in line  # the valid values, to fix it


# --- files: the cache, the mirror, and what is in them -----------------------------------------

COIL20 = "coil20/COIL20.mat"


@fault(
    "data_dir (the data cache) names a file, not a folder",
    gets="kmdr: error: the data cache ... is a file, not a folder; point data_dir to a folder",
)
def test_data_dir_naming_a_file_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    not_a_folder = put(tmp_path, "cache.txt", b"notes\n")
    with pytest.raises(kd.DatasetError, match="is a file, not a folder; point data_dir"):
        kd.load_dataset("coil20", data_dir=not_a_folder)
    assert kd.availability("coil20", data_dir=not_a_folder)[0] == "unavailable"
    line = kmdr_fails(["dataset=coil20", f"data_dir={not_a_folder}"], capsys, tmp_path / "r")
    assert f"the data cache {not_a_folder} is a file, not a folder" in line
    assert not_a_folder.read_bytes() == b"notes\n"  # untouched


@pytest.mark.parametrize(
    "kind",
    [
        pytest.param(
            "missing",
            marks=fault(
                "KMDR_DATA_MIRROR points to a folder that does not exist",
                gets="one line: the data mirror ... does not exist; point it to a folder or unset",
            ),
        ),
        pytest.param(
            "file",
            marks=fault(
                "KMDR_DATA_MIRROR points to a file",
                gets="one line: the data mirror ... is a file, not a folder",
            ),
        ),
    ],
)
def test_a_mirror_that_is_not_a_folder_is_one_line(kind, tmp_path, monkeypatch, capsys):
    mirror = tmp_path / "mirorr"
    if kind == "file":
        put(tmp_path, "mirorr", b"")
    monkeypatch.setenv(kd.MIRROR_ENV, str(mirror))
    monkeypatch.setenv(kd.DATA_DIR_ENV, str(tmp_path / "cache"))
    what = "does not exist" if kind == "missing" else "is a file, not a folder"
    expected = f"the data mirror {mirror} {what}; point KMDR_DATA_MIRROR"
    with pytest.raises(kd.DatasetError, match="the data mirror") as err:
        kd.load_dataset("coil20")
    assert expected in one_line(str(err.value))
    status, reason = kd.availability("coil20")
    assert status == "unavailable" and expected in reason
    assert expected in kmdr_fails(["dataset=coil20"], capsys, tmp_path / "r")
    # kmdr-list shows it in the dataset's row; generated data does not need the mirror.
    assert listing.main(["datasets"]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line}
    assert "unavailable" in rows["coil20"] and "unavailable" not in rows["synth"]


@pytest.mark.parametrize(
    ("where", "damage"),
    [
        pytest.param(
            "cache",
            "truncate",
            marks=fault(
                "a registered data file in the cache is cut short, with no mirror to replace it",
                gets="one line naming the file, both sha256 and the fix: remove it, fetch again",
            ),
        ),
        pytest.param(
            "cache",
            "edit",
            marks=fault(
                "a registered data file in the cache was edited (one byte changed)",
                gets="one line naming the file, both sha256 and the fix: remove it, fetch again",
            ),
        ),
        pytest.param(
            "mirror",
            "edit",
            marks=fault(
                "a registered data file in the mirror was edited (one byte changed)",
                gets="one line naming the mirror file and the fix: replace it or remove it",
            ),
        ),
        pytest.param(
            "mirror",
            "truncate",
            marks=fault(
                "a registered data file in the mirror is cut short",
                gets="one line naming the mirror file and the fix: replace it or remove it",
            ),
        ),
    ],
)
def test_a_damaged_data_file_is_one_line_with_the_fix(where, damage, tmp_path, monkeypatch, capsys):
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
    assert str(folder / COIL20) in message and "sha256 mismatch" in message and fix in message
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
    "content",
    [
        pytest.param(
            "garbage",
            marks=fault(
                "the NIPS .mat (its hash pinned by the user) in the cache is garbage (no MAT file)",
                gets="one line naming the file: delete it and fetch it again (kmdr-data nips)",
            ),
        ),
        pytest.param(
            "truncated",
            marks=fault(
                "the NIPS .mat (its hash pinned by the user) in the cache is cut short",
                gets="one line naming the file: delete it and fetch it again (kmdr-data nips)",
            ),
        ),
        pytest.param(
            "other variables",
            marks=fault(
                "the NIPS .mat (its hash pinned by the user) in the cache is another MAT file",
                gets="one line naming the file and the missing variable: delete, fetch again",
            ),
        ),
    ],
)
@pytest.mark.slow
def test_an_unreadable_nips_file_is_one_line(content, tmp_path, monkeypatch, capsys):
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
    assert message.endswith("delete it and fetch it again (kmdr-data nips)")
    if content == "other variables":
        assert "variable 'counts' not found" in message
    line = kmdr_fails(["experiment=bmd09_table1", "r_grid=[3]"], capsys, tmp_path / "r")
    assert line == f"kmdr: error: {message}\n"
    assert (cache / "nips" / "nips_1-17.mat").read_bytes() == data  # not removed behind the back


@fault(
    "the RCV1 file (its hash pinned by the user) in the cache is cut short",
    gets="one line naming the file: delete it and fetch it again (kmdr-data rcv1)",
)
def test_a_truncated_rcv1_file_is_one_line(tmp_path, monkeypatch):
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
    assert message.endswith("fetch it again (kmdr-data rcv1)")


@fault(
    "a plug-in 'file' dataset names a file that is not in the data registry",
    gets="skipped in one line: the file is not in the data registry",
)
def test_an_unregistered_file_is_unavailable_in_one_line(tmp_path):
    entry = kd.DatasetEntry(
        "far", lambda **kw: None, "file", "Far", files=("far/data.mat",), params={}
    )
    with pytest.raises(kd.DatasetUnavailable) as err:
        entry.load(data_dir=tmp_path)
    assert "far/data.mat is not in the data registry" in one_line(str(err.value))


@fault(
    "make reproduce with a damaged data file in the cache and no mirror",
    gets="[reproduce] one line naming the experiment, the file and the fix; exit 2",
)
def test_reproduce_stops_in_one_line_on_a_damaged_data_file(tmp_path, monkeypatch, capsys):
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
    assert "sha256 mismatch" in line and "remove it and fetch it again (kmdr-data orl)" in line


@fault(
    "a file in the data cache stands where a dataset's folder goes (cache/coil20 is a file)",
    gets="one line: cannot copy the file into the cache; make it a writable folder",
)
def test_a_cache_that_cannot_hold_the_file_is_one_line(tmp_path, monkeypatch):
    mirror = mirror_of(tmp_path / "mirror", COIL20, dataset="coil20")
    cache = tmp_path / "cache"
    put(cache, "coil20", b"a stray file where the folder goes\n")
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    with pytest.raises(kd.DatasetError) as err:
        kd.load_dataset("coil20", data_dir=cache, mirror=mirror)
    message = one_line(str(err.value))
    assert message.startswith(f"cannot copy {mirror / COIL20} into the data cache as ")
    assert f"make {cache} a writable folder" in message
    assert (cache / "coil20").read_bytes() == b"a stray file where the folder goes\n"


@fault(
    "a garbage NIPS .mat in the mirror (its hash pinned by the user)",
    gets="one line naming the cached copy and its mirror source: delete both, fetch again",
)
def test_a_garbage_nips_file_from_the_mirror_names_both_copies(tmp_path, monkeypatch):
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
    assert f"delete it (and its source in {mirror} if damaged too)" in message
