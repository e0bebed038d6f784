"""What ``kmdr`` imports before it needs it: printing a config, planning a dry run whose reducers
take the parameters their declarations state (every preset kmdr ships), or refusing a setting
never loads scikit-learn, scipy, pandas or the plotting library (a property of the imports, not a
timing; the timing is ``scripts/bench/bench_startup.py``). A dry run given other reducer parameters
imports their classes to check them (``tests/app/test_every_setting_used.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

#: scipy too: a plan's shape rules (laplacian's n_neighbors) are checked without it.
HEAVY = ("sklearn", "scipy", "pandas", "matplotlib")


def imported_after(args: list[str], cwd, status: int = 0) -> dict[str, bool]:
    """Run ``kmdr args`` in a fresh interpreter, which must end with exit ``status``; which of
    :data:`HEAVY` it had imported."""
    code = (
        "import json, sys\n"
        "from kmdr.app import main\n"
        f"sys.argv = ['kmdr', *{args!r}]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as e:\n"
        f"    assert (e.code or 0) == {status}, e.code\n"
        f"print(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_printing_a_config_imports_none_of_them(tmp_path):
    loaded = imported_after(["--cfg", "job", "experiment=bzmd14_orl"], tmp_path)
    assert not any(loaded.values()), loaded


def test_a_dry_run_imports_none_of_them(tmp_path):
    """The settings' constraints (attrs validators), the plan (the reducers' declared facts) and
    the committed store read as texts: a dry run that reuses every cell imports nothing of
    :data:`HEAVY`."""
    results = Path(__file__).resolve().parents[2] / "results"
    args = ["experiment=bzmd14_synth", "dry_run=true", f"results_dir={results}"]
    assert not any(imported_after(args, tmp_path).values())


def test_a_refused_setting_imports_none_of_them(tmp_path):
    args = ["experiment=bzmd14_synth", "kmeans.n_init=0", f"results_dir={tmp_path}"]
    assert not any(imported_after(args, tmp_path, status=2).values())
