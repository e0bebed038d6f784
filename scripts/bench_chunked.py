"""Measure one cell computed from row blocks (``block_rows``, :mod:`kmdr.engine.chunked`) against
the same cell in memory: wall time, the driver's and each worker's peak memory.

The data are dense Gaussian clusters generated block by block (each block a pure function of the
seed and its rows), so no process ever holds the whole matrix on the chunked side; the
in-memory side builds the matrix first (not timed) and computes the cell in this process::

    python scripts/bench_chunked.py --rows 400000 --features 500 --block-rows 20000 --reducer sign
    python scripts/bench_chunked.py --rows 400000 --features 500 --in-memory

Prints one line per measurement (docs/guide/scaling.md, "One cell larger than memory", quotes
them).
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from kmdr.datasets.blocks import RowBlocks, bounds_of_rows

#: Rows generated from one seed (the unit that makes a row independent of the split).
PAGE = 1000


class GeneratedBlocks(RowBlocks):
    """k Gaussian clusters in d dimensions, generated a block at a time (the noise of rows
    ``p * PAGE ..`` from ``(seed, p)``); row j belongs to cluster ``j % k``."""

    def __init__(self, n: int, d: int, k: int, rows: int, seed: int = 0):
        self.name, self.n_samples, self.n_features, self.n_clusters = "synth", n, d, k
        self.bounds = bounds_of_rows(n, rows)
        self.is_sparse = False
        self.fingerprint = f"generated:{n}x{d}:k={k}:seed={seed}"
        self.seed = seed
        self.centers = np.random.default_rng(seed).standard_normal((k, d)) * 3

    def labels(self) -> np.ndarray:
        return np.arange(self.n_samples) % self.n_clusters

    def block(self, i: int) -> np.ndarray:
        lo, hi = self.bounds[i]
        # the noise of every PAGE rows comes from (seed, page), so a row is the same whatever
        # the split (RowBlocks' contract)
        first, last = lo // PAGE, (hi - 1) // PAGE
        noise = np.concatenate(
            [
                np.random.default_rng([self.seed, p]).standard_normal((PAGE, self.n_features))
                for p in range(first, last + 1)
            ]
        )[lo - first * PAGE : hi - first * PAGE]
        return self.centers[np.arange(lo, hi) % self.n_clusters] + noise


def _cell(blocks: GeneratedBlocks, reducer: str, r: int):
    from kmdr.config.objects import from_config
    from kmdr.reducers import DataFacts
    from kmdr.results.cells import plan_cells

    spec, _, _ = from_config(
        {
            "name": "bench_chunked",
            "dataset": {"name": "synth", "params": {}},
            "reducers": [{"name": reducer}],
            "r_grid": [r],
            "repeats": 1,
            "kmeans": {"n_init": 1, "max_iter": 20},
            "figures": False,
        }
    )
    facts = DataFacts(blocks.n_samples, blocks.n_features, False)
    return plan_cells(spec, facts, blocks.n_clusters, blocks.fingerprint)[0]


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--features", type=int, default=500)
    parser.add_argument("--clusters", type=int, default=5)
    parser.add_argument("--block-rows", type=int, default=5000)
    parser.add_argument("--reducer", default="sign")
    parser.add_argument("--r", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--in-memory", action="store_true", help="the in-memory cell instead")
    args = parser.parse_args(argv)
    blocks = GeneratedBlocks(args.rows, args.features, args.clusters, args.block_rows)
    cell = _cell(blocks, args.reducer, args.r)
    size = f"{args.rows} x {args.features} ({args.rows * args.features * 8 / 2**20:.0f} MiB)"
    if args.in_memory:
        from threadpoolctl import threadpool_limits

        from kmdr.engine.work import compute_cell

        X = np.concatenate(list(blocks.blocks()))
        start = time.perf_counter()
        with threadpool_limits(limits=cell.blas_threads):
            m = compute_cell(cell, X, blocks.labels(), blocks.n_clusters)
        wall = time.perf_counter() - start
        where = f"in memory: peak {_peak_mib():.0f} MiB"
    else:
        from dask.distributed import Client, LocalCluster

        from kmdr.engine.chunked import compute_chunked_cell

        with (
            LocalCluster(
                n_workers=args.workers, threads_per_worker=1, dashboard_address=":0"
            ) as cluster,
            Client(cluster) as client,
        ):
            start = time.perf_counter()
            m = compute_chunked_cell(cell, blocks, client)
            wall = time.perf_counter() - start
            workers = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        peaks = ", ".join(f"{v / 1024:.0f}" for v in workers.values())
        where = (
            f"{len(blocks.bounds)} blocks of {args.block_rows} rows: driver peak "
            f"{_peak_mib():.0f} MiB, workers' peaks {peaks} MiB"
        )
    print(
        f"{size}, {args.reducer} r={args.r}, {where}; wall {wall:.1f} s (reduce "
        f"{m['reduce_seconds']:.1f} s, k-means {m['cluster_seconds']:.1f} s); F = "
        f"{m['objective']:.6f}, accuracy {m['accuracy']:.3f}"
    )


if __name__ == "__main__":
    main()
