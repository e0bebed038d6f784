"""Advisory lock files that die with their process (:mod:`.cell_lock`: why).

A lock is a file locked exclusively with :func:`portalocker.lock`, which is ``flock(LOCK_EX)`` on
POSIX (portalocker's default locker) and ``LockFileEx``/``msvcrt.locking`` on Windows. The
operating system releases it when the holding file descriptor is closed, which happens when the
process ends for any reason (``kill -9`` included), so a lock can never outlive its holder.
Descriptors are opened close-on-exec (Python's default), so a child started with ``exec`` does
not inherit a lock; a ``fork`` child does share it until it exits or closes the descriptor.

A released lock file may be unlinked (:meth:`HeldLock.release` with ``unlink=True``) so that
finished cells leave no files behind. That is safe because :func:`acquire` checks, after locking,
that the path still names the inode it locked: a process that opened the file just before the
holder unlinked it would otherwise hold a lock nobody else can see, while a third process
created and locked a new file under the same name.

Who holds a lock, and whether it is alive
    The holder writes itself into the file it locked: one JSON line ``{"pid", "host", "since"}``
    (``since``: UTC, ISO 8601), so a process waiting for it can say whom it waits for. While a
    process holds locks, a daemon thread touches their files every :data:`HEARTBEAT` seconds
    (their modification time): a live holder, however long its work, keeps its locks' mtimes
    moving, while one that is stopped (``SIGSTOP``, a suspended job) or frozen does not. A
    blocking :func:`acquire` therefore waits only as long as it sees that sign of life: after
    ``timeout`` seconds during which the file's mtime (or the file itself) did not change, it
    raises :class:`LockTimeout` naming the holder. Progress is judged on the waiter's own clock
    from changes it sees, so clocks of other hosts sharing the folder do not matter.
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

__all__ = ["HEARTBEAT", "WAIT_TIMEOUT", "HeldLock", "LockTimeout", "acquire", "holder", "is_locked"]

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


class _Heartbeat:
    """The locks this process holds, and the thread that touches their files."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.held: set[HeldLock] = set()
        self.thread: threading.Thread | None = None

    def add(self, held: HeldLock) -> None:
        with self.lock:
            self.held.add(held)
            if self.thread is None:
                self.thread = threading.Thread(target=self._beat, name="kmdr-lock-heartbeat")
                self.thread.daemon = True
                self.thread.start()

    def discard(self, held: HeldLock) -> None:
        with self.lock:
            self.held.discard(held)

    def _beat(self) -> None:
        while True:
            time.sleep(HEARTBEAT)
            with self.lock:  # release() closes descriptors under the same lock
                for held in self.held:
                    if held._fd is not None:
                        # a read-only or vanished folder: the holder goes on without it
                        with contextlib.suppress(OSError):
                            # through the descriptor where the platform can (POSIX)
                            os.utime(held._fd if os.utime in os.supports_fd else held.path)


def _write_at_start(fd: int, data: bytes) -> None:
    # os.pwrite where the platform has it (POSIX); a seek and a write otherwise
    if hasattr(os, "pwrite"):
        os.pwrite(fd, data, 0)
    else:
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, data)


_HEARTBEAT = _Heartbeat()
# A fork child starts with no heartbeat thread and must not inherit a registry lock held by the
# parent's thread at the instant of the fork (platforms without fork have nothing to do).
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_HEARTBEAT.__init__)


class HeldLock:
    """An acquired lock file; :meth:`release` it (idempotent)."""

    def __init__(self, path: Path, fd: int):
        self.path = path
        self._fd: int | None = fd

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self, *, unlink: bool = False) -> None:
        """Release the lock; with ``unlink``, remove the file first (while still holding it)."""
        with _HEARTBEAT.lock:
            fd, self._fd = self._fd, None
            _HEARTBEAT.held.discard(self)
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
        with open(path, encoding="utf-8") as fh:
            who = json.loads(fh.readline())
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
    path: str | os.PathLike, *, block: bool = False, timeout: float | None = None
) -> HeldLock | None:
    """Lock ``path`` exclusively (creating it, mode 0o666 minus the umask) and write this process
    into it (see the module docstring).

    Returns ``None`` when another open file description holds it and ``block`` is false (in
    this process too: flock locks belong to the open file, not to the process). With ``block``,
    waits until the holder releases it or ends, or raises :class:`LockTimeout` after ``timeout``
    seconds (default :data:`WAIT_TIMEOUT`) without a sign of life from the holder.
    """
    path = Path(path)
    if not block:
        return _acquire(path)
    timeout = WAIT_TIMEOUT if timeout is None else float(timeout)
    last, quiet_since = None, time.monotonic()
    while True:
        lock = _acquire(path)
        if lock is not None:
            return lock
        sign = _sign(path)
        if sign != last:
            last, quiet_since = sign, time.monotonic()
        elif time.monotonic() - quiet_since > timeout:
            raise LockTimeout(path, holder(path), timeout)
        time.sleep(POLL)


def _acquire(path: Path) -> HeldLock | None:
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
            held = HeldLock(path, fd)
            _HEARTBEAT.add(held)
            return held
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
