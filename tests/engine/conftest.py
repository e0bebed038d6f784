"""What the engine's tests share: scripts/reproduce.py run in the test's own process, and the
address of the session's dask scheduler."""

from __future__ import annotations

import importlib.util
import logging
import sys
from pathlib import Path

import pytest

from _command import exit_status

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "reproduce.py"


@pytest.fixture(scope="session")
def reproduce_script():
    """scripts/reproduce.py imported as a module (its ``main(argv)`` is the command's)."""
    spec = importlib.util.spec_from_file_location("reproduce_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # the drawing process unpickles its functions by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def reproduce(reproduce_script, capsys):
    """``reproduce(*argv)``: scripts/reproduce.py's command run here; its exit status, stdout and
    stderr (a refusal's ``SystemExit`` is its status). The logging a run configures is undone
    after, as the command's process would end."""

    def run(*argv: str) -> tuple[int, str, str]:
        loggers = [logging.getLogger(), logging.getLogger("kmdr")]
        before = [(lg, list(lg.handlers), lg.propagate, lg.level) for lg in loggers]
        capsys.readouterr()
        saved, sys.argv = sys.argv, [str(SCRIPT), *argv]  # the command's name in its lines
        try:
            code = exit_status(reproduce_script.main, list(argv))
        finally:
            sys.argv = saved
            for lg, handlers, propagate, level in before:
                lg.handlers[:] = handlers
                lg.propagate, lg.level = propagate, level
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture(scope="session")
def scheduler(client) -> str:
    """The address of the session's dask scheduler (a LocalCluster of two worker processes, built
    once: tests/conftest.py's ``client``), for the runs given ``dask.scheduler``."""
    return client.scheduler.address
