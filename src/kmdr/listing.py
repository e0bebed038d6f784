"""``kmdr-list``: what kmdr can run here: the datasets, the reducers and the presets.

    kmdr-list                      # all three sections
    kmdr-list reducers presets     # some of them
    kmdr-list --json               # the same, for programs

Datasets come from the catalog (:mod:`kmdr.datasets`) with where their data would come from,
without loading anything; reducers from the registry (:data:`kmdr.reducers.REDUCERS`) with the
parameters a config may set; presets from the config folder's ``experiment/*.yaml`` with the
number of cells each would compute.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

__all__ = [
    "SECTIONS",
    "PresetInfo",
    "config_folder",
    "list_datasets",
    "list_presets",
    "list_reducers",
    "main",
]

SECTIONS = ("datasets", "reducers", "presets")
#: Constructor parameters the runner sets itself (from r, k and the cell's seed): not settable
#: through a config's ``params``, so not listed.
RUNNER_SET = ("n_components", "n_clusters", "random_state")
#: interfaces §3: a preset without a ``preset:`` block (or with some keys missing).
PRESET_DEFAULTS = {
    "paper": None,
    "title": None,  # the experiment's name
    "figure": "bzmd14",
    "section": "custom",
    "order": 1000,
    "reproduce": "none",
}


# --- datasets ------------------------------------------------------------------------------


def list_datasets(*, data_dir=None, mirror=None) -> list[dict[str, Any]]:
    """One dict per dataset: name, display_name, kind, status, reason, n_samples, n_features,
    n_clusters, sparse (None where not fixed), params (the loader's, with defaults; None when not
    declared)."""
    from kmdr.datasets import DatasetUnavailable, availability, available_datasets, dataset_info

    rows = []
    for name in available_datasets():
        status, reason = availability(name, data_dir=data_dir, mirror=mirror)
        row = {"name": name, "display_name": name, "kind": None, "status": status, "params": None}
        try:
            entry = dataset_info(name)
        except DatasetUnavailable:  # a plug-in that cannot be imported: its reason says why
            facts = (None, None, None, None)
        else:
            row |= {"display_name": entry.display_name, "kind": entry.kind}
            row["params"] = None if entry.params is None else dict(entry.params)
            facts = (entry.n_samples, entry.n_features, entry.n_clusters, entry.sparse)
        row |= dict(zip(("n_samples", "n_features", "n_clusters", "sparse"), facts, strict=True))
        row["reason"] = reason
        rows.append(row)
    return rows


# --- reducers ------------------------------------------------------------------------------


def list_reducers() -> list[dict[str, Any]]:
    """One dict per registry entry: name, label, paper, class, params (settable, with their
    defaults from ``get_params()``), pinned (what the entry fixes), error (why the entry could not
    be read, e.g. a broken plug-in, else None)."""
    from kmdr.reducers import REDUCERS, available_reducers

    rows = []
    for name in available_reducers():
        row = {"name": name, "label": None, "paper": None, "class": None}
        row |= {"params": {}, "pinned": {}, "error": None}
        try:
            entry = REDUCERS[name]
            pinned = dict(entry.fixed)
            row |= {
                "label": entry.label,
                "paper": getattr(entry, "paper", None),
                "class": f"{entry.cls.__module__}.{entry.cls.__qualname__}",
                "pinned": pinned,
            }
            defaults = entry.cls().get_params(deep=False)
        except Exception as err:  # third-party code: one line, and the other entries still list
            row["error"] = f"{type(err).__name__}: {err}".splitlines()[0]
        else:
            skip = set(pinned) | set(RUNNER_SET)
            row["params"] = {k: v for k, v in sorted(defaults.items()) if k not in skip}
        rows.append(row)
    return rows


# --- presets -------------------------------------------------------------------------------


def config_folder() -> Path:
    """The folder holding ``config.yaml`` and ``experiment/``: the one place that knows where the
    configs live (today the CLI's ``conf_dir()``; a ``kmdr.conf`` package later)."""
    from kmdr.experiments.cli import conf_dir

    return Path(conf_dir())


@dataclass(frozen=True)
class PresetInfo:
    """What a preset (``conf/experiment/<name>.yaml``) runs and reproduces.

    ``cells`` is reducers x r-grid x repeats, the ``none`` reducer counting one cell per
    repetition (it ignores r); None for kinds other than ``cells``.
    """

    name: str
    experiment: str
    paper: str | None
    title: str
    figure: str
    section: str
    order: int
    reproduce: str
    kind: str
    dataset: str | None
    reducers: tuple[str, ...]
    r_grid: int | None
    repeats: int | None
    cells: int | None


def _defaults_choice(cfg: dict, group: str) -> tuple[bool, Any]:
    """A group's choice in a config's ``defaults`` list (plain or ``override /group``)."""
    for item in cfg.get("defaults") or []:
        if isinstance(item, dict):
            for key, value in item.items():
                if key.split()[-1].lstrip("/") == group:
                    return True, value
    return False, None


def _group_value(folder: Path, cfg: dict, base: dict, group: str, key: str):
    """``key`` as set by the config itself, else by the group option its defaults choose."""
    if key in cfg:
        return cfg[key]
    found, choice = _defaults_choice(cfg, group)
    if not found:
        found, choice = _defaults_choice(base, group)
    if choice is None:
        return None
    option = folder / group / f"{choice}.yaml"
    if not option.is_file():
        return None
    loaded = OmegaConf.to_container(OmegaConf.load(option), resolve=False)
    # a `# @package _global_` option sets the key itself; a packaged one is the group's value
    return loaded.get(key, loaded) if group == "reducer" else loaded


def _preset(folder: Path, path: Path, base: dict) -> PresetInfo:
    cfg = OmegaConf.to_container(OmegaConf.load(path), resolve=False) or {}
    experiment = str(cfg.get("name", path.stem))
    meta = {**PRESET_DEFAULTS, **(cfg.get("preset") or {})}
    kind = str(cfg.get("kind", base.get("kind", "cells")))
    r_grid = cfg.get("r_grid", base.get("r_grid"))
    repeats = cfg.get("repeats", base.get("repeats"))
    # an interpolation ("${...}") is not resolved here: its size is unknown
    n_r = len(r_grid) if isinstance(r_grid, list) else None
    repeats = repeats if isinstance(repeats, int) else None
    reducers = _group_value(folder, cfg, base, "reducer", "reducers") or []
    dataset = _group_value(folder, cfg, base, "dataset", "dataset")
    names = tuple(str(r.get("name", r.get("id"))) for r in reducers if isinstance(r, dict))
    cells = None
    if kind == "cells" and n_r is not None and repeats is not None:
        cells = sum(1 if n == "none" else n_r for n in names) * repeats
    return PresetInfo(
        name=path.stem,
        experiment=experiment,
        paper=meta["paper"],
        title=str(meta["title"] or experiment),
        figure=str(meta["figure"]),
        section=str(meta["section"]),
        order=int(meta["order"]),
        reproduce=str(meta["reproduce"]),
        kind=kind,
        dataset=dataset.get("name") if isinstance(dataset, dict) else dataset,
        reducers=names,
        r_grid=n_r,
        repeats=repeats,
        cells=cells,
    )


def list_presets(folder: str | Path | None = None) -> list[PresetInfo]:
    """The presets of ``folder`` (default: :func:`config_folder`), by report order then name.

    Read with OmegaConf, not composed by Hydra: listing never runs a config's checks, and a
    preset without a ``preset:`` block gets the defaults of interfaces §3.
    """
    folder = Path(folder) if folder is not None else config_folder()
    base = OmegaConf.to_container(OmegaConf.load(folder / "config.yaml"), resolve=False) or {}
    presets = [_preset(folder, p, base) for p in sorted((folder / "experiment").glob("*.yaml"))]
    return sorted(presets, key=lambda p: (p.order, p.name))


# --- output --------------------------------------------------------------------------------


def _cell(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _table(header: list[str], rows: list[list]) -> list[str]:
    cells = [header, *[[_cell(v) for v in r] for r in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def _text(section: str, rows: list[dict]) -> list[str]:
    if section == "datasets":
        header = ["name", "display name", "status", "n", "d", "k", "sparse"]
        keys = ["name", "display_name", "status", "n_samples", "n_features", "n_clusters", "sparse"]
        lines = _table(header, [[r[k] for k in keys] for r in rows])
        lines += [f"  {r['reason']}" for r in rows if r["status"] == "unavailable"]
        return lines
    if section == "reducers":
        header = ["name", "label", "paper", "parameters (defaults)", "pinned"]
        table = [
            [
                r["name"],
                r["label"],
                r["paper"],
                ", ".join(f"{k}={_cell(v)}" for k, v in r["params"].items()) or "-",
                ", ".join(f"{k}={_cell(v)}" for k, v in r["pinned"].items()) or "-",
            ]
            for r in rows
        ]
        return _table(header, table) + [
            f"  {r['name']}: {r['error']}" for r in rows if r["error"] is not None
        ]
    header = ["name", "paper", "figure", "kind", "dataset", "cells", "title"]
    keys = ["name", "paper", "figure", "kind", "dataset", "cells", "title"]
    return _table(header, [[r[k] for k in keys] for r in rows])


def _jsonable(value):
    # numpy scalars and other parameter defaults json cannot write
    return value.item() if hasattr(value, "item") else repr(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kmdr-list", description=__doc__.splitlines()[0])
    parser.add_argument(
        "sections", nargs="*", metavar="section", help=f"{' | '.join(SECTIONS)} (default: all)"
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--data-dir", default=None, help="data cache (default: KMDR_DATA_DIR)")
    parser.add_argument("--mirror", default=None, help="data mirror (default: KMDR_DATA_MIRROR)")
    args = parser.parse_args(argv)
    bad = [s for s in args.sections if s not in SECTIONS]
    if bad:
        parser.error(f"unknown section(s) {bad}; choose from {', '.join(SECTIONS)}")
    sections = [s for s in SECTIONS if s in args.sections] or list(SECTIONS)

    out: dict[str, list[dict]] = {}
    for section in sections:
        if section == "datasets":
            out[section] = list_datasets(data_dir=args.data_dir, mirror=args.mirror)
        elif section == "reducers":
            out[section] = list_reducers()
        else:
            try:
                out[section] = [asdict(p) for p in list_presets()]
            except Exception as err:  # no config folder, or a YAML error: one line
                message = " ".join(str(err).split())
                print(f"kmdr-list: error: presets: {message}", file=sys.stderr)
                return 1
    if args.json:
        print(json.dumps(out, indent=2, default=_jsonable))
        return 0
    for section, rows in out.items():
        print(f"{section} ({len(rows)})")
        for line in _text(section, rows):
            print(f"  {line}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
