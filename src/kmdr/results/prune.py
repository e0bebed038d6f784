"""``kmdr-prune EXPERIMENT_DIR ... [filters] [--remove]``: remove rows from an experiment's store.

No run ever removes a row it did not compute (cells.csv is the record); removing rows is this
explicit command. It lists the rows its filters select and, only with ``--remove``, removes them
from ``cells.csv``.

Filters (at least one): the kinds of rows readers leave out (:mod:`kmdr.results.reading`),
any of which selects a row: ``--older-code`` (a code tag other than this installation's, or a
legacy row without one), ``--other-data`` (a data fingerprint other than the current one),
``--foreign`` (a row of another experiment); and fields, each of which a selected row must match:
``--reducer``, ``--dataset``, ``--run-id``, ``--fingerprint``, ``--code-tag``, ``--blas-threads``
(each repeatable).

    kmdr-prune results/bzmd14_orl --older-code                # list what would go
    kmdr-prune results/bzmd14_orl --older-code --remove       # remove it
    kmdr-prune results/mine --reducer sign --run-id 20261122T101010Z-abc123 --remove
    kmdr-prune results/mine --blas-threads 4 --remove          # cells of another thread count
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from types import MappingProxyType

import pandas as pd

from kmdr._errors import CommandParser, exit_error
from kmdr.results.locks import folder_lock
from kmdr.results.reading import EXCLUDED, OLDER_CODE, OTHER_DATA, OTHER_EXPERIMENT
from kmdr.results.store import CellStore, holds_cells
from kmdr.results.summary import read_experiment

_ROW_KINDS = MappingProxyType(
    {"older_code": OLDER_CODE, "other_data": OTHER_DATA, "foreign": OTHER_EXPERIMENT}
)
_FIELDS = MappingProxyType(
    {
        "reducer": "reducer",
        "dataset": "dataset",
        "run_id": "run_id",
        "fingerprint": "data_fingerprint",
        "code_tag": "code_tag",
        "blas_threads": "blas_threads",
    }
)
_PROG = "kmdr-prune"
_SHOWN = ("cell_id", "dataset", "reducer", "r", "repetition", "code_tag", "data_fingerprint")


def select(frame: pd.DataFrame, args) -> pd.Series:
    """Which rows of a folder (:attr:`ExperimentRead.rows`) the filters in ``args`` select;
    the reason each is selected (kind of row, or "selected") where it is, else <NA>."""
    why = pd.Series(pd.NA, index=frame.index, dtype="string")
    kinds = [kind for opt, kind in _ROW_KINDS.items() if getattr(args, opt)]
    if kinds:
        hit = frame[frame[EXCLUDED].isin(kinds).fillna(False).astype(bool)]
        why[hit.index] = hit[EXCLUDED]
    else:
        why[:] = "selected"
    for opt, col in _FIELDS.items():
        values = getattr(args, opt)
        if values:
            column = frame.get(col, pd.Series(pd.NA, index=frame.index)).astype("string")
            why[~column.isin(values).fillna(False).astype(bool)] = pd.NA
    return why


def _absent(frame: pd.DataFrame, args) -> str:
    """When a field filter names a value no row holds (a typo), what the rows hold instead: the
    end of the "no row selected" line; "" otherwise."""
    for opt, col in _FIELDS.items():
        held = set(frame.get(col, pd.Series(dtype="string")).dropna().astype(str))
        missing = [value for value in getattr(args, opt) if value not in held]
        if missing:
            here = ", ".join(sorted(held)) or "none"
            return f": no row has {col} {missing[0]!r} (here: {here})"
    return ""


def _parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog=_PROG,
        description="List (and with --remove, remove) rows of experiment stores: cells.csv rows. "
        "Nothing is removed without --remove.",
    )
    parser.add_argument("experiments", nargs="+", type=Path, help="experiment folders")
    parser.add_argument("--older-code", action="store_true", help="rows of an older code tag")
    parser.add_argument("--other-data", action="store_true", help="rows of other data")
    parser.add_argument("--foreign", action="store_true", help="rows of another experiment")
    for opt, col in _FIELDS.items():
        parser.add_argument(
            f"--{opt.replace('_', '-')}", action="append", default=[], metavar="VALUE",
            help=f"only rows whose {col} is VALUE (repeatable)",
        )  # fmt: skip
    parser.add_argument("--remove", action="store_true", help="remove them (default: list only)")
    return parser


def _prune(exp_dir: Path, args) -> int:
    """List or remove the selected rows of one folder; the number of rows selected."""
    store = CellStore(exp_dir, read_only=not args.remove)
    held = folder_lock(exp_dir, print) if args.remove else contextlib.nullcontext()
    with held:
        read = read_experiment(exp_dir)
        if args.remove and read.untrusted:  # such rows set aside first, as a run does
            store.rebuild_csv()
            read = read_experiment(exp_dir)
        frame, table = read.rows, read.texts
        why = select(frame, args)
        chosen = why.notna()
        listed = frame[chosen].assign(why=why[chosen])
        for row in listed.itertuples(index=False):
            values = [str(getattr(row, c, "")) for c in _SHOWN]
            print(f"{exp_dir.name}: " + "  ".join(values) + f"  [{row.why}]")
        n = int(chosen.sum())
        if not args.remove:
            if n:
                print(f"{exp_dir.name}: {n} row(s) would be removed; add --remove to remove them")
            else:
                print(f"{exp_dir.name}: no row selected{_absent(frame, args)}")
            return n
        if n:
            store.write_table(table[~chosen.to_numpy()])
        absent = "" if n else _absent(frame, args)
        print(f"{exp_dir.name}: removed {n} row(s) from cells.csv{absent}")
        return n


def main(argv: list[str] | None = None) -> int:
    """The ``kmdr-prune`` command; exit status 0, or 2 on bad input (one line on stderr)."""
    args = _parser().parse_args(argv)
    if not (any(getattr(args, opt) for opt in (*_ROW_KINDS, *_FIELDS))):
        exit_error(
            _PROG,
            "name what to remove: --older-code, --other-data, --foreign, --reducer, --dataset, "
            "--run-id, --fingerprint, --code-tag or --blas-threads (see kmdr-prune --help)",
        )
    for exp_dir in args.experiments:
        if not exp_dir.is_dir():
            exit_error(_PROG, f"{exp_dir} is not an experiment folder (no such folder)")
        if not holds_cells(exp_dir):
            exit_error(_PROG, f"{exp_dir} is not an experiment folder (no cells.csv)")
    for exp_dir in args.experiments:
        try:
            _prune(exp_dir, args)
        except OSError as err:
            where = f" ({err.filename})" if err.filename else ""
            exit_error(_PROG, f"{exp_dir}: {err.strerror or err}{where}; stopped there")
    return 0


if __name__ == "__main__":
    sys.exit(main())
