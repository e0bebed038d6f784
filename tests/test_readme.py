"""Every command in the documentation's fenced ``bash`` blocks works as written.

The commands are read from the README and the user guide's Markdown pages themselves (any page or
section, so one added later is covered without touching this file); a trailing ``\\`` continues
a line, ``#`` starts a comment. What is done with each command, by its first word:

- ``kmdr`` and ``python -m kmdr`` (any path to them, e.g. ``.venv/bin/kmdr``):
    * run verbatim in this process through the function the ``kmdr`` script and ``python -m
      kmdr`` call (``kmdr.app.main``, with ``sys.argv`` the command line) when it only asks the
      command about itself (``--help``/``-h``/``--version``, ``-sc ...``), prints a config
      (``--cfg ...``) or is already a dry run (``dry_run=true``): the ``kmdr`` console script
      starts as a user's does in ``tests/app/test_cli_errors.py`` (``kmdr --help`` and
      ``kmdr --version`` read by a program that stops early), ``python -m kmdr`` in
      ``tests/app/test_cli_flags.py``;
    * composed only, through Hydra's compose API against kmdr's configs (every key, group and
      value checked, the schema's types too; a sweep's first value stands for the sweep), when the
      command needs what a test machine has not: an external launcher or sweeper
      (``hydra/launcher=``, ``hydra/sweeper=``), a running cluster (``dask.scheduler=``,
      ``ray.address=``) or Ray (``backend=ray``);
    * otherwise run in this process as a dry run (``dry_run=true`` appended): Hydra composes
      every job, kmdr validates it and plans its cells, nothing is computed.
- ``kmdr-*`` tools: run verbatim when they only read (``kmdr-list``, ``--help``); otherwise their
  ``--help`` is run (the tool exists and starts). A tool's first command in the documents runs as
  a process (its console script starts as a user's does, once), unless a test of a closed pipe
  starts that script (:data:`_PIPED`); its others run in this process, through the function the
  console script calls (its entry point).
- ``make TARGET ...``: ``make -n`` (the target exists and its recipe expands), never run.
- ``python scripts/X.py ...`` (any interpreter path): the script exists and ``--help`` exits 0.
- anything else (``pip``, ``cd``, ``git``, ...) is not a kmdr command and is left alone.

A command the documents show more than once is checked once. Runs happen in a fresh folder (so no
results or multirun folders land in the checkout), with the data mirror of the test environment
(``KMDR_DATA_MIRROR``).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import _command

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
README = ROOT / "README.md"
#: The Markdown the commands are read from: the README and the docs site's pages (not its build).
DOCUMENTS = (
    README,
    *sorted(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts),
)
_BLOCK = re.compile(r"^```(?:bash|sh|shell)\n(.*?)^```", re.M | re.S)
#: Keys and groups that need something a test machine does not have: composed, never run.
_EXTERNAL = ("hydra/launcher=", "hydra/sweeper=", "dask.scheduler=", "ray.address=", "backend=ray")
#: Flags that ask the command about itself: nothing runs, so the command runs in this process.
_ABOUT_FLAGS = ("--help", "-h", "--version", "-sc", "--shell-completion")
#: Flags that print the composed config: nothing runs, so the command runs in this process.
_PRINT_FLAGS = ("--cfg", "-c")
#: The console scripts whose start a test of a closed pipe checks in a process (the scripts run
#: there as the documents show them: ``kmdr --help``, ``kmdr-list``).
_PIPED = ("kmdr", "kmdr-list")
#: kmdr-* tools whose plain run only reads.
_READ_ONLY_TOOLS = ("kmdr-list",)


def readme_commands(text: str) -> list[list[str]]:
    """The commands of ``text``'s fenced bash blocks, each as its words (comments dropped)."""
    commands = []
    for block in _BLOCK.findall(text):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words:
                commands.append(words)
    return commands


def _program(words: list[str]) -> tuple[str, list[str]] | None:
    """(``kmdr`` | ``kmdr-<tool>`` | ``make`` | ``script``, arguments) or None."""
    first = Path(words[0]).name
    if first.startswith("python") and words[1:3] == ["-m", "kmdr"]:
        return "python -m kmdr", words[3:]
    if first.startswith("python") and len(words) > 1 and words[1].endswith(".py"):
        return "script", words[1:]
    if first == "kmdr" or first.startswith("kmdr-") or first == "make":
        return first, words[1:]
    return None


def kmdr_commands() -> list[tuple[str, list[str]]]:
    """The documents' kmdr, kmdr-*, make and script commands, each once, in reading order."""
    found = [
        _program(words)
        for document in DOCUMENTS
        for words in readme_commands(document.read_text(encoding="utf-8"))
    ]
    once = dict.fromkeys((tool, tuple(args)) for tool, args in filter(None, found))
    return [(tool, list(args)) for tool, args in once]


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )


