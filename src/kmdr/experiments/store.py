"""What the runner keeps on disk: one file per finished cell, ``cells.csv``, run sidecars.

Layout (the contract is ``docs/results-layout.md``)::

    <results_dir>/<experiment>/
        cells/<cell_id>.json   one finished cell each (a cache, gitignored)
        cells.csv              rebuilt from cells/ at the start and end of every run
        runs/<run_id>.json     one sidecar per invocation

Every file is written to a temporary file in the same folder and moved into place with
:func:`os.replace`, which is atomic on POSIX and Windows: a reader (or a run killed with
``kill -9``) sees the old file or the new one, never half of one. A cell file exists only once
its cell has finished, so an interrupted run loses no finished cell and leaves no partial row.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

__all__ = ["CSV_COLUMNS", "METRIC_COLUMNS", "CellStore", "atomic_write_text"]

#: The columns of ``cells.csv``, in order (docs/results-layout.md); extra columns follow.
CSV_COLUMNS: tuple[str, ...] = (
    "experiment",
    "dataset",
    "reducer",
    "reducer_name",
    "method",
    "r",
    "repetition",
    "seed",
    "n_samples",
    "n_features",
    "n_clusters",
    "reducer_params",
    "kmeans_init",
    "kmeans_n_init",
    "kmeans_max_iter",
    "objective",
    "objective_reduced",
    "accuracy",
    "nmi",
    "ari",
    "n_iter",
    "shared_seconds",
    "shared_key",
    "reduce_seconds",
    "cluster_seconds",
    "total_seconds",
    "n_jobs",
    "blas_threads",
)
#: The columns a cell's computation produces (its metrics and times), as they stand in CSV_COLUMNS.
METRIC_COLUMNS: tuple[str, ...] = CSV_COLUMNS[
    CSV_COLUMNS.index("objective") : CSV_COLUMNS.index("total_seconds") + 1
]
#: Columns after the contract's, for provenance.
EXTRA_COLUMNS: tuple[str, ...] = (
    "converged",
    "kmeans_tol",
    "dataset_params",
    "base_seed",
    "cell_id",
    "run_id",
    "finished_at",
)
#: What identifies a cell in ``cells.csv`` (one row each).
CELL_KEY: tuple[str, ...] = ("dataset", "reducer", "r", "repetition")
#: Every setting that changes a cell's numbers, as cells.csv columns: two rows that differ in any
#: of them are different cells (their ``cell_id`` hashes the same settings).
IDENTITY_COLUMNS: tuple[str, ...] = (
    "dataset",
    "dataset_params",
    "reducer",
    "reducer_name",
    "reducer_params",
    "r",
    "repetition",
    "base_seed",
    "kmeans_init",
    "kmeans_n_init",
    "kmeans_max_iter",
    "kmeans_tol",
)
#: A point of a figure (a row of summary.csv): a cell's identity without its repetition.
POINT_COLUMNS: tuple[str, ...] = tuple(c for c in IDENTITY_COLUMNS if c != "repetition")


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and :func:`os.replace`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _json_default(obj):
    if hasattr(obj, "item"):  # numpy scalars
        return obj.item()
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


def _dumps(obj) -> str:
    return json.dumps(obj, indent=1, sort_keys=False, default=_json_default, allow_nan=True)


class CellStore:
    """The files of one experiment folder."""

    def __init__(self, experiment_dir: str | os.PathLike, log=None):
        self.log = log
        self.root = Path(experiment_dir)
        self.cells_dir = self.root / "cells"
        self.runs_dir = self.root / "runs"
        self.csv_path = self.root / "cells.csv"

    # -- cells ---------------------------------------------------------------------------------
    def cell_path(self, cell_id: str) -> Path:
        return self.cells_dir / f"{cell_id}.json"

    def done_ids(self) -> set[str]:
        """Ids of the finished cells on disk."""
        if not self.cells_dir.is_dir():
            return set()
        return {p.stem for p in self.cells_dir.glob("*.json")}

    def write_cell(self, cell_id: str, row: dict) -> None:
        """Persist one finished cell (atomically)."""
        atomic_write_text(self.cell_path(cell_id), _dumps(row))

    def read_cell(self, cell_id: str) -> dict:
        return json.loads(self.cell_path(cell_id).read_text(encoding="utf-8"))

    # TEMPORARY shim until the store branch lands (the lead's runner needs claims to run).
    def try_claim(self, cell_id):
        import fcntl

        self.cells_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.cells_dir / f"{cell_id}.lock", os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        if self.cell_path(cell_id).exists():
            os.close(fd)
            return None

        class _Claim:
            def release(self_inner):
                os.close(fd)

        return _Claim()

    def is_claimed(self, cell_id):
        claim = self.try_claim(cell_id)
        if claim is None:
            return not self.cell_path(cell_id).exists()
        claim.release()
        return False

    def remove_stale_temporaries(self):
        return 0

    def clean_temporaries(self) -> int:
        """Remove temporary files a killed run left behind; return how many."""
        count = 0
        for folder in (self.cells_dir, self.runs_dir, self.root):
            if folder.is_dir():
                for tmp in folder.glob(".*.tmp"):
                    tmp.unlink(missing_ok=True)
                    count += 1
        return count

    def rows(self) -> list[dict]:
        """Every finished cell's row; for a cell key found in several files (runs with other
        settings), the most recently finished one."""
        if not self.cells_dir.is_dir():
            return []
        latest: dict[tuple, dict] = {}
        for path in sorted(self.cells_dir.glob("*.json")):
            try:
                row = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue  # unreadable: not a finished cell (never happens with atomic writes)
            key = row.get("cell_id")
            if key not in latest or str(row.get("finished_at", "")) > str(
                latest[key].get("finished_at", "")
            ):
                latest[key] = row
        return list(latest.values())

    def rebuild_csv(self) -> int:
        """Rewrite ``cells.csv`` from the cell files (atomically); return its number of rows."""
        rows = self.rows()
        if not rows and not self.csv_path.exists():
            return 0
        frame = pd.DataFrame(rows)
        for col in CSV_COLUMNS:
            if col not in frame.columns:
                frame[col] = pd.NA
        known = list(CSV_COLUMNS) + [c for c in EXTRA_COLUMNS if c in frame.columns]
        others = sorted(c for c in frame.columns if c not in known)
        frame = frame[known + others]
        if len(frame):
            frame = frame.sort_values(["dataset", "reducer", "r", "repetition"], kind="stable")
        atomic_write_text(self.csv_path, frame.to_csv(index=False))
        return len(frame)

    # -- run sidecars --------------------------------------------------------------------------
    def write_sidecar(self, run_id: str, payload: dict) -> Path:
        path = self.runs_dir / f"{run_id}.json"
        atomic_write_text(path, _dumps(_finite(payload)))
        return path


def _finite(obj):
    """Replace NaN/inf floats by None so sidecars are strict JSON."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    return obj


def expected_cell_dicts(cells: Iterable) -> list[dict]:
    """``{dataset, reducer, r, repetition}`` of each cell (for sidecars)."""
    return [
        {"dataset": c.dataset, "reducer": c.reducer_id, "r": c.r, "repetition": c.repetition}
        for c in cells
    ]
