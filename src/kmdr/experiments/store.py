"""What the runner keeps on disk, safe when several processes share one experiment folder.

Layout (the contract is ``docs/results-layout.md``)::

    <results_dir>/<experiment>/
        cells/<cell_id>.json            one finished cell each (a cache, gitignored)
        cells/<cell_id>.json.damaged    a cell file that failed validation, moved aside
        cells.csv                       every valid cell file, one row each
        runs/<run_id>.json              one sidecar per invocation
        .locks/<cell_id>.lock           a cell's claim while a process computes it
        .locks/cells.csv.lock           serializes the rebuilds of cells.csv

Every file is written with :func:`kmdr._io.atomic_write_text` (temporary file + ``os.replace``,
mode 0o666 minus the umask): a reader, or a run killed with ``kill -9``, sees a whole file or
none. A cell file exists only once its cell has finished.

How the runner uses it::

    store = CellStore(exp_dir, log=log)
    store.clean_temporaries()                  # leftovers of dead writers only
    done = store.done_ids()                    # ids of the VALID cell files (damaged: moved aside)
    for cell in cells not in done, a few ahead of the free workers:
        claim = store.try_claim(cell.cell_id)  # None: done, or another live process has it
        if claim is None: remember it, go on
        else: compute in a worker; on the result: store.write_cell(id, row); claim.release()
    every few seconds, and at the end: store.rebuild_csv()
    at the end, for each remembered cell still not done:
        store.try_claim(id, block=True)        # waits for the other process: None once it wrote
                                               # the cell, a Claim if it died (compute it then),
                                               # LockTimeout if its heartbeat stops (_locks)

A cell file is valid when it is a JSON object with every column of :data:`CSV_COLUMNS` and
:data:`IDENTITY_COLUMNS`, a ``cell_id`` equal to the file's stem, integer ``r`` and
``repetition``, and numbers (NaN allowed) in the numeric metric columns. Anything else (a
truncated or empty file, ``{}``, another schema) is reported in one line through ``log``, moved to
``<cell_id>.json.damaged`` (``.damaged.2``, ... if taken; never deleted) and is not done, so the
runner computes the cell again. :meth:`CellStore.rows` returns one row per valid file: the cell id
hashes every setting, so rows of runs with other settings are all kept. Only rows equal in every
identity column (the same cell computed under two cell-file formats) collapse to the most
recently finished one.

Claims: why ``flock`` on a lock file per cell
    The kernel drops an ``flock`` lock when its holder's descriptor closes, so a process killed
    with ``kill -9`` (or by the OOM killer) leaves no stale claim: another process can claim its
    cells at once, and a blocking claim wakes up. Exclusive-create (``O_EXCL``) claim files
    outlive a killed holder and need a liveness guess (pid reuse, clock-based expiry), which is
    how a slow but live computation gets stolen; SQLite adds a database file that is itself
    unsafe on NFS and a write lock held across the whole store. Claims are taken lazily, so only
    a few descriptors are open at once; a released claim's lock file is unlinked (see
    :mod:`._locks` for why that is race-free).

    Assumptions: POSIX (``fcntl``; not Windows); all processes that share a folder run on one
    host, or on Linux NFS clients (NFSv4, or v3 with the lock manager), where ``flock`` is
    emulated by byte-range locks that the server releases when a client's process dies (a
    client that loses the network holds its locks until the server's lease expires). Those
    emulated locks belong to the process, not the descriptor: on NFS a process must not claim
    or probe a cell it already holds (closing that second descriptor drops its claim), so the
    runner keeps track of its own claims. A worker forked (not spawned) while claims are held
    shares them until it exits; joblib's default loky workers start fresh and do not. Everyone
    who claims needs write access to ``.locks/`` (collaborators: a shared group, umask 0o002).
    Temporary files of another host are never removed (:mod:`kmdr._io`).

:meth:`CellStore.is_claimed` is a probe that takes a shared lock for an instant: a non-blocking
claim racing with it may get ``None`` spuriously, which is why the runner's final pass claims
the cells it did not compute with ``block=True``.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from kmdr._io import atomic_write_text, remove_stale_temporaries
from kmdr.experiments import _locks
from kmdr.experiments.columns import (
    CSV_COLUMNS,
    EXTRA_COLUMNS,
    IDENTITY_COLUMNS,
    METRIC_COLUMNS,
    POINT_COLUMNS,
    cell_problem,
)

__all__ = [
    "CSV_COLUMNS",
    "EXTRA_COLUMNS",
    "IDENTITY_COLUMNS",
    "METRIC_COLUMNS",
    "POINT_COLUMNS",
    "CellStore",
    "Claim",
    "atomic_write_text",
    "cell_problem",
]

_LOCKS = ".locks"
_CSV_LOCK = "cells.csv.lock"


def _parse(text: str, cell_id: str) -> tuple[dict | None, str | None]:
    """(row, None) for a valid cell file's text, else (None, the problem)."""
    if not text.strip():
        return None, "empty file"
    try:
        row = json.loads(text)
    except ValueError as err:
        return (
            None,
            f"not JSON ({getattr(err, 'msg', err)} at character {getattr(err, 'pos', '?')})",
        )
    problem = cell_problem(row, cell_id)
    return (None, problem) if problem else (row, None)


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _sort_value(value):
    """Numbers before texts, each in their natural order (so r = 2 comes before r = 10)."""
    if _is_number(value):
        return (0, float(value), "")
    return (1, 0.0, json.dumps(value, sort_keys=True) if not isinstance(value, str) else value)


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _dumps(obj) -> str:
    return json.dumps(obj, indent=1, sort_keys=False, default=_json_default, allow_nan=True)


