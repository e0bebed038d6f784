"""What the cell store costs a run: per-cell write, and rebuilding cells.csv.

    python scripts/bench/bench_store.py              # 2400 cells (bzmd14's 8 methods x 10 r x 30
    reps)
    python scripts/bench/bench_store.py --cells 300

Times, in one temporary folder on the file system of ``--dir`` (default: the system's temporary
folder; point it at the results disk to measure that one):

- write: :meth:`CellStore.write_cell` alone (validation, JSON, temporary file, fsync, rename);
- done_ids cold / warm: a fresh store (every file read and validated) / the same store again
  (unchanged files are not re-read);
- rebuild cold / warm: :meth:`CellStore.rebuild_csv` likewise.
"""

# The kmdr internals this bench needs, beyond the public API (kmdr.run, Session,
# kmdr.read_results), because it times or builds one step alone: kmdr.results.records,
# kmdr.results.store.

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from kmdr.results.records import REQUIRED_COLUMNS, identity_id, row_fields
from kmdr.results.store import CellStore


def row(i: int) -> dict:
    """Cell ``i`` of experiment "x" (its id the hash of its identity, as the runner's)."""
    out = {col: 0.5 for col in REQUIRED_COLUMNS}
    text = ("experiment", "dataset", "dataset_params", "reducer", "reducer_name", "method")
    out.update({col: "x" for col in text})
    out.update(
        reducer_params="{}",
        kmeans_init="k-means++",
        shared_key="",
        data_fingerprint="content:x",
        code_tag="3/1",
        r=i % 10,
        repetition=i // 10,
        blas_threads=1,
    )
    out["cell_id"] = identity_id(row_fields(out))
    return out


def timed(func) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=2400)
    parser.add_argument("--dir", default=None, help="parent of the temporary folder")
    args = parser.parse_args()
    n = args.cells
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        rows = [row(i) for i in range(n)]
        store = CellStore(Path(tmp) / "plain", experiment="x")
        t_write = timed(lambda: [store.write_cell(r["cell_id"], r) for r in rows])
        fresh = CellStore(store.root, experiment="x")
        t_done_cold = timed(fresh.done_ids)
        t_done_warm = timed(fresh.done_ids)
        t_rebuild_cold = timed(CellStore(store.root, experiment="x").rebuild_csv)
        t_rebuild_warm = timed(fresh.rebuild_csv)
    print(f"{n} cells in {args.dir or tempfile.gettempdir()}")
    print(f"  write                   {1e3 * t_write / n:8.3f} ms/cell")
    print(f"  done_ids  cold / warm   {t_done_cold:8.3f} s / {t_done_warm:.3f} s")
    print(f"  rebuild   cold / warm   {t_rebuild_cold:8.3f} s / {t_rebuild_warm:.3f} s")


if __name__ == "__main__":
    main()
