"""Input and parameter checks shared by the reducers.

Parameter types and ranges are declared per class in ``_parameter_constraints`` and checked by
scikit-learn's ``_validate_params`` (its messages name the parameter and the allowed range). The
checks here are the ones that depend on the data: ``n_components`` and ``n_clusters`` against the
shape of ``X``.

A plan's shape rule (:mod:`kmdr.reducers._builtins`) calls :func:`check_count` when a run is
planned, before anything loads the data: numpy, scipy and scikit-learn are imported by the
functions that use them, so a dry run imports none of them for it.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

#: Sparse formats accepted without conversion; any other scipy.sparse format (coo, lil, dok, ...)
#: is converted to CSR by scikit-learn's ``validate_data``.
SPARSE_FORMATS = ("csr", "csc")


def check_count(value, name: str, low: int, high: int | None, shape: tuple[int, int]) -> int:
    """Check an integer parameter against a range that depends on the shape of ``X``.

    Raises a one-line ValueError naming the parameter, its value, the shape and the allowed range.
    The shape is written as ``n_samples=..., n_features=...`` (scikit-learn's estimator checks look
    for these words when a 1-sample or 1-feature ``X`` is rejected).
    """
    n_samples, n_features = shape
    upper = "inf" if high is None else str(high)
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    ok = ok and value >= low and (high is None or value <= high)
    if not ok:
        raise ValueError(
            f"{name}={value!r} is invalid for X with n_samples={n_samples}, "
            f"n_features={n_features}: it must be an integer in [{low}, {upper}]"
        )
    return int(value)


def same_sparse_kind(like, matrix):
    """``matrix`` (CSR) as a ``csr_array`` if ``like`` is a sparse array, else a ``csr_matrix``.

    scipy has two sparse APIs (``*_matrix`` and ``*_array``, which differ in ``*`` semantics); the
    output keeps the one the caller used.
    """
    import scipy.sparse as sp

    if isinstance(like, sp.sparray):
        return sp.csr_array(matrix)
    return sp.csr_matrix(matrix)


def column_subset(X, columns: np.ndarray, scales: np.ndarray | None = None):
    """``X[:, columns] * scales`` for a dense or sparse ``X`` (columns may repeat).

    Sparse input gives a sparse CSR result of the same kind (matrix or array); nothing is densified.
    """
    import scipy.sparse as sp

    if sp.issparse(X):
        C = sp.csc_array(X)[:, columns]
        if scales is not None:
            C = C @ sp.diags_array(scales)
        return same_sparse_kind(X, C.tocsr())
    C = X[:, columns]
    if scales is not None:
        C = C * scales
    return C


def independent_random_state(random_state, stream: int):
    """A RandomState for a second, independent use of the same ``random_state``.

    An integer seed yields a generator seeded from ``SeedSequence([seed, stream])``, so an
    approximate SVD's Gaussian sketch and the later draws of the same reducer never reuse one random
    stream (with ``RandomState(seed)`` twice, the sampling would reuse the sketch's numbers). A
    RandomState
    instance is returned as is (its stream advances between the two uses); None gives the global
    generator, as in scikit-learn.
    """
    import numpy as np
    from sklearn.utils import check_random_state

    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        seed = np.random.SeedSequence([int(random_state), stream]).generate_state(4)
        return np.random.RandomState(seed)
    return check_random_state(random_state)
