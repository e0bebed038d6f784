"""What the runner keeps on disk, safe when several processes share one experiment folder.

Layout (the contract is ``docs/results-layout.md``)::

    <results_dir>/<experiment>/
        cells.csv                       the record: one sealed row per cell (committed)
        cells.csv.damaged               a cells.csv that could not be read at all, moved aside
        cells.rejected.csv              rows of cells.csv that failed a check, set aside
        runs/<run_id>.json              one sidecar per invocation
        runs/<run_id>.log               its log: its lines, the backends' logs, a traceback
        .locks/folder.lock              held by the run writing the folder (:mod:`.locks`)

cells.csv is the one source of truth for "is this cell done": a cell is done when cells.csv
holds a valid row of it. A run holds the folder's lock (:func:`~.locks.folder_lock`) from its
first write to its last, so it alone writes the folder::

    store = CellStore(exp_dir, log=log)
    store.clean_temporaries()                  # leftovers of dead writers only
    done = store.done_ids()                    # the valid rows of cells.csv
    for each cell not in done, as it comes back from a worker: store.write_cell(id, row)
    at the end: store.rebuild_csv()            # the rows sorted, rejected rows set aside

:meth:`CellStore.write_cell` appends the cell's sealed row (its checksum,
:func:`~.records.seal`) as one line, flushed and fsynced, so a run killed with ``kill -9``
loses at most the row being written. A line cut short there is a row that fails its check, as
any row cut or edited by hand: :meth:`CellStore.rebuild_csv` names it in one line, moves it to
``cells.rejected.csv`` and the next run computes its cell again. Rows are appended in the order
cells finish; the rebuild at the run's end sorts them by their identity (rows it held are kept
as they were, so a committed cells.csv keeps its bytes). Other files are written with
:func:`kmdr._io.atomic_write_text` (temporary file + ``os.replace``): a reader sees a whole file
or none. Readers (``read_only``) never write, move or lock anything; what a run would set aside
is only reported.

Folders written by earlier versions may hold a ``cells/`` folder of per-cell JSON files (a
cache, never committed): it is not read; a cell it held that cells.csv lacks is computed again.
"""

from __future__ import annotations

import contextlib
import csv
import operator
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

from kmdr._io import atomic_write_text, remove_stale_temporaries
from kmdr._log import warn
from kmdr.results.records import (
    IDENTITY_COLUMNS,
    REJECTED,
    CsvRecord,
    cell_problem,
    read_record,
    record_messages,
    row_fields,
    row_order,
    row_problem,
    run_record_text,
    seal,
    set_aside,
    table_header,
    table_text,
)


def holds_cells(folder: Path) -> bool:
    """Whether ``folder`` holds cells (cells.csv): an experiment folder that a skipped run left
    with its run records only has none."""
    return (folder / "cells.csv").is_file()


class Once:
    """A reader's log that says each message once (figures and the report read a folder's run
    records and cells many times): call it with a message; ``log`` receives each new one
    (default: :func:`kmdr._log.warn`). Whoever reads a folder repeatedly (a session, a report
    build) holds one and passes it as ``say``."""

    def __init__(self, log: Callable[[str], None] | None = None) -> None:
        self.log = log or warn
        self.said: set[str] = set()

    def __call__(self, msg: str) -> None:
        if msg not in self.said:
            self.said.add(msg)
            self.log(msg)


