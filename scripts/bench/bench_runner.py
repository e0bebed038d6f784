"""Benchmark of the experiment runner against a naive loop, on the bzmd14 ORL grid.

    python scripts/bench/bench_runner.py                # the runner on all 700 points, naive on 70
    python scripts/bench/bench_runner.py --subsample 0  # the naive loop on all 700 too (slow)

The grid: bzmd14's 7 methods (Sampl/SVD, Sampl/ApproxSVD, RP, SVD, ApprSVD, LapScores, kMeans),
r = 5, 10, ..., 100, 5 repetitions, k-means 5 restarts x 500 iterations: 7 x 20 x 5 = 700 grid
points (method, r, repetition). The runner computes the r-independent work (SVD, leverage and
Laplacian scores) once per repetition and kMeans (which does not depend on r) once per repetition,
so it writes 6 x 20 x 5 + 5 = 605 rows covering the 700 points. The naive loop, written here,
is the issue's baseline, what a plain per-cell script does: for every grid point it recomputes
the reduction from scratch (including the SVD or the scores), clusters it, and recomputes the
full-space k-means the cell is compared with (its F ratio and the kMeans line of its panel), one
point after the other. The table also gives a stricter loop, timed in the same pass, that skips
that per-cell full-space k-means (it runs full k-means only for the kMeans points themselves).
Both use the runner's seeds, so their P and F must equal the runner's exactly: checked on every
point both computed, the full-space k-means included.

Throughput is grid points per second of wall time, both on this machine, measured in one
invocation. With ``--subsample N`` the naive loop runs on a fixed random subset of N points
(numpy seed 0) and its rate is N / its wall time; the output says so.
"""

# The kmdr internals this bench needs, beyond the public API (kmdr.run, Session,
# kmdr.read_results), because it times or builds one step alone: kmdr.app.compose,
# kmdr.config.seeds, kmdr.engine.backends, kmdr.engine.data_path, kmdr.engine.work,
# kmdr.results.cells.

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _timing import markdown  # scripts/bench/_timing.py (run as python scripts/...)

METRICS = ["objective", "objective_reduced", "accuracy", "nmi", "ari", "n_iter"]


def bzmd14_orl_spec(results_dir: str, n_jobs: int):
    from kmdr.app.compose import compose_job

    overrides = [
        "experiment=bzmd14_orl",
        f"results_dir={results_dir}",
        f"n_jobs={n_jobs}",
        "figures=false",
        "progress=false",
    ]
    return compose_job(overrides)


def grid_points(spec, d: int) -> list[tuple]:
    """The (reducer spec, r, repetition) points of the naive loop; kMeans at every r."""
    return [
        (red, r, rep)
        for red in spec.experiment.reducers
        for r in spec.experiment.r_grid
        for rep in range(spec.experiment.repeats)
    ]


def naive_point(spec, red, r, rep, X, y, k):
    """One grid point computed from scratch, as a plain loop would, with the runner's seeds."""
    from kmdr.config.seeds import shared_seed
    from kmdr.engine.work import compute_cell, compute_shared_work
    from kmdr.reducers import make_reducer
    from kmdr.results.cells import make_cell

    d = X.shape[1]
    r_cell = d if red.name == "none" else r  # kMeans is the same cell at every r
    key = make_reducer(red.name, r_cell, n_clusters=k, **red.params).shared_key(X)
    cell = make_cell(
        spec.experiment, red, r_cell, rep, key, data_fingerprint=""
    )  # not stored: no data id
    shared = None
    if key is not None:  # recomputed for every point, with the seed the runner uses
        shared = compute_shared_work(
            red.name,
            red.params,
            r_cell,
            k,
            X,
            shared_seed(spec.experiment.seed, spec.experiment.dataset.name, tuple(key), rep),
        )
    return compute_cell(cell, X, y, k, shared)


