"""Benchmark: a sweep on a local Dask cluster against loky, and 2 Dask workers against 1.

    python scripts/bench/bench_dask.py               # the bzmd14 ORL grid (705 cells), dask / loky
    python scripts/bench/bench_dask.py --quick       # its --quick grid (r = 5, 20, 50, 100; ...)
    python scripts/bench/bench_dask.py --efficiency  # sparse_text, 100,000 rows, SE and RP:
                                                     # dask with 1 worker, then with 2

Each measurement runs in a fresh process, so that no backend finds workers another one warmed:
the wall time of :meth:`kmdr.engine.session.Session.run` there, pool or cluster start included,
into an empty results folder. The configurations alternate (a, b, a, b, ...) so that load drifts
of a shared machine hit both; each figure is the median of ``--rounds`` measurements. Each line
also says the machine's load average (1 minute) when the measurement ended: other work on the
machine slows both, and not always equally.

* ``dask / loky``: the ratio of the medians, both with ``n_jobs`` workers (default: all cores);
  kmdr's target is at most 1.5.
* ``--efficiency``: T1 / (2 T2), dask with 1 worker (T1) against 2 workers (T2), each worker
  with one BLAS thread; 1.0 is perfect scaling. It cannot exceed what the machine's free cores
  allow: on a 2-core machine shared with other work it measures the contention too.

Every graph a dask run submits is measured by dask itself (its large-graph warning threshold,
``distributed.admin.large-graph-warning-threshold``, set to 0 so that it reports every graph with
its size): the largest is printed. The rows of every run must equal the first run's bit for bit.
"""

# The kmdr internals this bench needs, beyond the public API (kmdr.run, Session,
# kmdr.read_results), because it times or builds one step alone: kmdr.app.compose.

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

METRICS = ["objective", "objective_reduced", "accuracy", "nmi", "ari", "n_iter", "seed"]
ORL = ["experiment=bzmd14_orl"]
ORL_QUICK = [*ORL, "r_grid=[5,20,50,100]", "repeats=2", "kmeans.n_init=2"]
SPARSE = [
    "experiment=lst17_sparse_text",
    "++dataset.params.n_samples=100000",
    "reducer=[sparse_embedding,sign]",
    "r_grid=[100]",
    "repeats=4",
    "kmeans.max_iter=30",
]


def child(overrides: list[str]) -> dict:
    """One run in this process: its wall time, the sizes of the graphs dask sent, its rows."""
    import time
    import warnings

    import dask
    import distributed  # noqa: F401  (its config defaults, before the block sets one)
    from dask.utils import parse_bytes

    from kmdr.app.compose import compose_job
    from kmdr.engine.session import Session

    spec = compose_job(overrides)
    with (
        dask.config.set({"distributed.admin.large-graph-warning-threshold": "0B"}),
        warnings.catch_warnings(record=True) as caught,
    ):
        warnings.simplefilter("always")
        start = time.perf_counter()
        with Session(spec.execution) as session:
            outcome = session.run(spec.experiment, spec.output)
        wall = time.perf_counter() - start
    prefix = "Sending large graph of size "
    sizes = [
        parse_bytes(str(w.message)[len(prefix) :].split(".\n")[0])
        for w in caught
        if str(w.message).startswith(prefix)
    ]
    return {
        "wall": wall,
        "status": outcome.status,
        "cells": outcome.n_computed,
        "graphs": len(sizes),
        "largest_graph": max(sizes, default=0),
        "csv": str(outcome.experiment_dir / "cells.csv"),
    }


def measure(overrides: list[str], folder: Path) -> dict:
    """``child`` in a fresh process, writing under ``folder``."""
    args = [*overrides, f"results_dir={folder}", "figures=false", "progress=false"]
    out = subprocess.run(
        [sys.executable, __file__, "--child", json.dumps(args)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def rows(csv: str):
    import pandas as pd

    return pd.read_csv(csv).set_index("cell_id").sort_index()[METRICS]


def compare(configs: dict[str, list[str]], rounds: int) -> dict[str, list[dict]]:
    """Each configuration ``rounds`` times, alternating; checks every run's rows are equal."""
    import pandas as pd

    got: dict[str, list[dict]] = {name: [] for name in configs}
    reference = None
    with tempfile.TemporaryDirectory(prefix="kmdr-bench-dask-") as tmp:
        for i in range(rounds):
            for name, overrides in configs.items():
                result = measure(overrides, Path(tmp) / f"{name}-{i}")
                assert result["status"] == "complete", result
                got[name].append(result)
                print(
                    f"[bench] {name}: {result['cells']} cells in {result['wall']:.1f} s; "
                    f"{result['graphs']} dask graphs, largest {result['largest_graph']:,} bytes; "
                    f"load average {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
                table = rows(result["csv"])
                if reference is None:
                    reference = table
                pd.testing.assert_frame_equal(table, reference, check_exact=True)
    return got


def median_wall(results: list[dict]) -> float:
    return statistics.median(r["wall"] for r in results)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the ORL --quick grid")
    parser.add_argument("--efficiency", action="store_true", help="dask 1 worker vs 2")
    parser.add_argument("--rounds", type=int, default=3, help="measurements of each")
    parser.add_argument("--n-jobs", type=int, default=-1, help="workers (default: all cores)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return 0

    cores = os.cpu_count()
    if args.efficiency:
        configs = {
            f"{n} worker": [*SPARSE, "backend=dask", f"n_jobs={n}", "blas_threads=1"]
            for n in (1, 2)
        }
        got = compare(configs, args.rounds)
        t1, t2 = median_wall(got["1 worker"]), median_wall(got["2 worker"])
        paired = statistics.median(
            a["wall"] / (2 * b["wall"])
            for a, b in zip(got["1 worker"], got["2 worker"], strict=True)
        )
        largest = max(r["largest_graph"] for runs in got.values() for r in runs)
        print(
            f"\n[bench] sparse_text 100,000 rows, SE and RP, {cores} cores, median of "
            f"{args.rounds}: 1 dask worker {t1:.1f} s, 2 workers {t2:.1f} s; efficiency "
            f"T1 / (2 T2) = {t1 / (2 * t2):.2f} (median of the rounds' own {paired:.2f}); "
            f"largest dask graph {largest / 2**10:.1f} KiB; "
            "rows identical"
        )
        return 0
    grid = ORL_QUICK if args.quick else ORL
    configs = {b: [*grid, f"backend={b}", f"n_jobs={args.n_jobs}"] for b in ("loky", "dask")}
    got = compare(configs, args.rounds)
    loky, dask_ = median_wall(got["loky"]), median_wall(got["dask"])
    paired = statistics.median(
        d["wall"] / lo["wall"] for d, lo in zip(got["dask"], got["loky"], strict=True)
    )
    largest = max(r["largest_graph"] for r in got["dask"])
    print(
        f"\n[bench] ORL {'--quick grid' if args.quick else 'grid'}, {cores} cores, n_jobs="
        f"{args.n_jobs}, median of {args.rounds}: loky {loky:.1f} s, dask {dask_:.1f} s; "
        f"dask / loky = {dask_ / loky:.2f} (median of the rounds' own ratios {paired:.2f}; "
        f"target <= 1.5); largest dask graph {largest / 2**10:.1f} KiB; rows identical"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
