"""Hydra's Optuna sweeper drives ``kmdr``: the task returns the run's mean accuracy, so Optuna
tunes a reducer's parameter on it (the optional extra ``kmdr[optuna]``)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pandas as pd
import pytest
import yaml

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("hydra_plugins.hydra_optuna_sweeper") is None,
        reason="hydra-optuna-sweeper is not installed (pip install 'kmdr[optuna]')",
    ),
]


def test_optuna_tunes_a_reducer_parameter_on_the_mean_accuracy(tmp_path):
    results = tmp_path / "r"
    args = [
        "-m",
        "hydra/sweeper=optuna",
        "hydra.sweeper.n_trials=4",
        "hydra.sweeper.direction=maximize",
        "hydra.sweeper.sampler.seed=0",
        "dataset=synth",
        "+dataset.params={n_samples:90,n_features:20,n_clusters:3,std:4.0}",
        "reducer=svd_approx",
        "+reducers.svd_approx.params.eps=interval(0.1,0.9)",
        "r_grid=[2,4]",
        "repeats=2",
        "kmeans.n_init=1",
        "n_jobs=1",
        "figures=false",
        "progress=false",
        f"results_dir={results}",
    ]
    code = "import sys; from kmdr.app import main; sys.exit(main())"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    (found,) = tmp_path.glob("multirun/*/optimization_results.yaml")
    best = yaml.safe_load(found.read_text())
    eps = best["best_params"]["+reducers.svd_approx.params.eps"]
    cells = pd.read_csv(results / "custom" / "cells.csv")
    cells["eps"] = [json.loads(p)["eps"] for p in cells["reducer_params"]]
    per_trial = cells.groupby("eps")["accuracy"].mean()
    assert len(per_trial) == 4 and (cells.groupby("eps").size() == 4).all()  # 2 r x 2 reps
    # Optuna received each trial's mean accuracy: the best it names is that trial's, and no
    # other trial did better.
    assert best["best_value"] == pytest.approx(per_trial[eps], rel=1e-12)
    assert best["best_value"] == pytest.approx(per_trial.max(), rel=1e-12)
