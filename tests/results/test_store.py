"""The cell store and kmdr._io under real concurrency and damage: OS processes (no mocks) share
one folder, get killed with SIGKILL, and find truncated or foreign files."""

from __future__ import annotations

import inspect
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pandas as pd
import pytest

from kmdr._io import (
    atomic_write_bytes,
    atomic_write_text,
    atomic_writer,
    read_csv,
    remove_stale_temporaries,
)
from kmdr.datasets import _registry
from kmdr.results.locks import folder_lock
from kmdr.results.records import CSV_COLUMNS, EXTRA_COLUMNS, IDENTITY_COLUMNS
from kmdr.results.store import CellStore


def make_row(**over):
    """A valid cell row of experiment "t", its cell id the hash of its identity (the child
    processes below get this function's source)."""
    from kmdr.results.records import identity_id, row_fields

    row = {
        "experiment": "t", "dataset": "synth", "dataset_params": "{}", "reducer": "sign",
        "reducer_name": "sign", "method": "RP", "reducer_params": "{}", "r": 2,
        "repetition": 0, "seed": 1, "base_seed": 0, "n_samples": 10, "n_features": 5,
        "n_clusters": 2, "kmeans_init": "k-means++", "kmeans_n_init": 1,
        "kmeans_max_iter": 100, "kmeans_tol": 1e-4, "data_fingerprint": "content:x",
        "code_tag": "3/1", "objective": 1.5,
        "objective_reduced": 1.0, "accuracy": 0.9, "nmi": 0.8, "ari": 0.7, "n_iter": 3,
        "shared_seconds": 0.0, "shared_key": "", "reduce_seconds": 0.1,
        "cluster_seconds": 0.2, "total_seconds": 0.3, "n_jobs": 1, "blas_threads": 1,
        "converged": True, "reduce_timing": "per cell", "run_id": "run", "finished_at": "2026",
    }  # fmt: skip
    row.update(over)
    row.setdefault("cell_id", identity_id(row_fields(row)))
    return row


def rid(**over) -> str:
    """The cell id of ``make_row(**over)``."""
    return make_row(**over)["cell_id"]


def Store(folder, **kwargs) -> CellStore:
    """The store of experiment "t" (the rows of make_row) in ``folder``."""
    return CellStore(folder, experiment="t", **kwargs)


ROW_CODE = inspect.getsource(make_row) + "\n"


