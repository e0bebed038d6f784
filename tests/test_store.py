"""The cell store and kmdr._io under real concurrency and damage: OS processes (no mocks) share
one folder, get killed with SIGKILL, and find truncated or foreign files."""

from __future__ import annotations

import inspect
import json
import os
import signal
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
    temporary_path,
)
from kmdr.datasets import _registry
from kmdr.experiments.store import (
    CSV_COLUMNS,
    EXTRA_COLUMNS,
    IDENTITY_COLUMNS,
    CellStore,
    Claim,
)


def make_row(cell_id, **over):
    """A valid cell row (the child processes below get this function's source)."""
    row = {
        "experiment": "t", "dataset": "synth", "dataset_params": "{}", "reducer": "sign",
        "reducer_name": "sign", "method": "RP", "reducer_params": "{}", "r": 2,
        "repetition": 0, "seed": 1, "base_seed": 0, "n_samples": 10, "n_features": 5,
        "n_clusters": 2, "kmeans_init": "k-means++", "kmeans_n_init": 1,
        "kmeans_max_iter": 100, "kmeans_tol": 1e-4, "objective": 1.5,
        "objective_reduced": 1.0, "accuracy": 0.9, "nmi": 0.8, "ari": 0.7, "n_iter": 3,
        "shared_seconds": 0.0, "shared_key": "", "reduce_seconds": 0.1,
        "cluster_seconds": 0.2, "total_seconds": 0.3, "n_jobs": 1, "blas_threads": 1,
        "converged": True, "reduce_timing": "per cell", "cell_id": cell_id, "run_id": "run",
        "finished_at": "2026",
    }  # fmt: skip
    row.update(over)
    return row


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
from kmdr.experiments.store import CellStore
folder, ids_file, go, out = map(Path, sys.argv[1:5])
ids = json.loads(ids_file.read_text())
store = CellStore(folder)
print("ready", flush=True)
while not go.exists():  # start together, so that both race for every cell
    time.sleep(0.001)
wrote, waited = [], []
for i, cid in enumerate(ids):
    claim = store.try_claim(cid)
    if claim is None:
        waited.append(cid)
        continue
    with claim:
        time.sleep(0.002)  # the computation
        store.write_cell(cid, make_row(cid, r=2 + i % 7, repetition=i, writer=sys.argv[5]))
        wrote.append(cid)
    if i % 25 == 0:
        store.rebuild_csv()
for cid in waited:  # what the other process claimed: wait for it, take over if it died
    claim = store.try_claim(cid, block=True)
    if claim is not None:
        with claim:
            store.write_cell(cid, make_row(cid, writer=sys.argv[5]))
            wrote.append(cid)
store.rebuild_csv()
out.write_text(json.dumps(wrote))
"""


def test_two_processes_write_each_of_200_cells_exactly_once(tmp_path):
    ids = [f"cell{i:03d}" for i in range(200)]
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
    # Every id computed by exactly one process, and both did part of the work.
    assert sorted(wrote["A"] + wrote["B"]) == ids
    assert wrote["A"] and wrote["B"]
    store = CellStore(folder)
    for w, cells in wrote.items():
        assert all(store.read_cell(cid)["writer"] == w for cid in cells)
    # No row lost: the last rebuild (serialized after every write) holds all 200.
    df = pd.read_csv(folder / "cells.csv")
    assert sorted(df.cell_id) == ids
    # Nothing left behind: no temporary file, no claim (only the rebuild lock stays).
    assert not list(folder.rglob("*.tmp"))
    assert [p.name for p in (folder / ".locks").iterdir()] == ["cells.csv.lock"]


HOLD = """
import sys, time
from kmdr.experiments.store import CellStore
store = CellStore(sys.argv[1])
claims = [store.try_claim(cid) for cid in sys.argv[2:]]
print("held" if all(claims) else "missed", flush=True)
sys.stdin.readline()
for cid in sys.argv[2:]:
    store.write_cell(cid, make_row(cid))
for claim in claims:
    claim.release()
