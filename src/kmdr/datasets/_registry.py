"""The one registry of data files, and how a file is obtained and verified.

Every file the loaders read is listed in ``registry.txt`` (pooch's registry-file pattern, with the
URL on each line): its path inside the cache, its hash in pooch's form (a sha256, or ``md5:<hex>``
where the public record is an md5 sum, as for MNIST's files; ``-`` when none is known) and a public
URL, pinned to a commit where the file comes from GitHub. Where the only public record of a file's
content is its git blob id (a file committed to a repository, NIPS's count matrix), the hash is
``gitblob:<hex>``: pooch cannot check that form, so such a file is downloaded into a temporary
folder, checked by git's rule (:func:`git_blob_id`) and only then moved into the cache; its sha256
is logged once it is verified, for whoever wants to pin it by that. A file without a pinned hash
is refused: its content could not be checked, so nothing computed from it could be reproduced. A
fourth word ``unserved`` marks a file whose URL names where it came from but no longer serves it:
it is never downloaded, only taken from the cache or the mirror (:func:`fetch`, and
``kmdr-list`` says so).

:func:`fetch` obtains a file in this order:

1. the cache (``data_dir``), if it holds the file with the right hash;
2. the mirror folder (``mirror`` argument or ``KMDR_DATA_MIRROR``), which has the same layout as the
   cache: the file is copied into the cache and its hash verified;
3. a download with :mod:`pooch` (hash verified by pooch).

If none works, :class:`DatasetUnavailable` is raised. A file with no pinned hash raises
:class:`DatasetUnavailable` naming it, before anything is read. A file whose hash does not match
raises :class:`DataIntegrityError` naming the file, both hashes and what to do. A cache that is a
file, or a mirror that is not a folder, raises :class:`DatasetError` (a setting to fix, not missing
data)."""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from kmdr._io import atomic_writer
from kmdr._log import say

from ._progress import download_progressbar

MIRROR_ENV = "KMDR_DATA_MIRROR"
DATA_DIR_ENV = "KMDR_DATA_DIR"
_REGISTRY_FILE = Path(__file__).with_name("registry.txt")
#: The registry word that marks a file its URL no longer serves.
UNSERVED = "unserved"
#: The hash form of a file pinned by its git blob id (pooch knows no such algorithm).
GIT_BLOB = "gitblob"
_ALGORITHMS = ("md5", "sha1", GIT_BLOB)


class DatasetUnavailable(RuntimeError):
    """A data file cannot be obtained: not cached, not in the mirror, and the download failed."""


class DatasetError(ValueError):
    """A dataset cannot be used as it is (a bad setting, file, parameter or loader result); the
    message is one line naming the problem and the fix."""


class DataIntegrityError(DatasetError):
    """A data file's hash differs from the registry's (a corrupted or different file)."""


def check_locations(data_dir: Path, mirror_dir: Path | None) -> None:
    """Raise :class:`DatasetError` when the cache is a file or the mirror is not a folder.

    Called with the mirror only when a file is to be taken from it (the cache lacks it): a mirror
    that does not exist then is a mistyped setting, not "no mirror", and falling through to a
    download would hide it; a mirror no longer needed (every file cached) is not checked.
    """
    if data_dir.exists() and not data_dir.is_dir():
        raise DatasetError(
            f"the data cache {data_dir} is a file, not a folder; point data_dir "
            f"(or {DATA_DIR_ENV}) to a folder"
        )
    if mirror_dir is None or mirror_dir.is_dir():
        return
    what = "is a file, not a folder" if mirror_dir.exists() else "does not exist"
    raise DatasetError(
        f"the data mirror {mirror_dir} {what}; point {MIRROR_ENV} (or mirror) to a folder "
        f"holding the data files, or unset it to download them"
    )


@dataclass(frozen=True)
class FileEntry:
    """One registry line: ``path`` relative to the cache/mirror, ``known_hash`` (pooch's form:
    a sha256 hex digest or ``"<alg>:<hex>"``; None if unknown), ``url`` (its source),
    ``downloadable`` (False when the source no longer serves it)."""

    path: str
    known_hash: str | None
    url: str
    downloadable: bool = True

    @property
    def algorithm(self) -> str:
        """The hash's algorithm (``sha256`` unless the registry names another)."""
        return self.known_hash.partition(":")[0] if ":" in (self.known_hash or "") else "sha256"


