"""The suite tests kmdr alone, whatever plug-ins are installed beside it: the distributions named
in ``KMDR_IGNORE_PLUGINS`` (tests/conftest.py names those installed at the session's start) are not
read, and every other plug-in still is."""

from __future__ import annotations

import os

import pytest

from kmdr.plugins._entry_points import IGNORED_ENV, all_entry_points


def _site(tmp_path, name: str, entry: str):
    site = tmp_path / name
    info = site / f"{name.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[kmdr.reducers]\n{entry} = some_module:ENTRY\n")
    return site


def _listed(tmp_path, ignored: str) -> str:
    """The reducer entry points kmdr reads with both plug-ins on the path and ``ignored`` set:
    its one scan of the installed packages, made again here and forgotten after."""
    sites = [str(_site(tmp_path, n, e)) for n, e in (("users-plugin", "mine"), ("other", "theirs"))]
    with pytest.MonkeyPatch.context() as mp:
        for site in sites:
            mp.syspath_prepend(site)
        mp.setenv(IGNORED_ENV, ignored)
        all_entry_points.cache_clear()
        try:
            return str(sorted(ep.name for ep in all_entry_points().select(group="kmdr.reducers")))
        finally:
            all_entry_points.cache_clear()


def test_an_ignored_distribution_is_not_read_and_the_others_are(tmp_path):
    both = _listed(tmp_path / "a", "")
    assert "'mine'" in both and "'theirs'" in both
    # the name as pip spells it or as the metadata does: the same distribution
    for spelling in ("users-plugin", "Users_Plugin", " users.plugin ,unrelated"):
        one = _listed(tmp_path / spelling.strip().replace(" ", "").replace(",", "_"), spelling)
        assert "'mine'" not in one and "'theirs'" in one


def test_the_suite_ignores_what_was_installed_beside_kmdr():
    # conftest names every installed distribution, other than kmdr, declaring kmdr entry points
    import importlib.metadata

    ignored = set(filter(None, os.environ[IGNORED_ENV].split(",")))
    for dist in importlib.metadata.distributions():
        declares = any(ep.group.startswith("kmdr.") for ep in dist.entry_points)
        name = dist.metadata["Name"]
        if declares and name.lower() != "kmdr":
            assert name in ignored
    assert "kmdr" not in ignored
