# ruff: noqa: E501  (one bad-output case per line reads best)
"""Plug-ins that misbehave, installed as a real package on a temporary path: reducers whose output
cannot be scored (checked before scoring, one line naming the reducer, r, the problem and the fix;
finished cells kept) and name clashes (built-ins win; two plug-ins of one name are refused when
that name is used). The commands run in this process (``kmdr``'s main, as its console script
calls it), the package put on the path and the plug-ins found again."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _command import installed, run_kmdr
from kmdr.results.records import NUMERIC_METRIC_COLUMNS

PACKAGE = '''
import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from kmdr.reducers import BaseReducer, ReducerPlan
from kmdr.datasets import Dataset


class Bad(BaseReducer):
    """Takes the first r columns, then does the one wrong thing its class says."""

    def __init__(self, n_components=2, random_state=None):
        self.n_components = n_components
        self.random_state = random_state

    def _fit(self, X, shared_value):
        pass

    def _first(self, X):
        X = X.toarray() if sp.issparse(X) else X
        return np.array(X[:, : self.n_components_])

    def _transform(self, X):
        return self._first(X)


class WideOutput(Bad):
    def _transform(self, X):
        X = X.toarray() if sp.issparse(X) else X
        return np.array(X[:, : self.n_components_ + 1])


class ComplexOutput(Bad):
    def _transform(self, X):
        return self._first(X) + 0j


class ObjectOutput(Bad):
    def _transform(self, X):
        return self._first(X).astype(object)


class IntegerOutput(Bad):
    def _transform(self, X):
        return np.rint(self._first(X)).astype(np.int64)


class NaNOutput(Bad):
    def _transform(self, X):
        C = self._first(X)
        C[0, 0] = np.nan
        return C


class ListOutput(Bad):
    def _transform(self, X):
        return self._first(X).tolist()


class GlobalRNG(Bad):
    def _transform(self, X):
        C = self._first(X)
        return C + 1e-9 * np.random.rand(*C.shape)


_CALLS = [0]


class NotReproducible(Bad):
    def _transform(self, X):
        _CALLS[0] += 1
        return self._first(X) + 1e-9 * _CALLS[0]


class HashDependent(Bad):
    def _transform(self, X):  # hash() of a str differs between processes (PYTHONHASHSEED)
        # the whole 64-bit hash: two hash seeds giving the same shift is not a 1 in 1000 event
        return self._first(X) + 1e-6 * (hash("kmdr") / 2**63)


class FalselyDeterministic(Bad):
    """Declares its reduction independent of random_state, and draws from it."""

    plan = ReducerPlan(deterministic=lambda params, data: True)

    def _transform(self, X):
        noise = check_random_state(self.random_state).normal(size=(X.shape[0], self.n_components_))
        return self._first(X) + 1e-9 * noise


class Fine(Bad):
    pass


class Overflowing(Bad):
    """Finite output at 1e300 times the data's scale: k-means' squared distances overflow."""

    def _transform(self, X):
        return self._first(X) * 1e300


class Collapsed(Bad):
    """Finite output with two distinct points: k-means warns that it finds fewer clusters."""

    def _transform(self, X):
        first = self._first(X)
        return np.zeros_like(first) + (np.arange(len(first)) % 2)[:, None]


def load_orl():
    """A plug-in dataset named like a built-in."""
    raise RuntimeError("never loaded: the built-in orl wins")


def load_twin():
    X = np.random.default_rng(0).normal(size=(30, 6))
    return Dataset("twin", X, np.arange(30) % 3, 3, None, "twin")
'''

REDUCERS = {
    "wide": "WideOutput",
    "complexout": "ComplexOutput",
    "objectout": "ObjectOutput",
    "intout": "IntegerOutput",
    "nanout": "NaNOutput",
    "listout": "ListOutput",
    "globalrng": "GlobalRNG",
    "unrepro": "NotReproducible",
    "hashdep": "HashDependent",
    "falsedet": "FalselyDeterministic",
    "fine": "Fine",
    "overflowing": "Overflowing",
    "collapsed": "Collapsed",
    "sign": "Fine",  # named like a built-in
}


def _dist(site: Path, dist: str, entry_points: str) -> None:
    # the folder's name up to its first "-" is the distribution's (underscores in the name)
    info = site / f"{dist.replace('-', '_')}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("site")
    (site / "kmdr_badplug.py").write_text(PACKAGE)
    lines = "\n".join(f"{name} = kmdr_badplug:{cls}" for name, cls in REDUCERS.items())
    datasets = "orl = kmdr_badplug:load_orl\ntwin = kmdr_badplug:load_twin\n"
    _dist(site, "kmdr-badplug", f"[kmdr.reducers]\n{lines}\n[kmdr.datasets]\n{datasets}")
    # a second package declaring a reducer and a dataset of the same names as the first
    _dist(
        site,
        "kmdr-otherplug",
        "[kmdr.reducers]\nfine = kmdr_badplug:Fine\n[kmdr.datasets]\ntwin = kmdr_badplug:load_twin\n",
    )
    return site


def kmdr(plugged: Path, cwd: Path, *args: str):
    """``kmdr args`` in this process, with the plug-in package of ``plugged`` found afresh as a
    command finds it as it starts (its options registered, its warnings printed first on its
    stderr): its exit status and output, as a finished process's."""
    import warnings

    from kmdr.app import compose
    from kmdr.datasets import reload_plugins as reload_datasets
    from kmdr.reducers import reload_plugins as reload_reducers

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        reload_reducers()
        reload_datasets()
        compose._register()
    warned = "".join(
        warnings.formatwarning(w.message, w.category, w.filename, w.lineno) for w in caught
    )
    run = run_kmdr(list(args), cwd)
    return subprocess.CompletedProcess(run.args, run.returncode, run.stdout, warned + run.stderr)


