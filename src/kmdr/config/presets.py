"""Where kmdr's Hydra configs live and how to compose them (Hydra's public API only).

The configs ship in the package ``kmdr.conf`` (the repository's ``conf/`` folder, mapped in
``pyproject.toml``) and are searched as ``pkg://kmdr.conf``, so any install, editable or not,
finds them from any folder. ``$KMDR_CONF_DIR`` points at another ``conf/`` folder instead (a
checkout's configs while the installed package is another one's).

    with initialized():
        cfg = compose("config", overrides=["experiment=bzmd14_orl"])
        names = group_options("experiment")

A preset's folder holds that preset's experiment only: :func:`own_folder` gives a run of a preset
whose command line changes what the preset fixes (:data:`PRESET_FIXES`) a folder of its own.
"""

from __future__ import annotations

import importlib.util
import os
import re
import warnings
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from kmdr.config.errors import ConfigError
from kmdr.config.search_path import CONF_ENV, CONF_PACKAGE, env_conf_dir

__all__ = [
    "CONF_ENV",
    "CONF_PACKAGE",
    "PRESET_FIXES",
    "check_user_configs",
    "composed_presets",
    "conf_dir",
    "config_path",
    "env_conf_dir",
    "group_options",
    "initialized",
    "own_folder",
    "preset_changes",
    "presets",
    "yaml_problem",
]


def _check_package() -> None:
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
    _check_package()
    return f"pkg://{CONF_PACKAGE}"


def conf_dir() -> Path:
    """The config folder on disk (``$KMDR_CONF_DIR`` or the installed ``kmdr.conf``), for
    :func:`hydra.initialize_config_dir` and for reading the yaml files themselves."""
    env = env_conf_dir()
    if env is not None:
        return env
    _check_package()
    import kmdr.conf

    return Path(kmdr.conf.__file__).resolve().parent


@contextmanager
def initialized(job_name: str = "kmdr") -> Iterator[None]:
    """Hydra initialized on kmdr's configs, with the schema registered, for :func:`compose`."""
    from hydra import initialize_config_dir, initialize_config_module

    from kmdr.config.schema import GENERATED_OPTION_NOTICE  # (and the schema registered)

    env = env_conf_dir()
    if env is not None:
        init = initialize_config_dir(config_dir=str(env), version_base=None, job_name=job_name)
    else:
        _check_package()
        init = initialize_config_module(CONF_PACKAGE, version_base=None, job_name=job_name)
    with init, warnings.catch_warnings():
        warnings.filterwarnings("ignore", GENERATED_OPTION_NOTICE, UserWarning)
        yield


def group_options(group: str) -> list[str]:
    """The options of a config group (``dataset``, ``reducer``, ``experiment``), sorted; call it
    inside :func:`initialized`."""
    from hydra.core.global_hydra import GlobalHydra

    return sorted(GlobalHydra.instance().config_loader().get_group_options(group))


def yaml_problem(err: BaseException) -> str | None:
    """One line for a YAML syntax error met while composing (None if ``err`` is not one): the
    file, line and column, what the parser expected, and the fix."""
    import yaml

    if not isinstance(err, yaml.YAMLError):
        return None
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    where = f"{mark.name}, line {mark.line + 1}, column {mark.column + 1}" if mark else "a config"
    problem = getattr(err, "problem", None) or str(err)
    context = getattr(err, "context", None)
    what = f"{context}: {problem}" if context else problem
    return f"YAML syntax error in {where}: {' '.join(str(what).split())}; fix that file"


#: The keys whose value a preset's folder, figure and report section stand for: the kind of
#: experiment, the data, the reducers' definitions, how repetitions combine, bmd09 Figure 1's
#: sampler, and the preset's own metadata. A run of a preset that changes one of them is another
#: experiment (:func:`own_folder`). What is not here is a setting a folder can hold several of,
#: each kept and drawn apart (``seed``, ``kmeans.*``: a row of panels per setting), a part of the
#: preset's grid (``r_grid``, ``repeats``, ``reducer=<one of its reducers>``), or how and where the
#: run goes (``n_jobs``, ``backend``, ``results_dir``, ...).
PRESET_FIXES = ("kind", "dataset", "reducers", "aggregation", "leverage", "preset")

