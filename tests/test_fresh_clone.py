"""A newcomer's first two hours on a fresh clone leave it as cloned: the README's commands in
the order it gives them, then ``make reproduce``'s steps, and ``git status --porcelain`` is
empty. The clone's own ``src/`` is what runs (first on ``PYTHONPATH``), in its own folder, as a
newcomer's ``.venv`` would run it."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from _lock import at_the_lock

# Minutes: the clone runs every step of make reproduce over the committed results, the
# recomputation of every oblivious-map cell's C for the distortion among them (past the suite's
# 600 s per test on a loaded machine).
pytestmark = [pytest.mark.slow, pytest.mark.longhaul, pytest.mark.timeout(1800)]

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def readme_commands() -> list[list[str]]:
    """The commands of the README's "Running experiments" block, in order, comments left out."""
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## Running experiments\n", 1)[1].split("\n## ", 1)[0]
    block = re.findall(r"```bash\n(.*?)```", section, re.S)[0]
    commands = []
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        if words:
            commands.append(words)
    return commands


def reproduce_steps(target: str = "reproduce") -> list[list[str]]:
    """``make TARGET``'s recipe (reproduce's after its install and data steps) with this
    environment's Python and commands, a ``$(MAKE) OTHER`` line replaced by OTHER's own steps;
    the Makefile's lines are read, so the test follows them."""
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split(f"\n{target}: ", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    steps = []
    for line in recipe:
        line = line.strip()
        line = _without_if(line)  # RESULTS is results: no comparison folder
        line = line.replace("$(RESULTS)", "results").replace("$(CELL_TIME_LIMIT)", "3600")
        line = line.replace("$(PY)", sys.executable).replace("$(VENV)/bin/", f"{BIN}/")
        if line.startswith("$(MAKE) "):
            steps += reproduce_steps(line.split()[1])
            continue
        words = shlex.split(line)
        assert "$(" not in " ".join(words), f"a Makefile variable the test does not know: {line}"
        steps.append(words)
    return steps


def _without_if(line: str) -> str:
    """``line`` without its ``$(if ...)`` (make's conditional, parentheses balanced)."""
    start = line.find("$(if ")
    if start < 0:
        return line
    depth, end = 0, start + 1
    for end in range(start + 1, len(line)):
        depth += {"(": 1, ")": -1}.get(line[end], 0)
        if depth == 0:
            break
    return line[:start] + line[end + 1 :]


# what make reproduce rewrites (cells, theory tables, figures, the report's pages) is byte-identical
# only with the versions that wrote the committed files
@at_the_lock("numpy", "scipy", "scikit-learn", "pandas", "matplotlib", "plotly")
def test_the_readme_then_reproduce_leave_a_fresh_clone_clean(tmp_path):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    if not os.environ.get("KMDR_DATA_MIRROR"):
        pytest.skip("KMDR_DATA_MIRROR is not set: the README's datasets cannot be obtained")
    clone = tmp_path / "kmdr"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    # the clone's own code and configs (an editable install of this checkout would map
    # kmdr.conf to this checkout's conf/)
    env = {**os.environ, "PYTHONPATH": str(clone / "src"), "OMP_NUM_THREADS": "1"}
    env["KMDR_CONF_DIR"] = str(clone / "conf")
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"

    def run(words: list[str]) -> str:
        done = subprocess.run(words, cwd=clone, env=env, capture_output=True, text=True)
        assert done.returncode == 0, f"{shlex.join(words)}:\n{done.stderr[-3000:]}"
        return done.stdout + done.stderr

    said = [run(words) for words in readme_commands()]
    assert any("my_results/custom" in out for out in said)  # the README's own runs went there
    for words in reproduce_steps():
        run(words)
    status = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True,
                            text=True, check=True).stdout  # fmt: skip
    assert status == "", status
