"""Where the data files are cached: the checkout's datasets/ for kmdr run from a clone, the user's
cache folder for an installed kmdr (wherever it is run from); KMDR_DATA_DIR moves either."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kmdr.datasets import resolve_data_dir

ROOT = Path(__file__).resolve().parents[2]
SHOW = (
    "import json, kmdr, pooch; from kmdr.datasets import resolve_data_dir; "
    "print(json.dumps([kmdr.__file__, str(resolve_data_dir()), str(pooch.os_cache('kmdr'))]))"
)


def test_a_checkout_caches_in_its_datasets_folder(monkeypatch):
    monkeypatch.delenv("KMDR_DATA_DIR", raising=False)
    assert resolve_data_dir() == ROOT / "datasets"
    monkeypatch.setenv("KMDR_DATA_DIR", "/somewhere/else")
    assert resolve_data_dir() == Path("/somewhere/else")
    assert resolve_data_dir("mine") == Path("mine")


@pytest.mark.slow  # starts Python on an installed copy of the package
def test_an_installed_kmdr_caches_in_the_user_cache_folder(tmp_path):
    # The package alone in a folder on the path, as a non-editable install leaves it, run from
    # another folder that has a datasets/ of its own (which must not be used).
    site = tmp_path / "site-packages"
    shutil.copytree(ROOT / "src" / "kmdr", site / "kmdr", ignore=shutil.ignore_patterns("*.pyc"))
    elsewhere = tmp_path / "project"
    (elsewhere / "datasets").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k != "KMDR_DATA_DIR"}
    env.update(PYTHONPATH=str(site), XDG_CACHE_HOME=str(tmp_path / "cache"))

    def where(**extra) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", SHOW],
            cwd=elsewhere,
            env={**env, **extra},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    package, data_dir, os_cache = where()
    assert Path(package).is_relative_to(site)  # the installed copy, not the checkout
    assert data_dir == os_cache
    if sys.platform.startswith("linux"):
        assert Path(data_dir) == tmp_path / "cache" / "kmdr"
    assert not Path(data_dir).is_relative_to(elsewhere)
    assert where(KMDR_DATA_DIR=str(tmp_path / "mine"))[1] == str(tmp_path / "mine")
