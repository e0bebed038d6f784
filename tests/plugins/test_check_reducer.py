"""``kmdr.testing.check_reducers`` on every built-in reducer (one fresh interpreter for all of
them), and ``kmdr.testing.check_reducer`` on reducers that break each part of the contract it
checks (a plug-in author's test, run here as theirs would be)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from kmdr.engine.reducer_checks import ReducerOutputError
from kmdr.reducers import available_reducers, make_reducer
from kmdr.reducers.projections import GaussianProjection
from kmdr.testing import check_reducer, check_reducers

#: LLE's default 12 neighbours need more rows than the checks' data give each neighbourhood.
PARAMS = {"lle": {"n_neighbors": 5}}
#: The no-reduction baseline's r is d (the checks' data have 12 columns).
R = {"none": 12}


def test_every_builtin_reducer_passes():
    names = available_reducers()
    assert {"none", "svd", "gaussian", "leverage", "lle", "sparse_embedding"} <= set(names)
    check_reducers(
        make_reducer(name, R.get(name, 3), n_clusters=3, random_state=0, **PARAMS.get(name, {}))
        for name in names
    )


class Unseeded(GaussianProjection):
    """Draws from a generator of its own, not from random_state."""

    def _transform(self, X):
        return super()._transform(X) + np.random.default_rng().normal()


class GlobalDraw(GaussianProjection):
    """Draws from numpy's global random state."""

    def _transform(self, X):
        return super()._transform(X) + np.random.normal()  # noqa: NPY002


class HashDependent(GaussianProjection):
    """Depends on Python's hash seed (a fresh process has another)."""

    def _transform(self, X):
        return super()._transform(X) + hash("kmdr") % 1_000_003


class FailsAfresh(GaussianProjection):
    """Fits here and not in a fresh interpreter: the test sets ``here`` on the class, and the
    fresh interpreter imports this module anew, without it (a pytest-xdist worker is itself a
    ``python -c`` process, so the command line cannot tell the two apart)."""

    here = False

    def _transform(self, X):
        if not type(self).here:
            raise RuntimeError("not in a fresh process")
        return super()._transform(X)


class EndsAfresh(FailsAfresh):
    """Ends the fresh interpreter outright, without a Python error (a crash)."""

    def _transform(self, X):
        if not type(self).here:
            os._exit(3)
        return super()._transform(X)


class FalselyDeterministic(GaussianProjection):
    """Says its output does not depend on random_state, and draws from it."""

    def is_deterministic(self, X):
        return True


class Stateful(GaussianProjection):
    """Keeps a counter between fits."""

    def _transform(self, X):
        self.calls_ = getattr(self, "calls_", 0) + 1
        return super()._transform(X) * self.calls_


class WritesIntoX(GaussianProjection):
    """Scales its input in place (validate_data hands it the caller's float64 matrix, dense or
    sparse, uncopied) before projecting it."""

    def _transform(self, X):
        if hasattr(X, "data") and not isinstance(X, np.ndarray):
            X.data *= 2.0
        else:
            X *= 2.0
        return super()._transform(X)


class WritesIntoXLater(GaussianProjection):
    """Leaves X alone on its first fit and zeroes its first row on the next ones, so the data
    the checks' later fits read is not the data they were given."""

    def _transform(self, X):
        self.fits_ = getattr(self, "fits_", 0) + 1
        if self.fits_ > 1:
            X[0] = 0.0
        return super()._transform(X)


@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_a_reducer_that_writes_into_its_input_is_refused(kind):
    """On dense data (the first the checks fit) and on sparse data alone (a reducer that
    copies dense input and writes into a sparse one's values)."""
    cls = WritesIntoX
    if kind == "sparse":
        cls = type("WritesIntoSparseX", (WritesIntoX,), {"_transform": _sparse_only})
    with pytest.raises(ReducerOutputError) as err:
        check_reducer(cls(n_components=3, random_state=0))
    line = str(err.value)
    assert "\n" not in line and line.startswith(f"{cls.__name__} on {kind} data at r=3: ")
    assert "it changed its input X in place" in line


def _sparse_only(self, X):
    if isinstance(X, np.ndarray):
        return GaussianProjection._transform(self, X)
    return WritesIntoX._transform(self, X)


@pytest.mark.parametrize(
    ("cls", "says"),
    [
        (WritesIntoXLater, "it changed its input X in place"),
        (Unseeded, "a second fit gave another output"),
        (GlobalDraw, "changed numpy's global random state"),
        (HashDependent, "a fresh process gave another output"),
        (FalselyDeterministic, "another seed gave another output"),
        (Stateful, "a second fit gave another output"),
    ],
)
def test_a_broken_contract_is_one_line(cls, says):
    with pytest.raises(ReducerOutputError) as err:
        check_reducer(cls(n_components=3, random_state=0))
    line = str(err.value)
    assert "\n" not in line and line.startswith(f"{cls.__name__} on dense data at r=3: ")
    assert says in line


@pytest.mark.parametrize(
    ("cls", "says"), [(FailsAfresh, "not in a fresh process"), (EndsAfresh, "exit status 3")]
)
def test_of_several_reducers_the_one_a_fresh_process_cannot_fit_is_named(cls, says, monkeypatch):
    monkeypatch.setattr(cls, "here", True)
    with pytest.raises(ReducerOutputError) as err:
        check_reducers([GaussianProjection(n_components=3, random_state=0), cls(3, random_state=0)])
    line = str(err.value)
    assert "\n" not in line and line.startswith(f"{cls.__name__}: a fresh process could not fit")
    assert says in line
