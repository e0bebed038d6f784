"""The ``kmdr`` command run in the test's own process, on a command line of the test's."""

from __future__ import annotations

import sys

from kmdr.app import main as _main


def kmdr(argv: list[str]) -> None:
    """Run ``kmdr argv`` here: ``sys.argv`` is the command line, as the console script's."""
    saved = sys.argv
    sys.argv = ["kmdr", *argv]
    try:
        _main()
    finally:
        sys.argv = saved
