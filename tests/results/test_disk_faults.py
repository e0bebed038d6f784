"""The results disk fails under a running ``kmdr``: it fills up (ENOSPC) or turns read-only
mid-run. A real filesystem (a small tmpfs, mounted by the test: root only, skipped otherwise) and
a real run that holds its last cell until the disk has failed."""

from __future__ import annotations

import os
import subprocess

import pytest

from _cases import case
from _procs import cells_done, kmdr, make_plugin, one_line, plugin_env, wait_for
from kmdr.results.store import CellStore

# Every test here runs kmdr as a process on a small disk it mounts, fills or makes read-only.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return make_plugin(tmp_path_factory.mktemp("plugin"))


@pytest.fixture
def disk(tmp_path):
    """A 4 MB tmpfs mounted on the experiment folder of the run (skipped where the test cannot
    mount one), its ``runs/`` on another."""
    mount = tmp_path / "results" / "faulty"
    mount.mkdir(parents=True)
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    # the run records and logs on a disk of their own: what fails is the cells' disk
    (mount / "runs").mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(mount / "runs")], check=True)
    yield mount
    subprocess.run(["umount", "-l", "-R", str(mount)], capture_output=True)  # a bind mount
    subprocess.run(["umount", "-l", "-R", str(mount)], capture_output=True)


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
    wait_for(lambda: len(cells_done(exp)) >= 5, "five cells on disk", proc)
    return proc, exp, go


def _no_partial_file(exp) -> None:
    assert not list(exp.glob(".*.tmp"))
    # every finished cell's row kept (the last one too where its line still fits on the disk)
    assert len(cells_done(exp)) in (5, 6)
    assert CellStore(exp, read_only=True).untrusted() is None  # no row cut short


def _full(disk) -> None:
    _fill(disk)


def _read_only(disk) -> None:
    # a read-only bind mount over the folder: the run's open lock file would keep the tmpfs
    # itself from being remounted read-only, while every file opened from now on is refused
    subprocess.run(["mount", "--rbind", str(disk), str(disk)], check=True)
    subprocess.run(["mount", "-o", "remount,bind,ro", str(disk)], check=True)


@pytest.mark.parametrize(
    ("fail", "says"),
    [
        case(_full, says="failed (OSError: [Errno 28] No space left on device", doing="run",
             cause="the disk of the results folder filled up while a cell was written; the "
             "finished cells are kept (a row left half written is set aside by the next run)",
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
        assert f"'{exp}" in line, line
    else:
        assert "finished cells are kept under" in line, line
    assert ".tmp" not in line
    _no_partial_file(exp)
