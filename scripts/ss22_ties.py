"""Why kmdr's StreamKM++ sits below the authors' on their Benchmark: the instance's ties.

    python scripts/ss22_ties.py --seeds 3
    # writes results/ss22_published/streamkm_ties.csv

The Benchmark's points are equidistant block by block, so the search for each point's nearest
seed meets ties everywhere. StreamKM++ (as Schwiegelshohn and Sheikh-Omar run it, their
``gs/source/coresets/stream_km.cpp``) weighs each of its m k-means++ seeds by the rows nearest to
it, so how those ties are broken sets the weights. Their seeding loop
(``gs/source/clustering/kmeans.cpp``) gives a row to a new seed only when its distance is
strictly smaller, the distance computed as ``|x|^2 + |c|^2 - 2 x.c`` with the dot product summed
column by column (``gs/include/utils/distances.hpp``); with the coordinates (k - 1)/k and -1/k,
rounding decides the ties, the same way in every run.

This script runs, at the authors' k = 10 size (1,000,000 x 60) and m = 50 x k, per seed:

- ``authors_arithmetic``: kmdr's ``streamkm``, which runs their seeding loop in their arithmetic
  (:func:`kmdr.coresets._seeding.seeding_loop`: the dot product summed column by column, the
  strict comparison), D^2 draws from NumPy;
- ``scikit_learn``: the step kmdr's ``streamkm`` ran before (scikit-learn's k-means++ and its
  nearest-seed search, whose rounding breaks the ties otherwise);

and evaluates both with the Benchmark's own solutions (:mod:`kmdr.papers.ss22.benchmark`), as
the authors' ``eval_benchmark.py`` does: the distortion, and how many of the k clusters of the
worst (block, eps) solution the coreset starves. Each row takes a few minutes (the loop reads
the 1,000,000 rows once per seed).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.cluster import kmeans_plusplus
from sklearn.metrics import pairwise_distances_argmin_min

from kmdr.coresets import make_coreset
from kmdr.papers.ss22.benchmark import AUTHORS_ALPHA, BenchmarkSolutions, make_benchmark

OUT = Path("results") / "ss22_published" / "streamkm_ties.csv"


def scikit_learn_seeding(A: np.ndarray, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """m plain k-means++ seeds by scikit-learn, each weighing the rows its nearest-seed search
    gives it. Returns the seeds' rows and weights."""
    _, seeds = kmeans_plusplus(A, m, random_state=seed, n_local_trials=1)
    nearest, _ = pairwise_distances_argmin_min(A, A[seeds])
    return seeds, np.bincount(nearest, minlength=m).astype(float)


def worst(solutions: BenchmarkSolutions, points, weights, k: int) -> dict:
    got = max(solutions.distortions(points, weights), key=lambda s: s["distortion"])
    return {"distortion": got["distortion"], "starved_clusters": k - got["n_centers"]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--factor", type=int, default=50, help="m = factor x k")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    k, m = args.k, args.factor * args.k
    A, _ = make_benchmark(k, AUTHORS_ALPHA[k])
    solutions = BenchmarkSolutions(A, k)
    rows = []
    for seed in range(args.seeds):
        where = {"k": k, "m": m, "seed": seed}
        coreset = make_coreset("streamkm", n_clusters=k, coreset_size=m, random_state=seed).fit(A)
        rows.append({**where, "seeding": "authors_arithmetic",
                     **worst(solutions, coreset.points_, coreset.weights_, k)})  # fmt: skip
        picked, weights = scikit_learn_seeding(A, m, seed)
        rows.append({**where, "seeding": "scikit_learn",
                     **worst(solutions, A[picked], weights, k)})  # fmt: skip
        print(rows[-2], rows[-1], flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(args.out, index=False)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