RUN = [
    "dataset=synth",
    "+dataset.params={n_samples:60,n_features:12,n_clusters:3}",
    "r_grid=[3]",
    "repeats=1",
    "kmeans.n_init=1",
    "n_jobs=1",
    "backend=sequential",
    "figures=false",
    "progress=false",
]
WARNINGS = ("kmdr.reducers:0: UserWarning", "kmdr.datasets:0: UserWarning")


def _errors(stderr: str) -> list[str]:
    """stderr without the plug-in clash warnings every command of this site prints."""
    return [ln for ln in stderr.splitlines() if ln and not ln.startswith(WARNINGS)]


def output_case(name, problem, what):
    return pytest.param(
        name,
        problem,
    )


@pytest.fixture
def plugged(site, monkeypatch):
    """The plug-in package installed in this process (:func:`_command.installed`), and the
    environment a command starts in (one BLAS thread, Hydra's own error printing); the site's
    folder. The clashes the package declares on purpose warn as it is installed: each test
    reads its own warnings (:func:`kmdr` finds the plug-ins afresh), not these."""
    import contextlib
    import warnings

    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.delenv("HYDRA_FULL_ERROR", raising=False)
    with contextlib.ExitStack() as stack:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            stack.enter_context(installed(site))
        yield site


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        output_case("complexout", "dtype complex128, not a real floating type", "a plug-in reducer returning complex values"),
        output_case("objectout", "dtype object, not a real floating type", "a plug-in reducer returning an object array"),
        output_case("intout", "dtype int64, not a real floating type", "a plug-in reducer returning integers"),
        output_case("nanout", "holds 1 NaN or infinite values", "a plug-in reducer returning NaN"),
        output_case("listout", "transform returned a list", "a plug-in reducer returning a Python list"),
    ],
)  # fmt: skip
def test_a_reducer_output_that_cannot_be_scored_is_refused(name, problem, plugged):
    """The worker's own cell function, on a real cell of the plug-in reducer."""
    import warnings

    from kmdr.config.schema import from_config
    from kmdr.engine.reducer_checks import ReducerOutputError
    from kmdr.engine.work import compute_cell
    from kmdr.results.cells import plan_cells

    X = np.random.default_rng(0).normal(size=(60, 12))
    y = np.arange(60) % 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the site's clash warnings
        spec = from_config(
            {
                "dataset": {"name": "synth"},
                "reducers": [{"name": name}],
                "r_grid": [3],
                "repeats": 1,
            }
        )
        (cell,) = plan_cells(spec.experiment, X, 3, "content:test")
        if name == "nanout":  # the cell's line in place of its metrics: the sweep goes on
            line = compute_cell(cell, X, y, 3)
        else:
            with pytest.raises(ReducerOutputError) as err:
                compute_cell(cell, X, y, 3)
            line = str(err.value)
    assert "\n" not in line and line.startswith(f"reducer '{name}' ({name}) at r=3: ")
    assert problem in line and "; " in line.split(problem, 1)[1]  # the fix follows


@pytest.mark.slow
def test_a_reducer_returning_too_many_columns_stops_the_run_and_keeps_cells(plugged, tmp_path):
    results = tmp_path / "r"
    # The baseline's cells run first (longest first) and are kept when the bad reducer stops.
    run = kmdr(plugged, tmp_path, *RUN, "reducer=[none,wide]", f"results_dir={results}")
    assert run.returncode == 1, run.stderr
    (line,) = _errors(run.stderr)
    assert "Traceback" not in run.stderr and line.startswith("kmdr: error: ")
    assert "reducer 'wide' (wide) at r=3: its output has shape (60, 4), not (60, 3)" in line
    assert "finished cells are kept" in line
    cells = pd.read_csv(results / "custom" / "cells.csv")
    assert set(cells["reducer"]) == {"none"} and len(cells) == 1