def _naive_row(red, r: int, rep: int, metrics: dict) -> dict:
    return {"reducer": red.id, "r": r, "repetition": rep, **{c: metrics[c] for c in METRICS}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--subsample",
        type=int,
        default=70,
        help="time the naive loop on this many random grid points (0: all 700)",
    )
    parser.add_argument("--n-jobs", type=int, default=-1, help="runner workers (default: all)")
    args = parser.parse_args(argv)

    from kmdr._native import limited_threads  # the thread limits' owner
    from kmdr.datasets import load_dataset
    from kmdr.engine.backends import resolve_parallelism
    from kmdr.engine.data_path import prepare_data
    from kmdr.engine.session import Session

    command = "python scripts/bench/bench_runner.py " + " ".join(
        shlex.quote(a) for a in (argv or sys.argv[1:])
    )
    with tempfile.TemporaryDirectory(prefix="kmdr-bench-") as tmp:
        spec = bzmd14_orl_spec(tmp, args.n_jobs)
        ds = load_dataset("orl")
        X, y, k = prepare_data(ds.X), np.asarray(ds.y), int(ds.n_clusters)
        exp = spec.experiment
        points = grid_points(spec, X.shape[1])
        par = resolve_parallelism(spec.execution, spec.experiment.blas_threads)
        n_jobs, threads = par.workers, exp.blas_threads
        print(
            f"[bench] ORL {X.shape[0]} x {X.shape[1]}, k = {k}; {len(exp.reducers)} methods x "
            f"{len(exp.r_grid)} r x {exp.repeats} repetitions = {len(points)} grid points; "
            f"k-means {exp.kmeans.n_init} x {exp.kmeans.max_iter} ({exp.kmeans.init})",
            flush=True,
        )

        start = time.perf_counter()
        with Session(spec.execution) as session:
            outcome = session.run(spec.experiment, spec.output, dataset=ds)
        runner_wall = time.perf_counter() - start
        rows = pd.read_csv(Path(tmp) / spec.experiment.name / "cells.csv")
        print(
            f"[bench] runner: {len(rows)} rows ({outcome.n_computed} computed) in "
            f"{runner_wall:.1f} s, n_jobs={n_jobs}, BLAS threads {threads}/worker",
            flush=True,
        )

        if args.subsample and args.subsample < len(points):
            rng = np.random.default_rng(0)
            chosen = sorted(rng.choice(len(points), size=args.subsample, replace=False))
            sample = [points[i] for i in chosen]
        else:
            sample = points
        none_spec = next(red for red in spec.experiment.reducers if red.name == "none")
        naive_rows = []
        cells_seconds = reference_seconds = 0.0
        # The naive loop runs in this one process with the machine's default BLAS threads.
        with limited_threads(None):
            for red, r, rep in sample:
                start = time.perf_counter()
                m = naive_point(spec, red, r, rep, X, y, k)
                middle = time.perf_counter()
                if red.name != "none":
                    # the full-space k-means this cell is compared with (its F ratio, the kMeans
                    # line of its panel), recomputed beside it as a plain per-cell script would
                    ref = naive_point(spec, none_spec, r, rep, X, y, k)
                    naive_rows.append(_naive_row(none_spec, X.shape[1], rep, ref))
                reference_seconds += time.perf_counter() - middle
                cells_seconds += middle - start
                naive_rows.append(_naive_row(red, X.shape[1] if red.name == "none" else r, rep, m))
    naive_wall = cells_seconds + reference_seconds
    print(f"[bench] naive loop: {len(sample)} grid points in {naive_wall:.1f} s", flush=True)

    naive = pd.DataFrame(naive_rows)
    merged = naive.merge(rows, on=["reducer", "r", "repetition"], suffixes=("_naive", ""))
    assert len(merged) == len(naive), "every naive point has a runner row"
    diffs = {c: float(np.max(np.abs(merged[f"{c}_naive"] - merged[c]))) for c in METRICS}
    exact = [c for c in METRICS if diffs[c] == 0.0]
    # P and F must match exactly; other columns may differ in the last bits when BLAS sums in
    # another order (the naive loop uses the default threads, the runner one per worker).
    same = {"accuracy", "objective"} <= set(exact) and max(diffs.values()) < 1e-9

    runner_rate = len(points) / runner_wall
    naive_rate = len(sample) / naive_wall
    strict_rate = len(sample) / cells_seconds
    star = "*" if len(sample) < len(points) else ""
    print()
    body = [
        [
            "naive loop: every reduction and the full-space k-means recomputed for each cell"
            + star,
            len(sample),
            f"{naive_wall:.1f}",
            f"{naive_rate:.2f}",
            f"**{runner_rate / naive_rate:.1f}x**",
        ],
        [
            "stricter naive loop: every reduction recomputed, full-space k-means only for the "
            "kMeans points" + star,
            len(sample),
            f"{cells_seconds:.1f}",
            f"{strict_rate:.2f}",
            f"{runner_rate / strict_rate:.1f}x",
        ],
        [
            f"kmdr runner (n_jobs={n_jobs}, {threads} BLAS thread/worker, shared work)",
            len(points),
            f"{runner_wall:.1f}",
            f"{runner_rate:.2f}",
            "1.0x",
        ],
    ]
    header = ["", "grid points", "wall time (s)", "grid points / s", "runner speed-up over it"]
    print(markdown(header, body, "lrrrr"))
    if star:
        print(
            f"\n*naive loops timed on a fixed random subset of {len(sample)} of the "
            f"{len(points)} grid points (--subsample {len(sample)}, numpy seed 0); their rate is "
            f"points / wall time. Estimated full naive loop: {len(points) / naive_rate:.0f} s."
        )
    inexact = ", ".join(f"{c} (max |diff| {diffs[c]:.1e})" for c in METRICS if c not in exact)
    print(
        f"\nOn the {len(merged)} points both computed, identical: {', '.join(exact)}"
        + (f"; not bit-identical: {inexact} (BLAS summation order)" if inexact else "")
        + f". Same P and F: {'yes' if same else 'NO'}."
    )
    speedup, strict = runner_rate / naive_rate, runner_rate / strict_rate
    print(
        f"Target >= 10x the naive loop's points/s: {'met' if speedup >= 10 else 'NOT met'} "
        f"({speedup:.1f}x; against the stricter loop {strict:.1f}x)."
    )
    own = rows.reduce_seconds - rows.shared_seconds + rows.cluster_seconds
    shared_cpu = rows.drop_duplicates(["shared_key", "repetition"]).query(
        "shared_key == shared_key"
    )
    cpu = own.sum() + shared_cpu.shared_seconds.sum()
    top = own.groupby(rows.method).sum().sort_values(ascending=False)
    print(
        f"Runner cell time: {cpu:.1f} s in all ({cpu / n_jobs:.1f} s per worker); "
        f"{top.index[0]} alone {top.iloc[0]:.1f} s ({100 * top.iloc[0] / cpu:.0f}%): it has no "
        f"r-independent part to share."
    )
    print(
        f"Load average at the end (1, 5, 15 min): {', '.join(f'{x:.1f}' for x in os.getloadavg())}"
        f" on {os.cpu_count()} CPUs."
    )
    print(f"Command: {command.strip()}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
