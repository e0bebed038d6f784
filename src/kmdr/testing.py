"""Checks a reducer's author runs in their own tests, as scikit-learn's ``check_estimator``.

A run trusts a reducer's ``random_state`` to determine its output: cells are computed once, on any
worker, and reused. :func:`check_reducer` checks that contract on small dense and sparse data::

    from kmdr.testing import check_reducer

    def test_my_reducer():
        check_reducer(MyReducer(n_components=3, random_state=0))

:func:`check_reducers` checks several in one go: the fresh interpreter the last check needs
(another hash seed, another import order) is started once for all of them, not once each.

Each failed check raises :class:`~kmdr.engine.reducer_checks.ReducerOutputError`, one line naming
the reducer, the problem and the fix.
"""

from __future__ import annotations

import io
import os
import pickle
import secrets
import subprocess
import sys

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from kmdr.engine.reducer_checks import ReducerOutputError, check_output

__all__ = ["check_reducer", "check_reducers"]


def _equal(A, B) -> bool:
    """Equal to the last bit: both dense or both sparse, of one shape, dtype and values."""
    if sp.issparse(A) != sp.issparse(B) or A.shape != B.shape or A.dtype != B.dtype:
        return False
    if sp.issparse(A):
        return (sp.csr_matrix(A) != sp.csr_matrix(B)).nnz == 0
    return bool(np.array_equal(A, B))


def _same(what: str, how: str, C, C2) -> None:
    if not _equal(C, C2):
        raise ReducerOutputError(
            f"{what}: {how} gave another output; draw every random number from "
            "random_state (nothing from the time, the process, hash() or a set's "
            "order), keep no state between fits, and declare the reduction "
            "deterministic only where it draws nothing"
        )


def _untouched(what: str, X, before) -> None:
    """``X`` still equals ``before`` (its copy taken before a fit): the run hands every cell the
    one matrix its data loaded into, so a reducer that writes into it changes the data of every
    cell computed after it in that worker."""
    if not _equal(X, before):
        raise ReducerOutputError(
            f"{what}: it changed its input X in place; compute on a copy (X.copy(), or "
            "validate_data(..., copy=True) where it writes) and leave the caller's matrix as "
            "it was"
        )


def _fit(estimator, X, what: str, given):
    """``estimator.fit_transform(X)``, refused when it changed ``X`` (``given``: its copy),
    before a later check reads the changed matrix and blames another part of the contract."""
    out = estimator.fit_transform(X)
    _untouched(what, X, given)
    return out


def _data(n_samples: int, n_features: int) -> dict:
    """The dense and the sparse (CSR, about 30 % non-zeros) matrices the checks fit on."""
    rng = np.random.default_rng(0)
    dense = rng.normal(size=(n_samples, n_features))
    dense[rng.random(dense.shape) > 0.3] = 0.0
    return {"dense": dense, "sparse": sp.csr_matrix(dense)}


def _fit_in_a_fresh_process(estimators: list, data: dict) -> list[dict]:
    """``clone(estimator).fit_transform(X)`` of each matrix of ``data``, for each estimator, in
    one new interpreter with another hash seed (its start, not the fits, is what a check
    costs). An estimator the fresh interpreter cannot fit is named in one line."""
    # each estimator is pickled apart, and its outputs come back one by one: the estimator
    # after the last one that came back is the one the fresh interpreter could not import or
    # fit (an exception's line comes back too; a crash leaves only the exit status)
    code = (
        "import pickle, sys; from sklearn.base import clone\n"
        "pickled, data = pickle.load(sys.stdin.buffer)\n"
        "for one in pickled:\n"
        "    try:\n"
        "        est = pickle.loads(one)\n"
        "        out = {k: clone(est).fit_transform(X) for k, X in data.items()}\n"
        "    except Exception as err:\n"
        "        pickle.dump(f'{type(err).__name__}: {err}', sys.stdout.buffer)\n"
        "        break\n"
        "    pickle.dump(out, sys.stdout.buffer)\n"
    )
    pickled = [pickle.dumps(e) for e in estimators]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
           "PYTHONHASHSEED": str(secrets.randbelow(2**32 - 1) + 1)}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", code], input=pickle.dumps((pickled, data)), capture_output=True,
        env=env, check=False,
    )  # fmt: skip
    stream, fitted = io.BytesIO(done.stdout), []
    while len(fitted) < len(estimators) and stream.tell() < len(done.stdout):
        fitted.append(pickle.load(stream))
    if len(fitted) == len(estimators) and all(isinstance(f, dict) for f in fitted):
        return fitted
    failed = fitted.pop() if fitted and isinstance(fitted[-1], str) else None
    if failed is None:
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        failed = lines[-1] if lines else f"exit status {done.returncode}"
    raise ReducerOutputError(
        f"{type(estimators[len(fitted)]).__name__}: a fresh process could not fit it ({failed}); "
        "make it importable and picklable (a module-level class of an installed package)"
    )


