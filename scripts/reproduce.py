"""Run every paper experiment whose data is available, in sequence, into one results folder.

    python scripts/reproduce.py --results results            # the full protocols (make reproduce)
    python scripts/reproduce.py --quick --results results-quick   # reduced grids, a few minutes
    python scripts/reproduce.py --only bzmd14_orl lst17_coil20    # a subset

Installs nothing (the Makefile's targets do). Each experiment is the Hydra preset
``conf/experiment/<name>.yaml``, run by :func:`kmdr.experiments.runner.run_experiment`; finished
cells are kept, so an interrupted reproduction resumes where it stopped. An experiment whose data
cannot be obtained is skipped with the loader's reason, printed and listed in
``<results>/SKIPPED.md``. Per-experiment wall times are printed at the end and written to
``<results>/reproduce_times.csv``.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

from kmdr.experiments.published import DIAGNOSTIC_EXPERIMENTS, PAPER_EXPERIMENTS

EXPERIMENTS = PAPER_EXPERIMENTS + DIAGNOSTIC_EXPERIMENTS


def _conf_dir() -> Path:
    from kmdr.experiments.cli import conf_dir

    return conf_dir()


def compose_experiment(name: str, results: str, quick: bool, extra: list[str]):
    from hydra import compose, initialize_config_dir

    overrides = [f"experiment={name}", f"results_dir={results}", f"quick={str(quick).lower()}"]
    with initialize_config_dir(config_dir=str(_conf_dir()), version_base=None, job_name="kmdr"):
        return compose("config", overrides=overrides + list(extra))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="results", help="results folder (default: results)")
    parser.add_argument("--quick", action="store_true", help="the reduced grids (quick_grid)")
    parser.add_argument(
        "--only", nargs="+", metavar="NAME", choices=EXPERIMENTS, help="run only these experiments"
    )
    parser.add_argument(
        "--override",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="extra Hydra overrides for every experiment (e.g. n_jobs=4)",
    )
    args = parser.parse_args(argv)

    import pandas as pd
    from omegaconf import OmegaConf

    from kmdr.experiments.runner import run_experiment
    from kmdr.experiments.spec import ConfigError, spec_from_config
    from kmdr.experiments.store import atomic_write_text

    results = Path(args.results)
    names = args.only or EXPERIMENTS
    mode = "quick (reduced grids)" if args.quick else "full protocols"
    print(f"[reproduce] {len(names)} experiments, {mode}, into {results}/", flush=True)
    rows = []
    start_all = time.perf_counter()
    for name in names:
        print(f"[reproduce] {name} ...", flush=True)
        start = time.perf_counter()
        try:
            cfg = compose_experiment(name, str(results), args.quick, args.override)
            spec = spec_from_config(cfg)
            outcome = run_experiment(spec, config=OmegaConf.to_container(cfg, resolve=True))
        except ConfigError as err:
            print(f"[reproduce] {name}: configuration error: {err}", file=sys.stderr)
            return 2
        wall = time.perf_counter() - start
        if outcome.skipped:
            status, reason = "skipped", outcome.skipped
            print(f"[reproduce] {name}: SKIPPED: {reason}", flush=True)
        else:
            status, reason = "done", ""
            print(
                f"[reproduce] {name}: {outcome.n_expected} cells ({outcome.n_computed} "
                f"computed, {outcome.n_reused} reused) in {wall:.1f} s",
                flush=True,
            )
        rows.append(
            {
                "experiment": name,
                "status": status,
                "wall_seconds": round(wall, 2),
                "cells": outcome.n_expected,
                "computed": outcome.n_computed,
                "reused": outcome.n_reused,
                "reason": reason,
            }
        )
    total = time.perf_counter() - start_all

    table = pd.DataFrame(rows)
    results.mkdir(parents=True, exist_ok=True)
    # A partial run (--only) updates its experiments' rows and keeps the others', so the times
    # file and SKIPPED.md always describe the whole results folder.
    times_path = results / "reproduce_times.csv"
    recorded = _recorded_times(times_path)
    if not recorded.empty:
        recorded = recorded[~recorded["experiment"].isin(table["experiment"])]
    merged = pd.concat([recorded, table], ignore_index=True) if len(recorded) else table
    order = {name: i for i, name in enumerate(EXPERIMENTS)}
    merged = merged.sort_values("experiment", key=lambda s: s.map(order).fillna(len(order)))
    buf = io.StringIO()
    merged.to_csv(buf, index=False)
    atomic_write_text(times_path, buf.getvalue())
    skipped = merged[merged["status"] == "skipped"]
    lines = ["# Experiments skipped by `scripts/reproduce.py`", ""]
    if skipped.empty:
        lines.append("None: every experiment's data was available.")
    else:
        lines.append("Their data could not be obtained here; the reason is the loader's message.")
        lines.append("")
        lines += [f"- `{r.experiment}`: {r.reason}" for r in skipped.itertuples()]
    atomic_write_text(results / "SKIPPED.md", "\n".join(lines) + "\n")

    print(f"\n[reproduce] wall time per experiment ({mode}):")
    print("| experiment | status | cells | computed | wall (s) |")
    print("|---|---|---:|---:|---:|")
    for r in table.itertuples():
        print(f"| {r.experiment} | {r.status} | {r.cells} | {r.computed} | {r.wall_seconds:.1f} |")
    print(f"| total | | {int(table.cells.sum())} | {int(table.computed.sum())} | {total:.1f} |")
    if not skipped.empty:
        print(
            f"[reproduce] {len(skipped)} skipped (reasons in {results / 'SKIPPED.md'}): "
            f"{', '.join(skipped.experiment)}"
        )
    return 0


def _recorded_times(path: Path):
    """Rows an earlier run wrote, one per experiment (empty if none or unreadable)."""
    import pandas as pd

    try:
        return pd.read_csv(path, keep_default_na=False)
    except (OSError, ValueError):
        return pd.DataFrame()


if __name__ == "__main__":
    sys.exit(main())
