"""The versions ``requirements/lock.txt`` pins, against those installed here.

The committed cells, figures and report were made with the lock's libraries. A test that expects
to compute them again to the last bit or byte holds only with those versions: at the floors of
pyproject.toml (``make test-floors``), numpy, scipy and scikit-learn may take other paths to the
same results, and plotly writes other bytes. Such a test is marked :func:`at_the_lock`, so that
elsewhere it is skipped with the versions that differ instead of failing on them.
"""

from __future__ import annotations

import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

LOCK = Path(__file__).resolve().parents[1] / "requirements" / "lock.txt"


def pins() -> dict[str, str]:
    """Each package the lock pins and its version (names in canonical form); every line that is
    not a comment must be an exact pin."""
    found = {}
    for line in LOCK.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.\-\[\]]+)==([^\s;]+)", line)
        assert match, f"lock line is not an exact pin: {line!r}"
        found[canonicalize_name(match.group(1).split("[")[0])] = match.group(2)
    return found


def off_lock(*packages: str) -> list[str]:
    """``name installed (lock: pinned)`` for each of ``packages`` whose installed version is not
    the lock's."""
    locked, differ = pins(), []
    for name in packages:
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = "not installed"
        pinned = locked[canonicalize_name(name)]
        if installed != pinned:
            differ.append(f"{name} {installed} (lock: {pinned})")
    return differ


def at_the_lock(*packages: str):
    """Skip the test unless ``packages`` are installed at the lock's versions."""
    differ = off_lock(*packages)
    return pytest.mark.skipif(
        bool(differ),
        reason="the committed results were made with requirements/lock.txt's versions; here "
        + ", ".join(differ),
    )
