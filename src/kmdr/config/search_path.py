"""Where kmdr's configs are found: its own, and every paper's beside them.

kmdr's own configs are the package ``kmdr.conf`` (:data:`CONF_PACKAGE`), or the folder
``$KMDR_CONF_DIR`` names (:func:`env_conf_dir`). A paper's package may hold its presets and dataset
options (:class:`kmdr.plugins.Paper`'s ``configs``, e.g. ``kmdr.papers.pb17.conf`` with
``experiment/pb17_digits.yaml``). Hydra calls :class:`PapersSearchPath` whenever it builds a search
path, for the command line and the Compose API alike (``kmdr.run``, ``make reproduce``): it appends
each paper's config package after kmdr's own configs, so that ``experiment=pb17_digits`` is found as
``experiment=bzmd14_orl`` is, and an installed paper's presets as well. Any other search path
(another Hydra app's) is left as it is.

:mod:`kmdr.app.compose` registers it with Hydra's ``Plugins.register``, beside
the schema in the ConfigStore, rather than leaving Hydra to find it in its ``hydra_plugins``
namespace: Hydra cannot scan that namespace in an editable install.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path

from hydra.plugins.search_path_plugin import SearchPathPlugin

from kmdr.config.errors import ConfigError

__all__ = ["CONF_ENV", "CONF_PACKAGE", "PapersSearchPath", "env_conf_dir", "is_kmdr_search_path"]

CONF_PACKAGE = "kmdr.conf"
CONF_ENV = "KMDR_CONF_DIR"


def env_conf_dir() -> Path | None:
    """The folder ``$KMDR_CONF_DIR`` names (None when unset); a one-line ConfigError when it
    holds no ``config.yaml``."""
    env = os.environ.get(CONF_ENV)
    if not env:
        return None
    path = Path(env).expanduser().resolve()
    if not (path / "config.yaml").is_file():
        raise ConfigError(
            f"{CONF_ENV}={env} holds no config.yaml: point it at a kmdr conf/ folder or unset it"
        )
    return path


def is_kmdr_search_path(paths: Sequence[str]) -> bool:
    """Whether a Hydra search path (its elements' paths) holds kmdr's primary configs:
    ``pkg://kmdr.conf``, its folder, or the ``$KMDR_CONF_DIR`` folder."""
    if f"pkg://{CONF_PACKAGE}" in paths:
        return True
    try:
        env = env_conf_dir()
    except ConfigError:  # the run refuses it in one line; nothing to add to it here
        env = None
    spec = importlib.util.find_spec(CONF_PACKAGE)
    own = {Path(p).resolve() for p in (spec.submodule_search_locations or ())} if spec else set()
    own |= {env} if env is not None else set()
    return any(
        Path(path.removeprefix("file://")).expanduser().resolve() in own
        for path in paths
        if "://" not in path or path.startswith("file://")
    )


class PapersSearchPath(SearchPathPlugin):
    """Appends every paper's ``configs`` package to a search path of kmdr's configs."""

    def manipulate_search_path(self, search_path) -> None:
        from kmdr.plugins import papers

        if not is_kmdr_search_path([element.path for element in search_path.get_path()]):
            return
        for paper in papers():
            if paper.configs is not None:
                search_path.append(f"kmdr-{paper.key}", f"pkg://{paper.configs}")
