"""A cell row as text: how it is written to ``cells.csv``, sealed with a checksum, and read back.

One formatting function, :func:`field_text`, turns every value into the text ``cells.csv`` holds
(floats at full precision, ``repr``, so they round-trip exactly). The checksum of a row
(:func:`checksum`) and its cell id (:func:`identity_id`) are computed on those texts, so a row
read back from ``cells.csv`` (its raw fields) and the same row in a cell file (JSON values) give
the same checksum and the same id, whatever the line endings, the column order or a byte-order
mark an editor added. Empty fields are left out of both: an absent column and an empty one read
the same in a CSV.

A *sealed* row carries ``checksum`` (:func:`seal`); :func:`row_problem` says why a sealed row
cannot be trusted: a column missing, a checksum that does not match its content (edited or
damaged), or a ``cell_id`` that is not the hash of its identity columns.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from kmdr.results.columns import (
    CSV_COLUMNS,
    EXTRA_COLUMNS,
    IDENTITY_COLUMNS,
    IDENTITY_DEFAULTS,
    REQUIRED_COLUMNS,
)

__all__ = [
    "CHECKSUM",
    "Table",
    "checksum",
    "field_text",
    "identity_id",
    "read_table",
    "row_fields",
    "row_problem",
    "seal",
    "sort_key",
    "table_header",
    "table_text",
]

#: The column holding a row's checksum.
CHECKSUM = "checksum"
#: Hex digits of a cell id.
ID_DIGITS = 24


def field_text(value) -> str:
    """``value`` as cells.csv holds it (the one formatting, also hashed by :func:`checksum`)."""
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        value = value.item()  # a numpy scalar
    if value is None:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # the shortest text that reads back as the same float (nan, inf too)
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, sort_keys=True)
    return str(value)


def row_fields(row: dict) -> dict[str, str]:
    """Every value of ``row`` as its cells.csv text."""
    return {str(k): field_text(v) for k, v in row.items()}


def _digest(pairs) -> str:
    # name and value each end with a control character no CSV field of kmdr holds
    text = "".join(f"{k}\x1f{v}\x1e" for k, v in pairs)
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def checksum(fields: dict[str, str]) -> str:
    """sha256 of a row's non-empty fields (its own checksum left out), by column name."""
    return _digest(sorted((k, v) for k, v in fields.items() if k != CHECKSUM and v != ""))


def identity_id(fields: dict[str, str]) -> str:
    """The cell id: a hash of the identity columns' texts, each column of
    :data:`~kmdr.results.columns.IDENTITY_DEFAULTS` left out at its default (so a one-thread
    cell has the id it had before the thread count joined the identity)."""
    texts = {c: fields.get(c, "") for c in IDENTITY_COLUMNS}
    for c in IDENTITY_DEFAULTS.keys() - CSV_COLUMNS:  # written only when not at the default
        texts[c] = texts[c] or IDENTITY_DEFAULTS[c]
    return _digest(
        [c, texts[c]]
        for c in IDENTITY_COLUMNS
        if c not in IDENTITY_DEFAULTS or texts[c] != IDENTITY_DEFAULTS[c]
    )[:ID_DIGITS]


def _id_before_defaults(fields: dict[str, str]) -> str:
    """The id a kmdr gave a row before the columns of IDENTITY_DEFAULTS joined the identity."""
    return identity_id({**fields, **IDENTITY_DEFAULTS})


def seal(row: dict) -> dict:
    """``row`` with its ``checksum`` (computed on :func:`field_text` of every other value)."""
    row = {k: v for k, v in row.items() if k != CHECKSUM}
    row[CHECKSUM] = checksum(row_fields(row))
    return row


def row_problem(fields: dict[str, str]) -> str | None:
    """Why a sealed row (as texts) cannot be trusted, or None."""
    missing = [c for c in (*REQUIRED_COLUMNS, CHECKSUM) if c not in fields]
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        return f"missing column(s) {', '.join(missing[:3])}{more}"
    if fields[CHECKSUM] != checksum(fields):
        return "its checksum does not match its content (edited or damaged)"
    if fields["cell_id"] != identity_id(fields):
        if fields["cell_id"] == _id_before_defaults(fields):
            # Its id is that of the one-thread cell: used as that cell, it would mix numbers of
            # another thread count with one-thread ones.
            return (
                f"computed with blas_threads={fields['blas_threads']} before the thread count "
                "was part of a cell's identity"
            )
        return "its cell_id is not the hash of its identity columns"
    return None


@dataclass
class Table:
    """What :func:`read_table` found in a cells.csv.

    ``rows``: (line number, fields) of every record with as many fields as the header;
    ``cut``: (line number, raw fields) of records with another number of fields (a file cut
    short, a field deleted by hand); ``problem``: why the whole file is unusable (no header with
    ``cell_id``), else None.
    """

    header: list[str] = field(default_factory=list)
    rows: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    cut: list[tuple[int, list[str]]] = field(default_factory=list)
    problem: str | None = None


def read_table(path: Path) -> Table:
    """Parse a cells.csv as raw texts (the csv module: quoted fields, CRLF or LF, a BOM).

    Raises OSError when the file cannot be read; a file that is not a cells table gives a
    Table with ``problem`` set.
    """
    text = Path(path).read_bytes().decode("utf-8-sig", errors="replace")
    table = Table()
    try:
        records = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as err:
        table.problem = f"not a CSV file ({err})"
        return table
    numbered = [(i + 1, rec) for i, rec in enumerate(records) if any(f.strip() for f in rec)]
    if not numbered:
        return table
    _, header = numbered[0]
    if "cell_id" not in header:
        table.problem = "its first line is not a cells.csv header (no cell_id column)"
        return table
    table.header = header
    for line, rec in numbered[1:]:
        if len(rec) != len(header):
            table.cut.append((line, rec))
        else:
            table.rows.append((line, dict(zip(header, rec, strict=True))))
    return table


def table_text(header: list[str], rows: list[dict[str, str]]) -> str:
    """cells.csv's text: ``header``, then each row's fields (absent: empty), LF line endings."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([row.get(c, "") for c in header])
    return out.getvalue()


def sort_key(fields: dict[str, str]) -> list:
    """Where a row goes in cells.csv: ordered by its identity columns, then its cell id."""
    return [_sort_value(fields.get(c, "")) for c in (*IDENTITY_COLUMNS, "cell_id")]


def table_header(names: set[str]) -> list[str]:
    """cells.csv's columns for rows holding ``names``: every CSV_COLUMNS, the EXTRA_COLUMNS
    present, then any others (sorted)."""
    known = [c for c in (*CSV_COLUMNS, *EXTRA_COLUMNS) if c in names or c in CSV_COLUMNS]
    return known + sorted(names - set(known))


@functools.lru_cache(maxsize=65536)
def _sort_value(text: str):
    """Numbers before texts, each in their natural order (so r = 2 comes before r = 10)."""
    for kind in (int, float):
        try:
            value = kind(text)
        except (TypeError, ValueError):
            continue
        if value == value:  # not NaN
            return (0, float(value), "")
    return (1, 0.0, str(text))
