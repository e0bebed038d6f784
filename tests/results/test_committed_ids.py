"""The committed cells stay the record: every preset's dry run finds every cell it plans in its
committed cells.csv (same ids, valid rows), so nothing is computed again. A change to what a
cell's id hashes, or to how a row is checked, fails here first.

The dry runs plan without loading any data (the fingerprints come from the data registry) and
read a copy of each cells.csv: the repository is never touched."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import kmdr
from kmdr.config.presets import conf_dir
from kmdr.results.store import CellStore

RESULTS = Path(__file__).resolve().parents[2] / "results"
COMMITTED = sorted(
    p.parent.name
    for p in RESULTS.glob("*/cells.csv")
    if (conf_dir() / "experiment" / f"{p.parent.name}.yaml").is_file()
)


@pytest.mark.slow  # ten dry runs, about 6 s
@pytest.mark.skipif(not COMMITTED, reason="results/ holds no committed cells")
def test_every_presets_dry_run_reuses_all_its_committed_cells(tmp_path, capfd):
    for name in COMMITTED:
        (tmp_path / name).mkdir()
        shutil.copy(RESULTS / name / "cells.csv", tmp_path / name / "cells.csv")
        kmdr.run(f"experiment={name}", "dry_run=true", "progress=false", results_dir=tmp_path)
        err = capfd.readouterr().err
        total = re.search(r"total: (\d+) of (\d+) cells to compute \((\d+) reused\)", err)
        assert total, err
        assert total[1] == "0" and total[2] == total[3], f"{name}: {total[0]}"
        assert "not trusted" not in err, err


@pytest.mark.parametrize("name", sorted(p.parent.name for p in RESULTS.glob("*/cells.csv")))
def test_committed_rows_appended_in_any_order_sort_back_to_the_same_bytes(tmp_path, name):
    # a run appends rows as its cells finish and sorts them once at its end
    committed = (RESULTS / name / "cells.csv").read_bytes()
    header, *rows = committed.splitlines(keepends=True)
    shuffled = [rows[i] for i in np.random.default_rng(0).permutation(len(rows))]
    (tmp_path / name).mkdir()
    (tmp_path / name / "cells.csv").write_bytes(header + b"".join(shuffled))
    store = CellStore(tmp_path / name, log=pytest.fail)
    assert store.rebuild_csv() == len(rows)
    assert (tmp_path / name / "cells.csv").read_bytes() == committed
