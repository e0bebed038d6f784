"""A cell's identity names the data and the code it depends on; rows of other data or older code
are never reused, drawn or counted with the current ones; run sidecars that cannot be read never
make an experiment look complete; kmdr-prune removes rows only when told, and lists them first.

Real runs on small synthetic data (in process, and through the installed commands in
subprocesses), a plug-in dataset package on a temporary path, real files edited on disk."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _cases import case
from _command import exit_status
from _run_configs import run_alone, synth_run
from kmdr.config.schema import from_config
from kmdr.datasets import Dataset
from kmdr.reducers._builtins import BUILTIN_ENTRIES
from kmdr.results import cells
from kmdr.results import summary as aggregate
from kmdr.results.prune import main as prune_main
from kmdr.results.records import identity_id, seal

BIN = Path(sys.executable).parent
N_CELLS = 2 * 2 + 2


def config(results_dir, name: str = "ident", **over) -> dict:
    cfg = synth_run(
        results_dir,
        name,
        (60, 10, 3),
        reducers=[{"name": "sign"}, {"name": "none"}],
        r_grid=[2, 4],
        repeats=2,
        kmeans={"n_init": 1, "max_iter": 50},
    )
    return {**cfg, **over}


def run(results_dir, dataset=None, **over):
    spec = from_config(config(results_dir, **over))
    return run_alone(*spec, dataset=dataset)


def command(tool: str, *args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / tool), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )


def one_error_line(proc: subprocess.CompletedProcess, *words: str) -> None:
    assert proc.returncode == 2, proc.stderr
    err = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(err) == 1 and all(w in err[0] for w in words), proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def older_rows(exp: Path, tag: str = "2/1", **over) -> list[dict]:
    """Rows of this folder as an older kmdr (code tag ``tag``) would have written them, finished
    later than the current ones."""
    records = list(csv.DictReader(io.StringIO((exp / "cells.csv").read_text())))
    out = []
    for rec in records:
        rec = {**rec, "code_tag": tag, "finished_at": "2099-01-01T00:00:00", **over}
        rec["cell_id"] = identity_id(rec)
        out.append(seal(rec))
    return out


def append_rows(exp: Path, new: list[dict]) -> None:
    header = next(csv.reader(io.StringIO((exp / "cells.csv").read_text())))
    with (exp / "cells.csv").open("a", newline="") as fh:
        csv.DictWriter(fh, fieldnames=header, lineterminator="\n").writerows(new)


# -- the data's fingerprint --------------------------------------------------------------------


def blobs(shift: float = 0.0) -> Dataset:
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 20)
    X = rng.normal(size=(60, 10)) + 4.0 * y[:, None] + shift
    return Dataset("synth", X, y.astype(np.int64), 3, None, "a user's data")


@pytest.mark.slow
def test_changed_user_data_is_never_mixed(tmp_path):
    first = run(tmp_path, dataset=blobs())
    again = run(tmp_path, dataset=blobs())
    assert (first.n_computed, again.n_computed) == (N_CELLS, 0)
    changed = run(tmp_path, dataset=blobs(shift=1.0))
    assert changed.n_computed == N_CELLS
    exp = first.experiment_dir
    assert len(pd.read_csv(exp / "cells.csv")) == 2 * N_CELLS
    view = aggregate.read_experiment(exp)
    assert len(view.cells) == N_CELLS and view.cells["data_fingerprint"].nunique() == 1
    assert view.note.startswith(f"{N_CELLS} rows of other data not shown")
    summary = aggregate.read_experiment(exp).summary
    assert summary["n_cells"].sum() == N_CELLS and summary["complete"].all()


PLUGIN = '''
"""A plug-in dataset whose content is a file the user edits."""
import pathlib
import numpy as np
from kmdr.datasets import Dataset

def load_mine(seed=0):
    """Points from points.npy beside this module (``seed``: unused, as the config gives one)."""
    data = np.load(pathlib.Path(__file__).with_name("points.npy"))
    y = np.repeat(np.arange(3), 20)
    return Dataset("mine", data, y.astype(np.int64), 3, None, "mine")
'''


def test_a_plugin_dataset_whose_content_changed(tmp_path, monkeypatch, capsys):
    from kmdr.datasets import _catalog
    from kmdr.figures import draw as figures

    site = tmp_path / "site"
    site.mkdir()
    (site / "mine_data.py").write_text(textwrap.dedent(PLUGIN))
    info = site / "mine_data-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mine-data\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[kmdr.datasets]\nmine = mine_data:load_mine\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "mine_data", raising=False)
    _catalog.reload_plugins()
    mine = config(tmp_path, "mine", dataset={"name": "mine", "params": {}},
                  reducers=[{"name": "sign"}], r_grid=[2])  # fmt: skip
    rng = np.random.default_rng(1)
    np.save(site / "points.npy", rng.normal(size=(60, 8)))
    try:
        assert run_alone(*from_config(mine)).n_computed == 2
        again = run_alone(*from_config(mine))
        assert (again.n_computed, again.n_reused) == (0, 2)
        np.save(site / "points.npy", rng.normal(size=(60, 8)))  # the user's file changes
        changed = run_alone(*from_config(mine))
        assert (changed.n_computed, changed.n_reused) == (2, 0)
        figures.main([str(tmp_path)])
        assert "note: 2 rows of other data not shown" in capsys.readouterr().out
    finally:
        monkeypatch.undo()
        _catalog.reload_plugins()


# -- the code's compatibility tag --------------------------------------------------------------


def bump_sign(monkeypatch) -> None:
    """Bump sign's compat_version where it is declared: its entry's plan (which its class reads)."""
    entry = BUILTIN_ENTRIES["sign"]
    plan = dataclasses.replace(entry.plan, compat_version=2)
    monkeypatch.setitem(BUILTIN_ENTRIES, "sign", dataclasses.replace(entry, plan=plan))


def test_a_bumped_reducer_recomputes_only_its_cells(tmp_path, monkeypatch):
    first = run(tmp_path)
    bump_sign(monkeypatch)
    again = run(tmp_path)
    assert (again.n_computed, again.n_reused) == (4, 2)  # sign's, not the baseline's
    view = aggregate.read_experiment(first.experiment_dir)
    assert len(view.cells) == N_CELLS and set(view.excluded["reducer"]) == {"sign"}
    assert set(view.cells.loc[view.cells["reducer"] == "sign", "code_tag"]) == {"3/2"}
    assert "4 rows of older code not shown; `kmdr-prune " in view.note


def test_a_new_cell_format_recomputes_every_cell(tmp_path, monkeypatch):
    run(tmp_path)
    monkeypatch.setattr(cells, "CELL_FORMAT", cells.CELL_FORMAT + 1)
    assert run(tmp_path).n_computed == N_CELLS


def test_older_code_never_wins_by_finish_time(tmp_path):
    exp = run(tmp_path).experiment_dir
    current = aggregate.read_experiment(exp).cells.set_index("cell_id")["objective"].sort_index()
    append_rows(exp, older_rows(exp, objective="123.0"))
    view = aggregate.read_experiment(exp)
    assert (view.cells.set_index("cell_id")["objective"].sort_index() == current).all()
    assert len(view.excluded) == N_CELLS and (view.excluded["excluded"] == "older code").all()
    assert run(tmp_path).n_computed == 0


def test_rows_of_other_data_are_not_counted(tmp_path):
    exp = run(tmp_path).experiment_dir
    other = older_rows(exp, tag=cells.code_tag("sign"), data_fingerprint="content:other")
    append_rows(exp, [r for r in other if r["reducer"] == "sign"])
    summary = aggregate.read_experiment(exp).summary
    assert summary["n_cells"].sum() == N_CELLS and (summary["n_expected"] == 2).all()


# -- run sidecars ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],  # cut short by a kill
        lambda text: "",  # emptied
        lambda text: "[1, 2, 3]",  # JSON that is not an object
    ],
)
def test_an_unreadable_run_record_never_makes_a_killed_run_complete(tmp_path, capfd, damage):
    # a killed run: its record expects 6 cells; 2 finished
    exp = run(tmp_path).experiment_dir
    (side,) = (exp / "runs").glob("*.json")
    record = json.loads(side.read_text())
    record["status"] = "running"
    frame = pd.read_csv(exp / "cells.csv")
    kept = frame[frame["reducer"] == "none"]
    kept.to_csv(exp / "cells.csv", index=False)
    side.write_text(damage(json.dumps(record)))
    summary = aggregate.read_experiment(exp).summary
    assert not summary["complete"].any()
    err = [m for m in capfd.readouterr().err.splitlines() if side.name in m]
    assert len(err) == 1 and "not shown as complete" in err[0]
    from kmdr.report.experiments import Experiment

    report = Experiment(tmp_path, exp.name)
    assert report.incomplete and not report.complete and "cannot be read" in report.status()


# -- figures and report say what they left out -------------------------------------------------


@pytest.mark.slow
def test_the_report_says_what_it_left_out(tmp_path, monkeypatch):
    from kmdr.app.drawing import draw
    from kmdr.report.build import main as report

    exp = run(tmp_path / "results", figures=True).experiment_dir
    draw(exp)
    append_rows(exp, older_rows(exp))
    assert report([str(tmp_path / "results")]) == 0
    text = (tmp_path / "results" / "REPORT.md").read_text()
    assert f"complete ({N_CELLS} cells) ({N_CELLS} rows of older code not shown" in text
    assert "--older-code --remove` removes them" in text


@pytest.mark.slow
def test_the_figure_says_what_it_left_out(tmp_path, capsys):
    from kmdr.figures import draw as figures

    exp = run(tmp_path).experiment_dir
    append_rows(exp, older_rows(exp))
    fig = figures.make_figure(exp)
    texts = " ".join(t.get_text() for t in fig.findobj(lambda o: hasattr(o, "get_text")))
    assert f"{N_CELLS} rows of older code not shown" in texts
    figures.main([str(tmp_path)])
    assert f"note: {N_CELLS} rows of older code not shown" in capsys.readouterr().out


# -- kmdr-prune --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mixed_once(tmp_path_factory) -> Path:
    """A folder holding current rows, rows of older code (sign's), of other data and of another
    experiment, computed once for the module."""
    where = tmp_path_factory.mktemp("mixed")
    exp = run(where).experiment_dir
    with pytest.MonkeyPatch.context() as patch:
        bump_sign(patch)
        run(where)
    other = older_rows(exp, tag=cells.code_tag("none"), data_fingerprint="content:other")
    foreign = older_rows(exp, tag=cells.code_tag("none"), experiment="elsewhere")
    append_rows(exp, [r for r in other if r["reducer"] == "none"][:1])
    append_rows(exp, [r for r in foreign if r["reducer"] == "none"][:1])
    return exp


@pytest.fixture
def mixed(mixed_once, tmp_path) -> Path:
    """A copy of :func:`mixed_once` in ``tmp_path``, where :func:`run` writes, for the test to
    prune."""
    return Path(shutil.copytree(mixed_once, tmp_path / mixed_once.name))


def lines_of(exp: Path) -> list[str]:
    return (exp / "cells.csv").read_text().splitlines()


def prune(capsys, *args) -> tuple[int, str, str]:
    """kmdr-prune in this process: (exit status, stdout, stderr)."""
    status = exit_status(prune_main, [str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_prune_command_needs_a_filter(mixed):
    # the installed console script, once: its entry point, exit status and one error line
    before = lines_of(mixed)
    one_error_line(command("kmdr-prune", mixed), "kmdr-prune: error: name what to remove")
    assert lines_of(mixed) == before


@pytest.mark.parametrize(
    ("args", "says"),
    [
        case(["FOLDER"], says="kmdr-prune: error: name what to remove", doing="read",
             cause="kmdr-prune removes only the rows its filters select, and none was given",
             fix="name what to remove, e.g. kmdr-prune results/mine --older-code (add --remove "
             "to remove them)"),
        case(["FOLDER", "MISSING", "--older-code", "--remove"],
             says="is not an experiment folder (no such folder)", doing="read",
             cause="a folder given to kmdr-prune does not exist; nothing is removed anywhere",
             fix="check the path: an experiment folder is results/<experiment>"),
        case(["EMPTY", "--older-code"],
             says="is not an experiment folder (no cells.csv)", doing="read",
             cause="the folder given to kmdr-prune holds no cells",
             fix="give an experiment folder, results/<experiment>, not the results folder"),
    ],
)  # fmt: skip
def test_prune_refuses_in_one_line(mixed, tmp_path, capsys, args, says):
    (tmp_path / "empty").mkdir()
    where = {"FOLDER": mixed, "MISSING": tmp_path / "nope", "EMPTY": tmp_path / "empty"}
    before = lines_of(mixed)
    status, out, err = prune(capsys, *(where.get(a, a) for a in args))
    assert status == 2 and not out and len(err.strip().splitlines()) == 1
    assert says in err and "Traceback" not in err
    assert lines_of(mixed) == before


def test_prune_names_what_a_mistyped_filter_could_have_been(mixed, capsys):
    before = lines_of(mixed)
    status, out, _ = prune(capsys, mixed, "--reducer", "sgin", "--remove")
    assert status == 0
    assert f"{mixed.name}: removed 0 row(s)" in out and "no row has reducer 'sgin'" in out
    _, listed, _ = prune(capsys, mixed, "--reducer", "sgin")
    assert "no row selected: no row has reducer 'sgin' (here: none, sign)" in listed
    assert lines_of(mixed) == before


def test_prune_lists_before_it_removes(mixed, capsys):
    before = {p: p.read_bytes() for p in mixed.rglob("*") if p.is_file()}
    status, out, _ = prune(capsys, mixed, "--older-code")
    assert status == 0
    listed = [line for line in out.splitlines() if line.endswith("[older code]")]
    assert len(listed) == 4 and "4 row(s) would be removed; add --remove" in out
    assert {p: p.read_bytes() for p in mixed.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize(
    ("options", "gone"),
    [
        (["--older-code"], 4),
        (["--other-data"], 1),
        (["--foreign"], 1),
        (["--older-code", "--other-data", "--foreign"], 6),  # what the figure's note names
        (["--reducer", "none", "--older-code", "--other-data"], 1),
    ],
)
def test_prune_removes_what_it_selects(mixed, tmp_path, capsys, options, gone):
    before = pd.read_csv(mixed / "cells.csv")
    current = aggregate.read_experiment(mixed).cells
    status, out, _ = prune(capsys, mixed, *options, "--remove")
    assert status == 0 and f"removed {gone} row(s)" in out
    run(tmp_path)  # a run keeps the record as it is
    after = pd.read_csv(mixed / "cells.csv")
    assert len(after) == len(before) - gone
    pd.testing.assert_frame_equal(aggregate.read_experiment(mixed).cells, current)
    if gone == 6:
        assert aggregate.read_experiment(mixed).note == ""


def test_prune_by_run_id(tmp_path, capsys):
    exp = run(tmp_path).experiment_dir
    run_id = pd.read_csv(exp / "cells.csv")["run_id"].iloc[0]
    status, out, _ = prune(capsys, exp, "--run-id", run_id, "--remove")
    assert status == 0 and f"removed {N_CELLS} row(s)" in out
    assert not (exp / "cells.csv").read_text().strip().splitlines()[1:]
    assert run(tmp_path).n_computed == N_CELLS


def test_prune_by_blas_threads(tmp_path, capsys):
    exp = run(tmp_path).experiment_dir
    assert run(tmp_path, blas_threads=2).n_computed == N_CELLS  # another identity
    status, out, _ = prune(capsys, exp, "--blas-threads", "2")
    assert status == 0 and f"{N_CELLS} row(s) would be removed" in out
    status, out, _ = prune(capsys, exp, "--blas-threads", "2", "--remove")
    assert status == 0 and f"removed {N_CELLS} row(s)" in out
    kept = pd.read_csv(exp / "cells.csv")
    assert len(kept) == N_CELLS and (kept["blas_threads"] == 1).all()
    assert run(tmp_path).n_computed == 0
    assert run(tmp_path, blas_threads=2).n_computed == N_CELLS
