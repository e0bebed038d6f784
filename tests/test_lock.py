"""The lock file pins every package pyproject.toml asks for, at a version inside its range, so
`make reproduce` (which installs from it) installs what pyproject allows."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from _lock import pins

tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")

ROOT = Path(__file__).resolve().parents[1]
#: The extras the Makefile installs with the lock (ray floats: see requirements/lock.txt).
LOCKED_EXTRAS = ("dev", "dask", "joblib-launcher", "slurm", "optuna", "site", "docs")


def _pins() -> dict[str, Version]:
    return {name: Version(pinned) for name, pinned in pins().items()}


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = [Requirement(r) for r in project["dependencies"]]
    extras = project["optional-dependencies"]
    for extra in LOCKED_EXTRAS:
        reqs += [Requirement(r) for r in extras[extra]]
    return reqs


def test_the_makefile_installs_with_the_lock_and_the_extras_it_pins():
    makefile = (ROOT / "Makefile").read_text()
    assert "-c $(LOCK)" in makefile
    assert f"EXTRAS := {','.join(LOCKED_EXTRAS)}" in makefile


@pytest.mark.parametrize("req", _requirements(), ids=str)
def test_lock_pins_every_requirement_inside_its_range(req):
    pins = _pins()
    name = canonicalize_name(req.name)
    assert name in pins, f"{req.name} is required by pyproject.toml but not pinned: run make lock"
    assert req.specifier.contains(pins[name], prereleases=True), (
        f"{req.name}=={pins[name]} in the lock is outside pyproject's {req.specifier}: "
        "run make lock"
    )
