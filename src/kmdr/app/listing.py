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

import json
import os
import sys
from pathlib import Path
from typing import Any

from kmdr._errors import CommandParser

SECTIONS = ("datasets", "reducers", "presets")
#: Constructor parameters the runner sets itself (from r, k and the cell's seed): not settable
#: through a config's ``params``, so not listed.
RUNNER_SET = ("n_components", "n_clusters", "random_state")
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
            entry = REDUCERS.get(name)  # a plug-in that cannot be used: its one line
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


def _preset(name: str, cfg) -> dict[str, Any]:
    """What preset ``name`` (``conf/experiment/<name>.yaml``, composed as ``cfg``) runs and
    reproduces: its option name, its experiment's, its preset block, kind, dataset, reducers,
    the size of its r-grid, its repeats, and its ``cells`` (reducers x r-grid x repeats, the
    ``none`` reducer one cell per repetition; None for kinds other than ``cells``)."""
    from kmdr.config.schema import to_container
    from kmdr.results.cells import planned_count

    c = to_container(cfg)
    reducers = list((c.get("reducers") or {}).values())
    cells = None
    if c["kind"] == "cells":
        pairs = ((r["name"], r.get("max_r")) for r in reducers)
        cells = planned_count(pairs, c["r_grid"], c["repeats"])
    return {
        "name": name,
        "experiment": c["name"],
        **c["preset"],
        "title": str(c["preset"]["title"] or c["name"]),
        "kind": c["kind"],
        "dataset": c["dataset"]["name"],
        "reducers": tuple(str(r["name"]) for r in reducers),
        "r_grid": len(c["r_grid"]),
        "repeats": c["repeats"],
        "cells": cells,
    }


def list_presets(folder: str | Path | None = None) -> list[dict[str, Any]]:
    """The presets of ``folder`` (default: kmdr's configs), by report order then name, composed
    by Hydra as a run would compose them (the schema's defaults included)."""
    from kmdr.app.compose import composed_presets

    if folder is not None and not (Path(folder) / "config.yaml").is_file():
        raise FileNotFoundError(f"no config.yaml in {folder}")
    presets = [_preset(name, cfg) for name, cfg in composed_presets(folder)]
    return sorted(presets, key=lambda p: (p["order"], p["name"]))


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
    # tabulate's plain layout (columns two spaces apart, a dashed rule under the header); cells
    # are written as given, numbers left-aligned like the text, trailing padding dropped.
    from tabulate import tabulate

    cells = [[_cell(v) for v in r] for r in rows]
    text = tabulate(cells, headers=header, tablefmt="simple", disable_numparse=True)
    return [line.rstrip() for line in text.splitlines()]


def _text(section: str, rows: list[dict]) -> list[str]:
    rows = [{**r, "name": f"{r['name']} (yours)" if r.get("yours") else r["name"]} for r in rows]
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


def _yours(rows: list[dict], args) -> list[dict]:
    """``rows`` (datasets or presets), given ``--config-dir``, with ``yours``: the file of that
    folder that holds the option of that name (the one a run with ``-cd`` uses), else None."""
    if not args.config_dir:  # the rows as ever: without a folder of one's own, nothing is
        return rows
    group = "experiment" if rows and "experiment" in rows[0] else "dataset"
    folder = Path(args.config_dir).expanduser()
    out = []
    for row in rows:
        file = folder / group / f"{row['name']}.yaml"
        out.append({**row, "yours": str(file) if file.is_file() else None})
    return out


def _jsonable(value):
    # numpy scalars and other parameter defaults json cannot write
    return value.item() if hasattr(value, "item") else repr(value)


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(prog="kmdr-list", description=__doc__.splitlines()[0])
    parser.add_argument(
        "sections",
        nargs="*",
        default=[],
        metavar="section",
        help=f"{' | '.join(SECTIONS)} (default: all)",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--config-dir",
        "-cd",
        default=None,
        help="a config folder of your own, as kmdr -cd reads it: its options come first and are "
        "marked (yours)",
    )
    parser.add_argument("--data-dir", default=None, help="data cache (default: KMDR_DATA_DIR)")
    parser.add_argument("--mirror", default=None, help="data mirror (default: KMDR_DATA_MIRROR)")
    args = parser.parse_args(argv)
    bad = [s for s in args.sections if s not in SECTIONS]
    if bad:
        parser.error(f"unknown section(s) {bad}; choose from {', '.join(SECTIONS)}")
    sections = [s for s in SECTIONS if s in args.sections] or list(SECTIONS)

    from kmdr.config.search_path import user_folder_first

    out: dict[str, list[dict]] = {}
    for section in sections:
        if section == "datasets":
            out[section] = _yours(list_datasets(data_dir=args.data_dir, mirror=args.mirror), args)
        elif section == "reducers":
            out[section] = list_reducers()
        else:
            try:
                with user_folder_first(args.config_dir):
                    out[section] = _yours(list_presets(), args)
            except Exception as err:  # no config folder, or a YAML error: one line
                message = " ".join(str(err).split())
                print(f"kmdr-list: error: presets: {message}", file=sys.stderr)
                return 1
    try:
        if args.json:
            print(json.dumps(out, indent=2, default=_jsonable))
            return 0
        for section, rows in out.items():
            print(f"{section} ({len(rows)})")
            for line in _text(section, rows):
                print(f"  {line}")
            print()
    except BrokenPipeError:  # `kmdr-list | head`: the reader has what it wanted
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (no flush error at exit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
