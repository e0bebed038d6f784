"""The ``kmdr`` command: a Hydra app, ``@hydra.main`` on :func:`kmdr.app.task.run`.

The primary config is ``conf/config.yaml``, whose defaults list starts with the typed schema
(:class:`kmdr.config.schema.RunConfig`, registered in Hydra's ConfigStore by
:mod:`kmdr.app.compose`): Hydra reads the command line, composes each job once (checking every
key, type and enumeration), and its sweeper and launcher run the jobs; the task checks the rest
and runs the job. What follows a job (its figures, the line saying what it did) and a multirun
(its closing line) are Hydra callbacks (:mod:`kmdr.app.callbacks`); ``kmdr --help`` is the
``hydra.help`` template of ``conf/config.yaml``.

Errors are one line, ``kmdr: error: <what and how to fix it>``, exit status 2, before any work:

* The task's own checks (ranges, the data's shape, a config folder that does not exist) print
  their line and exit from the task, naming the job in a multirun.
* Hydra's composition and parsing errors (an unknown key or group option, a value of the wrong
  type, an override its grammar cannot parse, a YAML syntax error) are raised to :func:`main`
  rather than printed with Hydra's hint about a stack trace: ``HYDRA_FULL_ERROR=1``, Hydra's
  documented switch, is set while the command runs, and
  :func:`kmdr.app.compose.composition_problem` words the error. A user who sets
  ``HYDRA_FULL_ERROR=1`` gets Hydra's traceback as usual.
* Hydra reads its flags with argparse, whose answer to a mistake (``--bogus``, ``--cfg jobs``,
  ``-cd`` without a folder, a flag after the overrides) is a usage screen above its error line:
  the usage screen is left out (:class:`_OneLineUsage`), so argparse's own line, with the way to
  the help appended, is the whole answer.
* What the command line alone tells is checked before Hydra starts
  (:func:`kmdr.app.compose.check_command_line`): a key given twice, which Hydra's sweeper and
  ``--cfg`` would keep the last value of without a word, and, for ``--cfg`` (which runs no task),
  the job it prints, composed and checked as a run checks it (a value out of range, a ``-cd``
  folder whose configs a built-in of the same name hides), and ``--cfg`` given with ``-m``.
  Hydra prints that job's ``results_dir`` as composed: when kmdr's rule sends the job to
  ``my_results/`` instead, one line on stderr says so once the config is printed.

Output read by a program that stops early (``kmdr --help | head -3``) ends the command quietly,
as a Unix filter's does: no error line, exit status 141 (128 + SIGPIPE).

``--version`` prints kmdr's version (Hydra's flag would print Hydra's). Configs are the installed
package ``kmdr.conf`` (``pkg://kmdr.conf``), or ``$KMDR_CONF_DIR`` (:mod:`kmdr.config.presets`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import os
import sys
from collections.abc import Iterator
from typing import NoReturn

from kmdr._errors import exit_error, tell
from kmdr.engine import signals

__all__ = ["main"]

PROGRAM = "kmdr"
_FULL_ERROR = "HYDRA_FULL_ERROR"


def _interrupted_before_any_cell(err: BaseException) -> NoReturn:
    tell(f"kmdr: {signals.describe(err)} before any cell was computed")
    sys.exit(signals.exit_status(err))


class _OneLineUsage:
    """stderr as Hydra's argparse sees it: its usage screen, written just before its error line
    (``kmdr: error: unrecognized arguments: --bogus``), is left out, and the error line says where
    the help is. Every other write goes through unchanged, and every other attribute is the
    stream's."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self._usage = False

    def write(self, text: str) -> int:
        if text.startswith("usage: "):
            self._usage = True
            return len(text)
        if self._usage and ": error: " in text:  # argparse names the program by sys.argv[0]
            self._usage = False
            line = f"{PROGRAM}: error: " + text.split(": error: ", 1)[1].rstrip("\n")
            if "unrecognized arguments:" in line and "=" in line:
                line += "; flags go before the overrides (kmdr [FLAGS] key=value ...)"
            return self._stream.write(f"{line}; see kmdr --help (every flag: --hydra-help)\n")
        return self._stream.write(text)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


