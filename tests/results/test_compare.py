"""kmdr-compare: two results folders compared cell by cell, on hand-made folders and on the
committed results."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from _results_factory import make_cells, write_experiment
from kmdr.results.compare import NOISE_RTOL, compare_folders, main
from kmdr.results.records import (
    CHECKSUM,
    RESULT_COLUMNS,
    TIMING_COLUMNS,
    checksum,
    read_table,
    table_text,
)

ROOT = Path(__file__).resolve().parents[2]
GRID = {"sign": [2, 4], "svd": [2, 4], "none": [64]}


def _results(root: Path) -> Path:
    """A results folder of two small experiments (10 cells each)."""
    write_experiment(root, "exp_a", make_cells("exp_a", GRID, reps=2, seed=1))
    write_experiment(root, "exp_b", make_cells("exp_b", {"sign": [2, 4, 8, 16, 32]}, 2, seed=2))
    return root


def _rows(exp_dir: Path) -> tuple[list[str], list[dict]]:
    """cells.csv's header and rows, as texts."""
    table = read_table(exp_dir / "cells.csv")
    return table.header, [fields for _, fields in table.rows]


def _rewrite(exp_dir: Path, header: list[str], rows: list[dict]) -> None:
    """cells.csv holding ``rows`` as a run would have written them: each row sealed again (a
    result a run computed differently, not an edit)."""
    sealed = [{**row, CHECKSUM: checksum(row)} for row in rows]
    (exp_dir / "cells.csv").write_text(table_text(header, sealed))


def _run(old: Path, new: Path, capsys) -> tuple[int, str, str]:
    try:
        status = main([str(old), str(new)])
    except SystemExit as stop:
        status = stop.code
    out, err = capsys.readouterr()
    return status, out, err


def test_a_folder_compared_with_itself_is_identical(tmp_path, capsys):
    results = _results(tmp_path / "results")
    status, out, err = _run(results, results, capsys)
    assert status == 0, out + err
    assert out.splitlines()[:2] == [
        "exp_a: 10 cells: 10 identical",
        "exp_b: 10 cells: 10 identical",
    ]
    assert out.splitlines()[-1].endswith("every cell identical")


def test_the_compared_columns_are_the_results_not_the_timings():
    assert set(RESULT_COLUMNS) == {
        "objective",
        "objective_reduced",
        "accuracy",
        "nmi",
        "ari",
        "n_iter",
        "seed",
    }
    assert not set(RESULT_COLUMNS) & set(TIMING_COLUMNS)


def test_a_copy_with_other_timings_is_identical(tmp_path, capsys):
    old = _results(tmp_path / "old")
    new = tmp_path / "new"
    shutil.copytree(old, new)
    header, rows = _rows(new / "exp_a")
    for row in rows:
        row.update({col: "9.5" for col in TIMING_COLUMNS}, run_id="another run")
    _rewrite(new / "exp_a", header, rows)
    status, out, _ = _run(old, new, capsys)
    assert status == 0, out
    assert "exp_a: 10 cells: 10 identical" in out


def _changed(tmp_path: Path, column: str, value) -> tuple[Path, Path, dict]:
    """Two results folders that differ in one cell's ``column``; that cell's row."""
    old = _results(tmp_path / "old")
    new = tmp_path / "new"
    shutil.copytree(old, new)
    header, rows = _rows(new / "exp_a")
    row = rows[5]
    row[column] = value(row[column]) if callable(value) else value
    _rewrite(new / "exp_a", header, rows)
    return old, new, row


def test_a_changed_accuracy_fails_and_names_the_cell(tmp_path, capsys):
    old, new, row = _changed(tmp_path, "accuracy", "0.5")
    (before,) = [r["accuracy"] for r in _rows(old / "exp_a")[1] if r["cell_id"] == row["cell_id"]]
    status, out, err = _run(old, new, capsys)
    assert status == 1 and not err
    lines = out.splitlines()
    assert lines[0] == "exp_a: 10 cells: 9 identical, 1 changed"
    assert lines[1] == (
        f"  largest differences: accuracy {before} -> 0.5 at {row['dataset']} / "
        f"{row['reducer']} / r={row['r']} / repetition {row['repetition']} "
        f"(cell {row['cell_id']})"
    )
    assert lines[2] == "exp_b: 10 cells: 10 identical"
    assert lines[-1].endswith("the results differ")


def test_a_reordering_sized_difference_is_within_noise_and_still_fails(tmp_path, capsys):
    old, new, _ = _changed(tmp_path, "objective", lambda v: repr(float(v) * (1 + 4e-16)))
    (result,) = [c for n, c in compare_folders(old, new).items() if n == "exp_a"]
    assert (result.identical, result.noise, result.changed) == (9, 1, 0)
    assert 0 < result.differences["size"].iloc[0] <= NOISE_RTOL
    status, out, _ = _run(old, new, capsys)
    assert status == 1 and "exp_a: 10 cells: 9 identical, 1 within noise" in out


def test_an_integer_column_is_never_noise(tmp_path):
    old, new, _ = _changed(tmp_path, "n_iter", lambda v: str(int(v) + 1))
    assert compare_folders(old, new)["exp_a"].changed == 1


