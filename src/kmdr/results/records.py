"""A cell row's record: its columns, its text in ``cells.csv`` and its checks.

The contract is ``docs/results-layout.md``. The one column schema of a row
(:data:`CSV_COLUMNS`, :data:`IDENTITY_COLUMNS`, ...) and :func:`cell_problem`, the check of a
row's columns and types, come first.

One formatting function, :func:`field_text`, turns every value into the text ``cells.csv`` holds
(floats at full precision, ``repr``, so they round-trip exactly). The checksum of a row
(:func:`checksum`) and its cell id (:func:`identity_id`) are computed on those texts, so a row
read back from ``cells.csv`` (its raw fields) and the row the runner computed (Python values)
give the same checksum and the same id, whatever the line endings, the column order or a
byte-order mark an editor added. Empty fields are left out of both: an absent column and an empty
one read the same in a CSV.

A *sealed* row carries ``checksum`` (:func:`seal`); :func:`row_problem` says why a sealed row
cannot be trusted: a column missing, a checksum that does not match its content (edited or
damaged), or a ``cell_id`` that is not the hash of its identity columns.

Run sidecars are written as JSON, with non-finite numbers as ``null`` (:func:`run_record_text`).

``cells.csv`` is checked row by row (:func:`read_record`): which rows are valid, another
experiment's or rejected, the one-line reports on them (:func:`record_messages`), and where
rejected rows are set aside (:data:`REJECTED`, :func:`set_aside`). The store that writes it is
:class:`kmdr.results.store.CellStore`.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from kmdr._io import atomic_write_text, read_bytes, read_text

# ----------------------------------------------------------------------------------------------
# The column schema of a cell row, and its check.
# ----------------------------------------------------------------------------------------------

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
    "reduce_timing",
    "kmeans_tol",
    "dataset_params",
    "base_seed",
    "data_fingerprint",
    "code_tag",
    "cell_id",
    "run_id",
    "finished_at",
    "checksum",
)
#: Everything that changes a cell's numbers, as cells.csv columns: the settings, the fingerprint of
#: the data (``kmdr.datasets.Dataset.fingerprint``), the code's compatibility tag (``code_tag``:
#: the cell format and the reducer's ``compat_version``) and the BLAS/OpenMP threads that computed
#: it (``blas_threads``: a reduction's or k-means' sums, added in another order by another number
#: of threads, differ in their last bits, and a partition can follow them). Two rows that differ in
#: any of them are different cells (their ``cell_id`` hashes these columns).
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
    "data_fingerprint",
    "code_tag",
    "blas_threads",
    "kmeans_online_phase",
    "seed_from",
    "coreset",
    "solve",
    "evaluation",
)
#: Identity columns that joined the identity after cells were first written (or that only some
#: kinds of cells use), each with the text every cell written before had (all were computed with
#: one thread, without k-means' online phase, and each reducer with its own seeds; a reducer cell
#: has no rows step, is solved by Lloyd and scored on all rows). A column at that value is left
#: out of the cell id
#: (:func:`identity_id`), so those cells keep their ids, and a reader that meets a file without the
#: column (a summary.csv or a sidecar written before) reads that value. One not in CSV_COLUMNS
#: (``kmeans_online_phase``, ``seed_from``) is written only when not at its default: a row without
#: it (or with it empty) is at the default.
IDENTITY_DEFAULTS: Mapping[str, str] = MappingProxyType(
    {
        "blas_threads": "1",
        "kmeans_online_phase": "False",
        "seed_from": "",
        # a cell's steps after the reducer (kmdr.results.cells.Cell.steps): a reducer cell has
        # no rows step, is solved by Lloyd and scored on all rows
        "coreset": "",
        "solve": "lloyd",
        "evaluation": "",
    }
)
#: A point of a figure (a row of summary.csv): a cell's identity without its repetition.
POINT_COLUMNS: tuple[str, ...] = tuple(c for c in IDENTITY_COLUMNS if c != "repetition")


#: Metric columns that must hold numbers (``shared_key`` is a text).
NUMERIC_METRIC_COLUMNS: tuple[str, ...] = tuple(c for c in METRIC_COLUMNS if c != "shared_key")
#: The metric columns that time a cell: measurements of the machine that ran it, not results.
TIMING_COLUMNS: tuple[str, ...] = (
    "shared_seconds",
    "reduce_seconds",
    "cluster_seconds",
    "total_seconds",
)
#: The numbers a cell's computation yields, which a reproduction must give again bit for bit:
#: the metric columns that are numbers and not timings, and the cell's seed.
RESULT_COLUMNS: tuple[str, ...] = (
    *(c for c in NUMERIC_METRIC_COLUMNS if c not in TIMING_COLUMNS),
    "seed",
)
#: Every column a cell's row has.
REQUIRED_COLUMNS: tuple[str, ...] = tuple(
    dict.fromkeys(
        (
            *CSV_COLUMNS,
            *(c for c in IDENTITY_COLUMNS if c in CSV_COLUMNS or c not in IDENTITY_DEFAULTS),
            "cell_id",
        )
    )
)


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _missing_columns(row: dict, also: tuple[str, ...] = ()) -> str | None:
    """The columns of REQUIRED_COLUMNS that ``row`` lacks, and those of ``also`` it lacks or
    leaves empty, as a phrase, or None."""
    missing = [c for c in REQUIRED_COLUMNS if c not in row] + [c for c in also if not row.get(c)]
    more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
    return f"missing column(s) {', '.join(missing[:3])}{more}" if missing else None


def cell_problem(row, cell_id: str) -> str | None:
    """Why ``row`` is not a valid cell row for ``cell_id`` (one short phrase), or None if it is."""
    if missing := _missing_columns(row):
        return missing
    if row["cell_id"] != cell_id:
        return f"cell_id {_short(row['cell_id'])} is not {cell_id}"
    for col in ("r", "repetition", "blas_threads"):
        if not isinstance(row[col], int) or isinstance(row[col], bool):
            return f"{col} is {_short(row[col])}, not an integer"
    for col in NUMERIC_METRIC_COLUMNS:
        if not _is_number(row[col]):
            return f"{col} is {_short(row[col])}, not a number"
    return None


# ----------------------------------------------------------------------------------------------
# A row as text: its fields, checksum and id; cells.csv read and written as a table.
# ----------------------------------------------------------------------------------------------

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
    :data:`IDENTITY_DEFAULTS` left out at its default (so a one-thread
    cell has the id it had before the thread count joined the identity)."""
    texts = {c: fields.get(c, "") for c in IDENTITY_COLUMNS}
    for c in IDENTITY_DEFAULTS.keys() - CSV_COLUMNS:  # written only when not at the default
        texts[c] = texts[c] or IDENTITY_DEFAULTS[c]
    return _digest(
        [c, texts[c]]
        for c in IDENTITY_COLUMNS
        if c not in IDENTITY_DEFAULTS or texts[c] != IDENTITY_DEFAULTS[c]
    )[:ID_DIGITS]


