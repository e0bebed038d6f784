"""What the runner keeps on disk, safe when several processes share one experiment folder.

Layout (the contract is ``docs/results-layout.md``)::

    <results_dir>/<experiment>/
        cells.csv                       the record: one row per cell (committed)
        cells.rejected.csv              rows of cells.csv that failed a check, set aside
        cells/<cell_id>.json            one finished cell each (a cache, gitignored)
        cells/<cell_id>.json.damaged    a cell file that failed validation, moved aside
        cells/<cell_id>.json.foreign    a cell file of another experiment, moved aside
        runs/<run_id>.json              one sidecar per invocation
        runs/<run_id>.log               its log: its lines, the backends' logs, a traceback
        .locks/folder.lock              held by the run writing the folder (:mod:`.locks`)

Every file is written with :func:`kmdr._io.atomic_write_text` (temporary file + ``os.replace``,
mode 0o666 minus the umask): a reader, or a run killed with ``kill -9``, sees a whole file or
none. A cell file exists only once its cell has finished.

A run writes the folder under its lock (:func:`~.locks.folder_lock`): one writer at a time, so
nothing here claims cells or serializes rewrites itself::

    store = CellStore(exp_dir, log=log)
    store.clean_temporaries()                  # leftovers of dead writers only
    done = store.done_ids()                    # valid rows of cells.csv + valid cell files
    for each cell not in done, as it comes back from a worker: store.write_cell(id, row)
    every few seconds, and at the end: store.rebuild_csv()

cells.csv is the record: a row it holds is never removed or rewritten by a run (only
``kmdr-prune`` removes rows), and a valid row makes its cell done, so a fresh clone without the
cell cache sees the same store as the machine that computed it. :meth:`CellStore.rebuild_csv`
writes the merged store: every row of cells.csv as it was (valid rows, rows of another
experiment) plus the valid cell files it lacks; rows that fail a check
(:func:`kmdr.results.records.row_problem`, a cut row) are named in one line and moved to
``cells.rejected.csv``. Readers use the same merge without writing anything (``read_only``).

A cell file (:func:`~.records.parse_cell_text`) is valid when it is a JSON object with every column
of :data:`~.records.CSV_COLUMNS` and :data:`~.records.IDENTITY_COLUMNS`, integer ``r`` and
``repetition``, numbers (NaN allowed) in the numeric metric columns, a checksum that matches its
content, a ``cell_id`` equal to the file's stem and to the hash of its identity, and this folder's
experiment. Anything else (a truncated or edited file, ``{}``, another schema, an older kmdr's file)
is reported in one line through ``log``, moved to ``<cell_id>.json.damaged`` (``.foreign`` for
another experiment's; ``.2``, ... if taken; never deleted) and is not done, so the runner
computes the cell again (unless cells.csv holds it).

"""

from __future__ import annotations

import contextlib
import io
import operator
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

from kmdr._io import (
    atomic_write_text,
    exact_floats,
    read_text,
    remove_stale_temporaries,
)
from kmdr._log import warn
from kmdr.results.records import (
    IDENTITY_COLUMNS,
    REJECTED,
    CsvRecord,
    cell_text,
    parse_cell_text,
    read_record,
    record_messages,
    row_order,
    run_record_text,
    set_aside,
    table_header,
    table_text,
)

__all__ = ["CellStore", "Once", "holds_cells"]


def holds_cells(folder: Path) -> bool:
    """Whether ``folder`` holds cells (cells.csv, or the cell files of a run): an experiment
    folder that a skipped run left with its run records only has none."""
    return (folder / "cells.csv").is_file() or (folder / "cells").is_dir()


