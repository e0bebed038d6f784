"""``file``: a user's own data file, read by its format's library (``dataset=file
dataset.params.path=...``).

=========================  =========================================================  ===========
suffix                     read by                                                    labels
=========================  =========================================================  ===========
``.npy``                   :func:`numpy.load`                                         none
``.npz``                   :func:`numpy.load`: the arrays ``data`` and ``label``      ``label``
``.csv``                   :func:`pandas.read_csv`                                    a column
``.parquet``               :func:`pandas.read_parquet` (pyarrow)                      a column
``.mat``                   :func:`scipy.io.loadmat`; h5py for MATLAB v7.3 files       a variable
``.svm`` ``.svmlight``     :func:`sklearn.datasets.load_svmlight_file` (sparse CSR)   always
``.libsvm``
=========================  =========================================================  ===========

``data`` names the matrix's array or variable (default ``X``) and ``label`` the labels' column,
array or variable: for ``.npz`` and ``.mat`` it defaults to ``y`` when the file holds one; for
``.csv`` and ``.parquet`` a file without ``label`` is unlabeled (every column is a feature).

With labels, k is their number of classes unless ``n_clusters`` says otherwise (labels of any
values are numbered 0..k-1 in sorted order). Without labels ``n_clusters`` is required, and the
Dataset's ``y`` is :data:`~kmdr.datasets._base.UNLABELED` for every row: only the k-means
objective F is scored; accuracy, NMI and ARI are left empty (NaN).

The data fingerprint is ``file:<hash>`` of the file's sha256 with the parameters that choose what
is read of it: an edited file gives other cells, never the old ones. The Dataset's description
names the file and its full sha256, and the run record keeps it.

Every bad input is a one-line :class:`~kmdr.datasets.DatasetError` naming the file and the fix.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import numpy as np

from ._base import UNLABELED, Dataset, consecutive_labels
from ._fingerprint import _digest
from ._registry import DatasetError, sha256

__all__ = ["FILE_PARAMS", "SUFFIXES", "load_file"]

#: The parameters of ``dataset=file`` and their defaults (conf/dataset/file.yaml holds the same).
FILE_PARAMS = MappingProxyType({"path": None, "label": None, "data": "X", "n_clusters": None})
#: The suffixes ``dataset=file`` reads, by reader.
SUFFIXES = MappingProxyType(
    {
        ".npy": "numpy",
        ".npz": "numpy",
        ".csv": "pandas",
        ".parquet": "pandas",
        ".mat": "scipy.io",
        ".svm": "svmlight",
        ".svmlight": "svmlight",
        ".libsvm": "svmlight",
    }
)


def _fail(path, problem: str, fix: str) -> DatasetError:
    return DatasetError(f"dataset 'file': {path}: {problem}; {fix}")


def _read_npy(path, data, label):
    if label is not None:
        raise _fail(path, "a .npy file holds one array, no labels", "drop dataset.params.label, "
                    "or save X and y together with numpy.savez")  # fmt: skip
    return np.load(path, allow_pickle=False), None


def _arrays_of(path, names, data, label, get):
    """The matrix ``data`` and the labels ``label`` (or ``y`` when present) of a file whose
    arrays are ``names``, read by ``get(name)``."""
    if data not in names:
        raise _fail(path, f"no array or variable {data!r} (it holds {sorted(names)})",
                    "name the matrix's with dataset.params.data=...")  # fmt: skip
    if label is not None and label not in names:
        raise _fail(path, f"no label array or variable {label!r} (it holds {sorted(names)})",
                    "name the labels' with dataset.params.label=..., or leave it out")  # fmt: skip
    if label is None and "y" in names and data != "y":
        label = "y"
    return get(data), (None if label is None else get(label))


def _read_npz(path, data, label):
    with np.load(path, allow_pickle=False) as f:
        return _arrays_of(path, set(f.files), data, label, lambda n: f[n])


def _read_table(path, data, label):
    import pandas as pd

    frame = pd.read_csv(path) if path.suffix.lower() == ".csv" else pd.read_parquet(path)
    if label is None:
        return frame, None
    if label not in frame.columns:
        shown = ", ".join(map(str, frame.columns[:8])) + (", ..." if frame.shape[1] > 8 else "")
        raise _fail(path, f"no column {label!r} (its columns: {shown})",
                    "name the label column with dataset.params.label=..., or leave it out for "
                    "unlabeled data")  # fmt: skip
    return frame.drop(columns=[label]), frame[label].to_numpy()


def _read_mat(path, data, label):
    import scipy.io

    try:
        contents = scipy.io.loadmat(path)
    except NotImplementedError:  # MATLAB v7.3: an HDF5 file, stored column-major
        import h5py

        with h5py.File(path, "r") as f:
            names = {n for n in f if not n.startswith("#")}
            return _arrays_of(path, names, data, label, lambda n: np.asarray(f[n]).T)
    names = {n for n in contents if not n.startswith("__")}
    return _arrays_of(path, names, data, label, contents.__getitem__)


def _read_svmlight(path, data, label):
    from sklearn.datasets import load_svmlight_file

    if label is not None:
        raise _fail(path, "an svmlight file's labels are its first column",
                    "drop dataset.params.label")  # fmt: skip
    X, y = load_svmlight_file(str(path), dtype=np.float64)
    return X, y


_READERS = {
    "numpy": None,
    "pandas": _read_table,
    "scipy.io": _read_mat,
    "svmlight": _read_svmlight,
}


def _matrix(path, X):
    """X as a float64 ndarray or CSR matrix, with finite values only."""
    import scipy.sparse as sp

    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        values = X.data
    else:
        if hasattr(X, "select_dtypes"):  # a frame: every column must be numbers
            text = [c for c in X.columns if X[c].dtype.kind not in "biuf"]
            if text:
                raise _fail(path, f"column {text[0]!r} is not numeric ({len(text)} such)",
                            "name the label column with dataset.params.label=..., or drop the "
                            "non-numeric columns")  # fmt: skip
            X = X.to_numpy(dtype=np.float64)
        X = np.asarray(X)
        if X.dtype.kind not in "biuf":
            raise _fail(path, f"the matrix has dtype {X.dtype}", "store numbers")
        X = np.atleast_2d(X.astype(np.float64, copy=False))
        if X.ndim != 2:
            raise _fail(path, f"the matrix is {X.ndim}-D (shape {X.shape})",
                        "store one row per sample, one column per feature")  # fmt: skip
        values = X
    bad = ~np.isfinite(values)
    if bad.any():
        what = "NaN" if np.isnan(values).any() else "infinite"
        raise _fail(path, f"{int(bad.sum())} {what} value(s) in the matrix",
                    "remove or impute them (e.g. sklearn.impute.SimpleImputer) and save the "
                    "file again")  # fmt: skip
    return X


def _labels(path, y, n_rows: int, n_clusters):
    """``(y, k)``: labels numbered 0..k-1 and k, or UNLABELED and ``n_clusters``."""
    if y is None:
        if n_clusters is None:
            raise _fail(path, "unlabeled data and no number of clusters",
                        "give k with dataset.params.n_clusters=...")  # fmt: skip
        return np.full(n_rows, UNLABELED, dtype=np.int64), int(n_clusters)
    y = np.asarray(y).ravel()
    if y.shape[0] != n_rows:
        raise _fail(path, f"{y.shape[0]} labels for {n_rows} rows", "give one label per row")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise _fail(path, "missing (NaN) or infinite labels",
                    "label every row, or drop the rows without one")  # fmt: skip
    if y.dtype == object and any(v is None for v in y):
        raise _fail(path, "missing labels", "label every row, or drop the rows without one")
    codes = consecutive_labels(y.astype(str) if y.dtype == object else y)
    n_classes = int(codes.max()) + 1
    if n_classes < 2:
        raise _fail(path, f"every row has the one label {str(y[0])!r}",
                    "give labels of at least two classes, or leave dataset.params.label out "
                    "and set dataset.params.n_clusters")  # fmt: skip
    return codes, n_classes if n_clusters is None else int(n_clusters)


def load_file(path=None, label=None, data="X", n_clusters=None) -> Dataset:
    """The data file ``path`` (see the module docstring) as a :class:`Dataset`."""
    if path is None or str(path) in ("", "???"):
        raise DatasetError(
            "dataset 'file': no file given; name it with dataset.params.path=/path/to/data.csv"
        )
    path = Path(str(path)).expanduser().resolve()
    if n_clusters is not None and (isinstance(n_clusters, bool) or int(n_clusters) != n_clusters
                                   or int(n_clusters) < 2):  # fmt: skip
        raise _fail(path, f"n_clusters={n_clusters!r}", "give an integer k >= 2")
    suffix = path.suffix.lower()
    reader = SUFFIXES.get(suffix)
    if reader is None:
        raise _fail(path, f"unknown extension {path.suffix or '(none)'!r}",
                    f"save it as one of {', '.join(SUFFIXES)}")  # fmt: skip
    if not path.is_file():
        what = "is a folder" if path.is_dir() else "does not exist"
        raise _fail(path, what, "give the path of a data file")
    try:
        digest = sha256(path)
    except OSError as err:
        raise _fail(path, f"cannot be read ({err.strerror})", "check its permissions") from None
    read = (_read_npz if suffix == ".npz" else _read_npy) if reader == "numpy" else _READERS[reader]
    try:
        X, y = read(path, data, label)
    except DatasetError:
        raise
    except ImportError as err:
        raise _fail(path, f"its reader needs {err.name}", f"pip install {err.name}") from None
    except Exception as err:
        what = " ".join(f"{type(err).__name__}: {err}".split())[:200]
        raise _fail(path, f"cannot be read as {suffix} ({what})",
                    f"check that it is a valid {suffix} file") from None  # fmt: skip
    X = _matrix(path, X)
    y, k = _labels(path, y, X.shape[0], n_clusters)
    if X.shape[0] < k:
        raise _fail(path, f"{X.shape[0]} rows for k={k} clusters",
                    "give at least k rows, or a smaller dataset.params.n_clusters")  # fmt: skip
    chosen = {"label": label, "data": data, "n_clusters": n_clusters}
    labeled = "labeled" if y[0] != UNLABELED else "UNLABELED (F only)"
    return Dataset(
        path.stem,
        X,
        y,
        k,
        None,
        f"file {path} (sha256 {digest}), {labeled}",
        fingerprint=f"file:{_digest([digest, chosen])}",
        k_chosen=n_clusters is not None,
    )