def seal(row: dict) -> dict:
    """``row`` with its ``checksum`` (computed on :func:`field_text` of every other value)."""
    row = {k: v for k, v in row.items() if k != CHECKSUM}
    row[CHECKSUM] = checksum(row_fields(row))
    return row


def row_problem(fields: dict[str, str]) -> str | None:
    """Why a sealed row (as texts) cannot be trusted, or None."""
    if missing := _missing_columns(fields, (CHECKSUM,)):
        return missing
    if fields[CHECKSUM] != checksum(fields):
        return "its checksum does not match its content (edited or damaged)"
    if fields["cell_id"] != identity_id(fields):
        return "its cell_id is not the hash of its identity columns"
    return None


def _records(path: Path) -> tuple[list[str], list[tuple[int, list[str]]], list]:
    """(header, rows, cut) of a cells.csv: rows and cut records as (line number, fields), blank
    lines left out (see :func:`read_table`)."""
    text = read_bytes(path).decode("utf-8-sig", errors="replace")
    try:
        records = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as err:
        raise ValueError(f"not a CSV file ({err})") from None
    lines = [(i, rec) for i, rec in enumerate(records, 1) if any(f.strip() for f in rec)]
    header = lines[0][1] if lines else []
    if lines and "cell_id" not in header:
        raise ValueError("its first line is not a cells.csv header (no cell_id column)")
    rows = [(i, rec) for i, rec in lines[1:] if len(rec) == len(header)]
    return header, rows, [(i, rec) for i, rec in lines[1:] if len(rec) != len(header)]


def read_table(path: Path) -> pd.DataFrame:
    """A cells.csv's records as texts, indexed by line number, with its header's columns (the csv
    module parses them: quoted fields, CRLF or LF, a BOM); blank lines are left out.

    A record with another number of fields than the header (a file cut short, a field deleted
    by hand) is not a row: ``attrs["cut"]`` lists them as (line number, raw fields). Raises
    OSError when the file cannot be read, ValueError (the reason) when it is not a cells table.
    """
    import pandas as pd

    header, rows, cut = _records(path)
    table = pd.DataFrame(
        [rec for _, rec in rows], index=[i for i, _ in rows], columns=header, dtype=object
    )
    table.attrs["cut"] = cut
    return table


def table_header(names: set[str]) -> list[str]:
    """cells.csv's columns for rows holding ``names``: every CSV_COLUMNS, the EXTRA_COLUMNS
    present, then any others (sorted)."""
    known = [c for c in (*CSV_COLUMNS, *EXTRA_COLUMNS) if c in names or c in CSV_COLUMNS]
    return known + sorted(names - set(known))


