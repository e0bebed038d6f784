"""A reducer's output is checked before it is scored.

A cell's numbers are only worth citing if the reduced matrix C is what the cell says it is, so
every reduction a worker computes passes :func:`checked_reduction` before k-means sees it:

- C is a numpy array or a scipy.sparse matrix of shape n x w, w the reducer's declared output
  width (r; d for the no-reduction baseline, whose r is d; p for PD, which keeps r entries per
  row of a p-column matrix), and the reducer declares the cell's r (``n_components_``): a reducer
  that returns more or fewer columns than r would be recorded under an r it did not produce;
- its dtype is a real floating type (not complex, not object, not integer);
- its values are finite;
- numpy's global random state is the same after the reduction as before: a reducer that draws
  from ``np.random.*`` instead of its ``random_state`` cannot be reproduced from the cell's seed.
  (Under the threading backend another thread's draw would be seen too; kmdr's own code never
  draws from the global state, so a change always points at third-party code.)
- for a reducer that is not shipped with kmdr (a plug-in), the first reduction of each
  (reducer, parameters) a worker process computes is checked against the determinism contract,
  each output equal to the first to the last bit:

  * computed again with the same seed in the same process (no state kept between fits);
  * computed again with the same seed in a fresh Python process, with another hash seed (no
    dependence on the process: ``hash`` of strings, module state, the order of a set), so that
    ``n_jobs=1`` and ``n_jobs=2`` give the same cells;
  * when the reducer declares its reduction independent of ``random_state`` (its plan's
    ``deterministic``, which makes the runner reduce once for every repetition), computed again
    with another seed: a reducer that says so but draws at random would have its first
    repetition's reduction stand for all of them.

  The fresh process costs an interpreter start and a copy of the data once per plug-in reducer
  and parameters, per worker process.

A failed check raises :class:`ReducerOutputError`, one line naming the reducer, r, the problem
and the fix; the run stops like any failing cell, and the cells already finished are kept.
"""

from __future__ import annotations

import dataclasses
import json
import threading

import numpy as np

from kmdr._errors import one_line
from kmdr.engine import signals

__all__ = [
    "START_SECONDS",
    "ReducerOutputError",
    "Reproduced",
    "check_output",
    "checked_reduction",
]


#: Seconds a fresh interpreter may take to start and import the scientific stack on a loaded
#: machine, beyond what the cell had left of its time limit, before the check gives up on it.
START_SECONDS = 120.0


#: (registry name, params) of the plug-in reducers whose seeded output this process has
#: compared between two fits.
class Reproduced:
    """The plug-in reducers (name, parameters) a process has already fitted twice: a process's
    own (:class:`kmdr.engine.session.ProcessState` holds it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: set[tuple[str, str]] = set()

    def first(self, key: tuple[str, str]) -> bool:
        """Whether ``key`` is seen for the first time (and from now on it is not)."""
        with self.lock:
            new = key not in self.seen
            self.seen.add(key)
        return new


class ReducerOutputError(ValueError):
    """A reducer's output cannot be scored (the message is one line: reducer, r, problem, fix)."""


def _fail(cell, problem: str, fix: str):
    raise ReducerOutputError(
        one_line(
            f"reducer {cell.reducer_id!r} ({cell.reducer_name}) at r={cell.r}: {problem}; {fix}"
        )
    )


def _width(reducer, default: int) -> int:
    """The number of columns the reducer declares (scikit-learn's ``_n_features_out``)."""
    try:
        width = reducer._n_features_out
    except AttributeError:
        return default
    return default if width is None else int(width)


def check_output(cell, reducer, C, n_samples: int) -> None:
    """Raise :class:`ReducerOutputError` unless C is a finite real n x w matrix for the cell's r
    (see the module docstring)."""
    import scipy.sparse as sp

    if not (isinstance(C, np.ndarray) or sp.issparse(C)):
        _fail(
            cell,
            f"transform returned a {type(C).__name__}",
            "return a numpy array or a scipy.sparse matrix",
        )
    declared = getattr(reducer, "n_components_", cell.r)
    if declared != cell.r:
        _fail(
            cell,
            f"the fitted reducer says it produced r={declared}",
            "produce exactly n_components columns (n_components_ = n_components)",
        )
    width = _width(reducer, cell.r)
    if C.ndim != 2 or C.shape != (n_samples, width):
        _fail(
            cell,
            f"its output has shape {C.shape}, not {(n_samples, width)} (n x r)",
            "return one row per point and exactly r columns",
        )
    if C.dtype.kind != "f":
        _fail(
            cell,
            f"its output has dtype {C.dtype}, not a real floating type",
            "return float64 (or float32) values",
        )
    values = C.data if sp.issparse(C) else C
    if not np.isfinite(values).all():
        bad = int(np.size(values) - np.count_nonzero(np.isfinite(values)))
        _fail(cell, f"its output holds {bad} NaN or infinite values", "return finite values only")


def _same_state(a, b) -> bool:
    """Equal numpy random states (``np.random.get_state(legacy=False)``: nested dicts, arrays)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_state(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    return a == b


def _global_state() -> dict:
    """numpy's global random state (watched here, never drawn from)."""
    return np.random.get_state(legacy=False)  # noqa: NPY002


