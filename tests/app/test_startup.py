"""What ``kmdr`` imports before it needs it: printing a config, or planning a dry run whose
reducers take the parameters their declarations state (every preset kmdr ships), never loads the
plotting library (a property of the imports, not a timing; the timing is
``scripts/bench_startup.py``). A dry run given other reducer parameters imports their classes to
check them (``tests/app/test_every_setting_used.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

#: scipy too: a plan's shape rules (laplacian's n_neighbors) are checked without it.
HEAVY = ("sklearn", "scipy", "pandas", "matplotlib")


def imported_after(args: list[str], cwd) -> dict[str, bool]:
    """Run ``kmdr args`` in a fresh interpreter; which of :data:`HEAVY` it had imported."""
    code = (
        "import json, sys\n"
        "from kmdr.app import main\n"
        f"sys.argv = ['kmdr', *{args!r}]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as e:\n"
        "    assert e.code in (0, None), e.code\n"
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


def test_printing_a_config_imports_no_plotting_library(tmp_path):
    loaded = imported_after(["--cfg", "job", "experiment=bzmd14_orl"], tmp_path)
    assert not loaded["matplotlib"], loaded


def test_a_dry_run_imports_no_plotting_library(tmp_path):
    args = ["experiment=bzmd14_synth", "dry_run=true", f"results_dir={tmp_path}"]
    assert imported_after(args, tmp_path)["matplotlib"] is False


def test_a_dry_run_imports_no_plotting_or_statistics_library(tmp_path):
    """The settings' constraints are scikit-learn's (which imports scipy, and pandas when it is
    installed): a dry run checks them, and imports nothing else of :data:`HEAVY`."""
    args = ["experiment=bzmd14_synth", "dry_run=true", f"results_dir={tmp_path}"]
    loaded = imported_after(args, tmp_path)
    assert not loaded["matplotlib"] and loaded["sklearn"], loaded
