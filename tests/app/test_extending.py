"""The README's "Extending kmdr" section, done as a user would: a toy reducer and a toy dataset in
their own package (plugged in through entry points), their configs and a preset in their own
config folder, run through the CLI, drawn by kmdr-figures and reported by kmdr-report. Nothing in
kmdr is edited."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

PACKAGE = '''
"""A user's own package: one reducer and one dataset for kmdr."""

import numpy as np
from sklearn.datasets import make_blobs

from kmdr.datasets import Dataset
from kmdr.reducers import BaseReducer, ReducerEntry


class TopVariance(BaseReducer):
    """Keep the r features of largest variance (a classic unsupervised selection baseline)."""

    def __init__(self, n_components=2):
        self.n_components = n_components

    def _fit(self, X, shared_value):
        X = X.toarray() if hasattr(X, "toarray") else X
        self.features_ = np.argsort(-X.var(axis=0), kind="stable")[: self.n_components_]

    def _transform(self, X):
        return X[:, self.features_]


TOP_VARIANCE = ReducerEntry(TopVariance, "TopVar", paper="a user's baseline")


def load_toyblobs(n_samples=300):
    """Four Gaussian blobs in 20 dimensions (a user's own data)."""
    X, y = make_blobs(n_samples=n_samples, n_features=20, centers=4, random_state=0)
    return Dataset("toyblobs", X.astype(float), y.astype(np.int64), 4, None, "toy blobs")
'''

ENTRY_POINTS = """
[kmdr.reducers]
top_variance = kmdr_toy:TOP_VARIANCE

[kmdr.datasets]
toyblobs = kmdr_toy:load_toyblobs
"""

CONFIGS = {
    "reducer/top_variance.yaml": """
        # @package _global_
        reducers:
          - {id: top_variance, name: top_variance, params: {}}
    """,
    "dataset/toyblobs.yaml": """
        name: toyblobs
        params: {n_samples: 300}
    """,
    "experiment/toy_study.yaml": """
        # @package _global_
        defaults:
          - override /dataset: toyblobs
          - override /reducer: null
        name: toy_study
        preset:
          title: "Toy study: top-variance features against RP"
          figure: bzmd14
          section: custom
          order: 500
        reducers:
          - {id: top_variance, name: top_variance, params: {}}
          - {id: sign, name: sign, params: {}}
          - {id: none, name: none, params: {}}
        r_grid: [2, 5, 10]
        repeats: 2
        kmeans: {n_init: 2, max_iter: 100, init: k-means++, tol: 0.0}
    """,
}


@pytest.fixture
def user_project(tmp_path) -> Path:
    plugin = tmp_path / "site"
    plugin.mkdir()
    (plugin / "kmdr_toy.py").write_text(textwrap.dedent(PACKAGE))
    info = plugin / "kmdr_toy-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kmdr-toy\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    for rel, text in CONFIGS.items():
        path = tmp_path / "conf" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    return tmp_path


def _run(args: list[str], project: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(project / "site"), *sys.path])}
    env["OMP_NUM_THREADS"] = "1"
    return subprocess.run(
        args, cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def _kmdr(tool: str, *args: str, project: Path) -> subprocess.CompletedProcess:
    code = f"import sys; from {tool} import main; sys.exit(main())"
    return _run([sys.executable, "-c", code, *args], project)


def test_a_users_reducer_dataset_and_preset_run_through_cli_figures_and_report(user_project):
    results = user_project / "results"
    run = _kmdr(
        "kmdr.app",
        "-cd",
        str(user_project / "conf"),
        "experiment=toy_study",
        f"results_dir={results}",
        "n_jobs=1",
        "progress=false",
        project=user_project,
    )
    assert run.returncode == 0, run.stderr
    cells = pd.read_csv(results / "toy_study" / "cells.csv")
    assert len(cells) == 2 * 3 * 2 + 2
    assert set(cells["method"]) == {"TopVar", "RP", "kMeans"}
    # Four well-separated blobs: the user's selection finds them from a few features.
    top = cells[cells["reducer"] == "top_variance"]
    assert top.loc[top["r"] == 10, "accuracy"].min() == 1.0

    listed = _kmdr("kmdr.listing", "reducers", "datasets", project=user_project)
    assert listed.returncode == 0, listed.stderr
    assert "top_variance" in listed.stdout and "toyblobs" in listed.stdout

    figures = _kmdr("kmdr.figures.draw", str(results), project=user_project)
    assert figures.returncode == 0, figures.stderr
    drawn = list((results / "toy_study" / "figures").glob("*.png"))
    assert drawn

    report = _kmdr("kmdr.report.build", str(results), project=user_project)
    assert report.returncode == 0, report.stderr
    text = (results / "REPORT.md").read_text()
    assert "Toy study: top-variance features against RP" in text
    assert any(p.name in text for p in drawn)


@pytest.mark.fault(
    "a misspelt key in a preset of the user's own config folder (-cd)",
    gets="exit 2, one line naming the key (installed command)",
)
def test_a_typo_in_the_users_preset_is_one_line(user_project):
    conf = user_project / "conf" / "experiment" / "toy_study.yaml"
    conf.write_text(conf.read_text().replace("repeats: 2", "repaets: 2"))
    run = _kmdr(
        "kmdr.app",
        "-cd",
        str(user_project / "conf"),
        "experiment=toy_study",
        f"results_dir={user_project / 'results'}",
        project=user_project,
    )
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "repaets" in run.stderr
