"""The numbers the guides print come from a file a run writes: the wine examples' wall times in
docs/guide/running.md from docs/guide/measured.csv (written by scripts/measure_guide.py from the
runs' records), the README's minutes for `make test` from .ci/make_test_minutes (which .ci/run
prints beside its own measurement)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
MEASURED = pd.read_csv(ROOT / "docs" / "guide" / "measured.csv")


@pytest.mark.parametrize("example", list(MEASURED["example"]))
def test_running_guide_times_are_the_measured_ones(example):
    text = (ROOT / "docs" / "guide" / "running.md").read_text(encoding="utf-8")
    shown = re.findall(rf"\[kmdr\] {example}: \d+ cells .*? in ([\d.]+) s", text)
    row = MEASURED.set_index("example").loc[example]
    assert shown == [f"{row['wall_seconds']:.1f}"]


def test_readme_make_test_minutes_are_cis():
    lines = (ROOT / ".ci" / "make_test_minutes").read_text(encoding="utf-8").splitlines()
    minutes = next(line for line in lines if line and not line.startswith("#")).strip()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.findall(r"`make test` takes about ([\d.]+) minutes", readme) == [minutes]
