"""Deterministic work is computed once per sweep, random work once per repetition.

Reducers declare it (``is_deterministic``, ``shared_is_deterministic``, default False); the sweep
reduces a deterministic reducer once for all repetitions of a cell and computes deterministic
shared work once per key, with every cell's numbers those of computing it alone.
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from sklearn.utils import check_random_state

import kmdr.reducers._registry as registry
from _run_configs import run_alone, synth_run
from kmdr._io import read_csv
from kmdr.config.schema import from_config
from kmdr.config.seeds import shared_seed
from kmdr.engine.data_path import prepare_data
from kmdr.engine.sweep import group_cells
from kmdr.engine.work import compute_cell, compute_shared_work
from kmdr.plugins import Registry
from kmdr.reducers import make_reducer
from kmdr.reducers._base import BaseReducer, RandomProjectionBase
from kmdr.results.cells import plan_cells

KEY = ["reducer", "r", "repetition"]
METRICS = ["objective", "objective_reduced", "accuracy", "nmi", "ari", "n_iter", "seed"]
CALLS: Counter = Counter()


class RandomUndeclared(RandomProjectionBase):
    """A user's random projection that declares nothing: must be recomputed per repetition."""

    def _fit(self, X, shared_value):
        CALLS["random_fit"] += 1
        rng = check_random_state(self.random_state)
        self.components_ = rng.standard_normal((X.shape[1], self.n_components_))

    def _transform(self, X):
        return np.asarray(X @ self.components_)


class TopVariance(BaseReducer):
    """Deterministic: the r columns of largest variance, from deterministic shared work."""

    def __init__(self, n_components=2):
        self.n_components = n_components

    def is_deterministic(self, X):
        return True

    def shared_is_deterministic(self, X):
        return True

    def shared_key(self, X):
        return ("test_variances",)

    def _compute_shared_value(self, X, random_state):
        CALLS["variance_shared"] += 1
        return np.argsort(-np.asarray(X).var(axis=0), kind="stable")

    def _fit(self, X, order):
        CALLS["variance_fit"] += 1
        self.columns_ = order[: self.n_components_]

    def _transform(self, X):
        return np.asarray(X)[:, self.columns_]


class RandomSharedUndeclared(RandomProjectionBase):
    """Shared work that draws (a random column order) and declares nothing about it."""

    def shared_key(self, X):
        return ("test_random_order",)

    def _compute_shared_value(self, X, random_state):
        CALLS["order_shared"] += 1
        seed = self.random_state if random_state is None else random_state
        return check_random_state(seed).permutation(X.shape[1])

    def _fit(self, X, order):
        self.columns_ = order[: self.n_components_]

    def _transform(self, X):
        return np.asarray(X)[:, self.columns_]


TEST_REDUCERS = {
    "t_random": registry.ReducerEntry(RandomUndeclared, "TRandom"),
    "t_topvar": registry.ReducerEntry(TopVariance, "TTopVar"),
    "t_randshared": registry.ReducerEntry(RandomSharedUndeclared, "TRandShared"),
}


@pytest.fixture
def test_reducers(monkeypatch):
    # A registry of the built-ins and these reducers, in place of the installed one.
    reducers = Registry("reducer", registry.ENTRY_POINT_GROUP, convert=registry._loaded_entry)
    for name, entry in {**registry.BUILTIN_REDUCERS, **TEST_REDUCERS}.items():
        reducers.declare(name, entry)
    monkeypatch.setattr(registry, "REDUCERS", reducers)
    CALLS.clear()
    yield CALLS


def config(results_dir, reducers, **over):
    run_config = synth_run(
        results_dir,
        "groups",
        (90, 24, 3),
        reducers=[{"name": name} for name in reducers],
        r_grid=[2, 5],
        repeats=3,
        seed=11,
        kmeans={"n_init": 2, "max_iter": 50, "init": "random", "tol": 0.0},
    )
    return {**run_config, **over}


def run(results_dir, reducers, **over):
    spec = from_config(config(results_dir, reducers, **over))
    outcome = run_alone(*spec)
    df = read_csv(outcome.experiment_dir / "cells.csv").sort_values(KEY)  # floats exact
    (side,) = (outcome.experiment_dir / "runs").glob(f"{outcome.run_id}.json")
    return outcome, df.reset_index(drop=True), json.loads(side.read_text())


def separately(spec):
    """Every planned cell of ``spec`` computed alone, its shared work drawn with the seed of its
    (key, repetition), as a sweep without any reuse computes it."""
    from kmdr.datasets import load_dataset

    data = load_dataset(spec.experiment.dataset.name, **spec.experiment.dataset.params)
    X, y, k = prepare_data(data.X), np.asarray(data.y), int(data.n_clusters)
    rows = []
    for cell in plan_cells(spec.experiment, X, k, data.fingerprint):
        shared = None
        if cell.shared_key is not None:
            seed = shared_seed(
                spec.experiment.seed, spec.experiment.dataset.name, cell.shared_key, cell.repetition
            )
            shared = compute_shared_work(cell.reducer_name, cell.params, cell.r, k, X, seed)
        metrics = compute_cell(cell, X, y, k, shared)
        rows.append({"reducer": cell.reducer_id, "r": cell.r, "repetition": cell.repetition,
                     "seed": cell.seed, **metrics})  # fmt: skip
    return pd.DataFrame(rows).sort_values(KEY).reset_index(drop=True)


