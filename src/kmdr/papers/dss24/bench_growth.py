"""dss24's speed bench: Fast-kmeans++ and Fast-Coresets against sensitivity sampling as k grows,
and Fast-kmeans++'s runtime against the spread (log Δ).

Draganov, Saulpic and Schwiegelshohn (*Settling Time vs. Accuracy Tradeoffs for Clustering Big
Data*, SIGMOD 2024) claim that sensitivity sampling slows linearly in k and Fast-Coresets only
logarithmically (their runtime figure, k = 50, 100, 200, 400), and that Fast-kmeans++'s runtime
grows mildly with r ~ log Δ (their Table 1: 13.5, 14.2, 15.5, 16.2 s at r = 20, 30, 40, 50).

    python -m kmdr.papers.dss24.bench_growth                  # both parts, about 6 minutes
    python -m kmdr.papers.dss24.bench_growth --n 20000 --ks 10 20 --repeats 2 --out DIR

(``make bench-papers`` runs it with every other paper's bench.)

**Growth in k.** The data: 1,000,000 x 50 rows of kmdr's seeded imbalanced Gaussian mixture
(``mixture``: 50 clusters, sizes falling by a ratio 0.9 from one to the next, about 175 between
the largest and the smallest). The authors' runtime sweep ran on their own data sets (their
``compare_to_sens_sampling.py`` loads MNIST, Adult, KITTI, Star, Cover Type and Taxi, none
offline and none of a million rows); their synthetic Gaussian mixture is 50 dimensions with 50
clusters of random sizes (``experiment_script.py``, ``get_blobs_dataset`` with imbalance
γ = 5: a size spread of about e^5 = 148), which this mixture follows in d, in the number of
clusters and in the spread of sizes, at 1,000,000 rows. In one process, repetition after
repetition, each k in turn, each method in turn (seeds shared by the methods of a repetition,
so that the ratios are paired):

- ``fast_kmeanspp``: Fast-kmeans++ alone (:func:`kmdr.coresets._fast_kmeanspp.fast_kmeanspp`, k
  centers on the rows as they are, its trees included);
- ``fast_coreset``: the whole Fast-Coreset construction (:class:`kmdr.coresets.FastCoreset` at
  its defaults, the text's Algorithm 1: a sparse JL projection to ``ceil(4 ln k)`` dimensions,
  Fast-kmeans++ there, the clusters' means in the original space, sensitivity sampling);
- ``sensitivity``: kmdr's ``sensitivity`` (:class:`kmdr.coresets.SensitivitySampling`: 2k
  k-means++ seeds, every row's nearest, sampling);

both coresets of m = 40 k points (the paper's default m-scalar 40). Every computation runs with
one thread: BLAS and OpenMP limited by threadpoolctl (:func:`kmdr._native.limited_threads`) and
numba's threads set to 1 (its kernels are not parallel anyway). The compiled kernels are run once
on a few rows before anything is timed, so that no time holds numba's compilation or cache
loading. Each fit's wall time and CPU time are recorded (the
target is judged in CPU time: one thread's CPU time is its work, which other processes on a shared
machine do not inflate); each coreset's distortion is kmdr's
(:func:`kmdr.coresets.evaluation.seedings`: the largest over 5 weighted k-means++ seedings of the
coreset of ``max(cost on the data / cost on the coreset, its inverse)``), outside the time.
After the repetitions, one fit of each construction at the largest k runs under the profiler
and its time is split into its stages (projection, tree build, seeding, means, sampling; the
k-means++ seeds, the assignment and the sampling for sensitivity sampling).

**log Δ.** The authors' instance (``log_delta_experiments.py``): 2-d rows, 30,000 of them on
``n_sequence / r`` copies of the sequence ``(2^-j, i / copies)``, j < r, and the others uniform in
``[-1, 1]^2`` (``np.random.seed(123)``); Fast-kmeans++ with ``2k = 4`` centers (their
``fast_cluster_pp`` opens 2k at k = 2), r = 20, 30, 40, 50. Run at their size (n = 50,000) and at
20 times it (n = 1,000,000, 600,000 rows on sequences), each r in turn per repetition. kmdr's
trees stop at 50 levels (cells of side 2^-50 of the root's), so at r = 50 the last rounds of a
sequence share their finest cells. kmdr's times are CPU times (one thread), theirs wall times;
only the growth with r is compared, not the seconds (theirs are Python trees, kmdr's compiled).

Writes under ``--out`` (default ``results/bench``): ``dss24_growth_runs.csv`` (one row per fit),
``dss24_growth.csv`` (per method and k: medians, growth against the smallest k, the speed-up of
each over sensitivity sampling, the distortions and their ratio, the target at the largest k),
``dss24_growth_breakdown.csv`` (the stages, in CPU seconds under the profiler),
``dss24_log_delta_runs.csv`` and ``dss24_log_delta.csv`` (per size and r: the median CPU time,
its growth against r = 20, the fitted slope in seconds per unit of r with its 95% interval,
beside the authors' published means).
"""