class CellStore:
    """The files of one experiment folder (see the module docstring).

    ``log`` receives one-line reports (a damaged row); default: :func:`kmdr._log.warn`.
    ``experiment``: the experiment whose cells the folder holds (default: the folder's name);
    rows of another experiment are never used. ``read_only``: a reader's store (figures, report):
    it never writes, moves or locks anything; what the runner would set aside is only reported.
    """

    def __init__(
        self,
        experiment_dir: str | os.PathLike,
        *,
        log: Callable[[str], None] | None = None,
        experiment: str | None = None,
        read_only: bool = False,
    ):
        self.root = Path(experiment_dir)
        self.experiment = experiment or self.root.name
        self.read_only = read_only
        self.runs_dir = self.root / "runs"
        self.csv_path = self.root / "cells.csv"
        self.rejected_path = self.root / REJECTED
        self.log = log or warn
        self._say = Once(self.log)  # each message once per store
        # (header, raw fields) -> row_problem: a row read again is not hashed again
        self._verified: dict[tuple, str | None] = {}

    # -- cells.csv, the record -----------------------------------------------------------------
    def csv_record(self) -> CsvRecord:
        """cells.csv checked row by row; problems are reported once per store, in one line per
        kind."""
        if not self.csv_path.exists():
            return CsvRecord()
        record = read_record(self.csv_path, self.experiment, self._verified)
        for msg in record_messages(
            record, self.csv_path, self.experiment, read_only=self.read_only
        ):
            self._say(msg)
        return record

    def untrusted(self) -> str | None:
        """Why some rows of cells.csv cannot be trusted, in one line naming the file and the
        first line holding such a row (cut short, edited), or the whole file; None if none."""
        record = self.csv_record()
        if record.problem:
            return f"{self.csv_path}: {record.problem}"
        if not record.rejected:
            return None
        reason, line, _ = min(record.rejected, key=lambda r: r[1])
        more = f" (and {len(record.rejected) - 1} more row(s))" if len(record.rejected) > 1 else ""
        return f"{self.csv_path}, line {line}: {reason}{more}"

    def done_ids(self) -> set[str]:
        """Ids of the done cells: the valid cells.csv rows of this experiment."""
        return set(self.csv_record().valid)

    def table(self) -> pd.DataFrame:
        """Everything cells.csv keeps, as texts (absent: empty) in cells.csv's columns and order
        (:func:`~.records.row_order`), with a ``record`` column holding each row's kind:
        ``valid`` or ``foreign`` (see :class:`CsvRecord`)."""
        import pandas as pd

        header, texts, kinds = self._ordered(self.csv_record())
        # no row: the columns of an empty frame reindexed (float64), as readers have seen them
        table = pd.DataFrame(texts, columns=header, dtype=object if texts else float)
        table["record"] = kinds
        return table

    @staticmethod
    def _ordered(record: CsvRecord, extra=()) -> tuple[list[str], list, list[str]]:
        """The columns, and the texts and kinds of ``record``'s rows (and ``extra`` valid rows)
        in cells.csv's order."""
        valid = [*record.valid.values(), *extra]
        rows = [*valid, *record.foreign]
        kinds = ["valid"] * len(valid) + ["foreign"] * len(record.foreign)
        header = table_header(set(record.header).union(*rows))
        # a row holding every column (each of cells.csv's) is read in one call
        every = operator.itemgetter(*header)
        texts = [
            every(f) if len(f) == len(header) else [f.get(c, "") for c in header] for f in rows
        ]
        columns = dict(zip(header, zip(*texts, strict=True), strict=True)) if rows else {}
        blank = [""] * len(rows)
        # ordered before the frame is built: one frame per table, not one per sort key
        order = row_order([columns.get(c, blank) for c in (*IDENTITY_COLUMNS, "cell_id")])
        return header, [texts[i] for i in order], [kinds[i] for i in order]

    def write_table(self, table: pd.DataFrame) -> None:
        """Write ``table`` (:meth:`table`'s rows, or some of them, without ``record``) as
        cells.csv."""
        body = table.drop(columns="record", errors="ignore")
        rows = body.itertuples(index=False, name=None)
        atomic_write_text(self.csv_path, table_text([list(body.columns), *rows]))

    def write_cell(self, cell_id: str, row: dict) -> None:
        """Append the finished cell ``cell_id``'s row to cells.csv, sealed with its checksum, as
        one line flushed and fsynced (see the module docstring). The caller holds the folder's
        lock. Raises ValueError for a row that would not be read back as its cell."""
        fields = row_fields(seal(row))
        if problem := cell_problem(row, cell_id) or row_problem(fields):
            raise ValueError(f"cell {cell_id}: {problem}; the runner must write every column")
        header = self._appendable()
        if header is None or not fields.keys() <= set(header):
            # a new cells.csv, a column it lacks or a last line cut short (a killed run): the
            # file written whole, sorted, with such a line set aside
            self.rebuild_csv(extra=[fields])
            return
        with open(self.csv_path, "ab") as fh:
            fh.write(table_text([[fields.get(c, "") for c in header]]).encode())
            fh.flush()
            os.fsync(fh.fileno())

    def _appendable(self) -> list[str] | None:
        """cells.csv's columns when a row can be appended to it (its header names ``cell_id``,
        its last line is ended), else None."""
        if not self.csv_path.is_file():  # none, or not a regular file (opening a FIFO waits)
            return None
        try:
            with open(self.csv_path, "rb") as fh:
                first = fh.readline().decode("utf-8-sig", errors="replace")
                fh.seek(-1, os.SEEK_END)
                ended = fh.read(1) == b"\n"
        except OSError:
            return None
        header = next(csv.reader([first]), [])
        return header if ended and "cell_id" in header else None

    # -- maintenance ---------------------------------------------------------------------------
    def clean_temporaries(self) -> int:
        """Remove what dead processes left: their temporary files (those of live writers and of
        other hosts stay). Return how many files."""
        return sum(len(remove_stale_temporaries(folder)) for folder in (self.runs_dir, self.root))

    def rebuild_csv(self, extra=()) -> int:
        """Rewrite ``cells.csv`` sorted (and with the valid rows ``extra``); return its number of
        rows.

        Every row it held is kept as it was (a valid row, a row of another experiment); rows that
        fail a check are moved to ``cells.rejected.csv`` with their reason (an unreadable file
        as a whole to ``cells.csv.damaged``). The caller holds the folder's lock. Rows are
        sorted by the identity columns; columns are CSV_COLUMNS, then EXTRA_COLUMNS, then any
        others (sorted).
        """
        record = self.csv_record()
        if record.problem and self.csv_path.exists():
            self._move_aside(self.csv_path, ".damaged")
        header, texts, _ = self._ordered(record, extra)
        if not texts and not self.csv_path.exists():
            return 0
        if record.rejected:
            set_aside(record, self.rejected_path)
        atomic_write_text(self.csv_path, table_text([header, *texts]))
        return len(texts)

    def _move_aside(self, path: Path, suffix: str) -> Path:
        dest = path.with_name(path.name + suffix)
        n = 1
        while dest.exists():
            n += 1
            dest = path.with_name(f"{path.name}{suffix}.{n}")
        os.replace(path, dest)
        return dest

    # -- run sidecars --------------------------------------------------------------------------
    def write_sidecar(self, run_id: str, payload: dict) -> Path:
        path = self.runs_dir / f"{run_id}.json"
        atomic_write_text(path, run_record_text(payload))
        return path

    def run_log(self, run_id: str) -> Path:
        """The log file of run ``run_id``, beside its record (git ignores it)."""
        return self.runs_dir / f"{run_id}.log"

    def remove_sidecar(self, run_id: str) -> None:
        """Remove the run record of ``run_id`` (a run that changed nothing) and its log, and
        ``runs/`` if that leaves it empty."""
        (self.runs_dir / f"{run_id}.json").unlink(missing_ok=True)
        self.run_log(run_id).unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # not empty: other runs' records
            self.runs_dir.rmdir()
