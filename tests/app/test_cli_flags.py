"""What ``kmdr`` does with its command line before Hydra runs a job: ``--version``,
``python -m kmdr``, ``--cfg`` (and ``--resolve``), ``--cfg`` with ``-m``, a dry run with ``-m``;
and what a run writes to a log that is not a terminal (no progress bar) at each ``verbosity``."""

from __future__ import annotations

import importlib.metadata
import logging
import os
import subprocess
import sys
import tempfile
import warnings

import pytest
from hydra.errors import ConfigCompositionException
from test_cli import TINY, run_kmdr

import kmdr
from _overrides import overridden
from kmdr import _log

#: A run whose progress bar would be drawn: TINY without ``progress=false``.
DRAWN = [a for a in TINY if not a.startswith("progress=")]


def _version() -> str:
    return f"kmdr {importlib.metadata.version('kmdr')}\n"


def test_version_is_kmdrs(tmp_path):
    proc = run_kmdr(["--version"], tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, _version(), "")


@pytest.mark.slow
def test_python_m_kmdr_is_kmdr(tmp_path):
    """``python -m kmdr`` is the command, in a process of its own (the point: its ``__main__``)."""
    args = [*TINY, f"results_dir={tmp_path / 'r'}"]
    proc = subprocess.run(
        [sys.executable, "-m", "kmdr", *args], cwd=tmp_path, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "r" / "custom" / "cells.csv").is_file()
    # what it prints about itself is its main's (the function run here)
    version = run_kmdr(["--version"], tmp_path)
    assert (version.returncode, version.stdout, version.stderr) == (0, _version(), "")
    bad = run_kmdr(["repaets=3"], tmp_path)
    assert bad.returncode == 1 and "Could not override 'repaets'" in bad.stderr


@pytest.mark.parametrize("what", ["job", "all"])
def test_cfg_prints_the_config_and_resolve_resolves_it(what, tmp_path, monkeypatch):
    """``--cfg`` is Hydra's: the config as composed; Hydra's ``--resolve`` gives the values."""
    monkeypatch.setenv("KMDR_DATA_DIR", str(tmp_path / "data"))

    def printed(*flags: str) -> str:
        proc = run_kmdr(["--cfg", what, *flags, "experiment=bzmd14_orl"], tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert "title: 'bzmd14 Figure 3 (b, d, f): ORL'" in proc.stdout
        return proc.stdout

    assert "data_dir: ${oc.env:KMDR_DATA_DIR,null}" in printed()
    resolved = printed("--resolve")
    assert "${" not in resolved and f"data_dir: {tmp_path / 'data'}" in resolved
    assert list(tmp_path.iterdir()) == []


def test_a_dry_run_multirun_writes_no_folder(tmp_path, monkeypatch):
    temp = tmp_path / "temp"
    temp.mkdir()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    args = ["-m", *overridden(TINY, "r_grid=[2],[4]"), "dry_run=true"]
    proc = run_kmdr([*args, f"results_dir={tmp_path / 'r'}"], cwd)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("dry run of custom") == 2  # both jobs planned
    assert list(cwd.iterdir()) == [] and list(temp.iterdir()) == []
    assert not (tmp_path / "r").exists()


def _run_to_file(tmp_path, *args, base=DRAWN) -> bytes:
    """Run kmdr with stderr (and stdout) written to no terminal, as a batch job's log is."""
    proc = run_kmdr([*base, f"results_dir={tmp_path / 'r'}", *args], tmp_path)
    data = (proc.stdout + proc.stderr).encode()
    assert proc.returncode == 0, data.decode()
    return data


def test_a_log_file_gets_no_progress_bar(tmp_path):
    data = _run_to_file(tmp_path)
    assert b"\r" not in data
    assert b"[kmdr] custom: 4 cells (4 computed, 0 reused)" in data
    # progress=true draws it anyway: the check above would see a bar
    forced = _run_to_file(tmp_path, "progress=true", "name=forced")
    assert b"\r" in forced


@pytest.mark.slow
def test_a_logged_run_writes_a_start_line_and_progress_lines(tmp_path):
    # The plug-in reducer holds its r=4 cell until the test releases it: progress lines must
    # come while no cell finishes (the session's thread writes them), then the run ends.
    from _procs import kmdr, make_plugin, plugin_env, wait_for

    root = make_plugin(tmp_path / "plugin")
    release = tmp_path / "release"
    args = [
        *overridden(DRAWN, "reducer=misbehave"),
        f"results_dir={tmp_path / 'r'}",
        "progress_every=0.3",
        "name=logged",
    ]
    proc = kmdr(*args, env={**os.environ, **plugin_env(root, "hold:4", release)}, cwd=tmp_path)
    try:
        wait_for(lambda: proc.stderr.count("cells done") >= 3, "three progress lines", proc)
        release.touch()
        assert proc.wait() == 0, proc.stderr
    finally:
        proc.kill()
    lines = proc.stderr.splitlines()
    start = [line for line in lines if "logged: cells: start" in line]
    assert len(start) == 1, proc.stderr
    assert "4 of 4 cells to compute (0 reused)" in start[0] and "at r = 2, 4" in start[0]
    assert f"-> {tmp_path / 'r' / 'logged'}" in start[0]
    progress = [line for line in lines if "cells done" in line]
    done = [int(line.split(": cells: ")[1].split("/")[0]) for line in progress]
    assert len(done) >= 3 and done == sorted(done), proc.stderr
    assert all("/4 cells done" in line and "elapsed" in line for line in progress)
    assert lines.index(start[0]) < lines.index(progress[0])
    assert lines[-1].startswith("[kmdr] logged: 4 cells (4 computed, 0 reused)"), proc.stderr
    assert "\r" not in proc.stderr


def test_progress_false_writes_no_start_or_progress_line(tmp_path):
    data = _run_to_file(tmp_path, "progress=false", "name=unlogged").decode()
    assert "start," not in data and "cells done" not in data
    assert "[kmdr] unlogged: 4 cells (4 computed, 0 reused)" in data


def test_a_quiet_run_says_nothing_but_keeps_its_results(tmp_path):
    data = _run_to_file(tmp_path, "verbosity=quiet")
    assert data == b""
    assert (tmp_path / "r" / "custom" / "cells.csv").is_file()


def test_a_bad_verbosity_is_hydras_error(tmp_path):
    with pytest.raises(ConfigCompositionException, match="Error merging override verbosity=loud"):
        kmdr.compose("dataset=synth", "verbosity=loud")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("verbosity", "shown"), [("quiet", False), ("normal", False), ("verbose", True)]
)
def test_library_warnings_a_user_need_not_see_are_hidden_unless_verbose(verbosity, shown):
    category, message, _ = _log.HIDDEN[0]
    text = message.replace("\\", "")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with _log.logging_for(verbosity):
            warnings.warn_explicit(text, category, "x.py", 1, module="joblib.externals.loky")
            warnings.warn("a warning kmdr does not know", UserWarning, stacklevel=1)
            assert _log.quiet() is (verbosity == "quiet")
            assert _log.verbose() is (verbosity == "verbose")
    assert [str(w.message) for w in seen] == [text] * shown + ["a warning kmdr does not know"]
    assert logging.getLogger(_log.LOGGER).level == logging.NOTSET  # restored after the run
