"""Hydra's side of composing a job: the folders of the config search path
(:func:`check_search_path`), one line for an error Hydra or OmegaConf raises while composing
(:func:`composition_problem`), the reducer a ``reducer=`` option keeps of a preset
(:func:`only_reducer`), and the folder of its own that a run of a preset which changes what the
preset fixes gets (:func:`own_folder`). Turning the composed config into the run's objects is
:func:`kmdr.config.objects.checked`'s, which uses these. Every problem is a one-line
:class:`~kmdr.config.errors.ConfigError`.
"""

from __future__ import annotations

from pathlib import Path

from kmdr._errors import error_chain
from kmdr.config.errors import ConfigError, config_line
from kmdr.config.overrides import keys

__all__ = [
    "PRIMARY_CONFIG",
    "check_search_path",
    "check_user_folder",
    "compose_primary",
    "composition_problem",
    "only_reducer",
    "own_folder",
]

#: The primary config's name (``conf/config.yaml``).
PRIMARY_CONFIG = "config"


def only_reducer(choices) -> str | None:
    """With both an experiment preset and a reducer option, run only that reducer's entries."""
    if choices.get("experiment") and choices.get("reducer"):
        return str(choices["reducer"])
    return None


def check_search_path(hc) -> None:
    """Every config folder the command added (``-cd DIR``, ``hydra.searchpath``) exists: Hydra
    would warn and compose without it."""
    for source in hc.runtime.config_sources:
        if source.schema != "file" or source.provider in ("main", "hydra", "schema"):
            continue
        flag = "-cd" if source.provider == "command-line" else "hydra.searchpath"
        _check_folder(flag, source.path)


def _check_folder(flag: str, path: str) -> None:
    """A config folder given with ``flag`` is a folder: a one-line ConfigError otherwise."""
    folder = Path(path)
    if not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "does not exist"
        raise ConfigError(
            f"{flag} {path}: the config folder {what}; give the folder that holds your "
            "dataset/, reducer/ and experiment/ configs"
        )


def check_user_folder(folder: str) -> None:
    """A config folder given with ``-cd`` holds no config that a built-in of the same name would
    hide (:func:`kmdr.config.presets.check_user_configs`), checked before Hydra starts for what
    runs no task (``--cfg``): the folder is put on the search path of a composition of the
    primary config, as Hydra would put it. A one-line ConfigError otherwise."""
    from kmdr.config.presets import check_user_configs, initialized

    _check_folder("-cd", folder)
    where = Path(folder).expanduser().resolve()
    with initialized():
        cfg = compose_primary([f"hydra.searchpath=[file://{where}]"])
        check_user_configs(cfg.hydra)


def compose_primary(overrides: list[str]):
    """The primary config composed with ``overrides``, its Hydra config included (call it
    inside :func:`kmdr.config.presets.initialized`); an error Hydra or OmegaConf raises while
    composing is a one-line ConfigError (:func:`composition_problem`)."""
    from hydra import compose

    try:
        return compose(PRIMARY_CONFIG, overrides=overrides, return_hydra_config=True)
    except Exception as err:
        problem = composition_problem(err)
        if problem is None:
            raise
        raise ConfigError(problem) from None


def own_folder(cfg, choices, config_name: str, overrides: list[str], task: list[str]) -> str | None:
    """A run of a preset that changes what the preset fixes gets a folder of its own
    (:func:`kmdr.config.presets.own_folder`; ``cfg`` is changed in place). The preset is
    composed alone, with the command's config search path (``overrides``: Hydra's), to compare,
    unless no override of the job (``task``) touches a key the preset fixes; returns the line
    that announces the change, or None."""
    from hydra import compose

    from kmdr.config.presets import PRESET_FIXES
    from kmdr.config.presets import own_folder as _own

    preset = choices.get("experiment")
    if not preset:
        return None
    touched = {k.split(".")[0].strip("/") for k in keys(task) if k is not None}
    if not touched & {*PRESET_FIXES, "reducer"}:
        return None
    search = [o for o, k in zip(overrides, keys(overrides), strict=True) if k == "hydra.searchpath"]
    return _own(cfg, compose(config_name, [f"experiment={preset}", *search]))


def composition_problem(err: BaseException) -> str | None:
    """One line for an error met while composing a config, or None if ``err`` is not one."""
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from kmdr.config.presets import yaml_problem

    for cause in error_chain(err):  # a YAML syntax error anywhere in the chain names its file
        problem = yaml_problem(cause)
        if problem is not None:
            return problem
    if isinstance(err, HydraException | OmegaConfBaseException | ConfigError):
        return config_line(err)
    return None