@cache
def registry() -> dict[str, FileEntry]:
    """All registered files, keyed by their path relative to the cache directory."""
    entries: dict[str, FileEntry] = {}
    for lineno, raw in enumerate(_REGISTRY_FILE.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) not in (3, 4) or parts[3:] not in ([], [UNSERVED]):
            raise ValueError(
                f"{_REGISTRY_FILE}:{lineno}: expected 'path hash url [{UNSERVED}]', got {raw!r}"
            )
        path, digest, url = parts[:3]
        digest = None if digest == "-" else digest.lower()
        if digest is not None and ":" in digest and digest.partition(":")[0] not in _ALGORITHMS:
            raise ValueError(f"{_REGISTRY_FILE}:{lineno}: unknown hash algorithm in {raw!r}")
        entries[path] = FileEntry(path, digest, url, downloadable=len(parts) == 3)
    return entries


def _repo_root() -> Path | None:
    """The source checkout holding this package (an editable install), if any."""
    root = Path(__file__).resolve().parents[3]
    if (root / "pyproject.toml").is_file() and (root / "src" / "kmdr").is_dir():
        return root
    return None


def resolve_data_dir(data_dir: str | os.PathLike | None = None) -> Path:
    """The cache directory, the one place its rule is stated: the argument, else
    ``KMDR_DATA_DIR``, else where the package runs from: kmdr run from a source checkout (an
    editable install, as ``make install`` makes) caches in the checkout's ``datasets/``, next to
    the results it reproduces; an installed kmdr (``pip install .``, a wheel) in the user's cache
    folder, as installed packages do (:func:`pooch.os_cache`: ``~/.cache/kmdr`` on Linux,
    ``~/Library/Caches/kmdr`` on macOS), never in the folder it happens to be run from."""
    if data_dir is not None:
        return Path(data_dir).expanduser()
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        return Path(env).expanduser()
    root = _repo_root()
    if root is not None:
        return root / "datasets"
    import pooch  # pooch and requests load where a file is hashed or downloaded

    return Path(pooch.os_cache("kmdr"))


def resolve_mirror(mirror: str | os.PathLike | None = None) -> Path | None:
    """The mirror folder: argument > ``KMDR_DATA_MIRROR`` > none."""
    if mirror is not None:
        return Path(mirror).expanduser()
    env = os.environ.get(MIRROR_ENV)
    return Path(env).expanduser() if env else None


def sha256(path: str | os.PathLike) -> str:
    """The sha256 hex digest of a file."""
    import pooch

    return pooch.file_hash(str(path), alg="sha256")


def git_blob_id(path: str | os.PathLike) -> str:
    """The file's git blob id, what ``git hash-object FILE`` prints: the SHA-1 of
    ``b"blob <size>\\0"`` followed by the file's bytes."""
    path = Path(path)
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode(), usedforsecurity=False)
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_hash(path: str | os.PathLike, entry: FileEntry) -> str:
    """``path``'s hash in the form of ``entry``'s pinned one (``md5:<hex>`` for an md5 pin,
    ``gitblob:<hex>`` for a git blob id)."""
    import pooch

    if entry.algorithm == GIT_BLOB:
        return f"{GIT_BLOB}:{git_blob_id(path)}"
    digest = pooch.file_hash(str(path), alg=entry.algorithm)
    return digest if entry.algorithm == "sha256" else f"{entry.algorithm}:{digest}"


def _check(path: Path, entry: FileEntry, source: str, fix: str) -> None:
    actual = file_hash(path, entry)
    if actual != entry.known_hash:
        raise DataIntegrityError(
            f"{source}: {entry.algorithm} mismatch for {entry.path}: expected "
            f"{entry.known_hash}, got {actual}; {fix}"
        )


def _report_sha256(path: Path, entry: FileEntry) -> None:
    """Log the sha256 of a file just verified by its git blob id: the digest a user can pin
    and check with the common tools (``sha256sum``)."""
    if entry.algorithm == GIT_BLOB:
        say(f"{entry.path} matches its git blob id; its sha256 is {sha256(path)}")


def _download(entry: FileEntry, cache_dir: Path) -> Path:
    """Download one file into the cache with pooch (which verifies the hash when known).

    pooch's own log lines ("Downloading file ...") are off: the progress bar shows a download,
    and a failure is one line of kmdr's.
    """
    import pooch

    pooch.get_logger().setLevel(logging.WARNING)
    if entry.algorithm == GIT_BLOB:
        return _download_git_blob(entry, cache_dir)
    pup = pooch.create(
        path=cache_dir,
        base_url="",
        registry={entry.path: entry.known_hash},
        urls={entry.path: entry.url},
        retry_if_failed=0,
    )
    return Path(pup.fetch(entry.path, progressbar=download_progressbar()))


