"""How kmdr says what it does: the standard :mod:`logging` module, logger ``kmdr``.

Every line a run or a command writes (``[kmdr] bzmd14_orl: resuming ...``, a progress line, a
damaged file named) is a record of the ``kmdr`` logger: :func:`say` for what the run does (INFO),
:func:`warn` for what the user must see even in a quiet run (WARNING). Where they go is logging's
business, so a user sends them to a file, raises or silences them as with any library:

* the command line: Hydra's job logging (``conf/hydra/job_logging/kmdr.yaml``: the lines as they
  are on stderr, :class:`Console`); ``hydra/job_logging=default`` gives Hydra's own (a console
  line with time and level, and a ``kmdr.log`` file), and any ``hydra.job_logging.*`` key
  changes it;
* ``kmdr.run`` and the other commands: :func:`console` puts a :class:`Console` on the ``kmdr``
  logger while they run, unless the user gave that logger a handler of their own
  (``logging.getLogger("kmdr").addHandler(...)``);
* a run's own log file, beside its record (``runs/<run_id>.log``): what the run said, the
  backends' own logs and the traceback of a failure (:mod:`kmdr.engine.session`).

The run's ``verbosity`` is the ``kmdr`` logger's level while it runs (:func:`logging_for`):

- ``quiet``: warnings and errors only (no progress bar, no closing line);
- ``normal`` (the default): a progress bar when stderr is a terminal or the run is in a notebook,
  else a start line and a progress line at a steady interval (:mod:`kmdr.engine.progress`);
  library warnings that only repeat what kmdr already handles are hidden (:data:`HIDDEN`);
- ``verbose``: every library warning, the backends' logs and a failure's traceback on the
  terminal too.
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
    "Console",
    "console",
    "in_notebook",
    "logging_for",
    "quiet",
    "say",
    "show_progress",
    "verbose",
    "warn",
]

#: The logger of every line kmdr writes.
LOGGER = "kmdr"
#: Each verbosity as a :mod:`logging` level of that logger.
LEVELS = {"quiet": logging.WARNING, "normal": logging.INFO, "verbose": logging.DEBUG}
_LOG = logging.getLogger(LOGGER)

#: (category, message regex, module regex) of library warnings a normal run hides: each says
#: something kmdr already handles or reports in its own words.
HIDDEN: list[tuple[type[Warning], str, str]] = [
    # loky replaced a worker that stopped between jobs: the run goes on and no cell is lost (a
    # worker that dies inside a cell stops the run with a line naming the cell).
    (UserWarning, r"A worker stopped while some jobs were given to the executor", r"joblib"),
    # threadpoolctl found several BLAS libraries when the run record lists the thread pools.
    (UserWarning, r"Multiple values possible for following user apis", r"threadpoolctl"),
]


def say(msg: str) -> None:
    """One of a run's lines: what it does (INFO; not in a quiet run)."""
    _LOG.info(msg)


def warn(msg: str) -> None:
    """A line the user must see even in a quiet run: a problem, a stop (WARNING)."""
    _LOG.warning(msg)


def quiet() -> bool:
    """Whether the run's lines are left out (the ``kmdr`` logger above INFO)."""
    return not _LOG.isEnabledFor(logging.INFO)


def verbose() -> bool:
    """Whether the run is verbose (the ``kmdr`` logger at DEBUG or below)."""
    return _LOG.isEnabledFor(logging.DEBUG)


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel."""
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython else None
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


class Console(logging.Handler):
    """Each record on a line of its own, on stderr, or stdout in a notebook (which paints stderr
    red, as if the run had failed); the stream is looked up when a line is written, so a
    redirected stream gets it."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            stream = sys.stdout if in_notebook() else sys.stderr
            stream.write(self.format(record) + "\n")
            stream.flush()
        except Exception:
            self.handleError(record)


@contextlib.contextmanager
def console() -> Iterator[None]:
    """A :class:`Console` on the ``kmdr`` logger while the block runs, unless it has a handler
    already (the user's, or Hydra's job logging): the lines of ``kmdr.run`` and of the commands
    that are not Hydra's."""
    if _LOG.handlers:
        yield
        return
    handler, before = Console(), _LOG.propagate
    _LOG.addHandler(handler)
    _LOG.propagate = False  # a root handler of the user's would print each line twice
    try:
        yield
    finally:
        _LOG.removeHandler(handler)
        _LOG.propagate = before


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
    """Apply ``verbosity`` (a name of :data:`LEVELS`, or the schema's enum) while the block runs:
    the ``kmdr`` logger's level and the warning filters, restored after it."""
    name = str(getattr(verbosity, "value", verbosity))
    before = _LOG.level
    _LOG.setLevel(LEVELS[name])
    try:
        with warnings.catch_warnings():
            if name != "verbose":
                for category, message, module in HIDDEN:
                    warnings.filterwarnings("ignore", message, category, module)
            yield
    finally:
        _LOG.setLevel(before)
