"""Building a config imports no run path: what each kind reads is declared in ``kmdr.config``,
so composing an experiment loads no module of ``kmdr.engine`` or ``kmdr.results``. A fresh
interpreter is the point: the suite's own process has imported them long before."""

from __future__ import annotations

import subprocess
import sys

import pytest

SCRIPT = """
import sys, kmdr
kmdr.compose({args})
loaded = sorted(m for m in sys.modules if m.startswith(("kmdr.engine", "kmdr.results")))
print(" ".join(loaded))
"""


@pytest.mark.parametrize(
    "args",
    [
        ("dataset=synth", "reducer=sign"),
        ("experiment=bmd09_fig1", "dataset=synth"),  # a paper's kind, its reads its own
    ],
)
def test_composing_loads_no_engine_or_results_module(args):
    code = SCRIPT.format(args=", ".join(map(repr, args)))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""
