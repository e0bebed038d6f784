"""cells.csv is the record: no run removes or rewrites a row it did not compute, and a row that
was edited, cut short or copied from elsewhere is named in one line and never used.

Every test runs the real runner on small synthetic data into a real folder and damages real files
on disk."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from _command import said
from _run_configs import run_alone, synth_run
from kmdr._io import read_csv
from kmdr.config.schema import from_config
from kmdr.results import summary as aggregate
from kmdr.results.reading import Once
from kmdr.results.records import seal
from kmdr.results.store import CellStore

NAME = "faults"
METRICS = ["objective", "objective_reduced", "accuracy", "nmi", "ari", "n_iter"]


def config(results_dir, name: str = NAME, **over) -> dict:
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


N_CELLS = 2 * 2 + 2  # sign at 2 r x 2 repetitions, the baseline once per repetition


def run(results_dir, messages: list | None = None, **over):
    with said(messages):
        return run_alone(*from_config(config(results_dir, **over)))


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """One finished run (the machine that made the results): its experiment folder."""
    root = tmp_path_factory.mktemp("made")
    outcome = run(root)
    assert outcome.n_computed == N_CELLS
    return outcome.experiment_dir


def clone(made: Path, tmp_path: Path) -> Path:
    """The folder as a fresh clone has it: what git tracks (no .locks/)."""
    shutil.copytree(made, tmp_path / NAME, ignore=shutil.ignore_patterns(".locks"))
    return tmp_path / NAME


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def rows(exp: Path) -> pd.DataFrame:
    return read_csv(exp / "cells.csv")  # floats exact on every pandas, as the store reads them


def metrics_by_id(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.set_index("cell_id")[METRICS].sort_index()


def edit_csv(exp: Path, edit) -> None:
    """Rewrite cells.csv through the csv module, ``edit(header, records)`` changing it in place
    (as a spreadsheet or a script would)."""
    records = list(csv.reader(io.StringIO((exp / "cells.csv").read_text(), newline="")))
    edit(records[0], records[1:])
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(records)
    (exp / "cells.csv").write_text(out.getvalue())


def one_line(messages: list[str], *words: str) -> str:
    found = [m for m in messages if all(w in m for w in words)]
    assert len(found) == 1, (words, messages)
    assert "\n" not in found[0] and "Traceback" not in found[0]
    return found[0]


# -- committed results are the record ----------------------------------------------------------


def test_a_narrow_run_on_a_fresh_clone_keeps_every_committed_row(made, tmp_path):
    exp = clone(made, tmp_path)
    before = lines(exp / "cells.csv")
    outcome = run(tmp_path, reducers=[{"name": "sign"}], r_grid=[2], repeats=1)
    assert (outcome.n_computed, outcome.n_reused) == (0, 1)  # its one cell is a committed row
    after = lines(exp / "cells.csv")
    assert after == before


def test_an_identical_run_on_a_fresh_clone_reuses_the_committed_rows(made, tmp_path):
    exp = clone(made, tmp_path)
    before = (exp / "cells.csv").read_bytes()
    outcome = run(tmp_path)
    assert (outcome.n_computed, outcome.n_reused) == (0, N_CELLS)
    assert (exp / "cells.csv").read_bytes() == before


def test_another_setting_adds_rows_beside_the_committed_ones(made, tmp_path):
    exp = clone(made, tmp_path)
    before = lines(exp / "cells.csv")
    outcome = run(tmp_path, kmeans={"n_init": 2, "max_iter": 50})
    assert outcome.n_computed == N_CELLS
    after = lines(exp / "cells.csv")
    assert set(before) <= set(after) and len(after) == len(before) + N_CELLS


KILLED = """
import json, sys
from kmdr.engine.session import Session
from kmdr._io import read_csv
from kmdr.config.schema import from_config
spec = from_config(json.loads(sys.argv[1]))
with Session(spec.execution) as session:
    session.run(spec.experiment, spec.output)
