"""What git ignores under results/: the ad-hoc runs' folder and the caches, never a preset's
results or a committed file."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from kmdr.app.compose import composed_presets
from kmdr.config.schema import RunConfig

pytestmark = pytest.mark.slow  # asks git (a subprocess) and composes every preset

ROOT = Path(__file__).resolve().parents[2]


def _ignored(paths: list[str]) -> set[str]:
    """Which of ``paths`` (relative to the checkout) .gitignore's patterns match, tracked or not."""
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        input="\n".join(paths),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode in (0, 1), done.stderr
    return set(done.stdout.split())


@pytest.fixture(scope="module")
def checkout():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    return ROOT


def test_ad_hoc_runs_are_ignored_and_presets_are_not(checkout):
    adhoc = Path(RunConfig().results_dir) / RunConfig().name  # where `kmdr reducer=...` writes
    files = [f"{adhoc}/cells.csv", f"{adhoc}/summary.csv", f"{adhoc}/runs/r.json"]
    assert _ignored(files) == set(files)
    presets = [f"{cfg.results_dir}/{cfg.name}" for _, cfg in composed_presets()]
    assert str(adhoc) not in presets
    kept = [f"{folder}/{leaf}" for folder in presets for leaf in ("cells.csv", "summary.csv")]
    assert not _ignored(kept)


def test_no_committed_result_is_ignored(checkout):
    tracked = subprocess.run(
        ["git", "ls-files", "results"], cwd=checkout, capture_output=True, text=True, timeout=60
    ).stdout.split()
    assert len(tracked) > 10
    assert not _ignored(tracked)
