"""The lock heartbeat is the Session's: one thread from its start to its end, whatever number of
stores and claims its runs hold; a store used without a session keeps its claims alive with a
heartbeat of its own, running only while it holds one."""

from __future__ import annotations

import os
import threading
import time

from kmdr.config.objects import Execution
from kmdr.engine.session import Session
from kmdr.results.locks import HEARTBEAT
from kmdr.results.store import CellStore

NAME = "kmdr-lock-heartbeat"


def _beats() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == NAME]


def _moves(path, within: float) -> bool:
    """Whether ``path``'s mtime changes within ``within`` seconds."""
    start = os.stat(path).st_mtime_ns
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if os.stat(path).st_mtime_ns != start:
            return True
        time.sleep(0.05)
    return False


def test_one_heartbeat_per_session_for_all_its_stores(tmp_path):
    before = len(_beats())
    with Session(Execution(n_jobs=1)) as session:
        assert session.heartbeat.running and len(_beats()) == before + 1
        stores = [CellStore(tmp_path / name, heartbeat=session.heartbeat) for name in "ab"]
        claims = [store.try_claim(cell) for store in stores for cell in ("x", "y")]
        assert all(claim is not None and claim.held for claim in claims)
        assert len(_beats()) == before + 1  # four claims in two stores: still one thread
        assert _moves(claims[-1].path, 3 * HEARTBEAT)  # and it keeps them alive
        for claim in claims:
            claim.release()
        assert session.heartbeat.running  # no claim held: the session's runs on
    assert not session.heartbeat.running and len(_beats()) == before


def test_a_claim_held_past_the_session_keeps_its_heartbeat(tmp_path):
    session = Session(Execution(n_jobs=1)).__enter__()
    claim = CellStore(tmp_path / "a", heartbeat=session.heartbeat).try_claim("x")
    session.close()
    assert session.heartbeat.running and _moves(claim.path, 3 * HEARTBEAT)
    claim.release()
    assert not session.heartbeat.running


def test_a_store_without_a_session_beats_only_while_it_holds_a_claim(tmp_path):
    before = len(_beats())
    store = CellStore(tmp_path / "a")
    assert not store.heartbeat.running and len(_beats()) == before
    claim = store.try_claim("x")
    assert store.heartbeat.running and len(_beats()) == before + 1
    assert _moves(claim.path, 3 * HEARTBEAT)
    claim.release()
    assert not store.heartbeat.running and len(_beats()) == before