from __future__ import annotations

import cProfile
import math
import os
import pstats
import time
from pathlib import Path

import numpy as np

from kmdr._errors import CommandParser

KS = (50, 100, 200, 400)
METHODS = ("fast_kmeanspp", "fast_coreset", "sensitivity")
#: The coreset size over k: the paper's default m-scalar.
M_SCALAR = 40
#: The mixture's clusters and the ratio of their sizes (see the module docstring).
MIXTURE = {"n_clusters": 50, "ratio": 0.9}
#: The target at the largest k: Fast-Coresets at least this much faster than sensitivity
#: sampling, at a distortion at most this factor of sensitivity sampling's.
TARGET_SPEEDUP, TARGET_DISTORTION = 5.0, 1.10
#: The authors' log Δ instance (``log_delta_experiments.py``).
LOG_DELTA_ROUNDS = (20, 30, 40, 50)
LOG_DELTA_SIZES = (50_000, 1_000_000)
LOG_DELTA_SEQUENCE_SHARE = 0.6  # their 30,000 rows on sequences of 50,000
LOG_DELTA_CENTERS = 4  # their fast_cluster_pp at k = 2 opens 2k
#: Their Table 1 (the final paper's; ``tex/tables/log_delta_runtime.tex`` of the January 2024
#: draft): mean runtime in seconds and its ± over their runs (the caption says five; the script
#: runs three), by r.
AUTHORS_LOG_DELTA = {20: (13.5, 0.16), 30: (14.2, 0.33), 40: (15.5, 0.02), 50: (16.2, 0.16)}
AUTHORS_LOG_DELTA_N = 50_000

GROWTH_COLUMNS = [
    "method",
    "n",
    "d",
    "k",
    "m",
    "repeats",
    "seconds",
    "cpu_seconds",
    "growth",
    "cpu_growth",
    "growth_if_linear",
    "growth_if_log",
    "speedup",
    "cpu_speedup",
    "cpu_speedup_low",
    "cpu_speedup_high",
    "distortion",
    "distortion_ratio",
    "target",
    "holds",
    "p_speedup",
    "p_distortion",
    "load",
]
LOG_DELTA_COLUMNS = [
    "source",
    "clock",
    "n",
    "r",
    "repeats",
    "seconds",
    "sd",
    "growth",
    "slope",
    "slope_low",
    "slope_high",
    "relative_slope",
    "relative_slope_low",
    "relative_slope_high",
]


def growth_data(n: int, d: int, seed: int = 0) -> np.ndarray:
    """The seeded mixture the growth in k is measured on (see the module docstring)."""
    from kmdr.datasets import load_dataset

    return load_dataset("mixture", n_samples=n, n_features=d, seed=seed, **MIXTURE).X


def _fit(method: str, X, k: int, seed: int):
    """One timed run: (wall seconds, CPU seconds, the fitted coreset or None)."""
    from kmdr.coresets import make_coreset
    from kmdr.coresets._fast_kmeanspp import fast_kmeanspp

    cpu, wall = time.process_time(), time.perf_counter()
    if method == "fast_kmeanspp":
        fast_kmeanspp(X, k, random_state=seed)
        fitted = None
    else:
        fitted = make_coreset(
            method, n_clusters=k, coreset_size=M_SCALAR * k, random_state=seed
        ).fit(X)
    return time.perf_counter() - wall, time.process_time() - cpu, fitted


def _warm_up(X) -> None:
    """Run the compiled kernels once on a few rows, on the rows and on the projection's output,
    so that no timed run compiles or loads them."""
    few = X[: min(len(X), 2000)]
    for method in ("fast_kmeanspp", "fast_coreset"):
        _fit(method, few, 4, 0)


