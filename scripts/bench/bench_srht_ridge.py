"""Benchmark of the SRHT projection and of ridge leverage scores (a report, not a test).

1. SRHT (``srht``) against the dense random projections it replaces (sign, Gaussian: an n x d by
   d x r product, O(n d r)) on the raw 112 x 92 ORL faces (400 x 10304, padded to 16384), for
   the course report's r = 50 and 300; the SRHT's cost O(n d' log d') does not grow with r.
2. Ridge leverage scores, exact (thin SVD) against approximate (a Gaussian sketch of k + 3k
   columns) on ORL 64 x 64 (k = 40) and COIL20 (k = 20): the time of the scores and how far the
   approximate scores are from the exact ones (min and max of their ratio over the features, and
   the total variation distance between the two sampling distributions), over several sketch
   seeds, so that the speed is not bought with wrong scores.

Times are medians of several repeats after a warm-up, measured in this run with BLAS limited to
``--threads`` (default 1). Needs the datasets (``make data``, or KMDR_DATA_MIRROR).

    .venv/bin/python scripts/bench/bench_srht_ridge.py [--quick] [--threads N]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from _timing import markdown, median_time  # scripts/bench/_timing.py (run as python scripts/...)

from kmdr._native import limited_threads  # the thread limits' owner
from kmdr.datasets import load_dataset
from kmdr.reducers import make_reducer


def bench_srht(quick: bool) -> None:
    A = load_dataset("orl_raw").X
    A = A.toarray() if hasattr(A, "toarray") else np.asarray(A)
    reps = 2 if quick else 5
    print(f"### SRHT vs dense random projections, ORL raw {A.shape[0]} x {A.shape[1]}\n")
    body = []
    for r in (50, 300):
        for name in ("srht", "sign", "gaussian"):
            t = median_time(
                lambda n=name, r=r: make_reducer(n, r, random_state=0).fit_transform(A), reps
            )
            body.append([r, name, f"{t:.3f} s"])
    print(markdown(["r", "method", "median fit_transform time"], body, "lll"))
    print()


def bench_ridge(quick: bool) -> None:
    reps, seeds = (2, 3) if quick else (3, 5)
    print("### Ridge leverage scores: exact vs approximate (sketch of k + 3k columns)\n")
    body = []
    for data, k in (("orl", 40), ("coil20", 20)):
        A = load_dataset(data).X
        exact = make_reducer("ridge_leverage", 1, n_clusters=k)
        approx = make_reducer("ridge_leverage_approx", 1, n_clusters=k, random_state=0)
        t_exact = median_time(lambda e=exact, A=A: e.compute_shared(A), reps)
        t_approx = median_time(lambda e=approx, A=A: e.compute_shared(A), reps)
        tau = exact.fit(A).ridge_leverage_scores_
        used = tau > 1e-12 * tau.max()
        lows, highs, tvs = [], [], []
        for seed in range(seeds):
            est = make_reducer("ridge_leverage_approx", 1, n_clusters=k, random_state=seed).fit(A)
            ratio = est.ridge_leverage_scores_[used] / tau[used]
            lows.append(ratio.min())
            highs.append(ratio.max())
            tvs.append(0.5 * np.abs(est.probabilities_ - exact.probabilities_).sum())
        times = [f"{t_exact:.3f} s", f"{t_approx:.3f} s"]
        spread = [f"{min(lows):.2f} - {max(highs):.2f}", f"{max(tvs):.3f}"]
        body.append([f"{data} {A.shape[0]} x {A.shape[1]}", k, *times, *spread])
    header = ["data", "k", "exact time", "approx time", "approx/exact score ratio, min - max"]
    header.append("TV distance of p (max over seeds)")
    print(markdown(header, body, "llllll"))
    print()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    args = parser.parse_args(argv)
    with limited_threads(args.threads):
        bench_srht(args.quick)
        bench_ridge(args.quick)
    print(f"`{' '.join(['scripts/bench/bench_srht_ridge.py', *sys.argv[1:]])}`")
    return 0


if __name__ == "__main__":
    sys.exit(main())
