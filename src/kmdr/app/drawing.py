"""An experiment's summaries and figures, written after its run (the run layer draws nothing)."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from pathlib import Path

from kmdr._errors import one_line

__all__ = ["draw"]


def draw(experiment_dir: Path, log: Callable[[str], None] | None = None) -> list[str]:
    """Write the summaries and figures of ``experiment_dir``; report, never raise, on failure.

    Returns the warnings, each also passed to ``log`` when given. Picklable by reference, so
    another process can run it (``scripts/reproduce.py`` draws in the background)."""
    # matplotlib's PDF backend subsets fonts with fontTools, which logs every glyph at INFO: keep
    # that out of the run's output even when a caller (Hydra's multirun) configured INFO logging.
    logging.getLogger("fontTools").setLevel(logging.WARNING)
    messages = []
    for module, func in (
        ("kmdr.results.summary", "write_summaries"),
        ("kmdr.figures.draw", "draw_experiment"),
    ):
        try:
            getattr(importlib.import_module(module), func)(experiment_dir)
        except Exception as err:  # the CSV is safe: say what failed, go on
            msg = (
                f"[kmdr] warning: {module}.{func} failed ({one_line(err, with_type=True)}); the "
                f"CSV is intact, redraw with `kmdr-figures {experiment_dir.parent}`"
            )
            if log is not None:
                log(msg)
            messages.append(msg)
    return messages
