"""What an experiment folder's run sidecars say, and which folders are experiment folders.

A run writes ``runs/<run id>.json`` (its config, the cells it expected, why it skipped) before
anything else, whatever its kind computes. This module reads them: the runs themselves
(:func:`load_runs`), why a run was skipped, a setting any of them recorded, and the experiment's
preset metadata and aggregation (the last sidecar's ``config.preset`` and ``config.aggregation``;
never the experiment's name). A reader's one-line reports go to its ``say``
(:func:`kmdr._log.warn` by default); :class:`~kmdr.results.store.Once` says each message once,
for a caller that reads a folder many times.

JSON only, without pandas: a dry run and every run's protocol check read the sidecars before any
table is built (:mod:`kmdr.results.reading` types the cells they expect).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields
from enum import Enum
from pathlib import Path
from types import MappingProxyType

from kmdr._io import read_text
from kmdr._log import warn as _say
from kmdr.config.presentation import FIGURE_STYLES, SECTIONS
from kmdr.config.schema import PresetConfig

#: The preset metadata of an experiment whose sidecars carry none (an ad-hoc run), read from the
#: typed schema. ``title`` defaults to the experiment's (folder's) name. The figure styles and
#: report sections a preset may name are those registered in :mod:`kmdr.config.presentation`.
PRESET_DEFAULTS: Mapping = MappingProxyType(
    {
        f.name: f.default.value if isinstance(f.default, Enum) else f.default
        for f in fields(PresetConfig)
    }
    | {"title": None}
)


def load_runs(experiment_dir: str | Path, say: Callable[[str], None] | None = None) -> list[dict]:
    """The sidecars ``runs/*.json``, in file-name order (the run ids start with their start
    time, so this is also the order they ran in).

    A sidecar that cannot be read (cut short, not JSON, not an object) is named in one line to
    ``say`` (default: :func:`kmdr._log.warn`; a :class:`Once` says it once however often it is
    read) and stands in the list as ``{"_path": ..., "_unreadable": why}``: what it expected is
    unknown, so :func:`unreadable_runs` lets readers refuse to call the experiment complete.
    """
    runs = []
    for path in sorted((Path(experiment_dir) / "runs").glob("*.json")):
        try:
            data = json.loads(read_text(path))
            problem = None if isinstance(data, dict) else f"a JSON {type(data).__name__}"
        except OSError as err:
            problem = f"cannot be read ({err.strerror or err})"
        except ValueError as err:
            problem = f"not JSON ({getattr(err, 'msg', err)})"
        if problem:
            (say or _say)(
                f"[kmdr] run record {path}: {problem}; what that run expected is unknown, so "
                "the experiment is not shown as complete (re-run its command, then remove this "
                "file)"
            )
            runs.append({"_path": str(path), "_unreadable": problem})
            continue
        data.setdefault("_path", str(path))
        runs.append(data)
    return runs


def unreadable_runs(runs: list[dict]) -> list[str]:
    """The paths of the sidecars :func:`load_runs` could not read."""
    return [run["_path"] for run in runs if run.get("_unreadable")]


def skip_reasons(experiment_dir: str | Path, runs: list[dict] | None = None) -> list[str]:
    """The reasons the sidecars give for a skipped experiment (``skipped``), deduplicated."""
    runs = load_runs(experiment_dir) if runs is None else runs
    reasons = [run.get("skipped") for run in runs if run.get("skipped")]
    reasons = [str(r.get("reason", r)) if isinstance(r, dict) else str(r) for r in reasons]
    return list(dict.fromkeys(reasons))


def experiment_config(experiment_dir: str | Path, key: str, runs: list[dict] | None = None):
    """A setting of the last run that recorded ``key``: in its ``spec`` (the run's objects), else
    in its data's facts (the dataset's ``n_clusters``); None when no run did."""
    runs = load_runs(experiment_dir) if runs is None else runs
    for run in reversed(runs):
        for where in (run.get("spec"), run.get("dataset")):
            if isinstance(where, dict) and where.get(key) is not None:
                return where[key]
    return None


def _last_config(runs: list[dict], key: str):
    """``config[key]`` of the last sidecar whose config has it, else None."""
    for run in reversed(runs):
        config = run.get("config")
        if isinstance(config, dict) and config.get(key) is not None:
            return config[key]
    return None


def preset_of(experiment_dir: str | Path, runs: list[dict] | None = None) -> dict:
    """The experiment's preset metadata: ``config.preset`` of the last sidecar that has one,
    completed with :data:`PRESET_DEFAULTS` (``title`` defaults to the folder's name).

    Keys: paper, title, figure, section, order, reproduce, note. A figure style or section this
    version does not know falls back to the default with a warning (the figure and report still
    draw). A user's run started from a paper's preset under another name (:func:`started_from`)
    keeps the preset's figure style alone: titled by its own name, in the report's section of
    one's own experiments, of no paper.
    """
    name = Path(experiment_dir).name
    runs = load_runs(experiment_dir) if runs is None else runs
    given = _last_config(runs, "preset")
    preset = {**PRESET_DEFAULTS, "title": name}
    if isinstance(given, dict) and (started := started_from(name, given)) is not None:
        # a user's run of a preset's settings under a name of its own (another dataset, say):
        # the user's experiment, drawn as the preset draws, never titled or placed as the preset
        preset.update(figure=given.get("figure") or preset["figure"])
        preset["note"] = f"your run, started from the preset {started}"
    elif isinstance(given, dict):
        preset.update({k: v for k, v in given.items() if v is not None})
    for key, valid in (("figure", FIGURE_STYLES), ("section", SECTIONS)):
        problem = valid.problem(preset[key])  # names only: nothing is imported
        if problem is not None:
            warnings.warn(
                f"{name}: preset.{key}: {problem}; using {PRESET_DEFAULTS[key]!r}", stacklevel=2
            )
            preset[key] = PRESET_DEFAULTS[key]
    try:
        preset["order"] = float(preset["order"])
    except (TypeError, ValueError):
        preset["order"] = float(PRESET_DEFAULTS["order"])
    preset["title"] = str(preset["title"])
    return preset


def started_from(name: str, preset: Mapping) -> str | None:
    """The preset a run recorded under experiment ``name`` started from, when it is a paper's
    preset of another name (``experiment=ss22_usps_reducers name=wine_coresets``): the run is
    the user's. None for a preset's own run (under its own name, or a name its file derives
    from the run's settings, ``${dataset.name}``), a run of no paper, or a title no preset of
    kmdr holds (a preset of the user's)."""
    if not preset.get("paper") or preset.get("title") is None:
        return None
    from kmdr.config.presets import preset_names_by_title

    names = preset_names_by_title().get(str(preset["title"]), [])
    if not names or any(n == name or "${" in n for n in names):
        return None
    return names[0]


def aggregation_of(experiment_dir: str | Path, runs: list[dict] | None = None) -> str:
    """``best`` (lowest-F trial, bmd09) or ``mean``: the last sidecar config's ``aggregation``,
    ``mean`` when no sidecar says."""
    runs = load_runs(experiment_dir) if runs is None else runs
    value = _last_config(runs, "aggregation")
    if isinstance(value, str) and value.lower() in ("best", "mean"):
        return value.lower()
    return "mean"


#: The files and folders that make a folder an experiment folder (a run writes ``runs/`` before
#: anything else, whatever its kind computes).
_MARKERS = ("cells.csv", "runs")


def is_experiment(folder: str | Path) -> bool:
    """Whether ``folder`` is an experiment folder (it holds cells.csv or runs/)."""
    return any((Path(folder) / marker).exists() for marker in _MARKERS)


def experiment_dirs(results_dir: str | Path, names: Iterable[str] | None = None) -> list[Path]:
    """The experiment folders under ``results_dir`` (:func:`is_experiment`), by name; only
    those of ``names`` when given."""
    root = Path(results_dir)
    if not root.is_dir():
        return []
    candidates = [root / n for n in names] if names else sorted(root.iterdir())
    return [p for p in candidates if p.is_dir() and is_experiment(p)]