def _compose(args: list[str]) -> None:
    """Compose the command's config with Hydra's compose API, a sweep's first value standing for
    the sweep (a multirun's jobs share every key but the swept ones)."""
    from hydra import compose
    from hydra.core.override_parser.overrides_parser import OverridesParser

    from kmdr.app.compose import initialized

    overrides = [a for a in args if a not in ("-m", "--multirun")]
    single = []
    for override in OverridesParser.create().parse_overrides(overrides):
        if override.is_sweep_override():
            sweep = override.value()
            if hasattr(sweep, "start") and hasattr(sweep, "end"):  # interval(...): a number in it
                first = str(sweep.start)
            else:
                first = next(iter(override.sweep_string_iterator()))
            prefix = {"ADD": "+", "FORCE_ADD": "++", "DELETE": "~"}.get(override.type.name, "")
            single.append(f"{prefix}{override.key_or_group}={first}")
        else:
            single.append(override.input_line)
    with initialized():  # kmdr's configs with its schema registered, as the command sees them
        compose("config", overrides=single, return_hydra_config=True)


def _in_process(args: list[str], cwd: Path, monkeypatch, capfd) -> tuple[int, str]:
    """``kmdr args`` run here from ``cwd``, as the console script runs it: its exit status and
    what it wrote on stderr."""
    monkeypatch.chdir(cwd)
    return _command.exit_status(_command.kmdr, args), capfd.readouterr().err


def _started() -> list[tuple[str, list[str]]]:
    """The commands run as processes: each ``kmdr-*`` tool's first in the documents, but for the
    console scripts a closed-pipe test starts."""
    first = {}
    for tool, args in kmdr_commands():
        if tool.startswith("kmdr-") and tool not in _PIPED:
            first.setdefault(tool, (tool, args))
    return list(first.values())


def _tool_in_process(tool: str, args: list[str], cwd: Path, monkeypatch, capfd) -> tuple[int, str]:
    """Console command ``tool`` run here on ``args`` from ``cwd``, through its entry point (the
    function its script calls, with ``sys.argv`` the command line): its exit status and stderr."""
    import importlib.metadata

    (entry,) = importlib.metadata.entry_points(group="console_scripts", name=tool)
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "argv", [tool, *args])
    return _command.exit_status(entry.load()), capfd.readouterr().err


def _ids() -> list[str]:
    return [f"{tool} {' '.join(args)}"[:80] for tool, args in kmdr_commands()]


def test_the_readme_has_commands_to_check():
    tools = {tool for tool, _ in kmdr_commands()}
    assert {"kmdr", "make"} <= tools
    # the rule reads commands as a user types them
    assert _program(["kmdr", "--help"]) == ("kmdr", ["--help"])
    assert _program([".venv/bin/python", "-m", "kmdr", "--version"])[0] == "python -m kmdr"
    assert _program([".venv/bin/python", "scripts/x.py", "a"]) == ("script", ["scripts/x.py", "a"])
    assert _program(["pip", "install", "kmdr"]) is None
    text = "```bash\nkmdr a=1 \\\n   b=2   # a comment\n```\n```python\nkmdr = 1\n```\n"
    assert readme_commands(text) == [["kmdr", "a=1", "b=2"]]


@pytest.mark.slow
@pytest.mark.parametrize(("tool", "args"), kmdr_commands(), ids=_ids())
def test_a_readme_command_works_as_written(tool, args, tmp_path, monkeypatch, capfd):
    if tool == "make":
        proc = _run(["make", "-n", "-C", str(ROOT), *args], tmp_path)
    elif tool == "script":
        script = ROOT / args[0]
        assert script.is_file(), f"{args[0]} does not exist"
        proc = _run([sys.executable, str(script), "--help"], tmp_path)
    elif tool not in ("kmdr", "python -m kmdr") and (tool, args) in _started():
        read_only = tool in _READ_ONLY_TOOLS or any(a in ("--help", "-h") for a in args)
        proc = _run([str(BIN / tool), *(args if read_only else ["--help"])], tmp_path)
    elif tool not in ("kmdr", "python -m kmdr"):
        read_only = tool in _READ_ONLY_TOOLS or any(a in ("--help", "-h") for a in args)
        status, err = _tool_in_process(tool, args if read_only else ["--help"], tmp_path,
                                       monkeypatch, capfd)  # fmt: skip
        assert status == 0, f"{tool} {' '.join(args)}:\n{err}"
        assert "Traceback" not in err, err
        return
    elif any(a.startswith(_EXTERNAL) for a in args):
        _compose(args)
        return
    else:
        asks = any(a.split("=", 1)[0] in (*_PRINT_FLAGS, *_ABOUT_FLAGS) for a in args)
        printed = asks or "dry_run=true" in args
        status, err = _in_process(args if printed else [*args, "dry_run=true"], tmp_path,
                                  monkeypatch, capfd)  # fmt: skip
        assert status == 0, f"{tool} {' '.join(args)}:\n{err}"
        assert "Traceback" not in err, err
        return
    assert proc.returncode == 0, f"{tool} {' '.join(args)}:\n{proc.stdout[-2000:]}{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr


def test_the_readme_python_example_is_the_gallery_s_first():
    # The gallery runs it at build time (examples/plot_python_api.py): the README shows the
    # same lines, so what it shows is what ran.
    section = README.read_text().split("\n## Python API\n", 1)[1].split("\n## ", 1)[0]
    code = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    example = (ROOT / "examples" / "plot_python_api.py").read_text()
    assert code.startswith("import kmdr\n")
    assert code.removeprefix("import kmdr\n").strip() in example
