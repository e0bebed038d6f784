"""A reducer's ``max_r``: it runs the run's r grid up to that r, and nothing else changes.

A method too slow for a whole grid (exact SVD at r = 1000 on the sparse stand-in) runs a
sub-grid inside the same experiment; the other reducers' cells, and their ids, are those of the
run without ``max_r``.
"""

from __future__ import annotations

import pytest

from _run_configs import synth_run
from kmdr.config.errors import ConfigError
from kmdr.config.schema import from_config
from kmdr.reducers import DataFacts
from kmdr.results.cells import plan_cells, planned_count


def _config(tmp_path, svd_max_r=None):
    svd = {"name": "svd"} if svd_max_r is None else {"name": "svd", "max_r": svd_max_r}
    return synth_run(
        tmp_path,
        "subgrid",
        (60, 20, 3),
        reducers=[{"name": "sign"}, svd, {"name": "none"}],
        r_grid=[2, 5, 10],
        repeats=2,
    )


def _cells(tmp_path, svd_max_r=None):
    spec = from_config(_config(tmp_path, svd_max_r))
    return plan_cells(spec.experiment, DataFacts(60, 20, False), 3, "fingerprint")


def test_max_r_cuts_only_that_reducers_grid(tmp_path):
    full, cut = _cells(tmp_path), _cells(tmp_path, svd_max_r=5)
    grid = {c.reducer_id: sorted({x.r for x in cut if x.reducer_id == c.reducer_id}) for c in cut}
    assert grid == {"sign": [2, 5, 10], "svd": [2, 5], "none": [20]}
    # Every cell of the cut run is a cell of the full run, with the same id.
    assert {c.cell_id for c in cut} < {c.cell_id for c in full}
    dropped = {(c.reducer_id, c.r) for c in full} - {(c.reducer_id, c.r) for c in cut}
    assert dropped == {("svd", 10)}


@pytest.mark.parametrize("svd_max_r", [None, 5])
def test_the_count_known_before_the_data_is_the_plans(tmp_path, svd_max_r):
    """planned_count (what the session's guess and kmdr-list read before any data) counts the
    cells plan_cells plans: each reducer's grid cut at its max_r, the baseline's one r."""
    spec = from_config(_config(tmp_path, svd_max_r)).experiment
    reducers = [(red.name, red.max_r) for red in spec.reducers]
    count = planned_count(reducers, spec.r_grid, spec.repeats)
    assert count == len(_cells(tmp_path, svd_max_r)) == (12 if svd_max_r else 14)


def test_max_r_above_the_grid_changes_nothing(tmp_path):
    ids = [c.cell_id for c in _cells(tmp_path)]
    assert [c.cell_id for c in _cells(tmp_path, svd_max_r=1000)] == ids


@pytest.mark.parametrize("max_r", [0, 1])
def test_max_r_below_the_grid_is_a_one_line_error(tmp_path, max_r):
    with pytest.raises(ConfigError) as err:
        from_config(_config(tmp_path, svd_max_r=max_r))
    message = str(err.value)
    assert "\n" not in message and "svd" in message and "max_r" in message
