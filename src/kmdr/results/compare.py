"""Compare the results of two results folders (or two experiment folders), cell by cell.

    kmdr-compare OLD NEW

Each side's cells are read through :func:`kmdr.results.summary.read_experiment` (every row
cells.csv keeps: valid and another experiment's rows) as texts, and the two frames are merged
on experiment and ``cell_id`` (the hash of everything that changes a cell's numbers: settings,
data fingerprint, code tag). Each matched cell's metric columns are compared as the texts
cells.csv holds (floats at full precision, so equal texts are equal bits): the result columns
every cell has (:data:`~kmdr.results.records.RESULT_COLUMNS`: objective, objective_reduced,
accuracy, nmi, ari, n_iter, seed), and the columns a kind of its own adds after the contract's
(:func:`kind_columns`: the coresets kind's ``distortion``, ``distortion_*``, ``real_cost``,
``coreset_cost``, ...), present on either side. A cell is

- *identical*: every result column bit for bit the same;
- *within noise*: not identical, but every differing column is a pair of finite floats with
  ``|old - new| <= 1e-12 * max(|old|, |new|)`` (:data:`NOISE_RTOL`). That is the size of a
  floating-point reordering, not a statistical claim: a double has 53 bits (a relative step of
  2.2e-16), and a sum of n positive terms (an objective) summed in another order (another BLAS,
  thread count or SIMD path) moves by at most about n * 2.2e-16 of itself, below 1e-12 for the
  datasets here (n <= 11,000 with pairwise or blocked sums); any change of a partition (one point
  in another cluster) moves the objective, accuracy, NMI or ARI far more. Integers (n_iter, seed)
  and a number against a non-number are never noise;
- *changed*: any other difference;
- *only in old* / *only in new*: its cell id is on one side only.

Timing columns (:data:`~kmdr.results.records.TIMING_COLUMNS`, and a kind's own ``*_seconds``) are
measurements, not results, and are ignored, as are the provenance columns (run id, finish time,
workers, checksum).

Exit status: 0 when every cell on both sides is identical, whatever cells are on one side only (a
partial rerun against a full folder: said as "N cells only on one side", apart from the cells
that differ); 1 when a cell on both sides differs (changed, or within noise); 2, with one line,
for bad input: a folder that is missing or holds no cells, or a store whose rows cannot all be
trusted (a cells.csv cut short or edited): its rows are never silently left out.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr._errors import CommandParser, exit_error
from kmdr.results.reading import ResultsError
from kmdr.results.records import (
    CSV_COLUMNS,
    EXTRA_COLUMNS,
    IDENTITY_COLUMNS,
    RESULT_COLUMNS,
    TIMING_COLUMNS,
    read_table,
)
from kmdr.results.store import holds_cells
from kmdr.results.summary import read_experiment

_PROG = "kmdr-compare"
#: The relative difference of two floats that a reordering of floating-point sums can explain
#: (see the module docstring); a larger one is a change.
NOISE_RTOL = 1e-12
#: How many differences and one-side cells a report names per experiment, by default.
NAMED = 3
#: A cell's key on both sides: its row's experiment and its cell id.
KEY = ["experiment", "cell_id"]
_WHERE = ["dataset", "reducer", "r", "repetition"]
#: Columns that are never a kind's metric: the contract's, its provenance and the identity.
_NOT_METRICS = frozenset((*CSV_COLUMNS, *EXTRA_COLUMNS, *IDENTITY_COLUMNS))


def kind_columns(columns) -> list[str]:
    """The metric columns a kind adds after the contract's among ``columns`` (a cells.csv
    header): every column that is neither the contract's, its provenance, an identity column,
    nor a timing (``*_seconds``), sorted."""
    return sorted(c for c in columns if c not in _NOT_METRICS and not c.endswith("_seconds"))


def compared_columns(*tables: pd.DataFrame) -> list[str]:
    """The columns compared between ``tables``: the result columns, then each kind column any
    of them holds."""
    return [*RESULT_COLUMNS, *kind_columns({c for t in tables for c in t.columns})]


@dataclass
class Comparison:
    """How the cells of one experiment compare (see the module docstring)."""

    identical: int = 0
    noise: int = 0
    changed: int = 0
    #: Where each cell on one side only is (dataset / reducer / r / repetition (cell id)).
    only_old: list[str] = field(default_factory=list)
    only_new: list[str] = field(default_factory=list)
    #: Every non-identical result column of every matched cell (``column``, ``old``, ``new``,
    #: ``size``: ``|old - new| / max(|old|, |new|)`` for two finite floats, else infinity, and
    #: ``where``), the largest first.
    differences: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def cells(self) -> int:
        return self.identical + self.noise + self.changed + len(self.only_old) + len(self.only_new)

    #: The metric columns compared (:func:`compared_columns`).
    columns: list[str] = field(default_factory=lambda: list(RESULT_COLUMNS))

    @property
    def differ(self) -> int:
        """The cells on both sides whose metrics differ (changed or within noise)."""
        return self.noise + self.changed

    @property
    def one_side(self) -> int:
        return len(self.only_old) + len(self.only_new)

    @property
    def same(self) -> bool:
        """Every cell on both sides identical (cells on one side only are not a difference)."""
        return self.differ == 0

    def counts(self, only_old: str = "only in old", only_new: str = "only in new") -> str:
        """``705 identical`` or ``700 identical, 2 within noise, 3 changed, 1 only in new``."""
        parts = [
            (self.identical, "identical"),
            (self.noise, "within noise"),
            (self.changed, "changed"),
            (len(self.only_old), only_old),
            (len(self.only_new), only_new),
        ]
        return ", ".join(f"{n} {what}" for n, what in parts if n) or "nothing to compare"

    def largest(self, named: int = NAMED) -> str:
        """The largest differences, e.g. ``accuracy 0.6125 -> 0.6 at orl / ... (cell ...)``."""
        shown = self.differences.head(named)
        out = [f"{d.column} {d.old} -> {d.new} at {d.where}" for d in shown.itertuples()]
        more = len(self.differences) - named
        return "; ".join(out) + (f"; and {more} more" if more > 0 else "")


def _where(rows: pd.DataFrame) -> pd.Series:
    """Each cell as a reader finds it: ``orl / sampling / r=10 / repetition 3 (cell <id>)``."""
    return (
        rows["dataset"] + " / " + rows["reducer"] + " / r=" + rows["r"] + " / repetition "
        + rows["repetition"] + " (cell " + rows["cell_id"] + ")"
    )  # fmt: skip


def _float(texts: pd.Series) -> pd.Series:
    """A float's text as the float; an integer's text or a word as NaN (never noise)."""
    values = pd.to_numeric(texts, errors="coerce").astype(float)
    return values.where(~texts.str.fullmatch(r"\s*[+-]?\d+\s*"))


def compare_rows(old: pd.DataFrame, new: pd.DataFrame) -> Comparison:
    """Compare two sides' rows (fields as cells.csv texts, see :func:`experiment_rows`)."""
    columns = compared_columns(old, new)
    old, new = (
        side.reindex(columns=[*KEY, *_WHERE, *columns], fill_value="") for side in (old, new)
    )
    merged = old.merge(new, on=KEY, how="outer", suffixes=("_old", ""), indicator=True)
    merged = merged.sort_values(KEY, kind="stable").reset_index(drop=True)
    for col in _WHERE:  # a cell on the old side only is named by its old row
        merged[col] = merged[col].fillna(merged[f"{col}_old"])
    merged["where"] = _where(merged)
    both = merged[merged["_merge"] == "both"]
    sides = ["old", "new", "where"]
    pairs = {col: both[[f"{col}_old", col, "where"]].set_axis(sides, axis=1) for col in columns}
    long = pd.concat(pairs, names=["column", "cell"]).reset_index()
    # as the cells come, each cell's columns in the compared order
    diffs = long[long["old"] != long["new"]].sort_values("cell", kind="stable")
    a, b = _float(diffs["old"]), _float(diffs["new"])
    scale = np.maximum(a.abs(), b.abs())
    size = ((a - b).abs() / scale.where(scale > 0)).fillna(0.0)
    diffs = diffs.assign(size=size.where(np.isfinite(a) & np.isfinite(b), np.inf))
    worst = diffs.groupby("cell")["size"].max()
    return Comparison(
        identical=len(both) - len(worst),
        noise=int((worst <= NOISE_RTOL).sum()),
        changed=int((worst > NOISE_RTOL).sum()),
        only_old=list(merged.loc[merged["_merge"] == "left_only", "where"]),
        only_new=list(merged.loc[merged["_merge"] == "right_only", "where"]),
        differences=diffs.sort_values("size", ascending=False, kind="stable").reset_index(
            drop=True
        ),
        columns=columns,
    )


