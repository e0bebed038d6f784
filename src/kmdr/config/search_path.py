"""Where kmdr's configs are found: its own, and every paper's beside them.

kmdr's own configs are where :func:`kmdr.config.presets.config_path` says. A paper's package
may hold its presets and dataset options
(:class:`kmdr.plugins.Paper`'s ``configs``, e.g. ``kmdr.papers.pb17.conf`` with
``experiment/pb17_digits.yaml``). Hydra calls :class:`PapersSearchPath` whenever it builds a search
path, for the command line and the Compose API alike (``kmdr.run``, ``make reproduce``): it appends
each paper's config package after kmdr's own configs, so that ``experiment=pb17_digits`` is found as
``experiment=bzmd14_orl`` is, and an installed paper's presets as well. Any other search path
(another Hydra app's) is left as it is.

**A user's folder comes first.** Copying a preset into one's own folder and editing it is how
Hydra users work, so the first folder that holds an option is the one used, as Hydra's search
path orders them, and the ``-cd``/``--config-dir`` folder is put before kmdr's configs
(:func:`user_folder_first`, entered by the ``kmdr`` command around its Hydra app): Hydra itself
adds that folder after the app's own configs, and only after every search-path plug-in has run,
so a plug-in cannot move it; the command, which reads its own arguments, names it to the plug-in
instead (Hydra's own element stays too, last, where it finds nothing the first has not). A
folder given as ``hydra.searchpath`` (the only way ``kmdr.run`` and ``kmdr.compose`` take one)
cannot come first: Hydra adds it after every plug-in, at the end of the path, where an option of
one of kmdr's names stays kmdr's.

:mod:`kmdr.app.compose` registers it with Hydra's ``Plugins.register``, beside
the schema in the ConfigStore, rather than leaving Hydra to find it in its ``hydra_plugins``
namespace: Hydra cannot scan that namespace in an editable install.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from hydra.plugins.search_path_plugin import SearchPathPlugin

from kmdr.config.errors import ConfigError

#: The provider Hydra names the ``-cd`` folder by; the plug-in's copy of it before kmdr's configs
#: is named the same.
USER_PROVIDER = "command-line"
#: The config folders of the command's ``-cd`` (see :func:`user_folder_first`).
_FIRST: list[str] = []


@contextmanager
def user_folder_first(folder: str | os.PathLike | None) -> Iterator[None]:
    """While the block runs, a search path of kmdr's configs holds ``folder`` (the command's
    ``-cd``; None: nothing) before kmdr's own configs; the ``kmdr`` command is its one owner."""
    if folder is None:
        yield
        return
    _FIRST.append(f"file://{os.path.abspath(os.path.expanduser(folder))}")
    try:
        yield
    finally:
        _FIRST.pop()


@contextmanager
def kmdr_configs_only() -> Iterator[None]:
    """While the block runs, a search path of kmdr's configs holds no folder of the command's
    (what a preset of kmdr is, whatever a user's folder names like it)."""
    saved = _FIRST[:]
    _FIRST.clear()
    try:
        yield
    finally:
        _FIRST[:] = saved


def is_kmdr_search_path(paths: Sequence[str]) -> bool:
    """Whether a Hydra search path (its elements' paths) holds kmdr's primary configs
    (:func:`kmdr.config.presets.config_path`, or its folder)."""
    from kmdr.config.presets import CONF_PACKAGE, conf_dir

    if f"pkg://{CONF_PACKAGE}" in paths:
        return True
    try:
        own = conf_dir()
    except ConfigError:  # the run refuses it in one line; nothing to add to it here
        return False
    return any(
        Path(path.removeprefix("file://")).expanduser().resolve() == own
        for path in paths
        if "://" not in path or path.startswith("file://")
    )


class PapersSearchPath(SearchPathPlugin):
    """Puts the command's ``-cd`` folder before kmdr's configs, and appends every paper's
    ``configs`` package after them, in a search path of kmdr's configs."""

    def manipulate_search_path(self, search_path) -> None:
        from hydra.core.config_search_path import SearchPathQuery

        from kmdr.plugins import papers

        if not is_kmdr_search_path([element.path for element in search_path.get_path()]):
            return
        for folder in _FIRST:
            search_path.prepend(USER_PROVIDER, folder, anchor=SearchPathQuery(provider="main"))
        for paper in papers():
            if paper.configs is not None:
                search_path.append(f"kmdr-{paper.key}", f"pkg://{paper.configs}")
