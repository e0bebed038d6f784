"""The ``kmdr`` command: a Hydra app, ``@hydra.main`` on :func:`kmdr.app.task.run`.

The primary config is ``conf/config.yaml``, whose defaults list starts with the typed schema
(:mod:`kmdr.config.schema`, in Hydra's ConfigStore): Hydra reads the command line, composes each
job once (checking every key, type and enumeration), and its sweeper and launcher run the jobs;
the task checks the rest and runs the job. What follows a job (its figures, the line saying what
it did) and a multirun (its closing line) are Hydra callbacks (:mod:`kmdr.app.callbacks`);
``kmdr --help`` is the ``hydra.help`` template of ``conf/config.yaml``.

Errors are one line, ``kmdr: error: <what and how to fix it>``, exit status 2, before any work:

* The task's own checks (ranges, the data's shape, a config folder that does not exist) print
  their line and exit from the task, naming the job in a multirun.
* Hydra's composition and parsing errors (an unknown key or group option, a value of the wrong
  type, an override its grammar cannot parse, a YAML syntax error) are raised to :func:`main`
  rather than printed with Hydra's hint about a stack trace: ``HYDRA_FULL_ERROR=1``, Hydra's
  documented switch, is set while the app runs, and
  :func:`kmdr.config.compose.composition_problem` words the error. A user who sets
  ``HYDRA_FULL_ERROR=1`` gets Hydra's traceback as usual.
* Hydra reads its flags with argparse, which prints a usage screen before its error line. The
  mistakes argparse would answer so are caught before Hydra so that they stay one line
  (:func:`kmdr.app.argv.command_line_problem`): an option Hydra does not have (``--bogus``), an
  option's value outside its choices or missing (``--cfg jobs``), a flag after an override
  that another override follows (``kmdr reducer=sign -m dataset=orl``: argparse reads only the
  overrides before the flag), and ``--cfg`` with ``-m``. Hydra builds its parser itself and
  offers no hook into it, hence a check of the command line, which leaves it as it is.

Output read by a program that stops early (``kmdr --help | head -3``) ends the command quietly,
as a Unix filter's does: no error line, exit status 141 (128 + SIGPIPE).

``--version`` prints kmdr's version (Hydra's flag would print Hydra's). Configs are the installed
package ``kmdr.conf`` (``pkg://kmdr.conf``), or ``$KMDR_CONF_DIR`` (:mod:`kmdr.config.presets`).
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Iterator
from typing import NoReturn

from kmdr._errors import exit_error
from kmdr.engine import signals

__all__ = ["main"]

PROGRAM = "kmdr"
_FULL_ERROR = "HYDRA_FULL_ERROR"


def _interrupted_before_any_cell(err: BaseException) -> NoReturn:
    print(
        f"kmdr: {signals.describe(err)} before any cell was computed", file=sys.stderr, flush=True
    )
    sys.exit(signals.exit_status(err))


@contextlib.contextmanager
def _arguments(argv: list[str] | None) -> Iterator[None]:
    """``argv`` as the command line Hydra reads (a caller in Python passes it; the command's own
    ``sys.argv`` is left as it is)."""
    if argv is None:
        yield
        return
    saved = sys.argv
    sys.argv = [saved[0] if saved else PROGRAM, *argv]
    try:
        yield
    finally:
        sys.argv = saved


@contextlib.contextmanager
def _raised_by_hydra() -> Iterator[bool]:
    """Hydra raises its errors rather than printing them (``HYDRA_FULL_ERROR=1``) while the app
    runs; yields whether the user asked for Hydra's full traceback."""
    user = os.environ.get(_FULL_ERROR)
    os.environ[_FULL_ERROR] = "1"
    try:
        yield user not in (None, "", "0")
    finally:
        if user is None:
            os.environ.pop(_FULL_ERROR, None)
        else:
            os.environ[_FULL_ERROR] = user


def main(argv: list[str] | None = None) -> None:
    """Entry point of ``kmdr`` (``argv``: the arguments after the program name; default: the
    command line)."""
    try:
        try:
            _main(argv)
        finally:  # what is still buffered is written here, not in Python's exit
            sys.stdout.flush()
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


def _main(argv: list[str] | None) -> None:
    from kmdr.app import argv as cli_args

    args = list(sys.argv[1:] if argv is None else argv)
    if "--version" in args:
        print(cli_args.version_line(), flush=True)
        return
    problem = cli_args.command_line_problem(args)
    if problem is not None:
        exit_error(PROGRAM, problem)
    from kmdr.config.errors import ConfigError
    from kmdr.config.overrides import check_repeated_keys
    from kmdr.config.schema import GENERATED_OPTION_NOTICE

    try:  # before Hydra: its sweeper (-m) and --cfg would keep the last value without a word
        check_repeated_keys(args)
        folder = cli_args.option_value(args, cli_args.CONFIG_DIR_FLAGS)
        if folder is not None and cli_args.has_option(args, cli_args.CFG_FLAGS):
            # --cfg prints a config without running the task, whose checks would refuse a user
            # config that a built-in of the same name hides: the folder is checked here
            from kmdr.config.compose import check_user_folder

            check_user_folder(folder)
    except ConfigError as err:
        exit_error(PROGRAM, err)
    # SIGTERM and SIGHUP stop a run as Ctrl-C does (kmdr.engine.signals).
    with _arguments(argv), signals.stop_on_signals(), _raised_by_hydra() as full_error:
        try:
            with warnings.catch_warnings():
                # A config folder of hydra.searchpath that does not exist: the task refuses it
                # in one line, so Hydra's warning about it would only say it twice.
                warnings.filterwarnings(
                    "ignore", message=r"provider=.* is not available\.", category=UserWarning
                )
                warnings.filterwarnings("ignore", GENERATED_OPTION_NOTICE, UserWarning)
                _app()()
        except KeyboardInterrupt as err:  # before a run started (e.g. composing the config)
            _interrupted_before_any_cell(err)
        except BrokenPipeError:
            raise  # the reader of the output has gone: main ends quietly
        except Exception as err:
            if signals.received() is not None:  # the signal's, lost by library code on the way
                _interrupted_before_any_cell(signals.Interrupted(signals.received()))
            if full_error:
                raise
            from kmdr.config.compose import composition_problem

            problem = composition_problem(err)
            if problem is None:
                exit_error(PROGRAM, f"{type(err).__name__}: {err}", status=1)
            exit_error(PROGRAM, problem)


def _app():
    """Hydra's app: ``@hydra.main`` on the task, with kmdr's primary config."""
    import hydra

    from kmdr.app import task
    from kmdr.config import schema  # noqa: F401  (registers the schema in the ConfigStore)
    from kmdr.config.presets import config_path

    return hydra.main(config_path=config_path(), config_name="config", version_base=None)(task.run)