def _texts(table: pd.DataFrame) -> pd.DataFrame:
    """A table's compared columns as texts (an absent field: ""): the result columns, and the
    kind's own it holds."""
    columns = [*KEY, *_WHERE, *compared_columns(table)]
    return table.reindex(columns=columns).astype(object).fillna("").astype(str)


def experiment_rows(exp_dir: Path) -> pd.DataFrame:
    """Every row ``exp_dir``'s cells.csv keeps, as texts (:func:`read_experiment`); ResultsError
    when a row cannot be trusted (readers would leave it out)."""
    read = read_experiment(exp_dir, say=lambda _: None)
    if read.untrusted:
        raise ResultsError(
            f"{read.untrusted}; restore it (e.g. `git checkout -- {exp_dir / 'cells.csv'}`) or "
            "run the experiment again, which sets what it cannot trust aside"
        )
    rows = _texts(read.texts).drop_duplicates()
    twice = rows[rows.duplicated(KEY)]
    if len(twice):
        raise ResultsError(
            f"{exp_dir / 'cells.csv'}: two different rows of cell {twice['cell_id'].iloc[0]}; "
            "keep one (kmdr-prune)"
        )
    return rows


def snapshot(exp_dir: Path) -> pd.DataFrame:
    """Every row ``exp_dir/cells.csv`` holds now, as it is (the first of a key): valid rows,
    another experiment's, and a row that fails a check but has every field (an edited row, which
    a run sets aside and computes again). Empty when there is no readable cells.csv. What
    :func:`recomputed` compares a run's cells with."""
    try:
        table = read_table(exp_dir / "cells.csv")
    except (OSError, ValueError):
        table = pd.DataFrame()
    return _texts(table).drop_duplicates(KEY)


