"""The ``kmdr`` command: a Hydra app, ``@hydra.main`` on :func:`kmdr.app.task.run`.

The primary config is ``conf/config.yaml``, whose defaults list starts with the typed schema
(:class:`kmdr.config.schema.RunConfig`, registered in Hydra's ConfigStore by
:mod:`kmdr.app.compose`): Hydra reads the command line, composes each job once (checking every
key, type and enumeration), and its sweeper and launcher run the jobs; the task checks the rest
and runs the job. What follows a job (its figures, the line saying what it did) and a multirun
(its closing line) are Hydra callbacks (:mod:`kmdr.app.callbacks`); ``kmdr --help`` is the
``hydra.help`` template of ``conf/config.yaml``.

Errors:

* What Hydra checks (its flags, the override grammar, an unknown key or group option, a value of
  the wrong type, a sweep without ``-m``), Hydra reports, as in any Hydra app: its message, no
  traceback unless ``HYDRA_FULL_ERROR=1``, exit status 1.
* kmdr's own checks (ranges, names, the data's shape) are one line, ``kmdr: error: ...``, exit
  status 2, before any work, naming the job in a multirun (:mod:`kmdr.app.task`).

Output read by a program that stops early (``kmdr --help | head -3``) ends the command quietly,
as a Unix filter's does: no error line, exit status 141 (128 + SIGPIPE).

``--version`` prints kmdr's version (Hydra's flag would print Hydra's). Configs are the installed
package ``kmdr.conf`` (``pkg://kmdr.conf``), or ``$KMDR_CONF_DIR`` (:mod:`kmdr.config.presets`).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from typing import NoReturn

from kmdr._errors import exit_error, tell
from kmdr.engine import signals


def main() -> None:
    """Entry point of ``kmdr``: the command line is ``sys.argv``."""
    try:
        try:
            _main(sys.argv[1:])
        finally:  # what is still buffered is written here, not in Python's exit
            sys.stdout.flush()
            # The interpreter's exit collects every object the libraries left (scikit-learn,
            # pandas, matplotlib, Hydra: half a second) to free memory the system takes back
            # anyway; frozen, they are left to it. Files and logs close as before (atexit).
            gc.freeze()
    except BrokenPipeError:
        _reader_gone()


def _reader_gone() -> NoReturn:
    """End quietly when the reader of the output has gone (``kmdr --help | head -3``): what is
    left unwritten is dropped, as a Unix filter killed by SIGPIPE drops it, and the exit status
    is that filter's. Python's own last flush of stdout would fail again and print a warning:
    stdout is pointed at the null device first."""
    import signal

    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    sys.exit(128 + signal.SIGPIPE)


def _main(args: list[str]) -> None:
    if "--version" in args:
        import kmdr

        print(f"kmdr {kmdr.__version__}", flush=True)
        return
    import hydra

    from kmdr.app import task
    from kmdr.app.compose import hydra_notices_left_out
    from kmdr.config.errors import ConfigError
    from kmdr.config.presets import config_path
    from kmdr.config.search_path import user_folder_first

    try:
        path = config_path()
    except ConfigError as err:  # no configs to compose
        exit_error("kmdr", err)
    app = hydra.main(config_path=path, config_name="config", version_base=None)
    # SIGTERM and SIGHUP stop a run as Ctrl-C does (kmdr.engine.signals); a -cd folder's options
    # come before kmdr's own (kmdr.config.search_path).
    with signals.stop_on_signals(), hydra_notices_left_out(), user_folder_first(_config_dir(args)):
        try:
            app(task.run)()
        except KeyboardInterrupt as err:  # before a run started (e.g. composing the config)
            tell(f"kmdr: {signals.describe(err)} before any cell was computed")
            signals.exit_stopped(err)


def _config_dir(args: list[str]) -> str | None:
    """The folder of the command's ``-cd``/``--config-dir`` flag (Hydra's: it checks it and
    reports a folder that does not exist), or None."""
    import argparse

    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--config-dir", "-cd")
    return parser.parse_known_args(args)[0].config_dir
