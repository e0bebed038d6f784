"""``kmdr.read_results``: every cell of a results folder as one DataFrame, refusing (one line) a
store the runner would repair, never dropping or mixing rows silently."""

from __future__ import annotations

import pandas as pd
import pytest

from _results_factory import make_cells, write_experiment
from kmdr._io import read_csv
from kmdr.results.reading import ResultsError, read_results

GRID = {"sign": [2, 4], "svd": [2]}


def fault(case):
    return pytest.mark.fault(case, gets="ResultsError, one line naming the file; nothing changed")


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


@fault("kmdr.read_results on a cells.csv cut short in the middle of a row")
def test_a_truncated_cells_csv_is_refused(results):
    path = results / "exp_a" / "cells.csv"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 400])  # mid-row, fields lost
    with pytest.raises(ResultsError) as err:
        read_results(results)
    message = str(err.value)
    assert "\n" not in message and f"{path}, line " in message


@fault("kmdr.read_results on a cells.csv whose metric was edited by hand")
def test_an_edited_row_is_refused(results):
    path = results / "exp_b" / "cells.csv"
    frame = read_csv(path)
    text = path.read_text()
    old = repr(float(frame.loc[1, "accuracy"]))
    assert text.count(old) == 1
    path.write_text(text.replace(old, "0.99"))
    with pytest.raises(ResultsError, match=r"line 3: its checksum does not match"):
        read_results(results)


@fault("kmdr.read_results on a damaged cell file (cells/<id>.json)")
def test_a_damaged_cell_file_is_refused(results):
    cells = results / "exp_a" / "cells"
    cells.mkdir()
    (cells / "abc.json").write_text('{"experiment": "exp_a"')
    before = _files(results)
    with pytest.raises(ResultsError, match=r"cell file .*abc\.json"):
        read_results(results)
    assert _files(results) == before


@pytest.mark.parametrize("where", ["nowhere", "empty"])
def test_a_folder_without_results_is_one_line(tmp_path, where):
    folder = tmp_path / where
    if where == "empty":
        folder.mkdir()
    with pytest.raises(ResultsError) as err:
        read_results(folder)
    assert "\n" not in str(err.value) and str(folder) in str(err.value)


def test_an_experiment_without_cells_has_the_columns_of_cells_csv(tmp_path):
    write_experiment(tmp_path, "none_yet", None)
    frame = read_results(tmp_path / "none_yet")
    assert len(frame) == 0 and {"experiment", "accuracy", "cell_id", "excluded"} <= set(frame)
