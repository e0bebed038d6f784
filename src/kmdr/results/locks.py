"""Advisory lock files that die with their process, the heartbeat that shows a holder alive, and
the claim on one cell (:class:`CellLock`) built on them.

Why ``flock`` on a lock file per cell: the kernel drops an ``flock`` lock when its holder's
descriptor closes, so a process killed with ``kill -9`` (or by the OOM killer) leaves no stale
claim: another process can claim its cells at once, and a blocking claim wakes up. Exclusive-create
(``O_EXCL``) claim files outlive a killed holder and need a liveness guess (pid reuse, clock-based
expiry), which is how a slow but live computation gets stolen; SQLite adds a database file that is
itself unsafe on NFS and a write lock held across the whole store. Claims are taken lazily, so only
a few descriptors are open at once. The lock call is :func:`portalocker.lock` on the claim's own
descriptor: it takes ``flock`` on POSIX (``LockFileEx``/``msvcrt.locking`` on Windows) and has
shared locks, which :func:`is_locked` probes with; ``filelock`` offers neither a shared lock nor
the descriptor the inode check below needs. Descriptors are opened close-on-exec (Python's
default), so a child started with ``exec`` does not inherit a lock; a ``fork`` child does share
it until it exits or closes the descriptor.

A released lock file may be unlinked (:meth:`HeldLock.release` with ``unlink=True``) so that
finished cells leave no files behind. That is safe because :func:`acquire` checks, after locking,
that the path still names the inode it locked: a process that opened the file just before the
holder unlinked it would otherwise hold a lock nobody else can see, while a third process
created and locked a new file under the same name.

Who holds a lock, and whether it is alive
    The holder writes itself into the file it locked: one JSON line ``{"pid", "host", "since"}``
    (``since``: UTC, ISO 8601), so a process waiting for it can say whom it waits for. While a
    lock is held, its :class:`Heartbeat` touches its file every :data:`HEARTBEAT` seconds (its
    modification time): a live holder, however long its work, keeps its locks' mtimes moving,
    while one that is stopped (``SIGSTOP``, a suspended job) or frozen does not. A blocking
    :func:`acquire` therefore waits only as long as it sees that sign of life: after ``timeout``
    seconds during which the file's mtime (or the file itself) did not change, it raises
    :class:`LockTimeout` naming the holder. Progress is judged on the waiter's own clock from
    changes it sees, so clocks of other hosts sharing the folder do not matter.

A :class:`Heartbeat` is the set of held locks whose files show their holder alive, and the
touch that does it (:meth:`Heartbeat.touch`); it starts no thread. The thread that touches every
:data:`HEARTBEAT` seconds belongs to the process's one owner of threads, the run's
:class:`kmdr.engine.session.Session` (:func:`kmdr.engine.session.beating`), which gives its
heartbeat to every store its runs open. A lock taken without a heartbeat, or with one that nothing
beats (a store used outside a session: a script, ``kmdr-prune``'s brief rewrite of cells.csv), is
held all the same but shows no sign of life: a process waiting for it gives up after its timeout.
Hold such a lock briefly, or open a Session for the work it guards.

Assumptions: POSIX (on Windows the module imports and portalocker locks, but a held lock file
cannot be removed there: untested); all processes that share a folder run on one host, or on Linux
NFS clients (NFSv4, or v3 with the lock manager), where ``flock`` is emulated by byte-range locks
that the server releases when a client's process dies (a client that loses the network holds its
locks until the server's lease expires). Those emulated locks belong to the process, not the
descriptor: on NFS a process must not claim or probe a cell it already holds (closing that second
descriptor drops its claim), so the runner keeps track of its own claims. A worker forked (not
spawned) while claims are held shares them until it exits; joblib's default loky workers start
fresh and do not. Everyone who claims needs write access to ``.locks/`` (collaborators: a shared
group, umask 0o002). Temporary files of another host are never removed (:mod:`kmdr._io`).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import portalocker

from kmdr._io import read_text

__all__ = [
    "HEARTBEAT",
    "WAIT_TIMEOUT",
    "CellLock",
    "Heartbeat",
    "HeldLock",
    "LockTimeout",
    "acquire",
    "add_to_holder",
    "describe_holder",
    "holder",
    "is_locked",
]


# ----------------------------------------------------------------------------------------------
# Lock files, their holders and the heartbeat that shows them alive.
# ----------------------------------------------------------------------------------------------

#: Seconds between two touches of the held lock files (the holder's sign of life).
HEARTBEAT = 2.0
#: Default seconds a blocking acquire waits without a sign of life from the holder.
WAIT_TIMEOUT = 300.0
#: Seconds between two attempts of a blocking acquire.
POLL = 0.2
#: Close-on-exec where the platform has the flag (Python opens descriptors non-inheritable anyway).
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class LockTimeout(Exception):
    """A blocking :func:`acquire` saw no sign of life from the holder for ``timeout`` seconds."""

    def __init__(self, path: Path, who: dict | None, timeout: float):
        self.path, self.holder, self.timeout = path, who, timeout
        super().__init__(
            f"{path} is held by {describe_holder(who)}, which has shown no sign of life for "
            f"{timeout:g} s (stopped or hung?); end that process (its finished cells are kept) "
            "or raise claim_timeout, and run the same command again"
        )


def describe_holder(who: dict | None) -> str:
    """``process 123 on host h since 2026-01-01T00:00:00Z`` (or ``an unknown process``)."""
    if not who:
        return "an unknown process"
    pid, host, since = (who.get(key, "?") for key in ("pid", "host", "since"))
    return f"process {pid} on host {host} since {since}"


def _write_at_start(fd: int, data: bytes) -> None:
    # os.pwrite where the platform has it (POSIX); a seek and a write otherwise
    if hasattr(os, "pwrite"):
        os.pwrite(fd, data, 0)
    else:
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, data)


class Heartbeat:
    """The held locks whose files show their holder alive: :meth:`touch` touches each one.

    A passive registry: it starts no thread. Its owner calls :meth:`touch` every ``period``
    seconds (:func:`kmdr.engine.session.beating`, which a Session runs for its whole life); a lock
    :func:`acquire` d with it is touched from its acquisition to its release. Thread-safe. A
    ``fork`` child starts with an empty heartbeat (the parent's locks are not the child's).

    Examples
    --------
    >>> with Session() as session:  # doctest: +SKIP
    ...     lock = acquire(path, heartbeat=session.heartbeat)
    ...     ...  # the lock's file is touched every HEARTBEAT seconds while it is held
    ...     lock.release()
    """

    def __init__(self, period: float = HEARTBEAT) -> None:
        self.period = float(period)
        self._reset()

    def _reset(self) -> None:
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self._held: set[HeldLock] = set()

    def _guard(self) -> threading.Lock:
        # A fork child must not wait on a lock the parent's thread held at the fork, nor touch
        # the parent's files: it starts empty (checked before the lock is taken).
        if self._pid != os.getpid():
            self._reset()
        return self._lock

    @property
    def holding(self) -> int:
        """How many held locks it touches."""
        with self._guard():
            return len(self._held)

    def _watch(self, held: HeldLock) -> None:
        """Touch ``held``'s file on every beat until :meth:`_forget`."""
        with self._guard():
            self._held.add(held)

    def _forget(self, held: HeldLock) -> int | None:
        """Stop touching ``held`` and take its descriptor (None if already released): under the
        registry's lock, so a beat never touches a closed or reused descriptor."""
        with self._guard():
            fd, held._fd = held._fd, None
            self._held.discard(held)
        return fd

    def touch(self) -> None:
        """Touch the file of every held lock (its modification time): one beat."""
        with self._guard():  # release() takes descriptors under the same lock
            for held in self._held:
                if held._fd is not None:
                    # a read-only or vanished folder: the holder goes on without it
                    with contextlib.suppress(OSError):
                        # through the descriptor where the platform can (POSIX)
                        os.utime(held._fd if os.utime in os.supports_fd else held.path)