_PLAIN_VALUE = re.compile(r"^[A-Za-z0-9_.+-]{1,40}$")
#: Longest folder name a changed preset gets before its changes are named by a digest.
_LONGEST_NAME = 120


def _differing(mine, theirs, prefix: str) -> list[str]:
    """The dotted keys where ``mine`` and ``theirs`` differ: mappings key by key, lists of equal
    length item by item, anything else (lists of other lengths too) as a whole."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        keys = [*mine, *(k for k in theirs if k not in mine)]
        out = []
        for key in keys:
            if key in mine and key in theirs:
                out += _differing(mine[key], theirs[key], f"{prefix}.{key}")
            else:
                out.append(f"{prefix}.{key}")
        return out
    if isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        return [
            k
            for i, (a, b) in enumerate(zip(mine, theirs, strict=True))
            for k in _differing(a, b, f"{prefix}.{i}")
        ]
    return [] if mine == theirs else [prefix]


def preset_changes(cfg, preset_cfg) -> list[str]:
    """``key=value`` for every key of :data:`PRESET_FIXES` where the run's config ``cfg``
    differs from its preset composed alone (``preset_cfg``), in the config's order.

    Interpolations are compared as written (a ``title: ${name}`` follows the name either way).
    A value that is not a short plain word is named by a digest.
    """
    from omegaconf import OmegaConf

    from kmdr.config.seeds import stable_digest

    mine = OmegaConf.to_container(cfg, resolve=False, enum_to_str=True)
    theirs = OmegaConf.to_container(preset_cfg, resolve=False, enum_to_str=True)
    parts = []
    for top in PRESET_FIXES:
        for key in _differing(mine.get(top), theirs.get(top), top):
            value = mine
            for part in key.split("."):
                if isinstance(value, list):
                    value = value[int(part)]
                else:
                    value = value.get(part) if isinstance(value, dict) else None
            text = str(value)
            if not _PLAIN_VALUE.match(text):
                text = stable_digest(value)[:8]
            parts.append(("dataset" if key == "dataset.name" else key) + f"={text}")
    return parts


def own_folder(cfg, preset_cfg) -> str | None:
    """Give a run of a preset that changes what the preset fixes an experiment of its own.

    ``cfg`` is the run's config (changed in place), ``preset_cfg`` its preset composed alone.
    When :func:`preset_changes` finds nothing, nothing changes and None is returned. Otherwise
    the run is not the preset's experiment: under the preset's name it takes the name
    ``<preset>+<key>=<value>+...`` (a digest of the changes when that would be too long), under
    another name (``name=...``) it keeps that name; either way its preset metadata become an
    ad-hoc run's (no paper, not reproduced, the custom report section, titled by its name) except
    the figure style and the ``preset.*`` keys the command line set. Returns the one line that
    says so.
    """
    from omegaconf import OmegaConf, open_dict

    from kmdr.config.schema import PresetConfig
    from kmdr.config.seeds import stable_digest

    changes = preset_changes(cfg, preset_cfg)
    if not changes:
        return None
    preset_name = str(preset_cfg.name)
    name = str(cfg.name)
    if name == preset_name:
        # Another dataset brings its own params: the name says which dataset, the line says all.
        other_data = any(c.startswith("dataset=") for c in changes)
        named = [c for c in changes if not (other_data and c.startswith("dataset.params."))]
        name = "+".join([preset_name, *named])
        if len(name) > _LONGEST_NAME:
            name = f"{preset_name}+{stable_digest(changes)[:12]}"
    set_here = {c.split("=", 1)[0] for c in changes}
    defaults = OmegaConf.structured(PresetConfig)
    with open_dict(cfg):
        cfg.name = name
        for key in ("paper", "title", "section", "order", "reproduce", "note"):
            if f"preset.{key}" not in set_here:
                cfg.preset[key] = defaults[key] if key != "title" else "${name}"
    return (
        f"[kmdr] {preset_name} with {' '.join(changes)} is not the preset's experiment: it "
        f"runs as {name} (its own folder, figure and report entry; name=... chooses another)"
    )


def composed_presets(
    folder: str | os.PathLike | None = None, overrides: Sequence[str] = ()
) -> list[tuple[str, object]]:
    """Every preset of ``experiment/``, composed by Hydra with the schema (so defaults apply):
    ``(option name, DictConfig)``, by option name. ``folder``: another conf/ folder;
    ``overrides``: Hydra overrides applied to every preset."""
    from hydra import compose, initialize_config_dir

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
    from kmdr.config.schema import to_container

    pairs = composed_presets() if composed is None else composed
    out = [{"name": name, **to_container(cfg.preset)} for name, cfg in pairs]
    return sorted(out, key=lambda p: (p["order"], p["name"]))


#: The search path entries that are Hydra's or kmdr's own, not a folder the user added.
_OWN_SOURCES = ("hydra", "main", "schema")


def _config_paths(source, group: str = "") -> Iterator[str]:
    """Every config of a Hydra config source, as ``group/name`` (``name`` at the top)."""
    from hydra.core.object_type import ObjectType

    for name in source.list(group, ObjectType.CONFIG):
        yield f"{group}/{name}" if group else name
    for sub in source.list(group, ObjectType.GROUP):
        yield from _config_paths(source, f"{group}/{sub}" if group else sub)


def _same_config(one, other, path: str) -> bool:
    from omegaconf import OmegaConf

    a, b = one.load_config(path), other.load_config(path)
    return a.header == b.header and OmegaConf.to_container(a.config) == OmegaConf.to_container(
        b.config
    )


def _where(source, path: str) -> str:
    if source.provider == "main":
        return f"kmdr's built-in {path}.yaml ({source.scheme()}://{source.path})"
    return f"{source.path.removeprefix('file://')}/{path}.yaml"


def check_user_configs(hc) -> None:
    """A config in a folder the user added to Hydra's search path (``-cd DIR``) never loses
    silently to a built-in of the same name.

    Hydra takes a config from the first entry of its search path that holds it, and the folder
    ``-cd`` adds comes after kmdr's own configs: a user's ``config.yaml``,
    ``dataset/orl.yaml`` or ``experiment/bzmd14_orl.yaml`` would be ignored and the built-in run
    in its place. Such a file is refused in one line (:class:`ConfigError`) naming both files
    and the fix, unless it is the built-in's copy. Call it with Hydra initialized (inside the
    task, or :func:`initialized`); ``hc``: the job's Hydra config (the folders its
    ``hydra.searchpath`` added).
    """
    from hydra.core.global_hydra import GlobalHydra

    sources = [s for s in GlobalHydra.instance().config_loader().get_sources() if s.available()]
    for index, source in enumerate(sources):
        if source.provider in _OWN_SOURCES or source.scheme() == "structured":
            continue
        for path in _config_paths(source):
            first = next((s for s in sources[:index] if s.is_config(path)), None)
            if first is not None and not _same_config(source, first, path):
                _refuse(_where(source, path), first, path)
    # hydra.searchpath's folders join the search path per composition, after all of the above
    for folder in _searchpath_folders(hc):
        for file in sorted(folder.rglob("*.yaml")):
            path = file.relative_to(folder).with_suffix("").as_posix()
            first = next((s for s in sources if s.is_config(path)), None)
            if first is not None and not _same_text(file, first, path):
                _refuse(str(file), first, path)


def _searchpath_folders(hc) -> list[Path]:
    """The folders ``hydra.searchpath`` added to the job's search path (Hydra's runtime record
    in the job's Hydra config ``hc``)."""
    return [
        Path(s.path)
        for s in hc.runtime.config_sources
        if s.schema == "file"
        and str(s.provider).startswith("hydra.searchpath")
        and Path(s.path).is_dir()
    ]


def _same_text(file: Path, source, path: str) -> bool:
    from omegaconf import OmegaConf

    theirs = source.load_config(path).config
    return OmegaConf.to_container(OmegaConf.load(file)) == OmegaConf.to_container(theirs)


def _refuse(mine_file: str, first, path: str):
    group, _, name = path.rpartition("/")
    mine = f"{group}/my_{name}.yaml" if group else f"my_{name}.yaml"
    how = f"{group}=my_{name}" if group else f"--config-name my_{name}"
    raise ConfigError(
        f"{mine_file} has the name of {_where(first, path)}, which Hydra reads first, so yours "
        f"would be ignored; rename yours (e.g. {mine}) and choose it with {how}"
    )
