"""From a composed config to the run's three objects, once: the one path of the command line,
the Python API and a notebook.

:func:`checked` takes what Hydra composed for one job (the config and its Hydra config) and
returns a :class:`Composed`: the checked :class:`~kmdr.config.objects.Experiment`,
:class:`~kmdr.config.objects.Execution` and :class:`~kmdr.config.objects.Output`, the resolved
config a run records, and the line saying that a run of a preset which changes what the preset
fixes got a folder of its own. :func:`compose_overrides` composes override strings with Hydra's
Compose API against the same primary config and schema (``kmdr.run``,
:meth:`~kmdr.config.objects.Experiment.from_overrides`), and hands the result to
:func:`checked`. Every problem is a one-line :class:`~kmdr.config.errors.ConfigError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kmdr._errors import error_chain
from kmdr.config.errors import ConfigError, one_line
from kmdr.config.objects import Configured, Execution, Experiment, Output, from_config

__all__ = [
    "PRIMARY_CONFIG",
    "Composed",
    "check_search_path",
    "checked",
    "compose_overrides",
    "composition_problem",
    "only_reducer",
    "own_folder",
]

#: The primary config's name (``conf/config.yaml``).
PRIMARY_CONFIG = "config"


@dataclass(frozen=True)
class Composed:
    """One job's checked objects, the resolved config its run records, and the line announcing
    that it runs in a folder of its own (None when it does not)."""

    experiment: Experiment
    execution: Execution
    output: Output
    record: dict
    moved: str | None = None

    @property
    def objects(self) -> Configured:
        return Configured(self.experiment, self.execution, self.output)


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
        folder = Path(source.path)
        if not folder.is_dir():
            flag = "-cd" if source.provider == "command-line" else "hydra.searchpath"
            what = "is a file, not a folder" if folder.exists() else "does not exist"
            raise ConfigError(
                f"{flag} {source.path}: the config folder {what}; give the folder that holds "
                "your dataset/, reducer/ and experiment/ configs"
            )


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
    touched = {o.lstrip("+~").partition("=")[0].split(".")[0].strip("/") for o in task}
    if not touched & {*PRESET_FIXES, "reducer"}:
        return None
    search = [o for o in overrides if o.lstrip("+~").startswith("hydra.searchpath")]
    return _own(cfg, compose(config_name, [f"experiment={preset}", *search]))


def checked(cfg, hc) -> Composed:
    """The job ``cfg`` (composed by Hydra; ``hc``: its Hydra config) checked and turned into the
    run's objects, once (see the module docstring). Raises a one-line ConfigError."""
    from kmdr.config.checks import check_given, check_preset
    from kmdr.config.schema import to_container

    check_search_path(hc)
    choices = dict(hc.runtime.choices)
    # Every setting given is used, or refused: a key given twice, an override of a reducer entry
    # the run filters out, a user config hidden by a built-in of the same name.
    check_given(hc.overrides.task, cfg.get("reducers"), only_reducer(choices))
    # The preset's own metadata, before a changed run drops them for an ad-hoc run's.
    check_preset({key: cfg.preset[key] for key in ("paper", "figure", "section")})
    moved = own_folder(
        cfg, choices, hc.job.config_name, [*hc.overrides.hydra], [*hc.overrides.task]
    )
    objects = from_config(cfg, only_reducer=only_reducer(choices))
    record = to_container(cfg)
    record["choices"] = {k: v for k, v in choices.items() if "/" not in k}
    record["overrides"] = list(hc.overrides.task)
    return Composed(*objects, record=record, moved=moved)


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
        return one_line(err)
    return None


def _override_list(overrides) -> list[str]:
    """``overrides`` (a str or an iterable of str) as a list; one ConfigError line for what is
    not one job's override."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    items = [overrides] if isinstance(overrides, str) else list(overrides)
    for text in items:
        if not isinstance(text, str):
            raise ConfigError(
                f"overrides are strings such as 'repeats=2', not {text!r} ({type(text).__name__})"
            )
        if text.startswith("-"):
            raise ConfigError(
                f"overrides are key=value, not the command-line flag {text!r}; one job per call "
                "(a sweep: one call per value)"
            )
    parser = OverridesParser.create()
    for text in items:
        try:
            parsed = parser.parse_overrides([text])
        except HydraException as err:
            raise ConfigError(one_line(err)) from None
        for override in parsed:
            if override.is_sweep_override():
                raise ConfigError(
                    f"{override.input_line!r} is a sweep, and this runs one job; give one value "
                    "per call (or write a list as key=[a,b])"
                )
    return items


def compose_overrides(overrides) -> Composed:
    """Compose ``overrides`` (a str or a list of str in the command line's grammar) as the
    command line composes one job, and check it (:func:`checked`)."""
    from hydra import compose
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import open_dict, read_write

    from kmdr.config.presets import initialized

    items = _override_list(overrides)
    with initialized():
        try:
            cfg = compose(PRIMARY_CONFIG, overrides=items, return_hydra_config=True)
        except Exception as err:
            problem = composition_problem(err)
            if problem is None:
                raise
            raise ConfigError(problem) from None
        HydraConfig.instance().set_config(cfg)
        hc = HydraConfig.get()
        with read_write(cfg), open_dict(cfg):  # the job's config, as under hydra.main
            del cfg["hydra"]
        return checked(cfg, hc)
