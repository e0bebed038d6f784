"""``dataset=file``: a user's data file, each format written here by its own library, read back
as the data it holds, run as a new user runs it (its cells reused by the same command, computed
again when one value of the file changes), and each bad input refused in one line naming the
file, exit 2, nothing written."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
import scipy.io as sio
import scipy.sparse as sp

import kmdr.datasets as kd
from _bad_data import kmdr_fails, one_line
from _cases import case
from _command import run_kmdr

RNG = np.random.default_rng(7)
#: 3 well-separated blobs of 8 rows, 6 features; labels given as text to show they are mapped.
X = np.vstack([RNG.normal(5.0 * i, 0.3, (8, 6)) for i in range(3)])
NAMES = np.repeat(["ant", "bee", "cat"], 8)
Y = np.repeat([0, 1, 2], 8)


def _frame(X, y):
    import pandas as pd

    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    if y is not None:
        frame["kind"] = y
    return frame


def write_npy(path, X, y):
    np.save(path, X)


def write_npz(path, X, y):
    np.savez(path, X=X, y=y)


def write_csv(path, X, y):
    _frame(X, y).to_csv(path, index=False)


def write_parquet(path, X, y):
    _frame(X, y).to_parquet(path)


def write_mat(path, X, y):
    sio.savemat(path, {"X": X, "y": np.asarray(y).reshape(-1, 1)})


def write_mat73(path, X, y):
    """A MATLAB v7.3 file: HDF5 behind MATLAB's 128-byte header (version 0x0200), arrays stored
    column-major as MATLAB writes them."""
    import h5py

    with h5py.File(path, "w", userblock_size=512) as f:
        f["X"] = np.asarray(X).T
        f["y"] = np.asarray(y, dtype=float).reshape(1, -1)
    header = b"MATLAB 7.3 MAT-file, written by a test".ljust(116) + b"\0" * 8 + b"\x00\x02IM"
    with open(path, "r+b") as f:
        f.write(header)


def write_svmlight(path, X, y):
    from sklearn.datasets import dump_svmlight_file

    dump_svmlight_file(sp.csr_matrix(X), y, str(path))


# (writer, file name, labels as written, the label parameter)
FORMATS = [
    pytest.param(write_npy, "data.npy", None, [], id="npy"),
    pytest.param(write_npz, "data.npz", Y, [], id="npz"),
    pytest.param(write_csv, "data.csv", NAMES, ["dataset.params.label=kind"], id="csv"),
    pytest.param(write_parquet, "data.parquet", NAMES, ["dataset.params.label=kind"], id="pqt"),
    pytest.param(write_mat, "data.mat", Y + 1, [], id="mat"),
    pytest.param(write_mat73, "data73.mat", Y + 1, [], id="mat-v7.3"),
    pytest.param(write_svmlight, "data.svm", Y, [], id="svmlight"),
]


def _params(args: list[str]) -> dict:
    return dict(a.removeprefix("dataset.params.").split("=") for a in args)


@pytest.mark.parametrize(("write", "name", "y", "label"), FORMATS)
def test_each_format_reads_back_its_data(write, name, y, label, tmp_path):
    path = tmp_path / name
    write(path, X, y)
    params = _params(label)
    if y is None:
        params["n_clusters"] = 3
    ds = kd.load_dataset("file", path=str(path), **params)
    dense = ds.X.toarray() if sp.issparse(ds.X) else ds.X
    np.testing.assert_allclose(dense, X, rtol=1e-6)  # svmlight writes 16 significant digits
    assert ds.n_clusters == 3
    assert sp.issparse(ds.X) == name.endswith(".svm")
    if y is None:
        assert not ds.labeled
    else:
        np.testing.assert_array_equal(ds.y, Y)  # text or 1-based: numbered 0..k-1, sorted
    assert ds.fingerprint.startswith("file:")
    assert kd.sha256(path) in ds.description and str(path) in ds.description


def test_n_clusters_overrides_the_number_of_classes(tmp_path):
    write_npz(tmp_path / "d.npz", X, Y)
    ds = kd.load_dataset("file", path=str(tmp_path / "d.npz"), n_clusters=4)
    assert ds.n_clusters == 4 and ds.labeled


def test_an_edited_value_changes_the_fingerprint_and_moving_nothing_keeps_it(tmp_path):
    path = tmp_path / "d.csv"
    write_csv(path, X, NAMES)
    first = kd.load_dataset("file", path=str(path), label="kind").fingerprint
    assert kd.load_dataset("file", path=str(path), label="kind").fingerprint == first
    Z = X.copy()
    Z[3, 2] += 1.0
    write_csv(path, Z, NAMES)
    assert kd.load_dataset("file", path=str(path), label="kind").fingerprint != first


def _cells(folder: Path) -> list[dict]:
    with open(folder / "custom" / "cells.csv", newline="") as f:
        return list(csv.DictReader(f))


RUN = ["reducer=[sign,svd]", "r_grid=[2,4]", "repeats=1", "n_jobs=1", "progress=false",
       "figures=false"]  # fmt: skip


@pytest.mark.slow  # computes the cells three times
@pytest.mark.parametrize(("write", "name", "y", "label"), FORMATS)
def test_a_new_user_runs_the_file_reuses_then_recomputes_after_an_edit(
    write, name, y, label, tmp_path
):
    path = tmp_path / name
    write(path, X, y)
    args = ["dataset=file", f"dataset.params.path={path}", *label, *RUN, "results_dir=out"]
    if y is None:
        args.append("dataset.params.n_clusters=3")
    first = run_kmdr(args, tmp_path)
    assert first.returncode == 0, first.stderr
    cells = _cells(tmp_path / "out")
    assert len(cells) == 4 and {c["reducer"] for c in cells} == {"sign", "svd"}
    assert all(float(c["objective"]) > 0 for c in cells)
    again = run_kmdr(args, tmp_path)
    assert again.returncode == 0 and "(0 computed, 4 reused)" in again.stderr + again.stdout
    assert _cells(tmp_path / "out") == cells
    Z = X.copy()
    Z[0, 0] += 0.5
    write(path, Z, y)
    edited = run_kmdr(args, tmp_path)
    assert edited.returncode == 0 and "(4 computed, 0 reused)" in edited.stderr + edited.stdout
    assert len({c["data_fingerprint"] for c in _cells(tmp_path / "out")}) == 2


@pytest.mark.slow  # computes cells and draws the figure
def test_an_unlabeled_file_is_scored_on_F_alone_and_the_figure_says_so(tmp_path, monkeypatch):
    import matplotlib.figure

    path = tmp_path / "u.npy"
    write_npy(path, X, None)
    texts = []
    save = matplotlib.figure.Figure.savefig

    def keep_texts(fig, *args, **kwargs):  # what the drawn figure shows, as it is saved
        texts.extend(t.get_text() for ax in fig.axes for t in ax.texts)
        return save(fig, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", keep_texts)
    args = ["dataset=file", f"dataset.params.path={path}", "dataset.params.n_clusters=3",
            *RUN[:-1], "results_dir=out"]  # fmt: skip
    proc = run_kmdr(args, tmp_path)
    assert proc.returncode == 0, proc.stderr
    cells = _cells(tmp_path / "out")
    assert all(float(c["objective"]) > 0 for c in cells)
    for metric in ("accuracy", "nmi", "ari"):
        assert all(np.isnan(float(c[metric])) for c in cells), metric
    assert any("no labels" in t and "F only" in t for t in texts), texts
    assert (tmp_path / "out" / "custom" / "figures" / "custom.png").is_file()


# --- bad input: one line naming the file and the fix, exit 2, no folder ---------------------


def _nan(path):
    Z = X.copy()
    Z[1, 1] = np.nan
    write_csv(path, Z, NAMES)


def _inf(path):
    Z = X.copy()
    Z[2, 0] = np.inf
    np.savez(path, X=Z, y=Y)


BAD = [
    case(None, "missing.csv", [], says="missing.csv: does not exist; give the path of a data file",
         doing="data", cause="dataset.params.path names no file (a typo, or a path relative to "
         "another folder than the one kmdr runs in)",
         fix="give the file's path, absolute or relative to where you run kmdr",
         id="missing"),
    case(lambda p: p.write_text("1 2\n"), "data.txt", [],
         says="unknown extension '.txt'; save it as one of", doing="data",
         cause="dataset=file reads a file by its suffix, and this one is none it reads",
         fix="save the data as .npy, .npz, .csv, .parquet, .mat or svmlight (.svm)",
         id="extension"),
    case(lambda p: p.write_bytes(b"not numpy at all"), "data.npy", ["dataset.params.n_clusters=2"],
         says="cannot be read as .npy", doing="data",
         cause="the file's content is not in the format its suffix says (damaged, or renamed)",
         fix="save it again with its format's library (numpy.save, DataFrame.to_csv, ...)",
         id="unreadable"),
    case(lambda p: write_csv(p, X, NAMES), "data.csv", ["dataset.params.label=class"],
         says="no column 'class' (its columns:", doing="data",
         cause="dataset.params.label names a column the table does not have",
         fix="name the label column as the file's header spells it, or leave the label out for "
         "unlabeled data (then give dataset.params.n_clusters)",
         id="label-column"),
    case(_nan, "data.csv", ["dataset.params.label=kind"],
         says="1 NaN value(s) in the matrix; remove or impute them", doing="data",
         cause="k-means has no distance to a missing value",
         fix="drop the rows or columns with missing values, or impute them "
         "(sklearn.impute.SimpleImputer), and save the file again",
         id="nan"),
    case(_inf, "data.npz", [], says="1 infinite value(s) in the matrix", doing="data",
         cause="an infinite value makes every distance to its row infinite",
         fix="replace or drop the infinite values and save the file again", id="inf"),
    case(lambda p: write_npz(p, X[[0, 8]], Y[[0, 8]]), "data.npz", ["dataset.params.n_clusters=3"],
         says="2 rows for k=3 clusters; give at least k rows", doing="data",
         cause="k-means needs at least as many rows as clusters",
         fix="give more rows, or a smaller dataset.params.n_clusters", id="rows-below-k"),
    case(lambda p: write_csv(p, X, np.repeat("ant", 24)), "data.csv",
         ["dataset.params.label=kind"], says="every row has the one label 'ant'", doing="data",
         cause="the label column holds one class: there is nothing to cluster it against",
         fix="give labels of at least two classes, or leave the label out and set "
         "dataset.params.n_clusters", id="one-class"),
    case(lambda p: write_npy(p, X, None), "data.npy", [],
         says="unlabeled data and no number of clusters; give k with dataset.params.n_clusters",
         doing="data", cause="without labels kmdr cannot tell k",
         fix="give k: dataset.params.n_clusters=5", id="unlabeled-no-k"),
]  # fmt: skip


@pytest.mark.parametrize(("write", "name", "args", "says"), BAD)
def test_bad_input_is_one_line_naming_the_file(write, name, args, says, tmp_path, capsys):
    path = tmp_path / "in" / name
    path.parent.mkdir()
    if write is not None:
        write(path)
    argv = ["dataset=file", f"dataset.params.path={path}", "reducer=[sign,svd]", "r_grid=[2]",
            *args]  # fmt: skip
    err = one_line(kmdr_fails(argv, capsys, tmp_path / "out"))
    assert says in err, err
    assert str(path) in err  # names the file