def recomputed(before: pd.DataFrame, exp_dir: Path, run_id: str) -> Comparison:
    """The cells run ``run_id`` computed into ``exp_dir``, each compared with the row of the same
    key in ``before`` (a :func:`snapshot` taken before the run); a cell without one is *only in
    new*. Cells the run reused are not in it."""
    table = read_experiment(exp_dir, say=lambda _: None).texts
    new = _texts(table[table.reindex(columns=["run_id"])["run_id"] == run_id])
    return compare_rows(before.merge(new[KEY], on=KEY), new)


def replaced_line(name: str, outcome, before: pd.DataFrame) -> str:
    """One line on a run of experiment ``name`` (a :class:`kmdr.engine.session.RunOutcome`): its
    cells reused, and those it computed against the rows of ``before`` they replace, e.g.
    ``bzmd14_orl: 705 cells: 5 reused, 700 computed: 700 identical``."""
    if outcome.skipped:
        return f"{name}: skipped"
    head = f"{name}: {outcome.n_expected} cells: "
    if not outcome.n_computed:
        return head + f"{outcome.n_reused} reused"
    done = recomputed(before, outcome.experiment_dir, outcome.run_id)
    reused = f"{outcome.n_reused} reused, " if outcome.n_reused else ""
    line = f"{head}{reused}{done.cells} computed: {done.counts(only_new='new')}"
    return line + (f" (largest: {done.largest(1)})" if len(done.differences) else "")


