"""Benchmark of the pipeline a user runs instead of k-means on all rows: reduce the columns (or
not), build a coreset, run weighted k-means on it, assign every row; against k-means on all rows.

On a seeded 1,000,000-row imbalanced Gaussian mixture (kmdr's ``mixture``: 1,000,000 x 100,
k = 20, cluster sizes falling geometrically) and on the 1,000,000-row ss22 Benchmark (k = 10,
1,000,000 x 60), each pipeline is timed from the data in memory to the labels of every row, and
the cost of its centers on all rows is set beside k-means on all rows' (scikit-learn's
``KMeans``, k-means++ with 1 restart, in this process with its default threads: what a user
runs). The small solve on the coreset runs with one thread (threadpoolctl): on a few thousand
points a pool's start-up costs more than it saves. Each is repeated ``--repeats`` times (its
own seeds); the row gives the median seconds and cost.

The solve's threads are measured too (``pipelines_solve_threads.csv``: weighted k-means on a
coreset of each size with one thread and with the default threads). Writes
results/bench/pipelines.csv, one row per pipeline: ``data, pipeline, n, d, k, m,
seconds, baseline_seconds, speedup, cost_ratio`` (speed-up over k-means on all rows in the same
process; cost ratio over its median cost), and ``target``/``holds`` for the target: a pipeline at
least 10x faster at a median cost ratio of at most 1.02 on the mixture. Prints a Markdown table;
exit code 0 whatever the numbers.

    .venv/bin/python scripts/bench/bench_pipelines.py [--quick] [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.metrics import pairwise_distances_argmin_min

from kmdr._native import limited_threads  # the thread limits' owner
from kmdr.coresets import make_coreset
from kmdr.datasets import load_dataset
from kmdr.reducers import make_reducer

OUT = Path(__file__).resolve().parents[2] / "results" / "bench" / "pipelines.csv"
#: The small solve with one thread against scikit-learn's default threads (why one).
THREADS_OUT = OUT.with_name("pipelines_solve_threads.csv")
#: The target: at least this speed-up at a median cost ratio of at most COST_TARGET (mixture).
SPEEDUP_TARGET, COST_TARGET = 10.0, 1.02
#: (reducer or None, r) in front, constructions, and coreset sizes m.
FRONTS = [(None, None), ("sign", 20), ("sparse_embedding", 20), ("gaussian", 10)]
CONSTRUCTIONS = ("uniform", "lightweight", "sensitivity", "group")
SIZES = (2000, 8000)


def cost(X, centers) -> tuple[float, np.ndarray]:
    labels, dist = pairwise_distances_argmin_min(X, centers)
    return float(np.sum(dist**2)), labels


def baseline(X, k, seed):
    start = time.perf_counter()
    model = KMeans(k, n_init=1, random_state=seed).fit(X)
    labels = model.labels_  # k-means on all rows labels every row itself
    seconds = time.perf_counter() - start
    return seconds, cost(X, model.cluster_centers_)[0], labels


def pipeline(X, k, front, construction, m, seed):
    """One run of the pipeline: seconds from X to every row's label, and its centers' cost."""
    reducer, r = front
    start = time.perf_counter()
    C = X if reducer is None else make_reducer(reducer, r, n_clusters=k,
                                               random_state=seed).fit_transform(X)  # fmt: skip
    coreset = make_coreset(construction, n_clusters=k, coreset_size=m, random_state=seed).fit(C)
    points = coreset.composition_ @ X
    with limited_threads(1):  # the small solve: one thread is faster than a pool
        model = KMeans(k, n_init=1, random_state=seed).fit(points, sample_weight=coreset.weights_)
    real, _ = cost(X, model.cluster_centers_)  # the assignment of every row is in the time
    return time.perf_counter() - start, real


def solve_threads(X, k: int, repeats: int, sizes) -> list[dict]:
    """Weighted k-means on a uniform coreset of each size, with one thread and with
    scikit-learn's default threads: the median seconds of each and their ratio."""
    rows = []
    for m in sizes:
        coreset = make_coreset("uniform", n_clusters=k, coreset_size=m, random_state=0).fit(X)
        points, weights = coreset.composition_ @ X, coreset.weights_

        def solve(seed, points=points, weights=weights):
            start = time.perf_counter()
            KMeans(k, n_init=1, random_state=seed).fit(points, sample_weight=weights)
            return time.perf_counter() - start

        with limited_threads(1):
            one = statistics.median(solve(seed) for seed in range(repeats))
        default = statistics.median(solve(seed) for seed in range(repeats))
        rows.append({"m": m, "d": X.shape[1], "k": k, "one_thread_seconds": one,
                     "default_threads_seconds": default, "ratio": default / one})  # fmt: skip
    return rows


def bench(data: str, X, k: int, repeats: int, sizes) -> list[dict]:
    base = [baseline(X, k, seed) for seed in range(repeats)]
    base_seconds = statistics.median(s for s, _, _ in base)
    base_cost = statistics.median(c for _, c, _ in base)
    rows = []
    for front in FRONTS:
        for construction in CONSTRUCTIONS:
            for m in sizes:
                runs = [pipeline(X, k, front, construction, m, seed) for seed in range(repeats)]
                seconds = statistics.median(s for s, _ in runs)
                ratio = statistics.median(c for _, c in runs) / base_cost
                name = construction if front[0] is None else f"{front[0]}(r={front[1]}) + " \
                    f"{construction}"  # fmt: skip
                rows.append({"data": data, "pipeline": name, "n": X.shape[0], "d": X.shape[1],
                             "k": k, "m": m, "seconds": seconds, "baseline_seconds": base_seconds,
                             "speedup": base_seconds / seconds, "cost_ratio": ratio})  # fmt: skip
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 rows, for a minute")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    n = 100_000 if args.quick else 1_000_000
    mixture = load_dataset("mixture", n_samples=n)
    X = np.ascontiguousarray(mixture.X)
    threads = pd.DataFrame(solve_threads(X, mixture.n_clusters, args.repeats, SIZES))
    rows = bench("mixture", X, mixture.n_clusters, args.repeats, SIZES)
    del mixture, X
    alpha = 5 if args.quick else 6
    bench_data = load_dataset("ss22_benchmark", k=10, alpha=alpha)
    rows += bench("ss22_benchmark", bench_data.X, 10, args.repeats, SIZES)
    table = pd.DataFrame(rows)
    table["target"] = f"speedup >= {SPEEDUP_TARGET:g} at cost_ratio <= {COST_TARGET:g} (mixture)"
    table["holds"] = (
        (table["data"] == "mixture")
        & (table["speedup"] >= SPEEDUP_TARGET)
        & (table["cost_ratio"] <= COST_TARGET)
    )
    table["load"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    if not args.quick:
        OUT.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(OUT, index=False, float_format="%.4g")
        threads.to_csv(THREADS_OUT, index=False, float_format="%.4g")
    print(table.drop(columns="load").to_markdown(index=False, floatfmt=".3g"))
    print(threads.to_markdown(index=False, floatfmt=".3g"))
    best = table[(table["data"] == "mixture") & (table["cost_ratio"] <= COST_TARGET)]
    if len(best):
        top = best.sort_values("speedup").iloc[-1]
        print(f"best on the mixture at cost ratio <= {COST_TARGET:g}: {top['pipeline']} "
              f"(m = {top['m']}), {top['speedup']:.3g}x")  # fmt: skip


if __name__ == "__main__":
    main()
