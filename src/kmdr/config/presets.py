"""Where kmdr's Hydra configs live: the one place that says it, for the command line
(:func:`hydra.main`), the Compose API (:func:`kmdr.app.compose.initialized`) and the search-path
plug-in (:mod:`kmdr.config.search_path`).

The configs ship in the package ``kmdr.conf`` (the repository's ``conf/`` folder, mapped in
``pyproject.toml``) and are searched as ``pkg://kmdr.conf``, so any install, editable or not,
finds them from any folder. ``$KMDR_CONF_DIR`` points at another ``conf/`` folder instead (a
checkout's configs while the installed package is another one's). This module reads nothing of
Hydra's global state.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from pathlib import Path

from kmdr.config.errors import ConfigError

CONF_PACKAGE = "kmdr.conf"
CONF_ENV = "KMDR_CONF_DIR"


def config_path() -> str:
    """Hydra's ``config_path`` of kmdr's configs: the folder ``$KMDR_CONF_DIR`` names, else
    ``pkg://kmdr.conf``; a one-line ConfigError when that folder holds no ``config.yaml`` or the
    package is not installed."""
    env = os.environ.get(CONF_ENV)
    if env:
        path = Path(env).expanduser().resolve()
        if not (path / "config.yaml").is_file():
            raise ConfigError(
                f"{CONF_ENV}={env} holds no config.yaml: point it at a kmdr conf/ folder or "
                "unset it"
            )
        return str(path)
    if importlib.util.find_spec(CONF_PACKAGE) is None:
        raise ConfigError(
            f"the configs package {CONF_PACKAGE} is not installed: reinstall kmdr from its "
            f"checkout (`pip install .`, or `pip install -e .` as `make install` does) or set "
            f"{CONF_ENV} to a conf/ folder"
        )
    return f"pkg://{CONF_PACKAGE}"


def conf_dir() -> Path:
    """The folder on disk of :func:`config_path`, for reading the yaml files themselves."""
    path = config_path()
    if not path.startswith("pkg://"):
        return Path(path)
    import kmdr.conf

    return Path(kmdr.conf.__file__).resolve().parent


def preset_files() -> list[Path]:
    """Every preset file of kmdr and of its papers (``experiment/*.yaml`` in :func:`conf_dir`
    and in each paper's ``configs`` package), as the search path finds them, without Hydra."""
    from importlib import resources

    from kmdr.plugins import papers

    folders = [conf_dir() / "experiment"]
    for paper in papers():
        if paper.configs is not None:
            try:
                folders.append(Path(str(resources.files(paper.configs))) / "experiment")
            except ModuleNotFoundError:
                continue
    return [file for folder in folders if folder.is_dir() for file in sorted(folder.glob("*.yaml"))]


def preset_names_by_title() -> dict[str, list[str]]:
    """The experiment names of kmdr's presets (:func:`preset_files`), by their ``preset.title``,
    as the files write them (an interpolated name, ``${dataset.name}``, as written): what tells
    a run of a preset under its own name from a user's run started from it."""
    return _names_by_title(tuple(preset_files()))


@functools.cache
def _names_by_title(files: tuple[Path, ...]) -> dict[str, list[str]]:
    # read once per set of files: a report asks for each of its folders
    from omegaconf import OmegaConf

    out: dict[str, list[str]] = {}
    for file in files:
        # as written, unresolved: an interpolated name stays ``${dataset.name}``
        config = OmegaConf.to_container(OmegaConf.load(file), resolve=False)
        title = (config.get("preset") or {}).get("title")
        name = config.get("name")
        if title is not None and name is not None:
            out.setdefault(str(title), []).append(str(name))
    return out
