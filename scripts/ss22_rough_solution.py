"""Why sensitivity and group sampling sit where they do on the Benchmark at k = 30: their rough
solution's distance and tie rule.

    python scripts/ss22_rough_solution.py --repetitions 3
    python scripts/ss22_rough_solution.py --k 10 --constructions ray_maker --out ray.csv
    # writes results/ss22_published/rough_solution.csv

Both constructions start from 2k k-means++ seeds and each row's nearest seed. In Schwiegelshohn
and Sheikh-Omar's code that assignment is ``ClusterAssignmentList::assignAll``
(``gs/source/clustering/cluster_assignment_list.cpp``): explicit differences, the seeds in
increasing row order, a strict ``<`` (a tie to the seed of the lowest row index), and the row's
cost is its *distance*, not its square. The Benchmark's points are equidistant block by block, so
the tie rule decides most rows' clusters, and the clusters decide the centers' weights.

This script runs, on the authors' k = 30 instance (810,000 x 120; ``--k 10``: 1,000,000 x 60)
at m = 50 k, per repetition, with the construction seeds the Benchmark presets give their cells
(so that each row is paired with the committed cell of the same repetition):

- ``sensitivity`` and ``group``: the authors' rough solution (distance, their tie rule);
- ``sensitivity_squared`` and ``group_squared``: the same rough solution on squared distances;
- ``ray_maker`` (with ``--constructions ray_maker``): its clusters from the authors' seeding
  loop, its nearest line as theirs;
- ``committed``: the distortion the committed cell of that construction and repetition holds
  (computed before kmdr followed the authors' code: squared distances, ties broken by the
  rounding of scikit-learn's nearest-center search), read from ``results/ss22_benchmark_k30/``
  (k = 30) or ``results/ss22_benchmark/`` (k = 10);

each with the Benchmark's own solutions (:mod:`kmdr.papers.ss22.benchmark`, as the authors'
``eval_benchmark.py``): the worst distortion, and how many of the k clusters of that worst
(block, eps) solution the coreset starves.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr.config.seeds import cell_seed, stream_seeds
from kmdr.coresets import make_coreset
from kmdr.papers.ss22.benchmark import AUTHORS_ALPHA, BenchmarkSolutions, make_benchmark

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "ss22_published" / "rough_solution.csv"
#: the committed cells of the authors' sizes, by k
CELLS = {10: ROOT / "results" / "ss22_benchmark" / "cells.csv",
         30: ROOT / "results" / "ss22_benchmark_k30" / "cells.csv"}  # fmt: skip
#: each construction with the variants run for it: sensitivity and group sampling beside their
#: squared-distance variants; Ray Maker (its clusters from the authors' seeding loop) alone
CONSTRUCTIONS = {
    "sensitivity": ("sensitivity", "sensitivity_squared"),
    "group": ("group", "group_squared"),
    "ray_maker": ("ray_maker",),
}


def construction_seed(name: str, factor: int, repetition: int, base_seed: int = 0) -> int:
    """The ``random_state`` ss22's coresets kind gives construction ``name`` in repetition
    ``repetition`` of the Benchmark experiments (shared by every reducer in front)."""
    seed = cell_seed(base_seed, "ss22_benchmark", f"{name}x{factor}", 0, repetition)
    return stream_seeds(seed)[0]


def worst(solutions: BenchmarkSolutions, points, weights, k: int) -> dict:
    got = max(solutions.distortions(points, weights), key=lambda s: s["distortion"])
    return {"distortion": got["distortion"], "starved_clusters": k - got["n_centers"]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--k", type=int, default=30)
    parser.add_argument("--factor", type=int, default=50, help="m = factor x k")
    parser.add_argument("--constructions", nargs="+", default=["sensitivity", "group"],
                        choices=sorted(CONSTRUCTIONS))  # fmt: skip
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    k, m = args.k, args.factor * args.k
    A, _ = make_benchmark(k, AUTHORS_ALPHA[k])
    solutions = BenchmarkSolutions(A, k)
    cells = CELLS.get(k)
    committed = pd.read_csv(cells) if cells is not None and cells.exists() else None
    rows = []
    for rep in range(args.repetitions):
        for name in args.constructions:
            seed = construction_seed(name, args.factor, rep)
            where = {"k": k, "m": m, "repetition": rep, "construction": name}
            for variant in CONSTRUCTIONS[name]:
                cs = make_coreset(variant, n_clusters=k, coreset_size=m, random_state=seed).fit(A)
                rows.append({**where, "variant": variant,
                             **worst(solutions, cs.points_, cs.weights_, k)})  # fmt: skip
                print(rows[-1], flush=True)
            if committed is not None:
                cell = committed[(committed.construction == name)
                                 & (committed.coreset_size_factor == args.factor)
                                 & (committed.repetition == rep)]  # fmt: skip
                if len(cell):
                    rows.append({**where, "variant": "committed",
                                 "distortion": float(cell.distortion_benchmark.iloc[0]),
                                 "starved_clusters": np.nan})  # fmt: skip
    table = pd.DataFrame(rows)
    summary = table.groupby(["construction", "variant"]).distortion
    print(summary.agg(["mean", "min", "max", "count"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, index=False)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
