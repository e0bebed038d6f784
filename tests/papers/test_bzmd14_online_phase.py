"""The online-phase diagnostic's counts: stuck executions, paired by seed across the two runs."""

from __future__ import annotations

import pandas as pd
import pytest

from kmdr.papers.bzmd14.online_phase import STUCK_MARGIN, stuck, stuck_count


def _cells(accuracies: dict[tuple[str, int], list[float]]) -> pd.DataFrame:
    rows = [
        {"reducer": red, "r": r, "repetition": rep, "seed": 1000 * r + rep, "accuracy": acc}
        for (red, r), values in accuracies.items()
        for rep, acc in enumerate(values)
    ]
    return pd.DataFrame(rows)


def test_stuck_is_far_below_the_best_repetition_of_its_point():
    cells = _cells({("svd", 5): [1.0, 0.8, 1.0 - STUCK_MARGIN / 2], ("svd", 10): [0.6, 0.6, 0.45]})
    assert stuck(cells).tolist() == [False, True, False, False, False, True]


def test_paired_counts_and_mcnemar():
    off = _cells({("svd", 5): [1.0, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8], ("sign", 5): [1.0, 0.8]})
    on = _cells({("svd", 5): [1.0] * 8, ("sign", 5): [0.8, 1.0]})
    c = stuck_count(off, on)
    assert (c.pairs, c.off, c.on, c.rescued, c.new) == (10, 8, 1, 8, 1)
    # exact two-sided binomial test of 8 of 9 discordant pairs
    assert c.p == pytest.approx(2 * (9 + 1) / 2**9)
    assert c.mean_gain == pytest.approx((7 * 0.2 + 0.2 - 0.2) / 10)


def test_cells_pair_only_on_the_same_seed():
    off = _cells({("svd", 5): [1.0, 0.8]})
    on = _cells({("svd", 5): [1.0, 1.0]}).assign(seed=[7, 8])
    assert stuck_count(off, on).pairs == 0
