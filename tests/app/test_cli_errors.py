"""The installed ``kmdr`` command (and the other console commands), run for real in a
subprocess: a mistake in its options is argparse's answer, as in any Hydra app, and output read
by a program that stops early ends it quietly, as a Unix filter."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the command runs in a subprocess

#: The console script the installed distribution puts beside this interpreter.
KMDR = Path(sys.executable).with_name("kmdr")


def _env() -> dict:
    env = dict(os.environ)
    env.pop("HYDRA_FULL_ERROR", None)
    return env


def _run(args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(KMDR), *args], cwd=cwd, capture_output=True, text=True, env=_env(), timeout=120
    )


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
    screen, then its error line, exit status 2 (the one test of the installed console script)."""
    proc = _run(args, tmp_path)
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
    proc = subprocess.run(
        [str(KMDR.with_name(command)), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == "" and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith(f"{command}: error: {expected}"), proc.stderr
    assert proc.stderr.rstrip().endswith(f"; see {command} --help"), proc.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [["-cjob"], ["--cf=job"], ["--multi", "--cfg", "job"]])
def test_what_argparse_accepts_is_hydras(args, tmp_path):
    """An attached value (``-cjob``), the start of a long option (``--cf``): argparse reads them
    for Hydra; ``--cfg`` with ``-m``, however spelt, is Hydra's refusal, as Hydra prints it."""
    if "--multi" in args:
        proc = _run(args, tmp_path)
        assert "Only one of --run, --multirun, --cfg, --info" in proc.stderr, proc.stderr
        return
    proc = _run([*args, "dataset=orl"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "name: orl" in proc.stdout or "dataset:" in proc.stdout


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


def test_kmdr_help_into_head_prints_no_error(tmp_path):
    """``kmdr --help | head -3``: whether head has gone before kmdr's last write (exit 141) or
    not (exit 0) is the pipe's timing, as for any filter; either way nothing on stderr."""
    shell = f"{KMDR} --help | head -3; exit ${{PIPESTATUS[0]}}"
    proc = subprocess.run(
        ["bash", "-c", shell], cwd=tmp_path, capture_output=True, text=True, env=_env()
    )
    assert proc.returncode in (0, 128 + signal.SIGPIPE) and proc.stderr == "", proc.stderr
    assert len(proc.stdout.splitlines()) == 3 and "k-means" in proc.stdout
