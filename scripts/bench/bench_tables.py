"""Write the guides' tables of bench results from the CSVs they cite, so a number in the docs is
the CSV's.

    python scripts/bench/bench_tables.py            # rewrite each marked table from results/bench/
    python scripts/bench/bench_tables.py --check    # exit 1 if a table differs from its CSV

A table of a guide lies between ``<!-- bench-table: NAME -->`` and ``<!-- end bench-table -->``;
:func:`tables` makes each NAME from its CSV: this script's own benches' tables, and those each
paper declares beside its benches (:class:`kmdr.plugins.Paper`'s ``bench_tables``). A guide's
prose quotes these tables, not the CSVs: tests/test_bench_tables.py checks the few numbers the
prose repeats. ``make bench-scale``, ``make bench-distributed`` and ``make bench-papers``
rewrite the CSVs, then run this.
"""

# The kmdr internals this bench needs, beyond the public API (kmdr.run, Session,
# kmdr.read_results), because it times or builds one step alone: kmdr.report._text.

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from kmdr.plugins import import_target, papers
from kmdr.report._text import md_table

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "results" / "bench"
GUIDES = (ROOT / "docs" / "guide" / "scaling.md", ROOT / "docs" / "guide" / "benchmarks.md")
_BLOCK = re.compile(r"(<!-- bench-table: (\w+) -->\n)(.*?)(<!-- end bench-table -->)", re.S)


def _mib(x: float) -> str:
    return f"{x:,.0f} MiB"


def _gib(x: float) -> str:
    return f"{x / 1024:.3g} GiB"


def distributed() -> str:
    """One row per cell of ``make bench-distributed`` (the chunked side at each n): each step's
    wall, k-means' iterations and each process's peak over the whole cell (the workers'
    highest, the driver's)."""
    df = pd.read_csv(BENCH / "distributed.csv")
    rows = []
    names = {"sparse_embedding": "sparse embedding", "sign": "sign"}
    for side in ("chunked", "in_memory"):
        for n in sorted(df[df.side == side].n_samples.unique()):
            for reducer in ("sparse_embedding", "sign"):
                cell = df[(df.side == side) & (df.reducer == reducer) & (df.n_samples == n)]
                if cell.empty:
                    continue
                steps = ("reduce", "cluster", "score", "cell")
                wall = {s: cell.loc[cell.step == s, "wall_s"].iloc[0] for s in steps}
                whole = cell[cell.step == "cell"]
                if side == "chunked":
                    workers = whole[whole.process.str.startswith("worker")]
                    driver = whole[whole.process == "driver"]["peak_mib"].max()
                    peak = (
                        f"workers {_mib(workers.peak_mib.max())} of "
                        f"{_mib(workers.limit_mib.max())}, driver {_mib(driver)}"
                    )
                    what = f"{names[reducer]}, chunked"
                else:
                    peak = _mib(whole.peak_mib.max())
                    what = f"{names[reducer]}, one process"
                iterations = cell["n_iter"].iloc[0] if "n_iter" in cell else float("nan")
                rows.append([what, f"{int(n):,}",
                             *(f"{wall[s]:.1f} s" for s in ("reduce", "cluster", "score", "cell")),
                             "" if pd.isna(iterations) else f"{int(iterations)}",
                             peak])  # fmt: skip
    header = [
        "cell",
        "rows",
        "reduce",
        "k-means",
        "score F",
        "whole cell",
        "k-means iterations",
        "peak memory",
    ]
    return md_table(header, rows, "lrrrrrrl")


def scale() -> str:
    """``make bench-scale`` at 100,000 rows and at RCV1-v2's size, with their ratio."""
    df = pd.read_csv(BENCH / "scale.csv")
    sizes = (100_000, int(df.n.max()))

    def at(n, step, reducer=None):
        rows = df[(df.n == n) & (df.step == step)]
        rows = rows if reducer is None else rows[rows.reducer == reducer]
        return rows.iloc[0]

    def cells(n):
        out = [f"{at(n, 'generate').seconds:.1f} s"]
        for red in ("sparse_embedding", "sign"):
            steps = [at(n, s, red).seconds for s in ("reduce", "cluster", "score")]
            out.append(" / ".join(f"{t:.1f}" for t in steps) + " s")
        for red in ("sparse_embedding", "sign"):
            run = at(n, "run n_jobs=1", red)
            memory = _gib(run.peak_mib) if run.peak_mib >= 1024 else _mib(run.peak_mib)
            out.append(f"{run.seconds:.1f} s, {memory}")
        return out

    def ratio(get):
        return f"{get(sizes[1]) / get(sizes[0]):.1f}x"

    ratios = [ratio(lambda n: at(n, "generate").seconds)]
    for red in ("sparse_embedding", "sign"):
        ratios.append(" / ".join(ratio(lambda n, s=s, red=red: at(n, s, red).seconds)
                                 for s in ("reduce", "cluster", "score")))  # fmt: skip
    ratios += [ratio(lambda n, r=r: at(n, "run n_jobs=1", r).seconds)
               for r in ("sparse_embedding", "sign")]  # fmt: skip
    header = ["n", "generate", "SE reduce / cluster / score", "RP reduce / cluster / score",
              "`kmdr ... n_jobs=1`, SE", "same, RP"]  # fmt: skip
    rows = [[f"{n:,}", *cells(n)] for n in sizes] + [["ratio", *ratios]]
    return md_table(header, rows, "lrrrrr")


#: The tables of this script's own benches, by the name a guide's marker gives.
OWN_TABLES: dict[str, Callable[[], str]] = {"distributed": distributed, "scale": scale}


def tables() -> dict[str, Callable[[], str]]:
    """Each table a guide may hold, by the name its marker gives: this script's own, then the
    papers' (each made from ``results/bench``)."""
    found = dict(OWN_TABLES)
    for paper in papers():
        for name, target in paper.bench_tables.items():
            make = import_target(target) if isinstance(target, str) else target
            found[name] = lambda make=make: make(BENCH)
    return found


def rewritten(text: str) -> str:
    """``text`` with every marked table made again from its CSV."""
    made = tables()
    return _BLOCK.sub(lambda m: m.group(1) + made[m.group(2)]() + "\n" + m.group(4), text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a table is out of date")
    args = parser.parse_args(argv)
    stale = []
    for guide in GUIDES:
        text = guide.read_text(encoding="utf-8")
        new = rewritten(text)
        if new != text:
            stale.append(guide.relative_to(ROOT))
            if not args.check:
                guide.write_text(new, encoding="utf-8")
    if args.check and stale:
        print(
            f"tables differ from results/bench/ in {', '.join(map(str, stale))}: run python "
            "scripts/bench/bench_tables.py",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
