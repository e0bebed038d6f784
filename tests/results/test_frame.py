"""``kmdr.read_results``: every cell of a results folder as one DataFrame, refusing (one line) a
store the runner would repair, never dropping or mixing rows silently."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from _cases import case
from _results_factory import make_cells, write_experiment
from kmdr._io import read_csv
from kmdr.results.reading import ResultsError
from kmdr.results.summary import read_results

GRID = {"sign": [2, 4], "svd": [2]}


@pytest.fixture
def results(tmp_path):
    root = tmp_path / "results"
    write_experiment(root, "exp_a", make_cells("exp_a", GRID, 2))
    write_experiment(root, "exp_b", make_cells("exp_b", {"sign": [3]}, 3, seed=1))
    return root


def _files(root):
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_a_results_folder_reads_every_cell_of_every_experiment_bit_for_bit(results):
    frame = read_results(results)
    assert frame.groupby("experiment").size().to_dict() == {"exp_a": 6, "exp_b": 3}
    assert frame["excluded"].isna().all()
    for name in ("exp_a", "exp_b"):
        csv = read_csv(results / name / "cells.csv")  # floats exact on every pandas
        mine = frame[frame["experiment"] == name].drop(columns="excluded")
        assert set(mine.columns) == set(csv.columns)
        pd.testing.assert_frame_equal(
            mine[csv.columns].reset_index(drop=True), csv, check_exact=True
        )


def test_one_experiment_folder_reads_its_own_cells(results):
    frame = read_results(results / "exp_b")
    assert set(frame["experiment"]) == {"exp_b"} and len(frame) == 3


def test_reading_writes_nothing(results):
    before = _files(results)
    read_results(results)
    assert _files(results) == before


def test_rows_of_older_code_are_kept_and_marked(results):
    path = results / "exp_a" / "cells.csv"
    cells = make_cells("exp_a", GRID, 2, code_tag="cells-v0")
    write_experiment(results, "exp_a", cells)
    frame = read_results(results / "exp_a")
    assert len(frame) == 6 and set(frame["excluded"]) == {"older code"}
    assert path.exists()


def _cut(root: Path) -> Path:
    path = root / "exp_a" / "cells.csv"
    *whole, last = path.read_text().splitlines()
    cut = ",".join(last.split(",")[:10])  # the last row cut short: its later fields lost
    path.write_text("\n".join([*whole, cut]))
    return root


def _edited(root: Path) -> Path:
    path = root / "exp_b" / "cells.csv"
    old = repr(float(read_csv(path).loc[1, "accuracy"]))  # the row on line 3
    assert path.read_text().count(old) == 1
    path.write_text(path.read_text().replace(old, "0.99"))
    return root


def _missing(root: Path) -> Path:
    return root / "nowhere"


def _empty(root: Path) -> Path:
    (root / "empty").mkdir()
    return root / "empty"


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        case(_cut, says="fields where the header has", doing="read",
             cause="a cells.csv was cut short in the middle of a row (a copy or a disk that "
             "stopped mid-write); kmdr.read_results never reads a store with rows it cannot trust",
             fix="restore the file (git checkout -- results/<experiment>/cells.csv) or run the "
             "experiment again: the run sets the row aside and computes its cells"),
        case(_edited, says="line 3: its checksum does not match its content (edited or damaged)",
             doing="read",
             cause="a number in cells.csv was edited by hand: its row's checksum no longer "
             "matches, so the row is not a result kmdr computed",
             fix="restore the file (git checkout -- results/<experiment>/cells.csv) or run the "
             "experiment again, which sets the row aside and computes the cell"),
        case(_missing, says="does not exist; give a results folder", doing="read",
             cause="the folder given to kmdr.read_results does not exist",
             fix="give a results folder (results) or one experiment folder "
             "(results/<experiment>)"),
        case(_empty, says="holds no experiment folder", doing="read",
             cause="the folder given to kmdr.read_results holds no experiment folder (none has "
             "cells.csv, cells/ or runs/)",
             fix="give a results folder (results) or one experiment folder "
             "(results/<experiment>)"),
    ],
)  # fmt: skip
def test_a_folder_it_cannot_trust_is_refused_in_one_line(results, damage, says):
    folder = damage(results)
    before = _files(results)
    with pytest.raises(ResultsError) as err:
        read_results(folder)
    assert says in str(err.value) and "\n" not in str(err.value)
    assert _files(results) == before  # nothing written, moved or locked


def test_an_experiment_without_cells_has_the_columns_of_cells_csv(tmp_path):
    write_experiment(tmp_path, "none_yet", None)
    frame = read_results(tmp_path / "none_yet")
    assert len(frame) == 0 and {"experiment", "accuracy", "cell_id", "excluded"} <= set(frame)