def test_a_row_on_one_side_only_is_reported(tmp_path, capsys):
    old = _results(tmp_path / "old")
    new = tmp_path / "new"
    shutil.copytree(old, new)
    header, rows = _rows(new / "exp_b")
    gone = rows.pop(3)
    _rewrite(new / "exp_b", header, rows)
    status, out, _ = _run(old, new, capsys)
    assert status == 1
    assert "exp_b: 10 cells: 9 identical, 1 only in old" in out
    assert f"  only in old: {gone['dataset']} / sign / r={gone['r']} / repetition " in out
    assert gone["cell_id"] in out
    status, out, _ = _run(new, old, capsys)
    assert status == 1 and "exp_b: 10 cells: 9 identical, 1 only in new" in out


def test_an_experiment_on_one_side_only_counts_all_its_cells(tmp_path, capsys):
    old = _results(tmp_path / "old")
    new = tmp_path / "new"
    shutil.copytree(old, new)
    shutil.rmtree(new / "exp_b")
    status, out, _ = _run(old, new, capsys)
    assert status == 1 and "exp_b: 10 cells: 10 only in old" in out


def test_two_experiment_folders(tmp_path, capsys):
    old, new, _ = _changed(tmp_path, "nmi", "0.25")
    status, out, _ = _run(old / "exp_a", new / "exp_a", capsys)
    assert status == 1 and out.startswith("exp_a: 10 cells: 9 identical, 1 changed\n")
    status, out, _ = _run(old / "exp_b", new / "exp_b", capsys)
    assert status == 0


def _one_line_error(status: int, out: str, err: str, *words: str) -> None:
    assert status == 2 and not out
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("kmdr-compare: error: ")
    for word in words:
        assert word in err


@pytest.mark.fault(
    "kmdr-compare on a cells.csv cut short (a row with fewer fields)",
    gets="exit 2, one line naming the file, the line and the fix; no row silently left out",
)
def test_a_truncated_file_is_a_one_line_error(tmp_path, capsys):
    old = _results(tmp_path / "old")
    new = tmp_path / "new"
    shutil.copytree(old, new)
    path = new / "exp_a" / "cells.csv"
    text = path.read_text()
    path.write_text(text[: len(text) - 200])  # the last row cut in the middle
    status, out, err = _run(old, new, capsys)
    _one_line_error(status, out, err, str(path), "line 11", "cut short", "git checkout --")


@pytest.mark.fault(
    "kmdr-compare on a cells.csv whose numbers were edited by hand (checksum no longer matches)",
    gets="exit 2, one line naming the file and the row; the edit is never compared as a result",
)
def test_an_edited_row_is_a_one_line_error(tmp_path, capsys):
    old = _results(tmp_path / "old")
    path = old / "exp_b" / "cells.csv"
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    fields = lines[4].split(",")
    fields[header.index("accuracy")] = "0.99"
    lines[4] = ",".join(fields)
    path.write_text("\n".join(lines) + "\n")
    assert len(read_table(path).rows) == 10  # a whole row, only its checksum tells
    status, out, err = _run(_results(tmp_path / "other"), old, capsys)
    _one_line_error(status, out, err, str(path), "line 5", "checksum")


@pytest.mark.fault(
    "kmdr-compare given a damaged cell file (the cell cache) of a cell cells.csv lacks",
    gets="exit 2, one line naming the file; its cell is never silently left out",
)
def test_a_damaged_cell_file_is_a_one_line_error(tmp_path, capsys):
    old = _results(tmp_path / "old")
    cells = old / "exp_a" / "cells"
    cells.mkdir()
    (cells / "0123456789abcdef01234567.json").write_text('{"cut": ')
    status, out, err = _run(old, old, capsys)
    _one_line_error(status, out, err, "0123456789abcdef01234567.json", "damaged cell file")


@pytest.mark.fault(
    "kmdr-compare given a missing folder, or a folder that holds no experiment",
    gets="exit 2, one line naming the folder",
)
def test_a_missing_or_empty_folder_is_a_one_line_error(tmp_path, capsys):
    results = _results(tmp_path / "results")
    status, out, err = _run(results, tmp_path / "nope", capsys)
    _one_line_error(status, out, err, "nope: no such folder")
    (tmp_path / "empty").mkdir()
    status, out, err = _run(tmp_path / "empty", results, capsys)
    _one_line_error(status, out, err, "empty: not a results folder")
    status, out, err = _run(results / "exp_a", results, capsys)
    _one_line_error(status, out, err, "one is an experiment folder")


@pytest.mark.slow  # starts the installed command; reads every committed cell
def test_the_committed_results_compared_with_themselves(capsys):
    done = subprocess.run(
        [Path(sys.executable).with_name("kmdr-compare"), "results", "results"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    committed = sorted(p.parent.name for p in (ROOT / "results").glob("*/cells.csv"))
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:-1]] == committed
    for name, line in zip(committed, lines, strict=False):
        n = len(pd.read_csv(ROOT / "results" / name / "cells.csv"))
        assert line == f"{name}: {n} cells: {n} identical"
