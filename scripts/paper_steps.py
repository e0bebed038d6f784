"""Run what the papers declare besides their presets: their reproduction steps or their benches.

    python scripts/paper_steps.py --results results          # make reproduce, after the presets
    python scripts/paper_steps.py --quick --results results-quick
    python scripts/paper_steps.py --benches                  # make bench-papers

Each paper's :class:`kmdr.plugins.Paper` names modules: ``reproduce_steps`` (a theory check, say),
each run as ``python -m MODULE --results DIR`` (``--quick`` passed on), and ``benches``, each run
as ``python -m MODULE``; in the papers' order, each in its own process. A step that fails is
reported by its exit status and the others still run; the script exits with the first failure's
status. Installs nothing (the Makefile's targets do).
"""

from __future__ import annotations

import subprocess
import sys

from kmdr._errors import CommandParser


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="results", help="results folder (default: results)")
    parser.add_argument("--quick", action="store_true", help="the reduced grids")
    parser.add_argument("--benches", action="store_true", help="run the papers' benches instead")
    args = parser.parse_args(argv)
    from kmdr.plugins import papers

    status = 0
    for paper in papers():
        modules = paper.benches if args.benches else paper.reproduce_steps
        for module in modules:
            extra = [] if args.benches else ["--results", args.results]
            extra += ["--quick"] if args.quick and not args.benches else []
            done = subprocess.run([sys.executable, "-m", module, *extra], check=False)
            if done.returncode:
                print(f"{module} ({paper.key}) exited {done.returncode}", file=sys.stderr)
                status = status or done.returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
