"""The git revision of the code a run or a report comes from (provenance for results/)."""

from __future__ import annotations

import subprocess
from pathlib import Path

#: What decides a run's numbers, relative to the repository root: "dirty" means uncommitted
#: changes here. Results folders are outputs (a reproduction rewrites the committed ones), so
#: their changes do not count.
CODE_PATHS = ("src", "conf", "scripts", "pyproject.toml")


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=True
    ).stdout.strip()


def code_revision() -> dict:
    """``{"revision": full hash, "dirty": bool}`` of this package's checkout (None when not one)."""
    here = Path(__file__).resolve().parent
    try:
        top, rev = _git("rev-parse", "--show-toplevel", "HEAD", cwd=here).splitlines()
        top = Path(top)
        dirty = _git("status", "--porcelain", "--untracked-files=no", "--", *CODE_PATHS, cwd=top)
        return {"revision": rev, "dirty": bool(dirty)}
    except (OSError, subprocess.SubprocessError):
        return {"revision": None, "dirty": None}