def run_growth(X, ks, repeats: int) -> list[dict]:
    """Every (repetition, k, method) fit in this process, interleaved: one row each."""
    from kmdr.coresets.evaluation import seedings

    rows = []
    for rep in range(repeats):
        for k in ks:
            seed = 1000 * rep + k  # the methods of a repetition share it: paired
            for method in METHODS:
                wall, cpu, fitted = _fit(method, X, k, seed)
                distortion = np.nan
                if fitted is not None:
                    rng = np.random.RandomState(seed)
                    seeded = seedings(X, fitted.points_, fitted.weights_, k, rng)
                    distortion = max(s["distortion"] for s in seeded)
                rows.append(
                    {
                        "repetition": rep,
                        "method": method,
                        "n": X.shape[0],
                        "d": X.shape[1],
                        "k": k,
                        "m": M_SCALAR * k,
                        "seconds": wall,
                        "cpu_seconds": cpu,
                        "distortion": distortion,
                        "load": os.getloadavg()[0],
                    }
                )
                print(
                    f"[bench] rep {rep} k = {k:>4} {method:<14} {wall:7.2f} s wall "
                    f"{cpu:7.2f} s CPU  distortion {distortion:.4f}",
                    flush=True,
                )
    return rows


def _one_sided_p(values, bound: float, greater: bool) -> float:
    """One-sided one-sample t-test p of the repetitions' ``values`` against ``bound`` (NaN with
    fewer than 2 or no spread)."""
    from scipy import stats

    values = np.asarray(values, dtype=float)
    if values.size < 2 or np.ptp(values) == 0:
        return np.nan
    alternative = "greater" if greater else "less"
    return float(stats.ttest_1samp(values, bound, alternative=alternative).pvalue)


def summarize_growth(runs):
    """Per method and k, from the runs: the medians, their growth against the smallest k, each
    method's speed-up over sensitivity sampling at the same k (the ratio of the medians, in wall
    and in CPU time; low and high: the smallest and largest of the repetitions' paired CPU
    ratios), the median distortion and its ratio to sensitivity sampling's; at the largest k,
    Fast-Coresets' target and one-sided t-tests over the repetitions of the log paired ratios
    (CPU speed-up above the target, distortion ratio below it).

    The target is judged in CPU time: every fit runs on one thread, so its CPU time is its work,
    while its wall time also holds what other processes of a shared machine take from it."""
    import pandas as pd

    med = runs.groupby(["method", "k"])[["seconds", "cpu_seconds", "distortion", "load"]].median()
    reps = runs.groupby(["method", "k"]).size()
    sens = runs[runs.method == "sensitivity"].set_index(["repetition", "k"])
    k0, k_max = runs.k.min(), runs.k.max()
    rows = []
    for method in METHODS:
        own = runs[runs.method == method].set_index(["repetition", "k"])
        for k in sorted(runs.k.unique()):
            row = med.loc[(method, k)]
            first = med.loc[(method, k0)]
            base = med.loc[("sensitivity", k)]
            at_k = own.xs(k, level="k")
            paired = sens.xs(k, level="k").cpu_seconds / at_k.cpu_seconds
            d_paired = at_k.distortion / sens.xs(k, level="k").distortion
            target = holds = ""
            p_speed = p_dist = np.nan
            if method == "fast_coreset" and k == k_max:
                target = (
                    f"cpu_speedup >= {TARGET_SPEEDUP:g} at distortion_ratio <= "
                    f"{TARGET_DISTORTION:g} (k = {k})"
                )
                ratio = row.distortion / base.distortion
                speedup = base.cpu_seconds / row.cpu_seconds
                holds = bool(speedup >= TARGET_SPEEDUP and ratio <= TARGET_DISTORTION)
                p_speed = _one_sided_p(np.log(paired), math.log(TARGET_SPEEDUP), greater=True)
                p_dist = _one_sided_p(np.log(d_paired), math.log(TARGET_DISTORTION), False)
            rows.append(
                {
                    "method": method,
                    "n": int(runs.n.iloc[0]),
                    "d": int(runs.d.iloc[0]),
                    "k": k,
                    "m": M_SCALAR * k,
                    "repeats": int(reps[(method, k)]),
                    "seconds": row.seconds,
                    "cpu_seconds": row.cpu_seconds,
                    "growth": row.seconds / first.seconds,
                    "cpu_growth": row.cpu_seconds / first.cpu_seconds,
                    "growth_if_linear": k / k0,
                    "growth_if_log": math.log(k) / math.log(k0),
                    "speedup": base.seconds / row.seconds,
                    "cpu_speedup": base.cpu_seconds / row.cpu_seconds,
                    "cpu_speedup_low": float(paired.min()),
                    "cpu_speedup_high": float(paired.max()),
                    "distortion": row.distortion,
                    "distortion_ratio": row.distortion / base.distortion,
                    "target": target,
                    "holds": holds,
                    "p_speedup": p_speed,
                    "p_distortion": p_dist,
                    "load": row.load,
                }
            )
    return pd.DataFrame(rows, columns=GROWTH_COLUMNS)


