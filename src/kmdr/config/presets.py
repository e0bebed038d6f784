"""Where kmdr's Hydra configs live.

The configs ship in the package ``kmdr.conf`` (the repository's ``conf/`` folder, mapped in
``pyproject.toml``) and are searched as ``pkg://kmdr.conf``, so any install, editable or not,
finds them from any folder. ``$KMDR_CONF_DIR`` points at another ``conf/`` folder instead (a
checkout's configs while the installed package is another one's). Composing them is the command
line's (:mod:`kmdr.app.compose`): this module reads nothing of Hydra's global state.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from kmdr.config.errors import ConfigError
from kmdr.config.search_path import CONF_ENV, CONF_PACKAGE, env_conf_dir


def check_package() -> None:
    """A one-line ConfigError when the configs package is not installed."""
    if importlib.util.find_spec(CONF_PACKAGE) is None:
        raise ConfigError(
            f"the configs package {CONF_PACKAGE} is not installed: reinstall kmdr from its "
            f"checkout (`pip install .`, or `pip install -e .` as `make install` does) or set "
            f"{CONF_ENV} to a conf/ folder"
        )


def config_path() -> str:
    """The ``config_path`` for :func:`hydra.main`: ``$KMDR_CONF_DIR`` or ``pkg://kmdr.conf``."""
    env = env_conf_dir()
    if env is not None:
        return str(env)
    check_package()
    return f"pkg://{CONF_PACKAGE}"


def conf_dir() -> Path:
    """The config folder on disk (``$KMDR_CONF_DIR`` or the installed ``kmdr.conf``), for
    :func:`hydra.initialize_config_dir` and for reading the yaml files themselves."""
    env = env_conf_dir()
    if env is not None:
        return env
    check_package()
    import kmdr.conf

    return Path(kmdr.conf.__file__).resolve().parent
