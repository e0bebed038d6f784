"""Scale on one machine: sparse_text from 25,000 to 804,414 rows (RCV1-v2's size), step by step.

    make bench-scale                                  # n = 25k, 100k, 400k, 804,414
    .venv/bin/python scripts/bench/bench_scale.py --quick   # n = 5k, 10k, 20k, 40k (a minute or
    two)

Each n runs in a fresh process, so that the peaks are separate. It generates the data (the
generator `kmdr dataset=sparse_text dataset.params.n_samples=N` uses), then for each reducer (SE
and RP at r = 100 by default) it runs what a worker runs for one cell, step by step:

- reduce: ``fit_transform`` of the reducer at r, seeded;
- cluster: :func:`kmdr.kmeans.lloyd.kmeans` on the cell's own C (no copy of C, as the runner does),
  k-means++, tol 0, ``--n-init`` restarts of at most ``--max-iter`` iterations;
- score: F on the sparse X from an :class:`~kmdr.metrics.ObjectiveEvaluator` made once, F on C,
  P, NMI and ARI (the runner's metric columns).

Memory is the process's resident set size, sampled every 5 ms by a thread: ``peak_mib`` is the
largest during the step (the whole process: imports and everything still held), ``held_mib`` that
peak minus the process's size before the data was generated (imports only), i.e. what the data
and the step hold at their peak. Then, with ``--runs`` (the default without ``--quick``), the
whole command ``kmdr dataset=sparse_text dataset.params.n_samples=N reducer=R 'r_grid=[100]'
repeats=1 kmeans.n_init=1 kmeans.max_iter=30`` runs per n and reducer into a temporary folder,
once as it is (``run``: all cores, the data memory-mapped to the workers) and once with
``n_jobs=1`` (``run n_jobs=1``: the cell in the runner's own process; ``--run-jobs``), its process
tree sampled every 50 ms (``psutil``, from the dask extra): wall seconds and the peak of the
tree's summed proportional set size (PSS: the runner, its workers and anything they start, each
shared page counted once; joblib's memory-mapped copy of the data in ``/dev/shm`` is counted
where a worker maps it, and ``shm_mib`` is its size).

Writes ``scale.csv`` (one row per n, step and reducer), ``scale_fit.csv`` (per step and reducer,
the least-squares slope of log(seconds) and of log(held memory) against log(n): the exponent in
n, goal at most 1.05) and ``scale.png`` (both against n, log-log) into ``--out``
(default ``results/bench/``), and prints the tables. The machine's 1-minute load average is
recorded with every n: on a shared machine it says how far the walls can be trusted.
"""

# The kmdr internals this bench needs, beyond the public API (kmdr.run, Session,
# kmdr.read_results), because it times or builds one step alone: kmdr.config.seeds.

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIZES = (25_000, 100_000, 400_000, 804_414)
QUICK_SIZES = (5_000, 10_000, 20_000, 40_000)
REDUCERS = ("sparse_embedding", "sign")
STEPS = ("generate", "reduce", "cluster", "score")
MIB = 2**20
GOAL = 1.05


class Sampler:
    """The peak RSS of this process since :meth:`start`, sampled by a thread every 5 ms."""

    def __init__(self) -> None:
        import psutil

        self._process = psutil.Process()
        self.peak = 0
        self._lock = threading.Lock()
        threading.Thread(target=self._sample, daemon=True).start()

    def rss(self) -> int:
        return self._process.memory_info().rss

    def _sample(self) -> None:
        while True:
            rss = self.rss()
            with self._lock:
                self.peak = max(self.peak, rss)
            time.sleep(0.005)

    def start(self) -> None:
        with self._lock:
            self.peak = self.rss()

    def stop(self) -> int:
        with self._lock:
            self.peak = max(self.peak, self.rss())
            return self.peak


