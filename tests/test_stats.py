"""kmdr.stats: the one t-interval and the tests over repetitions, against textbook values and
the libraries that compute them."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats
from statsmodels.stats.multitest import multipletests

from kmdr import stats
from kmdr.stats import Sample, holm, t_half_width


@pytest.mark.parametrize(
    ("sd", "n", "level", "expected"),
    [
        # t_{0.975, 9} = 2.262157 (any t table): 2.262157 * 1 / sqrt(10)
        (1.0, 10, 0.95, 2.262157163 / math.sqrt(10)),
        # t_{0.95, 4} = 2.131847: a 90% interval of 5 values of sd 2
        (2.0, 5, 0.90, 2.131846786 * 2 / math.sqrt(5)),
        (float("nan"), 1, 0.95, float("nan")),
    ],
)
def test_the_t_interval_is_the_textbooks(sd, n, level, expected):
    np.testing.assert_allclose(t_half_width(sd, n, level), expected, rtol=1e-8)


def test_the_t_interval_is_elementwise_and_keeps_a_series():
    sd = pd.Series([1.0, 2.0], index=["a", "b"])
    half = t_half_width(sd, 10)
    assert list(half.index) == ["a", "b"]
    assert half["b"] == pytest.approx(2 * half["a"])
    arr = t_half_width(np.array([1.0, 1.0]), np.array([5, 20]))
    assert arr[0] > arr[1]


def test_the_t_interval_matches_scipys_interval_of_a_mean():
    values = np.array([0.3, 0.1, 0.4, 0.15, 0.9, 0.26])
    low, high = scipy_stats.ttest_1samp(values, 0.0).confidence_interval(0.95)
    half = t_half_width(values.std(ddof=1), values.size)
    assert (values.mean() - half, values.mean() + half) == pytest.approx((low, high))


@pytest.mark.parametrize("pvalues", [[0.01, 0.04, 0.03, 0.2], [0.5], [0.001, 0.001, 0.9]])
def test_holm_is_statsmodels(pvalues):
    np.testing.assert_allclose(holm(pvalues), multipletests(pvalues, method="holm")[1])


def test_paired_where_seeds_are_shared_welch_otherwise():
    a = Sample(np.array([1.0, 2.0, 3.0, 4.5]), reps=(0, 1, 2, 3), seeds=(1, 2, 3, 4))
    b = Sample(np.array([1.1, 2.2, 3.1, 4.4]), reps=(0, 1, 2, 3), seeds=(1, 2, 3, 4))
    paired = stats.test(a, b)
    assert paired.paired
    assert paired.p == pytest.approx(scipy_stats.ttest_rel(a.values, b.values).pvalue)
    welch = stats.test(a, Sample(b.values, reps=b.reps, seeds=(9, 9, 9, 9)))
    assert not welch.paired
    assert welch.p == pytest.approx(
        scipy_stats.ttest_ind(a.values, b.values, equal_var=False).pvalue
    )
