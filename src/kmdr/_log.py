"""How much a run says: its ``verbosity`` (``quiet``, ``normal``, ``verbose``), held as the level
of the ``kmdr`` logger so that every layer (the runner's progress bar, the parallel backends)
reads one switch, and the warnings of the libraries kmdr runs that a user must see.

- ``quiet``: no progress bar and no closing summary line; errors, kmdr's warnings and the
  store's reports (a damaged file, a resumed run) still show.
- ``normal`` (the default): a progress bar when stderr is a terminal or the run is in a notebook,
  else a start line and a progress line at a steady interval (:mod:`kmdr.engine.progress`);
  library warnings that only repeat what kmdr already handles are hidden (:data:`HIDDEN`).
- ``verbose``: every library warning, unfiltered.

:func:`logging_for` applies a verbosity for the length of a run (the CLI's job, ``kmdr.run``);
outside it the logger's level is the caller's (a library user sets it with :mod:`logging`).
"""

from __future__ import annotations

import contextlib
import logging
import sys
import warnings
from collections.abc import Iterator

__all__ = [
    "HIDDEN",
    "LEVELS",
    "LOGGER",
    "in_notebook",
    "logging_for",
    "quiet",
    "say",
    "show_progress",
    "verbose",
]

#: The logger whose level is the run's verbosity.
LOGGER = "kmdr"
#: Each verbosity as a :mod:`logging` level.
LEVELS = {"quiet": logging.WARNING, "normal": logging.INFO, "verbose": logging.DEBUG}

#: (category, message regex, module regex) of library warnings a normal run hides: each says
#: something kmdr already handles or reports in its own words.
HIDDEN: list[tuple[type[Warning], str, str]] = [
    # loky replaced a worker that stopped between jobs: the run goes on and no cell is lost (a
    # worker that dies inside a cell stops the run with a line naming the cell).
    (UserWarning, r"A worker stopped while some jobs were given to the executor", r"joblib"),
    # threadpoolctl found several BLAS libraries when the run record lists the thread pools.
    (UserWarning, r"Multiple values possible for following user apis", r"threadpoolctl"),
]


def _level() -> int:
    return logging.getLogger(LOGGER).level or LEVELS["normal"]


def quiet() -> bool:
    """Whether the run is quiet (the ``kmdr`` logger above INFO)."""
    return _level() > logging.INFO


def verbose() -> bool:
    """Whether the run is verbose (the ``kmdr`` logger at DEBUG or below)."""
    return _level() <= logging.DEBUG


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel."""
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython else None
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def say(msg: str) -> None:
    """Write one of a run's ``[kmdr]`` lines: to stderr, or to stdout in a notebook (which paints
    stderr red, as if the run had failed)."""
    print(msg, file=sys.stdout if in_notebook() else sys.stderr, flush=True)


def show_progress(enabled: bool | None) -> bool:
    """Whether to draw a progress bar: ``enabled`` when the config says (``progress``), else
    only on a terminal or in a notebook, and never in a quiet run; a log file never gets the
    carriage returns a bar redraws itself with."""
    if enabled is not None:
        return bool(enabled)
    if quiet():
        return False
    isatty = getattr(sys.stderr, "isatty", lambda: False)
    return bool(isatty()) or in_notebook()


@contextlib.contextmanager
def logging_for(verbosity) -> Iterator[None]:
    """Apply ``verbosity`` (a name of :data:`LEVELS`, or the schema's enum) while the block runs;
    the logger's level and the warning filters are restored after it."""
    name = str(getattr(verbosity, "value", verbosity))
    logger = logging.getLogger(LOGGER)
    before = logger.level
    logger.setLevel(LEVELS[name])
    try:
        with warnings.catch_warnings():
            if name != "verbose":
                for category, message, module in HIDDEN:
                    warnings.filterwarnings("ignore", message, category, module)
            yield
    finally:
        logger.setLevel(before)