@contextlib.contextmanager
def _raised_by_hydra() -> Iterator[bool]:
    """Hydra raises its errors rather than printing them (``HYDRA_FULL_ERROR=1``) while the
    command runs; yields whether the user asked for Hydra's full traceback."""
    user = os.environ.get(_FULL_ERROR)
    os.environ[_FULL_ERROR] = "1"
    try:
        yield user not in (None, "", "0")
    finally:
        if user is None:
            os.environ.pop(_FULL_ERROR, None)
        else:
            os.environ[_FULL_ERROR] = user


@dataclasses.dataclass(frozen=True)
class _Flags:
    """The few of Hydra's flags kmdr looks at before Hydra starts, as argparse reads them."""

    config_dir: str | None = None  # -cd/--config-dir
    config_name: str | None = None  # -cn/--config-name
    config_path: str | None = None  # -cp/--config-path
    prints_config: bool = False  # --cfg/-c
    multirun: bool = False  # -m/--multirun
    help: bool = False  # --help/-h/--hydra-help


def _given(args: list[str]) -> _Flags:
    """The flags of :class:`_Flags` in ``args``, as argparse reads them (exact spellings only: an
    abbreviation, or a mistake, is left to Hydra's own parser, which answers it)."""
    import argparse

    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False, exit_on_error=False)
    parser.add_argument("--config-dir", "-cd")
    parser.add_argument("--config-name", "-cn")
    parser.add_argument("--config-path", "-cp")
    parser.add_argument("--cfg", "-c", nargs="?", const="job")
    parser.add_argument("--multirun", "-m", action="store_true")
    parser.add_argument("--help", "-h", "--hydra-help", action="store_true")
    try:
        known, _ = parser.parse_known_args(args)
    except (argparse.ArgumentError, SystemExit):
        return _Flags()
    return _Flags(
        known.config_dir,
        known.config_name,
        known.config_path,
        known.cfg is not None,
        known.multirun,
        known.help,
    )


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
    from kmdr.app.compose import check_command_line, hydra_notices_left_out
    from kmdr.config.errors import ConfigError

    flags = _given(args)
    if flags.prints_config and flags.multirun:
        exit_error(
            PROGRAM,
            "--cfg prints the config of one job, so it does not go with -m/--multirun; leave "
            "out -m and give each swept key one of its values (e.g. dataset=orl)",
        )
    try:
        # --cfg prints the job a run would get: checked as a run checks it, unless Hydra
        # shows its help instead or another primary config folder (-cp) is composed
        prints_job = flags.prints_config and not flags.help and flags.config_path is None
        where = check_command_line(args, flags.config_dir, prints_job, flags.config_name)
    except ConfigError as err:
        exit_error(PROGRAM, err)
    # SIGTERM and SIGHUP stop a run as Ctrl-C does (kmdr.engine.signals).
    with (
        contextlib.redirect_stderr(_OneLineUsage(sys.stderr)),
        signals.stop_on_signals(),
        _raised_by_hydra() as full_error,
    ):
        try:
            with hydra_notices_left_out():
                _app()()
            sys.stdout.flush()  # the config first, then where the job would write
            for line in where:
                tell(line)
        except KeyboardInterrupt as err:  # before a run started (e.g. composing the config)
            _interrupted_before_any_cell(err)
        except BrokenPipeError:
            raise  # the reader of the output has gone: main ends quietly
        except Exception as err:
            if signals.received() is not None:  # the signal's, lost by library code on the way
                _interrupted_before_any_cell(signals.Interrupted(signals.received()))
            if full_error:
                raise
            from kmdr.app.compose import composition_problem

            problem = composition_problem(err)
            if problem is None:
                exit_error(PROGRAM, f"{type(err).__name__}: {err}", status=1)
            exit_error(PROGRAM, problem)


def _app():
    """Hydra's app: ``@hydra.main`` on the task, with kmdr's primary config."""
    import hydra

    from kmdr.app import task
    from kmdr.config.presets import config_path

    return hydra.main(config_path=config_path(), config_name="config", version_base=None)(task.run)