def _download_git_blob(entry: FileEntry, cache_dir: Path) -> Path:
    """Download a file pinned by its git blob id into a temporary folder beside the cache, check
    it there and move it into place: a file that fails the check is never kept."""
    import pooch

    target = cache_dir / entry.path
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".download-") as partial:
        got = Path(
            pooch.retrieve(
                entry.url,
                known_hash=None,
                fname=target.name,
                path=partial,
                progressbar=download_progressbar(),
            )
        )
        fix = f"the server sent another file: put the registered file in {MIRROR_ENV} instead"
        _check(got, entry, f"downloaded {entry.url}", fix)
        os.replace(got, target)
    _report_sha256(target, entry)
    return target


def fetch(
    path: str,
    *,
    dataset: str,
    data_dir: str | os.PathLike | None = None,
    mirror: str | os.PathLike | None = None,
) -> Path:
    """Return a local, verified copy of the registered file ``path`` (see the module docstring).

    ``dataset`` only names the dataset in error messages.
    """
    try:
        entry = registry()[path]
    except KeyError:
        raise KeyError(f"{path!r} is not in the data registry {_REGISTRY_FILE}") from None
    cache_dir = resolve_data_dir(data_dir)
    check_locations(cache_dir, None)
    target = cache_dir / entry.path
    if entry.known_hash is None:  # nothing could tell the published file from another
        raise DatasetUnavailable(
            f"{dataset}: {entry.path} has no pinned hash in kmdr's data registry, so no copy of "
            f"it can be checked and it is not used; once you have a copy you have checked "
            f"against its source ({entry.url}), pin its sha256 (`sha256sum`) on its line of "
            # named inside the package, not by this machine's path: the reason is recorded
            f"kmdr's datasets/registry.txt (src/kmdr/datasets/registry.txt in a clone)"
        )

    # 1. The cache, when its copy is right.
    cached_hash = None
    if target.is_file():
        cached_hash = file_hash(target, entry)
        if cached_hash == entry.known_hash:
            return target

    # 2. The mirror: copy through a temporary file, verify, then move into place.
    mirror_dir = resolve_mirror(mirror)
    check_locations(cache_dir, mirror_dir)
    if mirror_dir is not None and (mirror_dir / entry.path).is_file():
        source = mirror_dir / entry.path
        fix = (
            f"the mirror's copy is damaged or another file: replace it with the file from "
            f"{entry.url}, or remove it to download that"
        )
        _check(source, entry, f"mirror file {source}", fix)
        # The copy is verified before it is moved into place (a failed check removes it); it
        # is readable by whoever the umask allows, like a file the download would create.
        try:
            with atomic_writer(target, binary=True) as out, open(source, "rb") as src:
                shutil.copyfileobj(src, out)
                out.flush()
                _check(Path(out.name), entry, f"copy of {source}", "copy it again")
        except OSError as err:  # a cache that cannot hold the file: a setting, not bad data
            raise DatasetError(
                f"cannot copy {source} into the data cache as {target} "
                f"({type(err).__name__}: {err.strerror or err}); make {cache_dir} a writable "
                f"folder with room for it, or point {DATA_DIR_ENV} elsewhere"
            ) from err
        _report_sha256(target, entry)
        return target

    # 3. Download (pooch verifies the hash when one is known), where the source still serves it.
    if not entry.downloadable:
        where = f"{mirror_dir / entry.path} not found" if mirror_dir else f"{MIRROR_ENV} not set"
        raise DatasetUnavailable(
            f"{dataset}: cannot obtain {entry.path}: {entry.url} does not serve it and no "
            f"public copy is known; {where} (put the file at {target} or in the folder "
            f"{MIRROR_ENV} names)"
        )
    try:
        return _download(entry, cache_dir)
    except DataIntegrityError:  # a downloaded file pinned by its git blob id: one line already
        raise
    except Exception as err:
        import requests

        if isinstance(err, ValueError) and not isinstance(err, requests.RequestException):
            # pooch's message names the file and both hashes
            message = " ".join(str(err).split())
            raise DataIntegrityError(
                f"downloaded {entry.url} for {entry.path}: {message}; the server sent another "
                f"file: put the registered file in {MIRROR_ENV} instead"
            ) from err
        if cached_hash is not None:
            raise DataIntegrityError(
                f"cached file {target}: {entry.algorithm} mismatch for {entry.path}: expected "
                f"{entry.known_hash}, got {cached_hash} (damaged or edited, and no mirror copy or "
                f"download to replace it); remove it and fetch it again (kmdr-data {dataset}) "
                f"with {MIRROR_ENV} set or the network up"
            ) from err
        where = f"{mirror_dir / entry.path} not found" if mirror_dir else f"{MIRROR_ENV} not set"
        raise DatasetUnavailable(
            f"{dataset}: cannot obtain {entry.path}: download of {entry.url} failed "
            f"({type(err).__name__}); {where} (set {MIRROR_ENV} to a folder holding {entry.path})"
        ) from err