def compare_folders(old: Path, new: Path) -> dict[str, Comparison]:
    """One Comparison per experiment, by name (two results folders, or two experiment folders:
    then one entry named after them). ResultsError for bad input."""
    for side in (old, new):
        if not side.is_dir():
            raise ResultsError(f"{side}: no such folder; give two results folders")
    kinds = [holds_cells(side) for side in (old, new)]
    if all(kinds):
        name = old.name if old.name == new.name else f"{old.name} -> {new.name}"
        pairs = {name: (old, new)}
    elif any(kinds):
        raise ResultsError(
            f"{old} and {new}: one is an experiment folder (with cells.csv), the other not; "
            "give two results folders or two experiment folders"
        )
    else:
        sides = [
            {p.name: p for p in sorted(side.iterdir()) if holds_cells(p)} for side in (old, new)
        ]
        for side, found in zip((old, new), sides, strict=True):
            if not found:
                raise ResultsError(
                    f"{side}: not a results folder (no <experiment>/cells.csv under it) nor an "
                    "experiment folder; give two results folders"
                )
        names = sorted(sides[0].keys() | sides[1].keys())
        pairs = {n: (sides[0].get(n), sides[1].get(n)) for n in names}
    none = _texts(pd.DataFrame())
    return {
        name: compare_rows(*(none if p is None else experiment_rows(p) for p in (a, b)))
        for name, (a, b) in pairs.items()
    }


def report_lines(comparisons: dict[str, Comparison], named: int = NAMED) -> list[str]:
    """The report: one line per experiment, then one indented line per kind of difference."""
    lines = []
    for name, c in comparisons.items():
        lines.append(f"{name}: {c.cells} cells: {c.counts()}")
        if len(c.differences):
            lines.append(f"  largest differences: {c.largest(named)}")
        for label, cells in (("only in old", c.only_old), ("only in new", c.only_new)):
            if cells:
                more = f"; and {len(cells) - named} more" if len(cells) > named else ""
                lines.append(f"  {label}: {'; '.join(cells[:named])}{more}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(
        prog=_PROG,
        description="Compare the results of two results folders (or two experiment folders) "
        "cell by cell, on every metric column (the result columns and a kind's own, not the "
        "timings): exit 0 when every cell on both sides is identical (cells on one side only are "
        "counted apart), 1 when any cell on both sides differs, 2 for bad input.",
    )
    parser.add_argument("old", type=Path, help="the results folder compared against")
    parser.add_argument("new", type=Path, help="the results folder checked")
    parser.add_argument(
        "--named",
        type=int,
        default=NAMED,
        metavar="N",
        help=f"how many differences and one-side cells to name per experiment ({NAMED})",
    )
    args = parser.parse_args(argv)
    try:
        comparisons = compare_folders(args.old, args.new)
    except (ResultsError, OSError) as err:
        exit_error(_PROG, err)
    for line in report_lines(comparisons, args.named):
        print(line)
    print(verdict(comparisons))
    return 0 if all(c.same for c in comparisons.values()) else 1


def verdict(comparisons: dict[str, Comparison]) -> str:
    """The last line: the columns compared, then whether any cell on both sides differs, and how
    many cells are on one side only (apart: not a difference), e.g. ``compared: objective, ...;
    every cell on both sides identical; 120 cells only on one side``."""
    columns = list(dict.fromkeys(c for comp in comparisons.values() for c in comp.columns))
    kinds = [c for c in columns if c not in RESULT_COLUMNS]
    timings = ", ".join(TIMING_COLUMNS)
    said = ", ".join(RESULT_COLUMNS) + (f", and the kind's {', '.join(kinds)}" if kinds else "")
    differ = sum(c.differ for c in comparisons.values())
    one_side = sum(c.one_side for c in comparisons.values())
    line = f"compared: {said} (not the timings {timings} nor any *_seconds); "
    line += (
        f"the results differ: {differ} cells differ"
        if differ
        else ("every cell on both sides identical" if one_side else "every cell identical")
    )
    return line + (f"; {one_side} cells only on one side" if one_side else "")


if __name__ == "__main__":
    sys.exit(main())
