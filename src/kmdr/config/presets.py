"""Where kmdr's Hydra configs live, and what makes a run of a preset another experiment.

The configs ship in the package ``kmdr.conf`` (the repository's ``conf/`` folder, mapped in
``pyproject.toml``) and are searched as ``pkg://kmdr.conf``, so any install, editable or not,
finds them from any folder. ``$KMDR_CONF_DIR`` points at another ``conf/`` folder instead (a
checkout's configs while the installed package is another one's). Composing them is the command
line's (:mod:`kmdr.app.compose`): this module reads nothing of Hydra's global state.

A preset's folder holds that preset's experiment only: :func:`own_folder` gives a run of a preset
whose command line changes what the preset fixes (:data:`PRESET_FIXES`) a folder of its own. And
the committed record holds the presets' own folders, each with its protocol only: a run of a
committed preset under another name, or one that computes cells outside its protocol
(:func:`outside_record`: an r outside its grid, more repetitions, another seed, k-means setting or
number of threads), goes under the user's own results folder unless ``results_dir`` says
otherwise.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from kmdr.config.errors import ConfigError
from kmdr.config.search_path import CONF_ENV, CONF_PACKAGE, env_conf_dir

__all__ = [
    "CONF_ENV",
    "CONF_PACKAGE",
    "PRESET_FIXES",
    "PROTOCOL",
    "check_package",
    "conf_dir",
    "config_path",
    "default_folder",
    "not_the_preset",
    "outside_record",
    "own_folder",
    "preset_changes",
    "record_line",
]


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


#: The keys whose value a preset's folder, figure and report section stand for: the kind of
#: experiment, the data, the reducers' definitions, how repetitions combine, bmd09 Figure 1's
#: sampler, and the preset's own metadata. A run of a preset that changes one of them is another
#: experiment (:func:`own_folder`). What is not here is a setting a folder can hold several of,
#: each kept and drawn apart (``seed``, ``kmeans.*``: a row of panels per setting), a part of the
#: preset's grid (``r_grid``, ``repeats``, ``reducer=<one of its reducers>``), or how and where the
#: run goes (``n_jobs``, ``backend``, ``results_dir``, ...).
PRESET_FIXES = ("kind", "dataset", "reducers", "aggregation", "leverage", "preset")
#: What a run of a preset may change among its cells' settings, a folder holding several of them
#: (a part of the preset's grid; another seed or k-means setting: a row of panels each). A change
#: beyond a part of the grid computes cells outside the preset's protocol
#: (:func:`outside_record`).
PROTOCOL = ("r_grid", "repeats", "seed", "kmeans", "blas_threads")

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


def not_the_preset(experiment, reference) -> list[str]:
    """What makes ``experiment``, under the name of a preset, another experiment than the
    preset's own (``reference``, composed alone): the settings the preset fixes
    (:data:`PRESET_FIXES`) that differ, and ``reducers`` when one of its reducers is not the
    preset's (some of them are still its experiment: ``reducer=<one of them>``); its metadata
    are named ``preset.*``. [] when it is the preset's experiment, whatever its grid,
    repetitions, seed or k-means settings."""
    differ = [
        "preset.*" if name == "preset" else name
        for name in PRESET_FIXES
        if name != "reducers" and getattr(experiment, name) != getattr(reference, name)
    ]
    if any(reducer not in reference.reducers for reducer in experiment.reducers):
        differ.append("reducers")
    return differ


def preset_changes(cfg, preset_cfg) -> list[str]:
    """``key=value`` for every key of :data:`PRESET_FIXES` where the run's config ``cfg``
    differs from its preset composed alone (``preset_cfg``), in the config's order.

    Interpolations are compared as written. A value that is not a short plain word is named by a
    digest.
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


def outside_record(experiment, preset: dict) -> list[str]:
    """``key=value`` for each setting that takes ``experiment`` (a run of a preset, an
    :class:`~kmdr.config.schema.Experiment`) out of the committed record of the preset it was
    composed from (``preset``: the preset's settings composed alone, as plain values: its
    ``name``, ``r_grid``, ``repeats``, ``seed``, ``blas_threads`` and ``kmeans`` block): another
    name (another folder), or cells outside its protocol (an r outside its grid, more
    repetitions than it runs, another seed, k-means setting or number of BLAS threads); [] when
    it runs the protocol or a part of it (some of its r, repetitions or reducers: cells the
    preset's folder holds anyway)."""
    from dataclasses import asdict

    from kmdr.config.schema import KMeansConfig

    out = [f"name={experiment.name}"] if experiment.name != preset["name"] else []
    if not set(experiment.r_grid) <= set(preset["r_grid"]):
        out.append("r_grid=[" + ",".join(map(str, experiment.r_grid)) + "]")
    if experiment.repeats > preset["repeats"]:
        out.append(f"repeats={experiment.repeats}")
    for name in ("seed", "blas_threads"):
        if getattr(experiment, name) != preset[name]:
            out.append(f"{name}={getattr(experiment, name)}")
    # the preset's k-means block read as the run's is (MATLAB's 'sample' is 'random')
    mine, theirs = asdict(experiment.kmeans), asdict(KMeansConfig(**dict(preset["kmeans"])))
    out += [f"{k}={mine[k.split('.', 1)[1]]}" for k in _differing(mine, theirs, "kmeans")]
    return out


def record_line(preset: str | None, changes: list[str], name: str) -> str:
    """The one line saying that a run of the committed preset ``preset`` with ``changes`` (see
    :func:`outside_record`), experiment ``name``, goes under the user's own results folder
    (:data:`~kmdr.config.schema.OWN_RESULTS_DIR`), not into the committed record; ``preset``
    None: an experiment carrying a committed preset's metadata under a name no preset has."""
    from kmdr.config.schema import OWN_RESULTS_DIR

    folder = f"{OWN_RESULTS_DIR}/{name}"
    where = "results_dir=results writes it there"
    if preset is None:
        return (
            f"[kmdr] {' '.join(changes)} carries a committed preset's metadata under a name no "
            f"preset has, so it is not in the committed record: it goes to {folder}/ ({where})"
        )
    return (
        f"[kmdr] {preset} with {' '.join(changes)} is outside the preset's committed record "
        f"(its protocol, in results/{preset}/): it goes to {folder}/ ({where})"
    )


def default_folder(
    reproduce, changes: list[str], preset: str | None, name: str
) -> tuple[str, str | None]:
    """``(results_dir, line)`` for a run that names no results folder, on either route (the
    command line's overrides, an Experiment given to ``kmdr.run``): a run of a committed preset
    with ``changes`` (:func:`outside_record`; ``preset`` its name, ``name`` the run's) goes to
    :data:`~kmdr.config.schema.OWN_RESULTS_DIR`, with the :func:`record_line` saying so; any other
    run to the folder its preset's ``reproduce`` gives it
    (:func:`~kmdr.config.schema.default_results_dir`), with no line."""
    from kmdr.config.schema import OWN_RESULTS_DIR, default_results_dir

    if changes:
        return OWN_RESULTS_DIR, record_line(preset, changes, name)
    return default_results_dir(reproduce), None


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
                cfg.preset[key] = defaults[key]
    return (
        f"[kmdr] {preset_name} with {' '.join(changes)} is not the preset's experiment: it "
        f"runs as {name} (its own folder, figure and report entry; name=... chooses another)"
    )
