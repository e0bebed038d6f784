"""Benchmark of kmdr's core reducers and metric (``make bench``; a report, not a test).

1. Sparse embedding (lst17) on a synthetic sparse matrix of RCV1's shape and density, against
   scikit-learn's SparseRandomProjection and GaussianRandomProjection and against one pass over
   the nonzeros (``X.data * s[X.indices]``, the floor any O(nnz) method is measured against).
   The normalized objective F on that matrix is timed too (it must be O(nnz + n k)).
2. Lloyd iterations on the sparse embedding's output kept sparse vs made dense, per r: where
   ``SparseEmbedding(dense_output="auto")`` switches to dense output (``DENSE_ABOVE``).
3. The objective F on ORL-shaped, Fortran-ordered dense data (as ORL, USPS and COIL20 arrive):
   a cached ``ObjectiveEvaluator`` and the one-off ``kmeans_objective``.
4. The sign (RP) and Achlioptas projections on the RCV1-shaped matrix at r = 1000.
5. Leverage-score sampling (bmd09/bzmd14) with exact vs approximate SVD on ORL-shaped dense data,
   with the total variation distance between the two score vectors, so that the speed is not
   bought with wrong scores.

``--before DIR`` also times the same calls with the modules of another kmdr source tree (e.g.
``--before /work/main/src``: the code before a change), interleaved with the current ones in the
same loop, and reports how far the objective values of the two differ.

Every time is the median (and the minimum) wall-clock time of several repeats after one warm-up
call, measured in this run; repeats are interleaved across the methods compared. BLAS threads
are limited (``--threads``, default 1) so numbers do not depend on how busy a shared machine is.
Prints Markdown tables and the command that produced them; exit code 0 whatever the verdicts.

    .venv/bin/python scripts/bench/bench_core.py [--quick] [--threads N] [--before DIR] [--only S
    ...]
"""

# The kmdr internals this bench needs, beyond the public API (kmdr.run, Session,
# kmdr.read_results), because it times or builds one step alone: kmdr.reducers.sparse_embedding.

from __future__ import annotations

import argparse
import importlib.util
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
from _timing import markdown  # scripts/bench/_timing.py (run as python scripts/...)
from sklearn.preprocessing import normalize
from sklearn.random_projection import GaussianRandomProjection, SparseRandomProjection

from kmdr._native import limited_threads  # the thread limits' owner
from kmdr.metrics import ObjectiveEvaluator, kmeans_objective

# RCV1 as lst17 used it: LIBSVM's rcv1_train.multiclass, 15564 documents x 47236 terms, 51 of
# LIBSVM's 53 classes present (the dataset's k is the classes present: 51). The timings below keep
# k = 53, LIBSVM's label count: two clusters more than the real file's, a slight upper bound.
RCV1_SHAPE = (15564, 47236)
RCV1_DENSITY = 0.0016
ORL_SHAPE = (400, 4096)  # 40 people x 10 images, 64 x 64 pixels (bzmd14)
ORL_K, ORL_R = 40, 200


def rcv1_like(seed: int = 0) -> sp.csr_matrix:
    """CSR matrix of RCV1's shape and density, Zipf-like column frequencies, unit-norm rows.

    Column j (in a random order) is drawn with probability proportional to 1 / (rank + 10), row
    lengths vary log-normally (documents differ in length); duplicate (row, column) draws are
    topped up until the target number of nonzeros is reached. Values are positive (tf-idf like)
    and every row is scaled to unit Euclidean norm, as in the published RCV1 matrices.
    """
    rng = np.random.default_rng(seed)
    n, d = RCV1_SHAPE
    target = round(RCV1_DENSITY * n * d)
    col_p = 1.0 / (np.arange(d) + 10.0)
    col_p = col_p[rng.permutation(d)]
    col_p /= col_p.sum()
    row_p = rng.lognormal(sigma=0.7, size=n)
    row_p /= row_p.sum()
    codes = np.empty(0, dtype=np.int64)
    while codes.size < target:
        m = int(1.2 * (target - codes.size)) + 1000
        new = rng.choice(n, size=m, p=row_p).astype(np.int64) * d + rng.choice(d, size=m, p=col_p)
        codes = np.unique(np.concatenate([codes, new]))
    codes = rng.permutation(codes)[:target]
    rows, cols = np.divmod(codes, d)
    vals = rng.exponential(size=target) + 0.1
    X = sp.csr_matrix((vals, (rows, cols)), shape=(n, d))
    X.sum_duplicates()
    return normalize(X, norm="l2", copy=False)


