"""The results disk fails under a running ``kmdr``: it fills up (ENOSPC) or turns read-only
mid-run. A real filesystem (a small tmpfs, mounted by the test: root only, skipped otherwise) and
a real run that holds its last cell until the disk has failed."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from _cases import case
from _procs import cell_files, kmdr, make_plugin, one_line, plugin_env, wait_for

# Every test here runs kmdr as a process on a small disk it mounts, fills or makes read-only.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return make_plugin(tmp_path_factory.mktemp("plugin"))


@pytest.fixture
def disk(tmp_path):
    """A 4 MB tmpfs mounted on the cell files' folder of the run (skipped where the test cannot
    mount one); nothing there stays open, so it can be remounted read-only under the run."""
    mount = tmp_path / "results" / "faulty" / "cells"
    mount.mkdir(parents=True)
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def _fill(folder) -> None:
    """Write until the disk is full."""
    with open(folder / ".filler", "wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError:
            pass


def _held_run(project, disk, tmp_path):
    go = tmp_path / "go"
    results = tmp_path / "results"
    args = ["-cd", str(project / "conf"), "experiment=faulty", f"results_dir={results}"]
    proc = kmdr(*args, "n_jobs=1", env=plugin_env(project, "hold:2", release=go), cwd=tmp_path)
    exp = results / "faulty"
    wait_for(lambda: len(cell_files(exp)) >= 5, "five cells on disk", proc)
    return proc, exp, go


def _no_partial_file(exp) -> None:
    assert not [p for p in (exp / "cells").glob(".*") if p.name != ".filler"]
    for path in cell_files(exp):
        json.loads(path.read_text())  # every cell file is whole
    assert len(cell_files(exp)) == 5


def _full(disk) -> None:
    _fill(disk)


def _read_only(disk) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)


@pytest.mark.parametrize(
    ("fail", "says"),
    [
        case(_full, says="failed (OSError: [Errno 28] No space left on device", doing="run",
             cause="the disk of the results folder filled up while a cell was written; the "
             "finished cells are kept and no cell file is left half written",
             fix="free space on that disk (or give results_dir=<a folder on another disk>) and "
             "run the same command again: it reuses the finished cells"),
        case(_read_only, says="failed (OSError: [Errno 30] Read-only file system", doing="run",
             cause="the disk of the results folder became read-only during the run (the line "
             "names the folder); the finished cells are kept",
             fix="make that folder writable again (remount the disk) or give "
             "results_dir=<a writable folder>, then run the same command again"),
    ],
    ids=["full", "read-only"],
)  # fmt: skip
def test_a_failing_disk_mid_run(project, disk, tmp_path, fail, says):
    proc, exp, go = _held_run(project, disk, tmp_path)
    try:
        fail(disk)
        go.touch()
        assert proc.wait() == 1, proc.stderr
    finally:
        proc.kill()
        subprocess.run(["mount", "-o", "remount,rw", str(disk)], capture_output=True)
    line = one_line(proc.stderr)
    assert line.startswith(f"kmdr: error: faulty {says}"), line
    if fail is _read_only:  # the folder to fix, not a temporary file in it
        assert f"'{exp / 'cells'}'" in line, line
    else:
        assert "finished cells are kept under" in line, line
    assert ".tmp" not in line
    _no_partial_file(exp)
