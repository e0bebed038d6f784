"""One lock per experiment folder: the run (or ``kmdr-prune --remove``) that writes a folder holds
it from its first write to its last, and a second one waits for it.

The lock is :func:`portalocker.lock` (``flock`` on POSIX) on ``.locks/folder.lock`` inside the
folder. The kernel drops it when its holder's descriptor closes, so a process killed with ``kill
-9`` (or by the out-of-memory killer) leaves nothing stale: the waiting run starts at once and
reuses every cell the killed one wrote. A stopped process (``SIGSTOP``) keeps it; the waiting run
says whom it waits for, and Ctrl-C ends the wait.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import portalocker

#: A lock taken at once or not at all.
_NOW = portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING
#: The lock file, relative to the experiment folder (git ignores ``.locks/``).
LOCK_FILE = Path(".locks") / "folder.lock"


@contextlib.contextmanager
def folder_lock(folder: str | os.PathLike, say: Callable[[str], None]) -> Iterator[None]:
    """Hold ``folder``'s lock while the block runs; when another process holds it, ``say`` one
    line naming that process and wait for it to end."""
    path = Path(folder) / LOCK_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    # "a+": the holder's pid is read by a waiter before the holder writes it again
    with open(path, "a+", encoding="utf-8") as handle:
        try:
            portalocker.lock(handle, _NOW)
        except portalocker.AlreadyLocked:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            say(f"[kmdr] {folder}: waiting for {holder}, which is writing this folder, to end")
            portalocker.lock(handle, portalocker.LockFlags.EXCLUSIVE)
        handle.seek(0)
        handle.truncate()
        handle.write(f"process {os.getpid()} on {socket.gethostname()}")
        handle.flush()
        try:
            yield
        finally:
            portalocker.unlock(handle)
