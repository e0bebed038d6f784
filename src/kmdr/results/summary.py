"""Aggregate an experiment's cells into the tables docs/results-layout.md describes.

Everything here reads only what docs/results-layout.md names: ``results/<experiment>/cells.csv``
(through :class:`kmdr.results.store.CellStore`, without writing anything) and ``runs/*.json``.
No other file is read: a stray ``cells_backup.csv`` changes nothing.

A cell is keyed by its identity, :data:`kmdr.results.records.IDENTITY_COLUMNS` (every setting
that changes its numbers): rows that differ in any of them are different cells, never merged or
averaged together. A point of a figure (a row of ``summary.csv``) is a cell's identity without its
repetition (``POINT_COLUMNS``). Only current rows are used: rows of older code, of other data or
of another experiment (:mod:`kmdr.results.reading`) are left out and counted in a note
(:attr:`ExperimentRead.note`). The *setting* of a row is its dataset, dataset parameters, base
seed and k-means settings (:data:`SETTING_COLUMNS`); when an experiment holds several settings for
one dataset (a multirun over ``seed`` or ``kmeans.n_init`` into one name), ``summary.csv`` gets a
``setting`` column naming only the columns that vary (e.g. ``kmeans_n_init=3``) and the figures
draw one row of panels per setting. A sidecar that cannot be read is named in one line and makes
every point incomplete (what it expected is unknown).

Each public reader takes ``say``, where its one-line reports go (a damaged file or row, an
unreadable sidecar): by default each call says a message once on stderr; a caller that reads a
folder many times (figures, the report, a session) holds one :class:`~kmdr.results.reading.Once`
and passes it to every call, so each problem is named once in all.

One reader: :func:`read_experiment` reads a folder once, as an :class:`ExperimentRead`: every
row cells.csv keeps (typed, with why a row is not current), the current cells, the note on the
rows left out, the completeness per point and the summary (``summary.csv`` and the figure rest on
the same rows). :func:`read_results` (``kmdr.read_results``) is its rows, over the experiment
folders of a results folder. :func:`load_summary` reads a ``summary.csv`` written before.

:func:`write_summaries` writes ``summary.csv``, and the tables the preset's figure style writes
beside it (its ``write_tables``, e.g. bmd09 Table 1); the runner calls it at the end of a run.

Files are written with :mod:`kmdr._io` (atomic, umask-honouring) and CSVs read with its
``read_csv``, as everywhere in kmdr.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr._io import atomic_write_text, exact_floats, read_csv
from kmdr.config.presentation import FIGURE_STYLES
from kmdr.plugins import RegistryError
from kmdr.results.reading import (
    EXCLUDED,
    KEY,
    POINT,
    SETTING_COLUMNS,
    Once,
    ResultsError,
    empty_columns,
    exclusion_note,
    experiment_folders,
    load_expected,
    setting_labels,
    split_current,
    typed,
)
from kmdr.results.records import CSV_COLUMNS, IDENTITY_DEFAULTS
from kmdr.results.runs import aggregation_of, load_runs, preset_of, unreadable_runs
from kmdr.results.store import CellStore

#: The metrics summary.csv aggregates over repetitions.
METRICS: list[str] = [
    "objective",
    "objective_reduced",
    "accuracy",
    "nmi",
    "ari",
    "reduce_seconds",
    "cluster_seconds",
    "total_seconds",
]
_STATS = ("mean", "std", "min", "max")


@dataclass(frozen=True)
class ExperimentRead:
    """An experiment folder read once (:func:`read_experiment`): its run sidecars (``runs``),
    every row its cells.csv keeps (``rows``: valid rows and another experiment's, as pandas reads
    cells.csv, with the ``excluded`` column saying why a row is not current, ``<NA>`` when it
    is), the same rows as the texts cells.csv holds (``texts``: what ``kmdr-compare`` compares
    bit for bit and ``kmdr-prune`` writes back), and ``untrusted``: why some rows of cells.csv
    cannot be trusted (one line), else None. What a caller writes and draws from one read rests
    on the same rows, even while a run adds cells to the folder."""

    dir: Path
    runs: list[dict]
    rows: pd.DataFrame
    texts: pd.DataFrame
    untrusted: str | None = None

    @cached_property
    def cells(self) -> pd.DataFrame:
        """The current cells, typed, one row per cell, sorted by :data:`KEY` (an empty frame with
        the key columns when there are none)."""
        current = self.rows[self.rows[EXCLUDED].isna()] if len(self.rows) else self.rows
        return _typed_cells(current.drop(columns=[EXCLUDED], errors="ignore"))

    @cached_property
    def excluded(self) -> pd.DataFrame:
        """The rows left out, with the ``excluded`` column saying why."""
        return self.rows[self.rows[EXCLUDED].notna()] if len(self.rows) else self.rows

    @property
    def note(self) -> str:
        """One line saying which rows were left out and how to remove them ("" if none)."""
        return exclusion_note(self.excluded, self.dir)

    @cached_property
    def completeness(self) -> pd.DataFrame:
        """Per point, the cells it rests on (see :func:`_completeness`)."""
        expected = load_expected(self.dir, self.runs)
        return _completeness(self.cells, expected, unreadable_runs(self.runs))

    @cached_property
    def summary(self) -> pd.DataFrame:
        """The summary table (as written to summary.csv), aggregated as the sidecars say."""
        return self.summarized(aggregation_of(self.dir, self.runs))

    def summarized(self, aggregation: str) -> pd.DataFrame:
        """The summary table aggregated by ``aggregation`` (``mean`` or ``best``), see
        :func:`_summarize`."""
        return _summarize(self.dir.name, self.cells, self.completeness, aggregation)


def read_experiment(
    experiment: str | Path | ExperimentRead, say: Callable[[str], None] | None = None
) -> ExperimentRead:
    """``experiment`` read once (see :class:`ExperimentRead`), or itself when it is read already.
    ``say``: where the one-line reports on damaged rows and run records go (once each)."""
    if isinstance(experiment, ExperimentRead):
        return experiment
    exp_dir = Path(experiment)
    say = say or Once()
    runs = load_runs(exp_dir, say)
    store = CellStore(exp_dir, log=say, read_only=True)
    untrusted = store.untrusted()
    texts = store.table()
    if not len(texts):  # no cell yet: the columns a cells.csv would have
        empty = pd.DataFrame(columns=[*empty_columns(), EXCLUDED])
        return ExperimentRead(exp_dir, runs, empty, texts.drop(columns="record"), untrusted)
    csv = io.StringIO(texts.drop(columns="record").to_csv(index=False))
    frame = pd.read_csv(csv, low_memory=False, **exact_floats()).assign(record=texts["record"])
    current, excluded = split_current(frame, runs, store.experiment)
    current = current.assign(**{EXCLUDED: pd.Series(pd.NA, current.index, dtype="string")})
    # An empty part is left out of the concatenation: whether its columns count in the result's
    # dtypes changed between pandas 2 and 3, and the frame must be the same under both.
    rows = pd.concat([part for part in (current, excluded) if len(part)]).sort_index()
    rows[EXCLUDED] = rows[EXCLUDED].astype("string")
    rows = rows.drop(columns=["record"]).reset_index(drop=True)
    return ExperimentRead(exp_dir, runs, rows, texts.drop(columns="record"), untrusted)


_REPAIR = "run the experiment again (it sets such rows aside) or restore the file"


def read_results(folder: str | Path) -> pd.DataFrame:
    """Every cell of a results folder (all its experiment folders) or of one experiment folder,
    one row per cell, with the columns of ``cells.csv`` (``experiment`` among them) and
    ``excluded`` (:attr:`ExperimentRead.rows`); rows in the order of each experiment's
    ``cells.csv``, experiments by name.

    Raises :class:`~kmdr.results.reading.ResultsError` (a ValueError) with one line when a
    folder holds no experiment or a cells.csv has rows that cannot be trusted."""
    frames = []
    for exp in experiment_folders(folder):
        read = read_experiment(exp, say=lambda _: None)
        if read.untrusted:
            raise ResultsError(f"{read.untrusted}; {_REPAIR}")
        frames.append(read.rows)
    frames = [f for f in frames if len(f)] or frames[:1]
    if len(frames) == 1:
        return frames[0]
    return pd.concat(frames, ignore_index=True, sort=False)


def _typed_cells(cells: pd.DataFrame) -> pd.DataFrame:
    if not len(cells):
        return typed(pd.DataFrame(columns=["experiment", *KEY, "method"]), KEY)
    cells = typed(cells, KEY)
    if "method" not in cells.columns:
        cells["method"] = cells["reducer"]
    cells["method"] = cells["method"].fillna(cells["reducer"]).astype(str)
    cells = cells.drop_duplicates(subset=KEY, keep="first")
    return cells.sort_values(KEY, kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------------------------------
# completeness


def _infer_expected(cells: pd.DataFrame) -> pd.DataFrame:
    """Without any sidecar: per setting, every point seen times every repetition seen."""
    parts = []
    for _setting, group in cells.groupby(list(SETTING_COLUMNS), dropna=False, sort=False):
        points = group[[*POINT, "method"]].drop_duplicates(POINT)
        reps = pd.DataFrame({"repetition": sorted(group["repetition"].dropna().unique())})
        parts.append(points.merge(reps, how="cross"))
    return typed(pd.concat(parts, ignore_index=True), KEY)[[*KEY, "method"]]


def _keys(cells: pd.DataFrame, expected: pd.DataFrame) -> tuple[pd.DataFrame, bool]:
    """Every cell counted: the sidecars' expected cells united with the cells present, with a
    ``done`` flag; and whether the expected grid came from sidecars."""
    from_sidecars = len(expected) > 0
    if not from_sidecars and len(cells):
        expected = _infer_expected(cells)
    done = cells[[*KEY, "method"]].assign(done=True)
    # the cells' own labels first: a label changed since the sidecar was written is the new one
    # (an empty part left out: pandas 2 and 3 count its columns' dtypes differently)
    parts = [part for part in (done, expected.assign(done=False)) if len(part)] or [done]
    keys = pd.concat(parts, ignore_index=True)
    keys = keys.sort_values("done", ascending=False, kind="stable").drop_duplicates(KEY)
    return keys.reset_index(drop=True), from_sidecars


def _completeness(
    cells: pd.DataFrame, expected: pd.DataFrame, unreadable: list[str] = ()
) -> pd.DataFrame:
    """Per point (:data:`POINT` and its ``method``): n_cells, n_expected, complete, missing
    repetitions, and ``setting`` when several settings are present.

    ``n_expected`` counts the union of the sidecars' expected cells (and any cell present); an
    interrupted sweep therefore shows ``complete == False`` on the points it did not finish,
    including points with no cell at all (n_cells = 0). ``expected_from`` says whether the expected
    grid came from the sidecars or was inferred from the cells (no sidecar found)."""
    keys, from_sidecars = _keys(cells, expected)
    cols = [*POINT, "method", "n_cells", "n_expected", "complete", "missing_repetitions"]
    if not len(keys):
        return typed(pd.DataFrame(columns=[*cols, "expected_from"]), POINT)
    # per point, as whole columns (a loop over the points was most of a small run's summary)
    grouped = keys.groupby(POINT, dropna=False, sort=True)
    out = grouped.size().rename("n_expected").to_frame()
    out["n_cells"] = grouped["done"].sum().astype(int)
    out["method"] = grouped["method"].first()  # the first label given (none: the reducer's)
    todo = keys[~keys["done"]].groupby(POINT, dropna=False, sort=True)["repetition"]
    out["missing_repetitions"] = todo.agg(lambda r: " ".join(map(str, sorted(int(x) for x in r))))
    out = out.reset_index()
    out["method"] = out["method"].fillna(out["reducer"]).astype(str)
    out["missing_repetitions"] = out["missing_repetitions"].astype(object).fillna("").astype(str)
    out["n_expected"] = out["n_expected"].astype(int)
    out["complete"] = out["n_cells"] >= out["n_expected"]
    out = typed(out[cols], POINT)
    out["expected_from"] = "sidecars" if from_sidecars else "inferred"
    if unreadable:  # what those runs expected is unknown: never call a point complete
        out["complete"] = False
        out["expected_from"] = f"unknown: {len(unreadable)} run record(s) cannot be read"
    labels = setting_labels(out)
    if labels is not None:
        out.insert(0, "setting", labels)
    return out


# --------------------------------------------------------------------------------------------
# summary


def _summarize(
    experiment: str, cells: pd.DataFrame, comp: pd.DataFrame, aggregation: str
) -> pd.DataFrame:
    """One row per point (:data:`POINT`): ``setting`` (only when several settings are present),
    ``method``, ``aggregation``, ``n_cells``, ``n_expected``, ``complete``, ``<m>_mean|std|min|max``
    for each metric (std: sample std over repetitions, ddof = 1, NaN for a single cell) and, with
    aggregation ``best``, ``best_repetition`` and ``best_<m>``: the trial with the lowest objective
    (ties: lowest repetition)."""
    metrics = [m for m in METRICS if m in cells.columns]
    stat_cols = [f"{m}_{s}" for m in metrics for s in _STATS]
    best_cols = (
        ["best_repetition", *[f"best_{m}" for m in metrics]] if aggregation == "best" else []
    )
    extra = [c for c in ("n_samples", "n_features", "n_clusters") if c in cells.columns]
    setting = ["setting"] if "setting" in comp.columns else []
    head = [
        "experiment", *setting, "dataset", "reducer", "reducer_name", "method", "r",
        *[c for c in POINT if c not in ("dataset", "reducer", "reducer_name", "r")],
        "aggregation", "n_cells", "n_expected", "complete",
    ]  # fmt: skip
    columns = head + extra + stat_cols + best_cols
    if not len(comp):
        return typed(pd.DataFrame(columns=columns), POINT)
    out = comp[[*setting, *POINT, "method", "n_cells", "n_expected", "complete"]].copy()
    out["experiment"] = experiment
    out["aggregation"] = aggregation
    if len(cells) and metrics:
        num = cells.copy()
        for m in metrics:
            num[m] = pd.to_numeric(num[m], errors="coerce")
        group = num.groupby(POINT, dropna=False, sort=True)
        stats = group[metrics].agg(list(_STATS))
        stats.columns = [f"{m}_{s}" for m, s in stats.columns]
        if extra:
            stats = stats.join(group[extra].first())
        if best_cols:
            order = num.sort_values(["objective", "repetition"], kind="stable", na_position="last")
            best = order.groupby(POINT, dropna=False, sort=True).head(1)
            best = best.set_index(POINT)[["repetition", *metrics]]
            best.columns = ["best_repetition", *[f"best_{m}" for m in metrics]]
            stats = stats.join(best)
        out = out.merge(stats.reset_index(), on=POINT, how="left")
    for col in columns:
        if col not in out.columns:
            out[col] = np.nan
    out = out[columns]
    if "best_repetition" in out.columns:
        out["best_repetition"] = out["best_repetition"].astype("Int64")
    return out.reset_index(drop=True)


def load_summary(
    experiment_dir: str | Path, recompute: bool = False, say: Callable[[str], None] | None = None
) -> pd.DataFrame:
    """``summary.csv`` of an experiment; recomputed from the cells if absent or ``recompute``."""
    path = Path(experiment_dir) / "summary.csv"
    if recompute or not path.exists():
        return read_experiment(experiment_dir, say).summary
    summary = read_csv(path)
    summary = typed(summary, POINT)
    if "complete" in summary.columns:
        summary["complete"] = summary["complete"].astype(str).str.lower().eq("true")
    return summary


# --------------------------------------------------------------------------------------------
# writer


def write_summaries(
    experiment: str | Path | ExperimentRead, say: Callable[[str], None] | None = None
) -> list[Path]:
    """Write ``summary.csv`` from the CSVs, and the tables the preset's figure style writes
    beside it (its ``write_tables``: bmd09 Table 1 writes ``table1.csv`` and ``table1.md``).
    ``experiment``: its folder, or the folder already read.

    Returns the paths written; nothing is written (and [] returned) for a folder with no cells.
    """
    say = say or Once()
    read = read_experiment(experiment, say)
    exp_dir, runs, summary = read.dir, read.runs, read.summary
    if not len(summary) or int(summary["n_cells"].sum()) == 0:
        return []
    # An identity column cells hold only away from its default is left out of summary.csv too
    # when every point is at it (summary.csv files written before it keep their text).
    summary = summary.drop(
        columns=[
            c
            for c, default in IDENTITY_DEFAULTS.items()
            if c not in CSV_COLUMNS and c in summary and (summary[c] == default).all()
        ]
    )
    written = [_write_csv(summary, exp_dir / "summary.csv")]
    try:
        write_tables = FIGURE_STYLES.get(preset_of(exp_dir, runs)["figure"]).write_tables
    except RegistryError as err:  # a plug-in style that fails to load: summary.csv still stands
        say(f"[kmdr] {exp_dir.name}: no tables beside summary.csv: {err}")
        write_tables = None
    if write_tables is not None:
        written += write_tables(exp_dir, summary)
    return written


def _write_csv(frame: pd.DataFrame, path: Path) -> Path:
    atomic_write_text(path, frame.to_csv(index=False, float_format="%.10g"))
    return path
