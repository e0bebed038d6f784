"""Bad data, bad data settings and broken dataset plug-ins: each is one line naming the problem and
the fix, raised when the data is loaded, before any cell is computed; never a traceback.

The plug-ins are a real package on a temporary path (a module and its dist-info, found through
entry points as an installed package is); the files are real files written to a temporary cache
or mirror; the commands are the real entry points (``kmdr`` in this process, the installed
console scripts in a subprocess where the exact stderr matters).
"""

from __future__ import annotations

import bz2
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import requests
import scipy.io as sio
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file

import kmdr.datasets as kd
from _data import mirror_of, real_file
from _nips_fixture import random_counts, real_docnames, write_nips_mat
from kmdr import listing
from kmdr.datasets import _registry
from kmdr.experiments import cli

fault = pytest.mark.fault


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """No download: a file not in the cache or mirror is missing at once, as offline."""

    def no_download(entry, cache_dir):
        raise requests.ConnectionError(f"network disabled in tests ({entry.url})")

    monkeypatch.setattr(_registry, "_download", no_download)


def one_line(message: str) -> str:
    assert "\n" not in message.strip() and "Traceback" not in message, message
    return message


def kmdr_fails(argv, capsys, results: Path) -> str:
    """Run ``kmdr`` (this process) and return its one error line; nothing may be written."""
    with pytest.raises(SystemExit) as exc:
        cli.main([*argv, f"results_dir={results}", "n_jobs=1", "progress=false"])
    out, err = capsys.readouterr()
    assert exc.value.code == 2, err
    assert err.count("\n") == 1 and err.startswith("kmdr: error: "), err
    assert "Traceback" not in out + err
    assert not results.exists()  # refused before any cell is computed
    return err


# --- plug-in datasets ---------------------------------------------------------------------------

PLUGIN = '''
"""A user's package of datasets, each wrong in one way."""

import numpy as np
import scipy.sparse as sp

from kmdr.datasets import Dataset, DatasetEntry

X6 = np.arange(12, dtype=float).reshape(6, 2) % 5
Y6 = np.array([0, 0, 0, 1, 1, 1])


def _ds(X, y=Y6, k=2, **extra):
    return Dataset("bad", X, y, k, extra.pop("feature_names", None), "test data", **extra)


def _with(value, at=(2, 1)):
    X = X6.copy()
    X[at] = value
    return X


def rows_mismatch():
    return _ds(X6, Y6[:5])


def y_2d():
    return _ds(X6, Y6.reshape(-1, 1))


def x_1d():
    return _ds(X6[:, 0])


def x_3d():
    return _ds(X6.reshape(6, 2, 1))


def x_empty():
    return _ds(np.empty((0, 2)), np.empty(0, dtype=np.int64))


def no_features():
    return _ds(np.empty((6, 0)))


def x_list():
    return _ds(X6.tolist())


def complex_x():
    return _ds(X6 + 1j)


def object_x():
    return _ds(X6.astype(object))


def str_x():
    return _ds(X6.astype(str))


def nan_x():
    return _ds(_with(np.nan))


def inf_x():
    return _ds(_with(-np.inf))


def sparse_nan():
    return _ds(sp.csr_matrix(_with(np.nan)))


def sparse_complex():
    return _ds(sp.csr_matrix(X6 + 2j))


def coo_x():
    return _ds(sp.coo_matrix(X6))


def csc_x():
    return _ds(sp.csc_matrix(X6))


def more_k_than_classes():
    return _ds(X6, Y6, k=3)


def fewer_k_than_classes():
    return _ds(X6, np.array([0, 0, 1, 1, 2, 2]), k=2)


def labels_from_one():
    return _ds(X6, Y6 + 1)


def negative_labels():
    return _ds(X6, np.array([-1, -1, -1, 1, 1, 1]))


def labels_with_a_gap():
    return _ds(X6, np.array([0, 0, 0, 2, 2, 2]))


def float_labels():
    return _ds(X6, Y6.astype(float))


def labels_list():
    return _ds(X6, Y6.tolist())


def one_class():
    return _ds(X6, np.zeros(6, dtype=np.int64), k=1)


def fewer_samples_than_k():
    return _ds(X6[:2], np.array([0, 1]), k=3)


def float_k():
    return _ds(X6, Y6, k=2.0)


def feature_names_wrong():
    return _ds(X6, feature_names=np.array(["a", "b", "c"]))


def image_shape_wrong():
    return _ds(X6, image_shape=(3, 3))


def a_tuple():
    return X6, Y6


def nothing():
    return None


def raises():
    raise RuntimeError("the lab's data server refused the connection")


def exits():
    import sys

    sys.exit(3)


def catalog_lies():
    return _ds(X6)


CATALOG_LIES = DatasetEntry(
    "catalog_lies", catalog_lies, "bundled", "Liar", n_samples=6, n_features=2, n_clusters=3
)

'''

