"""What a figure shades around a line, and what its legend says it is: the 95 % t interval of
the mean over many repetitions, min-max over a few."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from kmdr.figures.curves import MANY_REPETITIONS, _band, _band_label


def _points(values_per_point: list[list[float]]) -> pd.DataFrame:
    rows = []
    for values in values_per_point:
        v = np.asarray(values, dtype=float)
        rows.append({"n_cells": len(v), "accuracy_mean": v.mean(), "accuracy_min": v.min(),
                     "accuracy_max": v.max(), "accuracy_std": v.std(ddof=1)})  # fmt: skip
    return pd.DataFrame(rows)


def test_many_repetitions_shade_the_interval_of_the_mean_few_shade_min_max():
    rng = np.random.default_rng(0)
    many = list(rng.normal(0.8, 0.05, MANY_REPETITIONS + 40))
    few = [0.5, 0.7, 0.9]
    lo, hi, interval = _band(_points([many, few]), "accuracy", "mean")
    expected = stats.t.interval(0.95, len(many) - 1, loc=np.mean(many), scale=stats.sem(many))
    assert interval.tolist() == [True, False]
    assert (lo[0], hi[0]) == pytest.approx(expected)
    assert (lo[1], hi[1]) == (0.5, 0.9)
    # a band of the best trial (aggregation best) is never an interval of a mean
    assert not _band(_points([many]), "accuracy", "best")[2].any()


@pytest.mark.parametrize(
    ("kinds", "says"),
    [
        ({True}, "shaded: 95 % interval of the mean over 50 repetitions"),
        ({False}, "shaded: min-max over 50 repetitions"),
        ({True, False}, "95 % interval of the mean (10 or more repetitions), min-max (fewer)"),
    ],
)
def test_the_legend_names_the_band_drawn(kinds, says):
    assert says in _band_label(kinds, "50")
