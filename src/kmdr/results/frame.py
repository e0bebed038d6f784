"""Every cell of a results folder as one pandas DataFrame: what :func:`kmdr.read_results` returns.

A folder is either one experiment folder (it holds ``cells.csv``, ``cells/`` or ``runs/``) or a
results folder whose subfolders are experiment folders. Each experiment is read through its
store (:class:`kmdr.results.store.CellStore`, read-only: nothing is written, moved or locked), so
the frame holds exactly the cells the runner would count as done: the valid rows of
``cells.csv`` merged with the valid cell files it lacks, with the columns of ``cells.csv``.

Nothing is dropped or mixed silently. A folder whose store finds a problem a run would set aside
(a ``cells.csv`` cut short or edited by hand, a row whose checksum or cell id does not match its
content, a damaged cell file, a cell file that disagrees with its ``cells.csv`` row) is refused
with :class:`ResultsError`, one line naming the file and how to repair it. Rows that are valid but
not current (written by older code, on other data, or of another experiment:
:mod:`kmdr.results.current`) are kept, and the ``excluded`` column says why (``<NA>`` for the
current rows, the ones figures and summaries use).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from kmdr.results.columns import EXTRA_COLUMNS
from kmdr.results.current import split_current
from kmdr.results.records import CHECKSUM, table_header
from kmdr.results.sidecars import load_runs
from kmdr.results.store import CellStore

__all__ = [
    "EXCLUDED",
    "ResultsError",
    "empty_columns",
    "experiment_dirs",
    "read_experiment",
    "read_results",
]

#: The column saying why a row is not current (``<NA>`` when it is).
EXCLUDED = "excluded"

#: The files and folders that make a folder an experiment folder.
_MARKERS = ("cells.csv", "cells", "runs")

_REPAIR = "run the experiment again (it sets such rows and files aside) or restore the file"


class ResultsError(ValueError):
    """A results folder that cannot be read as it is; the message is one line."""


def empty_columns() -> list[str]:
    """The columns of a cells.csv written by this code, for a frame without cells."""
    return table_header({*EXTRA_COLUMNS, CHECKSUM})


def _is_experiment(folder: Path) -> bool:
    return any((folder / marker).exists() for marker in _MARKERS)


def experiment_dirs(folder: str | Path) -> list[Path]:
    """The experiment folders of ``folder``: itself when it is one, else its subfolders that are
    (sorted by name). Raises :class:`ResultsError` when there is none."""
    root = Path(folder)
    if not root.is_dir():
        what = "is a file, not a folder" if root.exists() else "does not exist"
        raise ResultsError(
            f"results folder {root} {what}; give a results folder or one of its experiment folders"
        )
    if _is_experiment(root):
        return [root]
    found = sorted(p for p in root.iterdir() if p.is_dir() and _is_experiment(p))
    if not found:
        raise ResultsError(
            f"{root} holds no experiment folder (none has cells.csv, cells/ or runs/); give a "
            "results folder or one of its experiment folders"
        )
    return found


def read_experiment(experiment_dir: str | Path) -> pd.DataFrame:
    """Every cell of one experiment folder, with the ``excluded`` column (see the module
    docstring); raises :class:`ResultsError` on a problem the store detects."""
    exp_dir = Path(experiment_dir)
    said: list[str] = []
    store = CellStore(exp_dir, log=said.append, read_only=True)
    record = store.csv_record()
    if record.problem:
        raise ResultsError(f"{store.csv_path}: {record.problem}; {_REPAIR}")
    if record.rejected:
        reason, line, _ = min(record.rejected, key=lambda r: r[1])
        more = f" (and {len(record.rejected) - 1} more row(s))" if len(record.rejected) > 1 else ""
        raise ResultsError(f"{store.csv_path}, line {line}: {reason}{more}; {_REPAIR}")
    said.clear()  # what remains to say is about the cell files
    frame = store.frame()
    if said:
        raise ResultsError(said[0].removeprefix("[kmdr] "))
    if not len(frame):  # no cell yet: the columns a cells.csv would have
        return pd.DataFrame(columns=[*empty_columns(), EXCLUDED])
    current, excluded = split_current(frame, load_runs(exp_dir), store.experiment)
    whole = pd.concat([current.assign(**{EXCLUDED: pd.NA}), excluded]).sort_index()
    whole[EXCLUDED] = whole[EXCLUDED].astype("string")
    return whole.drop(columns=["record"]).reset_index(drop=True)


def read_results(folder: str | Path) -> pd.DataFrame:
    """Every cell of a results folder (all its experiment folders) or of one experiment folder,
    one row per cell, with the columns of ``cells.csv`` (``experiment`` among them) and
    ``excluded``; rows in the order of each experiment's ``cells.csv``, experiments by name.

    Raises :class:`ResultsError` (a ValueError) with one line when a folder holds no experiment
    or a store's file is damaged (see the module docstring)."""
    frames = [read_experiment(exp) for exp in experiment_dirs(folder)]
    frames = [f for f in frames if len(f)] or frames[:1]
    if len(frames) == 1:
        return frames[0]
    return pd.concat(frames, ignore_index=True, sort=False)
