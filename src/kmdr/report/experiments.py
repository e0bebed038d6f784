"""What the report knows about each experiment folder: found by scanning the results folder, read
from its files alone, placed by its preset metadata (never by its name)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

from kmdr.figures.appearance import declared_label
from kmdr.figures.style import figure_style
from kmdr.plugins import RegistryError
from kmdr.results import runs as sidecars
from kmdr.results import summary as aggregate
from kmdr.results.reading import POINT
from kmdr.results.store import Once

__all__ = ["SKIPPED_ANCHOR", "Experiment", "in_section", "load_all", "public_text", "run_field"]

#: The report's one list of skipped experiments (a heading of :mod:`kmdr.report.build`).
SKIPPED_ANCHOR = "[Skipped experiments](#skipped-experiments)"

# An absolute POSIX path: a "/" that does not continue a word, a URL or "$VAR/" (those keep their
# slashes), up to a space or punctuation.
_ABS_PATH = re.compile(r"(?<![\w.:/~$])/(?:[^\s/;,()'\"]+/)*[^\s/;,()'\"]+")


def public_text(text: str) -> str:
    """``text`` without the build machine's absolute paths (the report is read elsewhere).

    The loaders' messages say ``cannot obtain REL: ... /MIRROR/REL not found``: the mirror folder
    becomes ``$KMDR_DATA_MIRROR`` (also the current ``KMDR_DATA_MIRROR``, whatever it names); any
    other absolute path keeps only its file name.
    """
    mirror = os.environ.get("KMDR_DATA_MIRROR", "").rstrip("/")
    if mirror.startswith("/"):
        text = text.replace(mirror + "/", "$KMDR_DATA_MIRROR/")
    for rel in dict.fromkeys(re.findall(r"cannot obtain (\S+?):", text)):
        # Where the loader asked for the file: the data cache of the clone that ran, named as
        # the data cache of any clone (the same text whichever folder the report is built in).
        text = re.sub(
            r"put the file at /\S*?/datasets/" + re.escape(rel),
            "put the file at datasets/" + rel,
            text,
        )
        text = re.sub(r"(?<![\w.:/~$])/\S*?/" + re.escape(rel), "$KMDR_DATA_MIRROR/" + rel, text)
    return _ABS_PATH.sub(lambda m: ".../" + m.group(0).rsplit("/", 1)[-1], text)


def _declared_methods(frame: pd.DataFrame, names: dict) -> pd.DataFrame:
    """``frame`` with each row's method named as its reducer declares it when the row is that
    declaration (matched by ``reducer_name``; its label is the declared one, an alias, or the
    figure style's name for it, ``names``), so that the claims speak of one name per method."""
    if "method" not in frame or "reducer_name" not in frame:
        return frame
    labels = [
        declared_label(n, m, names) or m
        for n, m in zip(frame["reducer_name"], frame["method"], strict=True)
    ]
    return frame.assign(method=labels)


def _style_names(figure: str) -> dict:
    """The figure style's names of the methods (lst17: "LS", "k-means"); {} when its
    declaration cannot be loaded (the figures say why)."""
    try:
        return dict(figure_style(figure).names)
    except RegistryError:
        return {}


#: The times a copied reduction time enters (the clustering time is always measured per cell).
REDUCTION_TIMES = ("reduce_seconds", "total_seconds")


def flag_copied_timings(summary: pd.DataFrame, cells: pd.DataFrame) -> pd.DataFrame:
    """``summary`` with ``<time>_copied`` columns: True for a point whose reduction time was
    copied between its repetitions, so that no test uses it.

    Cells that say how their time was measured (``reduce_timing``, written since every
    repetition is timed) are never copies. Older cells are: a point whose ``reduce_seconds``
    repeats a value across its repetitions (independent timings never coincide) had one
    measurement charged to several repetitions.
    """
    point = [c for c in POINT if c in cells.columns and c in summary.columns]
    if not len(summary) or not point or "reduce_seconds" not in cells:
        return summary
    recorded = (
        cells["reduce_timing"].notna()
        if "reduce_timing" in cells
        else pd.Series(False, index=cells.index)
    )
    legacy = cells[~recorded]
    if legacy.empty:
        return summary.assign(**{f"{m}_copied": False for m in REDUCTION_TIMES})
    g = legacy.groupby(point, dropna=False)["reduce_seconds"]
    # a point without reduction (kMeans on all features: 0 s every time) copies nothing
    repeats = ((g.nunique() < g.count()) & (g.max() > 0)).rename("_copied").reset_index()
    out = summary.merge(repeats, on=point, how="left")
    copied = out.pop("_copied").eq(True).to_numpy()  # a point the merge did not find: False
    return out.assign(**{f"{m}_copied": copied for m in REDUCTION_TIMES})


class Experiment:
    """What the report knows about one results/<experiment>/ folder (possibly absent)."""

    def __init__(self, root: Path, name: str, say=None):
        self.name = name
        self.dir = root / name
        self.exists = self.dir.is_dir()
        self.cells = pd.DataFrame()
        self.summary = pd.DataFrame()
        self.runs: list[dict] = []
        self.skipped: list[str] = []
        self.n_cells = self.n_expected = 0
        #: rows of the store left out (older code, other data, another experiment), in one line
        self.excluded_note = ""
        self.unreadable_runs: list[str] = []
        self.preset = sidecars.preset_of(self.dir, [])
        if not self.exists:
            return
        # The folder is read several times below: each damaged file is named once (``say``: the
        # whole report's, which reads it again for its page).
        say = say or Once()
        read = aggregate.read_experiment(self.dir, say)
        self.runs = read.runs
        self.preset = sidecars.preset_of(self.dir, self.runs)
        self.skipped = [public_text(t) for t in sidecars.skip_reasons(self.dir, self.runs)]
        # Method labels differ between papers (lst17 writes "LS" and "k-means" where bzmd14 writes
        # "LapScores" and "kMeans"); the claims and tables speak of one name per method.
        names = _style_names(self.preset["figure"])
        cells = read.cells
        self.excluded_note = public_text(read.note)
        self.unreadable_runs = sidecars.unreadable_runs(self.runs)
        self.cells = _declared_methods(cells, names)
        if len(self.cells):
            summary = _declared_methods(aggregate.load_summary(self.dir, say=say), names)
            self.summary = flag_copied_timings(summary, self.cells)
        # counted even without a cell: a first run killed before writing one is incomplete
        comp = read.completeness
        self.n_cells = int(comp["n_cells"].sum()) if len(comp) else 0
        self.n_expected = int(comp["n_expected"].sum()) if len(comp) else 0

    @property
    def running(self) -> bool:
        """A sidecar still says ``running``: the run is in progress, or was killed."""
        return any(run.get("status") == "running" for run in self.runs)

    @property
    def datasets(self) -> set[str]:
        """The datasets of its cells and of its sidecars."""
        names = set(self.cells["dataset"].astype(str)) if self.has_cells else set()
        for run in self.runs:
            dataset = run.get("dataset")
            if isinstance(dataset, dict) and dataset.get("name"):
                names.add(str(dataset["name"]))
        return names

    @property
    def incomplete(self) -> bool:
        """Fewer cells than its sidecars expect (an interrupted, killed or partial sweep), or a
        sidecar that cannot be read (what it expected is unknown)."""
        return self.n_cells < self.n_expected or bool(self.unreadable_runs)

    @property
    def has_cells(self) -> bool:
        return len(self.cells) > 0

    @property
    def has_results(self) -> bool:
        """Cells, or (bmd09 Figure 1) the leverage scores of every feature."""
        return self.has_cells or (self.dir / "leverage_scores.csv").exists()

    @property
    def complete(self) -> bool:
        return self.has_cells and self.n_cells >= self.n_expected and not self.unreadable_runs

    def status(self) -> str:
        return self._status() + (f" ({self.excluded_note})" if self.excluded_note else "")

    def _status(self) -> str:
        if self.unreadable_runs:
            return (
                f"**incomplete? ({self.n_cells} cells; {len(self.unreadable_runs)} run record(s) "
                "cannot be read, so what they expected is unknown)**"
            )
        if self.incomplete:
            text = f"**incomplete ({self.n_cells} of {self.n_expected} cells)**"
            if self.running:
                text += " (a run is still marked running: in progress, or killed)"
            return text
        if self.has_cells:
            return f"complete ({self.n_cells} cells)"
        if self.skipped:
            return f"skipped (why: {SKIPPED_ANCHOR})"
        if self.exists and (self.dir / "leverage_scores.csv").exists():
            return "leverage scores written"
        return "not run (no results folder)" if not self.exists else "no cells"

    def figures(self) -> list[Path]:
        return sorted((self.dir / "figures").glob("*.png")) if self.exists else []


def load_all(root: Path, unread: dict[str, str] | None = None, say=None) -> dict[str, Experiment]:
    """Every experiment folder under ``root``, in the order of their presets (then name).

    ``unread``: a folder that cannot be read is left out and recorded there (name: one-line
    reason) instead of raising."""
    exps = []
    for folder in sidecars.experiment_dirs(root):
        try:
            exps.append(Experiment(root, folder.name, say))
        except Exception as err:
            if unread is None:
                raise
            unread[folder.name] = f"{type(err).__name__}: {' '.join(str(err).split())}"
    exps.sort(key=lambda e: (e.preset["order"], e.name))
    return {e.name: e for e in exps}


def in_section(exps: dict[str, Experiment], section: str) -> list[Experiment]:
    return [e for e in exps.values() if e.preset["section"] == section]


def run_field(exp: Experiment, *keys: str) -> list[str]:
    vals = []
    for run in exp.runs:
        for key in keys:
            v = run.get(key)
            if isinstance(v, dict):  # the runner's {"revision": ..., "dirty": ...}
                rev = v.get("revision")
                v = None if rev is None else str(rev)[:10] + (" (dirty)" if v.get("dirty") else "")
            if v is not None and str(v) not in vals:
                vals.append(str(v))
                break
    return vals
