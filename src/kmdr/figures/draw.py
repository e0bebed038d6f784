"""The papers' figures, redrawn from an experiment's CSVs alone.

``kmdr-figures RESULTS_DIR [EXPERIMENT ...]`` (``make figures``) re-aggregates every experiment
folder under RESULTS_DIR (:func:`kmdr.results.summary.write_summaries`) and redraws its
figures (:func:`draw_experiment`), so cells from multirun jobs or other machines dropped into a
folder end up in the same figures.

Everything an experiment's figure depends on comes from its files, never from its name: the
style is the preset's ``figure`` and the suptitle the preset's ``title`` (``config.preset`` of the
last sidecar, :func:`kmdr.results.summary.preset_of`; an ad-hoc run gets the default style and
its experiment's name). The style is a declaration (:class:`kmdr.figures.style.FigureStyle`) a
paper registers under its name (:data:`kmdr.config.presentation.FIGURE_STYLES`): the panels and
labels of curves vs r (:mod:`kmdr.figures.curves`), or a draw function of its own (bmd09's
Figure 1 and Table 1). The look every figure shares is :mod:`kmdr.figures.appearance`.

Every figure is written as ``<experiment>/figures/<experiment>.png`` and ``.pdf`` (the stable name
the README's gallery embeds).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from kmdr._errors import CommandParser, say_error
from kmdr._io import atomic_write_bytes
from kmdr.figures import appearance
from kmdr.figures.curves import draw_curves
from kmdr.figures.style import figure_style as style_named
from kmdr.results.runs import aggregation_of, experiment_dirs, preset_of, skip_reasons
from kmdr.results.summary import ExperimentRead, read_experiment, write_summaries

__all__ = ["draw_experiment", "figure_style", "main", "make_figure"]

#: What each format records beside the drawing: no date (matplotlib's PDF default is the time
#: of writing), so redrawing unchanged cells leaves the committed files byte for byte.
_METADATA = {"png": {}, "pdf": {"CreationDate": None}}


def figure_style(experiment_dir: str | Path, runs: list[dict] | None = None) -> str:
    """The figure style of an experiment: its preset's ``figure`` (the default for an ad-hoc
    run). ``runs``: its sidecars, when the caller has read them."""
    return preset_of(experiment_dir, runs)["figure"]


def make_figure(experiment: str | Path | ExperimentRead):
    """The experiment's figure as a matplotlib Figure (not saved), or None if there is nothing
    to draw (no cells, or nothing the style draws). The caller closes it. ``experiment``: its
    folder, or the folder already read (:class:`~kmdr.results.summary.ExperimentRead`).

    What it says besides the cells (its title, its note, the reducers it names when they have no
    cell) is what the experiment's last run recorded (:func:`~kmdr.results.runs.preset_of`
    and the reducers its records list): a figure is drawn from its folder's
    files alone."""
    read = read_experiment(experiment)
    preset = dict(preset_of(read.dir, read.runs))
    # Every reducer the folder's runs listed, by id, the latest definition winning: a run that
    # `reducer=` filtered records only its own, and the others are still the folder's.
    listed = {}
    for run in read.runs:
        config = run.get("config")
        entries = config.get("reducers") if isinstance(config, dict) else None
        for entry in entries or ():
            listed[entry.get("id") or entry.get("name")] = entry
    preset["reducers"] = list(listed.values()) or None
    style = style_named(preset["figure"])
    with plt.rc_context(appearance.RC):
        if style.draw is not None:
            return style.draw(read.dir, preset)
        return draw_curves(read, style, preset)


def draw_experiment(experiment: str | Path | ExperimentRead) -> list[Path]:
    """Draw the figure of one experiment from its CSVs (``experiment``: its folder, or the
    folder already read); returns the files written ([] if none).

    Writes ``figures/<experiment>.png`` and ``.pdf``. Nothing is drawn for a folder with no cells
    (or nothing its style draws, e.g. no leverage_scores.csv for bmd09 Figure 1).
    """
    read = read_experiment(experiment)
    exp_dir = read.dir
    fig = make_figure(read)
    if fig is None:
        return []
    paths = []
    try:
        with plt.rc_context(appearance.RC):
            for ext in ("png", "pdf"):
                buffer = io.BytesIO()
                # no creation date: a figure redrawn from the same cells is the same file
                fig.savefig(buffer, bbox_inches="tight", format=ext, metadata=_METADATA[ext])
                path = exp_dir / "figures" / f"{exp_dir.name}.{ext}"
                atomic_write_bytes(path, buffer.getvalue())
                paths.append(path)
    finally:
        plt.close(fig)
    return paths


# --------------------------------------------------------------------------------------------
# command line


def _error(message: str) -> None:
    say_error("kmdr-figures", message)


def main(argv: list[str] | None = None) -> int:
    """``kmdr-figures RESULTS_DIR [EXPERIMENT ...]``: re-aggregate and redraw from the CSVs.

    A folder that cannot be drawn (unreadable or damaged files) is named in one line and the
    others are still drawn; the exit status is then 1. A RESULTS_DIR that is not a folder, or
    holds no experiment folder, is one line and exit status 2, with nothing written.
    """
    parser = CommandParser(
        prog="kmdr-figures",
        description="Re-aggregate every experiment under RESULTS_DIR from its cells.csv, cells/ "
        "and runs/*.json and redraw its figures (summary.csv, figures/*.png|pdf, table1.*).",
    )
    parser.add_argument("results_dir", type=Path, help="folder holding one folder per experiment")
    parser.add_argument(
        "experiments", nargs="*", default=[], help="only these experiments (default: all)"
    )
    args = parser.parse_args(argv)
    root: Path = args.results_dir
    if not root.is_dir():
        what = "is a file" if root.exists() else "does not exist"
        _error(f"{root} {what}; give the results folder (one folder per experiment, e.g. results)")
        return 2
    status = 0
    present = experiment_dirs(root)
    if not present:
        _error(f"no experiment folders under {root} (none holds cells.csv, cells/ or runs/); "
               "give the results folder")  # fmt: skip
        return 2
    unknown = [name for name in args.experiments if root / name not in present]
    if unknown:  # before anything is drawn: a typo draws nothing rather than something else
        names = ", ".join(p.name for p in present)
        _error(f"no experiment folder {root / unknown[0]}; the experiments under {root}: {names}")
        return 2
    dirs = [root / name for name in args.experiments] or present
    incomplete, failed = [], []
    for exp_dir in dirs:
        try:
            incomplete += _draw_one(exp_dir)
        except Exception as err:  # a damaged folder: say which, draw the others
            failed.append(exp_dir.name)
            _error(f"{exp_dir.name}: not drawn ({type(err).__name__}: {err}); fix or move aside "
                   "its damaged files, the other experiments are drawn")  # fmt: skip
    if incomplete:
        print(f"incomplete experiments: {', '.join(incomplete)}")
    if failed:
        _error(f"{len(failed)} experiment folders not drawn: {', '.join(failed)}")
        status = 1
    return status


def _draw_one(exp_dir: Path) -> list[str]:
    """Summarize and draw one experiment folder, read once, print what was written; its name
    in a list if it is incomplete."""
    read = read_experiment(exp_dir)
    has_cells = len(read.cells) > 0
    if not has_cells and not (exp_dir / "leverage_scores.csv").exists():
        comp = read.completeness
        n_expected = int(comp["n_expected"].sum()) if len(comp) else 0
        if n_expected:  # a first run killed before its first cell: incomplete, not skipped
            print(f"{exp_dir.name}: INCOMPLETE: 0 of {n_expected} cells, nothing to draw yet")
            return [exp_dir.name]
        # the latest run's reason: an older run's may be worded differently, not a second reason
        reasons = skip_reasons(exp_dir, [r for r in read.runs if r.get("skipped")][-1:])
        why = f" ({reasons[0]})" if reasons else ""
        print(f"skip {exp_dir.name}: no cells{why}")
        return []
    written = write_summaries(read) + draw_experiment(read)
    print(f"{exp_dir.name} [{figure_style(exp_dir, read.runs)}, "
          f"{aggregation_of(exp_dir, read.runs)}]:")  # fmt: skip
    for path in written:
        print(f"  wrote {path}")
    if read.note:
        print(f"  note: {read.note}")
    incomplete = []
    if has_cells:
        summary = read.summary
        note = appearance.incomplete_note(summary)
        if note:
            bad = summary[~summary["complete"].astype(bool)]
            incomplete.append(exp_dir.name)
            print(f"  {note.upper()}: {len(bad)} of {len(summary)} points rest on fewer "
                  "cells than expected")  # fmt: skip
    for run in read.runs:
        if run.get("skipped"):
            print(f"  note: a run was skipped: {run.get('skipped')}")
            break
    return incomplete


if __name__ == "__main__":
    sys.exit(main())
