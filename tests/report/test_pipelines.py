"""The question users bring to coresets, answered from cells (:mod:`kmdr.report.pipelines`): each
pipeline's speed-up and cost ratio against k-means on all rows, and the fastest pipeline shown
within 1%, 2% and 5% of its cost, on cells made with known numbers."""

import numpy as np
import pandas as pd
import pytest

from kmdr.report.pipelines import fastest_within, has_pipelines, pipeline_table, question_rows
from kmdr.report.what_to_use import choices, fronts, points

REPS = 10


def _cells(pipelines: dict, baseline: bool = True, seed: int = 0) -> pd.DataFrame:
    """Cells of a baseline (1 s, F = 0.1 up to noise) and of pipelines {name: (seconds, cost
    ratio)}, each with 10 repetitions whose times and costs vary by 1%."""
    rng = np.random.default_rng(seed)
    rows = []

    def add(method, reducer, coreset, seconds, cost, centers):
        for rep in range(REPS):
            noise = 1 + 0.002 * rng.standard_normal(2)
            rows.append({"method": method, "r": 10, "repetition": rep, "reducer": method,
                         "reducer_name": reducer, "coreset": coreset,
                         "seed": 1000 * rep + len(rows),
                         "total_seconds": seconds * noise[0], "objective": cost * noise[1],
                         "objective_centers": centers and cost * noise[1] * 1.0001,
                         "accuracy": 0.9})  # fmt: skip

    if baseline:
        add("kMeans", "none", "", 1.0, 0.1, None)
    for name, (seconds, ratio) in pipelines.items():
        add(name, "none", f'{{"name": "{name}"}}', seconds, 0.1 * ratio, True)
    out = pd.DataFrame(rows)
    out["objective_centers"] = out["objective_centers"].astype(float)
    return out


#: A slow exact pipeline, a fast one at +1.5%, a faster one at +4%, the fastest at +10%.
PIPES = {"exact": (0.5, 1.0), "near": (0.1, 1.015), "far": (0.05, 1.04), "off": (0.01, 1.10)}


def test_each_pipeline_s_speedup_and_cost_ratio_are_its_own():
    table = pipeline_table(_cells(PIPES)).set_index("method")
    for name, (seconds, ratio) in PIPES.items():
        row = table.loc[name]
        assert row["speedup"] == pytest.approx(1 / seconds, rel=0.01)
        assert row["speedup_low"] < row["speedup"] < row["speedup_high"]
        assert row["cost_median"] == pytest.approx(ratio, rel=0.01)
        assert row["cost_ratio"] == pytest.approx(ratio, rel=0.01)
        assert row["cost_low"] < row["cost_ratio"] < row["cost_high"]
    assert list(table.index) == ["off", "far", "near", "exact"]  # fastest first


@pytest.mark.parametrize(
    ("tolerance", "pick"),
    [(0.01, "exact"), (0.02, "near"), (0.05, "far"), (0.2, "off")],
)
def test_the_fastest_pipeline_shown_within_a_tolerance_is_named(tolerance, pick):
    got = fastest_within(_cells(PIPES), tolerance)
    assert got["pick"] == (pick, 10)
    assert got["p_holm"] < 0.05


def test_a_pipeline_not_shown_within_the_tolerance_is_never_named():
    """+0.9% against a 1% bound with 1% noise on 10 repetitions: within it by its mean, not
    shown below it; nothing is named, and the closest is said."""
    cells = _cells({"edge": (0.1, 1.009)})
    cells.loc[cells["method"] == "edge", "objective_centers"] *= 1 + 0.02 * np.resize([1, -1], REPS)
    got = fastest_within(cells, 0.01)
    assert got["pick"] is None and got["closest"] == ("edge", 10) and got["p"] > 0.05
    row = next(r for r in question_rows(cells) if "within 1%" in r[0])
    assert row[1] == "none shown" and "closest: edge at r = 10" in row[4]


def test_without_the_baseline_there_is_no_pipeline_question():
    cells = _cells(PIPES, baseline=False)
    assert not has_pipelines(cells) and pipeline_table(cells).empty
    assert question_rows(cells) == []
    # nor a budget question: the budgets are fractions of the baseline's time
    rows = choices(cells, fronts(points(cells)))
    assert not [r for r in rows if "within" in r[0] and "time of" in r[0]]
    assert all("pipeline" not in r[0] for r in rows)


def test_what_to_use_asks_the_pipeline_question_of_an_experiment_with_pipelines():
    cells = _cells(PIPES)
    rows = choices(cells, fronts(points(cells)))
    asked = {r[0]: r[1] for r in rows}
    assert asked["fastest pipeline within 2% of k-means on all rows' cost"] == "near at r = 10"
    budgets = [r for r in rows if "× the time of k-means on all features" in r[0]]
    assert len(budgets) == 2
