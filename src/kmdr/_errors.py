"""How every kmdr command reports a problem to its user: one line on stderr, never a traceback.

``one_line`` flattens any message to a single line; ``tell`` prints a command's closing line
(``kmdr: interrupted; ...``) on stderr, and ``say_error`` a problem as
``<program>: error: <message>``; ``exit_error`` does that and exits (status 2, the convention for
a usage error, unless told otherwise). :class:`CommandParser` is the argument parser of every
command but ``kmdr`` (whose flags are Hydra's): a mistake in the arguments gets that line too.
A command's closing line is its output, not a log record: it is shown whatever the logging
configuration (the run's own lines are :mod:`kmdr._log`'s). ``error_chain`` walks what an error
was raised from, where the real problem often is.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import NoReturn

__all__ = ["CommandParser", "error_chain", "exit_error", "one_line", "say_error", "tell"]


def error_chain(err: BaseException) -> Iterator[BaseException]:
    """``err``, then the error it was raised from or while handling (``__cause__``, else
    ``__context__``), and so on, each once (a chain can loop back on itself)."""
    seen: set[int] = set()
    cause: BaseException | None = err
    while cause is not None and id(cause) not in seen:
        yield cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__


def one_line(message: object, *, with_type: bool = False) -> str:
    """``message`` (a string or an exception) with its whitespace runs, newlines included, made
    single spaces; with ``with_type``, an exception's class name goes first (``ValueError: ...``),
    for errors raised by code the user did not write, where the type is part of the story."""
    text = " ".join(str(message).split())
    if with_type and isinstance(message, BaseException):
        return f"{type(message).__name__}: {text}"
    return text


def tell(line: str) -> None:
    """Print a command's closing line (one line) on stderr."""
    print(one_line(line), file=sys.stderr, flush=True)


def say_error(program: str, message: object) -> None:
    """Print ``<program>: error: <message>`` as one line on stderr."""
    tell(f"{program}: error: {one_line(message)}")


def exit_error(program: str, message: object, status: int = 2) -> NoReturn:
    """:func:`say_error`, then exit with ``status``."""
    say_error(program, message)
    sys.exit(status)


class CommandParser(argparse.ArgumentParser):
    """argparse's parser, whose answer to a mistake in the arguments (an option it does not know,
    a missing value, a check of the command's own through :meth:`error`) is the command's one
    error line with the way to its help, exit status 2, rather than a usage screen above it.
    (:meth:`error` is argparse's documented place for this.)"""

    def error(self, message: str) -> NoReturn:
        exit_error(self.prog, f"{message}; see {self.prog} --help")
