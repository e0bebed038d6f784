"""Benchmark of the coreset constructions (kmdr.coresets) against their two targets.

1. Speed: each construction on the 1,000,000-row Benchmark instance (k = 10, alpha = 6: 1,000,000
   x 60, the authors' size for k = 10) against one k-means++ seeding pass on the same data
   (scikit-learn's ``kmeans_plusplus`` with k centers and its default local trials), as the ratio
   of their median times in this one run. Target: at most 2.
2. Memory: StreamKM++ by merge-and-reduce over row blocks, reading a memory map on disk, at n and
   4n rows: the peak of the memory Python and NumPy allocate during the fit (tracemalloc), as the
   ratio of the two. Target: flat (at most 1.25: the log2(n / block) levels of m rows it keeps
   grow by two).

Both at one BLAS thread. Writes results/bench/coresets.csv and prints a Markdown table; exit
code 0 whatever the numbers. ``--only NAME ...`` times those constructions' speed alone against
the same baseline, prints it and writes nothing (the CSV holds whole runs only).

    .venv/bin/python scripts/bench/bench_coresets.py [--quick] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.cluster import kmeans_plusplus

from kmdr._native import limited_threads  # the thread limits' owner
from kmdr.coresets import available_coresets, make_coreset
from kmdr.papers.ss22.benchmark import make_benchmark

OUT = Path(__file__).resolve().parents[2] / "results" / "bench" / "coresets.csv"


def median_seconds(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def speed(k, alpha, factor, repeats, streamkm_factor, names):
    X, _ = make_benchmark(k, alpha)
    baseline = median_seconds(lambda: kmeans_plusplus(X, k, random_state=0), repeats)
    rows = []
    for name in names:
        # StreamKM++ seeds m centers where the others seed 2k: it is timed once, at the
        # authors' smallest coreset size, which is enough to show how far it is from the target
        m = k * (streamkm_factor if name == "streamkm" else factor)
        reps = 1 if name == "streamkm" else repeats
        seconds = median_seconds(
            lambda name=name, m=m: make_coreset(
                name, n_clusters=k, coreset_size=m, random_state=0
            ).fit(X),
            reps,
        )
        rows.append({"part": "speed", "construction": name, "n": X.shape[0], "d": X.shape[1],
                     "k": k, "coreset_size": m, "block_size": None, "seconds": seconds,
                     "baseline": "kmeans_plusplus", "baseline_seconds": baseline,
                     "ratio": seconds / baseline, "target": 2.0})  # fmt: skip
    return rows


def peak_mib(path, m, block_size):
    mapped = np.load(path, mmap_mode="r")
    tracemalloc.start()
    make_coreset("streamkm", n_clusters=10, coreset_size=m, random_state=0,
                 block_size=block_size).fit(mapped)  # fmt: skip
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def memory(n, d, m, block_size):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        peaks = {}
        for size in (n, 4 * n):
            path = Path(tmp) / f"X{size}.npy"
            X = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=(size, d))
            rng = np.random.default_rng(0)
            centers = rng.normal(scale=5, size=(20, d))
            for start in range(0, size, block_size):  # written block by block, never whole
                stop = min(start + block_size, size)
                X[start:stop] = centers[rng.integers(20, size=stop - start)]
                X[start:stop] += rng.normal(size=(stop - start, d))
            X.flush()
            del X
            peaks[size] = peak_mib(path, m, block_size)
            rows.append({"part": "memory", "construction": "streamkm", "n": size, "d": d,
                         "k": 10, "coreset_size": m, "block_size": block_size,
                         "peak_mib": peaks[size], "baseline": f"streamkm at n={n}",
                         "ratio": peaks[size] / peaks[n], "target": 1.25})  # fmt: skip
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a minute")
    parser.add_argument("--only", nargs="+", choices=available_coresets(), metavar="NAME",
                        help="time these constructions' speed alone; write nothing")  # fmt: skip
    args = parser.parse_args()
    names = args.only or available_coresets()
    with limited_threads(1):
        if args.quick:
            rows = speed(10, 5, 50, 1, 50, names)
            rows += [] if args.only else memory(20_000, 10, 100, 5_000)
        else:
            rows = speed(10, 6, 200, 3, 50, names)
            rows += [] if args.only else memory(100_000, 20, 200, 20_000)
    table = pd.DataFrame(rows)
    table["holds"] = table["ratio"] <= table["target"]
    table["load"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    if not (args.quick or args.only):
        OUT.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(OUT, index=False, float_format="%.4g")
    print(table.drop(columns="load").to_markdown(index=False, floatfmt=".3g"))


if __name__ == "__main__":
    main()
