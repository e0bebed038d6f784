"""A cell's identity is every setting that changes its numbers: runs of one experiment name with
other k-means settings, seeds, reducer or dataset parameters never overwrite each other, and an
identical run reuses its cells. Also: dry runs count what would be computed and write nothing."""

from __future__ import annotations

import csv
import hashlib
import io

import pandas as pd
import pytest

from _command import said
from _run_configs import run_alone, synth_run
from kmdr._io import read_csv
from kmdr.config.schema import from_config
from kmdr.results import summary as aggregate
from kmdr.results.records import IDENTITY_COLUMNS, identity_id, seal


def config(results_dir, **over):
    cfg = synth_run(
        results_dir,
        "mine",
        (80, 20, 3),
        reducers=[{"name": "laplacian"}, {"name": "none"}],
        r_grid=[4, 8],
        repeats=2,
        seed=0,
        kmeans={"n_init": 1, "max_iter": 50, "init": "k-means++", "tol": 0.0},
    )
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(cfg.get(key), dict):
            cfg[key] = {**cfg[key], **value}
        else:
            cfg[key] = value
    return cfg


def run(results_dir, **over):
    return run_alone(*from_config(config(results_dir, **over)))


CELLS_PER_RUN = 2 * 2 + 2  # LapScores at 2 r x 2 repetitions, kMeans once per repetition


@pytest.mark.parametrize(
    "other",
    [
        {"kmeans": {"n_init": 3}},
        {"kmeans": {"max_iter": 20}},
        {"kmeans": {"init": "random"}},
        {"kmeans": {"tol": 1e-4}},
        {"seed": 1},
        {"dataset": {"params": {"n_samples": 80, "n_features": 20, "n_clusters": 3, "seed": 5}}},
        {"reducers": [{"name": "laplacian", "params": {"n_neighbors": 3}}, {"name": "none"}]},
        {"blas_threads": 2},
    ],
    ids=[
        "n_init",
        "max_iter",
        "init",
        "tol",
        "seed",
        "dataset_params",
        "reducer_params",
        "blas_threads",
    ],
)
def test_runs_with_another_setting_keep_both(tmp_path, other):
    first = run(tmp_path)
    second = run(tmp_path, **other)
    assert first.n_computed == CELLS_PER_RUN
    # The changed setting changes the identity of every cell it touches: computed, not reused.
    assert second.n_computed + second.n_reused == CELLS_PER_RUN and second.n_computed > 0
    cells = pd.read_csv(tmp_path / "mine" / "cells.csv")
    assert len(cells) == CELLS_PER_RUN + second.n_computed
    assert not cells.duplicated([c for c in IDENTITY_COLUMNS if c in cells]).any()
    assert cells["cell_id"].is_unique


def test_another_thread_count_computes_its_own_cells_and_never_mixes(tmp_path):
    # Two BLAS threads add a cell's sums in another order than one: other cells, never reused for
    # one-thread cells or averaged with them, and each kind reused by its own runs.
    one = run(tmp_path)
    two = run(tmp_path, blas_threads=2)
    assert (one.n_computed, two.n_computed, two.n_reused) == (6, 6, 0)
    assert (run(tmp_path).n_reused, run(tmp_path, blas_threads=2).n_reused) == (6, 6)
    cells = read_csv(tmp_path / "mine" / "cells.csv")
    assert sorted(cells["blas_threads"].value_counts().items()) == [(1, 6), (2, 6)]
    summary = aggregate.read_experiment(tmp_path / "mine").summary
    assert len(summary) == 2 * 3 and (summary["n_cells"] == 2).all()
    assert set(summary["setting"]) == {"blas_threads=1", "blas_threads=2"}


def test_one_thread_is_left_out_of_the_cell_id():
    # The cells computed before the thread count joined the identity (all with one thread) keep
    # their ids: one thread adds nothing to the hash, another count does.
    fields = {c: f"value of {c}" for c in IDENTITY_COLUMNS}
    before = [[c, fields[c]] for c in IDENTITY_COLUMNS if c != "blas_threads"]
    text = "".join(f"{k}\x1f{v}\x1e" for k, v in before)
    old_id = hashlib.sha256(text.encode()).hexdigest()[:24]
    assert identity_id({**fields, "blas_threads": "1"}) == old_id
    assert identity_id({**fields, "blas_threads": "2"}) != old_id


def test_rows_of_another_thread_count_under_a_one_thread_id_are_set_aside(tmp_path):
    # A row computed with 2 threads under the id of the one-thread cell is never reused as that
    # cell; it is named, set aside (kept in cells.rejected.csv), and the one-thread cell computed.
    exp = run(tmp_path).experiment_dir
    rows = list(csv.DictReader(io.StringIO((exp / "cells.csv").read_text())))
    older = [seal({**row, "blas_threads": "2"}) for row in rows]  # cell_id kept
    (exp / "cells.csv").write_text(pd.DataFrame(older, columns=list(rows[0])).to_csv(index=False))
    messages = []
    with said(messages):
        again = run_alone(*from_config(config(tmp_path)))
    assert (again.n_computed, again.n_reused) == (6, 0)
    reason = "its cell_id is not the hash of its identity columns"
    assert any(reason in m and "6 row(s) not trusted" in m for m in messages), messages
    assert len(read_csv(exp / "cells.rejected.csv")) == 6
    assert set(read_csv(exp / "cells.csv")["blas_threads"]) == {1}


def test_identical_run_reuses_every_cell(tmp_path):
    first = run(tmp_path)
    again = run(tmp_path)
    assert (first.n_computed, again.n_computed, again.n_reused) == (6, 0, 6)
    assert len(pd.read_csv(tmp_path / "mine" / "cells.csv")) == 6


def test_dry_run_counts_and_estimates_and_writes_nothing(tmp_path):
    messages = []
    spec = from_config(config(tmp_path, dry_run=True))
    with said(messages):
        outcome = run_alone(*spec)
    assert outcome.status == "dry_run" and outcome.n_computed == 0
    assert not (tmp_path / "mine").exists()
    assert "6 of 6 cells to compute (0 reused)" in messages[-1]
    assert "no earlier run" in messages[-1]

    run(tmp_path)  # now there are earlier cells to estimate from, and all of them are reusable
    more = from_config(config(tmp_path, dry_run=True, r_grid=[4, 8, 12]))
    with said(messages):
        run_alone(*more)
    assert "2 of 8 cells to compute (6 reused)" in messages[-1]
    assert "about" in messages[-1] and "with 1 workers" in messages[-1]


def test_sampling_lemma_is_a_kind_run_like_any_experiment(tmp_path):
    spec = from_config(config(tmp_path, kind="sampling_lemma", r_grid=[5, 50], repeats=3))
    outcome = run_alone(*spec)
    assert outcome.status == "complete"
    table = pd.read_csv(tmp_path / "mine" / "sampling_lemma.csv")
    assert len(table) == 2 * 3 and set(table["r"]) == {5, 50}
    # sigma_i^2 of V_k^T Omega S concentrates around 1 as r grows (bzmd14 Lemma 6)
    spread = table.assign(w=table.sigma2_max - table.sigma2_min).groupby("r")["w"].mean()
    assert spread[50] < spread[5]