class HeldLock:
    """An acquired lock file; :meth:`release` it (idempotent)."""

    def __init__(self, path: Path, fd: int, heartbeat: Heartbeat | None = None):
        self.path = path
        self._fd: int | None = fd
        self._heartbeat = heartbeat
        if heartbeat is not None:
            heartbeat._watch(self)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self, *, unlink: bool = False) -> None:
        """Release the lock; with ``unlink``, remove the file first (while still holding it)."""
        if self._heartbeat is not None:
            fd = self._heartbeat._forget(self)
        else:
            fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if unlink:
                self.path.unlink(missing_ok=True)
        finally:
            os.close(fd)  # drops the lock


def holder(path: str | os.PathLike) -> dict | None:
    """What the holder of ``path`` wrote into it (pid, host, since), or None."""
    try:
        who = json.loads(read_text(path).partition("\n")[0])
    except (OSError, ValueError):
        return None
    return who if isinstance(who, dict) else None


def add_to_holder(path: str | os.PathLike, **info) -> None:
    """Add ``info`` to what the holder of ``path`` wrote (e.g. the worker process computing the
    claimed cell); silently nothing if the file is gone or unwritable (e.g. another host's)."""
    who = holder(path)
    if who is None:
        return
    data = (json.dumps({**who, **info}) + "\n").encode()
    try:
        fd = os.open(path, os.O_WRONLY | _CLOEXEC)
    except OSError:
        return
    try:
        _write_at_start(fd, data)  # longer than the holder's line: it is replaced whole
    except OSError:
        pass
    finally:
        os.close(fd)


