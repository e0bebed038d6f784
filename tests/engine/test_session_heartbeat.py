"""The lock heartbeat is the Session's: one thread from its start to its end, whatever number of
stores and claims its runs hold; nothing else starts one, so a store used without a session holds
its claims without a sign of life."""

from __future__ import annotations

import os
import threading
import time

from kmdr.config.schema import Execution
from kmdr.engine.session import Session, beating
from kmdr.results.locks import HEARTBEAT, Heartbeat, acquire
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
    # Counted from what runs already: an open session of an earlier test in this process (the
    # default session of kmdr.run) keeps its own heartbeat for its life.
    before = len(_beats())
    with Session(Execution(n_jobs=1)) as session:
        assert len(_beats()) == before + 1
        stores = [CellStore(tmp_path / name, heartbeat=session.heartbeat) for name in "ab"]
        claims = [store.try_claim(cell) for store in stores for cell in ("x", "y")]
        assert all(claim is not None and claim.held for claim in claims)
        assert session.heartbeat.holding == 4
        assert len(_beats()) == before + 1  # four claims in two stores: still one thread
        assert _moves(claims[-1].path, 3 * HEARTBEAT)  # and it keeps them alive
        for claim in claims:
            claim.release()
        assert session.heartbeat.holding == 0 and len(_beats()) == before + 1
    assert len(_beats()) == before


def test_a_claim_held_past_the_session_shows_no_sign_of_life(tmp_path):
    session = Session(Execution(n_jobs=1)).__enter__()
    claim = CellStore(tmp_path / "a", heartbeat=session.heartbeat).try_claim("x")
    assert _moves(claim.path, 3 * HEARTBEAT)
    session.close()
    assert claim.held and not _moves(claim.path, 2 * HEARTBEAT)
    claim.release()
    assert session.heartbeat.holding == 0


def test_a_store_without_a_session_starts_no_thread(tmp_path):
    before = len(_beats())
    store = CellStore(tmp_path / "a")
    claim = store.try_claim("x")
    assert claim.held and store.heartbeat is None and len(_beats()) == before
    assert not _moves(claim.path, 2 * HEARTBEAT)
    claim.release()


def test_beating_touches_only_held_locks_and_stops_with_its_block(tmp_path):
    beat = Heartbeat(period=0.05)
    before = len(_beats())
    first = acquire(tmp_path / "a.lock", heartbeat=beat)
    assert not _moves(first.path, 0.3)  # nothing beats it yet
    with beating(beat):
        assert len(_beats()) == before + 1
        second = acquire(tmp_path / "b.lock", heartbeat=beat)
        assert _moves(first.path, 2.0) and _moves(second.path, 2.0)
        first.release()
        assert beat.holding == 1 and _moves(second.path, 2.0)
        second.release(unlink=True)
        assert beat.holding == 0
    assert len(_beats()) == before
    bare = acquire(tmp_path / "c.lock")  # without a heartbeat a lock is held, never touched
    assert bare.held and not _moves(bare.path, 0.3)
    bare.release()
