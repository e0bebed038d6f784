"""The lock files behind cell claims and cells.csv's rebuilds (kmdr.results.locks): they
name their holder, a live holder's heartbeat keeps them fresh, and a blocking wait gives up on a
holder that shows no sign of life. The holder is a real second process."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from _procs import wait_for
from kmdr.results import locks

# Every test here holds the lock in another process (and stops it with a signal).
pytestmark = pytest.mark.slow

HOLD = (
    "import sys, time\n"
    "from kmdr.engine.session import Session\n"
    "from kmdr.results import locks\n"
    "session = Session().__enter__()\n"
    "lock = locks.acquire(sys.argv[1], heartbeat=session.heartbeat)\n"
    "print('held', flush=True)\n"
    "time.sleep(600)\n"
)


@pytest.fixture
def holder(tmp_path):
    path = tmp_path / ".locks" / "cells.csv.lock"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline() == "held\n"
    yield proc, path
    proc.send_signal(signal.SIGCONT)
    proc.kill()
    proc.wait()


def test_the_lock_file_names_its_holder(holder):
    proc, path = holder
    who = locks.holder(path)
    assert who["pid"] == proc.pid and who["host"] == socket.gethostname()
    assert who["since"].endswith("Z") and who["since"][:4].isdigit()
    assert locks.is_locked(path) and locks.acquire(path) is None


@pytest.mark.fault(
    "the process holding cells.csv's lock is stopped (SIGSTOP) while another waits for it",
    gets="the wait gives up after its timeout with one line naming the holder's pid and host",
)
def test_a_wait_on_a_stopped_holder_gives_up(holder):
    proc, path = holder
    proc.send_signal(signal.SIGSTOP)
    with pytest.raises(locks.LockTimeout) as info:
        locks.acquire(path, block=True, timeout=3)
    message = str(info.value)
    assert "\n" not in message and f"process {proc.pid} on host {socket.gethostname()}" in message
    assert "no sign of life for 3 s" in message


def test_a_live_holder_keeps_its_lock_fresh_and_is_waited_for(holder):
    proc, path = holder
    first = path.stat().st_mtime_ns
    wait_for(lambda: path.stat().st_mtime_ns != first, "a heartbeat", timeout=30)

    start = time.monotonic()
    waiter = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from kmdr.results import locks; "
            "lock = locks.acquire(sys.argv[1], block=True, timeout=5); print(lock.held)",
            str(path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        # the waiter (timeout 5 s) waits across four heartbeats (2 s apart), longer than
        # its timeout...
        beats = [path.stat().st_mtime_ns]
        while len(beats) < 5:
            assert waiter.poll() is None, "the waiter gave up on a live holder"
            mtime = path.stat().st_mtime_ns
            if mtime != beats[-1]:
                beats.append(mtime)
            assert time.monotonic() - start < 120
            time.sleep(0.05)
        proc.kill()  # ...and gets the lock once the holder is gone
        out, _ = waiter.communicate(timeout=60)
    finally:
        waiter.kill()
    assert waiter.returncode == 0 and out.strip() == "True"
    assert os.path.exists(path)
