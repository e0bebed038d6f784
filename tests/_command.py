"""The ``kmdr`` command run in the test's own process, on a command line of the test's."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator

from kmdr.app import main as _main


def kmdr(argv: list[str]) -> None:
    """Run ``kmdr argv`` here: ``sys.argv`` is the command line, as the console script's. The
    logging Hydra configures for the command (its handlers on the root and ``kmdr`` loggers) is
    undone after, as the command's process would end: the next test starts from a plain
    process's logging."""
    saved = sys.argv
    loggers = [logging.getLogger(), logging.getLogger("kmdr")]
    before = [(lg, list(lg.handlers), lg.propagate, lg.level) for lg in loggers]
    sys.argv = ["kmdr", *argv]
    try:
        _main()
    finally:
        sys.argv = saved
        for lg, handlers, propagate, level in before:
            lg.handlers[:] = handlers
            lg.propagate, lg.level = propagate, level


@contextlib.contextmanager
def said(lines: list | None = None) -> Iterator[list]:
    """The lines the ``kmdr`` logger says (INFO and above) while the block runs, appended to
    ``lines`` (a new list by default), which the block receives."""
    lines = [] if lines is None else lines

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    logger = logging.getLogger("kmdr")
    handler, level = Collect(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
