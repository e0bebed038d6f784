"""The README's "Python API" example, extracted verbatim and run as a user would: in a fresh
interpreter, in an empty folder; the frames it builds hold the run's cells."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

README = Path(__file__).parents[2] / "README.md"


def readme_example() -> str:
    """The first ``python`` block of the README's "Python API" section."""
    section = README.read_text().split("\n## Python API\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)[0]


def test_the_example_uses_the_public_api_only():
    code = readme_example()
    assert code.startswith("import kmdr\n")
    assert "kmdr.run(" in code and "kmdr.read_results(" in code
    assert re.findall(r"\bkmdr\.(\w+)", code) == ["run", "read_results"]


@pytest.mark.slow
def test_the_readme_example_runs_as_written(tmp_path):
    report = (
        "\nimport json\n"
        "print(json.dumps({'cells': len(cells), 'ids': sorted(cells['cell_id']), "
        "'experiments': sorted(set(everything['experiment']))}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "HYDRA_FULL_ERROR"}
    proc = subprocess.run(
        [sys.executable, "-c", readme_example() + report],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["cells"] == 4 and out["experiments"] == ["custom"]  # 2 r values x 2 repetitions
    csv = pd.read_csv(tmp_path / "my-results" / "custom" / "cells.csv")
    assert out["ids"] == sorted(csv["cell_id"])
    assert "\r" not in proc.stderr  # not a terminal: no progress bar
