"""Benchmark of sparsified k-means (PD): the cost of an iteration grows with r, not with d.

Pourkamali-Anaraki and Becker's sparsified k-means reads only the r kept entries of each row, so
one Lloyd iteration (assignment + center update) should cost O(n r k) + O(k d), against O(n d k)
for Lloyd on the full data. This script times, at fixed n and k:

1. several r at fixed d (time per iteration should grow about linearly in r);
2. several d at fixed r (time per iteration should stay nearly flat; the O(k d) center update is
   the only d-dependent part), beside the same iteration on dense n x d data (grows with d);
3. the reducer itself (random signs + DCT + sampling), which is O(n d log d) and nearly
   independent of r.

The sparsified matrices of parts 1-2 are built directly (r uniform positions per row, Gaussian
values), since only their sparsity pattern matters for the cost. An iteration is timed on its own
(kept-coordinate distances to k centers, labels, kept-entry centers; the functions
:func:`kmdr.kmeans.sparsified.sparsified_kmeans` loops over), without the one-off setup of a run;
the median of several repeats after a warm-up. BLAS threads are limited (``--threads``, default
1).
Prints Markdown tables; exit code 0 whatever the numbers.

    .venv/bin/python scripts/bench/bench_sparsified.py [--quick] [--threads N]
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import statistics
import sys
import time

import numpy as np
import scipy
import scipy.sparse as sp
import sklearn
from _timing import markdown, median_time  # scripts/bench/_timing.py (run as python scripts/...)

from kmdr._native import limited_threads  # the thread limits' owner
from kmdr.kmeans.sparsified import _Problem
from kmdr.reducers import make_reducer


def sparsified_matrix(n: int, d: int, r: int, seed: int = 0) -> sp.csr_matrix:
    """n x d CSR with r uniformly drawn positions per row (without replacement), Gaussian values."""
    rng = np.random.default_rng(seed)
    # r distinct positions per row: the r smallest of d uniform keys would cost O(n d); drawing
    # r positions per row with Generator.choice costs O(n r) calls' worth and is exact.
    pos = np.empty((n, r), dtype=np.int32)
    for i in range(n):
        pos[i] = rng.choice(d, r, replace=False, shuffle=False)
    pos.sort(axis=1)
    vals = rng.standard_normal(n * r)
    return sp.csr_matrix((vals, pos.ravel(), np.arange(0, n * r + 1, r)), shape=(n, d))


def sparsified_step(W, k: int):
    """One sparsified Lloyd iteration: kept-coordinate distances, labels, kept-entry centers."""
    problem = _Problem(W, np.diff(W.indptr)[0])
    centers = np.random.default_rng(1).standard_normal((k, W.shape[1]))

    def step():
        labels = np.argmin(problem.kept_distances(centers), axis=1)
        return problem.centers(labels, k, centers)

    return step


def dense_step(X, k: int):
    """The same iteration on dense n x d data: all distances (X C^T), labels, cluster means."""
    centers = X[:k].copy()
    sq = np.einsum("ij,ij->i", X, X)

    def step():
        d2 = sq[:, None] - 2.0 * (X @ centers.T) + (centers**2).sum(axis=1)
        labels = np.argmin(d2, axis=1)
        Z = sp.csr_matrix((np.ones(len(labels)), labels, np.arange(len(labels) + 1)))
        counts = np.maximum(np.asarray(Z.sum(axis=0)).ravel(), 1)
        return (Z.T @ X) / counts[:, None]

    return step


def fmt(t: float) -> str:
    return f"{t * 1e3:.2f} ms"


def bench_r(n, k, d, rs, repeats):
    print(f"### 1. Time per iteration vs r (n = {n}, k = {k}, d = {d})\n")
    first, body = None, []
    for r in rs:
        t = median_time(sparsified_step(sparsified_matrix(n, d, r), k), repeats)
        first = first or t
        body.append([r, fmt(t), f"{t / first:.2f}", f"{r / rs[0]:.0f}"])
    header = ["r (kept/row)", "time / iteration", "ratio to first", "r ratio"]
    print(markdown(header, body, "rrrr"))
    print()


def bench_d(n, k, r, ds, repeats, dense_up_to):
    print(f"### 2. Time per iteration vs d (n = {n}, k = {k}, r = {r} kept/row)\n")
    first = dense_first = None
    body = []
    for d in ds:
        W = sparsified_matrix(n, d, r)
        t = median_time(sparsified_step(W, k), repeats)
        first = first or t
        if d <= dense_up_to:
            X = np.random.default_rng(2).standard_normal((n, d))
            td = median_time(dense_step(X, k), repeats)
            dense_first = dense_first or td
            dense = [fmt(td), f"{td / dense_first:.2f}"]
        else:
            dense = [f"(not run: n x d dense is {n * d * 8 / 2**30:.1f} GiB)", "-"]
        body.append([d, fmt(t), f"{t / first:.2f}", *dense, f"{d / ds[0]:.0f}"])
    header = ["d", "PD time / iteration", "PD ratio to first", "dense time / iteration"]
    header += ["dense ratio to first", "d ratio"]
    print(markdown(header, body, "rrrrrr"))
    print()


def bench_reducer(n, d, rs, repeats):
    print(f"### 3. The reducer (signs + DCT + sampling), n = {n}, d = {d}\n")
    X = np.random.default_rng(3).standard_normal((n, d))
    body = []
    for r in rs:
        red = make_reducer("sparsified", r, random_state=0)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            red.fit_transform(X)
            times.append(time.perf_counter() - start)
        body.append([r, fmt(statistics.median(times))])
    print(markdown(["r (kept/row)", "fit_transform time"], body, "rr"))
    print()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller n and fewer repeats")
    parser.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP threads (default 1)")
    args = parser.parse_args(argv)
    command = shlex.join([".venv/bin/python", "scripts/bench/bench_sparsified.py", *sys.argv[1:]])
    print(f"## Sparsified k-means (PD) benchmark\n\nCommand: `{command}`\n")
    print(
        f"Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"scikit-learn {sklearn.__version__}; {args.threads} BLAS thread(s); "
        f"{platform.machine()}, {os.cpu_count()} CPUs.\n"
    )
    n = 5000 if args.quick else 20000
    repeats = 2 if args.quick else 3
    k = 10
    with limited_threads(args.threads):
        bench_r(n, k, 4096, [16, 64, 256, 1024], repeats)
        bench_d(n, k, 64, [1024, 4096, 16384, 65536], repeats, dense_up_to=4096)
        bench_reducer(n // 4, 4096, [16, 256, 1024], repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
