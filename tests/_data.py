"""Real data for the tests, found the way kmdr finds it.

A file comes from the data cache (``KMDR_DATA_DIR``, else the checkout's ``datasets/``), else the
mirror (``KMDR_DATA_MIRROR``), else a download, each verified by its sha256: exactly what
:func:`kmdr.datasets.load_dataset` does for a user. A test skips, with kmdr's own reason, only
when none of them can give the data; a file that is there but wrong fails the test.

The cache and mirror are those of the environment the tests were started in (read once, at
import), so a test that points ``KMDR_DATA_DIR`` at a temporary folder still finds the real data.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

import kmdr.datasets as kd
from kmdr.datasets import _registry

CACHE = kd.resolve_data_dir()
MIRROR = kd.resolve_mirror()
# The real download, saved before a test module disables it for its own tests.
_DOWNLOAD = _registry._download


@cache
def _obtain_file(path: str, dataset: str) -> Path | str:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_registry, "_download", _DOWNLOAD)
        try:
            return _registry.fetch(path, dataset=dataset, data_dir=CACHE, mirror=MIRROR)
        except kd.DatasetUnavailable as err:
            return str(err)


@cache
def _obtain(name: str) -> kd.Dataset | str:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_registry, "_download", _DOWNLOAD)
        try:
            return kd.load_dataset(name, data_dir=CACHE, mirror=MIRROR)
        except kd.DatasetUnavailable as err:
            return str(err)


def real_dataset(name: str) -> kd.Dataset:
    """The real dataset ``name`` (loaded once per session), or a skip with kmdr's reason."""
    got = _obtain(name)
    if isinstance(got, str):
        pytest.skip(got)
    return got


def real_file(path: str, dataset: str) -> Path:
    """A verified local copy of the registered file ``path``, or a skip with kmdr's reason."""
    got = _obtain_file(path, dataset)
    if isinstance(got, str):
        pytest.skip(got)
    return got


def mirror_of(folder: Path, *paths: str, dataset: str) -> Path:
    """A mirror folder holding copies of the real registered ``paths`` (copies, never links: a
    test may damage its mirror); returns ``folder``."""
    import shutil

    for rel in paths:
        source = real_file(rel, dataset)
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return folder


def pin(monkeypatch, rel: str, path: Path) -> None:
    """Pin the registered file ``rel`` to the sha256 of the file at ``path`` for this test: kmdr
    refuses a file its registry pins no hash for (NIPS', RCV1's), so a test of what its loader
    does with a file's content pins the file it wrote, as a user who checked a copy would."""
    import dataclasses

    entry = _registry.registry()[rel]
    pinned = dataclasses.replace(entry, known_hash=_registry.sha256(path))
    monkeypatch.setitem(_registry.registry(), rel, pinned)
