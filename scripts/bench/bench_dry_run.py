"""How close a dry run's time estimate comes to the run it estimates.

    python scripts/bench/bench_dry_run.py            # every case, into results/bench/dry_run.csv

Each case is a command that computes cells the committed results do not hold (another seed,
another ``kmeans.n_init``, another k-means start), run twice on a copy of the committed
experiment folders in a temporary results folder: first with ``dry_run=true`` (its estimate,
"about X with W workers", read from earlier cells of the same dataset and reducers and from the
start of the earlier runs recorded there), then for real (the ``in Y s`` of its closing line: the
run's wall from its record to its last cell). The cases run in order in one results folder, as a
user's runs do, so a case's estimate reads the runs of the cases before it; the case with
nothing to estimate from has a folder of its own. The
target is an estimate within a factor of two of the measurement; a case with nothing to base an
estimate on must say so instead of giving a number. Written to ``results/bench/dry_run.csv``
(``--out``): one row per case with the estimate, the measurement, their ratio and whether it is
within the factor, and the machine's load average before and after.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _timing import load_average  # scripts/bench/_timing.py (run as python scripts/...)

ROOT = Path(__file__).resolve().parents[2]
#: The factor an estimate must come within.
FACTOR = 2.0

#: (case, the committed experiment folders it estimates from, its overrides).
CASES = [
    ("orl grid, one k-means++ start", ["bzmd14_orl"],
     ["experiment=bzmd14_orl", "repeats=1", "kmeans.init=k-means++", "kmeans.n_init=1"]),
    # the case of a few cells: the run's own start (its workers, the data) outweighs its cells
    ("orl none, n_init=1 (5 cells)", ["bzmd14_orl"],
     ["experiment=bzmd14_orl", "reducer=none", "kmeans.n_init=1", "seed=11"]),
    ("orl sign, n_init=5, new seed", ["bzmd14_orl"],
     ["experiment=bzmd14_orl", "reducer=sign", "kmeans.n_init=5", "repeats=2", "seed=11"]),
    ("coil20 grid, new seed", ["bzmd14_coil20"],
     ["experiment=bzmd14_coil20", "repeats=1", "seed=11"]),
    ("coil20, nothing to estimate from", [],
     ["experiment=bzmd14_coil20", "repeats=1", "seed=11", "reducer=svd"]),
]  # fmt: skip

_UNITS = {"s": 1.0, "min": 60.0, "h": 3600.0}


def seconds_of(text: str) -> float:
    """``3 min 5 s`` (kmdr's duration text) in seconds."""
    return sum(float(n) * _UNITS[u] for n, u in re.findall(r"(\d+(?:\.\d+)?) (s|min|h)\b", text))


def kmdr(results: Path, overrides: list[str]) -> str:
    """Run ``kmdr`` with ``overrides`` into ``results``; its stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "kmdr.app", *overrides, f"results_dir={results}", "figures=false",
         "progress=false"],
        capture_output=True, text=True, cwd=results.parent,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(overrides)} failed:\n{done.stderr[-2000:]}")
    return done.stderr


def measure(case: str, results: Path, folders: list[str], overrides: list[str]) -> dict:
    """One case in the results folder ``results``, where ``folders`` are copied from the
    committed results if they are not there yet."""
    for name in folders:  # the committed cells the estimate reads (not their cell files)
        if not (results / name).exists():
            skip = shutil.ignore_patterns("cells", ".locks", "figures")
            shutil.copytree(ROOT / "results" / name, results / name, ignore=skip)
    said = kmdr(results, [*overrides, "dry_run=true"])
    total = next(line for line in said.splitlines() if "total:" in line)
    about = re.search(r"about (.+?) with (\d+) workers", total)
    estimate = seconds_of(about.group(1)) if about else None
    ran = kmdr(results, overrides)
    closing = re.search(r"\((\d+) computed, \d+ reused\) in ([\d.]+) s", ran)
    measured = float(closing.group(2))
    row = {
        "case": case,
        "overrides": " ".join(overrides),
        "cells_computed": int(closing.group(1)),
        "workers": int(about.group(2)) if about else "",
        "estimate_seconds": "" if estimate is None else estimate,
        "measured_seconds": measured,
        "ratio": "" if estimate is None else round(estimate / measured, 3),
    }
    if estimate is None:
        row["within_factor"] = "no estimate" if "no earlier run" in total else "missing"
    else:
        row["within_factor"] = 1 / FACTOR <= estimate / measured <= FACTOR
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "bench" / "dry_run.csv")
    args = parser.parse_args(argv)
    load_before = load_average()
    rows = []
    with tempfile.TemporaryDirectory(prefix="kmdr-dry-run-") as tmp:
        shared = Path(tmp) / "results"
        for case, folders, overrides in CASES:
            results = shared if folders else Path(tmp) / "nothing" / "results"
            results.mkdir(parents=True, exist_ok=True)
            rows.append(measure(case, results, folders, overrides))
    for row in rows:
        case = row["case"]
        print(f"[bench_dry_run] {case}: estimate {row['estimate_seconds'] or '-'} s, measured "
              f"{row['measured_seconds']} s ({row['within_factor']})", flush=True)  # fmt: skip
    load_after = load_average()
    for row in rows:
        row.update(load_before=load_before, load_after=load_after)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"[bench_dry_run] {len(rows)} cases -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
