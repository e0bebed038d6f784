"""The ``kmdr`` command run in the test's own process, on a command line of the test's; and a
plug-in package installed in this process as a starting command finds it."""

from __future__ import annotations

import contextlib
import importlib
import io
import logging
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from kmdr.app import main as _main


def exit_status(main, *args) -> int:
    """``main(*args)`` run as a console script's process ends: the status it returns, or its
    ``SystemExit``'s (None: 0; a message: 1)."""
    try:
        code = main(*args)
    except SystemExit as stop:
        code = stop.code
    return code if isinstance(code, int) else int(code is not None)


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


def _show(message, category, filename, lineno, file=None, line=None):
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def run_kmdr(args, cwd):
    """``kmdr args`` run in this process, in folder ``cwd``, as the console script runs it
    (``sys.argv``, Hydra's own error printing, its exit status): its exit status and what it
    printed, as a finished process's. Warnings are printed as a plain process prints them."""
    out, err, before = io.StringIO(), io.StringIO(), os.getcwd()
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err), warnings.catch_warnings():
            warnings.resetwarnings()
            warnings.simplefilter("default")
            warnings.showwarning = _show
            code = exit_status(kmdr, [str(a) for a in args])
    finally:
        os.chdir(before)
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def installed(site: Path) -> Iterator[Path]:
    """The packages in folder ``site`` (with their ``*.dist-info``) installed in this process:
    importable, their entry points found and the options kmdr generates for them in Hydra's
    ConfigStore, as a command that starts with them installed has them. After: the folder off
    the path, its modules forgotten, the registries and the ConfigStore as they were."""
    from hydra.core.config_store import ConfigStore

    import kmdr.datasets as kd
    import kmdr.reducers as kr
    from kmdr.app import compose

    repo = ConfigStore.instance().repo
    before = {group: set(repo.get(group, {})) for group in ("reducer", "dataset")}
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(site))
        importlib.invalidate_caches()
        kr.reload_plugins()
        kd.reload_plugins()
        compose._register()
        try:
            yield site
        finally:
            for group, names in before.items():
                for name in set(repo.get(group, {})) - names:
                    del repo[group][name]
    kr.reload_plugins()
    kd.reload_plugins()
    for name, module in list(sys.modules.items()):
        if Path(getattr(module, "__file__", None) or "/").is_relative_to(site):
            del sys.modules[name]
