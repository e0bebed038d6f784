"""kmdr-compare: two results folders compared cell by cell, on hand-made folders and on the
committed results."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from _cases import case
from _command import exit_status
from _results_factory import make_cells, write_experiment
from kmdr.results.compare import NOISE_RTOL, compare_folders, main
from kmdr.results.records import (
    CHECKSUM,
    RESULT_COLUMNS,
    TIMING_COLUMNS,
    checksum,
    read_table,
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
    return list(table.columns), table.to_dict("records")


def _rewrite(exp_dir: Path, header: list[str], rows: list[dict]) -> None:
    """cells.csv holding ``rows`` as a run would have written them: each row sealed again (a
    result a run computed differently, not an edit)."""
    sealed = [{**row, CHECKSUM: checksum(row)} for row in rows]
    (exp_dir / "cells.csv").write_text(pd.DataFrame(sealed, columns=header).to_csv(index=False))


def _run(old: Path, new: Path, capsys) -> tuple[int, str, str]:
    status = exit_status(main, [str(old), str(new)])
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
    assert lines[-1].endswith("the results differ: 1 cells differ")


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
    assert status == 0  # a partial rerun against a full folder: nothing differs
    assert "exp_b: 10 cells: 9 identical, 1 only in old" in out
    assert f"  only in old: {gone['dataset']} / sign / r={gone['r']} / repetition " in out
    assert gone["cell_id"] in out
    assert out.splitlines()[-1].endswith(
        "every cell on both sides identical; 1 cells only on one side"
    )
    status, out, _ = _run(new, old, capsys)
    assert status == 0 and "exp_b: 10 cells: 9 identical, 1 only in new" in out


def test_cells_on_one_side_are_said_apart_from_those_that_differ(tmp_path, capsys):
    """A cell that differs fails the comparison; the cells on one side only are counted apart."""
    old, new, _ = _changed(tmp_path, "nmi", "0.25")
    header, rows = _rows(new / "exp_b")
    _rewrite(new / "exp_b", header, rows[:7])
    status, out, _ = _run(old, new, capsys)
    assert status == 1
    assert out.splitlines()[-1].endswith(
        "the results differ: 1 cells differ; 3 cells only on one side"
    )


def test_an_experiment_on_one_side_only_counts_all_its_cells(tmp_path, capsys):
    old = _results(tmp_path / "old")
    new = tmp_path / "new"
    shutil.copytree(old, new)
    shutil.rmtree(new / "exp_b")
    status, out, _ = _run(old, new, capsys)
    assert status == 0 and "exp_b: 10 cells: 10 only in old" in out


def _with_kind_columns(root: Path) -> None:
    """Each experiment's rows with the columns a kind of its own adds (as the coresets kind
    does): metrics, and a timing of its own."""
    for exp in ("exp_a", "exp_b"):
        header, rows = _rows(root / exp)
        for i, row in enumerate(rows):
            row.update(distortion=str(1.0 + i / 64), distortion_meb=str(1.5 + i / 64),
                       real_cost=str(100.0 + i), coreset_cost=str(99.0 + i),
                       coreset_seconds=str(0.01 * i))  # fmt: skip
        extra = ["distortion", "distortion_meb", "real_cost", "coreset_cost", "coreset_seconds"]
        _rewrite(root / exp, [*header, *extra], rows)


@pytest.mark.parametrize(
    ("column", "differs"),
    [
        pytest.param("distortion", True, id="distortion"),
        pytest.param("distortion_meb", True, id="distortion-family"),
        pytest.param("real_cost", True, id="real-cost"),
        pytest.param("coreset_cost", True, id="coreset-cost"),
        pytest.param("coreset_seconds", False, id="a-kinds-timing"),
    ],
)
def test_a_kinds_own_metric_columns_are_compared(tmp_path, capsys, column, differs):
    old = _results(tmp_path / "old")
    _with_kind_columns(old)
    new = tmp_path / "new"
    shutil.copytree(old, new)
    header, rows = _rows(new / "exp_a")
    rows[5][column] = "7.25"
    _rewrite(new / "exp_a", header, rows)
    status, out, _ = _run(old, new, capsys)
    assert status == int(differs), out
    assert (f"largest differences: {column} " in out) == differs
    assert "and the kind's coreset_cost, distortion, distortion_meb, real_cost " in out


def test_two_experiment_folders(tmp_path, capsys):
    old, new, _ = _changed(tmp_path, "nmi", "0.25")
    status, out, _ = _run(old / "exp_a", new / "exp_a", capsys)
    assert status == 1 and out.startswith("exp_a: 10 cells: 9 identical, 1 changed\n")
    status, out, _ = _run(old / "exp_b", new / "exp_b", capsys)
    assert status == 0


def _truncated(tmp_path: Path) -> tuple[Path, Path]:
    old = _results(tmp_path / "old")
    new = tmp_path / "new"
    shutil.copytree(old, new)
    path = new / "exp_a" / "cells.csv"
    text = path.read_text()
    path.write_text(text[: len(text) - 200])  # the last row cut in the middle
    return old, new


def _edited(tmp_path: Path) -> tuple[Path, Path]:
    old = _results(tmp_path / "old")
    path = old / "exp_b" / "cells.csv"
    lines = path.read_text().splitlines()
    header, fields = lines[0].split(","), lines[4].split(",")
    fields[header.index("accuracy")] = "0.99"
    lines[4] = ",".join(fields)
    path.write_text("\n".join(lines) + "\n")
    assert len(read_table(path)) == 10  # a whole row, only its checksum tells
    return _results(tmp_path / "other"), old


def _missing(tmp_path: Path) -> tuple[Path, Path]:
    return _results(tmp_path / "results"), tmp_path / "nope"


def _empty(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "empty").mkdir()
    return tmp_path / "empty", _results(tmp_path / "results")


def _mixed(tmp_path: Path) -> tuple[Path, Path]:
    results = _results(tmp_path / "results")
    return results / "exp_a", results


@pytest.mark.parametrize(
    ("sides", "says"),
    [
        case(_truncated, says="cells.csv, line 11: it has", doing="read",
             cause="a cells.csv was cut short in the middle of a row; kmdr-compare never leaves "
             "a row out silently",
             fix="restore it (git checkout -- results/<experiment>/cells.csv) or run the "
             "experiment again, which sets the row aside"),
        case(_edited, says="cells.csv, line 5: its checksum does not match", doing="read",
             cause="a number in cells.csv was edited by hand, so its row is not a computed result",
             fix="restore it (git checkout -- results/<experiment>/cells.csv) or run the "
             "experiment again, which sets the row aside"),
        case(_missing, says="nope: no such folder; give two results folders", doing="read",
             cause="a folder given to kmdr-compare does not exist",
             fix="check the path: kmdr-compare OLD_RESULTS NEW_RESULTS"),
        case(_empty, says="empty: not a results folder", doing="read",
             cause="a folder given to kmdr-compare holds no <experiment>/cells.csv",
             fix="give two results folders (kmdr-compare results /tmp/check) or two experiment "
             "folders"),
        case(_mixed, says="one is an experiment folder (with cells.csv), the other not",
             doing="read",
             cause="kmdr-compare was given an experiment folder and a results folder",
             fix="give two of the same kind: kmdr-compare results/x /tmp/check/x, or "
             "kmdr-compare results /tmp/check"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, sides, says):
    status, out, err = _run(*sides(tmp_path), capsys)
    assert status == 2 and not out
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("kmdr-compare: error: ") and says in err


@pytest.mark.slow  # starts the installed command; reads every committed cell
def test_the_committed_results_compared_with_themselves(capsys, monkeypatch):
    # in-process: the console script runs as a process in the command-line and FIFO tests
    monkeypatch.chdir(ROOT)
    status, out, err = _run(Path("results"), Path("results"), capsys)
    assert status == 0, out + err
    committed = sorted(p.parent.name for p in (ROOT / "results").glob("*/cells.csv"))
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines[:-1]] == committed
    for name, line in zip(committed, lines, strict=False):
        n = len(pd.read_csv(ROOT / "results" / name / "cells.csv"))
        assert line == f"{name}: {n} cells: {n} identical"
