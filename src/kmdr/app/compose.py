"""Composing a job with Hydra: the one module of kmdr that uses Hydra's global state.

* The schema and the generated options, registered in Hydra's ConfigStore when this module is
  imported (as a Hydra app registers its structured configs): :class:`kmdr.config.schema.RunConfig`
  as :data:`SCHEMA_NAME`, first in ``conf/config.yaml``'s defaults list; an option of the
  ``reducer`` group for every declared reducer and alias (none has a config file), a ``dataset``
  option for an installed plug-in's dataset, every generator's typed parameters
  (:func:`dataset_params_schema`), and the search-path plug-in that adds the papers' own configs
  (:class:`kmdr.config.search_path.PapersSearchPath`).
* :func:`checked`: a job Hydra composed (its config and its Hydra config), checked and turned into
  the run's objects once (:class:`~kmdr.config.schema.Configured`), which its record keeps:
  every setting given is used, refused in one line (a list of datasets or presets) or warned
  about when it changes nothing (an override of a reducer entry the run filters out). The
  command line's task, ``kmdr.run`` and ``make reproduce`` all check a job here; a run that
  names no results folder goes where :func:`kmdr.app.protocol.default_folder` says.
* :func:`compose_job`: the same job composed from override strings with Hydra's Compose API
  (``kmdr.run``, :func:`kmdr.compose`, ``make reproduce``), inside :func:`initialized`, which
  leaves Hydra's global state as it found it.

Every problem is a one-line :class:`~kmdr.config.errors.ConfigError`.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from kmdr.config.errors import ConfigError, warn_unused
from kmdr.config.overrides import SEARCH_PATH, key, keys, parse
from kmdr.config.presets import config_path
from kmdr.config.schema import (
    Configured,
    RunConfig,
    from_config,
)

#: kmdr's config groups and the plural their listings use.
GROUPS = {"dataset": "datasets", "reducer": "reducers", "experiment": "experiments"}
#: The primary config's name (``conf/config.yaml``).
PRIMARY_CONFIG = "config"
#: The ConfigStore name of :class:`~kmdr.config.schema.RunConfig`, first in ``conf/config.yaml``'s
#: defaults list.
SCHEMA_NAME = "kmdr_schema"
#: Hydra's notice, while it composes, that a config file of a plug-in reducer or dataset (a
#: ``-cd`` folder's ``reducer/<name>.yaml``) is merged over the option kmdr generates for it: the
#: file's values win, as a user expects, and the notice (of a behaviour Hydra deprecates) says
#: nothing to act on. Ignored where kmdr composes (:func:`hydra_notices_left_out`).
GENERATED_OPTION_NOTICE = r"\s*'(reducer|dataset)/[^']+' is validated against ConfigStore schema"


@contextmanager
def hydra_notices_left_out() -> Iterator[None]:
    """Leave out, while the block composes, Hydra's :data:`GENERATED_OPTION_NOTICE`, which says
    nothing to act on: on the command line and in ``kmdr.run``/``kmdr.compose``."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", GENERATED_OPTION_NOTICE, UserWarning)
        yield


def dataset_params_schema(dataset: str) -> str:
    """The ConfigStore name of dataset ``dataset``'s typed parameters: ``conf/dataset/<name>.yaml``
    puts it under ``params`` (``defaults: [/<this name>@params, _self_]``). A top-level name, not
    an option of the ``dataset`` group: Hydra would match a stored option to the yaml of the same
    name by itself (deprecated automatic schema matching)."""
    return f"{SCHEMA_NAME}_{dataset}_params"


def _register() -> None:
    """Register the schema, the generated options and the search-path plug-in (see the module
    docstring; idempotent). A reducer's declaration (:mod:`kmdr.reducers._builtins`, a paper's
    ``reducers``, or a plug-in's entry point) is all that ``reducer=<name>`` needs; listing the
    declarations imports no reducer module. A plug-in dataset gets ``{name, params: {}}`` (its
    parameters are its loader's defaults, set with ``dataset.params.<key>=...``) when kmdr has no
    option of that name."""
    from hydra.core.config_store import ConfigStore
    from hydra.core.plugins import Plugins

    from kmdr.config.search_path import PapersSearchPath
    from kmdr.datasets import DATASETS
    from kmdr.datasets._builtins import PARAM_SCHEMAS
    from kmdr.reducers import REDUCERS

    store = ConfigStore.instance()
    store.store(name=SCHEMA_NAME, node=RunConfig)
    Plugins.instance().register(PapersSearchPath)
    for dataset, params in PARAM_SCHEMAS.items():
        store.store(name=dataset_params_schema(dataset), node=params)
    names = REDUCERS.names()
    aliases = [(alias, name) for alias, name in REDUCERS.aliases().items() if name in names]
    for option, name in [*((name, name) for name in names), *aliases]:
        node = {"reducers": {name: {"name": name, "params": {}}}}
        store.store(group="reducer", name=option, node=node, package="_global_")
    for name in DATASETS.names():
        if not DATASETS.is_own(name):  # kmdr's and its papers' datasets have their files
            store.store(group="dataset", name=name, node={"name": name, "params": {}})