def orl_like(seed: int = 0) -> np.ndarray:
    """Dense 400 x 4096 matrix with an image-like spectrum.

    40 "people" of 10 images each: a shared mean face, a per-person template and per-image
    variation, all with singular values decaying like a power law, then clipped to [0, 255].
    """
    rng = np.random.default_rng(seed)
    n, d = ORL_SHAPE
    basis = np.linalg.qr(rng.normal(size=(d, 120)))[0].T  # 120 orthonormal "eigenfaces"
    decay = 600.0 / np.arange(1, 121) ** 0.9
    person = rng.normal(size=(ORL_K, 120)) * decay
    coef = np.repeat(person, n // ORL_K, axis=0) + 0.4 * rng.normal(size=(n, 120)) * decay
    A = 110.0 + coef @ basis + 8.0 * rng.normal(size=(n, d))
    return np.clip(A, 0.0, 255.0)


def interleaved_times(methods: dict, repeats: dict) -> dict[str, list[float]]:
    """Seconds of each method's calls ``fn(1)``, ``fn(2)``, ..., after a warm-up ``fn(0)``.

    The repeats are taken round-robin across the methods, so that a change in the load of a shared
    machine during the run affects every method alike instead of biasing their ratios.
    """
    for fn in methods.values():
        fn(0)
    times: dict[str, list[float]] = {name: [] for name in methods}
    for i in range(1, max(repeats.values()) + 1):
        for name, fn in methods.items():
            if i <= repeats[name]:
                start = time.perf_counter()
                fn(i)
                times[name].append(time.perf_counter() - start)
    return times


def median_time(fn, repeats: int) -> float:
    """Median wall-clock seconds of ``fn(1)``, ..., ``fn(repeats)``, after a warm-up ``fn(0)``."""
    return statistics.median(interleaved_times({"": fn}, {"": repeats})[""])


def fmt_seconds(t: float) -> str:
    return f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def make_reducer_or_none():
    try:
        from kmdr.reducers import make_reducer
    except ImportError as exc:  # the reducers are developed in parallel
        print(f"(kmdr.reducers.make_reducer is not available: {exc})\n")
        return None
    return make_reducer


def bench_sparse(quick: bool, make_reducer, before, X) -> None:
    n, d = X.shape
    print(
        f"### Sparse embedding on an RCV1-shaped matrix\n\n"
        f"Synthetic CSR, {n} x {d}, nnz = {X.nnz} (density {X.nnz / (n * d):.4%}), Zipf-like "
        f"column frequencies, unit-norm rows. fit_transform (drawing the random matrix "
        f"included); repeats interleaved across methods; ratios are of medians measured in the "
        f"same loop.\n"
    )
    reps = 3 if quick else 7
    slow_reps = 1 if quick else 3  # the Gaussian projection at r = 1000 takes seconds
    signs = np.random.default_rng(1).choice([-1.0, 1.0], size=d)
    gather = "one pass over the nonzeros"

    rows = []
    verdicts = []
    for r in (100, 1000):
        methods = {}
        if make_reducer is not None:
            methods["kmdr sparse_embedding"] = lambda i, r=r: make_reducer(
                "sparse_embedding", r, random_state=i
            ).fit_transform(X)
        if before is not None:
            old_se = before("reducers/sparse_embedding.py").SparseEmbedding
            methods["before: kmdr sparse_embedding"] = lambda i, r=r, cls=old_se: cls(
                r, random_state=i
            ).fit_transform(X)
        methods["sklearn SparseRandomProjection"] = lambda i, r=r: SparseRandomProjection(
            r, random_state=i
        ).fit_transform(X)
        methods["sklearn GaussianRandomProjection"] = lambda i, r=r: GaussianRandomProjection(
            r, random_state=i
        ).fit_transform(X)
        methods[gather] = lambda i: X.data * signs[X.indices]
        repeats = {name: reps for name in methods}
        repeats["sklearn GaussianRandomProjection"] = slow_reps
        runs = interleaved_times(methods, repeats)
        med = {name: statistics.median(t) for name, t in runs.items()}
        for name, t in runs.items():
            rows.append((r, name, len(t), med[name], min(t), med[name] / med[gather]))
        if "kmdr sparse_embedding" in med:
            t_se = med["kmdr sparse_embedding"]
            if r == 1000:
                t_srp = med["sklearn SparseRandomProjection"]
                verdicts.append(
                    f"- r = 1000: SparseRandomProjection / SE = {t_srp / t_se:.1f} "
                    f"(target >= 10): **{verdict(t_srp / t_se >= 10)}**"
                )
            verdicts.append(
                f"- r = {r}: SE / one pass = {t_se / med[gather]:.1f} "
                f"(target <= 4): **{verdict(t_se / med[gather] <= 4)}**"
            )

    labels = np.random.default_rng(2).integers(0, 53, size=n)
    runs = interleaved_times(
        {"F": lambda i: kmeans_objective(X, labels), gather: lambda i: X.data * signs[X.indices]},
        {"F": reps, gather: reps},
    )
    med_f, med_g = statistics.median(runs["F"]), statistics.median(runs[gather])
    rows.append(
        ("-", "kmdr.metrics.kmeans_objective, k = 53", reps, med_f, min(runs["F"]), med_f / med_g)
    )

    header = ["r", "method", "repeats", "median time", "min time", "median / one pass"]
    body = [
        [r, name, k, fmt_seconds(t), fmt_seconds(t_min), f"{ratio:.1f}"]
        for r, name, k, t, t_min, ratio in rows
    ]
    print(markdown(header, body, "rlrrrr"))
    print()
    if verdicts:
        print("\n".join(verdicts))
    else:
        print("- targets not checked: kmdr's sparse embedding is not available")
    print()


def before_loader(tree: str | None):
    """``load(relpath)``: the module ``kmdr/<relpath>`` of another source tree, or None."""
    if tree is None:
        return None
    cache = {}

    def load(relpath: str):
        if relpath not in cache:
            path = os.path.join(tree, "kmdr", relpath)
            name = "before_" + relpath.replace("/", "_").removesuffix(".py")
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            cache[relpath] = module
        return cache[relpath]

    return load


def table(rows, ratio_to: str | None = None) -> None:
    """Print (label, runs) rows as a Markdown table of median and minimum times."""
    meds = {label: statistics.median(t) for label, t in rows}
    header = ["method", "repeats", "median time", "min time"]
    header += [f"median / {ratio_to}"] if ratio_to else []
    body = []
    for label, t in rows:
        body.append([label, len(t), fmt_seconds(meds[label]), fmt_seconds(min(t))])
        if ratio_to:
            body[-1].append(f"{meds[label] / meds[ratio_to]:.2f}")
    print(markdown(header, body, "lrrrr"[: len(header)]))
    print()


def bench_lloyd(quick: bool, make_reducer, X) -> None:
    """Seconds per Lloyd iteration on the sparse embedding's output, kept sparse vs dense."""
    from sklearn.cluster import KMeans

    from kmdr.reducers.sparse_embedding import DENSE_ABOVE

    k = 53
    print(
        f"### Lloyd iterations on the sparse embedding's output: sparse vs dense C\n\n"
        f"scikit-learn KMeans(k = {k}, init random, n_init 1, tol 0), seconds per iteration "
        f"(10 iterations a fit), C = SparseEmbedding(r, dense_output=False) and the same C "
        f"as an ndarray; `dense_output='auto'` returns dense above density {DENSE_ABOVE}.\n"
    )
    if make_reducer is None:
        print("- skipped: kmdr.reducers is not available\n")
        return
    reps = 2 if quick else 3
    header = ["r", "density of C", "sparse s/iter (median)", "dense s/iter (median)"]
    header.append("sparse / dense")
    body = []
    for r in (50, 100, 300, 1000) if quick else (50, 100, 200, 300, 500, 700, 1000):
        C = make_reducer("sparse_embedding", r, random_state=0, dense_output=False).fit_transform(X)
        D = C.toarray()
        per_iter = {}

        def fit(M, name, per_iter=per_iter):
            def run(i):
                start = time.perf_counter()
                km = KMeans(k, init="random", n_init=1, max_iter=10, tol=0, random_state=i).fit(M)
                per_iter.setdefault(name, []).append((time.perf_counter() - start) / km.n_iter_)

            return run

        interleaved_times(
            {"sparse": fit(C, "sparse"), "dense": fit(D, "dense")}, {"sparse": reps, "dense": reps}
        )
        ms, md = (statistics.median(per_iter[name][1:]) for name in ("sparse", "dense"))
        density = C.nnz / (C.shape[0] * C.shape[1])
        body.append([r, f"{density:.3f}", fmt_seconds(ms), fmt_seconds(md), f"{ms / md:.2f}"])
    print(markdown(header, body, "rrrrr"))
    print()


def bench_objective(quick: bool, before) -> None:
    A = np.asfortranarray(orl_like(seed=0))
    n = A.shape[0]
    reps = 5 if quick else 15
    rng = np.random.default_rng(3)
    labelings = [rng.integers(0, ORL_K, size=n) for _ in range(reps + 1)]
    print(
        f"### Objective F on ORL-shaped Fortran-ordered data\n\n"
        f"Dense {A.shape[0]} x {A.shape[1]}, Fortran order (as ORL, USPS and COIL20 are "
        f"loaded), random labelings with k = {ORL_K}; one call per repeat. The evaluator is "
        f"built once, outside the timing.\n"
    )
    evaluator = ObjectiveEvaluator(A)
    methods = {
        "ObjectiveEvaluator(A)(labels)": lambda i: evaluator(labelings[i]),
        "kmeans_objective(A, labels)": lambda i: kmeans_objective(A, labelings[i]),
    }
    old = None
    if before is not None:
        old = before("metrics.py").kmeans_objective
        methods["before: kmeans_objective(A, labels)"] = lambda i: old(A, labelings[i])
    runs = interleaved_times(methods, dict.fromkeys(methods, reps))
    base = "before: kmeans_objective(A, labels)" if old else None
    table(list(runs.items()), ratio_to=base)
    if old is not None:
        rel = [abs(evaluator(lab) - old(A, lab)) / old(A, lab) for lab in labelings]
        print(f"- |F after - F before| / F before over {len(rel)} labelings: max {max(rel):.1e}\n")


def bench_projections(quick: bool, make_reducer, before, X) -> None:
    r = 1000
    print(
        f"### Sign (RP) and Achlioptas projections, r = {r}, RCV1-shaped CSR\n\n"
        f"fit_transform (drawing R included). The draw changed (entrywise, compact int8/bit "
        f"storage, product in blocks of R's columns): the numbers are not the same, the "
        f"distribution is.\n"
    )
    if make_reducer is None:
        print("- skipped: kmdr.reducers is not available\n")
        return
    reps = 1 if quick else 3
    methods = {}
    for name in ("sign", "achlioptas"):
        methods[f"kmdr {name}"] = lambda i, name=name: make_reducer(
            name, r, random_state=i
        ).fit_transform(X)
    if before is not None:
        old = before("reducers/projections.py")
        methods["before: kmdr sign"] = lambda i: old.SignRandomProjection(
            r, random_state=i
        ).fit_transform(X)
        methods["before: kmdr achlioptas"] = lambda i: old.AchlioptasProjection(
            r, random_state=i
        ).fit_transform(X)
    runs = interleaved_times(methods, dict.fromkeys(methods, reps))
    table(list(runs.items()))
    if before is not None:
        for name in ("sign", "achlioptas"):
            after = statistics.median(runs[f"kmdr {name}"])
            then = statistics.median(runs[f"before: kmdr {name}"])
            print(f"- {name}: before / after = {then / after:.1f}")
        print()


def total_variation(p: np.ndarray, q: np.ndarray) -> float:
    return 0.5 * float(np.abs(p - q).sum())


def bench_leverage(quick: bool, make_reducer) -> None:
    A = orl_like(seed=0)
    print(
        f"### Leverage-score sampling, exact vs approximate SVD\n\n"
        f"Synthetic dense {A.shape[0]} x {A.shape[1]} (ORL-shaped, power-law spectrum), "
        f"k = {ORL_K}, r = {ORL_R}; fit_transform including the SVD and the scores.\n"
    )
    if make_reducer is None:
        print("- skipped: kmdr.reducers is not available\n")
        return
    reps = 3 if quick else 5
    fitted = {"leverage": [], "leverage_approx": []}

    def runner(name):
        def run(i):
            est = make_reducer(name, ORL_R, n_clusters=ORL_K, random_state=i)
            est.fit_transform(A)
            fitted[name].append(est)

        return run

    runs = interleaved_times({name: runner(name) for name in fitted}, dict.fromkeys(fitted, reps))
    times = {name: statistics.median(t) for name, t in runs.items()}
    probs = {name: [leverage_probabilities(est) for est in ests] for name, ests in fitted.items()}
    exact = probs["leverage"][0]
    tvs = [total_variation(exact, q) for q in probs["leverage_approx"]]
    uniform = np.full_like(exact, 1.0 / exact.size)
    # The guarantee FastFrobeniusSVD comes with (bzmd14 Lemma 4): ||A - A Z Z^T||_F^2 within
    # (1 + eps) of ||A - A_k||_F^2 (in expectation). Z from the fitted reducers' own shared work.
    s = np.linalg.svd(A, compute_uv=False)
    best = float(np.sum(s[ORL_K:] ** 2))
    ratios = []
    for est in fitted["leverage_approx"]:
        Z = est.compute_shared(A).value.top(ORL_K)  # k x d, orthonormal rows
        residual = A - (A @ Z.T) @ Z
        ratios.append(float(np.sum(residual**2)) / best)
    body = [
        [name, reps, fmt_seconds(times[name]), f"{times[name] / times['leverage']:.2f}"]
        for name in ("leverage", "leverage_approx")
    ]
    print(markdown(["method", "repeats", "median time", "ratio to exact"], body, "lrrr"))
    print()
    print(f"- speed-up of the approximate SVD: {times['leverage'] / times['leverage_approx']:.1f}x")
    print(
        f"- total variation distance between approximate and exact probabilities over "
        f"{len(tvs)} seeds: median {statistics.median(tvs):.3f}, max {max(tvs):.3f} "
        f"(uniform vs exact, for scale: {total_variation(exact, uniform):.3f})"
    )
    print(
        f"- ||A - A Z Z^T||_F^2 / ||A - A_k||_F^2 of the approximate Z over {len(ratios)} seeds: "
        f"median {statistics.median(ratios):.4f}, max {max(ratios):.4f} (bound 1 + eps = 1.3333)"
    )
    print()


def leverage_probabilities(est) -> np.ndarray:
    """The sampling probabilities a fitted leverage reducer exposes."""
    return np.asarray(est.probabilities_, dtype=np.float64)


#: The sections, in order (``--only``).
SECTIONS = ("sparse", "lloyd", "objective", "projections", "leverage")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP threads (default 1)")
    parser.add_argument("--before", help="another kmdr source tree (e.g. /work/main/src)")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=SECTIONS,
        help="run only these sections (default: all, in the order of the module docstring)",
    )
    args = parser.parse_args(argv)
    only = set(args.only or SECTIONS)

    command = shlex.join([".venv/bin/python", "scripts/bench/bench_core.py", *sys.argv[1:]])
    print(f"## kmdr core benchmark\n\nCommand: `{command}`\n")
    print(
        f"Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"scikit-learn {sklearn.__version__}; {args.threads} BLAS thread(s); "
        f"{platform.machine()}, {os.cpu_count()} CPUs.\n"
    )
    make_reducer = make_reducer_or_none()
    before = before_loader(args.before)
    X = rcv1_like(seed=0)
    with limited_threads(args.threads):
        if "sparse" in only:
            bench_sparse(args.quick, make_reducer, before, X)
        if "lloyd" in only:
            bench_lloyd(args.quick, make_reducer, X)
        if "objective" in only:
            bench_objective(args.quick, before)
        if "projections" in only:
            bench_projections(args.quick, make_reducer, before, X)
        if "leverage" in only:
            bench_leverage(args.quick, make_reducer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
