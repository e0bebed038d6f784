"""What a user waits for beyond the computing: two checkouts measured in one interleaved run.

    python scripts/bench_overheads.py --before /path/to/old/.venv/bin/python --repeats 3

For each interpreter (``--before``: another checkout's virtualenv; ``--after``: this one's, by
default), run from a fresh temporary folder, so nothing is written into either checkout:

1. ``kmdr experiment=bzmd14_orl repeats=1 kmeans.init=k-means++``: the wall time of the command
   and the run's own reported time (the ``in X s`` of its last line), and their difference;
2. a multirun of 6 small jobs, ``kmdr -m dataset=orl,coil20 reducer=leverage,sign,svd
   r_grid=[5,10] repeats=1``: its wall time;
3. ``kmdr.run`` on 4 cells already computed, called twice in one Python process: the wall of
   each call (the second one must pay no start-up again).

The two interpreters take turns within each repetition (before, after, before, ...), so a load
that changes on a shared machine hits both alike; medians are printed. Needs the data mirror
(``KMDR_DATA_MIRROR``) for ORL and COIL20.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ORL = ["experiment=bzmd14_orl", "repeats=1", "kmeans.init=k-means++", "figures=false"]
MULTI = [
    "-m",
    "dataset=orl,coil20",
    "reducer=leverage,sign,svd",
    "r_grid=[5,10]",
    "repeats=1",
    "figures=false",
]
API = """
import json, sys, time
import kmdr
args = ("dataset=synth", "reducer=sign", "r_grid=[5,10]", "repeats=2", "figures=false")
walls = []
for _ in range(2):
    start = time.perf_counter()
    cells = kmdr.run(*args, results_dir=sys.argv[1])
    walls.append(time.perf_counter() - start)
    assert len(cells) == 4
print(json.dumps(walls))
"""
REPORTED = re.compile(r"\) in ([0-9.]+) s -> ")


def _run(cmd: list[str], cwd: str) -> tuple[float, str, str]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall, proc.stdout, proc.stderr


def orl(python: str) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        wall, out, err = _run([python, "-m", "kmdr.app", *ORL, f"results_dir={tmp}/r"], tmp)
    reported = [float(m) for m in REPORTED.findall(out + err)]
    return wall, reported[-1] if reported else float("nan")


def multirun(python: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        wall, _, _ = _run([python, "-m", "kmdr.app", *MULTI, f"results_dir={tmp}/r"], tmp)
    return wall


def api(python: str) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        # the 4 cells computed first, in a process of their own: then both calls reuse them
        _run([python, "-c", API, f"{tmp}/r"], tmp)
        _, out, _ = _run([python, "-c", API, f"{tmp}/r"], tmp)
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the other checkout's python")
    parser.add_argument("--after", default=sys.executable, help="this checkout's python")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", choices=("orl", "multirun", "api"), action="append")
    args = parser.parse_args(argv)
    if not os.environ.get("KMDR_DATA_MIRROR"):
        print("note: KMDR_DATA_MIRROR is not set; ORL and COIL20 must be in the cache")
    wanted = args.only or ["orl", "multirun", "api"]
    pythons = {"before": args.before, "after": args.after}
    got: dict = {(w, side): [] for w in wanted for side in pythons}
    for rep in range(args.repeats):
        for what in wanted:
            for side, python in pythons.items():
                value = {"orl": orl, "multirun": multirun, "api": api}[what](python)
                got[(what, side)].append(value)
                print(f"[{rep + 1}/{args.repeats}] {what} {side}: {value}", flush=True)
    print(f"\nmedians of {args.repeats} interleaved runs:")
    for side in pythons:
        parts = []
        if "orl" in wanted:
            walls = [w for w, _ in got[("orl", side)]]
            reported = [r for _, r in got[("orl", side)]]
            extra = [w - r for w, r in got[("orl", side)]]
            parts.append(
                f"ORL grid wall {statistics.median(walls):.1f} s, reported "
                f"{statistics.median(reported):.1f} s, outside the run "
                f"{statistics.median(extra):.1f} s"
            )
        if "multirun" in wanted:
            parts.append(f"6-job multirun {statistics.median(got[('multirun', side)]):.1f} s")
        if "api" in wanted:
            first = statistics.median(c[0] for c in got[("api", side)])
            second = statistics.median(c[1] for c in got[("api", side)])
            parts.append(f"kmdr.run on 4 done cells: 1st {first:.2f} s, 2nd {second:.2f} s")
        print(f"{side} ({Path(pythons[side])}): " + "; ".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