_register()


@contextmanager
def initialized(folder: str | os.PathLike | None = None) -> Iterator[None]:
    """Hydra initialized for the Compose API on kmdr's configs (``folder``: another conf/
    folder) while the block runs; Hydra's global state is as it was after it."""
    from hydra import initialize_config_dir, initialize_config_module

    path = config_path() if folder is None else str(Path(folder).resolve())
    if path.startswith("pkg://"):
        # not hydra.initialize, which reads the caller's file off the stack (inspect.stack: a
        # quarter of a kmdr.run that reuses every cell) for a config_path that needs no caller
        init = initialize_config_module(path[len("pkg://") :], version_base=None, job_name="kmdr")
    else:
        init = initialize_config_dir(path, version_base=None, job_name="kmdr")
    with init, hydra_notices_left_out():
        yield


def group_options(group: str) -> list[str]:
    """The options of a config group (``dataset``, ``reducer``, ``experiment``), sorted; call it
    inside :func:`initialized` or a Hydra app."""
    from hydra.core.global_hydra import GlobalHydra

    return sorted(GlobalHydra.instance().config_loader().get_group_options(group))


def is_option(group: str, name: str) -> bool:
    """Whether ``name`` is an option of config group ``group``, asked of each config source of
    the search path (a file's existence) instead of listing the group (:func:`group_options`:
    some 4 ms, on every run); call it inside :func:`initialized` or a Hydra app."""
    from hydra.core.global_hydra import GlobalHydra

    sources = GlobalHydra.instance().config_loader().get_sources()
    return any(source.is_config(f"{group}/{name}") for source in sources)


def users_option(group: str, name: str, added=()) -> str | None:
    """The file of option ``group/name`` when a folder the job added (``-cd``,
    ``hydra.searchpath``) holds the one the job's search path finds first, else None (kmdr's
    own, or no job running). ``added``: the job's ``hydra.searchpath`` folders, searched after
    the search path's sources (where Hydra puts them), which the Compose API does not keep."""
    from hydra.core.global_hydra import GlobalHydra

    from kmdr.config.search_path import USER_PROVIDER

    if not GlobalHydra.instance().is_initialized():
        return None
    for source in GlobalHydra.instance().config_loader().get_sources():
        if source.is_config(f"{group}/{name}"):
            if source.provider == USER_PROVIDER or source.provider.startswith("hydra.searchpath"):
                return f"{source.path.removeprefix('file://')}/{group}/{name}.yaml"
            return None
    for folder in (str(f) for f in added if "://" not in str(f) or str(f).startswith("file://")):
        file = Path(folder.removeprefix("file://")).expanduser() / group / f"{name}.yaml"
        if file.is_file():
            return str(file)
    return None


def users_files(choices, added=()) -> dict[str, str]:
    """The file of each option of the job's ``choices`` (``hc.runtime.choices``: experiment,
    dataset, reducer) that a folder the job added supplied in place of kmdr's
    (:func:`users_option`; ``added``: its ``hydra.searchpath``), by group: what the run record
    names as its ``config_files``."""
    groups = ("experiment", "dataset", "reducer")
    files = {g: users_option(g, str(choices[g]), added) for g in groups if choices.get(g)}
    return {group: file for group, file in files.items() if file is not None}


# -- a job, checked -------------------------------------------------------------------------------


def only_reducers(choices, listed: dict[str, list[str]]) -> tuple[str, ...] | None:
    """With an experiment preset, the reducers whose entries the run keeps: its reducer option
    (``experiment=X reducer=sign``) or options (``reducer=[sign,svd]``; ``listed``: the groups
    the job chooses a list of options of, :func:`listed_options`). None: every entry."""
    if not choices.get("experiment"):
        return None
    if "reducer" in listed:
        return tuple(listed["reducer"])
    return (str(choices["reducer"]),) if choices.get("reducer") else None


