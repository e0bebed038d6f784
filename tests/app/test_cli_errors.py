"""The ``kmdr`` command (and the other console commands): a mistake in its options is argparse's
answer, as in any Hydra app, and output read by a program that stops early ends it quietly, as a
Unix filter. The installed console script runs in a process of its own where a pipe is the point;
the other cases run the commands' entry points in this process."""

from __future__ import annotations

import importlib.metadata
import io
import os
import signal
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from _command import exit_status, run_kmdr

#: The console script the installed distribution puts beside this interpreter.
KMDR = Path(sys.executable).with_name("kmdr")


def _env() -> dict:
    env = dict(os.environ)
    env.pop("HYDRA_FULL_ERROR", None)
    return env


def _command(command: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Console command ``command`` (an entry point of the installed distribution) run in this
    process on ``args``, in folder ``cwd``: its exit status and what it printed."""
    (entry,) = importlib.metadata.entry_points(group="console_scripts", name=command)
    out, err, saved, before = io.StringIO(), io.StringIO(), sys.argv, os.getcwd()
    sys.argv = [command, *args]
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = exit_status(entry.load())
    finally:
        sys.argv = saved
        os.chdir(before)
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(
            ["--bogus", "dataset=orl"],
            "unrecognized arguments: --bogus",
            id="unknown",
        ),
        pytest.param(["-x"], "unrecognized arguments: -x", id="unknown-short"),
        pytest.param(
            ["--cfg", "jobs"],
            "argument --cfg/-c: invalid choice: 'jobs' (choose from 'job', 'hydra', 'all')",
            id="choice",
        ),
        pytest.param(
            ["-cd"],
            "argument --config-dir/-cd: expected one argument",
            id="no-value",
        ),
        pytest.param(
            ["--config-", "x"],
            "ambiguous option: --config- could match --config-path, --config-name, --config-dir",
            id="ambiguous",
        ),
        pytest.param(
            ["--multirun=yes"],
            "argument --multirun/-m: ignored explicit argument 'yes'",
            id="flag-with-value",
        ),
    ],
)
def test_a_bad_option_is_argparses_answer(args, expected, tmp_path):
    """Hydra's own argparse answers a mistake in its options, as in any Hydra app: its usage
    screen, then its error line, exit status 2."""
    proc = run_kmdr(args, tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("usage: kmdr "), proc.stderr
    assert proc.stderr.rstrip().splitlines()[-1] == "kmdr: error: " + expected, proc.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("command", "args", "expected"),
    [
        ("kmdr-list", ["--bogus"], "unrecognized arguments: --bogus"),
        ("kmdr-list", ["models"], "unknown section(s) ['models']; choose from"),
        ("kmdr-data", ["--mirror"], "argument --mirror: expected one argument"),
        ("kmdr-figures", ["results", "--bogus"], "unrecognized arguments: --bogus"),
        # the experiments to draw are optional, and not named as required
        ("kmdr-figures", [], "the following arguments are required: results_dir; see"),
        ("kmdr-report", ["--bogus"], "unrecognized arguments: --bogus"),
        ("kmdr-compare", ["results"], "the following arguments are required"),
        ("kmdr-prune", ["results/x", "--run-id"], "argument --run-id: expected one argument"),
    ],
)
def test_the_other_commands_answer_a_bad_argument_in_one_line(command, args, expected, tmp_path):
    """Every console command's argument mistakes, its own checks of them included, are its one
    error line with the way to its help, as ``kmdr``'s are: no usage screen above it."""
    proc = _command(command, args, tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == "" and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith(f"{command}: error: {expected}"), proc.stderr
    assert proc.stderr.rstrip().endswith(f"; see {command} --help"), proc.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [["-cjob"], ["--cf=job"], ["--multi", "--cfg", "job"]])
def test_what_argparse_accepts_is_hydras(args, tmp_path, monkeypatch):
    """An attached value (``-cjob``), the start of a long option (``--cf``): argparse reads them
    for Hydra; ``--cfg`` with ``-m``, however spelt, is Hydra's refusal, as Hydra prints it."""
    if "--multi" in args:  # Hydra raises it out of its main, as Python then prints it
        from _command import kmdr

        monkeypatch.chdir(tmp_path)
        with pytest.raises(Exception, match="Only one of --run, --multirun, --cfg, --info"):
            kmdr(args)
        return
    proc = run_kmdr([*args, "dataset=orl"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "name: orl" in proc.stdout or "dataset:" in proc.stdout


@pytest.mark.slow  # a closed pipe: the point is the process
@pytest.mark.parametrize("args", [["--help"], ["--version"]])
def test_a_reader_that_stops_early_ends_it_quietly(args, tmp_path):
    proc = subprocess.Popen(
        [str(KMDR), *args],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    proc.stdout.close()  # gone before the command writes anything (it starts in > 0.1 s)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 128 + signal.SIGPIPE, err
    assert err == ""


@pytest.mark.slow
def test_kmdr_help_into_head_prints_no_error(tmp_path):
    """``kmdr --help | head -3``: whether head has gone before kmdr's last write (exit 141) or
    not (exit 0) is the pipe's timing, as for any filter; either way nothing on stderr."""
    shell = f"{KMDR} --help | head -3; exit ${{PIPESTATUS[0]}}"
    proc = subprocess.run(
        ["bash", "-c", shell], cwd=tmp_path, capture_output=True, text=True, env=_env()
    )
    assert proc.returncode in (0, 128 + signal.SIGPIPE) and proc.stderr == "", proc.stderr
    assert len(proc.stdout.splitlines()) == 3 and "k-means" in proc.stdout