@pytest.mark.slow
@pytest.mark.filterwarnings("default::RuntimeWarning")  # numpy's overflow, as a user sees it
def test_work_that_is_not_finite_is_never_a_row(plugged, tmp_path):
    """A reducer whose finite output (1e300 times the data) makes k-means overflow: each of its
    cells fails in one line naming it (with no numpy or scikit-learn overflow warning above it),
    none is written, the baseline's cells are, and the run ends with one line counting them,
    exit 1."""
    results = tmp_path / "r"
    grid = ["r_grid=[2,3]", "repeats=2"]
    run = kmdr(plugged, tmp_path, *RUN, *grid, "reducer=[none,overflowing]",
               f"results_dir={results}")  # fmt: skip
    assert run.returncode == 1, run.stderr
    lines = _errors(run.stderr)
    # the one line is all a cell that is not finite shows: no overflow warning above it
    assert not [ln for ln in lines if "Warning" in ln or ln.startswith("  ")], run.stderr
    failed = [ln for ln in lines if "is not written" in ln]
    assert len(failed) == 4, run.stderr  # r 2 and 3, two repetitions each
    for line in failed:
        assert "reducer 'overflowing' (overflowing) at r=" in line and "not finite" in line
    (last,) = [ln for ln in lines if ln.startswith("kmdr: error: ")]
    assert "4 of 6 cells were not finite and were not written" in last
    assert "Traceback" not in run.stderr
    cells = pd.read_csv(results / "custom" / "cells.csv")
    assert set(cells["reducer"]) == {"none"} and len(cells) == 2
    assert np.isfinite(cells[list(NUMERIC_METRIC_COLUMNS)].to_numpy(dtype=float)).all()
    (record,) = (results / "custom" / "runs").glob("*.json")
    assert len(json.loads(record.read_text())["not_finite"]) == 4


@pytest.mark.slow
def test_a_finite_cells_warnings_reach_the_user(plugged, tmp_path):
    """The warnings held back while a cell's numbers are judged are a finite cell's to show:
    k-means on two distinct points for 3 clusters says it found fewer, and the cell is written."""
    run = kmdr(plugged, tmp_path, *RUN, "reducer=collapsed",
               f"results_dir={tmp_path / 'r'}")  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "ConvergenceWarning: Number of distinct clusters (2)" in run.stderr, run.stderr
    assert len(pd.read_csv(tmp_path / "r" / "custom" / "cells.csv")) == 1


@pytest.mark.slow
def test_a_plugin_named_sign_breaks_nothing(plugged, tmp_path):
    run = kmdr(plugged, tmp_path, *RUN, "reducer=sign", f"results_dir={tmp_path / 'r'}")
    assert run.returncode == 0, run.stderr
    clash = [ln for ln in run.stderr.splitlines() if "'sign'" in ln and "ignored" in ln]
    assert len(clash) == 1 and "kmdr-badplug 0.1" in clash[0]
    cells = pd.read_csv(tmp_path / "r" / "custom" / "cells.csv")
    assert set(cells["method"]) == {"RP"}  # the built-in's label, not the plug-in's


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(
            ["~reducer", "+reducers={fine: {name: fine}}"],
            "reducer 'fine' is declared by 2 plug-ins",
        ),
        pytest.param(
            ["reducer=fine"],
            "reducer 'fine' is declared by 2 plug-ins",
        ),
        pytest.param(
            ["dataset=twin"],
            "dataset 'twin' is declared by 2 plug-ins",
        ),
    ],
)
@pytest.mark.slow
def test_two_plugins_of_one_name_are_refused_when_used(args, expected, plugged, tmp_path):
    run = kmdr(plugged, tmp_path, *RUN[1:], *args, f"results_dir={tmp_path / 'r'}")
    assert expected in run.stderr and "kmdr-badplug" in run.stderr, run.stderr
    assert "kmdr-otherplug" in run.stderr
    if "=" in args[0] and not args[0].startswith("reducers="):  # a group option: Hydra's
        assert run.returncode == 1 and "Could not find" in run.stderr, run.stderr
    else:
        assert run.returncode == 2, run.stderr
        (line,) = _errors(run.stderr)
        assert line.startswith("kmdr: error: ") and expected in line
    assert not (tmp_path / "r").exists()


@pytest.mark.slow
def test_a_dataset_plugin_named_like_a_builtin_is_ignored(plugged, recwarn):
    import warnings

    from kmdr.datasets import dataset_info, dataset_names, reload_plugins

    warnings.simplefilter("default")
    reload_plugins()  # found afresh, as a command that starts finds them
    names = dataset_names()
    assert dataset_info("orl").loader.__module__.startswith("kmdr.datasets")  # not kmdr_badplug's
    assert names.count("orl") == 1
    (line,) = [str(w.message) for w in recwarn if "'orl'" in str(w.message)]
    assert "is ignored" in line and "kmdr-badplug 0.1" in line