def listed_options(hc, search: list[str]) -> dict[str, list[str]]:
    """The groups of :data:`GROUPS` the job chooses a list of options of,
    each with its options in order: on the command line (``reducer=[sign,svd]``) or in a config's
    defaults list (``- override reducer: [sign, svd]`` in a ``-cd`` folder's config). Hydra
    merges them into one config and leaves the group out of the job's choices
    (``hc.runtime.choices``); the job's defaults list, computed by Hydra's config loader with
    the job's overrides (``search``: :func:`_search_path`), names every option chosen."""
    missing = [group for group in GROUPS if group not in hc.runtime.choices]
    if not missing:  # the usual job: one option of each group, or none (`experiment: null`)
        return {}
    from hydra.core.global_hydra import GlobalHydra
    from hydra.types import RunMode

    loader = GlobalHydra.instance().config_loader()
    overrides = [*search, *hc.overrides.task]
    chosen: dict[str, list[str]] = {}
    for default in loader.compute_defaults_list(
        hc.job.config_name, overrides, RunMode.RUN
    ).defaults:
        group, _, option = (default.config_path or "").rpartition("/")
        if group in missing:
            chosen.setdefault(group, []).append(option)
    return chosen


def _check_dataset_named(cfg, option: str | None, search: list[str]) -> None:
    """The job's dataset is the one its ``dataset`` option names: a config that sets
    ``dataset.name`` itself (``dataset: {name: coil20}`` beside the default option ``synth``,
    or ``dataset.name=coil20`` on the command line or in ``kmdr.run``) renames
    the option chosen and keeps its params, which would be read as the other dataset's. An
    option's own name may differ from the option's (a ``-cd`` folder's ``dataset/tiny.yaml``
    with ``name: synth``): the option is composed alone (no primary config, which a job of the
    user's own primary config could not compose here) to tell, only when they differ."""
    name = cfg.dataset.get("name") if cfg.get("dataset") is not None else None
    if not option or not isinstance(name, str) or name == option:
        return
    from hydra import compose

    if compose(None, [f"+dataset={option}", *search]).dataset.name != name:
        raise ConfigError(
            f"dataset.name is {name!r} but the dataset option chosen is {option!r}, whose params "
            f"it keeps; choose the dataset with dataset={name} (in a config's defaults list: "
            f"- override dataset: {name})"
        )


def check_one_option(listed: dict[str, list[str]], task=()) -> None:
    """A run is one preset on one dataset. Hydra merges a list of options of a group
    (``dataset=[coil20,orl]``) into one config, the last option's with the keys only the others
    set, and leaves the group out of the job's choices, so kmdr's checks of a preset would not
    see it: a list of presets or datasets is one ConfigError line, which names the list as the
    command line gave it (``task``: its overrides) or as a config's defaults list did."""
    for group in ("experiment", "dataset"):
        options = listed.get(group)
        if not options:
            continue
        sweep = f"run one job each with -m {group}={','.join(options)}"
        if group in keys(task):
            given = f"{group}=[{','.join(options)}]"
            fix = f"write {group}={options[0]}" if len(options) == 1 else f"give one, or {sweep}"
        else:
            given = f"the config's defaults list chooses {group}: [{', '.join(options)}]"
            fix = f"choose one there (or override it: {group}={options[0]})"
            fix += f", or {sweep}" if len(options) > 1 else ""
        raise ConfigError(
            f"{given}: a run takes one {group} (Hydra would merge a list of them into one "
            f"config, the last with what only the others set); {fix}"
        )


def _preset_entries(cfg, hc, search: list[str]) -> None:
    """With a preset and a reducer option (``experiment=X reducer=sign``), the job's entries are
    the preset's, with the job's overrides of them: Hydra merged the option's entry beside them,
    which a preset without an entry of that name (``reducer=foo``) would run; the job composed
    without the option tells."""
    from hydra import compose
    from omegaconf import open_dict

    task = [*hc.overrides.task]
    kept = [o for o, k in zip(task, keys(task), strict=True) if k != "reducer"]
    alone = compose(hc.job.config_name, [*search, *kept])
    with open_dict(cfg):
        cfg.reducers = alone.reducers


def _search_path(hc) -> list[str]:
    """The job's ``hydra.searchpath`` overrides (from Hydra's own, ``hc.overrides.hydra``): what a
    config composed alone beside the job needs to find the same configs."""
    overrides = [*hc.overrides.hydra]
    return [o for o, k in zip(overrides, keys(overrides), strict=True) if k == SEARCH_PATH]


def warn_multirun_settings(hc) -> None:
    """A job run alone (not ``-m``) given a launcher, a sweeper or a sweep (``hydra.launcher``,
    ``hydra/sweeper=...``, ``hydra.sweeper.params``), which only a multirun reads: one warning,
    as the job runs here with the config's own values."""
    from hydra.types import RunMode

    if hc.mode != RunMode.RUN:
        return
    given = [*hc.overrides.hydra]
    unread = [
        o
        for o, k in zip(given, keys(given), strict=True)
        if (k or "").replace("/", ".").startswith(("hydra.launcher", "hydra.sweeper"))
        and k != "hydra.sweeper.params"
    ]
    if hc.get("sweeper") is not None and hc.sweeper.get("params"):
        unread.append("hydra.sweeper.params")
    if unread:
        warn_unused(
            f"{', '.join(unread)}: read by a multirun only, and this command runs one job here; "
            "add -m to run it through them"
        )