def row_order(columns: list[list[str]]) -> np.ndarray:
    """The positions of the rows whose identity columns (then cell id) hold ``columns`` (one
    list of texts per column, ``""`` where absent), in cells.csv's order: in each column
    numbers come before texts, each in their natural order (r = 2 before r = 10)."""
    import pandas as pd

    keys = []
    for values in columns:
        codes: dict[str, int] = {}
        at = [codes.setdefault(v, len(codes)) for v in values]
        if len(codes) < 2:  # one text (a small table's dataset, reducer...): no order to give
            continue
        uniques = list(codes)
        # each distinct text parsed once and ranked once: numbers first, then texts (an
        # array, not a Series: the same parse without a Series' cost on a small table)
        numbers = pd.to_numeric(np.array(uniques, dtype=object), errors="coerce")
        each = [
            (True, 0.0, t) if np.isnan(n) else (False, n, "")
            for n, t in zip(numbers, uniques, strict=True)
        ]
        rank = {key: i for i, key in enumerate(sorted(set(each)))}
        keys.append(np.array([rank[key] for key in each], dtype=np.int64)[at])
    # np.lexsort is stable and takes its primary key last
    return np.lexsort(keys[::-1]) if keys else np.arange(len(columns[0]) if columns else 0)


# ----------------------------------------------------------------------------------------------
# A run record's text.
# ----------------------------------------------------------------------------------------------


def run_record_text(payload: dict) -> str:
    """Strict JSON of a run record (NaN and infinities as ``null``)."""
    # NaN and infinities (JSON has none) read back as None, then written as null
    return _dumps(json.loads(_dumps(payload), parse_constant=lambda _: None))


def _dumps(obj) -> str:
    return json.dumps(obj, indent=1, sort_keys=False, default=_json_default, allow_nan=True)


def _json_default(obj):
    if hasattr(obj, "item"):  # numpy scalars
        return obj.item()
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


# ----------------------------------------------------------------------------------------------
# cells.csv checked row by row, and where rejected rows are set aside.
# ----------------------------------------------------------------------------------------------

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
    experiment (the first of several rows of one cell); ``foreign``: sealed rows of another
    experiment (kept, never used here); ``rejected``: (reason, line number, raw fields)
    of rows that failed a check; ``duplicates``: exact copies of a valid row (counted once);
    ``problem``: why the whole file is unusable, else None.
    """

    header: list[str] = field(default_factory=list)
    valid: dict[str, dict] = field(default_factory=dict)
    foreign: list[dict] = field(default_factory=list)
    rejected: list[tuple[str, int, list[str]]] = field(default_factory=list)
    duplicates: int = 0
    problem: str | None = None


def read_record(path: Path, experiment: str, verified: dict) -> CsvRecord:
    """cells.csv at ``path`` checked row by row for ``experiment`` (see :class:`CsvRecord`);
    ``verified`` memoizes row checks across calls."""
    record = CsvRecord()
    try:
        header, lines, cut = _records(path)
    except OSError as err:
        record.problem = f"it cannot be read ({err.strerror or err})"
        return record
    except ValueError as err:
        record.problem = str(err)
        return record
    record.header = header
    if not header:  # an empty file
        return record
    # one pass over the parsed records, in line order (a run reads its store several times:
    # a frame per check costs more than the check on a table of a few rows)
    names = tuple(header)
    for line, raw in lines:
        fields = dict(zip(header, raw, strict=True))
        seen = (names, tuple(raw))
        if seen not in verified:  # a row read again: not hashed again
            verified[seen] = row_problem(fields)
        why = verified[seen]
        if why is None and fields.get("experiment") != experiment:
            record.foreign.append(fields)
        elif why is None:
            first = record.valid.setdefault(fields["cell_id"], fields)
            if first is not fields:  # a later row of a cell already read: a copy, or a rival
                if first == fields:
                    record.duplicates += 1
                else:
                    why = "another valid row of its cell comes first in cells.csv"
        if why is not None:
            record.rejected.append((why, line, raw))
    cut_short = "it has {} fields where the header has {} (cut short or edited)"
    record.rejected += [(cut_short.format(len(r), len(header)), i, r) for i, r in cut]
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


def table_text(rows) -> str:
    """``rows`` (a header, then each row's texts) as a CSV file's text: minimal quoting, LF line
    ends (what pandas' ``to_csv(index=False, lineterminator="\\n")`` writes of the same texts)."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def set_aside(record: CsvRecord, path: Path) -> None:
    """Append the rejected rows to cells.rejected.csv: reason, line, the row as it was."""
    old = read_text(path, errors="replace") if path.exists() else ""
    head = table_text([record.header])[:-1]  # the header and each row as one CSV line
    rows = [(why, line, head, table_text([raw])[:-1]) for why, line, raw in record.rejected]
    header = [] if path.exists() else [("reason", "line", "header", "row")]
    atomic_write_text(path, old + table_text([*header, *rows]))
