"""pb17's large-N experiment: one-pass sparsified k-means on streamed blocks against k-means.

Pourkamali-Anaraki and Becker (IEEE Trans. Inf. Theory 2017, §VI) cluster 9,631,605 points of
dimension 784 ("infinite MNIST", 56 GB, read in 58 chunks of about 1 GB) at γ = 0.05 and report
sparsified k-means about 40 times faster than k-means (100 times for the assignments, 26 for the
center updates). This script measures the same comparison on synthetic data of that shape:

    python -m kmdr.papers.pb17.bench_large_n                     # n = 100k, 1M, 10M
    python -m kmdr.papers.pb17.bench_large_n --sizes 20000 50000 --repeats 3 --out DIR

(``make bench-papers`` runs it with every other paper's bench.)

The data: ``k`` clusters in ``p`` dimensions, each center non-zero on its own few coordinates
(spiky, as strokes are in digit images: uniform sampling without preconditioning would miss
them), plus Gaussian noise; generated in chunks of :data:`CHUNK` rows, chunk c from its own
seeded streams (``SeedSequence([seed, c, 0])`` for the labels, ``[seed, c, 1]`` for the values),
so rows lo:hi are the same whatever the blocks they are asked in (the semantics of
:class:`kmdr.datasets.blocks.RowBlocks`, which :class:`StreamedBlobs` implements) and the matrix
is never held whole by the sparsified run.

Per (n, method, repetition), in a fresh process (so that each peak is its own):

- ``sparsified``: a pass over the blocks (``--block-rows`` rows each), each generated,
  preconditioned and sparsified as it arrives (``fit_rows`` + ``transform_rows`` of
  :class:`kmdr.reducers.PreconditionedSparsification`: exactly the rows ``transform`` would give
  on the whole matrix) and discarded; only the sparse sketch (m = max(1, round(γ p)) entries per
  row) is kept; then sparsified k-means on the sketch;
- ``kmeans``: the blocks generated and stacked into the whole matrix (only for n at most
  ``--kmeans-max-n``: it must fit in memory), then Lloyd's k-means
  (:func:`kmdr.kmeans.lloyd.kmeans`).

Both: k-means++ start, one start, at most ``--max-iter`` iterations, tol 0, BLAS limited to one
thread. Recorded: ``pass_seconds`` (generate, and sketch), ``cluster_seconds``, ``n_iter``,
``seconds_per_iter`` (the clustering time over its iterations, the start included),
``start_seconds`` (the k-means++ start, timed apart: its centers are then passed as the start),
``lloyd_seconds_per_iter`` (the clustering time without the start over its iterations: the
assignments and the center updates, the paper's measure),
``total_seconds``, ``peak_mb`` (the process's peak resident size above its size before the pass: the
data or the sketch, and the clustering's work), ``accuracy`` against the generating labels, and the
machine's 1-minute load. Writes ``--out`` (default ``results/bench/pb17_large_n.csv`` under the
working folder; the columns of :data:`kmdr.papers.pb17.claims.BENCH_COLUMNS` plus ``load``), which
the claim ``pb17-large-n-speedup`` reads.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from kmdr._errors import CommandParser

#: Rows per generation chunk: the unit of the seeded streams (not the block size).
CHUNK = 4096
SIZES = (100_000, 1_000_000, 10_000_000)


def _peak_rss_mb() -> float:
    """This process's peak resident set size since it started (ru_maxrss: KiB on Linux, bytes
    on macOS)."""
    import resource

    scale = 1.0 if sys.platform == "darwin" else 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20


def _rss_mb() -> float:
    """The process's current resident set size (Linux /proc; 0 where unreadable)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return 0.0


