"""What an experiment's run sidecars (``runs/*.json``) say: the runs themselves, the cells they
expect, why a run was skipped, and the experiment's preset metadata and aggregation (the last
sidecar's ``config.preset`` and ``config.aggregation``; never the experiment's name)."""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Iterable
from dataclasses import fields
from enum import Enum
from pathlib import Path

import pandas as pd

from kmdr.config.presentation import FIGURE_STYLES, SECTIONS
from kmdr.config.schema import PresetConfig
from kmdr.results.points import CORE_COLUMNS, KEY, typed

__all__ = [
    "PRESET_DEFAULTS",
    "aggregation_of",
    "experiment_config",
    "experiment_dirs",
    "load_expected",
    "load_runs",
    "preset_of",
    "skip_reasons",
    "unreadable_runs",
]

#: The preset metadata of an experiment whose sidecars carry none (an ad-hoc run), read from the
#: typed schema. ``title`` defaults to the experiment's (folder's) name. The figure styles and
#: report sections a preset may name are those registered in :mod:`kmdr.config.presentation`.
PRESET_DEFAULTS: dict = {
    f.name: f.default.value if isinstance(f.default, Enum) else f.default
    for f in fields(PresetConfig)
} | {"title": None}
# Sidecar keys that may hold the expected cells (the layout names them "the expected cells").
_EXPECTED_KEYS = ("expected_cells", "expected", "cells_expected")


_SAID: set[str] = set()


def say_once(msg: str) -> None:
    """A reader's one-line report on stderr, once per process (figures and the report read a
    folder's run records and cells many times)."""
    if msg not in _SAID:
        _SAID.add(msg)
        print(msg, file=sys.stderr, flush=True)


def load_runs(experiment_dir: str | Path) -> list[dict]:
    """The sidecars ``runs/*.json``, in file-name order (the run ids start with their start
    time, so this is also the order they ran in).

    A sidecar that cannot be read (cut short, not JSON, not an object) is named in one line on
    stderr (once per process) and stands in the list as ``{"_path": ..., "_unreadable": why}``:
    what it expected is unknown, so :func:`unreadable_runs` lets readers refuse to call the
    experiment complete.
    """
    runs = []
    for path in sorted((Path(experiment_dir) / "runs").glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            problem = None if isinstance(data, dict) else f"a JSON {type(data).__name__}"
        except OSError as err:
            problem = f"cannot be read ({err.strerror or err})"
        except ValueError as err:
            problem = f"not JSON ({getattr(err, 'msg', err)})"
        if problem:
            say_once(
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


def _expected_list(run: dict) -> list:
    for key in _EXPECTED_KEYS:
        value = run.get(key)
        if isinstance(value, list):
            return value
    return []


def load_expected(experiment_dir: str | Path, runs: list[dict] | None = None) -> pd.DataFrame:
    """Union over all sidecars of their expected cells: :data:`KEY` and ``method``.

    Identity columns a legacy sidecar does not give are unknown (<NA>); :func:`completeness`
    matches them to the cells present.
    """
    runs = load_runs(experiment_dir) if runs is None else runs
    rows = [c for run in runs for c in _expected_list(run) if isinstance(c, dict)]
    exp = pd.DataFrame(rows)
    if not len(exp) or any(c not in exp.columns for c in CORE_COLUMNS):
        return typed(pd.DataFrame(columns=[*KEY, "method"]), [*KEY, "method"])
    exp = typed(exp, [*KEY, "method"])[[*KEY, "method"]]
    exp = exp.dropna(subset=list(CORE_COLUMNS))
    return exp.drop_duplicates(KEY, keep="last").reset_index(drop=True)


def skip_reasons(experiment_dir: str | Path, runs: list[dict] | None = None) -> list[str]:
    """The reasons the sidecars give for a skipped experiment (``skipped``), deduplicated."""
    runs = load_runs(experiment_dir) if runs is None else runs
    reasons: list[str] = []
    for run in runs:
        skipped = run.get("skipped")
        if not skipped:
            continue
        if isinstance(skipped, dict):
            text = str(skipped.get("reason") or skipped)
        elif isinstance(skipped, list):
            text = "; ".join(
                str(s.get("reason", s)) if isinstance(s, dict) else str(s) for s in skipped
            )
        else:
            text = str(skipped) if skipped is not True else "skipped"
        if text and text not in reasons:
            reasons.append(text)
    return reasons


def _find_key(obj, key: str):
    """First value of ``key`` anywhere in a nested dict/list (depth-first), or None."""
    if isinstance(obj, dict):
        if key in obj and not isinstance(obj[key], dict | list):
            return obj[key]
        for value in obj.values():
            found = _find_key(value, key)
            if found is not None:
                return found
    elif isinstance(obj, list):
        for value in obj:
            found = _find_key(value, key)
            if found is not None:
                return found
    return None


def experiment_config(experiment_dir: str | Path, key: str, runs: list[dict] | None = None):
    """A scalar setting found anywhere in the sidecars (config, spec, then the sidecar itself,
    e.g. the dataset's ``n_clusters``); the last run that has it wins."""
    runs = load_runs(experiment_dir) if runs is None else runs
    for run in reversed(runs):
        for where in (run.get("config"), run.get("spec"), run):
            value = _find_key(where, key)
            if value is not None:
                return value
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
    draw).
    """
    name = Path(experiment_dir).name
    runs = load_runs(experiment_dir) if runs is None else runs
    given = _last_config(runs, "preset")
    preset = {**PRESET_DEFAULTS, "title": name}
    if isinstance(given, dict):
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


def aggregation_of(experiment_dir: str | Path, runs: list[dict] | None = None) -> str:
    """``best`` (lowest-F trial, bmd09) or ``mean``: the last sidecar config's ``aggregation``,
    ``mean`` when no sidecar says."""
    runs = load_runs(experiment_dir) if runs is None else runs
    value = _last_config(runs, "aggregation")
    if isinstance(value, str) and value.lower() in ("best", "mean"):
        return value.lower()
    return "mean"


def experiment_dirs(results_dir: str | Path, names: Iterable[str] | None = None) -> list[Path]:
    """Experiment folders under ``results_dir`` (holding cells.csv, cells/, runs/ or leverage
    scores)."""
    root = Path(results_dir)
    if not root.is_dir():
        return []
    candidates = (
        [root / n for n in names] if names else sorted(p for p in root.iterdir() if p.is_dir())
    )
    return [
        p
        for p in candidates
        if p.is_dir()
        and (
            (p / "cells.csv").is_file()
            or (p / "cells").is_dir()
            or (p / "runs").is_dir()
            or (p / "leverage_scores.csv").exists()
        )
    ]
