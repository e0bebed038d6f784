"""Broken dataset plug-ins: each is one line naming the problem and the fix, raised when the data
is loaded, before any cell is computed; never a traceback; the other datasets still work.

The plug-ins are a real package on a temporary path (a module and its dist-info, found through
entry points as an installed package is); the commands are the real entry points (``kmdr`` in this
process, the installed console scripts in a subprocess where the exact stderr matters).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import _command as command
import kmdr.datasets as kd
from _bad_data import kmdr_fails, one_line
from _cases import case

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

# (entry point, words the one-line error must hold, what the plug-in's loader did, the fix). The
# guide lists each under "Writing or installing a plug-in".
INVALID = [
    ("rows_mismatch", "X has 6 rows but y has 5 labels", "X has more rows than y has labels",
     "return one label per row of X"),
    ("y_2d", "y is 2-D", "y is a column (2-D) instead of a 1-D array",
     "return y as a 1-D array (y.ravel())"),
    ("x_1d", "X is 1-D", "X is a 1-D array", "return X as a 2-D array, one row per sample"),
    ("x_3d", "X is 3-D", "X has three dimensions (images not flattened)",
     "flatten each sample into a row (X.reshape(len(X), -1)) and give image_shape"),
    ("x_empty", "X is empty (shape (0, 2))", "X has no rows", "return the data's rows"),
    ("no_features", "X is empty (shape (6, 0))", "X has no columns",
     "return the data's features"),
    ("x_list", "X is a builtins.list", "X is a Python list",
     "return X as a numpy array or a scipy.sparse CSR matrix"),
    ("complex_x", "X is complex", "X holds complex numbers, which k-means cannot cluster",
     "return real values (the modulus, or the real and imaginary parts as columns)"),
    ("object_x", "X has dtype object", "X is an array of Python objects",
     "convert X to float (np.asarray(X, dtype=float))"),
    ("str_x", "X has dtype str", "X holds strings", "convert X to numbers"),
    ("nan_x", "1 non-finite values (1 NaN, 0 inf)", "X holds NaN values",
     "fill or drop the missing values before returning X"),
    ("inf_x", "1 non-finite values (0 NaN, 1 inf)", "X holds infinite values",
     "replace or drop the infinite values before returning X"),
    ("sparse_nan", "1 non-finite values (1 NaN", "a sparse X stores NaN values",
     "fill or drop the missing values before returning X"),
    ("sparse_complex", "X is complex", "a sparse X holds complex numbers",
     "return real values (the modulus, or the real and imaginary parts as columns)"),
    ("coo_x", "X is a scipy.sparse COO matrix; give it as CSR", "X is a sparse COO matrix",
     "return X.tocsr()"),
    ("csc_x", "X is a scipy.sparse CSC matrix", "X is a sparse CSC matrix",
     "return X.tocsr()"),
    ("more_k_than_classes", "y has 2 classes but n_clusters is 3",
     "n_clusters is larger than the number of classes in y",
     "set n_clusters to the number of classes y holds"),
    ("fewer_k_than_classes", "y has 3 classes but n_clusters is 2",
     "n_clusters is smaller than the number of classes in y",
     "set n_clusters to the number of classes y holds"),
    ("labels_from_one", "not consecutive from 0 (they are 1, 2)", "the labels start at 1",
     "number the classes 0, 1, ..., k-1 (y - 1, or np.unique(y, return_inverse=True)[1])"),
    ("negative_labels", "negative labels (from -1)", "the labels are negative (-1 and 1)",
     "number the classes 0, 1, ..., k-1 (np.unique(y, return_inverse=True)[1])"),
    ("labels_with_a_gap", "they are 0, 2", "the labels skip a value (0 and 2)",
     "number the classes 0, 1, ..., k-1 (np.unique(y, return_inverse=True)[1])"),
    ("float_labels", "y has dtype float64", "the labels are floats",
     "return y as integers (y.astype(np.int64))"),
    ("labels_list", "y is a list", "the labels are a Python list",
     "return y as a numpy integer array"),
    ("one_class", "n_clusters is 1", "the dataset has one class: nothing to cluster",
     "give data with at least two classes"),
    ("fewer_samples_than_k", "2 samples for k=3 clusters",
     "the dataset has fewer rows than clusters", "give at least k rows"),
    ("float_k", "n_clusters is 2.0", "n_clusters is a float", "give n_clusters as an int"),
    ("feature_names_wrong", "feature_names has 3 names for 2 features",
     "feature_names does not give one name per column of X",
     "give one name per column, or feature_names=None"),
    ("image_shape_wrong", "image_shape (3, 3) does not hold the 2 features",
     "image_shape does not match the number of columns of X",
     "give the shape whose product is the number of columns, or image_shape=None"),
    ("catalog_lies", "the loader returned n_clusters=2 but its DatasetEntry declares n_clusters=3",
     "the plug-in's DatasetEntry declares another k than its loader returns",
     "make the DatasetEntry's n_clusters (and n_samples, n_features) what the loader returns"),
    ("a_tuple", "returned a builtins.tuple, not a kmdr.datasets.Dataset",
     "the loader returns (X, y) instead of a Dataset",
     "return kmdr.datasets.Dataset(name, X, y, n_clusters, ...)"),
    ("nothing", "returned a builtins.NoneType", "the loader returns nothing (None)",
     "return a kmdr.datasets.Dataset"),
]  # fmt: skip

# Plug-ins that cannot give a dataset at all: kmdr skips them with their reason (DatasetUnavailable)
# or refuses them (DatasetError), in one line.
BROKEN = [
    (
        "raises",
        kd.DatasetError,
        "RuntimeError: the lab's data server refused the connection (loader badplugin:raises)",
        "the plug-in's loader raised an exception (here, its data server refused it)",
        "fix what the exception names (the message gives its type, its text and the loader)",
    ),
    (
        "exits",
        kd.DatasetError,
        "SystemExit: 3 (loader badplugin:exits)",
        "the plug-in's loader called sys.exit",
        "raise an exception from the loader instead of exiting",
    ),
    (
        "noimport",
        kd.DatasetUnavailable,
        "failed to import (ModuleNotFoundError: No module named 'badplugin_nowhere'); fix or "
        "reinstall the package",
        "an installed plug-in's entry point names a module that does not exist",
        "reinstall the plug-in, or uninstall it (`pip uninstall NAME`)",
    ),
    (
        "importerror",
        kd.DatasetUnavailable,
        "failed to import (ImportError: badplugin_broken needs libfoo, which is not installed); "
        "fix or reinstall the package that declares it, or uninstall it",
        "an installed plug-in's module raises when imported, here because a library it needs is "
        "missing",
        "install what the message says is missing, or reinstall or uninstall the plug-in",
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


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "words"),
    [
        case(name, says=words, doing="plugin", cause=f"a plug-in dataset's loader: {cause}",
             fix=fix, id=name)
        for name, words, cause, fix in INVALID
    ],
)  # fmt: skip
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
        case(name, error, says=words, doing="plugin", cause=cause, fix=fix, id=name)
        for name, error, words, cause, fix in BROKEN
    ],
)
def test_a_broken_plugin_is_one_line_and_the_others_still_load(badplugin, name, error, words):
    with pytest.raises(error) as err:
        kd.load_dataset(name)
    assert words in one_line(str(err.value)) and name in str(err.value)
    assert kd.load_dataset("synth", n_samples=20, n_features=3, n_clusters=2).n_samples == 20


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="kmdr: custom skipped: dataset plug-in entry point",
            doing="plugin",
            cause="the run's dataset comes from an installed plug-in whose module does not import "
            "(the line gives the import error); nothing is computed",
            fix="install what the import error names, or reinstall or uninstall the plug-in",
        )
    ],
)
def test_kmdr_on_a_plugin_that_does_not_import_skips_in_one_line(says, badplugin, capsys, tmp_path):
    results = tmp_path / "r"
    argv = ["-cd", str(badplugin / "conf"), "dataset=importerror", f"results_dir={results}"]
    with pytest.raises(SystemExit) as exc:
        command.kmdr([*argv, "n_jobs=1", "progress=false"])
    out, err = capsys.readouterr()
    assert exc.value.code == 1 and "Traceback" not in out + err
    (line,) = err.splitlines()
    assert line.startswith(f"{says} importerror = ")
    assert "needs libfoo" in line and "reinstall" in line
    assert not list(results.rglob("cells.csv"))


def test_kmdr_data_lists_a_bad_plugin_in_one_line(badplugin, capsys):
    from kmdr.datasets.cli import main

    assert main(["synth", "rows_mismatch"]) == 1
    out, err = capsys.readouterr()
    assert "generated (SYNTHETIC)" in out and "Traceback" not in out + err
    (line,) = [line for line in err.splitlines() if line.startswith("ERROR")]
    assert line.startswith("ERROR dataset 'rows_mismatch': X has 6 rows but y has 5 labels")


@pytest.mark.slow
def test_the_installed_kmdr_data_prints_one_line_for_a_bad_plugin(badplugin):
    """The console script, in a subprocess, with the package on PYTHONPATH (``kmdr``'s line for
    the same dataset: test_an_invalid_plugin_dataset_is_one_line_everywhere[complex_x])."""
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(badplugin / "site"), *sys.path])}
    env.pop("HYDRA_FULL_ERROR", None)
    listed = subprocess.run(
        [str(bin_dir / "kmdr-data"), "complex_x"], env=env, capture_output=True, text=True
    )
    assert listed.returncode == 1 and "Traceback" not in listed.stderr
    assert "ERROR dataset 'complex_x': X is complex" in listed.stderr


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