#: Each construction's stages: the functions whose cumulative time under the profiler is the
#: stage's, by (file name, function name).
STAGES = {
    "fast_coreset": {
        "projection": [("_fast_coreset.py", "_reduced")],
        "tree build": [("_multitree_kernels.py", "build_tree")],
        "seeding": [("_multitree_kernels.py", "seed")],
        "means": [("_fast_coreset.py", "_sq_dist_to_means")],
        "sampling": [("_fast_coreset.py", "_sensitivity_draw")],
    },
    "sensitivity": {
        "k-means++ seeds": [("_kmeans.py", "_kmeans_plusplus")],
        "assignment": [("_bicriteria.py", "nearest_seed")],
        "sampling": [("_base.py", "_set_points")],
    },
}


def breakdown(X, k: int, seed: int = 0):
    """One fit of each construction under the profiler, its time split into :data:`STAGES`
    (``other``: the rest of the fit: validation, the glue between stages; ``whole``: the fit)."""
    import pandas as pd

    rows = []
    for method, stages in STAGES.items():
        profile = cProfile.Profile(time.process_time)  # CPU time, as the target
        profile.enable()
        _fit(method, X, k, seed)
        profile.disable()
        found = pstats.Stats(profile).stats  # (file, line, name) -> (cc, nc, tt, cumtime, ...)

        def cumulative(targets, found=found):
            return sum(
                v[3]
                for (file, _, name), v in found.items()
                if any(file.endswith(f) and name == n for f, n in targets)
            )

        whole = cumulative([("_base.py", "fit")])
        parts = {stage: cumulative(targets) for stage, targets in stages.items()}
        parts["other"] = max(whole - sum(parts.values()), 0.0)
        parts["whole"] = whole
        rows += [
            {
                "method": method,
                "k": k,
                "stage": stage,
                "seconds": s,
                "share": s / whole if whole > 0 else np.nan,
            }
            for stage, s in parts.items()
        ]
    return pd.DataFrame(rows)


def log_delta_points(n: int, r: int, n_sequence: int, seed: int = 123) -> np.ndarray:
    """The authors' log Δ instance (``log_delta_experiments.py``, ``get_log_delta_testbed``):
    ``n_sequence // r`` copies of the sequence ``(2^-j, i / copies)``, j < r, then the first rows
    of ``n`` uniform draws in ``[-1, 1]^2`` (their ``np.random.seed(123)`` stream) for the rest."""
    copies = n_sequence // r
    uniform = np.random.RandomState(seed).uniform(-1.0, 1.0, (n, 2))[: n - copies * r]
    x = np.tile(0.5 ** np.arange(r), copies)
    y = np.repeat(np.arange(copies) / copies, r)
    return np.concatenate([np.column_stack([x, y]), uniform])


def run_log_delta(sizes, rounds, repeats: int) -> list[dict]:
    """Fast-kmeans++'s time on the instance at each size and r, each r in turn per repetition."""
    from kmdr.coresets._fast_kmeanspp import fast_kmeanspp

    rows = []
    for n in sizes:
        points = {r: log_delta_points(n, r, int(LOG_DELTA_SEQUENCE_SHARE * n)) for r in rounds}
        # one run untimed, as the authors' script does ("the first run is the slowest")
        fast_kmeanspp(points[rounds[0]], LOG_DELTA_CENTERS, random_state=0)
        for rep in range(repeats[n] if isinstance(repeats, dict) else repeats):
            for r in rounds:
                cpu, wall = time.process_time(), time.perf_counter()
                fast_kmeanspp(points[r], LOG_DELTA_CENTERS, random_state=rep)
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                rows.append(
                    {"n": n, "r": r, "repetition": rep, "seconds": wall, "cpu_seconds": cpu}
                )
        print(f"[bench] log Δ at n = {n:,}: done", flush=True)
    return rows