def _filled(fields: dict) -> dict:
    """The non-empty fields (a CSV row has every column of its header, a cell file its own)."""
    return {k: v for k, v in fields.items() if v != ""}


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

    ``log`` receives one-line reports (a damaged cell file or row); default:
    :func:`kmdr._log.warn`.
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
        self.cells_dir = self.root / "cells"
        self.runs_dir = self.root / "runs"
        self.csv_path = self.root / "cells.csv"
        self.rejected_path = self.root / REJECTED
        self.log = log or warn
        self._say = Once(self.log)  # each message once per store
        # file name -> ((inode, mtime, size), fields): a cell file is never modified in place, so
        # an unchanged stat means an unchanged, already validated row.
        self._cache: dict[str, tuple[tuple, dict]] = {}
        self._csv_cache: tuple[tuple, CsvRecord] | None = None
        # (header, raw fields) -> row_problem: a row read again is not hashed again
        self._verified: dict[tuple, str | None] = {}

    # -- cells ---------------------------------------------------------------------------------
    def cell_path(self, cell_id: str) -> Path:
        return self.cells_dir / f"{cell_id}.json"

    def _check_file(self, text: str, cell_id: str) -> tuple[dict | None, str | None, str]:
        """(fields, None, "") of a valid cell file of this experiment, else (None, the problem,
        the suffix it is moved aside with)."""
        fields, problem = parse_cell_text(text, cell_id)
        if problem:
            return None, problem, ".damaged"
        if fields["experiment"] != self.experiment:
            return (
                None,
                f"a cell of experiment {fields['experiment']!r}, not {self.experiment!r}",
                ".foreign",
            )
        return fields, None, ""

    def _valid_row(self, cell_id: str) -> dict | None:
        """The cell file's fields if it is valid; a damaged or foreign file is moved aside (see
        :meth:`_quarantine`)."""
        path = self.cell_path(cell_id)
        try:
            st = path.stat()
            key = (st.st_ino, st.st_mtime_ns, st.st_size)
            cached = self._cache.get(path.name)
            if cached is not None and cached[0] == key:
                return cached[1]
            text = read_text(path, errors="replace")
        except FileNotFoundError:
            return None
        except OSError as err:  # unreadable (permissions, a folder of that name...)
            self._say(f"[kmdr] cell file {path} cannot be read ({err.strerror}); not used")
            return None
        fields, problem, suffix = self._check_file(text, cell_id)
        if fields is not None:
            self._cache[path.name] = (key, fields)
            return fields
        if self.read_only:
            self._say(
                f"[kmdr] cell file {path}: {problem}; not used (the next run sets it aside "
                "and computes the cell again)"
            )
        else:
            self._quarantine(path, problem, suffix)
        return None

    def _quarantine(self, path: Path, problem: str, suffix: str) -> None:
        """Move a damaged (or another experiment's) cell file aside and say so; the writing run
        holds the folder's lock, so no other process rewrites it meanwhile."""
        dest = self._move_aside(path, suffix)
        self._cache.pop(path.name, None)
        self.log(
            f"[kmdr] {suffix[1:]} cell file {path}: {problem}; moved to {dest.name}, "
            "the cell will be computed again"
        )

    def _scan(self) -> dict[str, dict]:
        if not self.cells_dir.is_dir():
            return {}
        out = {}
        for path in sorted(self.cells_dir.glob("*.json")):
            fields = self._valid_row(path.stem)
            if fields is not None:
                out[path.stem] = fields
        return out

    # -- cells.csv, the record -----------------------------------------------------------------
    def csv_record(self) -> CsvRecord:
        """cells.csv checked row by row (cached while the file is unchanged); problems are
        reported once per store, in one line per kind."""
        try:
            st = self.csv_path.stat()
        except FileNotFoundError:
            return CsvRecord()
        key = (st.st_ino, st.st_mtime_ns, st.st_size)
        if self._csv_cache is not None and self._csv_cache[0] == key:
            return self._csv_cache[1]
        record = read_record(self.csv_path, self.experiment, self._verified)
        self._csv_cache = (key, record)
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

    # -- the merged store ----------------------------------------------------------------------
    def done_ids(self) -> set[str]:
        """Ids of the done cells: valid cell files and valid cells.csv rows of this experiment
        (damaged files are reported and moved aside)."""
        return set(self._scan()) | set(self.csv_record().valid)

    def rows(self) -> list[dict]:
        """One row (its fields as cells.csv texts) per done cell: the cells.csv row where there
        is one (the record), else the cell file's."""
        merged = dict(self.csv_record().valid)
        for cell_id, fields in self._scan().items():
            kept = merged.setdefault(cell_id, fields)
            if kept is not fields and _filled(kept) != _filled(fields):
                self._say(
                    f"[kmdr] cell {cell_id}: its cell file differs from its cells.csv row; "
                    "the cells.csv row is used"
                )
        return [dict(f) for f in merged.values()]

    def table(self) -> pd.DataFrame:
        """Everything cells.csv keeps, as texts (absent: empty) in cells.csv's columns and order
        (:func:`~.records.row_order`), with a ``record`` column holding each row's kind:
        ``valid`` or ``foreign`` (see :class:`CsvRecord`)."""
        import pandas as pd

        header, texts, kinds = self._ordered()
        # no row: the columns of an empty frame reindexed (float64), as readers have seen them
        table = pd.DataFrame(texts, columns=header, dtype=object if texts else float)
        table["record"] = kinds
        return table

    def _ordered(self) -> tuple[list[str], list, list[str]]:
        """:meth:`table`'s columns, and its rows' texts and kinds in cells.csv's order."""
        record = self.csv_record()
        rows = [*self.rows(), *record.foreign]
        kinds = ["valid"] * (len(rows) - len(record.foreign)) + ["foreign"] * len(record.foreign)
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

    def frame(self) -> pd.DataFrame:
        """:meth:`table` as pandas reads cells.csv, with its ``record`` column: what readers
        (aggregates, figures, report) see, never behind the cell files."""
        import pandas as pd

        table = self.table()
        if not len(table):
            return pd.DataFrame(columns=table.columns)
        text = io.StringIO(table.drop(columns="record").to_csv(index=False))
        frame = pd.read_csv(text, low_memory=False, **exact_floats())
        return frame.assign(record=table["record"])

    def write_table(self, table: pd.DataFrame) -> None:
        """Write ``table`` (:meth:`table`'s rows, or some of them) as cells.csv."""
        body = table.drop(columns="record")
        rows = body.itertuples(index=False, name=None)
        atomic_write_text(self.csv_path, table_text([list(body.columns), *rows]))

    def write_cell(self, cell_id: str, row: dict) -> None:
        """Persist one finished cell atomically, sealed with its checksum.

        Raises ValueError (before writing) when ``row`` is not a valid cell row: such a file
        would be moved aside as damaged by the next reader.
        """
        text = cell_text(row)
        _, problem = parse_cell_text(text, cell_id)  # what a reader will see
        if problem:
            raise ValueError(f"cell {cell_id}: {problem}; the runner must write every column")
        atomic_write_text(self.cell_path(cell_id), text)

    # -- maintenance ---------------------------------------------------------------------------
    def clean_temporaries(self) -> int:
        """Remove what dead processes left: their temporary files (those of live writers and of
        other hosts stay). Return how many files."""
        return sum(
            len(remove_stale_temporaries(folder))
            for folder in (self.cells_dir, self.runs_dir, self.root)
        )

    def rebuild_csv(self) -> int:
        """Rewrite ``cells.csv`` as the merged store; return its number of rows.

        Every row it held is kept as it was (a valid row, a row of another experiment), the
        valid cell files not in it are added; rows that fail a check are
        moved to ``cells.rejected.csv`` with their reason (an unreadable file as a whole to
        ``cells.csv.damaged``). The caller holds the folder's lock (:func:`~.locks.folder_lock`),
        so a rebuild never replaces a newer one's content with an older snapshot. Rows are
        sorted by the identity columns; columns are CSV_COLUMNS, then EXTRA_COLUMNS, then any
        others (sorted).
        """
        self._csv_cache = None
        record = self.csv_record()
        if record.problem and self.csv_path.exists():
            self._move_aside(self.csv_path, ".damaged")
            self._csv_cache = None
        # the texts written as they are read: the csv module writes them as pandas' to_csv
        # would, without a frame (two rebuilds a run)
        header, texts, _ = self._ordered()
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
