"""What a user waits for beyond the computing, before and after: two checkouts in one run.

    python scripts/bench/bench_overheads.py --repeats 3          # baseline d52fa02 vs this checkout
    python scripts/bench/bench_overheads.py --repeats 1 --only dry_run

The baseline is commit :data:`BASELINE` (``--baseline-commit``) checked out as a git worktree of
this repository with a virtualenv of its own (made on first use by that commit's own ``make
install``, from its ``requirements/lock.txt``, and kept in ``--baseline-dir`` for the next run), or
the interpreter ``--before`` names (the commit its checkout holds is recorded); the current side is
this checkout's interpreter. Measured, each time in a fresh temporary results folder (nothing
is written into either checkout), with the data mirror of ``KMDR_DATA_MIRROR``:

``orl``
    ``kmdr experiment=bzmd14_orl repeats=1 kmeans.init=k-means++``: the wall of the command
    (and, recorded beside it, the run's own ``in X s``), and where the rest of the wall goes:
    ``orl_before_first_cell``, from the command's start to the start of its first cell, and
    ``orl_after_last_cell``, from the end of its last cell to the command's exit (the drawing,
    mostly). Both are read from the cells the run wrote: a cell starts ``total_seconds`` before
    its ``finished_at``. ``orl_outside_run``: the wall less the run's own ``in X s``, in each
    command (target: 1.5 s);
``multirun``
    ``kmdr -m dataset=orl,coil20 reducer=leverage,sign,svd``: six jobs, the wall of the command;
``api``
    ``kmdr.run`` on 4 cells already computed, the second call in one Python process (the first
    call's wall recorded beside it);
``dry_run``
    ``kmdr experiment=bzmd14_orl dry_run=true``: a preset's dry run (budget: 1.5 s);
``reused``
    ``kmdr experiment=bzmd14_orl reducer=sign repeats=2`` (the README's second run) once its 40
    cells are computed: the wall of the run that reuses them all (and, beside it, the first).

Baseline and current take turns within each repetition (baseline, current, baseline, ...), so a
load that changes on a shared machine hits both alike. Written to ``results/bench/overheads.csv``
(``--out``): one row per measure, with both medians, their ratio (current / baseline: below 1 is
faster), and the repetitions read as pairs: in how many the current side was slower, the ratios'
geometric mean with its 95% interval, and the p of a paired t-test on their logarithms (the sign
test's where they do not vary); then the repetitions, and the machine's load average at the start
and at the end of the run (the numbers of a loaded machine are not final).
"""

# The kmdr internals this bench needs, beyond the public API (kmdr.run, Session,
# kmdr.read_results), because it times or builds one step alone: kmdr.results.records.

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _timing import load_average  # scripts/bench/_timing.py (run as python scripts/...)

ROOT = Path(__file__).resolve().parents[2]
#: The commit the current checkout is measured against: main before the engine moved onto
#: joblib's backends and cells.csv onto pandas.
BASELINE = "d52fa02"
DRY_RUN_BUDGET = 1.5
#: The ORL grid's wall outside its reported run: the target.
OUTSIDE_TARGET = 1.5

ORL = ["experiment=bzmd14_orl", "repeats=1", "kmeans.init=k-means++"]
MULTI = ["-m", "dataset=orl,coil20", "reducer=leverage,sign,svd"]
DRY = ["experiment=bzmd14_orl", "dry_run=true"]
REUSED = ["experiment=bzmd14_orl", "reducer=sign", "repeats=2"]
API = """
import json, sys, time
import kmdr
args = ("dataset=synth", "reducer=sign", "r_grid=[5,10]", "repeats=2", "figures=false")
walls = []
for _ in range(2):
    start = time.perf_counter()
    cells = kmdr.run(*args, results_dir=sys.argv[1])
    walls.append(time.perf_counter() - start)
    assert len(cells) == 4, len(cells)
print(json.dumps(walls))
"""
REPORTED = re.compile(r"\) in ([0-9.]+) s -> ")
MEASURES = ("orl", "multirun", "api", "dry_run", "reused")


