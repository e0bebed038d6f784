"""Points of a statistician's reading of the committed results, each held to the file it comes
from: a number a guide or the report prints is recomputed here from the code or the cells that
make it, so that the sentence cannot drift from its source. (The ss22 verdicts' points are held in
``tests/papers/ss22/test_ss22_report_committed.py``.)"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from kmdr._io import read_csv
from kmdr.report.cross_dataset import _fingerprint
from kmdr.stats import friedman

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "results"


@pytest.mark.parametrize(
    ("copy", "original"),
    [("ss22_benchmark_k30_exact", "ss22_benchmark_k30")],
)
def test_a_declared_copy_of_a_dataset_counts_as_the_dataset_it_copies(copy, original):
    # the Benchmark times k is the Benchmark: its cells keep their own fingerprint (their
    # identity) but where datasets are counted they are the same data
    copied = read_csv(RESULTS / copy / "cells.csv")
    first = read_csv(RESULTS / original / "cells.csv")
    assert copied["data_fingerprint"].iloc[0] != first["data_fingerprint"].iloc[0]
    assert _fingerprint(copied) == _fingerprint(first) == first["data_fingerprint"].iloc[0]


def test_a_copy_of_other_parameters_is_another_dataset():
    cells = read_csv(RESULTS / "ss22_benchmark_k30_exact" / "cells.csv")
    ten = read_csv(RESULTS / "ss22_benchmark" / "cells.csv")  # k = 10, alpha = 6
    assert _fingerprint(cells) != _fingerprint(ten)


def test_the_guides_smallest_exact_p_for_two_datasets_and_three_reducers_is_friedmans():
    text = (REPO / "docs" / "guide" / "running.md").read_text(encoding="utf-8")
    said = re.search(r"with (\d+) reducers on (\d+) datasets the\s+exact permutation p is never "
                     r"below (\d+)/(\d+) \((\d+) of the (\d+) permutations", text)  # fmt: skip
    assert said, "the guide's sentence on two datasets is gone"
    k, n, num, den, extreme, total = (int(g) for g in said.groups())
    # two datasets ranking the reducers alike: the most extreme ranks there are
    alike = np.tile(np.arange(1, k + 1, dtype=float), (n, 1))
    test = friedman(alike)
    assert test.draws == 0 and test.permutations == total
    assert Fraction(test.p_exact).limit_denominator(total) == Fraction(num, den)
    assert round(test.p_exact * total) == extreme
    assert test.p_exact > 0.05  # so the ranking can never reject, whatever the data