"""


@pytest.mark.slow
def test_readers_see_every_row_a_killed_run_wrote(tmp_path):
    cfg = config(tmp_path, r_grid=list(range(2, 10)), repeats=3)
    proc = subprocess.Popen([sys.executable, "-c", KILLED, json.dumps(cfg)])
    path = tmp_path / NAME / "cells.csv"
    deadline = time.monotonic() + 120
    try:
        while not path.exists() or len(path.read_bytes().splitlines()) < 5:  # a state
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.001)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    done = CellStore(tmp_path / NAME, read_only=True).done_ids()
    assert len(done) >= 4
    assert set(aggregate.read_experiment(tmp_path / NAME).cells["cell_id"]) == done
    summary = aggregate.read_experiment(tmp_path / NAME).summary
    assert summary["n_cells"].sum() == len(done) and not summary["complete"].all()


# -- cells.csv rows: checksums, damage, duplicates ---------------------------------------------


def _set(column: str, value: str, line: int = 0):
    def edit(header, records):
        records[line][header.index(column)] = value

    return edit


@pytest.mark.parametrize(
    ("column", "value"),
    [
        pytest.param("accuracy", "0.99"),
        pytest.param("repetition", "7"),
        pytest.param("code_tag", "3/9"),
    ],
)
def test_an_edited_row_is_named_and_recomputed(made, tmp_path, capfd, column, value):
    exp = clone(made, tmp_path)
    edited_id = rows(exp)["cell_id"][0]
    edit_csv(exp, _set(column, value))
    assert edited_id not in set(aggregate.read_experiment(exp).cells["cell_id"])
    err = capfd.readouterr().err
    assert len([m for m in err.splitlines() if "checksum does not match" in m]) == 1
    messages = []
    outcome = run(tmp_path, messages)
    assert (outcome.n_computed, outcome.n_reused) == (1, N_CELLS - 1)
    one_line(messages, "cells.csv", "line(s) 2", "checksum does not match")
    pd.testing.assert_frame_equal(metrics_by_id(rows(exp)), metrics_by_id(rows(made)))
    rejected = pd.read_csv(exp / "cells.rejected.csv")
    assert len(rejected) == 1 and rejected["line"].item() == 2


def test_a_row_whose_id_is_not_its_identity_is_rejected(made, tmp_path):
    exp = clone(made, tmp_path)
    frame = rows(exp)
    records = list(csv.DictReader(io.StringIO((exp / "cells.csv").read_text())))
    forged = seal({**records[0], "cell_id": records[1]["cell_id"]})
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(frame.columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows([forged, *records[2:]])
    (exp / "cells.csv").write_text(out.getvalue())
    messages = []
    outcome = run(tmp_path, messages)
    one_line(messages, "not the hash of its identity")
    assert outcome.n_computed == 2  # both cells the forged row stood for
    pd.testing.assert_frame_equal(metrics_by_id(rows(exp)), metrics_by_id(frame))


def test_a_csv_cut_mid_row_on_a_fresh_clone(made, tmp_path):
    exp = clone(made, tmp_path)
    text = (exp / "cells.csv").read_text()
    (exp / "cells.csv").write_text(text[: len(text) - 200])
    messages = []
    outcome = run(tmp_path, messages)
    one_line(messages, "cut short or edited")
    assert (outcome.n_computed, outcome.n_reused) == (1, N_CELLS - 1)
    pd.testing.assert_frame_equal(metrics_by_id(rows(exp)), metrics_by_id(rows(made)))


def test_a_deleted_column_makes_every_row_untrusted(made, tmp_path):
    exp = clone(made, tmp_path)
    frame = rows(exp)
    frame.drop(columns=["nmi"]).to_csv(exp / "cells.csv", index=False)
    messages = []
    outcome = run(tmp_path, messages)
    one_line(messages, f"{N_CELLS} row(s) not trusted")
    assert outcome.n_computed == N_CELLS
    assert len(pd.read_csv(exp / "cells.rejected.csv")) == N_CELLS
    pd.testing.assert_frame_equal(metrics_by_id(rows(exp)), metrics_by_id(frame))


def test_a_duplicated_row_counts_once(made, tmp_path, capfd):
    exp = clone(made, tmp_path)
    text = lines(exp / "cells.csv")
    (exp / "cells.csv").write_text("\n".join([*text, text[1]]) + "\n")
    summary = aggregate.read_experiment(exp).summary
    assert summary["n_cells"].sum() == N_CELLS and summary["complete"].all()
    assert "repeat another row exactly" in capfd.readouterr().err
    assert run(tmp_path).n_computed == 0


def test_two_valid_rows_of_one_cell_keep_the_first(made, tmp_path):
    exp = clone(made, tmp_path)
    records = list(csv.DictReader(io.StringIO((exp / "cells.csv").read_text())))
    other = seal({**records[0], "total_seconds": "99.0"})
    with (exp / "cells.csv").open("a") as fh:
        csv.DictWriter(fh, fieldnames=list(records[0]), lineterminator="\n").writerow(other)
    messages = []
    assert run(tmp_path, messages).n_computed == 0
    one_line(messages, "another valid row of its cell comes first")
    assert rows(exp)["total_seconds"].max() < 99


def test_another_experiments_cells_csv_copied_in(made, tmp_path):
    other = run(tmp_path / "o", name="elsewhere").experiment_dir
    exp = clone(made, tmp_path)
    shutil.copy(other / "cells.csv", exp / "cells.csv")
    messages = []
    outcome = run(tmp_path, messages)
    one_line(messages, "experiment(s) 'elsewhere'", "--foreign")
    assert outcome.n_computed == N_CELLS
    assert set(lines(other / "cells.csv")[1:]) <= set(lines(exp / "cells.csv"))
    assert set(aggregate.read_experiment(exp).cells["experiment"]) == {NAME}


def test_rows_of_another_experiment_appended(made, tmp_path, capfd):
    other = run(tmp_path / "o", name="elsewhere").experiment_dir
    exp = clone(made, tmp_path)
    with (exp / "cells.csv").open("a") as fh:
        fh.write("\n".join(lines(other / "cells.csv")[1:]) + "\n")
    summary = aggregate.read_experiment(exp).summary
    assert summary["n_cells"].sum() == N_CELLS
    assert "experiment(s) 'elsewhere'" in capfd.readouterr().err
    assert run(tmp_path).n_computed == 0


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda text: text.replace("\n", "\r\n")),
        pytest.param(lambda text: "\ufeff" + text),
        pytest.param(lambda text: text.replace("\n", "\n\n", 3)),
    ],
)
def test_harmless_edits_keep_every_row(made, tmp_path, change):
    exp = clone(made, tmp_path)
    (exp / "cells.csv").write_bytes(change((exp / "cells.csv").read_text()).encode("utf-8"))
    pd.testing.assert_frame_equal(
        aggregate.read_experiment(exp).cells, aggregate.read_experiment(made).cells
    )
    assert run(tmp_path).n_computed == 0


def test_reordered_columns_keep_every_row(made, tmp_path):
    exp = clone(made, tmp_path)
    frame = rows(exp)
    frame[list(reversed(frame.columns))].to_csv(exp / "cells.csv", index=False)
    assert run(tmp_path).n_computed == 0
    pd.testing.assert_frame_equal(metrics_by_id(rows(exp)), metrics_by_id(frame))


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b""),
        pytest.param(bytes(range(256)) * 4),
    ],
)
def test_an_empty_or_garbage_csv(made, tmp_path, content):
    exp = clone(made, tmp_path)
    (exp / "cells.csv").write_bytes(content)
    messages = []
    outcome = run(tmp_path, messages)
    assert outcome.n_computed == N_CELLS
    if content:
        one_line(messages, "not a cells.csv header")
        assert (exp / "cells.csv.damaged").read_bytes() == content
    pd.testing.assert_frame_equal(metrics_by_id(rows(exp)), metrics_by_id(rows(made)))


def test_rows_without_a_checksum_are_set_aside_and_computed_again(made, tmp_path):
    exp = clone(made, tmp_path)
    rows(exp).drop(columns=["checksum"]).to_csv(exp / "cells.csv", index=False)
    messages = []
    outcome = run(tmp_path, messages)
    assert outcome.n_computed == N_CELLS
    one_line(messages, f"{N_CELLS} row(s) not trusted (missing column(s) checksum)")
    assert len(read_csv(exp / "cells.rejected.csv")) == N_CELLS
    assert rows(exp)["checksum"].notna().all()


# -- cell files --------------------------------------------------------------------------------


def test_readers_never_write(made, tmp_path, capfd):
    exp = clone(made, tmp_path)
    edit_csv(exp, _set("accuracy", "0.5"))
    before = {p: p.read_bytes() for p in exp.rglob("*") if p.is_file()}
    say = Once()  # what a reader holds to name each problem once across its calls
    view = aggregate.read_experiment(exp, say)
    assert len(aggregate.read_experiment(exp, say).summary)
    assert len(view.cells) == N_CELLS - 1
    assert {p: p.read_bytes() for p in exp.rglob("*") if p.is_file()} == before
    err = capfd.readouterr().err.splitlines()
    assert len([m for m in err if "checksum does not match" in m]) == 1
