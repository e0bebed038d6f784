"""The ``kmdr`` command: Hydra's ``@hydra.main`` around :func:`kmdr.app.task.run`, with every
error one line.

The primary config is ``conf/config.yaml``, whose defaults list starts with the typed schema
(:mod:`kmdr.config.schema`, in Hydra's ConfigStore): Hydra composes each job once, checking every
key, type and enumeration; the task checks the rest once and runs the job. Hydra's own command
line, override grammar, sweepers and launchers work unchanged.

Errors stay one line, ``kmdr: error: <what and how to fix it>``, exit status 2, before any work:

* Hydra's composition and parsing errors (an unknown key or group option, a value of the wrong
  type, an override its grammar cannot parse, a YAML syntax error): Hydra is asked to raise them
  (``HYDRA_FULL_ERROR``, its documented switch) and :func:`kmdr.config.errors.one_line` words
  them. A user who sets ``HYDRA_FULL_ERROR=1`` gets Hydra's traceback as usual.
* Hydra's command-line flags are parsed by Hydra (argparse); what it prints on stderr before the
  task starts is held back, so a misplaced flag is one line too rather than a usage screen.
* The task's own checks (ranges, the data's shape, a missing ``-cd`` folder) print their line
  and exit from the task, naming the job in a multirun.

Configs are the installed package ``kmdr.conf`` (``pkg://kmdr.conf``), or ``$KMDR_CONF_DIR``
(:mod:`kmdr.config.presets`).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from typing import NoReturn

from kmdr._errors import error_chain, exit_error
from kmdr.engine import signals

__all__ = ["config_problem", "main", "release_stderr"]

PROGRAM = "kmdr"
_FULL_ERROR = "HYDRA_FULL_ERROR"


class _HeldStderr(io.TextIOBase):
    """stderr held back until :meth:`release` (then written through), so that what Hydra prints
    before the task starts can become one line when it ends in an error."""

    def __init__(self, real) -> None:
        super().__init__()
        self.real = real
        self.holding = True
        self._held: list[str] = []

    def write(self, text: str) -> int:
        if self.holding:
            self._held.append(text)
            return len(text)
        return self.real.write(text)

    def flush(self) -> None:
        if not self.holding:
            self.real.flush()

    def isatty(self) -> bool:
        return self.real.isatty()

    def fileno(self) -> int:
        return self.real.fileno()

    @property
    def encoding(self):
        return getattr(self.real, "encoding", "utf-8")

    def text(self) -> str:
        return "".join(self._held)

    def release(self, keep: bool = True) -> None:
        """Write what was held (unless ``keep`` is false) and pass everything through from now."""
        if self.holding:
            self.holding = False
            if keep and self._held:
                self.real.write(self.text())
                self.real.flush()
            self._held.clear()


_HELD: _HeldStderr | None = None


def release_stderr(keep: bool = True) -> None:
    """Let stderr through (the task calls it first: from then on its output is its own); with
    ``keep`` false, what was held (Hydra's warnings) is dropped."""
    if _HELD is not None:
        _HELD.release(keep)


def _usage_problem(held: str) -> str | None:
    """The one line for Hydra's argparse refusing the command line (None if it did not)."""
    if not held.lstrip().startswith("usage:"):
        return None
    last = [ln for ln in held.splitlines() if "error:" in ln]
    reason = last[-1].split("error:", 1)[1].strip() if last else "invalid command line"
    return f"{reason} (options such as -m go before the overrides; see --help)"


def config_problem(err: BaseException) -> str | None:
    """One line for an error met while composing a config, or None if ``err`` is not one."""
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from kmdr.config.errors import ConfigError, one_line
    from kmdr.config.presets import yaml_problem

    for cause in error_chain(err):  # a YAML syntax error anywhere in the chain names its file
        problem = yaml_problem(cause)
        if problem is not None:
            return problem
    if isinstance(err, HydraException | OmegaConfBaseException | ConfigError):
        return one_line(err)
    return None


def _interrupted_before_any_cell(held: _HeldStderr, err: BaseException) -> NoReturn:
    held.release(keep=False)
    print(
        f"kmdr: {signals.describe(err)} before any cell was computed", file=sys.stderr, flush=True
    )
    sys.exit(signals.exit_status(err))


def main(argv: list[str] | None = None) -> None:
    """Entry point of ``kmdr`` (``argv``: the arguments after the program name)."""
    from kmdr.app import argv as cli_args

    args = list(sys.argv[1:] if argv is None else argv)
    if "--version" in args:
        print(cli_args.version_line(), flush=True)
        return
    problem = cli_args.multirun_cfg_problem(args)
    if problem is not None:
        exit_error(PROGRAM, problem)
    with cli_args.dry_run_sweep_dir(cli_args.prepared(args)) as args:
        sys.argv = [sys.argv[0], *args]
        _main()


def _main() -> None:
    """Run Hydra's app on ``sys.argv``, every error one line (see the module docstring)."""
    global _HELD
    user_full_error = os.environ.get(_FULL_ERROR)
    held = _HeldStderr(sys.stderr)
    # SIGTERM and SIGHUP stop a run as Ctrl-C does (kmdr.engine.signals).
    with signals.stop_on_signals():
        try:
            import hydra

            from kmdr.app import task
            from kmdr.config import schema  # noqa: F401  (registers the schema in the ConfigStore)
            from kmdr.config.presets import config_path

            app = hydra.main(config_path=config_path(), config_name="config", version_base=None)
            os.environ[_FULL_ERROR] = "1"
            _HELD = held
            with contextlib.redirect_stderr(held):
                app(task.run)()
        except SystemExit as exit:
            problem = _usage_problem(held.text()) if exit.code not in (0, None) else None
            if problem is not None:
                held.release(keep=False)
                exit_error(PROGRAM, problem)
            held.release()
            raise
        except KeyboardInterrupt as err:  # before a run started (e.g. composing the config)
            _interrupted_before_any_cell(held, err)
        except Exception as err:
            if signals.received() is not None:  # the signal's, lost by library code on the way
                _interrupted_before_any_cell(held, signals.Interrupted(signals.received()))
            if user_full_error not in (None, "", "0"):
                held.release()
                raise
            problem = config_problem(err)
            held.release(keep=False)
            if problem is None:
                exit_error(PROGRAM, f"{type(err).__name__}: {err}", status=1)
            exit_error(PROGRAM, problem)
        finally:
            _HELD = None
            if user_full_error is None:
                os.environ.pop(_FULL_ERROR, None)
            else:
                os.environ[_FULL_ERROR] = user_full_error
            held.release()