def _slope(r, seconds):
    """Least squares slope of seconds on r and its 95% t interval."""
    from scipy import stats

    fit = stats.linregress(r, seconds)
    half = stats.t.ppf(0.975, len(r) - 2) * fit.stderr if len(r) > 2 else np.nan
    return fit.slope, fit.slope - half, fit.slope + half


def summarize_log_delta(runs):
    """Per source, size and r: the median CPU seconds (the authors': their mean wall time and
    its ±; ``clock`` says which), its growth against the smallest r, and the slope of seconds on
    r fitted on every repetition (the authors': on their four means), in seconds and relative to
    the time at the smallest r."""
    import pandas as pd

    rows = []
    groups = [("kmdr", n, g.assign(seconds=g.cpu_seconds)) for n, g in runs.groupby("n")]
    authors = pd.DataFrame([{"r": r, "seconds": s} for r, (s, _) in AUTHORS_LOG_DELTA.items()])
    groups.append(("authors", AUTHORS_LOG_DELTA_N, authors))
    for source, n, g in groups:
        slope, low, high = _slope(g.r.to_numpy(float), g.seconds.to_numpy(float))
        by_r = g.groupby("r").seconds
        med = by_r.median() if source == "kmdr" else by_r.mean()
        base = med.loc[med.index.min()]
        for r, seconds in med.items():
            sd = by_r.std().loc[r] if source == "kmdr" else AUTHORS_LOG_DELTA[r][1]
            rows.append(
                {
                    "source": source,
                    "clock": "CPU" if source == "kmdr" else "wall (their time())",
                    "n": n,
                    "r": r,
                    "repeats": int(by_r.size().loc[r]) if source == "kmdr" else np.nan,
                    "seconds": seconds,
                    "sd": sd,
                    "growth": seconds / base,
                    "slope": slope,
                    "slope_low": low,
                    "slope_high": high,
                    "relative_slope": slope / base,
                    "relative_slope_low": low / base,
                    "relative_slope_high": high / base,
                }
            )
    return pd.DataFrame(rows, columns=LOG_DELTA_COLUMNS)


def table(bench: Path) -> str:
    """The growth in k (``dss24_growth``): per method and k, the median seconds, the growth
    against the smallest k, the speed-up over sensitivity sampling and the distortions."""
    import pandas as pd

    from kmdr.report._text import md_table

    df = pd.read_csv(Path(bench) / "dss24_growth.csv")
    names = {
        "fast_kmeanspp": "Fast-kmeans++ (seeding)",
        "fast_coreset": "Fast-Coreset",
        "sensitivity": "sensitivity sampling",
    }
    rows = [
        [
            names[row.method],
            f"{row.k}",
            f"{row.seconds:.3g} s",
            f"{row.cpu_seconds:.3g} s",
            f"{row.cpu_growth:.2f}x (linear {row.growth_if_linear:.0f}x, "
            f"log {row.growth_if_log:.2f}x)",
            f"{row.cpu_speedup:.2f}x ({row.cpu_speedup_low:.2f}-{row.cpu_speedup_high:.2f}); "
            f"wall {row.speedup:.2f}x",
            "" if pd.isna(row.distortion) else f"{row.distortion:.3f}",
            "" if pd.isna(row.distortion_ratio) else f"{row.distortion_ratio:.3f}",
        ]
        for row in df.itertuples()
    ]
    header = [
        "method",
        "k",
        "wall (median)",
        "CPU (median)",
        "CPU growth vs smallest k",
        "CPU speed-up over sensitivity (paired range)",
        "distortion",
        "distortion ratio",
    ]
    return md_table(header, rows, "lrrrrrrr")