def measure_steps(n: int, reducers: list[str], r: int, n_init: int, max_iter: int) -> list[dict]:
    """Every step at size n in this process (see the module docstring); one row per step."""
    import gc

    from kmdr.config.seeds import stream_seeds
    from kmdr.datasets import load_dataset
    from kmdr.kmeans.lloyd import kmeans
    from kmdr.metrics import ObjectiveEvaluator, ari, clustering_accuracy, kmeans_objective, nmi
    from kmdr.reducers import make_reducer

    sampler = Sampler()
    base = sampler.rss()
    rows = []

    def step(name: str, reducer: str, work):
        sampler.start()
        start = time.perf_counter()
        out = work()
        seconds = time.perf_counter() - start
        peak = sampler.stop()
        rows.append(
            {
                "n": n,
                "step": name,
                "reducer": reducer,
                "seconds": round(seconds, 3),
                "peak_mib": round(peak / MIB, 1),
                "held_mib": round((peak - base) / MIB, 1),
            }
        )
        return out

    data = step("generate", "", lambda: load_dataset("sparse_text", n_samples=n))
    X, y, k = data.X, data.y, data.n_clusters
    objective = ObjectiveEvaluator(X)  # made once per dataset, as the runner does
    reduce_seed, kmeans_seed = stream_seeds(0)
    for name in reducers:
        reducer = make_reducer(name, r, n_clusters=k, random_state=reduce_seed)
        C = step("reduce", name, lambda reducer=reducer: reducer.fit_transform(X))
        result = step(
            "cluster",
            name,
            lambda C=C: kmeans(
                C, k, n_init=n_init, max_iter=max_iter, tol=0.0, random_state=kmeans_seed,
                copy_x=False,
            ),
        )  # fmt: skip

        def score(C=C, labels=result.labels):
            return {
                "objective": objective(labels),
                "objective_reduced": kmeans_objective(C, labels),
                "accuracy": clustering_accuracy(y, labels),
                "nmi": nmi(y, labels),
                "ari": ari(y, labels),
            }

        metrics = step("score", name, score)
        rows[-1]["accuracy"] = round(metrics["accuracy"], 4)
        del C, result, score  # score holds C too: the next reducer starts without it
        gc.collect()
    for row in rows:
        row["nnz"] = int(X.nnz)
    return rows


def measure_run(
    n: int, reducer: str, r: int, n_init: int, max_iter: int, n_jobs: int | None
) -> dict:
    """The whole ``kmdr`` command at size n, its process tree sampled every 50 ms."""
    import psutil

    kmdr = Path(sys.executable).with_name("kmdr")
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(prefix="kmdr-bench-scale-") as tmp:
        cmd = [
            str(kmdr), "dataset=sparse_text", f"dataset.params.n_samples={n}",
            f"reducer={reducer}", f"r_grid=[{r}]", "repeats=1", f"kmeans.n_init={n_init}",
            f"kmeans.max_iter={max_iter}", f"results_dir={tmp}", "figures=false",
            "progress=false", *([f"n_jobs={n_jobs}"] if n_jobs else []),
        ]  # fmt: skip
        shm_before = shutil.disk_usage(shm).used if shm.is_dir() else 0
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        tree, peak, shm_peak = psutil.Process(proc.pid), 0, 0
        while proc.poll() is None:
            total = 0
            try:
                members = [tree, *tree.children(recursive=True)]
            except psutil.Error:
                members = []
            for member in members:
                with contextlib.suppress(psutil.Error):
                    total += member.memory_full_info().pss
            peak = max(peak, total)
            if shm.is_dir():
                shm_peak = max(shm_peak, shutil.disk_usage(shm).used - shm_before)
            time.sleep(0.05)
        seconds = time.perf_counter() - start
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.read().strip()}")
    return {
        "n": n,
        "step": "run" if not n_jobs else f"run n_jobs={n_jobs}",
        "reducer": reducer,
        "seconds": round(seconds, 3),
        "peak_mib": round(peak / MIB, 1),
        "held_mib": "",
        "shm_mib": round(shm_peak / MIB, 1),
    }


def exponents(rows: list[dict]) -> list[dict]:
    """Per step and reducer, the least-squares slopes of log(seconds) and log(held_mib) against
    log(n) (held memory: not for whole runs, whose peak is summed over processes)."""
    import numpy as np

    fits = []
    keys = sorted({(row["step"], row["reducer"]) for row in rows}, key=_step_order)
    for step, reducer in keys:
        mine = [row for row in rows if (row["step"], row["reducer"]) == (step, reducer)]
        n = np.log([row["n"] for row in mine])
        fit = {"step": step, "reducer": reducer, "sizes": len(mine)}
        for column, name in (("seconds", "time_exponent"), ("held_mib", "memory_exponent")):
            values = [row[column] for row in mine]
            ok = len(mine) >= 2 and all(isinstance(v, int | float) and v > 0 for v in values)
            fit[name] = round(float(np.polyfit(n, np.log(values), 1)[0]), 3) if ok else ""
        fits.append(fit)
    return fits


