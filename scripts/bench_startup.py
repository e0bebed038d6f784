"""Start-up of ``kmdr``: the wall time of a dry run of a preset, against the interpreter's own.

    python scripts/bench_startup.py              # kmdr experiment=bzmd14_orl dry_run=true
    python scripts/bench_startup.py --repeats 7 --preset report_orl_projections

Each command runs as its own process (``--repeats`` times, median), so every import is paid as
a user pays it. Printed: the dry run's median wall time; the same for ``python -c pass`` and for
importing Hydra (the floor any Hydra app pays); the ratios of the dry run to that floor and to the
1.5 s budget; and which heavy modules (scikit-learn, scipy.stats, pandas, matplotlib) the dry run
imported (``python -X importtime``, with their cumulative import time).
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


def wall(cmd: list[str], repeats: int, env: dict) -> float:
    """Median wall seconds of ``cmd`` over ``repeats`` runs, after one warm-up run."""
    subprocess.run(cmd, env=env, capture_output=True, check=True)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(cmd, env=env, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def heavy_imports(cmd: list[str], env: dict) -> dict[str, float]:
    """Cumulative import seconds of each heavy top-level module ``cmd`` imported."""
    proc = subprocess.run(
        [cmd[0], "-X", "importtime", *cmd[1:]], env=env, capture_output=True, text=True
    )
    out = {}
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \|\s*(\S+)$", line)
        if m and m.group(2) in HEAVY:
            out[m.group(2)] = int(m.group(1)) / 1e6
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="bzmd14_orl")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    py = sys.executable
    dry = [py, "-m", "kmdr.app", f"experiment={args.preset}", "dry_run=true"]
    floor = [py, "-c", "import hydra, omegaconf"]
    t_dry = wall(dry, args.repeats, env)
    t_python = wall([py, "-c", "pass"], args.repeats, env)
    t_floor = wall(floor, args.repeats, env)
    print(f"kmdr experiment={args.preset} dry_run=true: {t_dry:.2f} s (median of {args.repeats})")
    print(f"python -c pass: {t_python:.2f} s; python -c 'import hydra, omegaconf': {t_floor:.2f} s")
    print(f"ratio dry run / Hydra floor: {t_dry / t_floor:.1f}")
    print(f"ratio dry run / {BUDGET_SECONDS} s budget: {t_dry / BUDGET_SECONDS:.2f}")
    heavy = heavy_imports(dry, env)
    listed = ", ".join(f"{k} {v:.2f} s" for k, v in heavy.items()) or "none"
    print(f"heavy modules the dry run imported (cumulative import time): {listed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
