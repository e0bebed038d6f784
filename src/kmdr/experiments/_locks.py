"""Advisory lock files (``fcntl.flock``) that die with their process; see :mod:`.store` for why.

A lock is an empty file locked with ``flock(LOCK_EX)``. The kernel releases it when the holding
file descriptor is closed, which happens when the process ends for any reason (``kill -9``
included), so a lock can never outlive its holder. Descriptors are opened close-on-exec (Python's
default), so a child started with ``exec`` does not inherit a lock; a ``fork`` child does share
it until it exits or closes the descriptor.

A released lock file may be unlinked (:meth:`HeldLock.release` with ``unlink=True``) so that
finished cells leave no files behind. That is safe because :func:`acquire` checks, after locking,
that the path still names the inode it locked: a process that opened the file just before the
holder unlinked it would otherwise hold a lock nobody else can see, while a third process
created and locked a new file under the same name.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

__all__ = ["HeldLock", "acquire", "is_locked"]


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
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if unlink:
                self.path.unlink(missing_ok=True)
        finally:
            os.close(fd)  # drops the flock


def acquire(path: str | os.PathLike, *, block: bool = False) -> HeldLock | None:
    """Lock ``path`` exclusively (creating it, mode 0o666 minus the umask).

    Returns ``None`` when another open file description holds it and ``block`` is false (in
    this process too: flock locks belong to the open file, not to the process). With ``block``,
    waits until the holder releases it or ends.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = fcntl.LOCK_EX if block else fcntl.LOCK_EX | fcntl.LOCK_NB
    while True:
        # O_RDWR, not O_RDONLY: on NFS, flock is emulated with POSIX locks, and an exclusive
        # POSIX lock needs a descriptor open for writing.
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        try:
            fcntl.flock(fd, flags)
        except BlockingIOError:
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
            return HeldLock(path, fd)
        os.close(fd)  # the holder unlinked the file we locked: lock the current one instead


def is_locked(path: str | os.PathLike) -> bool:
    """Whether some process holds the lock file ``path`` right now.

    A probe: it takes a shared lock for an instant, during which a non-blocking
    :func:`acquire` by another process of the same file fails.
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    except PermissionError:  # another user's lock file: a shared lock needs only reading
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