def _json_default(obj):
    if hasattr(obj, "item"):  # numpy scalars
        return obj.item()
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


class Claim:
    """The right to compute and write one cell, held until :meth:`release` (or the end of a
    ``with`` block, or the process). Returned by :meth:`CellStore.try_claim`."""

    def __init__(self, cell_id: str, lock: _locks.HeldLock):
        self.cell_id = cell_id
        self._lock = lock

    @property
    def held(self) -> bool:
        return self._lock.held

    @property
    def path(self) -> Path:
        """The claim's lock file (it names its holder: :func:`._locks.holder`)."""
        return self._lock.path

    def release(self) -> None:
        """Give the cell up (idempotent); its lock file is removed."""
        self._lock.release(unlink=True)

    def __enter__(self) -> Claim:
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"Claim({self.cell_id!r}, held={self.held})"


class CellStore:
    """The files of one experiment folder (see the module docstring).

    ``log`` receives one-line reports (a damaged cell file); default: stderr.
    """

    def __init__(
        self, experiment_dir: str | os.PathLike, *, log: Callable[[str], None] | None = None
    ):
        self.root = Path(experiment_dir)
        self.cells_dir = self.root / "cells"
        self.runs_dir = self.root / "runs"
        self.locks_dir = self.root / _LOCKS
        self.csv_path = self.root / "cells.csv"
        self.log = log or _stderr
        # file name -> ((inode, mtime, size), row): a cell file is never modified in place, so
        # an unchanged stat means an unchanged, already validated row.
        self._cache: dict[str, tuple[tuple, dict]] = {}

    # -- cells ---------------------------------------------------------------------------------
    def cell_path(self, cell_id: str) -> Path:
        return self.cells_dir / f"{cell_id}.json"

    def _lock_path(self, cell_id: str) -> Path:
        return self.locks_dir / f"{cell_id}.lock"

    def _valid_row(self, cell_id: str, *, locked: bool = False) -> dict | None:
        """The cell's row if its file is valid; a damaged file is moved aside (see
        :meth:`_quarantine`). ``locked``: the caller holds the cell's lock."""
        path = self.cell_path(cell_id)
        try:
            st = path.stat()
            key = (st.st_ino, st.st_mtime_ns, st.st_size)
            cached = self._cache.get(path.name)
            if cached is not None and cached[0] == key:
                return cached[1]
            text = path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return None
        row, _ = _parse(text, cell_id)
        if row is not None:
            self._cache[path.name] = (key, row)
            return row
        self._quarantine(cell_id, locked=locked)
        return None

    def _quarantine(self, cell_id: str, *, locked: bool) -> None:
        """Move a damaged cell file aside and say so, under the cell's lock: its content is
        checked again there, so a file another process has just rewritten is never moved, and
        two processes never both report one file. A cell claimed by another process is left
        to that process (its claim already checked the file)."""
        lock = None
        if not locked:
            lock = _locks.acquire(self._lock_path(cell_id))
            if lock is None:
                return
        try:
            path = self.cell_path(cell_id)
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except FileNotFoundError:
                return
            _, problem = _parse(text, cell_id)
            if problem is None:
                return
            dest = path.with_name(path.name + ".damaged")
            n = 1
            while dest.exists():
                n += 1
                dest = path.with_name(f"{path.name}.damaged.{n}")
            os.replace(path, dest)
            self._cache.pop(path.name, None)
            self.log(
                f"[kmdr] damaged cell file {path}: {problem}; moved to {dest.name}, "
                "the cell will be computed again"
            )
        finally:
            if lock is not None:
                lock.release(unlink=True)

    def is_done(self, cell_id: str) -> bool:
        """Whether the cell has a valid file (a damaged one is moved aside)."""
        return self._valid_row(cell_id) is not None

    def _scan(self) -> dict[str, dict]:
        if not self.cells_dir.is_dir():
            return {}
        out = {}
        for path in sorted(self.cells_dir.glob("*.json")):
            row = self._valid_row(path.stem)
            if row is not None:
                out[path.stem] = row
        return out

    def done_ids(self) -> set[str]:
        """Ids of the cells with a valid file (damaged files are reported and moved aside)."""
        return set(self._scan())

    def rows(self) -> list[dict]:
        """One row per valid cell file, in file-name order (damaged files are reported and
        moved aside). Rows equal in every identity column keep the most recently finished."""
        kept: dict[str, dict] = {}
        for row in self._scan().values():
            key = json.dumps([row[c] for c in IDENTITY_COLUMNS], sort_keys=True, default=str)
            if key not in kept or str(row.get("finished_at", "")) > str(
                kept[key].get("finished_at", "")
            ):
                kept[key] = row
        return [dict(row) for row in kept.values()]

    def write_cell(self, cell_id: str, row: dict) -> None:
        """Persist one finished cell atomically; call it while holding the cell's claim.

        Raises ValueError (before writing) when ``row`` is not a valid cell row: such a file
        would be moved aside as damaged by the next reader.
        """
        text = _dumps(row)
        problem = cell_problem(json.loads(text), cell_id)  # what a reader will see
        if problem:
            raise ValueError(f"cell {cell_id}: {problem}; the runner must write every column")
        atomic_write_text(self.cell_path(cell_id), text)

    def read_cell(self, cell_id: str) -> dict:
        return json.loads(self.cell_path(cell_id).read_text(encoding="utf-8"))

    # -- claims --------------------------------------------------------------------------------
    def try_claim(
        self, cell_id: str, *, block: bool = False, timeout: float | None = None
    ) -> Claim | None:
        """Claim a cell before computing it: a :class:`Claim`, or None when the cell is done or
        another live process holds it (``block``: wait for that process to release it or end,
        then None if it wrote the cell, else a Claim; :class:`._locks.LockTimeout` after
        ``timeout`` seconds without a sign of life from it). A damaged file is moved aside
        here."""
        lock = _locks.acquire(self._lock_path(cell_id), block=block, timeout=timeout)
        if lock is None:
            return None
        try:
            done = self._valid_row(cell_id, locked=True) is not None
        except BaseException:
            lock.release(unlink=True)
            raise
        if done:  # finished by another process between our check and our lock
            lock.release(unlink=True)
            return None
        return Claim(cell_id, lock)

    def claim_holder(self, cell_id: str) -> dict | None:
        """Who holds the cell's claim (pid, host, since), as its lock file says, or None."""
        return _locks.holder(self._lock_path(cell_id))

    def is_claimed(self, cell_id: str) -> bool:
        """Whether a live process holds the cell's claim now (a probe; see the module docstring)."""
        return _locks.is_locked(self._lock_path(cell_id))

    # -- maintenance ---------------------------------------------------------------------------
    def clean_temporaries(self) -> int:
        """Remove what dead processes left: their temporary files (those of live writers and of
        other hosts stay) and the lock files of finished cells. Return how many files."""
        count = sum(
            len(remove_stale_temporaries(folder))
            for folder in (self.cells_dir, self.runs_dir, self.root)
        )
        if self.locks_dir.is_dir():
            for path in self.locks_dir.glob("*.lock"):
                # Only cells already done: a claim attempt on them gives None anyway, so taking
                # their lock for an instant cannot make another process skip work.
                if path.name == _CSV_LOCK or not self.is_done(path.stem):
                    continue
                lock = _locks.acquire(path)
                if lock is not None:
                    lock.release(unlink=True)
                    count += 1
        return count

    def rebuild_csv(self) -> int:
        """Rewrite ``cells.csv`` from the valid cell files; return its number of rows.

        Serialized across processes by a lock, and the files are read under it, so a rebuild
        never replaces a newer one's content with an older snapshot. Rows are sorted by the
        identity columns; columns are CSV_COLUMNS, then EXTRA_COLUMNS, then any others (sorted).
        """
        lock = _locks.acquire(self.locks_dir / _CSV_LOCK, block=True)
        try:
            rows = self.rows()
            if not rows and not self.csv_path.exists():
                return 0
            rows.sort(key=lambda r: [_sort_value(r[c]) for c in (*IDENTITY_COLUMNS, "cell_id")])
            frame = pd.DataFrame(rows)
            for col in CSV_COLUMNS:
                if col not in frame.columns:
                    frame[col] = pd.NA
            known = list(CSV_COLUMNS) + [c for c in EXTRA_COLUMNS if c in frame.columns]
            others = sorted(c for c in frame.columns if c not in known)
            frame = frame[known + others]
            atomic_write_text(self.csv_path, frame.to_csv(index=False))
            return len(frame)
        finally:
            lock.release()

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
