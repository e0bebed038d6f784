"""Compare the metric columns of two results folders, cell by cell.

    python scripts/compare_metrics.py OLD NEW

For every experiment folder with a ``cells.csv`` on either side, the rows of each side's store
(``cells.csv`` merged with the cell files, read through :class:`kmdr.results.store.CellStore`:
its valid, checksummed rows, or its legacy rows when it has no valid one, as a results folder
written before rows carried checksums) are matched on the settings that identify a cell (the
identity columns both sides have, without ``data_fingerprint`` and ``code_tag``, so that a
regeneration after a change of either can be compared with what it replaces) and each metric
column is compared exactly (pandas reads full-precision floats back bit for bit). Prints one
line per experiment; exits 0 only when every matched cell is identical in every metric column and
no cell is on one side only.

This is how a change to the store, the runner, a reducer or a metric is checked against the
committed results: regenerate into an empty folder (``make reproduce RESULTS=/tmp/new``), then
``python scripts/compare_metrics.py results /tmp/new``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from kmdr._errors import exit_error

#: The columns a cell's numbers are (timings are measurements, not results).
METRICS = ("objective", "objective_reduced", "accuracy", "nmi", "ari", "n_iter", "seed")
#: Identity columns left out of the match: they change when the data's fingerprint or the code's
#: compatibility tag is introduced or bumped, while the cell's settings stay the same.
NOT_MATCHED = ("data_fingerprint", "code_tag")


def _rows(exp_dir: Path) -> tuple[pd.DataFrame, str]:
    """The side's rows to compare, and which kind they are (``valid`` or ``legacy``)."""
    import io

    from kmdr.results.records import table_text
    from kmdr.results.store import CellStore

    if not exp_dir.is_dir():
        return pd.DataFrame(), ""
    header, rows, kinds = CellStore(exp_dir, log=lambda msg: None, read_only=True).table()
    if not rows:
        return pd.DataFrame(), ""
    text = table_text(header, rows)
    frame = pd.read_csv(io.StringIO(text), low_memory=False)
    frame["record"] = kinds
    kind = "valid" if (frame["record"] == "valid").any() else "legacy"
    return frame[frame["record"] == kind].reset_index(drop=True), kind


def _same(a: pd.Series, b: pd.Series) -> pd.Series:
    return (a == b) | (a.isna() & b.isna())


def compare(old: Path, new: Path) -> bool:
    from kmdr.results.columns import IDENTITY_COLUMNS

    names = sorted({p.parent.name for side in (old, new) for p in side.glob("*/cells.csv")})
    identical = True
    for name in names:
        (a, kind_a), (b, kind_b) = _rows(old / name), _rows(new / name)
        if a.empty or b.empty:
            identical = False
            print(f"{name}: only in {'new' if a.empty else 'old'} ({len(a) or len(b)} cells)")
            continue
        key = [c for c in IDENTITY_COLUMNS if c in a and c in b and c not in NOT_MATCHED]
        for frame in (a, b):
            frame["_key"] = frame[key].astype(str).agg("|".join, axis=1)
        both = a.merge(b, on="_key", suffixes=("_old", "_new"))
        changed = {}
        for col in METRICS:
            if f"{col}_old" in both and f"{col}_new" in both:
                n = int((~_same(both[f"{col}_old"], both[f"{col}_new"])).sum())
                if n:
                    changed[col] = n
        only_old, only_new = len(a) - len(both), len(b) - len(both)
        identical &= not changed and not only_old and not only_new
        what = ", ".join(f"{col} in {n}" for col, n in changed.items()) or "none"
        kinds = "" if kind_a == kind_b == "valid" else f" (old: {kind_a} rows, new: {kind_b})"
        print(
            f"{name}: {len(both)} cells matched, {only_old} only in old, {only_new} only in new; "
            f"changed: {what}{kinds}"
        )
        if changed:
            bad = both[
                ~pd.concat(
                    [_same(both[f"{c}_old"], both[f"{c}_new"]) for c in changed], axis=1
                ).all(axis=1)
            ]
            counts = bad["reducer_old"].value_counts().to_dict()
            print(f"  changed cells by reducer: {counts}")
    return identical


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    args = parser.parse_args(argv)
    for side in (args.old, args.new):
        if not side.is_dir():
            exit_error("compare_metrics", f"{side} is not a folder")
    return 0 if compare(args.old, args.new) else 1


if __name__ == "__main__":
    sys.exit(main())