def check_reducer(estimator, *, n_samples: int = 40, n_features: int = 12) -> None:
    """Check that ``estimator`` (a :class:`kmdr.reducers.BaseReducer` with its
    ``n_components`` and ``random_state`` set) is a reducer a run can trust, on dense and sparse
    data of ``n_samples`` x ``n_features``:

    - its output is a finite real n x r matrix and it declares r (``n_components_``);
    - it leaves its input matrix as it was (values, dtype and shape);
    - it leaves numpy's global random state alone;
    - two fits with the same ``random_state`` give the same output to the last bit, in this
      process (no state kept between fits) and in a fresh one with another hash seed (nothing
      of the process: ``hash`` of strings, the order of a set, module state);
    - a reducer that declares its reduction independent of ``random_state``
      (``is_deterministic``) gives the same output with another seed.
    """
    check_reducers([estimator], n_samples=n_samples, n_features=n_features)


def check_reducers(estimators, *, n_samples: int = 40, n_features: int = 12) -> None:
    """:func:`check_reducer` of each of ``estimators``, the fresh-process fits of all of them in
    one fresh interpreter (started after every in-process check has passed). The first failed
    check raises, naming its reducer."""
    estimators = list(estimators)
    data = _data(n_samples, n_features)
    outputs = [_check_in_this_process(estimator, data, n_samples) for estimator in estimators]
    fresh = _fit_in_a_fresh_process(estimators, data)
    for estimator, here, there in zip(estimators, outputs, fresh, strict=True):
        name, r = type(estimator).__name__, estimator.get_params()["n_components"]
        for kind, C2 in there.items():
            _same(f"{name} on {kind} data at r={r}", "a fresh process", here[kind], C2)


def _check_in_this_process(estimator, data: dict, n_samples: int) -> dict:
    """The checks of :func:`check_reducer` that need no fresh process; the outputs by kind."""
    name = type(estimator).__name__
    r = estimator.get_params()["n_components"]
    outputs = {}
    for kind, X in data.items():
        what = f"{name} on {kind} data at r={r}"
        # numpy's global random state, watched (never drawn from): its bytes before and after
        before, given = pickle.dumps(np.random.get_state()), X.copy()  # noqa: NPY002
        fitted = clone(estimator)
        C = outputs[kind] = _fit(fitted, X, what, given)
        if pickle.dumps(np.random.get_state()) != before:  # noqa: NPY002
            raise ReducerOutputError(
                f"{what}: it changed numpy's global random state; draw from "
                "sklearn.utils.check_random_state(self.random_state) instead"
            )
        check_output(what, r, fitted, C, n_samples)
        _same(what, "a second fit", C, _fit(fitted, X, what, given))
        seed = estimator.get_params().get("random_state", "none")
        if seed != "none" and fitted.is_deterministic(X):  # a reducer without one draws nothing
            other = seed + 1 if isinstance(seed, int) else 1
            again = clone(estimator).set_params(random_state=other)
            _same(what, "another seed", C, _fit(again, X, what, given))
    return outputs
