"""An experiment's summaries and figures, written after its run (the run layer draws nothing),
and, after a multirun, each experiment folder its jobs wrote, once (read from the outcome file
each job leaves in its Hydra job folder: :data:`OUTCOME_FILE`)."""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import Callable
from pathlib import Path

from kmdr._errors import one_line

#: The file a job of a multirun leaves in its Hydra job folder: what it did, for the drawing at
#: the multirun's end and its closing line (:mod:`kmdr.app.callbacks`).
OUTCOME_FILE = "kmdr_job.json"


def draw(experiment_dir: Path, log: Callable[[str], None] | None = None) -> list[str]:
    """Write the summaries and figures of ``experiment_dir``; report, never raise, on failure.

    Returns the warnings, each also passed to ``log`` when given. Picklable by reference, so
    another process can run it (``scripts/reproduce.py`` draws in the background)."""
    # matplotlib's PDF backend subsets fonts with fontTools, which logs every glyph at INFO: keep
    # that out of the run's output even when a caller (Hydra's multirun) configured INFO logging.
    logging.getLogger("fontTools").setLevel(logging.WARNING)
    messages = []
    from kmdr.results.summary import read_experiment

    try:  # read once, so that the summaries and the figure rest on the same cells
        read = read_experiment(experiment_dir)
    except Exception:  # a folder that cannot be read: each step below says so
        read = experiment_dir
    for module, func in (
        ("kmdr.results.summary", "write_summaries"),
        ("kmdr.figures.draw", "draw_experiment"),
    ):
        try:
            getattr(importlib.import_module(module), func)(read)
        except Exception as err:  # the CSV is safe: say what failed, go on
            msg = (
                f"[kmdr] warning: {module}.{func} failed ({one_line(err, with_type=True)}); the "
                f"CSV is intact, redraw with `kmdr-figures {experiment_dir.parent}`"
            )
            if log is not None:
                log(msg)
            messages.append(msg)
    return messages


def drawn_already(outcome, kind: str) -> bool:
    """Whether the run ``outcome`` (a :class:`~kmdr.engine.session.RunOutcome` of an experiment
    of ``kind``) leaves its summaries and figure as they are: a kind that writes cells (the sweep
    of cells, a paper's kind of cells) and computed none finds them drawn from the same cells
    (and the same run records: such a run keeps none), and drawing them again would write the
    same files, byte for byte, seconds later. A folder
    without its summary or figure is drawn; ``kmdr-figures`` redraws any folder (after a change
    to the figures' code, say)."""
    from kmdr.config.kinds import get_kind

    folder = Path(outcome.experiment_dir)
    return (
        getattr(get_kind(kind), "writes_cells", False)
        and outcome.n_computed == 0
        and (folder / "summary.csv").is_file()
        and (folder / "figures" / f"{folder.name}.png").is_file()
    )


def draw_folders(folders) -> None:
    """Draw each experiment folder of ``folders`` once, in order; a Ctrl-C while drawing ends
    the command with one line saying how to draw them later (the cells are kept)."""
    from kmdr._errors import tell
    from kmdr._log import warn

    for folder in dict.fromkeys(Path(f) for f in folders):
        try:
            draw(folder, warn)
        except KeyboardInterrupt as err:  # the cells are safe: say how to draw them later
            from kmdr.engine import signals

            tell(
                f"kmdr: {signals.describe(err)} while drawing; the cells are kept under "
                f"{folder}: draw them with `kmdr-figures {folder.parent}`"
            )
            signals.exit_stopped(err)


def outcome_files(sweep_dir) -> list[Path]:
    """The outcome files the multirun's jobs left so far in ``sweep_dir``, in job order."""
    sweep_dir = Path(sweep_dir)
    return sorted(sweep_dir.glob(f"*/{OUTCOME_FILE}"), key=_job_order) if sweep_dir.is_dir() else []


def _job_order(path: Path) -> tuple:
    """Hydra names job folders by their number (0, 1, ..., 10): in that order, not the text's."""
    name = path.parent.name
    return (0, int(name), "") if name.isdigit() else (1, 0, name)


def outcomes(sweep_dir) -> list[dict]:
    """The outcomes the multirun's jobs left so far in ``sweep_dir``, in job order."""
    out = []
    for path in outcome_files(sweep_dir):
        try:
            out.append(json.loads(path.read_text()))
        except (OSError, ValueError):  # a job that did not finish writing it
            out.append({"status": "failed"})
    return out


def ran_to_draw(sweep_dir) -> list[str]:
    """The experiment folders the multirun's jobs so far ran with ``figures=true``, in the order
    of their jobs (read from the outcome files they left, so every launcher's jobs count)."""
    return [o["experiment_dir"] for o in outcomes(sweep_dir) if o.get("figures")]


def draw_before_stop(hydra_config) -> None:
    """In a job of a multirun that is about to end the command with an error: draw the folders
    the jobs before it ran (``hydra_config``: the job's HydraConfig), as the multirun's end would
    have. Nothing outside a multirun."""
    from hydra.types import RunMode

    if hydra_config.mode == RunMode.MULTIRUN:
        draw_folders(ran_to_draw(hydra_config.sweep.dir))
