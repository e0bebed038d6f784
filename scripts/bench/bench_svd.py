"""Benchmark of the exact truncated SVD methods behind exact leverage scores and SVD features.

For each real dataset shape of the papers (Synth 1000 x 2000, COIL20 1440 x 1024, ORL 400 x 4096,
PIE 2856 x 1024, USPS 11000 x 256; the real data when it is available, else a Gaussian matrix of
that shape) and ranks from 5 up to min(n, d), it times every method of
:func:`kmdr.reducers.exact_svd` (``gesdd``: full thin SVD; ``gram``: Gram matrix + LAPACK subset
eigensolver, ``gram_full``: the same with all eigenpairs (divide and conquer); ``arpack``:
``svds``) plus PROPACK (``svds(solver="propack")``, which needs a
tolerance > 0 to converge and so is not exact at 1e-10; timed for comparison only), and checks
each against the thin SVD: ``sin`` is the largest principal-angle sine between the top-``rank``
subspaces, ``lev`` the largest leverage-score difference relative to the largest score. The
routes are timed as :func:`~kmdr.reducers.exact_svd` runs them, gap check included (ARPACK
then bounds lambda_{rank+1} for it), but without the gesdd fallback: ``no gap`` names the
routes whose check failed at that rank (exact_svd would then add the gesdd time; their
accuracy is not counted, since their result is not used; ``gram`` includes the deflated Gram
solve when the plain one fails). ``exact_svd s`` is the whole call as the reducers make it
(auto route, any fallback included) and ``its route`` the route that gave the result
(``gram+deflation``: the Gram route deflated of a separated leading block; ``x->y``: route x
failed its acceptance check and y was used).

The crossover (the smallest rank at which the Gram route beats ARPACK) is what
``kmdr.reducers._svd.ARPACK_RANK_FACTOR`` is set from: the rule switches at
``ARPACK_RANK_FACTOR * min(n, d)**2 / max(n, d)``, printed beside each measured crossover. The
``gram`` and ``gram_full`` columns set ``GRAM_SUBSET_FRACTION``.

Every time is the median CPU time (``time.process_time``) of ``--repeats`` runs after one
warm-up call, with BLAS limited to ``--threads`` (default 1; CPU time equals the work done only
then). Prints Markdown; exit code 0.

    .venv/bin/python scripts/bench/bench_svd.py [--quick] [--threads N] [--repeats N]
        [--datasets synth ...] [--ranks 5 10 20 50 100]
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
import scipy.linalg
import scipy.sparse.linalg

from kmdr._native import limited_threads  # the thread limits' owner
from kmdr.reducers import _svd

SHAPES = {
    "synth": (1000, 2000),
    "coil20": (1440, 1024),
    "orl": (400, 4096),
    "pie": (2856, 1024),
    "usps": (11000, 256),
}
# A method slower than this many times the full thin SVD is not timed at larger ranks.
GIVE_UP_FACTOR = 3.0


def load(name: str, quick: bool) -> tuple[np.ndarray, str]:
    """The dataset's matrix (or a Gaussian stand-in of its shape) and where it came from."""
    try:
        from kmdr.datasets import load_dataset

        X = load_dataset(name).X
        source = "real data"
    except Exception as err:  # no data file: the timing depends on the shape only
        X = np.random.default_rng(0).standard_normal(SHAPES[name])
        source = f"Gaussian stand-in ({type(err).__name__})"
    X = np.ascontiguousarray(X, dtype=np.float64)
    if quick:
        X = X[: X.shape[0] // 4, : X.shape[1] // 2].copy()
    return X, source


def ranks_for(m: int) -> list[int]:
    """5, 10, 20, 30, 40, 60, 80, 120, 160, 320, 640, ... below m, then m: finer where the methods
    cross."""
    ranks = [5, 10, 20, 30, 40, 60, 80, 120, 160]
    while ranks[-1] * 2 < m:
        ranks.append(ranks[-1] * 2)
    return [r for r in ranks if r < m] + [m]


def timed(fn, repeats: int) -> tuple[float, object]:
    """Median CPU seconds of ``repeats`` calls after a warm-up, and the last result.

    CPU time of this process, not wall-clock time: with one BLAS thread it is the work done, and
    it does not count the time other jobs on a shared machine hold the core (wall-clock times
    measured under load swing by 2-5x here).
    """
    out = fn()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.process_time()
        out = fn()
        times.append(time.process_time() - start)
    return statistics.median(times), out


def propack(A, rank):
    _, s, Vt = scipy.sparse.linalg.svds(A, k=rank, solver="propack", tol=1e-8, rng=0)
    order = np.argsort(s)[::-1]
    return _svd.SVDResult(s[order], Vt[order])


def method_fn(method: str, A, rank: int):
    """The route as exact_svd runs it (with its gap check), without the gesdd fallback.

    The routes return None when the gap check fails; exact_svd then adds a gesdd call.
    """
    if method == "gram":  # subset eigensolver
        return lambda: _svd._gram_svd(A, rank, subset=True)
    if method == "gram_full":  # all eigenpairs (divide and conquer)
        return lambda: _svd._gram_svd(A, rank, subset=False)
    if method == "arpack":  # rank triplets + a bound on lambda_{rank+1}
        return lambda: _svd._arpack_svd(A, rank, check_gap=True)
    return lambda: propack(A, rank)


def errors(result, reference) -> tuple[float, float]:
    V, V0 = result.components, reference.components[: result.components.shape[0]]
    sin = np.linalg.norm(V.T - V0.T @ (V0 @ V.T), 2)
    lev, lev0 = np.einsum("ij,ij->j", V, V), np.einsum("ij,ij->j", V0, V0)
    return float(sin), float(np.abs(lev - lev0).max() / lev0.max())


def bench(name: str, args) -> tuple[list[str], float | None]:
    A, source = load(name, args.quick)
    n, d = A.shape
    m = min(n, d)
    t_full, full = timed(lambda: _svd.thin_svd(A), args.repeats)
    lines = [
        f"### {name} ({n} x {d}, {source}); gesdd (full thin SVD, every rank): {t_full:.4f} s",
        "",
        "| rank | rank/min(n,d) | gram s | gram_full s | arpack s | propack s | fastest | max sin "
        "| max lev | no gap | exact_svd s | its route |",
        "|---:|---:|---:|---:|---:|---:|---|---:|---:|---|---:|---|",
    ]
    gave_up: set[str] = set()
    crossover = None
    for rank in args.ranks or ranks_for(m):
        if rank > m:
            continue
        times, worst, no_gap = {"gesdd": t_full}, (0.0, 0.0), set()
        for method in ("gram", "gram_full", "arpack", "propack"):
            if method in gave_up or (method in ("arpack", "propack") and rank >= m):
                continue
            try:
                t, result = timed(method_fn(method, A, rank), args.repeats)
            except Exception as err:  # e.g. PROPACK not converging: record and move on
                print(f"  {name} rank {rank} {method}: {type(err).__name__}", file=sys.stderr)
                gave_up.add(method)
                continue
            times[method] = t
            if t > GIVE_UP_FACTOR * t_full:
                gave_up.add(method)
            if result is None:  # no gap at this rank: exact_svd would add a gesdd call
                no_gap.add(method)
            elif method != "propack":
                worst = tuple(max(a, b) for a, b in zip(worst, errors(result, full), strict=True))
        fastest = min(times, key=times.get)
        if crossover is None and times["gram"] < times.get("arpack", np.inf):
            crossover = rank
        names = ("gram", "gram_full", "arpack", "propack")
        cols = [f"{times[k]:.4f}" if k in times else "-" for k in names]
        # What exact_svd(A, rank) costs as a whole (fallback included), and the route it took.
        t_auto, (_, route) = timed(lambda r=rank: _svd._exact_svd_route(A, r), args.repeats)
        lines.append(
            f"| {rank} | {rank / m:.3f} | {' | '.join(cols)} | {fastest} | "
            f"{worst[0]:.1e} | {worst[1]:.1e} | {', '.join(sorted(no_gap)) or '-'} | "
            f"{t_auto:.4f} | {route} |"
        )
    rule = _svd.ARPACK_RANK_FACTOR * m**2 / max(n, d)
    lines += [
        "",
        f"Gram beats ARPACK from rank {crossover} (first rank of the grid where it does); the "
        f"rule switches at rank {rule:.1f} (min(n,d)^2/max(n,d) = {m**2 / max(n, d):.0f})",
        "",
    ]
    return lines, crossover


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="quarter-size matrices")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--datasets", nargs="*", default=list(SHAPES))
    parser.add_argument("--ranks", nargs="*", type=int, help="ranks to time (default: a grid)")
    args = parser.parse_args()
    print("## Exact truncated SVD: time per method and rank\n")
    print(f"`{shlex.join([os.path.basename(sys.executable), *sys.argv])}`;")
    print(f"CPU seconds, median of {args.repeats}; BLAS threads {args.threads};")
    print(f"numpy {np.__version__}, scipy {scipy.__version__}, {platform.machine()}.")
    print("sin, lev: max over gram, gram_full and arpack against gesdd.\n")
    crossovers = {}
    with limited_threads(args.threads):
        for name in args.datasets:
            lines, crossovers[name] = bench(name, args)
            print("\n".join(lines), flush=True)
    print("Measured crossover ranks:", crossovers)


if __name__ == "__main__":
    main()
