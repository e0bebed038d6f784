"""The project's one way to write a file atomically, clean up after a killed writer, read a CSV.

Atomic writes
    :func:`atomic_writer` (a context manager yielding an open file), :func:`atomic_write_text`
    and :func:`atomic_write_bytes` write to a temporary file in the target's folder, ``fsync``
    it and move it into place with :func:`os.replace` (atomic on POSIX): a reader, or a process
    killed with ``kill -9`` at any moment, sees the old file or the new one, never half of one.
    On an exception the temporary file is removed and the target is left untouched.

    The temporary file is created by :func:`open` in mode ``"x"`` (``O_CREAT | O_EXCL``, mode
    0o666), so the kernel applies the umask exactly as for any file a program creates: with
    umask 0o022 a result is 0o644, with 0o002 it is 0o664 and a group sharing a results folder
    or a data cache can read it. (:func:`tempfile.mkstemp` always creates 0o600 files.)

Temporary names
    ``.<name>~<host>~<pid>~<token>.tmp``: the host and process id of the writer, and a random
    token (several threads of one process may write the same target). A cleanup can therefore
    tell a live writer's file from a leftover: :func:`remove_stale_temporaries` removes only the
    temporary files of processes of *this* host that no longer exist. Files of another host (a
    folder shared over NFS) and files not named by this module are never touched. A dead
    writer's pid reused by a new process keeps its leftover until that process ends: a leftover
    kept too long is harmless, a live writer's file deleted is not.

Reading
    :func:`read_bytes` and :func:`read_text` read a file only if it is a regular file: a FIFO,
    a device or a folder where a results file should be (``mkfifo cells.csv``) is an
    :class:`OSError` naming it, raised at once, where a plain ``open`` would wait forever for a
    writer. The file is opened without blocking and checked on its open descriptor, so nothing
    can replace it between the check and the read.

Symbolic links
    A link in a results folder (``cells.csv -> /elsewhere/cells.csv``) is followed: a read reads
    its target, and an atomic write replaces the target (its temporary file beside the target),
    so the link stays a link and what it points at is what is updated.

CSV
    :func:`read_csv` is the one CSV reader: :func:`pandas.read_csv`, except that an empty or
    zero-byte file (a run that wrote nothing) is an empty frame rather than an error, and floats
    are parsed round-trip exact (:func:`exact_floats`: before pandas 3 the default parser can miss
    the last bit, and a metric read back must be the metric written).
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import socket
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    import pandas

__all__ = [
    "atomic_write_bytes",
    "atomic_write_text",
    "atomic_writer",
    "is_alive",
    "read_bytes",
    "read_csv",
    "read_text",
    "remove_stale_temporaries",
    "temporary_path",
]

_SEP = "~"
# A hostname is letters, digits, '-' and '.'; anything else is replaced so that the separator
# and the path separator can never appear in it.
_HOST = re.sub(r"[^A-Za-z0-9.-]", "_", socket.gethostname()) or "localhost"
_TEMP_RE = re.compile(r"^\.(?P<name>.+)~(?P<host>[A-Za-z0-9._-]+)~(?P<pid>\d+)~[0-9a-f]+\.tmp$")


def temporary_path(path: str | os.PathLike, *, pid: int | None = None) -> Path:
    """A fresh temporary name beside ``path`` carrying this host and ``pid`` (default: ours)."""
    path = Path(path)
    pid = os.getpid() if pid is None else int(pid)
    token = secrets.token_hex(4)
    return path.with_name(f".{path.name}{_SEP}{_HOST}{_SEP}{pid}{_SEP}{token}.tmp")


@contextmanager
def atomic_writer(
    path: str | os.PathLike, *, binary: bool = False, encoding: str = "utf-8"
) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on a clean exit, move it to ``path`` atomically.

    The parent folder is created if needed. The yielded file's ``name`` is the temporary path
    (so the content can be checked, e.g. hashed, before it is committed: raise to abandon it).
    Text mode writes ``newline=""`` (no newline translation), like the CSV writers expect.
    """
    path = Path(path)
    if path.is_symlink():  # update what the link points at; the link stays (module docstring)
        path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_path(path)
    # Mode "x" is O_CREAT | O_EXCL with 0o666: the umask applies, as for any new file.
    try:
        fh = open(tmp, "xb") if binary else open(tmp, "x", encoding=encoding, newline="")  # noqa: SIM115
    except OSError as err:  # named by the folder the user can fix, not a temporary file
        raise type(err)(err.errno, err.strerror, str(path.parent)) from None
    try:
        with fh:
            yield fh
            fh.flush()
            # The data must be on disk before the rename publishes it; the folder itself is not
            # fsynced: after a power loss the old file may come back, never a partial new one.
            os.fsync(fh.fileno())
        try:
            os.replace(tmp, path)
        except OSError as err:  # named by the file being written, not the temporary one removed
            raise type(err)(err.errno, err.strerror, str(path)) from err
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | os.PathLike, text: str, *, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_writer`)."""
    with atomic_writer(path, encoding=encoding) as fh:
        fh.write(text)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_writer`)."""
    with atomic_writer(path, binary=True) as fh:
        fh.write(data)


_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def read_bytes(path: str | os.PathLike) -> bytes:
    """The bytes of the regular file ``path``; an :class:`OSError` of one line, at once, when it
    is a FIFO, a device, a socket or a folder (see the module docstring)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
            raise OSError(
                errno.EINVAL,
                f"it is {kind}, not a regular file: remove it (kmdr writes the file again) or "
                "put the file back",
                str(path),
            )
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike, *, encoding: str = "utf-8", errors: str = "strict") -> str:
    """:func:`read_bytes` decoded."""
    return read_bytes(path).decode(encoding, errors=errors)


def is_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists on this host (a process of another user counts)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)  # signal 0: existence and permission check only
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temporaries(folder: str | os.PathLike) -> list[Path]:
    """Remove the temporary files in ``folder`` left by dead writers of this host; return them.

    Only names made by :func:`temporary_path` are considered; those of a live process, or of
    another host, are kept. Not recursive.
    """
    folder = Path(folder)
    if not folder.is_dir():
        return []
    removed = []
    for tmp in folder.glob(".*.tmp"):
        match = _TEMP_RE.match(tmp.name)
        if match is None or match["host"] != _HOST or is_alive(int(match["pid"])):
            continue
        try:
            tmp.unlink()
        except FileNotFoundError:  # another cleanup got there first
            continue
        removed.append(tmp)
    return removed


def exact_floats() -> dict[str, str]:
    """The :func:`pandas.read_csv` keywords that parse floats round-trip exact: pandas 3's default
    parser is exact (and deprecates the keyword); earlier ones need ``float_precision``."""
    import pandas as pd

    return {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


def read_csv(path: str | os.PathLike, **kwargs) -> pandas.DataFrame:
    """:func:`pandas.read_csv` of ``path``; an empty or zero-byte file is an empty frame.

    A missing file raises :class:`FileNotFoundError` (the caller knows whether that is normal),
    one that is not a regular file an :class:`OSError` (:func:`read_bytes`). ``kwargs`` go to
    :func:`pandas.read_csv`.
    """
    import io

    import pandas as pd  # here: the writers above are used by modules that never need pandas

    try:
        return pd.read_csv(io.BytesIO(read_bytes(path)), **{**exact_floats(), **kwargs})
    except pd.errors.EmptyDataError:
        return pd.DataFrame()
