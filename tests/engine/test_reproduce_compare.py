"""scripts/reproduce.py ends with one line per experiment comparing the cells it computed with the
rows of the same cell id the results folder held before the run (or --compare-with's)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from kmdr.results.records import read_table

pytestmark = pytest.mark.slow  # every test here runs the script (in this process) on real data

TINY = ["r_grid=[5]", "repeats=1", "kmeans.n_init=1", "kmeans.max_iter=20", "n_jobs=1"]
NAME = "bzmd14_orl"


@pytest.fixture
def compared(reproduce):
    def run(results: Path, *args: str) -> list[str]:
        """Run the tiny preset into ``results``; the comparison lines it ends with."""
        argv = ["--results", str(results), "--only", NAME, *args]
        code, out, err = reproduce(*argv, "--override", *TINY, "figures=false")
        assert code == 0, err[-2000:]
        out = out.splitlines()
        (head,) = [i for i, line in enumerate(out) if "the cells computed now against" in line]
        return out[head:]

    return run


def test_each_computed_cell_is_compared_with_the_row_it_replaces(tmp_path, compared):
    reproduce = compared
    first = tmp_path / "first"
    lines = reproduce(first)
    assert f"{first}/ before the run" in lines[0]
    n = len(read_table(first / NAME / "cells.csv"))
    assert n > 1
    assert lines[1:] == [f"{NAME}: {n} cells: {n} computed: {n} new"]

    # Run twice: every cell is reused, none computed, so none compared.
    assert reproduce(first)[1:] == [f"{NAME}: {n} cells: {n} reused"]

    # A fresh folder compared with the first: every cell computed again, bit for bit the same.
    check = tmp_path / "check"
    lines = reproduce(check, "--compare-with", str(first))
    assert f"{first}/ before the run" in lines[0]
    assert lines[1:] == [f"{NAME}: {n} cells: {n} computed: {n} identical"]

    # A committed row edited by hand (its checksum no longer matches) is not trusted: the run
    # computes its cell again, and the line compares it with the row as it was before the run.
    exp = first / NAME
    table = read_table(exp / "cells.csv")
    rows = table.to_dict("records")
    edited = rows[0]
    true_accuracy = edited["accuracy"]
    edited["accuracy"] = "0.125"
    (exp / "cells.csv").write_text(pd.DataFrame(rows).to_csv(index=False))
    (line,) = reproduce(first)[1:]
    assert line == (
        f"{NAME}: {n} cells: {n - 1} reused, 1 computed: 1 changed (largest: accuracy 0.125 -> "
        f"{true_accuracy} at {edited['dataset']} / {edited['reducer']} / r=5 / repetition 0 "
        f"(cell {edited['cell_id']}))"
    )
    # the edited row is never lost: the run set it aside
    assert "0.125" in (exp / "cells.rejected.csv").read_text()
