"""Where kmdr's Hydra configs live and how to compose them (Hydra's public API only).

The configs ship in the package ``kmdr.conf`` (the repository's ``conf/`` folder, mapped in
``pyproject.toml``) and are searched as ``pkg://kmdr.conf``, so any install, editable or not,
finds them from any folder. ``$KMDR_CONF_DIR`` points at another ``conf/`` folder instead (a
checkout's configs while the installed package is another one's).

    with initialized():
        cfg = compose("config", overrides=["experiment=bzmd14_orl"])
        names = group_options("experiment")
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from kmdr.experiments.spec import ConfigError

__all__ = [
    "CONF_ENV",
    "CONF_PACKAGE",
    "composed_presets",
    "conf_dir",
    "config_path",
    "group_options",
    "initialized",
    "presets",
]

CONF_PACKAGE = "kmdr.conf"
CONF_ENV = "KMDR_CONF_DIR"


def _env_dir() -> Path | None:
    env = os.environ.get(CONF_ENV)
    if not env:
        return None
    path = Path(env).expanduser().resolve()
    if not (path / "config.yaml").is_file():
        raise ConfigError(
            f"{CONF_ENV}={env} holds no config.yaml: point it at a kmdr conf/ folder or unset it"
        )
    return path


def _check_package() -> None:
    if importlib.util.find_spec(CONF_PACKAGE) is None:
        raise ConfigError(
            f"the configs package {CONF_PACKAGE} is not installed: reinstall kmdr from its "
            f"checkout (`pip install .`, or `pip install -e .` as `make install` does) or set "
            f"{CONF_ENV} to a conf/ folder"
        )


def config_path() -> str:
    """The ``config_path`` for :func:`hydra.main`: ``$KMDR_CONF_DIR`` or ``pkg://kmdr.conf``."""
    env = _env_dir()
    if env is not None:
        return str(env)
    _check_package()
    return f"pkg://{CONF_PACKAGE}"


def conf_dir() -> Path:
    """The config folder on disk (``$KMDR_CONF_DIR`` or the installed ``kmdr.conf``), for
    :func:`hydra.initialize_config_dir` and for reading the yaml files themselves."""
    env = _env_dir()
    if env is not None:
        return env
    _check_package()
    import kmdr.conf

    return Path(kmdr.conf.__file__).resolve().parent


@contextmanager
def initialized(job_name: str = "kmdr") -> Iterator[None]:
    """Hydra initialized on kmdr's configs, with the schema registered, for :func:`compose`."""
    from hydra import initialize_config_dir, initialize_config_module

    import kmdr.experiments.schema  # noqa: F401  (registers the schema in the ConfigStore)

    env = _env_dir()
    if env is not None:
        init = initialize_config_dir(config_dir=str(env), version_base=None, job_name=job_name)
    else:
        _check_package()
        init = initialize_config_module(CONF_PACKAGE, version_base=None, job_name=job_name)
    with init:
        yield


def group_options(group: str) -> list[str]:
    """The options of a config group (``dataset``, ``reducer``, ``experiment``), sorted; call it
    inside :func:`initialized`."""
    from hydra.core.global_hydra import GlobalHydra

    return sorted(GlobalHydra.instance().config_loader().get_group_options(group))


def composed_presets(
    folder: str | os.PathLike | None = None, overrides: Sequence[str] = ()
) -> list[tuple[str, object]]:
    """Every preset of ``experiment/``, composed by Hydra with the schema (so defaults apply):
    ``(option name, DictConfig)``, by option name. ``folder``: another conf/ folder;
    ``overrides``: Hydra overrides applied to every preset."""
    from hydra import compose, initialize_config_dir

    import kmdr.experiments.schema  # noqa: F401  (registers the schema in the ConfigStore)

    if folder is None:
        init = initialized()
    else:
        init = initialize_config_dir(
            config_dir=str(Path(folder).resolve()), version_base=None, job_name="kmdr"
        )
    with init:
        return [
            (name, compose("config", overrides=[f"experiment={name}", *overrides]))
            for name in group_options("experiment")
        ]


def presets(composed: Iterable[tuple[str, object]] | None = None) -> list[dict]:
    """Every ``conf/experiment`` preset: ``{"name": ..., **preset block}`` (enums as strings),
    in the presets' ``order`` (then by name). ``composed``: pairs :func:`composed_presets`
    returned (default: composed now)."""
    from kmdr.experiments.schema import to_container

    pairs = composed_presets() if composed is None else composed
    out = [{"name": name, **to_container(cfg.preset)} for name, cfg in pairs]
    return sorted(out, key=lambda p: (p["order"], p["name"]))
