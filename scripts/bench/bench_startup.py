"""Start-up of ``kmdr``: the wall time of a dry run of a preset, against the interpreter's own.

    python scripts/bench/bench_startup.py              # kmdr experiment=bzmd14_orl dry_run=true
    python scripts/bench/bench_startup.py --repeats 7 --preset report_orl_projections

Each command runs as its own process (``--repeats`` times, median), so every import is paid as
a user pays it. Printed: the dry run's median wall time (and its fastest and slowest run: on a
shared machine the spread shows the load); the same for ``python -c pass`` and for importing
Hydra (the floor any Hydra app pays); the ratios of the dry run to that floor and to the 1.5 s
budget; how much of the dry run is importing (``python -X importtime``, all modules) and which
heavy modules (scikit-learn, scipy.stats, pandas, matplotlib) it imported, with their cumulative
import time.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

BUDGET_SECONDS = 1.5
HEAVY = ("sklearn", "scipy.stats", "pandas", "matplotlib")


def walls(cmd: list[str], repeats: int, env: dict) -> list[float]:
    """Wall seconds of ``cmd`` in each of ``repeats`` runs, after one warm-up run."""
    subprocess.run(cmd, env=env, capture_output=True, check=True)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(cmd, env=env, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return times


def wall(cmd: list[str], repeats: int, env: dict) -> float:
    """Median wall seconds of ``cmd`` over ``repeats`` runs, after one warm-up run."""
    return statistics.median(walls(cmd, repeats, env))


def imports(cmd: list[str], env: dict) -> tuple[float, dict[str, float]]:
    """Seconds ``cmd`` spent importing (the cumulative times of the modules imported at the top
    of the import tree), and the cumulative import seconds of each heavy module it imported."""
    proc = subprocess.run(
        [cmd[0], "-X", "importtime", *cmd[1:]], env=env, capture_output=True, text=True
    )
    total, heavy = 0.0, {}
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)$", line)
        if not m:
            continue
        seconds = int(m.group(1)) / 1e6
        if len(m.group(2)) == 1:  # one space: imported at the top, not by another import
            total += seconds
        if m.group(3) in HEAVY:
            heavy[m.group(3)] = seconds
    return total, heavy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="bzmd14_orl")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    py = sys.executable
    dry = [py, "-m", "kmdr.app", f"experiment={args.preset}", "dry_run=true"]
    floor = [py, "-c", "import hydra, omegaconf"]
    dry_times = walls(dry, args.repeats, env)
    t_dry = statistics.median(dry_times)
    t_python = wall([py, "-c", "pass"], args.repeats, env)
    t_floor = wall(floor, args.repeats, env)
    print(
        f"kmdr experiment={args.preset} dry_run=true: {t_dry:.2f} s (median of {args.repeats}; "
        f"fastest {min(dry_times):.2f} s, slowest {max(dry_times):.2f} s)"
    )
    print(f"python -c pass: {t_python:.2f} s; python -c 'import hydra, omegaconf': {t_floor:.2f} s")
    print(f"ratio dry run / Hydra floor: {t_dry / t_floor:.1f}")
    print(f"ratio dry run / {BUDGET_SECONDS} s budget: {t_dry / BUDGET_SECONDS:.2f}")
    t_import, heavy = imports(dry, env)
    print(f"of which importing modules: {t_import:.2f} s (python -X importtime)")
    listed = ", ".join(f"{k} {v:.2f} s" for k, v in heavy.items()) or "none"
    print(f"heavy modules the dry run imported (cumulative import time): {listed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