def test_an_undeclared_random_reducer_is_recomputed_every_repetition(tmp_path, test_reducers):
    outcome, df, _ = run(tmp_path, ["t_random"])
    assert outcome.n_computed == 6 and test_reducers["random_fit"] == 6
    for _, cells in df.groupby("r"):  # other draws in every repetition
        assert cells.objective_reduced.nunique() == 3


def test_a_deterministic_reducer_reduces_once_and_times_every_repetition(tmp_path, test_reducers):
    outcome, df, side = run(tmp_path, ["t_topvar"])
    assert outcome.n_computed == 6
    # The shared work is computed once for the output every repetition uses, then run again for
    # each further repetition only to time it (3 repetitions: 1 + 2); likewise the reduction:
    # once per r for the output plus once per further repetition (2 r x 3 repetitions).
    assert test_reducers["variance_shared"] == 3
    assert test_reducers["variance_fit"] == 6
    (work,) = side["shared_work"]
    assert work["key"] == "test_variances" and work["repetition"] is None
    per_rep = df.groupby("repetition")["shared_seconds"]
    assert (per_rep.nunique() == 1).all()  # one measurement per repetition, charged to every r
    assert per_rep.first().nunique() == 3 and work["seconds"] in set(df.shared_seconds)
    for _, cells in df.groupby("r"):  # every repetition has its own measured reduction time
        assert cells.reduce_seconds.nunique() == 3 and cells.seed.nunique() == 3
    assert set(df.reduce_timing) == {"shared per repetition"}
    alone = separately(from_config(config(tmp_path, ["t_topvar"])))
    pd.testing.assert_frame_equal(df[KEY + METRICS], alone[KEY + METRICS])


def test_undeclared_random_shared_work_is_drawn_every_repetition(tmp_path, test_reducers):
    _, df, side = run(tmp_path, ["t_randshared"])
    assert test_reducers["order_shared"] == 3
    assert sorted(w["repetition"] for w in side["shared_work"]) == [0, 1, 2]
    alone = separately(from_config(config(tmp_path, ["t_randshared"])))
    pd.testing.assert_frame_equal(df[KEY + METRICS], alone[KEY + METRICS])


def test_a_partial_group_computes_only_its_missing_cells(tmp_path, test_reducers):
    _, full, _ = run(tmp_path, ["t_topvar"])
    path = tmp_path / "groups" / "cells.csv"
    missing = full[(full.r == 5) & (full.repetition == 1)].cell_id.item()
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(line for line in lines if missing not in line))
    before = set(path.read_text().splitlines()[1:])
    test_reducers.clear()
    outcome, again, _ = run(tmp_path, ["t_topvar"])
    assert (outcome.n_computed, outcome.n_reused) == (1, 5)
    assert test_reducers["variance_fit"] == 1
    assert before <= set(path.read_text().splitlines())  # the rows kept, byte for byte
    pd.testing.assert_frame_equal(again[KEY + METRICS], full[KEY + METRICS])
    # Growing the repetitions computes the new ones only: one reduction per r for the output,
    # re-run once for the other new repetition to time it.
    test_reducers.clear()
    outcome, _, _ = run(tmp_path, ["t_topvar"], repeats=5)
    assert (outcome.n_computed, outcome.n_reused) == (4, 6)
    assert test_reducers["variance_fit"] == 4


BUILTINS = ["svd", "laplacian", "none", "leverage", "ridge_leverage", "lle", "sign", "svd_approx"]


@pytest.mark.slow
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_builtin_grid_gives_the_numbers_of_each_cell_alone(tmp_path, n_jobs):
    cfg = {"r_grid": [2, 5, 12], "repeats": 2, "n_jobs": n_jobs}
    cfg["dataset"] = {"name": "synth", "params": {"n_samples": 120, "n_features": 30,
                                                 "n_clusters": 3}}  # fmt: skip
    outcome, df, side = run(tmp_path, BUILTINS, **cfg)
    assert outcome.n_computed == len(df) == 2 * (7 * 3 + 1)
    alone = separately(from_config(config(tmp_path, BUILTINS, **cfg)))
    pd.testing.assert_frame_equal(df[KEY + METRICS], alone[KEY + METRICS])
    # Deterministic shared works once for both repetitions; the rest once per repetition.
    reps = {(w["key"], w["repetition"]) for w in side["shared_work"]}
    assert ("laplacian_scores/5/auto", None) in reps and ("exact_svd/3", None) in reps
    assert ("thin_svd", None) in reps
    assert all(w["computations"] <= n_jobs for w in side["shared_work"])