def _equal(A, B) -> bool:
    import scipy.sparse as sp

    if sp.issparse(A) != sp.issparse(B) or A.shape != B.shape or A.dtype != B.dtype:
        return False
    if sp.issparse(A):
        return (sp.csr_matrix(A) != sp.csr_matrix(B)).nnz == 0
    return bool(np.array_equal(A, B))


def _seeded_once(reduce, cell, X, n_clusters, shared):
    """``reduce`` with numpy's global random state watched; the output checked."""
    before = _global_state()
    out = reduce(cell, X, n_clusters, shared)
    if not _same_state(before, _global_state()):
        _fail(
            cell,
            "it changed numpy's global random state (it drew from or seeded np.random.*, which "
            "the cell's seed does not set), so the cell cannot be reproduced",
            "draw from sklearn.utils.check_random_state(self.random_state) instead",
        )
    check_output(cell, out[0], out[1], X.shape[0])
    return out


def checked_reduction(reduce, cell, X, n_clusters: int, shared, reproduced: Reproduced | None):
    """``reduce(cell, X, n_clusters, shared)`` -> ``(reducer, C, seconds)``, checked (see the
    module docstring). The seconds are those of the first reduction. ``reproduced``: the
    process's record of the plug-ins already fitted twice (None: fit this one twice)."""
    from kmdr.reducers import is_own_reducer

    out = _seeded_once(reduce, cell, X, n_clusters, shared)
    if is_own_reducer(cell.reducer_name):
        return out
    key = (cell.reducer_name, json.dumps(cell.params, sort_keys=True, default=str))
    if reproduced is None or reproduced.first(key):
        again = _seeded_once(reduce, cell, X, n_clusters, shared)
        if not _equal(out[1], again[1]):
            _fail(
                cell,
                "two fits with the same random_state gave different outputs, so the cell's seed "
                "does not determine it",
                "draw every random number from the random_state parameter, and nothing from the "
                "time, the process or unseeded generators",
            )
        # kmdr's check, not the cell's work: an interpreter's start is not charged to the cell's
        # cell_time_limit (the fit there may take what the cell had left, once started)
        with signals.not_timed() as left:
            fresh = _in_a_fresh_process(reduce, cell, X, n_clusters, shared, left)
        if not _equal(out[1], fresh):
            _fail(
                cell,
                "a fresh process fitting it with the same random_state gave another output, so "
                "its cells depend on the process that computes them (n_jobs, the backend)",
                "keep no state between fits and depend on nothing of the process: not on hash() "
                "of strings or the order of a set (sort them), not on module-level variables",
            )
        if cell.deterministic:
            other = dataclasses.replace(cell, seed=cell.seed ^ 1)
            if not _equal(out[1], _seeded_once(reduce, other, X, n_clusters, shared)[1]):
                _fail(
                    cell,
                    "it declares its reduction independent of random_state (its plan's "
                    "deterministic), but two seeds gave different outputs, so its first "
                    "repetition's reduction would stand for every repetition",
                    "declare it deterministic only where it draws nothing at random",
                )
    return out


def _in_a_fresh_process(reduce, cell, X, n_clusters, shared, left: float | None = None):
    """C of ``reduce(cell, X, n_clusters, shared)`` computed by a new Python interpreter with its
    own hash seed and this process's import path (a subprocess, not multiprocessing: dask's
    worker processes are daemons, which may not start multiprocessing children). ``left``: the
    seconds the cell had left under its time limit (None: no limit); the interpreter is given
    those and :data:`START_SECONDS` to start in, else the cell has timed out."""
    import os
    import pickle
    import secrets
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory(prefix="kmdr-check-") as folder:
        job, result = os.path.join(folder, "job.pickle"), os.path.join(folder, "c.pickle")
        with open(job, "wb") as fh:
            pickle.dump((reduce, cell, X, n_clusters, shared), fh, protocol=pickle.HIGHEST_PROTOCOL)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
               "PYTHONHASHSEED": str(secrets.randbelow(2**32 - 1) + 1)}  # fmt: skip
        try:
            done = subprocess.run(
                [sys.executable, "-m", __name__, job, result],
                env=env,
                capture_output=True,
                text=True,
                timeout=None if left is None else left + START_SECONDS,
            )
        except subprocess.TimeoutExpired:
            raise signals.CellTimedOut(left) from None
        if done.returncode != 0:
            why = (done.stderr.strip().splitlines() or ["no message"])[-1]
            _fail(
                cell,
                f"a fresh process could not fit it with the same random_state ({why})",
                "make it importable and picklable as a plug-in is (a module-level class of an "
                "installed package)",
            )
        with open(result, "rb") as fh:
            return pickle.load(fh)


def _fit_here(job: str, result: str) -> None:
    """The fresh process of :func:`_in_a_fresh_process`: fit the job, write its C."""
    import pickle

    from kmdr.engine.threads import ThreadPools, pin_threads

    with open(job, "rb") as fh:
        reduce, cell, X, n_clusters, shared = pickle.load(fh)
    pin_threads(ThreadPools(), cell.blas_threads)  # the cell's threads, as every job pins them
    C = reduce(cell, X, n_clusters, shared)[1]
    with open(result, "wb") as fh:
        pickle.dump(C, fh, protocol=pickle.HIGHEST_PROTOCOL)


if __name__ == "__main__":
    import sys

    _fit_here(*sys.argv[1:3])
