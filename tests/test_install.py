"""kmdr built as a wheel and installed (not editable) runs from an empty folder, with its Hydra
configs found inside the installed package ``kmdr.conf``.

The wheel is built from a copy of the sources in a temporary folder (``pip wheel --no-deps``) and
installed with ``pip install --target``; the dependencies come from the running environment.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest

# Every test here builds a wheel and installs it with pip, then runs the installed kmdr.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
BUILD_FILES = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "src", "conf")


def _pip(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
    )


def _build_isolation_flag() -> list[str]:
    """Build with this environment's setuptools when it meets pyproject's build requirement
    (no download); otherwise let pip fetch it into an isolated build environment."""
    return ["--no-build-isolation"] if _setuptools_meets_the_build_requirement() else []


def _setuptools_meets_the_build_requirement() -> bool:
    try:
        import setuptools
        from packaging.version import Version
    except ImportError:
        return False
    return Version(setuptools.__version__) >= Version("77")


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A copy of what a build reads (an sdist's files), so that a build writes nothing into the
    checkout."""
    source = tmp_path_factory.mktemp("wheel") / "source"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    for name in BUILD_FILES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, source / name, ignore=ignore)
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(src, source / name)
    return source


@pytest.fixture(scope="module")
def built(source) -> tuple[Path, str]:
    """The wheel pip builds from the sources (``pip wheel``, as ``pip install .`` does), and
    what pip printed while building it."""
    out = source.parent / "dist"
    proc = _pip("wheel", "--no-deps", *_build_isolation_flag(), "-w", str(out), str(source))
    if proc.returncode != 0 and "Could not find a version that satisfies" in proc.stderr:
        pytest.skip(f"cannot fetch the build backend: {proc.stderr.strip().splitlines()[-1]}")
    assert proc.returncode == 0, proc.stderr
    (whl,) = out.glob("kmdr-*.whl")
    return whl, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def wheel(built) -> Path:
    return built[0]


#: What a setuptools warning prints, whichever way it reaches the terminal: its class
#: (``BuildBackendWarning``, ``SetuptoolsDeprecationWarning``, ``InformationOnly``, pip's
#: relay of them) and the banner of ``!!`` lines around its text. pip's own notices are
#: ``WARNING:`` lines (the index locations of this machine's pip config), not the build's.
SETUPTOOLS_WARNING = re.compile(r"[A-Za-z_]*Warning\b|InformationOnly|^\s*!!\s*$", re.MULTILINE)


@pytest.mark.parametrize("hook", ["build_wheel", "build_editable"])
def test_the_build_prints_no_setuptools_warning(source, hook, tmp_path):
    """``pip install .`` builds a wheel and ``make install`` an editable one, each with
    setuptools' backend: neither prints a warning (the config folders are package data, not
    packages found without being listed). The backend is called as pip calls it, in a process
    of its own, on a copy of the sources with nothing built yet."""
    if not _setuptools_meets_the_build_requirement():
        pytest.skip("the build backend pyproject.toml requires is not installed here")
    fresh = tmp_path / "source"
    shutil.copytree(source, fresh, ignore=shutil.ignore_patterns("*.egg-info", "build"))
    proc = subprocess.run(
        [sys.executable, "-c", f"import sys, setuptools.build_meta as b; b.{hook}(sys.argv[1])",
         str(tmp_path / "dist")],
        capture_output=True, text=True, cwd=fresh, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert [*(tmp_path / "dist").glob("kmdr-*.whl")]
    said = SETUPTOOLS_WARNING.findall(proc.stdout + proc.stderr)
    assert not said, proc.stderr


def test_pip_relays_no_build_warning(built):
    """pip, which relays the backend's warnings (``BuildBackendWarning: ...``), has none to
    relay while it builds the wheel."""
    _, printed = built
    assert not SETUPTOOLS_WARNING.findall(printed), printed


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("target")
    proc = _pip("install", "--no-deps", "--no-compile", "--target", str(target), str(wheel))
    assert proc.returncode == 0, proc.stderr
    return target


def _env(target: Path, tmp: Path) -> dict:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "KMDR_CONF_DIR", "HYDRA_FULL_ERROR")
    }
    env["PYTHONPATH"] = str(target)  # the installed copy only, not the checkout's src/
    env["KMDR_DATA_DIR"] = str(tmp / "data")
    env["OMP_NUM_THREADS"] = "1"
    return env