BROKEN_MODULE = 'raise ImportError("badplugin_broken needs libfoo, which is not installed")\n'

# (entry point, words the one-line error must hold, what goes wrong as a user would say it)
INVALID = [
    ("rows_mismatch", "X has 6 rows but y has 5 labels", "a plug-in's X has more rows than y"),
    ("y_2d", "y is 2-D", "a plug-in's y is a column (2-D) instead of 1-D"),
    ("x_1d", "X is 1-D", "a plug-in's X is 1-D"),
    ("x_3d", "X is 3-D", "a plug-in's X is 3-D"),
    ("x_empty", "X is empty (shape (0, 2))", "a plug-in's X has no rows"),
    ("no_features", "X is empty (shape (6, 0))", "a plug-in's X has no features (n_features 0)"),
    ("x_list", "X is a builtins.list", "a plug-in's X is a Python list"),
    ("complex_x", "X is complex", "a plug-in's X is complex (silently cast to real today)"),
    ("object_x", "X has dtype object", "a plug-in's X has dtype object"),
    ("str_x", "X has dtype str", "a plug-in's X holds strings"),
    ("nan_x", "1 non-finite values (1 NaN, 0 inf)", "a plug-in's X holds NaN"),
    ("inf_x", "1 non-finite values (0 NaN, 1 inf)", "a plug-in's X holds inf"),
    ("sparse_nan", "1 non-finite values (1 NaN", "a plug-in's sparse X holds NaN"),
    ("sparse_complex", "X is complex", "a plug-in's sparse X is complex"),
    ("coo_x", "X is a scipy.sparse COO matrix; give it as CSR", "a plug-in's X is sparse COO"),
    ("csc_x", "X is a scipy.sparse CSC matrix", "a plug-in's X is sparse CSC, not CSR"),
    (
        "more_k_than_classes",
        "y has 2 classes but n_clusters is 3",
        "a plug-in's n_clusters is larger than its number of classes",
    ),
    (
        "fewer_k_than_classes",
        "y has 3 classes but n_clusters is 2",
        "a plug-in's n_clusters is smaller than its number of classes",
    ),
    ("labels_from_one", "not consecutive from 0 (they are 1, 2)", "a plug-in's labels start at 1"),
    ("negative_labels", "negative labels (from -1)", "a plug-in's labels are negative (-1/1)"),
    ("labels_with_a_gap", "they are 0, 2", "a plug-in's labels skip a value (0 and 2)"),
    ("float_labels", "y has dtype float64", "a plug-in's labels are floats"),
    ("labels_list", "y is a list", "a plug-in's labels are a Python list"),
    ("one_class", "n_clusters is 1", "a plug-in's dataset has one class"),
    (
        "fewer_samples_than_k",
        "2 samples for k=3 clusters",
        "a plug-in's dataset has fewer samples than k",
    ),
    ("float_k", "n_clusters is 2.0", "a plug-in's n_clusters is a float"),
    (
        "feature_names_wrong",
        "feature_names has 3 names for 2 features",
        "a plug-in's feature_names do not match its columns",
    ),
    (
        "image_shape_wrong",
        "image_shape (3, 3) does not hold the 2 features",
        "a plug-in's image_shape does not match its columns",
    ),
    (
        "catalog_lies",
        "the loader returned n_clusters=2 but its DatasetEntry declares n_clusters=3",
        "a plug-in's DatasetEntry declares another k than its loader returns",
    ),
    (
        "a_tuple",
        "returned a builtins.tuple, not a kmdr.datasets.Dataset",
        "a plug-in returns (X, y)",
    ),
    ("nothing", "returned a builtins.NoneType", "a plug-in's loader returns None"),
]

