"""The README's and the running guide's commands on a user's own data (their ``console`` blocks,
which need a file of the user's, so tests/test_readme.py leaves them) run as written, as dry runs,
on the files they name written here; the OpenML one from scikit-learn's own stored responses for
iris (id 61), with no network."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sklearn.datasets
from test_openml import serve

from _command import run_kmdr

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = (ROOT / "README.md", ROOT / "docs" / "guide" / "running.md")
_CONSOLE = re.compile(r"^```console\n(.*?)^```", re.M | re.S)
#: scikit-learn's stored OpenML responses of its own tests (iris, id 61).
SKLEARN_OPENML = Path(sklearn.datasets.__file__).parent / "tests" / "data" / "openml"


def user_data_commands() -> list[list[str]]:
    """The ``$ kmdr ...`` lines of the documents' console blocks that name a dataset of the user's
    (``dataset=file`` or ``dataset=openml``), each as its words."""
    found = []
    for document in DOCUMENTS:
        for block in _CONSOLE.findall(document.read_text(encoding="utf-8")):
            for line in block.splitlines():
                if line.startswith("$ kmdr ") and re.search(r"\bdataset=(file|openml)\b", line):
                    found.append(shlex.split(line[2:], comments=True)[1:])
    return found


def _write(path: Path, label: str | None) -> None:
    """The file a command names: the wine data where it says so, else 3 blobs in 40 features
    (the README's r-grid needs d above 20)."""
    from sklearn.datasets import load_wine, make_blobs

    if path.stem.startswith("wine"):
        X, y = load_wine(return_X_y=True, as_frame=True)
    else:
        data, labels = make_blobs(120, 40, centers=3, random_state=0)
        X, y = pd.DataFrame(data).add_prefix("f"), pd.Series(labels)
    if path.suffix == ".npy":
        np.save(path, X.to_numpy())
    else:
        pd.concat([X, y.rename(label)], axis=1).to_csv(path, index=False)


def test_the_documents_show_a_csv_an_unlabeled_npy_and_openml():
    commands = [" ".join(c) for c in user_data_commands()]
    assert any(".csv" in c and "dataset.params.label=" in c for c in commands)
    assert any(".npy" in c and "dataset.params.n_clusters=" in c for c in commands)
    assert any("dataset=openml" in c for c in commands)


@pytest.mark.slow  # each command composed and planned
@pytest.mark.parametrize("args", user_data_commands(), ids=lambda a: " ".join(a)[:60])
def test_each_documented_command_runs_on_the_file_it_names(args, tmp_path, monkeypatch):
    params = dict(a.split("=", 1) for a in args if a.startswith("dataset.params."))
    if "dataset.params.path" in params:
        _write(tmp_path / params["dataset.params.path"], params.get("dataset.params.label"))
    else:
        assert params["dataset.params.data_id"] == "61"
        serve(monkeypatch, SKLEARN_OPENML / "id_61")
    proc = run_kmdr([*args, f"data_dir={tmp_path / 'cache'}", "dry_run=true"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "cells to compute" in proc.stdout + proc.stderr
