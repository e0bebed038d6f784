"""The numbers the guides print come from a file a run writes: the wine examples' wall times in
docs/guide/running.md from docs/guide/measured.csv (written by scripts/measure_guide.py from the
runs' records), the README's minutes for `make test` from .ci/make_test_minutes (which .ci/run
prints beside its own measurement), and the time of a reproduction into an empty folder from
results/reproduce_times.csv with the run records of the experiments that reproduction reused."""

from __future__ import annotations

import json
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


def _reproduce_times() -> tuple[dict[str, float], dict[str, float]]:
    """What a reproduction into an empty folder takes, by experiment, from the record: the
    times of the experiments the committed reproduce computed (reproduce_times.csv), and of
    those it reused (every cell, none computed), their own run records' wall times."""
    times = pd.read_csv(ROOT / "results" / "reproduce_times.csv")
    reused = (times["status"] == "done") & (times["computed"] == 0) & (times["cells"] > 0)
    computed = times.loc[~reused].set_index("experiment")["wall_seconds"].to_dict()
    recorded = {
        name: sum(
            json.loads(run.read_text()).get("wall_seconds") or 0.0
            for run in (ROOT / "results" / name / "runs").glob("*.json")
        )
        for name in times.loc[reused, "experiment"]
    }
    return computed, recorded


def test_the_time_of_a_reproduction_into_an_empty_folder_is_the_records():
    computed, recorded = _reproduce_times()
    minutes = round((sum(computed.values()) + sum(recorded.values())) / 60)
    install = (ROOT / "docs" / "guide" / "install.md").read_text(encoding="utf-8")
    paragraph = install.split("`make reproduce` into an empty folder computes every cell", 1)[1]
    paragraph = paragraph.split("\n\n", 1)[0]
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f"about {minutes} minutes of experiments on 2 cores" in readme
    assert f"about {minutes} minutes of experiments on\n2 cores" in install
    flat = " ".join(paragraph.split())
    assert f"computed {sum(computed.values()):,.0f} s of them" in flat
    assert f"reused the cells of {len(recorded)} experiments" in flat
    assert f"time at {sum(recorded.values()):,.0f} s" in flat
    # every experiment the paragraph times (a name with an underscore), as the record times it
    named = re.findall(r"\b([a-z][a-z0-9]*_[a-z0-9_]+) ([\d,]+) s\b", flat)
    assert len(named) >= 7
    for name, shown in named:
        held = {**computed, **recorded}[name]
        assert shown == f"{held:,.0f}", name
    under = int(re.search(r"each of the others under (\d+) s", flat).group(1))
    others = [t for name, t in computed.items() if name not in dict(named)]
    assert max(others) < under <= max(others) + 10