def test_wheel_holds_every_package_and_the_configs(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    # Every package under src/ is in the wheel (found, not listed: a new paper's package too).
    for init in (ROOT / "src").rglob("__init__.py"):
        assert init.relative_to(ROOT / "src").as_posix() in names
    papers = {p.parent.name for p in (ROOT / "src" / "kmdr" / "papers").glob("*/__init__.py")}
    assert {"bmd09", "bzmd14", "lst17"} <= papers
    for paper in papers:  # each with every module of its own
        for module in (ROOT / "src" / "kmdr" / "papers" / paper).glob("*.py"):
            assert f"kmdr/papers/{paper}/{module.name}" in names
    # and registered: the installed metadata names each paper's one declaration
    (entry_points,) = (n for n in names if n.endswith(".dist-info/entry_points.txt"))
    declared = zipfile.ZipFile(wheel).read(entry_points).decode().split("[kmdr.papers]", 1)[1]
    for paper in papers:
        assert f"kmdr.papers.{paper}:PAPER" in declared
    for yaml in (ROOT / "conf").rglob("*.yaml"):
        assert f"kmdr/conf/{yaml.relative_to(ROOT / 'conf').as_posix()}" in names
    # a paper's own presets and dataset options, in its package
    own = [*(ROOT / "src" / "kmdr" / "papers").glob("*/conf/*/*.yaml")]
    assert any(yaml.name == "pb17_digits.yaml" for yaml in own)
    for yaml in own:
        assert yaml.relative_to(ROOT / "src").as_posix() in names
    assert "kmdr/conf/__init__.py" in names and "kmdr/datasets/registry.txt" in names


def test_installed_kmdr_runs_a_preset_from_an_empty_folder(installed, tmp_path):
    env = _env(installed, tmp_path)
    where = subprocess.run(
        [sys.executable, "-c", "import kmdr.conf; print(kmdr.conf.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert Path(where.stdout.strip()).parent == installed / "kmdr" / "conf"

    empty = tmp_path / "empty"
    empty.mkdir()
    results = tmp_path / "results"
    proc = subprocess.run(
        [
            str(installed / "bin" / "kmdr"),
            "experiment=bzmd14_orl",
            "r_grid=[10]",
            "repeats=1",
            "kmeans.n_init=1",
            f"results_dir={results}",
            "n_jobs=1",
            "figures=false",
            "progress=false",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=empty,
        timeout=600,
    )
    if proc.returncode == 1 and "skipped" in proc.stderr:  # no ORL file and no network
        pytest.skip(proc.stderr.strip())
    assert proc.returncode == 0, proc.stderr
    cells = pd.read_csv(results / "bzmd14_orl" / "cells.csv")
    # the 7 methods of the preset at r = 10 (kMeans at r = d) and ridge leverage (not in the paper)
    assert len(cells) == 8 and set(cells.loc[cells.reducer != "none", "r"]) == {10}
    assert list(empty.iterdir()) == []


def test_installed_kmdr_shell_completion_and_search_path(installed, tmp_path):
    env = _env(installed, tmp_path)
    kmdr = str(installed / "bin" / "kmdr")
    proc = subprocess.run(
        [kmdr, "-sc", "install=bash"], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert "hydra_bash_completion" in proc.stdout and "complete " in proc.stdout
    proc = subprocess.run(
        [kmdr, "--info", "searchpath"], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert proc.returncode == 0 and "pkg://kmdr.conf" in proc.stdout
    assert "pkg://kmdr.papers.pb17.conf" in proc.stdout  # a paper's own configs, found installed


def test_wheel_ships_the_license_and_the_typing_marker(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    # PEP 639: the licence text named by license-files sits in the dist-info's licenses/ folder.
    licenses = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    assert licenses, sorted(n for n in names if ".dist-info/" in n)
    text = zipfile.ZipFile(wheel).read(licenses[0]).decode()
    assert "BSD 3-Clause License" in text
    # PEP 561: type checkers read kmdr's annotations only when the marker is installed.
    assert "kmdr/py.typed" in names