def log_delta_table(bench: Path) -> str:
    """The log Δ trend (``dss24_log_delta``): per source and size, each r's time as a growth
    against r = 20, and the fitted slope relative to the time at r = 20 with its interval."""
    import pandas as pd

    from kmdr.report._text import md_table

    df = pd.read_csv(Path(bench) / "dss24_log_delta.csv")
    rows = []
    for (source, n), g in df.groupby(["source", "n"], sort=False):
        first = g.iloc[0]
        interval = (
            ""
            if pd.isna(first.relative_slope_low)
            else f" [{first.relative_slope_low:.2%}, {first.relative_slope_high:.2%}]"
        )
        rows.append(
            [
                source,
                f"{n:,}",
                *(f"{s:.3g} s ({x:.3f}x)" for s, x in zip(g.seconds, g.growth, strict=True)),
                f"{first.relative_slope:.2%}{interval}",
            ]
        )
    header = [
        "source",
        "n",
        *(f"r = {r}" for r in sorted(df.r.unique())),
        "slope per unit r, of r = 20's time (95%)",
    ]
    return md_table(header, rows, "lr" + "r" * (len(header) - 2))


def main(argv=None) -> int:
    parser = CommandParser(
        prog="python -m kmdr.papers.dss24.bench_growth", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--n", type=int, default=1_000_000, help="rows of the mixture")
    parser.add_argument("--d", type=int, default=50, help="its dimension")
    parser.add_argument("--ks", type=int, nargs="+", default=list(KS))
    parser.add_argument("--repeats", type=int, default=5, help="paired repetitions in k")
    parser.add_argument(
        "--log-delta-sizes",
        type=int,
        nargs="*",
        default=list(LOG_DELTA_SIZES),
        help="sizes of the log Δ instance (none: that part is skipped)",
    )
    parser.add_argument(
        "--log-delta-repeats",
        type=int,
        default=None,
        help="repetitions per r (default: 20 at up to 100,000 rows, else 3)",
    )
    parser.add_argument("--out", type=Path, default=Path("results") / "bench")
    args = parser.parse_args(argv)
    ks = sorted(set(args.ks))
    small = [s for s in args.log_delta_sizes if s < 2 * max(LOG_DELTA_ROUNDS)]
    if args.repeats < 1 or min(ks) < 2 or M_SCALAR * max(ks) > args.n or args.d < 1 or small:
        parser.error(
            f"repeats >= 1, every k >= 2, {M_SCALAR} k <= n and log Δ sizes >= "
            f"{2 * max(LOG_DELTA_ROUNDS)} (got repeats {args.repeats}, ks {ks}, n {args.n}, "
            f"log Δ sizes {args.log_delta_sizes})"
        )
    if args.log_delta_repeats is not None and args.log_delta_repeats < 1:
        parser.error(f"log-delta-repeats must be >= 1 (got {args.log_delta_repeats})")

    import numba
    import pandas as pd

    from kmdr._native import limited_threads

    numba.set_num_threads(1)
    args.out.mkdir(parents=True, exist_ok=True)
    with limited_threads(1):
        X = growth_data(args.n, args.d)
        _warm_up(X)
        runs = pd.DataFrame(run_growth(X, ks, args.repeats))
        runs.to_csv(args.out / "dss24_growth_runs.csv", index=False)
        summary = summarize_growth(runs)
        summary.to_csv(args.out / "dss24_growth.csv", index=False, float_format="%.6g")
        stages = breakdown(X, max(ks))
        stages.to_csv(args.out / "dss24_growth_breakdown.csv", index=False, float_format="%.6g")
        del X
        if args.log_delta_sizes:
            repeats = {
                n: args.log_delta_repeats or (20 if n <= 100_000 else 3)
                for n in args.log_delta_sizes
            }
            delta_runs = pd.DataFrame(
                run_log_delta(args.log_delta_sizes, LOG_DELTA_ROUNDS, repeats)
            )
            delta_runs.to_csv(args.out / "dss24_log_delta_runs.csv", index=False)
            delta = summarize_log_delta(delta_runs)
            delta.to_csv(args.out / "dss24_log_delta.csv", index=False, float_format="%.6g")
    show = [
        "method",
        "k",
        "seconds",
        "cpu_seconds",
        "cpu_growth",
        "cpu_speedup",
        "speedup",
        "distortion",
        "distortion_ratio",
        "holds",
        "p_speedup",
        "p_distortion",
    ]
    print(summary[show].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print(stages.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    if args.log_delta_sizes:
        print(delta.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print(f"[bench] -> {args.out}/dss24_*.csv")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