#: The environment of every measured command: Python's bytecode cache allowed, as on a user's
#: machine (a sandbox's PYTHONDONTWRITEBYTECODE=1 would recompile every module at each start,
#: some 0.7 s of a dry run's wall on 2 cores, the same for both checkouts).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run(cmd: list[str], cwd: str) -> tuple[float, str, str]:
    """Wall seconds of ``cmd``, its stdout and its stderr; exits naming a failure."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=ENV)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall, proc.stdout, proc.stderr


def _kmdr(python: str) -> list[str]:
    """The ``kmdr`` console script beside ``python`` (what a user types)."""
    return [str(Path(python).with_name("kmdr"))]


def orl(python: str) -> tuple[float, float, dict[str, float]]:
    with tempfile.TemporaryDirectory(prefix="kmdr-bench-") as tmp:
        started = time.time()
        wall, out, err = _run([*_kmdr(python), *ORL, f"results_dir={tmp}/r"], tmp)
        ended = time.time()
        first, last = _cells_span(Path(tmp) / "r" / "bzmd14_orl" / "cells.csv")
    reported = [float(m) for m in REPORTED.findall(out + err)]
    run = reported[-1] if reported else float("nan")
    parts = {
        "orl_before_first_cell": first - started,
        "orl_after_last_cell": ended - last,
        "orl_outside_run": wall - run,
    }
    return wall, run, parts


def _cells_span(path: Path) -> tuple[float, float]:
    """When the first of a run's cells started and the last one finished (Unix seconds): each
    row's ``finished_at`` less its ``total_seconds``, and its ``finished_at``."""
    from datetime import datetime

    from kmdr.results.records import read_table

    rows = read_table(path).to_dict("records")
    ends = [datetime.fromisoformat(row["finished_at"]).timestamp() for row in rows]
    starts = [end - float(row["total_seconds"]) for end, row in zip(ends, rows, strict=True)]
    return min(starts), max(ends)


def multirun(python: str) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="kmdr-bench-") as tmp:
        wall, out, err = _run([*_kmdr(python), *MULTI, f"results_dir={tmp}/r"], tmp)
    reported = [float(m) for m in REPORTED.findall(out + err)]
    return wall, sum(reported) if reported else float("nan")


def api(python: str) -> tuple[float, float]:
    """The second call's wall, and the first's."""
    with tempfile.TemporaryDirectory(prefix="kmdr-bench-") as tmp:
        # the 4 cells computed first, in a process of their own: then both calls reuse them
        _run([python, "-c", API, f"{tmp}/r"], tmp)
        _, out, _ = _run([python, "-c", API, f"{tmp}/r"], tmp)
    first, second = json.loads(out.strip().splitlines()[-1])
    return second, first


def dry_run(python: str) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="kmdr-bench-") as tmp:
        wall, _, _ = _run([*_kmdr(python), *DRY, f"results_dir={tmp}/r"], tmp)
    return wall, float("nan")


def reused(python: str) -> tuple[float, float]:
    """The wall of the run reusing every cell, and of the first that computed them."""
    with tempfile.TemporaryDirectory(prefix="kmdr-bench-") as tmp:
        first, _, _ = _run([*_kmdr(python), *REUSED, f"results_dir={tmp}/r"], tmp)
        second, _, _ = _run([*_kmdr(python), *REUSED, f"results_dir={tmp}/r"], tmp)
    return second, first


#: What each measure's second number is.
BESIDE = {
    "orl": "reported_s",
    "orl_before_first_cell": "",
    "orl_after_last_cell": "",
    "orl_outside_run": "",
    "multirun": "reported_s",
    "api": "first_call_s",
    "dry_run": "",
    "reused": "first_run_s",
}


def baseline_python(commit: str, folder: Path) -> str:
    """The interpreter of a worktree of ``commit`` in ``folder`` with its own virtualenv,
    made on first use (``git worktree add --detach``, then that commit's ``make install``)."""
    python = folder / ".venv" / "bin" / "python"
    if (folder / ".venv" / ".installed").exists():
        return str(python)
    if not folder.exists():
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(folder), commit],
            check=True,
        )
    subprocess.run(["make", "-C", str(folder), "install"], check=True)
    return str(python)