"""


def test_claims_of_a_process_killed_with_sigkill_are_free_at_once(tmp_path):
    ids = [f"c{i}" for i in range(5)]
    proc = spawn(HOLD, tmp_path, *ids)
    try:
        assert proc.stdout.readline().strip() == "held"
        store = CellStore(tmp_path)
        assert all(store.is_claimed(cid) for cid in ids)
        assert all(store.try_claim(cid) is None for cid in ids)
        # A blocking claim waits for the holder, and gets the cell once the holder is gone.
        got = {}
        waiter = threading.Thread(target=lambda: got.update(c=store.try_claim("c0", block=True)))
        waiter.start()
        waiter.join(0.3)
        assert waiter.is_alive()
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    waiter.join(30)
    assert isinstance(got["c"], Claim) and got["c"].held
    claims = [store.try_claim(cid) for cid in ids[1:]]  # non-blocking: free right away
    assert all(isinstance(c, Claim) for c in claims)
    for claim in [got["c"], *claims]:
        claim.release()
    assert not any(store.is_claimed(cid) for cid in ids)


def test_a_blocking_claim_gets_none_once_the_holder_wrote_the_cell(tmp_path):
    proc = spawn(HOLD, tmp_path, "c0")
    assert proc.stdout.readline().strip() == "held"
    store = CellStore(tmp_path)
    got = {}
    waiter = threading.Thread(target=lambda: got.update(c=store.try_claim("c0", block=True)))
    waiter.start()
    proc.stdin.write("go\n")
    proc.stdin.flush()
    assert proc.wait(timeout=60) == 0
    waiter.join(30)
    assert got == {"c": None} and store.is_done("c0")


def test_claims_within_one_process(tmp_path):
    store = CellStore(tmp_path)
    claim = store.try_claim("a")
    assert isinstance(claim, Claim) and store.is_claimed("a")
    assert store.try_claim("a") is None  # flock locks belong to the open file, not the process
    assert CellStore(tmp_path).try_claim("a") is None
    claim.release()
    claim.release()  # idempotent
    assert not store.is_claimed("a") and not (tmp_path / ".locks" / "a.lock").exists()
    with store.try_claim("a") as again:
        assert again.held
        store.write_cell("a", make_row("a"))
    assert not again.held
    assert store.try_claim("a") is None  # done
    assert store.done_ids() == {"a"}


# -- damage ------------------------------------------------------------------------------------


def test_damaged_cell_files_are_reported_once_moved_aside_and_not_done(tmp_path):
    logged = []
    store = CellStore(tmp_path, log=logged.append)
    for cid in ("good1", "good2"):
        store.write_cell(cid, make_row(cid, r=int(cid[-1])))
    text = json.dumps(make_row("trunc"))
    damaged = {
        "trunc": text[: len(text) // 2],
        "empty": "",
        "brace": "{}",
        "other": json.dumps(make_row("someone-else")),
        "words": json.dumps(make_row("words", accuracy="high")),
        "nulls": json.dumps(make_row("nulls", objective=None)),
        "alist": "[1, 2]",
        "short": json.dumps({k: v for k, v in make_row("short").items() if k != "kmeans_tol"}),
    }
    for cid, content in damaged.items():
        store.cell_path(cid).write_text(content)

    assert store.done_ids() == {"good1", "good2"}
    assert len(logged) == len(damaged)
    for cid, content in damaged.items():
        (line,) = [m for m in logged if f"{cid}.json:" in m]
        assert "\n" not in line and "damaged" in line
        assert not store.cell_path(cid).exists()
        assert (tmp_path / "cells" / f"{cid}.json.damaged").read_text() == content
    assert any("kmeans_tol" in m for m in logged) and any("accuracy" in m for m in logged)

    # Moved aside: a second reader (another process's store) has nothing to report.
    assert CellStore(tmp_path, log=logged.append).rebuild_csv() == 2
    assert len(logged) == len(damaged)
    assert sorted(pd.read_csv(tmp_path / "cells.csv").cell_id) == ["good1", "good2"]

    # The runner recomputes it; damaged again, the earlier copy is kept too.
    with store.try_claim("empty"):
        store.cell_path("empty").write_text("{")
    store.try_claim("empty").release()
    assert (tmp_path / "cells" / "empty.json.damaged.2").read_text() == "{"
    assert (tmp_path / "cells" / "empty.json.damaged").read_text() == ""


def test_write_cell_refuses_an_invalid_row(tmp_path):
    store = CellStore(tmp_path)
    with pytest.raises(ValueError, match="nmi"):
        store.write_cell("x", make_row("x", nmi="n/a"))
    with pytest.raises(ValueError, match="cell_id"):
        store.write_cell("x", make_row("y"))
    assert not store.cell_path("x").exists()


# -- rows and cells.csv ------------------------------------------------------------------------


def test_rows_of_two_settings_sharing_dataset_reducer_r_repetition_are_both_kept(tmp_path):
    store = CellStore(tmp_path)
    store.write_cell("n1", make_row("n1", kmeans_n_init=1))
    store.write_cell("n3", make_row("n3", kmeans_n_init=3))
    store.write_cell("s7", make_row("s7", base_seed=7))
    store.write_cell("p", make_row("p", reducer_params='{"a": 1}'))
    assert store.rebuild_csv() == 4
    assert sorted(pd.read_csv(tmp_path / "cells.csv").cell_id) == ["n1", "n3", "p", "s7"]


def test_the_same_cell_under_two_ids_is_one_row_the_newest(tmp_path):
    store = CellStore(tmp_path)
    store.write_cell("old", make_row("old", finished_at="2026-01-01", objective=2.0))
    store.write_cell("new", make_row("new", finished_at="2026-02-01", objective=3.0))
    (row,) = store.rows()
    assert row["cell_id"] == "new" and row["objective"] == 3.0


def test_cells_csv_sorted_by_identity_with_the_documented_column_order(tmp_path):
    store = CellStore(tmp_path)
    specs = [("b", 2, 0), ("a", 10, 1), ("a", 2, 1), ("a", 10, 0), ("a", 2, 0)]
    for i, (dataset, r, rep) in enumerate(specs):
        store.write_cell(f"id{i}", make_row(f"id{i}", dataset=dataset, r=r, repetition=rep, z=1))
    store.rebuild_csv()
    df = pd.read_csv(tmp_path / "cells.csv")
    assert list(df.columns) == [*CSV_COLUMNS, *EXTRA_COLUMNS, "z"]
    order = list(zip(df.dataset, df.r, df.repetition, strict=True))
    assert order == [("a", 2, 0), ("a", 2, 1), ("a", 10, 0), ("a", 10, 1), ("b", 2, 0)]
    assert set(IDENTITY_COLUMNS) <= set(df.columns)


def test_rebuild_with_no_cells_writes_nothing_then_an_empty_table(tmp_path):
    store = CellStore(tmp_path)
    assert store.rebuild_csv() == 0 and not store.csv_path.exists()
    store.write_cell("a", make_row("a"))
    store.rebuild_csv()
    store.cell_path("a").write_text("")  # damaged: the table loses the row, keeps its header
    assert CellStore(tmp_path, log=lambda m: None).rebuild_csv() == 0
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
    store = CellStore(tmp_path / "exp")
    store.write_cell("a", make_row("a"))
    store.rebuild_csv()
    store.write_sidecar("run", {"status": "complete"})
    atomic_write_text(tmp_path / "t.txt", "x")
    atomic_write_bytes(tmp_path / "b.bin", b"x")
    shared = Path(os.environ.get("KMDR_DATA_MIRROR", "/nonexistent"))
    rel = "orl/orl_faces/README"
    files = [
        store.cell_path("a"),
        store.csv_path,
        tmp_path / "exp" / "runs" / "run.json",
        tmp_path / "exp" / ".locks" / "cells.csv.lock",
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
    assert CellStore(tmp_path).clean_temporaries() == 0
    assert live_tmp.exists() and other_host.exists() and not killed_tmp.exists()
    live.stdin.write("go\n")
    live.stdin.flush()
    assert live.wait(timeout=30) == 0
    assert (tmp_path / "live.txt").read_text() == "partial and the rest"
    assert not live_tmp.exists() and not (tmp_path / "killed.txt").exists()


def test_clean_temporaries_removes_the_claim_of_a_cell_written_before_a_kill(tmp_path):
    proc = spawn(HOLD, tmp_path, "w", "u")
    assert proc.stdout.readline().strip() == "held"
    store = CellStore(tmp_path)
    store.write_cell("w", make_row("w"))  # as if the holder wrote it just before being killed
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    stale = tmp_path / "cells" / temporary_path("w.json", pid=dead_pid()).name
    stale.write_text("{")
    assert store.clean_temporaries() == 2  # the stale temporary and the finished cell's claim
    assert not stale.exists() and not (tmp_path / ".locks" / "w.lock").exists()
    assert (tmp_path / ".locks" / "u.lock").exists()  # not done: its claim file is left alone


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


MUTEX = """
import os, sys
from kmdr.experiments.store import CellStore
store, inside = CellStore(sys.argv[1]), os.path.join(sys.argv[1], "inside")
print("ready", flush=True)
sys.stdin.readline()
overlaps = 0
for _ in range(300):
    with store.try_claim("x", block=True):  # never written: the lock file comes and goes
        try:
            os.close(os.open(inside, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            overlaps += 1
            continue
        os.unlink(inside)
print(overlaps, flush=True)
"""


def test_a_claim_excludes_others_while_its_lock_file_is_unlinked_and_recreated(tmp_path):
    procs = [spawn(MUTEX, tmp_path) for _ in range(3)]
    for proc in procs:
        assert proc.stdout.readline().strip() == "ready"
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    assert [int(proc.stdout.readline()) for proc in procs] == [0, 0, 0]
    for proc in procs:
        assert proc.wait(timeout=60) == 0