# Plug-ins that cannot give a dataset at all: kmdr skips them with their reason (DatasetUnavailable)
# or refuses them (DatasetError), in one line.
BROKEN = [
    (
        "raises",
        kd.DatasetError,
        "RuntimeError: the lab's data server refused the connection (loader badplugin:raises)",
        "a plug-in's loader raises",
    ),
    (
        "exits",
        kd.DatasetError,
        "SystemExit: 3 (loader badplugin:exits)",
        "a plug-in's loader calls sys.exit",
    ),
    (
        "noimport",
        kd.DatasetUnavailable,
        "failed to import (ModuleNotFoundError: No module named 'badplugin_nowhere'); fix or "
        "reinstall the package",
        "a plug-in's entry point names a module that does not exist",
    ),
    (
        "importerror",
        kd.DatasetUnavailable,
        "failed to import (ImportError: badplugin_broken needs libfoo, which is not installed); "
        "fix or reinstall the package that declares it, or uninstall it",
        "a plug-in's module raises when imported",
    ),
]


@pytest.fixture(scope="module")
def badplugin(tmp_path_factory):
    """The package on a temporary path, its entry points found by importlib.metadata; and a
    config folder with a ``dataset/<name>.yaml`` for each, as a user writes them."""
    root = tmp_path_factory.mktemp("badplugin")
    site, conf = root / "site", root / "conf"
    info = site / "badplugin-0.1.dist-info"
    info.mkdir(parents=True)
    (conf / "dataset").mkdir(parents=True)
    (site / "badplugin.py").write_text(PLUGIN)
    (site / "badplugin_broken.py").write_text(BROKEN_MODULE)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: badplugin\nVersion: 0.1\n")
    points = {name: f"badplugin:{name}" for name, *_ in INVALID}
    points["catalog_lies"] = "badplugin:CATALOG_LIES"
    points |= {"raises": "badplugin:raises", "exits": "badplugin:exits"}
    points |= {"noimport": "badplugin_nowhere:load", "importerror": "badplugin_broken:load"}
    lines = "".join(f"{name} = {value}\n" for name, value in points.items())
    (info / "entry_points.txt").write_text(f"[kmdr.datasets]\n{lines}")
    for name in points:
        (conf / "dataset" / f"{name}.yaml").write_text(f"name: {name}\nparams: {{}}\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(site))
        kd.reload_plugins()
        yield root
    for module in ("badplugin", "badplugin_broken"):
        sys.modules.pop(module, None)
    kd.reload_plugins()


def _invalid_params():
    return [
        pytest.param(name, words, id=name, marks=fault(case, gets=f"one line: {words} ..."))
        for name, words, case in INVALID
    ]


@pytest.mark.parametrize(("name", "words"), _invalid_params())
def test_an_invalid_plugin_dataset_is_one_line_everywhere(badplugin, name, words, capsys, tmp_path):
    # The library: a DatasetError naming the dataset, the problem and the loader.
    with pytest.raises(kd.DatasetError) as err:
        kd.load_dataset(name)
    message = one_line(str(err.value))
    assert message.startswith(f"dataset {name!r}: ") and words in message
    assert f"(loader badplugin:{name})" in message
    # kmdr: the same line, exit 2, before anything is written.
    line = kmdr_fails(["-cd", str(badplugin / "conf"), f"dataset={name}"], capsys, tmp_path / "r")
    assert line == f"kmdr: error: {message}\n"


@pytest.mark.parametrize(
    ("name", "error", "words"),
    [
        pytest.param(name, error, words, id=name, marks=fault(case, gets=f"one line: {words}"))
        for name, error, words, case in BROKEN
    ],
)
def test_a_broken_plugin_is_one_line_and_the_others_still_load(badplugin, name, error, words):
    with pytest.raises(error) as err:
        kd.load_dataset(name)
    assert words in one_line(str(err.value)) and name in str(err.value)
    assert kd.load_dataset("synth", n_samples=20, n_features=3, n_clusters=2).n_samples == 20


@fault(
    "kmdr run on a plug-in whose module fails to import",
    gets="one skip line naming the plug-in, the import error and the fix; exit 1, no cell",
)
def test_kmdr_on_a_plugin_that_does_not_import_skips_in_one_line(badplugin, capsys, tmp_path):
    results = tmp_path / "r"
    argv = ["-cd", str(badplugin / "conf"), "dataset=importerror", f"results_dir={results}"]
    with pytest.raises(SystemExit) as exc:
        cli.main([*argv, "n_jobs=1", "progress=false"])
    out, err = capsys.readouterr()
    assert exc.value.code == 1 and "Traceback" not in out + err
    (line,) = err.splitlines()
    assert line.startswith("kmdr: custom skipped: dataset plug-in 'importerror'")
    assert "needs libfoo" in line and "reinstall" in line
    assert not list(results.rglob("cells.csv"))


@fault(
    "kmdr-data on a plug-in that returns wrong shapes, beside a good dataset",
    gets="the good one is listed; one ERROR line for the bad one; exit 1",
)
def test_kmdr_data_lists_a_bad_plugin_in_one_line(badplugin, capsys):
    from kmdr.datasets.cli import main

    assert main(["synth", "rows_mismatch"]) == 1
    out, err = capsys.readouterr()
    assert "generated (SYNTHETIC)" in out and "Traceback" not in out + err
    (line,) = [line for line in err.splitlines() if line.startswith("ERROR")]
    assert line.startswith("ERROR dataset 'rows_mismatch': X has 6 rows but y has 5 labels")


def test_the_installed_commands_print_one_line_for_a_bad_plugin(badplugin, tmp_path):
    """The console scripts, in a subprocess, with the package on PYTHONPATH."""
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(badplugin / "site"), *sys.path])}
    env.pop("HYDRA_FULL_ERROR", None)
    args = ["-cd", str(badplugin / "conf"), "dataset=complex_x", f"results_dir={tmp_path / 'r'}"]
    args.append("n_jobs=1")
    run = subprocess.run(
        [str(bin_dir / "kmdr"), *args], env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr + run.stdout
    assert run.stderr.startswith("kmdr: error: dataset 'complex_x': X is complex")
    assert run.stderr.count("\n") == 1 and not (tmp_path / "r").exists()
    listed = subprocess.run(
        [str(bin_dir / "kmdr-data"), "complex_x"], env=env, capture_output=True, text=True
    )
    assert listed.returncode == 1 and "Traceback" not in listed.stderr
    assert "ERROR dataset 'complex_x': X is complex" in listed.stderr


# --- the synthetic generators' parameters ------------------------------------------------------

SYNTH_PARAMS = [
    ("synth", "n_samples", "0", "must be an integer >= 1, got 0", "synth n_samples=0"),
    ("synth", "n_samples", "-5", "must be an integer >= 1, got -5", "synth n_samples negative"),
    ("synth", "n_samples", "1.5", "must be an integer >= 1, got 1.5", "synth n_samples=1.5"),
    ("synth", "n_samples", "many", "got 'many'", "synth n_samples a string"),
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
def test_a_bad_generator_parameter_is_one_line(dataset, key, value, words, capsys, tmp_path):
    small = [] if key == "n_samples" else ["+dataset.params.n_samples=60"]
    argv = [f"dataset={dataset}", *small, f"+dataset.params.{key}={value}", "r_grid=[1]"]
    line = kmdr_fails(argv, capsys, tmp_path / "r")
    assert line.startswith(f"kmdr: error: dataset {dataset!r}: ") and words in line
    assert line.count(f"dataset {dataset!r}") == 1  # named once, not twice
    if "unknown" not in words and "n_clusters is" not in words:
        assert "defaults: n_samples=" in line  # the valid values, to fix it


# --- files: the cache, the mirror, and what is in them -----------------------------------------

COIL20 = "coil20/COIL20.mat"


def _put(folder: Path, rel: str, data: bytes) -> Path:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@fault(
    "data_dir (the data cache) names a file, not a folder",
    gets="kmdr: error: the data cache ... is a file, not a folder; point data_dir to a folder",
)
def test_data_dir_naming_a_file_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    not_a_folder = _put(tmp_path, "cache.txt", b"notes\n")
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
        _put(tmp_path, "mirorr", b"")
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
    _put(folder, COIL20, data)
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
    assert _registry.registry()[COIL20].sha256 in message
    line = kmdr_fails(["dataset=coil20"], capsys, tmp_path / "r")
    assert line == f"kmdr: error: dataset 'coil20': {message}\n"
    # kmdr-data: the same line, exit 1 even with --allow-missing (damaged is not missing).
    from kmdr.datasets.cli import main

    assert main(["coil20", "--allow-missing"]) == 1
    assert f"ERROR {message}" in capsys.readouterr().err


def _nips_cache(tmp_path: Path, nips_mat: bytes) -> Path:
    """A cache holding the real (hashed) NIPS labels and the given bytes as nips_1-17.mat."""
    cache = tmp_path / "cache"
    labels = "nips_metadata/nips17.labels"
    _put(cache, labels, real_file(labels, "nips").read_bytes())
    _put(cache, "nips/nips_1-17.mat", nips_mat)
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
                "the NIPS .mat in the cache is garbage (not a MAT file)",
                gets="one line naming the file: delete it and fetch it again (kmdr-data nips)",
            ),
        ),
        pytest.param(
            "truncated",
            marks=fault(
                "the NIPS .mat in the cache is cut short",
                gets="one line naming the file: delete it and fetch it again (kmdr-data nips)",
            ),
        ),
        pytest.param(
            "other variables",
            marks=fault(
                "the NIPS .mat in the cache is another MAT file (other variables)",
                gets="one line naming the file and the missing variable: delete, fetch again",
            ),
        ),
    ],
)
def test_an_unreadable_nips_file_is_one_line(content, tmp_path, monkeypatch, capsys):
    if content == "garbage":
        data = b"this is not a MAT file\n" * 40
    elif content == "truncated":
        whole = _stand_in_nips(tmp_path)
        data = whole[: len(whole) * 2 // 3]
    else:
        sio.savemat(tmp_path / "other.mat", {"fea": np.eye(3), "gnd": np.arange(3)})
        data = (tmp_path / "other.mat").read_bytes()
    cache = _nips_cache(tmp_path, data)
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
    "the RCV1 file (no published hash) in the cache is cut short",
    gets="one line naming the file: delete it and fetch it again (kmdr-data rcv1)",
)
def test_a_truncated_rcv1_file_is_one_line(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    X = sp.random(200, 30, density=0.2, random_state=rng, format="csr")
    plain = tmp_path / "plain"
    dump_svmlight_file(X, rng.integers(1, 4, 200), str(plain), zero_based=False)
    whole = bz2.compress(plain.read_bytes())
    cache = tmp_path / "cache"
    path = _put(cache, "rcv1/rcv1_train.multiclass.bz2", whole[: len(whole) // 2])
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


def test_valid_plugin_and_builtin_data_pass_unchanged(badplugin):
    """The check refuses only what breaks the contract, and returns the loader's own arrays."""
    ds = kd.load_dataset("synth", n_samples=30, n_features=4, n_clusters=3)
    again = kd.dataset_info("synth").loader(n_samples=30, n_features=4, n_clusters=3)
    assert np.array_equal(ds.X, again.X) and np.array_equal(ds.y, again.y)
    from kmdr.datasets._validate import check_dataset

    good = kd.Dataset("g", np.eye(4, dtype=np.float32), np.array([0, 1, 1, 0]), 2, None, "")
    assert check_dataset(good, "g", "test") is good  # float32 and int labels are fine
    sparse = kd.Dataset("s", sp.csr_array(np.eye(4)), np.array([0, 1, 1, 0], np.int32), 2, None, "")
    assert check_dataset(sparse, "s", "test") is sparse


@fault(
    "make reproduce with a damaged data file in the cache and no mirror",
    gets="[reproduce] one line naming the experiment, the file and the fix; exit 2",
)
def test_reproduce_stops_in_one_line_on_a_damaged_data_file(tmp_path):
    script = Path(__file__).resolve().parents[1] / "scripts" / "reproduce.py"
    cache = tmp_path / "cache"
    _put(cache, "orl/ORL_64x64.mat", b"MATLAB 5.0 MAT-file, cut short")
    env = {**os.environ, kd.DATA_DIR_ENV: str(cache), "KMDR_DOWNLOAD_PROGRESS": "0"}
    env.pop(kd.MIRROR_ENV, None)
    env["HTTPS_PROXY"] = env["https_proxy"] = "http://127.0.0.1:9"  # no download: refused at once
    args = ["--results", str(tmp_path / "r"), "--only", "bzmd14_orl", "--override", "n_jobs=1"]
    run = subprocess.run(
        [sys.executable, str(script), *args], env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 2 and "Traceback" not in run.stdout + run.stderr, run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    (line,) = lines
    assert line.startswith(f"[reproduce] bzmd14_orl: cached file {cache / 'orl/ORL_64x64.mat'}")
    assert "sha256 mismatch" in line and "remove it and fetch it again (kmdr-data orl)" in line


@fault(
    "a file in the data cache stands where a dataset's folder goes (cache/coil20 is a file)",
    gets="one line: cannot copy the file into the cache; make it a writable folder",
)
def test_a_cache_that_cannot_hold_the_file_is_one_line(tmp_path, monkeypatch):
    mirror = mirror_of(tmp_path / "mirror", COIL20, dataset="coil20")
    cache = tmp_path / "cache"
    _put(cache, "coil20", b"a stray file where the folder goes\n")
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    with pytest.raises(kd.DatasetError) as err:
        kd.load_dataset("coil20", data_dir=cache, mirror=mirror)
    message = one_line(str(err.value))
    assert message.startswith(f"cannot copy {mirror / COIL20} into the data cache as ")
    assert f"make {cache} a writable folder" in message
    assert (cache / "coil20").read_bytes() == b"a stray file where the folder goes\n"


@fault(
    "a garbage NIPS .mat in the mirror (no published hash to catch it)",
    gets="one line naming the cached copy and its mirror source: delete both, fetch again",
)
def test_a_garbage_nips_file_from_the_mirror_names_both_copies(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    _put(mirror, "nips/nips_1-17.mat", b"\x00garbage" * 50)
    labels = "nips_metadata/nips17.labels"
    _put(mirror, labels, real_file(labels, "nips").read_bytes())
    cache = tmp_path / "cache"
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    with pytest.raises(kd.DatasetError) as err:
        kd.load_dataset("nips", data_dir=cache, mirror=mirror)
    message = one_line(str(err.value))
    assert message.startswith(f"dataset 'nips': cannot read {cache / 'nips' / 'nips_1-17.mat'}")
    assert f"delete it (and its source in {mirror} if damaged too)" in message