def _streamed_blobs_class():
    from kmdr.datasets.blocks import RowBlocks, bounds_of_rows

    class StreamedBlobs(RowBlocks):
        """``n`` rows of ``k`` spiky Gaussian clusters in ``p`` dimensions, generated block by
        block from per-chunk seeded streams (see the module docstring)."""

        def __init__(self, n, p, k, block_rows, seed=0, spikes=0.05, noise=1.5):
            self.name = "pb17_streamed_blobs"
            self.n_samples, self.n_features, self.n_clusters = int(n), int(p), int(k)
            self.bounds = bounds_of_rows(self.n_samples, int(block_rows))
            self.is_sparse = False
            self.fingerprint = f"pb17_streamed_blobs:{n}x{p}:k{k}:seed{seed}"
            self.seed, self.noise = int(seed), float(noise)
            rng = np.random.default_rng(np.random.SeedSequence([self.seed, 2**31]))
            centers = np.zeros((self.n_clusters, self.n_features))
            width = max(1, int(spikes * self.n_features))
            for c in range(self.n_clusters):
                cols = rng.choice(self.n_features, width, replace=False)
                centers[c, cols] = rng.uniform(2.0, 4.0, width)
            self.centers = centers

        def _chunk(self, c: int) -> tuple[np.ndarray, np.ndarray]:
            rows = min(CHUNK, self.n_samples - c * CHUNK)
            labels = np.random.default_rng([self.seed, c, 0]).integers(0, self.n_clusters, rows)
            noise = np.random.default_rng([self.seed, c, 1]).standard_normal(
                (rows, self.n_features)
            )
            return self.centers[labels] + self.noise * noise, labels

        def block(self, i: int) -> np.ndarray:
            lo, hi = self.bounds[i]
            parts = []
            for c in range(lo // CHUNK, (hi - 1) // CHUNK + 1):
                X, _ = self._chunk(c)
                a, b = max(lo - c * CHUNK, 0), min(hi - c * CHUNK, len(X))
                parts.append(X[a:b])
            return np.concatenate(parts)

        def labels(self) -> np.ndarray:
            n_chunks = -(-self.n_samples // CHUNK)
            return np.concatenate(
                [
                    np.random.default_rng([self.seed, c, 0]).integers(
                        0, self.n_clusters, min(CHUNK, self.n_samples - c * CHUNK)
                    )
                    for c in range(n_chunks)
                ]
            )

    return StreamedBlobs


def run_one(args) -> dict:
    """One (n, method, repetition) in this process: its row of the CSV."""
    import scipy.sparse as sp
    from sklearn.cluster import kmeans_plusplus

    from kmdr._native import limited_threads
    from kmdr.kmeans.lloyd import kmeans
    from kmdr.kmeans.sparsified import sparsified_start
    from kmdr.metrics import clustering_accuracy
    from kmdr.reducers import PreconditionedSparsification

    data = _streamed_blobs_class()(args.n, args.p, args.k, args.block_rows, seed=args.rep)
    m = max(1, round(args.gamma * args.p))
    seed = 1000 + args.rep
    base = _rss_mb()
    with limited_threads(1):
        start = time.perf_counter()
        if args.method == "sparsified":
            reducer = PreconditionedSparsification(m, random_state=seed)
            reducer.fit_rows(data.n_samples, data.n_features)
            sketch = [
                reducer.transform_rows(block, lo)
                for (lo, _), block in zip(data.bounds, data.blocks(), strict=True)
            ]
            W = sp.vstack(sketch, format="csr")
            del sketch
            passed = time.perf_counter()
            first = sparsified_start(W, args.k, random_state=seed)
            started = time.perf_counter()
            result = reducer.cluster(
                W, args.k, n_init=1, max_iter=args.max_iter, init=first, tol=0.0,
                random_state=seed,
            )  # fmt: skip
        else:
            X = np.empty((data.n_samples, data.n_features))
            for (lo, hi), block in zip(data.bounds, data.blocks(), strict=True):
                X[lo:hi] = block
            passed = time.perf_counter()
            first, _ = kmeans_plusplus(X, args.k, random_state=seed)
            started = time.perf_counter()
            result = kmeans(
                X, args.k, n_init=1, max_iter=args.max_iter, init=first, tol=0.0,
                random_state=seed,
            )  # fmt: skip
        done = time.perf_counter()
    cluster_seconds = done - passed
    return {
        "n": args.n,
        "p": args.p,
        "k": args.k,
        "gamma": args.gamma,
        "m": m if args.method == "sparsified" else args.p,
        "method": args.method,
        "repetition": args.rep,
        "block_rows": args.block_rows,
        "pass_seconds": passed - start,
        "cluster_seconds": cluster_seconds,
        "n_iter": int(result.n_iter),
        "seconds_per_iter": cluster_seconds / max(int(result.n_iter), 1),
        "start_seconds": started - passed,
        "lloyd_seconds_per_iter": (done - started) / max(int(result.n_iter), 1),
        "total_seconds": done - start,
        "peak_mb": max(_peak_rss_mb() - base, 0.0),
        "accuracy": clustering_accuracy(data.labels(), result.labels),
        "load": os.getloadavg()[0],
    }


def table(bench: Path) -> str:
    """The benchmarks guide's table of this bench (its ``pb17_large_n`` marker): per n and
    method, the mean over its runs of the CSV ``bench / "pb17_large_n.csv"``: the time per Lloyd
    iteration (assignments and center updates, the paper's measure) and the k-means++ start
    apart."""
    import pandas as pd

    from kmdr.report._text import md_table

    df = pd.read_csv(Path(bench) / "pb17_large_n.csv")
    cols = ["lloyd_seconds_per_iter", "start_seconds", "n_iter", "cluster_seconds",
            "total_seconds", "peak_mb", "accuracy", "load"]  # fmt: skip
    mean = df.groupby(["n", "method"], sort=True)[cols].mean()
    runs = df.groupby(["n", "method"], sort=True).size()
    names = {"sparsified": "sparsified k-means (sketch)", "kmeans": "k-means (whole matrix)"}
    rows = [
        [f"{n:,}", names[method], str(runs[(n, method)]), f"{row.lloyd_seconds_per_iter:.3g} s",
         f"{row.start_seconds:.3g} s", f"{row.n_iter:.3g}", f"{row.cluster_seconds:.3g} s",
         f"{row.total_seconds:.3g} s",
         f"{row.peak_mb / 1024:.3g} GiB" if row.peak_mb >= 1024 else f"{row.peak_mb:,.0f} MiB",
         f"{row.accuracy:.3f}", f"{row.load:.3g}"]
        for (n, method), row in mean.iterrows()
    ]  # fmt: skip
    header = ["n", "method", "runs", "per Lloyd iteration", "start", "iterations", "clustering",
              "whole run", "peak memory", "accuracy", "load"]  # fmt: skip
    return md_table(header, rows, "llrrrrrrrrr")


def main(argv=None) -> int:
    parser = CommandParser(
        prog="python -m kmdr.papers.pb17.bench_large_n", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--p", type=int, default=784)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--gamma", type=float, default=0.05)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-iter", type=int, default=20)
    parser.add_argument("--block-rows", type=int, default=16_384)
    parser.add_argument("--kmeans-max-n", type=int, default=1_000_000,
                        help="largest n at which k-means on the whole matrix is run")  # fmt: skip
    parser.add_argument("--out", type=Path, default=Path("results") / "bench" / "pb17_large_n.csv")
    # internal: one (n, method, repetition) in a fresh process
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--method", choices=("sparsified", "kmeans"), help=argparse.SUPPRESS)
    parser.add_argument("--rep", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    bad = [s for s in args.sizes if s < args.k] + ([args.gamma] if not 0 < args.gamma <= 1 else [])
    if bad or args.repeats < 1 or args.block_rows < 1 or args.max_iter < 1:
        parser.error(
            f"sizes must be >= k, 0 < gamma <= 1, repeats, block-rows and max-iter >= 1 (got "
            f"{bad or 'bad counts'})"
        )
    if args.one:
        print(json.dumps(run_one(args)))
        return 0

    import pandas as pd

    rows = []
    for n in args.sizes:
        methods = ["sparsified"] + (["kmeans"] if n <= args.kmeans_max_n else [])
        for rep in range(args.repeats):
            for method in methods:
                cmd = [
                    sys.executable, "-m", __spec__.name, "--one", "--n", str(n), "--method", method,
                    "--rep", str(rep), "--p", str(args.p), "--k", str(args.k),
                    "--gamma", str(args.gamma), "--max-iter", str(args.max_iter),
                    "--block-rows", str(args.block_rows),
                ]  # fmt: skip
                out = subprocess.run(cmd, capture_output=True, text=True, check=False)
                if out.returncode != 0:
                    tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
                    print(f"[bench] n = {n} {method} rep {rep} failed: {tail}", file=sys.stderr)
                    continue
                row = json.loads(out.stdout.strip().splitlines()[-1])
                rows.append(row)
                print(
                    f"[bench] n = {n:>10,} {method:<10} rep {rep}: pass {row['pass_seconds']:.2f}"
                    f" s, cluster {row['cluster_seconds']:.2f} s ({row['n_iter']} it, "
                    f"{row['seconds_per_iter'] * 1e3:.1f} ms/it), peak {row['peak_mb']:.0f} MB, "
                    f"P = {row['accuracy']:.3f}",
                    flush=True,
                )
    if not rows:
        print("[bench] no run finished", file=sys.stderr)
        return 1
    table = pd.DataFrame(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, index=False)
    summary = table.groupby(["n", "method"])[
        ["pass_seconds", "cluster_seconds", "seconds_per_iter", "peak_mb", "accuracy"]
    ].mean()
    print(summary.to_string(float_format=lambda v: f"{v:.4g}"))
    print(f"[bench] {len(table)} rows -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
