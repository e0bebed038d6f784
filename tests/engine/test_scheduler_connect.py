"""Connecting to a dask scheduler is bounded: an address that accepts a connection and never
answers is one line within Dask's connect timeout, and the run record says ``failed``. (Nothing
listening at the address: tests/engine/test_backends.py; a real scheduler answering:
``test_dask_connects_to_a_running_scheduler`` there.) A real socket, in this process."""

from __future__ import annotations

import json
import socket
import time

import pytest

from _cases import case
from _run_configs import run_alone, synth_run
from kmdr.config.schema import from_config
from kmdr.engine.backends import RunFailed


@pytest.fixture
def silent_address():
    """An address whose socket accepts connections (the system completes them from its backlog)
    and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield f"tcp://127.0.0.1:{sock.getsockname()[1]}"


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
def test_a_silent_scheduler_is_one_line_within_the_connect_timeout(tmp_path, silent_address, says):
    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")
    config = synth_run(
        tmp_path, "silent", (200, 50, 3), reducers=[{"name": "sign"}], r_grid=[3], repeats=1,
        backend="dask", dask={"scheduler": silent_address},
    )  # fmt: skip
    start = time.monotonic()
    with (
        dask.config.set({"distributed.comm.timeouts.connect": "3s"}),
        pytest.raises(RunFailed) as info,
    ):
        run_alone(*from_config(config))
    assert time.monotonic() - start < 60
    assert says in str(info.value) and "\n" not in str(info.value)
    (record,) = (tmp_path / "silent" / "runs").glob("*.json")
    assert json.loads(record.read_text())["status"] == "failed"
