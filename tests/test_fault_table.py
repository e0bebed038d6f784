"""docs/fault-cases.md lists exactly the fault cases the tests declare (their ``fault`` markers)."""

import subprocess
import sys
from pathlib import Path

import pytest

# Every test here starts a process (the script checks the table in a pytest of its own).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def test_fault_table_is_current():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "fault_table.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