def spawn(code: str, *args) -> subprocess.Popen:
    """A child Python process running ``code`` with ``args`` (text lines on stdin/stdout)."""
    return subprocess.Popen(
        [sys.executable, "-c", ROW_CODE + code, *map(str, args)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def dead_pid() -> int:
    """The pid of a process that has ended."""
    out = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return int(out.stdout)


# -- two processes, one folder ------------------------------------------------------------------

SWEEP = """
import json, sys, time
from pathlib import Path
from kmdr.results.locks import folder_lock
from kmdr.results.store import CellStore
folder, ids_file, go, out = map(Path, sys.argv[1:5])
ids = json.loads(ids_file.read_text())
store = CellStore(folder, experiment="t")
print("ready", flush=True)
while not go.exists():  # start together, so that both race for the folder
    time.sleep(0.001)
wrote = []
with folder_lock(folder, lambda line: print(line, file=sys.stderr)):
    done = store.done_ids()
    for i, cid in enumerate(ids):
        if cid in done:
            continue
        time.sleep(0.002)  # the computation
        store.write_cell(cid, make_row(repetition=i, writer=sys.argv[5]))
        wrote.append(cid)
        if i % 25 == 0:
            store.rebuild_csv()
    store.rebuild_csv()
out.write_text(json.dumps(wrote))
"""


@pytest.mark.slow
def test_two_processes_on_one_folder_write_each_of_200_cells_exactly_once(tmp_path):
    ids = [rid(repetition=i) for i in range(200)]
    (tmp_path / "ids.json").write_text(json.dumps(ids))
    folder, go = tmp_path / "exp", tmp_path / "go"
    procs = [
        spawn(SWEEP, folder, tmp_path / "ids.json", go, tmp_path / f"out{w}.json", w) for w in "AB"
    ]
    for proc in procs:
        assert proc.stdout.readline().strip() == "ready"
    go.touch()
    for proc in procs:
        assert proc.wait(timeout=120) == 0
    wrote = {w: json.loads((tmp_path / f"out{w}.json").read_text()) for w in "AB"}
    # One process wrote every cell; the other waited for it and reused them all.
    assert sorted(wrote["A"] + wrote["B"]) == sorted(ids)
    assert not (wrote["A"] and wrote["B"])
    df = pd.read_csv(folder / "cells.csv")
    assert sorted(df.cell_id) == sorted(ids)
    assert not list(folder.rglob("*.tmp"))


HOLD = """
import sys
from kmdr.results.locks import folder_lock
with folder_lock(sys.argv[1], print):
    print("held", flush=True)
    sys.stdin.readline()
    store = CellStore(sys.argv[1], experiment="t")
    store.write_cell(make_row()["cell_id"], make_row())
"""
HOLD = "from kmdr.results.store import CellStore\n" + HOLD


def _waiter(folder, said: list, got: dict) -> threading.Thread:
    """A thread taking ``folder``'s lock (what it says goes to ``said``), then noting whether the
    cell of make_row() is done."""

    def wait() -> None:
        with folder_lock(folder, said.append):
            got["done"] = rid() in Store(folder).done_ids()

    thread = threading.Thread(target=wait)
    thread.start()
    return thread


@pytest.mark.slow
def test_a_second_writer_waits_in_one_line_and_goes_on_when_the_first_is_killed(tmp_path):
    proc = spawn(HOLD, tmp_path)
    said, got = [], {}
    try:
        assert proc.stdout.readline().strip() == "held"
        waiter = _waiter(tmp_path, said, got)
        waiter.join(0.5)
        assert waiter.is_alive()
        holder = f"process {proc.pid} on {socket.gethostname()}"
        line = f"[kmdr] {tmp_path}: waiting for {holder}, which is writing this folder, to end"
        assert said == [line]
        assert said == [
            f"[kmdr] {tmp_path}: waiting for {holder}, which is writing this folder, to end"
        ]
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    waiter.join(30)
    assert got == {"done": False}  # the lock died with its holder


@pytest.mark.slow
def test_a_second_writer_sees_what_the_first_wrote(tmp_path):
    proc = spawn(HOLD, tmp_path)
    assert proc.stdout.readline().strip() == "held"
    said, got = [], {}
    waiter = _waiter(tmp_path, said, got)
    proc.stdin.write("go\n")
    proc.stdin.flush()
    assert proc.wait(timeout=60) == 0
    waiter.join(30)
    assert got == {"done": True}


# -- damage ------------------------------------------------------------------------------------


def test_rows_are_appended_as_cells_finish_and_sorted_at_the_end(tmp_path):
    store = Store(tmp_path)
    rows = [make_row(r=r) for r in (8, 2, 4)]
    for row in rows:
        store.write_cell(row["cell_id"], row)
    appended = store.csv_path.read_bytes()
    assert [line.split(b",")[5] for line in appended.splitlines()[1:]] == [b"8", b"2", b"4"]
    assert store.done_ids() == {row["cell_id"] for row in rows}
    assert not (tmp_path / "cells").exists()  # no per-cell cache
    assert store.rebuild_csv() == 3
    assert list(pd.read_csv(store.csv_path).r) == [2, 4, 8]
    sorted_bytes = store.csv_path.read_bytes()
    assert store.rebuild_csv() == 3 and store.csv_path.read_bytes() == sorted_bytes
    assert sorted(appended.splitlines()) == sorted(sorted_bytes.splitlines())


def test_a_row_cut_short_is_never_joined_to_the_next_one(tmp_path):
    logged = []
    store = Store(tmp_path, log=logged.append)
    first, second, third = (make_row(r=r) for r in (2, 4, 8))
    store.write_cell(first["cell_id"], first)
    store.write_cell(second["cell_id"], second)
    text = store.csv_path.read_text()
    whole = text[: text.rindex("\n", 0, len(text) - 1) + 1]  # the header and the first row
    store.csv_path.write_text(whole + text[len(whole) :][: (len(text) - len(whole)) // 2])
    assert store.done_ids() == {first["cell_id"]}
    store.write_cell(third["cell_id"], third)  # killed mid-row: the next run's first cell
    assert store.done_ids() == {first["cell_id"], third["cell_id"]}
    assert store.untrusted() is None
    (rejected,) = pd.read_csv(tmp_path / "cells.rejected.csv").itertuples()
    assert rejected.line == 3 and "cut short" in rejected.reason
    assert len(logged) == 1 and "set aside in cells.rejected.csv" in logged[0]


def test_an_old_cell_file_cache_is_not_read(tmp_path):
    (tmp_path / "cells").mkdir()
    row = make_row()
    (tmp_path / "cells" / f"{row['cell_id']}.json").write_text(json.dumps(row))
    assert Store(tmp_path).done_ids() == set()


def test_write_cell_refuses_an_invalid_row(tmp_path):
    store = Store(tmp_path)
    x = rid()
    with pytest.raises(ValueError, match="nmi"):
        store.write_cell(x, make_row(nmi="n/a"))
    with pytest.raises(ValueError, match="cell_id"):
        store.write_cell(x, make_row(r=3))
    with pytest.raises(ValueError, match="identity"):  # an id that is not its identity's hash
        store.write_cell(x, make_row(r=3, cell_id=x))
    assert not store.csv_path.exists()


# -- rows and cells.csv ------------------------------------------------------------------------


def test_rows_of_two_settings_sharing_dataset_reducer_r_repetition_are_both_kept(tmp_path):
    store = Store(tmp_path)
    settings = [
        {"kmeans_n_init": 1},
        {"kmeans_n_init": 3},
        {"base_seed": 7},
        {"reducer_params": '{"a": 1}'},
        {"data_fingerprint": "content:y"},
        {"code_tag": "3/2"},
    ]
    for over in settings:
        store.write_cell(rid(**over), make_row(**over))
    assert store.rebuild_csv() == len(settings)
    assert sorted(pd.read_csv(tmp_path / "cells.csv").cell_id) == sorted(rid(**o) for o in settings)


def test_one_cell_has_one_id_whatever_wrote_it(tmp_path):
    # the id is the hash of the identity columns' texts: a CSV field and a JSON value agree
    row = make_row(kmeans_tol=0.0001, dataset_params='{"n_samples": 10}')
    store = Store(tmp_path)
    store.write_cell(row["cell_id"], row)
    store.rebuild_csv()
    (only,) = store.csv_record().valid.values()
    assert only["cell_id"] == row["cell_id"] and float(only["objective"]) == 1.5


def test_cells_csv_sorted_by_identity_with_the_documented_column_order(tmp_path):
    store = Store(tmp_path)
    specs = [("b", 2, 0), ("a", 10, 1), ("a", 2, 1), ("a", 10, 0), ("a", 2, 0)]
    for dataset, r, rep in specs:
        row = make_row(dataset=dataset, r=r, repetition=rep, z=1)
        store.write_cell(row["cell_id"], row)
    store.rebuild_csv()
    df = pd.read_csv(tmp_path / "cells.csv")
    assert list(df.columns) == [*CSV_COLUMNS, *EXTRA_COLUMNS, "z"]
    order = list(zip(df.dataset, df.r, df.repetition, strict=True))
    assert order == [("a", 2, 0), ("a", 2, 1), ("a", 10, 0), ("a", 10, 1), ("b", 2, 0)]
    # every identity column but those written only away from their default (online phase off,
    # no rows step, solved by Lloyd, scored on all rows)
    written_away = {"kmeans_online_phase", "seed_from", "coreset", "solve", "evaluation"}
    assert set(IDENTITY_COLUMNS) - written_away <= set(df.columns)


def test_rebuild_with_no_cells_writes_nothing(tmp_path):
    store = Store(tmp_path)
    assert store.rebuild_csv() == 0 and not store.csv_path.exists()
    a = rid()
    store.write_cell(a, make_row())
    again = Store(tmp_path)
    assert again.rebuild_csv() == 1 and again.done_ids() == {a}
    assert list(read_csv(store.csv_path).columns[: len(CSV_COLUMNS)]) == list(CSV_COLUMNS)


# -- files honour the umask --------------------------------------------------------------------


@pytest.fixture
def umask():
    """``os.umask`` for the test, restored after it."""
    old = os.umask(0o022)
    yield os.umask
    os.umask(old)


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_written_files_honour_the_umask(tmp_path, umask, mask, mode):
    umask(mask)
    store = Store(tmp_path / "exp")
    with folder_lock(store.root, print):
        store.write_cell(rid(), make_row())
        store.rebuild_csv()
        store.write_sidecar("run", {"status": "complete"})
    atomic_write_text(tmp_path / "t.txt", "x")
    atomic_write_bytes(tmp_path / "b.bin", b"x")
    shared = Path(os.environ.get("KMDR_DATA_MIRROR", "/nonexistent"))
    rel = "orl/orl_faces/README"
    files = [
        store.csv_path,
        tmp_path / "exp" / "runs" / "run.json",
        tmp_path / "exp" / ".locks" / "folder.lock",
        tmp_path / "t.txt",
        tmp_path / "b.bin",
    ]
    if (shared / rel).is_file():  # the data cache's copy from the (read-only) mirror
        files.append(_registry.fetch(rel, dataset="orl", data_dir=tmp_path / "c", mirror=shared))
    assert {str(p): oct(stat.S_IMODE(p.stat().st_mode)) for p in files} == {
        str(p): oct(mode) for p in files
    }


# -- temporary files ---------------------------------------------------------------------------

WRITER = """
import sys
from kmdr._io import atomic_writer
with atomic_writer(sys.argv[1]) as fh:
    fh.write("partial")
    fh.flush()
    print(fh.name, flush=True)
    sys.stdin.readline()
    fh.write(" and the rest")
"""


@pytest.mark.slow
def test_cleanup_removes_a_dead_writers_temporary_and_keeps_a_live_ones(tmp_path):
    live = spawn(WRITER, tmp_path / "live.txt")
    killed = spawn(WRITER, tmp_path / "killed.txt")
    live_tmp = Path(live.stdout.readline().strip())
    killed_tmp = Path(killed.stdout.readline().strip())
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait(timeout=30)
    other_host = tmp_path / f".x.json~another-host~{dead_pid()}~abcd.tmp"
    other_host.write_text("?")
    assert live_tmp.exists() and killed_tmp.exists()

    assert remove_stale_temporaries(tmp_path) == [killed_tmp]
    assert Store(tmp_path).clean_temporaries() == 0
    assert live_tmp.exists() and other_host.exists() and not killed_tmp.exists()
    live.stdin.write("go\n")
    live.stdin.flush()
    assert live.wait(timeout=30) == 0
    assert (tmp_path / "live.txt").read_text() == "partial and the rest"
    assert not live_tmp.exists() and not (tmp_path / "killed.txt").exists()


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "f.txt"
    atomic_write_text(target, "old")
    with pytest.raises(RuntimeError), atomic_writer(target) as fh:
        fh.write("new, half")
        raise RuntimeError("disk full")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["f.txt"]


# -- CSV ---------------------------------------------------------------------------------------


def test_read_csv_of_an_empty_file_is_an_empty_frame(tmp_path):
    (tmp_path / "zero.csv").write_bytes(b"")
    (tmp_path / "blank.csv").write_text("\n\n")
    (tmp_path / "full.csv").write_text("a,b\n1,x\n")
    assert read_csv(tmp_path / "zero.csv").empty and read_csv(tmp_path / "blank.csv").empty
    frame = read_csv(tmp_path / "full.csv", dtype={"a": "int64"})
    assert frame.to_dict("list") == {"a": [1], "b": ["x"]}
    with pytest.raises(FileNotFoundError):
        read_csv(tmp_path / "missing.csv")
