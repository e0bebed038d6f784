"""Runner-level benchmark: kmdr against a typical reproduction loop on the bzmd14 ORL grid.

    python scripts/bench/bench_reproduction.py

The grid: bzmd14's 7 methods (Sampl/SVD, Sampl/ApproxSVD, RP, SVD, ApprSVD, LapScores, kMeans) x
r = 5, 10, ..., 100, 1 repetition = 140 grid points, k-means 5 restarts x 500 iterations with
k-means++. Both sides run as a subprocess and are timed whole-process (wall clock from start to
exit, so interpreter start, imports, data loading and worker start-up count):

- kmdr: ``kmdr experiment=bzmd14_orl repeats=1 kmeans.init=k-means++`` with default n_jobs and
  the preset's reducer list restricted to the paper's 7 methods (the preset also draws ridge
  leverage scores, which are not in bzmd14);
- the typical loop: ``scripts/bench/_typical_reproduction.py``, which per r recomputes every
reduction
  and the full-space k-means with numpy/scipy/scikit-learn directly.

Printed: each side's wall seconds and grid points per second, the ratio (kmdr over the loop), the
mean P and F over the 140 points of each (close, not equal: different random draws) and the load
average. No assertion on time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
N_R = 20
METHODS = 7
# The preset's reducers minus ridge_leverage (not one of bzmd14's methods).
REDUCERS = "reducer=[leverage,leverage_approx,sign,svd,svd_approx,laplacian,none]"


def timed(cmd: list[str]) -> float:
    """Wall seconds of ``cmd`` from start to exit; raises with its stderr if it fails."""
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{cmd[1:3]} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return elapsed


def kmdr_points(cells_csv: Path) -> pd.DataFrame:
    """kmdr's cells as 140 (method, r, P, F) points: its single kMeans row stands for every r."""
    cells = pd.read_csv(cells_csv)
    reduced = cells[cells["method"] != "kMeans"]
    full = cells[cells["method"] == "kMeans"]
    if len(reduced) != (METHODS - 1) * N_R or len(full) != 1:
        raise RuntimeError(f"unexpected kmdr grid in {cells_csv}: {len(cells)} rows")
    full = pd.concat([full] * N_R, ignore_index=True)
    points = pd.concat([reduced, full], ignore_index=True)
    return points.rename(columns={"accuracy": "P", "objective": "F"})[["method", "r", "P", "F"]]


def main() -> None:
    env_note = f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        kmdr_cmd = [
            sys.executable, "-m", "kmdr.app", "experiment=bzmd14_orl", "repeats=1",
            "kmeans.init=k-means++", f"results_dir={tmp / 'kmdr'}", "progress=false",
            "figures=false", REDUCERS,
        ]  # fmt: skip
        loop_cmd = [sys.executable, str(HERE / "_typical_reproduction.py"), str(tmp / "loop.csv")]
        load_before = os.getloadavg()
        t_kmdr = timed(kmdr_cmd)
        t_loop = timed(loop_cmd)
        load_after = os.getloadavg()
        ours = kmdr_points(tmp / "kmdr" / "bzmd14_orl" / "cells.csv")
        theirs = pd.read_csv(tmp / "loop.csv")
    if len(theirs) != METHODS * N_R:
        raise RuntimeError(f"the typical loop wrote {len(theirs)} points, expected {METHODS * N_R}")

    n = METHODS * N_R
    rate_kmdr, rate_loop = n / t_kmdr, n / t_loop
    print(f"bzmd14 ORL grid: {METHODS} methods x {N_R} r x 1 repetition = {n} grid points, "
          f"k-means 5 x 500 k-means++ ({env_note})")  # fmt: skip
    print(f"{'':16}{'wall s':>9}{'points/s':>10}{'mean P':>9}{'mean F':>10}")
    for name, t, rate, pts in [
        ("kmdr", t_kmdr, rate_kmdr, ours),
        ("typical loop", t_loop, rate_loop, theirs),
    ]:
        print(f"{name:16}{t:9.2f}{rate:10.2f}{pts['P'].mean():9.4f}{pts['F'].mean():10.5f}")
    print(f"ratio (kmdr / typical loop, points per second): {rate_kmdr / rate_loop:.2f}x")
    print("mean P and F per method (kmdr | typical loop):")
    by = pd.concat(
        {"kmdr": ours.groupby("method")[["P", "F"]].mean(),
         "loop": theirs.groupby("method")[["P", "F"]].mean()}, axis=1,
    )  # fmt: skip
    print(by.round(4).to_string())
    before, after = (" ".join(f"{x:.2f}" for x in load) for load in (load_before, load_after))
    print(f"load average before: {before}; after: {after} ({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
