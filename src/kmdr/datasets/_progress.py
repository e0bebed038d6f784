"""Whether downloads show pooch's progress bar (tqdm, on stderr).

On by default when stderr is a terminal (a bar in a log file is noise); ``KMDR_DOWNLOAD_PROGRESS``
(``1``/``0``) or :func:`set_download_progress` (``kmdr-data --progress``) decide otherwise.
Copies from the mirror are local and quick: they show nothing.
"""

from __future__ import annotations

import importlib.util
import os
import sys

PROGRESS_ENV = "KMDR_DOWNLOAD_PROGRESS"
_asked: bool | None = None


def set_download_progress(enabled: bool | None) -> None:
    """Force the download bar on (True) or off (False); None: decide from stderr and the env."""
    global _asked
    if enabled is not None and not isinstance(enabled, bool):
        raise TypeError(f"enabled must be True, False or None, got {enabled!r}")
    _asked = enabled


def download_progressbar() -> bool:
    """The ``progressbar`` argument for :meth:`pooch.Pooch.fetch`.

    Never True without tqdm: pooch would raise a ValueError, which the fetch logic would read as
    a hash mismatch.
    """
    wanted = _asked
    if wanted is None:
        env = os.environ.get(PROGRESS_ENV, "").strip().lower()
        if env in {"1", "true", "yes", "on"}:
            wanted = True
        elif env in {"0", "false", "no", "off"}:
            wanted = False
        else:
            wanted = sys.stderr is not None and sys.stderr.isatty()
    return wanted and importlib.util.find_spec("tqdm") is not None
