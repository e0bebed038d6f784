"""Non-finite work is never a row on the row-block path either (``block_rows``, the cells
computed on a real dask LocalCluster: :mod:`kmdr.engine.blocks`): a reducer whose output makes
k-means overflow fails each of its cells in one line naming the reducer and the cell, as in
memory (:func:`kmdr.engine.work.finite_cell`); the other cells are written, and the run ends
with one line counting the failed ones."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from _backends import needs_dask
from _run_configs import run_alone, synth_run
from kmdr.config.schema import from_config
from kmdr.engine.backends import RunFailed
from kmdr.plugins import Registry
from kmdr.reducers import _registry as registry
from kmdr.reducers.projections import SignRandomProjection

pytestmark = [
    pytest.mark.slow,
    needs_dask,
]


class OverflowingSign(SignRandomProjection):
    """The sign projection at 1e300 times its scale: finite, and its squared norms overflow."""

    def _transform_rows(self, X_block, start):
        return super()._transform_rows(X_block, start) * 1e300


@pytest.fixture
def overflowing(monkeypatch):
    """A registry of the built-ins and ``overflowing``, in place of the installed one."""
    reducers = Registry("reducer", registry.ENTRY_POINT_GROUP, convert=registry._loaded_entry)
    for name, entry in registry.BUILTIN_REDUCERS.items():
        reducers.declare(name, entry)
    plan = registry.BUILTIN_REDUCERS["sign"].plan  # runs on row blocks, as the sign projection
    reducers.declare("overflowing", registry.ReducerEntry(OverflowingSign, "Over", plan=plan))
    monkeypatch.setattr(registry, "REDUCERS", reducers)


def test_a_cell_that_is_not_finite_is_one_line_and_no_row(tmp_path, scheduler, overflowing):
    config = synth_run(
        tmp_path, "overflow", (90, 12, 3),
        reducers=[{"name": "sign"}, {"name": "overflowing"}], r_grid=[2, 4], repeats=1,
        kmeans={"n_init": 1, "max_iter": 20}, backend="dask", dask={"scheduler": scheduler},
        block_rows=40,
    )  # fmt: skip
    with pytest.raises(RunFailed) as failed:
        run_alone(*from_config(config))
    assert "2 of 4 cells were not finite and were not written" in str(failed.value)
    (record,) = (tmp_path / "overflow" / "runs").glob("*.json")
    stopped = json.loads(record.read_text())["not_finite"]
    assert {(c["reducer"], c["r"]) for c in stopped} == {("overflowing", 2), ("overflowing", 4)}
    for cell in stopped:  # the line the run says for the cell, after its id
        assert "\n" not in cell["error"] and "not finite" in cell["error"]
        assert cell["error"].startswith(f"reducer 'overflowing' (overflowing) at r={cell['r']}:")
    cells = pd.read_csv(tmp_path / "overflow" / "cells.csv")
    assert set(cells["reducer"]) == {"sign"} and len(cells) == 2
    assert np.isfinite(cells[["objective", "objective_reduced"]].to_numpy(dtype=float)).all()
