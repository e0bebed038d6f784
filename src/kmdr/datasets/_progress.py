"""Whether downloads show pooch's progress bar (tqdm, on stderr).

On by default when stderr is a terminal (a bar in a log file is noise); ``KMDR_DOWNLOAD_PROGRESS``
(``1``/``0``) decides otherwise, and :func:`set_download_progress` (``kmdr-data --progress``) sets
it for this process: the environment is the one place the choice is kept.
Copies from the mirror are local and quick: they show nothing.
"""

from __future__ import annotations

import importlib.util
import os
import sys

PROGRESS_ENV = "KMDR_DOWNLOAD_PROGRESS"


def set_download_progress(enabled: bool | None) -> None:
    """Force the download bar on (True) or off (False) for this process, by setting
    :data:`PROGRESS_ENV`; None unsets it: decide from stderr."""
    if enabled is not None and not isinstance(enabled, bool):
        raise TypeError(f"enabled must be True, False or None, got {enabled!r}")
    if enabled is None:
        os.environ.pop(PROGRESS_ENV, None)
    else:
        os.environ[PROGRESS_ENV] = "1" if enabled else "0"


def download_progressbar() -> bool:
    """The ``progressbar`` argument for :meth:`pooch.Pooch.fetch`.

    Never True without tqdm: pooch would raise a ValueError, which the fetch logic would read as
    a hash mismatch.
    """
    env = os.environ.get(PROGRESS_ENV, "").strip().lower()
    if env in {"1", "true", "yes", "on"}:
        wanted = True
    elif env in {"0", "false", "no", "off"}:
        wanted = False
    else:
        wanted = sys.stderr is not None and sys.stderr.isatty()
    return wanted and importlib.util.find_spec("tqdm") is not None
