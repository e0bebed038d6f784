"""A reducer's output is checked before it is scored.

A cell's numbers are only worth citing if the reduced matrix C is what the cell says it is, so
every reduction a worker computes passes :func:`checked_reduction` before k-means sees it:

- C is a numpy array or a scipy.sparse matrix of shape n x w, w the reducer's declared output
  width (r; d for the no-reduction baseline, whose r is d; p for PD, which keeps r entries per
  row of a p-column matrix), and the reducer declares the cell's r (``n_components_``): a reducer
  that returns more or fewer columns than r would be recorded under an r it did not produce;
- its dtype is a real floating type (not complex, not object, not integer);
- its values are finite.

Whether a reducer's output is determined by its ``random_state`` alone (two fits, a fresh
process, another seed for a reducer declared deterministic, numpy's global random state left
alone) is its author's to check, once, in their own tests: :func:`kmdr.testing.check_reducer`,
as scikit-learn's ``check_estimator``.

A failed check raises :class:`ReducerOutputError`, one line naming the reducer, r, the problem
and the fix; the run stops like any failing cell, and the cells already finished are kept.
"""

from __future__ import annotations

import numpy as np

from kmdr._errors import one_line


class ReducerOutputError(ValueError):
    """A reducer's output cannot be scored (the message is one line: reducer, r, problem, fix)."""


def _fail(what: str, problem: str, fix: str):
    raise ReducerOutputError(one_line(f"{what}: {problem}; {fix}"))


def _width(reducer, default: int) -> int:
    """The number of columns the reducer declares (scikit-learn's ``_n_features_out``)."""
    try:
        width = reducer._n_features_out
    except AttributeError:
        return default
    return default if width is None else int(width)


def describe(cell) -> str:
    """``reducer 'id' (name) at r=5``: who a failed check names."""
    return f"reducer {cell.reducer_id!r} ({cell.reducer_name}) at r={cell.r}"


def check_output(what: str, r: int, reducer, C, n_samples: int, finite: bool = True) -> None:
    """Raise :class:`ReducerOutputError` naming ``what`` unless C is a real n x w matrix for
    ``r``, finite unless ``finite`` is false (see the module docstring)."""
    import scipy.sparse as sp

    if not (isinstance(C, np.ndarray) or sp.issparse(C)):
        _fail(
            what,
            f"transform returned a {type(C).__name__}",
            "return a numpy array or a scipy.sparse matrix",
        )
    declared = getattr(reducer, "n_components_", r)
    if declared != r:
        _fail(
            what,
            f"the fitted reducer says it produced r={declared}",
            "produce exactly n_components columns (n_components_ = n_components)",
        )
    width = _width(reducer, r)
    if C.ndim != 2 or C.shape != (n_samples, width):
        _fail(
            what,
            f"its output has shape {C.shape}, not {(n_samples, width)} (n x r)",
            "return one row per point and exactly r columns",
        )
    if C.dtype.kind != "f":
        _fail(
            what,
            f"its output has dtype {C.dtype}, not a real floating type",
            "return float64 (or float32) values",
        )
    if finite and (problem := not_finite(what, C)):
        raise ReducerOutputError(problem)


def not_finite(what: str, C) -> str | None:
    """The one line naming ``what`` when C holds NaN or infinite values, else None: in a run,
    the cells of that reduction are not written and the sweep goes on with the others."""
    import scipy.sparse as sp

    values = C.data if sp.issparse(C) else C
    if np.isfinite(values).all():
        return None
    bad = int(np.size(values) - np.count_nonzero(np.isfinite(values)))
    return one_line(f"{what}: its output holds {bad} NaN or infinite values; return finite "
                    "values only")  # fmt: skip


def checked_reduction(reduce, cell, X, n_clusters: int, shared):
    """``reduce(cell, X, n_clusters, shared)`` -> ``(reducer, C, seconds)``, with the output
    checked (see the module docstring) but for its finiteness (:func:`not_finite`)."""
    out = reduce(cell, X, n_clusters, shared)
    check_output(describe(cell), cell.r, out[0], out[1], X.shape[0], finite=False)
    return out
