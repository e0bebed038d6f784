"""pb17's theory check: the concentration bound of the sparsified mean estimator, its t, the
table of draws on our data and the report's subsection (no data without the table)."""

import math

import numpy as np
import pytest

from kmdr.papers.pb17.theory import DELTA, PART, bound_t, mean_bound_table, section_mean_bound
from kmdr.report.theory import theory_parts


def test_bound_t_is_where_the_failure_probability_is_delta():
    for n, p, gamma, S, M in ((541, 64, 0.1, 200.0, 16.0), (10**6, 784, 0.05, 1.0, 0.2)):
        t = bound_t(n, p, gamma, S, M)
        prob = 2 * p * math.exp(-n * gamma * t * t / 2 / (S + M * t / 3))
        assert prob == pytest.approx(DELTA, rel=1e-9)
        # more points or more entries kept: a smaller t
        assert bound_t(4 * n, p, gamma, S, M) < t and bound_t(n, p, 2 * gamma, S, M) < t


def test_mean_bound_table_on_data_where_the_bound_must_hold():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 32)) + 3.0
    table = mean_bound_table(X, ms=(4, 16), seeds=30)
    assert len(table) == 4 and set(table["preconditioner"]) == {"dct", "none"}
    assert (table["beyond_t"] <= 30).all() and (table["bound_t"] > 0).all()
    # the union bound is not tight, but the errors are of its order and below it
    assert (table["error_quantile"] < table["bound_t"]).all()
    assert (table.loc[table.m == 16, "error_quantile"].to_numpy()
            < table.loc[table.m == 4, "error_quantile"].to_numpy()).all()  # fmt: skip


def test_section_says_no_data_then_reads_the_table(tmp_path):
    assert "*No data*" in section_mean_bound(tmp_path)
    X = np.random.default_rng(1).standard_normal((200, 16))
    (tmp_path / "theory").mkdir()
    mean_bound_table(X, ms=(4,), seeds=10).to_csv(tmp_path / "theory" / "pb17_mean_bound.csv")
    text = section_mean_bound(tmp_path)
    assert "| dct" in text and "| none" in text and "holds" in text
    assert PART in theory_parts() and section_mean_bound in PART.sections
