"""A claim on one cell: the lock a process holds while it computes and writes that cell.

Why ``flock`` on a lock file per cell: the kernel drops an ``flock`` lock when its holder's
descriptor closes, so a process killed with ``kill -9`` (or by the OOM killer) leaves no stale
claim: another process can claim its cells at once, and a blocking claim wakes up. Exclusive-create
(``O_EXCL``) claim files outlive a killed holder and need a liveness guess (pid reuse, clock-based
expiry), which is how a slow but live computation gets stolen; SQLite adds a database file that is
itself unsafe on NFS and a write lock held across the whole store. Claims are taken lazily, so only
a few descriptors are open at once; a released claim's lock file is unlinked (see :mod:`._locks`
for why that is race-free). The lock call is :func:`portalocker.lock` on the claim's own descriptor:
it takes ``flock`` on POSIX and has shared locks, which :func:`._locks.is_locked` probes with;
``filelock`` offers neither a shared lock nor the descriptor the inode check needs.

Assumptions: POSIX (on Windows the module imports and portalocker locks, but a held lock file
cannot be removed there: untested); all processes that share a folder run on one host, or on Linux
NFS clients (NFSv4, or v3 with the lock manager), where ``flock`` is emulated by byte-range locks
that the server releases when a client's process dies (a client that loses the network holds its
locks until the server's lease expires). Those emulated locks belong to the process, not the
descriptor: on NFS a process must not claim or probe a cell it already holds (closing that second
descriptor drops its claim), so the runner keeps track of its own claims. A worker forked (not
spawned) while claims are held shares them until it exits; joblib's default loky workers start
fresh and do not. Everyone who claims needs write access to ``.locks/`` (collaborators: a shared
group, umask 0o002).
Temporary files of another host are never removed (:mod:`kmdr._io`).
"""

from __future__ import annotations

from pathlib import Path

from kmdr.results import _locks

__all__ = ["CellLock"]


class CellLock:
    """A cell's claim: the right to compute and write one cell, held until :meth:`release` (or
    the end of a ``with`` block, or the process). Returned by
    :meth:`kmdr.results.store.CellStore.try_claim`."""

    def __init__(self, cell_id: str, lock: _locks.HeldLock):
        self.cell_id = cell_id
        self._lock = lock

    @property
    def held(self) -> bool:
        return self._lock.held

    @property
    def path(self) -> Path:
        """The claim's lock file (it names its holder: :func:`._locks.holder`)."""
        return self._lock.path

    def release(self) -> None:
        """Give the cell up (idempotent); its lock file is removed."""
        self._lock.release(unlink=True)

    def __enter__(self) -> CellLock:
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"CellLock({self.cell_id!r}, held={self.held})"