def test_declarations():
    X = np.zeros((300, 40))
    small = np.zeros((150, 40))
    assert not BaseReducer().is_deterministic(X) and not BaseReducer().shared_is_deterministic(X)
    assert make_reducer("svd", 5).is_deterministic(X)
    assert not make_reducer("svd_approx", 5).is_deterministic(X)
    assert make_reducer("laplacian", 5).is_deterministic(X)
    assert make_reducer("laplacian", 5).shared_is_deterministic(X)
    assert make_reducer("none", None).is_deterministic(X)
    for name in ("sign", "gaussian", "achlioptas", "leverage", "ridge_leverage", "sparsified"):
        assert not make_reducer(name, 5, n_clusters=3).is_deterministic(X), name
    assert make_reducer("leverage", 5, n_clusters=3).shared_is_deterministic(X)
    assert not make_reducer("leverage_approx", 5, n_clusters=3).shared_is_deterministic(X)
    assert make_reducer("ridge_leverage", 5, n_clusters=3).shared_is_deterministic(X)
    # LLE: scikit-learn's ARPACK (n > 200 and r < 9) starts from random_state; dense does not.
    assert not make_reducer("lle", 5).is_deterministic(X)
    assert make_reducer("lle", 9).is_deterministic(X)
    assert make_reducer("lle", 5).is_deterministic(small)
    assert make_reducer("lle", 5, eigen_solver="dense").is_deterministic(X)
    assert not make_reducer("lle", 20, eigen_solver="arpack").is_deterministic(X)


def test_group_cells_groups_only_deterministic_repetitions(tmp_path, test_reducers):
    from kmdr.datasets import load_dataset

    spec = from_config(config(tmp_path, ["t_random", "t_topvar", "t_randshared", "none"]))
    data = load_dataset(spec.experiment.dataset.name, **spec.experiment.dataset.params)
    cells = plan_cells(spec.experiment, prepare_data(data.X), 3, data.fingerprint)
    groups = group_cells(cells)
    assert sorted(c.cell_id for g in groups for c in g) == sorted(c.cell_id for c in cells)
    for group in groups:
        if group[0].reducer_id in ("t_topvar", "none"):
            assert len(group) == 3 and len({(c.reducer_id, c.r) for c in group}) == 1
        else:
            assert len(group) == 1


def test_kmeans_copies_only_when_c_is_the_shared_data(monkeypatch):
    # The baseline hands back the data itself, which other cells (threads) read: k-means must
    # copy it. A reducer's own C may be centered in place (and given back bit for bit).
    import numpy as np

    import kmdr.kmeans.lloyd
    from kmdr.engine import work
    from kmdr.reducers import make_reducer

    calls = []
    real = kmdr.kmeans.lloyd.kmeans

    def spy(C, k, **kw):
        calls.append(kw["copy_x"])
        return real(C, k, **kw)

    monkeypatch.setattr(kmdr.kmeans.lloyd, "kmeans", spy)
    X = np.random.default_rng(0).standard_normal((60, 8)) + 3.0
    y = np.repeat(np.arange(3), 20)
    settings = {"n_init": 1, "max_iter": 20, "init": "random", "tol": 0.0}
    for name, r in (("none", 8), ("sign", 4)):
        red = make_reducer(name, r, random_state=0)
        C = red.fit_transform(X)
        work.cluster_reduced(red, C, X, 3, settings, y, 0)
    assert calls == [True, False]


def test_a_dry_run_plans_from_declared_facts_and_loads_only_for_an_undeclared_plan(
    tmp_path, test_reducers
):
    """Planning from the data's declared facts gives the cells planning on the data gives; a
    reducer whose entry declares no plan is asked through its class, on the data loaded once."""
    from kmdr.datasets import load_dataset
    from kmdr.reducers import DataFacts

    names = ["leverage", "svd", "laplacian", "none", *TEST_REDUCERS]
    spec = from_config(config(tmp_path, names))
    data = load_dataset(spec.experiment.dataset.name, **spec.experiment.dataset.params)
    X, k = prepare_data(data.X), int(data.n_clusters)
    loads = []
    facts = DataFacts(*X.shape, sparse=False, load=lambda: loads.append(1) or X)
    planned = plan_cells(spec.experiment, facts, k, data.fingerprint)
    on_data = plan_cells(spec.experiment, X, k, data.fingerprint)
    assert planned == on_data and loads  # the plug-ins' classes were asked, on the data
    builtins_only = from_config(config(tmp_path, names[:4])).experiment
    loads.clear()
    assert plan_cells(builtins_only, facts, k, data.fingerprint) == plan_cells(
        builtins_only, X, k, data.fingerprint
    )
    assert not loads  # every built-in's plan is declared: the data was not needed