def checked(cfg, hc) -> Configured:
    """The job ``cfg`` (composed by Hydra; ``hc``: its Hydra config) checked and turned into the
    run's objects, once (see the module docstring); they are what the run records. Raises a
    one-line ConfigError."""
    from kmdr.config.overrides import check_unread

    task = [*hc.overrides.task]
    search = _search_path(hc)  # what a config composed alone beside the job needs
    choices = dict(hc.runtime.choices)
    listed = listed_options(hc, search)
    check_one_option(listed, task)
    _check_dataset_named(cfg, choices.get("dataset"), search)
    only = only_reducers(choices, listed)
    if only is not None:
        _preset_entries(cfg, hc, search)
    entries = list(cfg.get("reducers") or ())
    # results/ holds the presets' cells only: a run's caller (the command line's task,
    # kmdr.run) that names no folder chooses it (kmdr.app.protocol.default_folder)
    objects = from_config(cfg, only_reducers=only)
    # an override the run does not read warns; the objects keep the setting's default
    quick = cfg.quick_grid if cfg.quick else None
    check_unread(task, objects.experiment, quick_grid=quick, entries=entries)
    return _from_start_folder(cfg.get("data_dir"), hc, objects)


def _from_start_folder(data: str | None, hc, objects: Configured) -> Configured:
    """The job's objects with ``results_dir`` and ``data_dir`` (``data``: as given, before the
    Execution made it absolute in the job's folder) naming folders relative to the folder the
    command started in (``hc.runtime.cwd``), as they do without ``hydra.job.chdir=true``: with
    it, Hydra runs each job in a folder of its own, where a relative path would give every job
    of a multirun a store of its own, which the multirun's end would not find to draw."""
    from dataclasses import replace

    start = hc.runtime.cwd
    if not start or os.path.realpath(start) == os.path.realpath(os.getcwd()):
        return objects
    results = objects.output.results_dir
    if not os.path.isabs(results):
        results = os.path.join(start, results)
    if data and not os.path.isabs(os.path.expanduser(data)):
        data = os.path.join(start, data)
    output = replace(objects.output, results_dir=results)
    execution = replace(objects.execution, data_dir=data or None)
    return objects._replace(output=output, execution=execution)


def compose_job(overrides, caller: str = "this") -> Configured:
    """:func:`composed_job`'s checked objects alone."""
    return composed_job(overrides, caller)[0]


def composed_job(overrides, caller: str = "this") -> tuple[Configured, dict[str, str]]:
    """Compose ``overrides`` (a str or a list of str in the command line's grammar: one job's)
    as the command line composes one job, and check it (:func:`checked`); what Hydra's grammar
    refuses, Hydra reports. A setting of Hydra's own run (``hydra/launcher=joblib``) would be
    composed and never read, as no Hydra run starts: one line naming ``caller`` and it. With
    the objects, the file of each option a folder the overrides add (``hydra.searchpath``)
    supplied, as the command line's record names them (:func:`users_files`)."""
    items = [overrides] if isinstance(overrides, str) else [*overrides]
    for override in parse(items):
        name = key(override)
        if name.split(".")[0].split("/")[0] == "hydra" and name != SEARCH_PATH:
            raise ConfigError(
                f"{caller} composes the run's config only, and {override.input_line!r} sets "
                "Hydra's own run of the command line (its launcher, logging or folders), which "
                f"it does not start; drop it (only {SEARCH_PATH}, which adds config folders, "
                "is read)"
            )
    from hydra import compose
    from omegaconf import open_dict, read_write

    with initialized():  # Hydra's and OmegaConf's errors are theirs
        cfg = compose(PRIMARY_CONFIG, overrides=items, return_hydra_config=True)
        # The job's Hydra config, read from the composed config itself: Hydra's global
        # HydraConfig is the app's (hydra.main sets it), never set here.
        hc = cfg.hydra
        with read_write(cfg), open_dict(cfg):  # the job's config, as under hydra.main
            del cfg["hydra"]
        return checked(cfg, hc), users_files(hc.runtime.choices, hc.searchpath)


# -- every preset ---------------------------------------------------------------------------------


def composed_presets(
    folder: str | os.PathLike | None = None, overrides: Sequence[str] = ()
) -> list[tuple[str, object]]:
    """Every preset of ``experiment/``, composed by Hydra with the schema (so defaults apply):
    ``(option name, DictConfig)``, by option name. ``folder``: another conf/ folder;
    ``overrides``: Hydra overrides applied to every preset."""
    from hydra import compose

    with initialized(folder):
        return [
            (name, compose(PRIMARY_CONFIG, overrides=[f"experiment={name}", *overrides]))
            for name in group_options("experiment")
        ]
