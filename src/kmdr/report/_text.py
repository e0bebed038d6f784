"""Formatting shared by the report's sections: numbers, Markdown tables, verdict marks, and the
reading of a CSV the report may or may not find."""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

import pandas as pd
from tabulate import tabulate

from kmdr._io import read_csv
from kmdr.report import claims as C

__all__ = ["VERDICT_LEGEND", "VERDICT_MARK", "md_table", "number", "read_optional_csv"]

VERDICT_MARK = {
    C.HOLDS: "✅ holds",
    C.PARTLY: "🟡 partly",
    C.TIE: "❔ undecided",
    C.FAILS: "❌ fails",
    C.NOT_TESTABLE: "➖ not testable",
    C.NO_DATA: "⚪ no data",
}

#: The report's legend of the verdicts (one Markdown bullet): the one rule every claim is judged
#: by (:data:`kmdr.report.claims.VERDICT_RULE`).
VERDICT_LEGEND = (
    "- Verdicts: the papers' claims are checked on the cells' repetitions, each check "
    "and its thresholds written in the statement it judges. " + C.VERDICT_RULE
)


def number(x, nd: int = 3) -> str:
    if x is None or x is pd.NA:
        return "—"
    try:
        x = float(x)
    except (TypeError, ValueError):
        return str(x)
    return "—" if math.isnan(x) else f"{x:.{nd}f}"


def md_table(header: list[str], rows: Iterable[list], align: str | None = None) -> str:
    """A GitHub Markdown table (tabulate's ``github`` format) of cells written as they are given
    (no number parsing: the report formats its numbers itself); a ``|`` in a cell is escaped and a
    line break becomes a space, so every row stays one table row. ``align``: one letter per
    column, ``l`` or ``r`` (numbers set flush right), marked in the rule under the header
    (tabulate's ``pipe`` format); None leaves every column to the renderer's default."""

    def cell(value) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    body = [[cell(c) for c in row] for row in rows]
    sides = None if align is None else [{"l": "left", "r": "right"}[a] for a in align]
    return tabulate(
        body,
        headers=[cell(h) for h in header],
        tablefmt="github" if sides is None else "pipe",
        disable_numparse=True,
        colalign=sides,
    )


def read_optional_csv(path: Path | None, **kwargs) -> pd.DataFrame:
    """A CSV the report may or may not find (empty frame when absent)."""
    return read_csv(path, **kwargs) if path is not None and path.exists() else pd.DataFrame()
