"""cells.csv checked row by row: which rows are valid, legacy, another experiment's or rejected,
the one-line reports on them, and where rejected rows are set aside (``cells.rejected.csv``).

Used by :class:`kmdr.results.store.CellStore`; the checks of one row are
:func:`kmdr.results.records.row_problem`.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from kmdr._io import atomic_write_text
from kmdr.results.records import CHECKSUM, read_table, row_problem

__all__ = ["REJECTED", "CsvRecord", "read_record", "record_messages", "set_aside"]

#: Rows of cells.csv that failed a check, set aside by the runner (never read as cells).
REJECTED = "cells.rejected.csv"
#: How many line numbers or ids one message names before it counts the rest.
_NAMED = 3


def _named(items: list, total: int | None = None) -> str:
    total = len(items) if total is None else total
    shown = ", ".join(str(x) for x in items[:_NAMED])
    return shown + (f" and {total - _NAMED} more" if total > _NAMED else "")


@dataclass
class CsvRecord:
    """What cells.csv holds, checked row by row (see :meth:`CellStore.csv_record`).

    ``valid``: cell id -> fields of the rows that pass every check and belong to this
    experiment (the first of several rows of one cell); ``legacy``: rows without a checksum
    (written before rows carried one: kept, never used as current cells); ``foreign``: sealed rows
    of another experiment (kept, never used here); ``rejected``: (reason, line number, raw fields)
    of rows that failed a check; ``duplicates``: exact copies of a valid row (counted once);
    ``problem``: why the whole file is unusable, else None.
    """

    header: list[str] = field(default_factory=list)
    valid: dict[str, dict] = field(default_factory=dict)
    legacy: list[dict] = field(default_factory=list)
    foreign: list[dict] = field(default_factory=list)
    rejected: list[tuple[str, int, list[str]]] = field(default_factory=list)
    duplicates: int = 0
    problem: str | None = None


def read_record(path: Path, experiment: str, verified: dict) -> CsvRecord:
    """cells.csv at ``path`` checked row by row for ``experiment`` (see :class:`CsvRecord`);
    ``verified`` memoizes row checks across calls."""
    record = CsvRecord()
    try:
        table = read_table(path)
    except OSError as err:
        record.problem = f"it cannot be read ({err.strerror or err})"
        return record
    if table.problem:
        record.problem = table.problem
        return record
    record.header = table.header
    width = len(table.header)
    for line, fields in table.rows:
        if not fields.get(CHECKSUM, ""):
            record.legacy.append(fields)
            continue
        raw = [fields[c] for c in table.header]
        memo = (tuple(table.header), tuple(raw))
        if memo not in verified:
            verified[memo] = row_problem(fields)
        problem = verified[memo]
        if problem:
            record.rejected.append((problem, line, raw))
        elif fields["experiment"] != experiment:
            record.foreign.append(fields)
        elif fields["cell_id"] in record.valid:
            if record.valid[fields["cell_id"]] == fields:
                record.duplicates += 1
            else:
                reason = "another valid row of its cell comes first in cells.csv"
                record.rejected.append((reason, line, raw))
        else:
            record.valid[fields["cell_id"]] = fields
    for line, raw in table.cut:
        reason = f"it has {len(raw)} fields where the header has {width} (cut short or edited)"
        record.rejected.append((reason, line, raw))
    return record


def record_messages(
    record: CsvRecord, path: Path, experiment: str, *, read_only: bool
) -> list[str]:
    """The one-line reports on what a CsvRecord holds besides valid rows."""
    out = []
    then = (
        "not used (the next run sets them aside in " + REJECTED + ")"
        if read_only
        else "set aside in " + REJECTED
    )
    if record.problem:
        fate = "not read" if read_only else "moved to cells.csv.damaged"
        out.append(f"[kmdr] {path}: {record.problem}; {fate}, no row of it is used")
    by_reason: dict[str, list[int]] = {}
    for reason, line, _ in record.rejected:
        by_reason.setdefault(reason, []).append(line)
    for reason, lines in by_reason.items():
        out.append(
            f"[kmdr] {path}: {len(lines)} row(s) not trusted ({reason}): line(s) "
            f"{_named(lines)}; {then}; their cells are computed again when planned"
        )
    if record.foreign:
        names = [repr(n) for n in sorted({f.get("experiment", "?") for f in record.foreign})]
        out.append(
            f"[kmdr] {path}: {len(record.foreign)} row(s) of experiment(s) {_named(names)}, "
            f"not {experiment!r}: not used; `kmdr-prune {path.parent} --foreign --remove` "
            "removes them"
        )
    if record.duplicates:
        out.append(
            f"[kmdr] {path}: {record.duplicates} row(s) repeat another row exactly; "
            "each cell counted once"
        )
    return out


def set_aside(record: CsvRecord, path: Path) -> None:
    """Append the rejected rows to cells.rejected.csv: reason, line, the row as it was."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    old = ""
    if path.exists():
        old = path.read_text(encoding="utf-8", errors="replace")
    else:
        writer.writerow(["reason", "line", "header", "row"])
    head = io.StringIO()
    csv.writer(head, lineterminator="").writerow(record.header)
    for reason, line, raw in record.rejected:
        text = io.StringIO()
        csv.writer(text, lineterminator="").writerow(raw)
        writer.writerow([reason, line, head.getvalue(), text.getvalue()])
    atomic_write_text(path, old + out.getvalue())
