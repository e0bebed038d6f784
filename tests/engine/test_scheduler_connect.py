"""Connecting to a dask scheduler is bounded: an address that accepts a connection and never
answers, or that nothing listens at, is one line within Dask's connect timeout; a real
scheduler (a LocalCluster's, started by the test) is used as before. Real sockets, real
processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _cases import case

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
TINY = ["dataset=synth", "dataset.params.n_samples=200", "dataset.params.n_features=50",
        "reducer=sign", "r_grid=[3]", "repeats=1", "kmeans.n_init=1", "figures=false",
        "progress=false", "backend=dask"]  # fmt: skip
SILENT = """
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
held = []
while True:
    held.append(s.accept()[0])  # accepted, never answered
"""


def _kmdr(address: str, tmp_path: Path, timeout_s: str = "3s"):
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": timeout_s}
    start = time.monotonic()
    done = subprocess.run(
        [str(BIN / "kmdr"), *TINY, f"dask.scheduler={address}",
         f"results_dir={tmp_path / 'results'}"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    return done, time.monotonic() - start


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="answered nothing within 3 s",
            doing="run",
            cause="something listens at the dask.scheduler address but never answers (another "
            "service on that port, a frozen scheduler)",
            fix="check that a dask scheduler runs at that address, or raise the timeout "
            "(DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=60s)",
        )
    ],
)
def test_a_silent_scheduler_is_one_line_within_the_connect_timeout(tmp_path, says):
    peer = subprocess.Popen([sys.executable, "-c", SILENT], stdout=subprocess.PIPE, text=True)
    try:
        port = int(peer.stdout.readline())
        done, seconds = _kmdr(f"tcp://127.0.0.1:{port}", tmp_path)
    finally:
        peer.kill()
        peer.wait()
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert says in lines[0] and "Traceback" not in done.stderr
    assert seconds < 60


def test_a_real_scheduler_answers_and_runs_the_cells(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:  # fmt: skip
        done, _ = _kmdr(cluster.scheduler_address, tmp_path, timeout_s="30s")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "results" / "custom" / "cells.csv").is_file()
