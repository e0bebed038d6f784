"""The one check every loaded dataset passes before anything uses it.

:meth:`DatasetEntry.load <kmdr.datasets.DatasetEntry.load>` (so :func:`~kmdr.datasets.load_dataset`,
the runner, ``kmdr``, ``kmdr-data``) sends what a loader returns, built-in or plug-in, through
:func:`check_dataset`. A dataset that breaks the :class:`~kmdr.datasets.Dataset` contract is
refused with a :class:`DatasetError` whose message is one line naming the problem and the fix,
before any cell is computed: a wrong record would otherwise be scored and cited (complex values
silently cast to their real part, labels that do not match ``k``, NaN in the distances).

The check reads the data and never changes it: the arrays the runner uses are the loader's own.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._base import Dataset, is_unlabeled
from ._registry import DatasetError

# numpy dtype kinds k-means can take as they are (cast to float64 by the runner):
# bool, signed and unsigned integers, floats.
_REAL_KINDS = "biuf"
_KIND_NAMES = {"c": "complex", "O": "object", "U": "str", "S": "bytes", "V": "structured"}


def _dtype_problem(what: str, dtype: np.dtype) -> str | None:
    if dtype.kind in _REAL_KINDS:
        return None
    kind = _KIND_NAMES.get(dtype.kind, str(dtype))
    if dtype.kind == "c":
        return (
            f"{what} is complex ({dtype}); k-means needs real values: give the modulus, the real "
            "part or the real and imaginary parts as separate features"
        )
    return f"{what} has dtype {kind} ({dtype}); give numbers (e.g. np.asarray(X, dtype=float))"


def _all_finite(values: np.ndarray) -> bool:
    """Whether every value is finite, without an array of flags when they are: their sum is
    finite then (a sum that overflows, or any NaN or inf, is checked value by value)."""
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.sum(values)
    return bool(np.isfinite(total)) or bool(np.isfinite(values).all())


def matrix_problem(X) -> str | None:
    """Why ``X`` is not an ``n x d`` real, finite matrix with n, d >= 1 (None when it is)."""
    import scipy.sparse as sp

    if sp.issparse(X):
        if X.format != "csr":
            return f"X is a scipy.sparse {X.format.upper()} matrix; give it as CSR (X.tocsr())"
        values = X.data
    elif isinstance(X, np.ndarray):
        if X.ndim != 2:
            fix = "X.reshape(-1, 1) for one feature" if X.ndim == 1 else "one row per sample"
            return f"X is {X.ndim}-D (shape {X.shape}); give n_samples x n_features ({fix})"
        values = X
    else:
        return (
            f"X is a {type(X).__module__}.{type(X).__name__}; give a numpy array or a "
            "scipy.sparse CSR matrix"
        )
    problem = _dtype_problem("X", values.dtype)
    if problem:
        return problem
    n, d = X.shape
    if n == 0 or d == 0:
        return f"X is empty (shape {X.shape}); a dataset needs at least one sample and one feature"
    if values.dtype.kind == "f" and not _all_finite(values):
        bad = ~np.isfinite(values)
        if bad.any():
            n_nan = int(np.isnan(values).sum())
            return (
                f"X holds {int(bad.sum())} non-finite values ({n_nan} NaN, "
                f"{int(bad.sum()) - n_nan} inf); remove or impute them before loading"
            )
    return None


def _y_problem(y, n_samples: int, k, k_chosen: bool = False) -> str | None:
    """Why ``y`` is not the int labels 0..k-1 of the ``n_samples`` rows (None when it is)."""
    if not isinstance(y, np.ndarray):
        return f"y is a {type(y).__name__}; give a 1-D numpy array of integer labels"
    if y.ndim != 1:
        return f"y is {y.ndim}-D (shape {y.shape}); give one label per sample (y.ravel())"
    if y.shape[0] != n_samples:
        return f"X has {n_samples} rows but y has {y.shape[0]} labels; give one label per row"
    if y.dtype.kind not in "iu":
        return (
            f"y has dtype {y.dtype}; give integer labels 0..k-1 "
            "(np.unique(y, return_inverse=True)[1])"
        )
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        return f"n_clusters is {k!r}; give the number of classes as an int"
    k = int(k)
    if k < 2:
        return (
            f"n_clusters is {k}: a dataset with fewer than two classes has nothing to cluster; "
            "give data with at least two classes"
        )
    if n_samples < k:
        return f"{n_samples} samples for k={k} clusters; k-means needs at least k samples"
    if is_unlabeled(y):  # unlabeled data: k is the user's, only F is scored
        return None
    classes = np.unique(y)
    if classes[0] < 0:
        return (
            f"y has negative labels (from {classes[0]}); labels are 0..k-1: map them with "
            "np.unique(y, return_inverse=True)[1]"
        )
    if classes[-1] != classes.size - 1:
        shown = ", ".join(map(str, classes[:5])) + (", ..." if classes.size > 5 else "")
        return (
            f"y's labels are not consecutive from 0 (they are {shown}); labels are 0..k-1: map "
            "them with np.unique(y, return_inverse=True)[1]"
        )
    if classes.size != k and not k_chosen:
        return (
            f"y has {classes.size} classes but n_clusters is {k}; set n_clusters to the number "
            "of classes, or fix the labels"
        )
    return None


def _extras_problem(ds: Dataset) -> str | None:
    d = ds.X.shape[1]
    if ds.feature_names is not None and len(ds.feature_names) != d:
        return (
            f"feature_names has {len(ds.feature_names)} names for {d} features; give one name "
            "per column of X, or None"
        )
    if ds.image_shape is not None and int(np.prod(ds.image_shape)) != d:
        return f"image_shape {tuple(ds.image_shape)} does not hold the {d} features of a row"
    if ds.image_order not in ("C", "F"):
        return f"image_order is {ds.image_order!r}; use 'C' (row-major) or 'F' (column-major)"
    return None


def check_dataset(ds, name: str, source: str) -> Dataset:
    """Return ``ds`` unchanged when it is a valid :class:`Dataset`; else raise
    :class:`DatasetError`: ``dataset '<name>': <problem>; <fix> (<source>)``.

    ``source`` names where the data came from (the loader), so a plug-in's author knows what
    to fix.
    """
    if not isinstance(ds, Dataset):
        problem = (
            f"the loader returned a {type(ds).__module__}.{type(ds).__name__}, not a "
            "kmdr.datasets.Dataset; return Dataset(name, X, y, n_clusters, feature_names, "
            "description)"
        )
    else:
        problem = matrix_problem(ds.X)
        if problem is None:
            problem = _y_problem(ds.y, ds.X.shape[0], ds.n_clusters, ds.k_chosen)
        if problem is None:
            problem = _extras_problem(ds)
    if problem is not None:
        raise DatasetError(f"dataset {name!r}: {problem} ({source})")
    return ds