def _sign(path: Path):
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns)


def acquire(
    path: str | os.PathLike,
    *,
    block: bool = False,
    timeout: float | None = None,
    heartbeat: Heartbeat | None = None,
) -> HeldLock | None:
    """Lock ``path`` exclusively (creating it, mode 0o666 minus the umask) and write this process
    into it (see the module docstring).

    Returns ``None`` when another open file description holds it and ``block`` is false (in
    this process too: flock locks belong to the open file, not to the process). With ``block``,
    waits until the holder releases it or ends, or raises :class:`LockTimeout` after ``timeout``
    seconds (default :data:`WAIT_TIMEOUT`) without a sign of life from the holder. With
    ``heartbeat``, the lock's file is touched on each of its beats while the lock is held
    (without one, or with one nobody beats, nothing shows the holder alive: a waiter gives up
    after its timeout).
    """
    path = Path(path)
    if not block:
        return _acquire(path, heartbeat)
    timeout = WAIT_TIMEOUT if timeout is None else float(timeout)
    last, quiet_since = None, time.monotonic()
    while True:
        lock = _acquire(path, heartbeat)
        if lock is not None:
            return lock
        sign = _sign(path)
        if sign != last:
            last, quiet_since = sign, time.monotonic()
        elif time.monotonic() - quiet_since > timeout:
            raise LockTimeout(path, holder(path), timeout)
        time.sleep(POLL)


def _acquire(path: Path, heartbeat: Heartbeat | None) -> HeldLock | None:
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING
    while True:
        # O_RDWR, not O_RDONLY: on NFS, flock is emulated with POSIX locks, and an exclusive
        # POSIX lock needs a descriptor open for writing.
        fd = os.open(path, os.O_RDWR | os.O_CREAT | _CLOEXEC, 0o666)
        try:
            portalocker.lock(fd, flags)
        except portalocker.AlreadyLocked:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        try:
            current = os.stat(path)
        except FileNotFoundError:
            current = None
        locked = os.fstat(fd)
        if current is not None and (current.st_dev, current.st_ino) == (
            locked.st_dev,
            locked.st_ino,
        ):
            _write_holder(fd)
            return HeldLock(path, fd, heartbeat)
        os.close(fd)  # the holder unlinked the file we locked: lock the current one instead


def _write_holder(fd: int) -> None:
    since = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    who = {"pid": os.getpid(), "host": socket.gethostname(), "since": since}
    data = (json.dumps(who) + "\n").encode()
    try:
        os.ftruncate(fd, 0)
        _write_at_start(fd, data)
    except OSError:
        pass  # the lock holds without it; a waiter then names "an unknown process"


def is_locked(path: str | os.PathLike) -> bool:
    """Whether some process holds the lock file ``path`` right now.

    A probe: it takes a shared lock for an instant, during which a non-blocking
    :func:`acquire` by another process of the same file fails.
    """
    try:
        fd = os.open(path, os.O_RDWR | _CLOEXEC)
    except FileNotFoundError:
        return False
    except PermissionError:  # another user's lock file: a shared lock needs only reading
        try:
            fd = os.open(path, os.O_RDONLY | _CLOEXEC)
        except FileNotFoundError:
            return False
    try:
        portalocker.lock(fd, portalocker.LockFlags.SHARED | portalocker.LockFlags.NON_BLOCKING)
    except portalocker.AlreadyLocked:
        return True
    finally:
        os.close(fd)
    return False


# ----------------------------------------------------------------------------------------------
# A claim on one cell.
# ----------------------------------------------------------------------------------------------


class CellLock:
    """A cell's claim: the right to compute and write one cell, held until :meth:`release` (or
    the end of a ``with`` block, or the process). Returned by
    :meth:`kmdr.results.store.CellStore.try_claim`."""

    def __init__(self, cell_id: str, lock: HeldLock):
        self.cell_id = cell_id
        self._lock = lock

    @property
    def held(self) -> bool:
        return self._lock.held

    @property
    def path(self) -> Path:
        """The claim's lock file (it names its holder: :func:`holder`)."""
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