def checkout_commit(python: str) -> str:
    """The commit of the checkout whose ``.venv/bin/python`` is ``python`` (``?`` if none)."""
    folder = Path(python).absolute().parents[2]
    found = subprocess.run(
        ["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return found.stdout.strip() or "?"


def paired(baseline: list[float], current: list[float]) -> dict[str, str]:
    """The repetitions as pairs (each repetition measures both sides in turn): in how many the
    current side was slower, the geometric mean of the ratios with its 95% interval, and the
    two-sided p of a paired t-test on the log ratios (none below 2 pairs; with no spread, the
    sign test's exact p, which accounts for n)."""
    from scipy import stats

    logs = [math.log(c / b) for b, c in zip(baseline, current, strict=True)]
    n, slower = len(logs), sum(c > b for b, c in zip(baseline, current, strict=True))
    out = {"slower_in": f"{slower}/{n}", "ratio_gmean": "", "ratio_ci95": "", "p": ""}
    if n < 2:
        return out
    mean = statistics.fmean(logs)
    spread = statistics.stdev(logs)
    out["ratio_gmean"] = f"{math.exp(mean):.3f}"
    if spread == 0:
        out["p"] = f"{stats.binomtest(slower, n).pvalue:.3g}"
        return out
    half = stats.t.ppf(0.975, n - 1) * spread / math.sqrt(n)
    out["ratio_ci95"] = f"{math.exp(mean - half):.3f}-{math.exp(mean + half):.3f}"
    out["p"] = f"{stats.ttest_1samp(logs, 0.0).pvalue:.3g}"
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline-commit", default=BASELINE)
    parser.add_argument(
        "--baseline-dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / f"kmdr-baseline-{BASELINE}",
        help="where the baseline's worktree and virtualenv are (made if missing)",
    )
    parser.add_argument("--before", help="the baseline's python instead (no worktree made)")
    parser.add_argument("--after", default=sys.executable, help="this checkout's python")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", choices=MEASURES, action="append")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "bench" / "overheads.csv")
    args = parser.parse_args(argv)
    if not os.environ.get("KMDR_DATA_MIRROR"):
        print("note: KMDR_DATA_MIRROR is not set; ORL and COIL20 must be in the cache")
    before = args.before or baseline_python(args.baseline_commit, args.baseline_dir)
    baseline_commit = checkout_commit(before) if args.before else args.baseline_commit
    sides = {"baseline": before, "current": args.after}
    wanted = args.only or list(MEASURES)
    funcs = {"orl": orl, "multirun": multirun, "api": api, "dry_run": dry_run, "reused": reused}
    load_start = load_average()
    got: dict = {}  # (row, side) -> [(seconds, beside)], rows in the order first measured
    for rep in range(args.repeats):
        for what in wanted:
            for side, python in sides.items():
                wall, beside, *parts = funcs[what](python)  # parts: rows split from the wall
                got.setdefault((what, side), []).append((wall, beside))
                for part, seconds in (parts[0] if parts else {}).items():
                    got.setdefault((part, side), []).append((seconds, float("nan")))
                print(f"[{rep + 1}/{args.repeats}] {what} {side}: {wall:.2f} s", flush=True)
    load_end = load_average()
    rows = []
    for what in dict.fromkeys(row for row, _ in got):
        med = {side: statistics.median(v[0] for v in got[(what, side)]) for side in sides}
        beside = {side: statistics.median(v[1] for v in got[(what, side)]) for side in sides}
        pairs = list(zip(*(got[(what, side)] for side in sides), strict=True))
        rows.append(
            {
                "measure": what,
                "baseline_s": f"{med['baseline']:.3f}",
                "current_s": f"{med['current']:.3f}",
                "ratio": f"{med['current'] / med['baseline']:.3f}",
                **paired([b[0] for b, _ in pairs], [c[0] for _, c in pairs]),
                "beside": BESIDE[what],
                "baseline_beside": "" if not BESIDE[what] else f"{beside['baseline']:.3f}",
                "current_beside": "" if not BESIDE[what] else f"{beside['current']:.3f}",
                "repeats": args.repeats,
                "baseline_commit": baseline_commit,
                "load_start": load_start,
                "load_end": load_end,
            }
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"\nmedians of {args.repeats} interleaved runs (load {load_start} -> {load_end}):")
    for row in rows:
        print(
            f"{row['measure']:>21}: baseline {row['baseline_s']} s, current {row['current_s']} s, "
            f"ratio {row['ratio']} (slower in {row['slower_in']}, ratios' geometric mean "
            f"{row['ratio_gmean']} [{row['ratio_ci95']}], p {row['p']})"
        )
    if "dry_run" in wanted:
        current = float(next(r for r in rows if r["measure"] == "dry_run")["current_s"])
        verdict = "within" if current <= DRY_RUN_BUDGET else "over"
        print(f"dry run: {current:.2f} s, {verdict} the {DRY_RUN_BUDGET} s budget")
    if "orl" in wanted:
        current = float(next(r for r in rows if r["measure"] == "orl_outside_run")["current_s"])
        verdict = "within" if current <= OUTSIDE_TARGET else "over"
        print(f"ORL grid outside its run: {current:.2f} s, {verdict} the {OUTSIDE_TARGET} s target")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