def _step_order(key: tuple[str, str]) -> tuple:
    step, reducer = key
    order = [*STEPS, "run"]
    return (order.index(step.split()[0]) if step.split()[0] in order else len(order), step, reducer)


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for key in sorted({(row["step"], row["reducer"]) for row in rows}, key=_step_order):
        mine = sorted((row for row in rows if (row["step"], row["reducer"]) == key), key=_n)
        label = " ".join(part for part in key if part)
        n = [row["n"] for row in mine]
        left.plot(n, [row["seconds"] for row in mine], marker="o", label=label)
        right.plot(n, [row["peak_mib"] for row in mine], marker="o", label=label)
    sizes = sorted({row["n"] for row in rows})
    for axis, title in ((left, "wall seconds"), (right, "peak resident memory (MiB)")):
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("n (rows of sparse_text)")
        axis.set_title(title)
        axis.grid(True, which="both", alpha=0.3)
    # a slope-1 guide through the largest generate time: linear in n
    top = max(row["seconds"] for row in rows if row["step"] == "generate")
    left.plot(sizes, [top * s / sizes[-1] for s in sizes], "k:", label="slope 1")
    left.legend(fontsize=7)
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _n(row: dict) -> int:
    return row["n"]


def table(rows: list[dict], columns: list[str]) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(row.get(c, "")) for c in columns) + " |" for row in rows]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 5k, 10k, 20k, 40k")
    parser.add_argument("--sizes", type=int, nargs="+", help="the n to measure")
    parser.add_argument("--reducer", nargs="+", default=list(REDUCERS))
    parser.add_argument("--r", type=int, default=100)
    parser.add_argument("--n-init", type=int, default=1)
    parser.add_argument("--max-iter", type=int, default=30)
    runs = parser.add_mutually_exclusive_group()
    runs.add_argument("--runs", dest="runs", action="store_true", default=None)
    runs.add_argument("--no-runs", dest="runs", action="store_false")
    parser.add_argument(
        "--run-jobs", type=int, nargs="+", default=[0, 1],
        help="n_jobs of the whole runs (0: the command's default, all cores)",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "bench")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:  # one n, in this fresh process
        rows = measure_steps(args.child, args.reducer, args.r, args.n_init, args.max_iter)
        print(json.dumps(rows))
        return 0
    sizes = args.sizes or (QUICK_SIZES if args.quick else SIZES)
    with_runs = (not args.quick) if args.runs is None else args.runs
    rows = []
    for n in sizes:
        load = round(os.getloadavg()[0], 2)
        cmd = [sys.executable, __file__, "--child", str(n), "--reducer", *args.reducer]
        cmd += ["--r", str(args.r), "--n-init", str(args.n_init), "--max-iter", str(args.max_iter)]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        found = json.loads(out.strip().splitlines()[-1])
        if with_runs:
            for reducer in args.reducer:
                for jobs in args.run_jobs:
                    run = measure_run(n, reducer, args.r, args.n_init, args.max_iter, jobs)
                    found.append(run)
        for row in found:
            row["load"] = load
        rows += found
        print(table(found, ["n", "step", "reducer", "seconds", "peak_mib", "held_mib"]), flush=True)
    import pandas as pd

    args.out.mkdir(parents=True, exist_ok=True)
    columns = ["n", "step", "reducer", "seconds", "peak_mib", "held_mib", "shm_mib", "nnz"]
    columns.append("accuracy")
    pd.DataFrame(rows, columns=[*columns, "load"]).to_csv(args.out / "scale.csv", index=False)
    fits = exponents(rows)
    pd.DataFrame(fits).to_csv(args.out / "scale_fit.csv", index=False)
    plot(rows, args.out / "scale.png")
    print()
    print(table(fits, ["step", "reducer", "sizes", "time_exponent", "memory_exponent"]))
    worst = [f for f in fits if isinstance(f["time_exponent"], float)]
    over = [f"{f['step']} {f['reducer']}".strip() for f in worst if f["time_exponent"] > GOAL]
    print(f"time exponents above {GOAL}: {', '.join(over) or 'none'}; written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
