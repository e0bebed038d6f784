"""``kmdr-list``: what kmdr can run here: the datasets, the reducers, the coreset constructions
and the presets.

    kmdr-list                      # every section
    kmdr-list reducers presets     # some of them
    kmdr-list --json               # the same, for programs

Datasets come from the catalog (:mod:`kmdr.datasets`) with where their data would come from
(the cache, the mirror, or the registry's URL of each file), without loading anything; reducers
from the registry (:data:`kmdr.reducers.REDUCERS`) with the parameters a config may set;
coresets from :data:`kmdr.coresets.CORESETS`, with the settings of the ``coresets`` kind
(``kind_params``); presets from the config folder's ``experiment/*.yaml`` with the number of
cells each would compute (a kind that plans its own grid, as the coresets kind does, counted by
that grid).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from kmdr._errors import CommandParser

SECTIONS = ("datasets", "reducers", "coresets", "presets")
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
        row["source"] = _source(name)
        rows.append(row)
    return rows


def _source(name: str) -> str | None:
    """Where dataset ``name``'s files come from: the registry's URL of each (None for data that
    is not a registry file: synthetic, bundled, a folder of one's own)."""
    from kmdr.datasets import DatasetUnavailable, dataset_info, registry

    try:
        entry = dataset_info(name)
    except DatasetUnavailable:
        return None
    files = [registry().get(p) for p in (*entry.files, *entry.extra_files)]
    urls = list(dict.fromkeys(f.url for f in files if f is not None))
    if len(urls) > 2:  # a folder of files (ORL's 400 images): where they are, and how many
        # by characters: commonpath would fold the URL's "//"
        folder = os.path.commonprefix(urls).rsplit("/", 1)[0]  # noqa: RUF071
        return f"{len(urls)} files under {folder}/"
    return " ".join(urls) or None


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


# --- coresets ------------------------------------------------------------------------------


def list_coresets() -> list[dict[str, Any]]:
    """The coreset constructions (``what``: ``construction``; name, class, its docstring's first
    line), then the ``coresets`` kind's settings (``what``: ``setting``; ``kind_params.<name>``
    and its one line, default included), as the kind documents them."""
    from kmdr.config.kinds import get_kind
    from kmdr.coresets import available_coresets, coreset_class

    rows = []
    for name in available_coresets():
        row = {"what": "construction", "name": name, "class": None, "description": None}
        try:
            cls = coreset_class(name)
        except Exception as err:  # a plug-in that cannot be used: its one line
            row["description"] = f"{type(err).__name__}: {err}".splitlines()[0]
        else:
            row["class"] = f"{cls.__module__}.{cls.__qualname__}"
            row["description"] = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
        rows.append(row)
    for name, text in _kind_settings(get_kind("coresets")).items():
        rows.append(
            {"what": "setting", "name": f"kind_params.{name}", "class": None, "description": text}
        )
    return rows


def _kind_settings(kind) -> dict[str, str]:
    """A kind's settings and their one-line texts: its ``settings_doc``; for a kind without one,
    the names and defaults of its module's ``KIND_PARAMS``."""
    documented = dict(getattr(kind, "settings_doc", None) or {})
    if documented:
        return {str(k): str(v) for k, v in documented.items()}
    import sys

    params = getattr(sys.modules.get(type(kind).__module__), "KIND_PARAMS", None) or {}
    return {k: "required" if v is None else f"default {v}" for k, v in dict(params).items()}


# --- presets -------------------------------------------------------------------------------


def _preset(name: str, cfg) -> dict[str, Any]:
    """What preset ``name`` (``conf/experiment/<name>.yaml``, composed as ``cfg``) runs and
    reproduces: its option name, its experiment's, its preset block, kind, dataset, reducers,
    the size of its r-grid, its repeats, and its ``cells`` (reducers x r-grid x repeats, the
    ``none`` reducer one cell per repetition; for a kind that plans its own grid, the cells of
    that grid; None for a kind without cells)."""
    from kmdr.config.schema import to_container
    from kmdr.results.cells import planned_count

    c = to_container(cfg)
    reducers = list((c.get("reducers") or {}).values())
    cells = None
    if c["kind"] == "cells":
        pairs = ((r["name"], r.get("max_r")) for r in reducers)
        cells = planned_count(pairs, c["r_grid"], c["repeats"])
    else:
        cells = _kind_cells(c["kind"], cfg)
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


def _kind_cells(kind_name: str, cfg) -> int | None:
    """The cells a kind of its own plans for the composed config ``cfg``: its ``grid`` (the
    coresets kind's: reducers x r x repetitions x constructions x sizes), with r clipped at the
    dataset's width where the catalog knows it; None for a kind without a grid, or a config its
    grid refuses."""
    from kmdr.config.kinds import get_kind

    try:
        kind = get_kind(kind_name)
        grid = getattr(kind, "grid", None)
        if grid is None:
            return None
        from kmdr.config.schema import from_config
        from kmdr.datasets import dataset_info

        experiment = from_config(cfg).experiment
        try:
            width = dataset_info(experiment.dataset.name).n_features or 0
        except Exception:  # a dataset whose width the catalog does not fix
            width = 0
        return sum(1 for _ in grid(experiment, width))
    except Exception:  # a kind or config that cannot be read here: no count, the rest lists
        return None


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
        lines += [
            "",
            "where the data would come from (a machine without internet reads the "
            "same paths from a mirror folder, KMDR_DATA_MIRROR or --mirror):",
        ]
        for r in rows:
            if r["reason"]:
                lines.append(f"  {r['reason']}")
            if r["source"] and (r["status"] != "download" or not r["reason"]):
                lines.append(f"  {r['name']}: from {r['source']}")
        return lines
    if section == "coresets":
        built = [r for r in rows if r["what"] == "construction"]
        lines = _table(["name", "construction"], [[r["name"], r["description"]] for r in built])
        settings = [r for r in rows if r["what"] == "setting"]
        if settings:
            lines += [
                "",
                "the coresets kind's settings (kind_params.<name>=... on the command line):",
            ]
            lines += [f"  {r['name']}: {r['description']}" for r in settings]
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
        elif section == "coresets":
            out[section] = list_coresets()
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
                print(f"  {line}" if line else "")
            print()
    except BrokenPipeError:  # `kmdr-list | head`: the reader has what it wanted
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (no flush error at exit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
