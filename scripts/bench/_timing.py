"""Helpers shared by the benchmark scripts (imported from the scripts' own folder): timing, the
machine's load and a process's peak memory beside it, and the Markdown tables they print."""

from __future__ import annotations

import os
import resource
import statistics
import sys
import time
from collections.abc import Callable


def median_time(fn: Callable[[], object], repeats: int) -> float:
    """Median wall-clock seconds of ``fn()`` over ``repeats`` calls, after one warm-up call."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, and the number of cores (a bench's numbers on a
    loaded machine are not final: every bench records this beside them)."""
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} / {os.cpu_count()} cores"


def maxrss_mib() -> float:
    """This process's peak resident memory since it started, in MiB."""
    # ru_maxrss is in KiB on Linux (bytes on macOS)
    scale = 1.0 if sys.platform == "darwin" else 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20


def markdown(header: list[str], rows: list[list], align: str) -> str:
    """A Markdown table (tabulate's ``pipe`` format), cells as given; ``align`` holds one ``l``
    or ``r`` per column."""
    from tabulate import tabulate  # here: a bench's child process imports this module too

    colalign = ["right" if a == "r" else "left" for a in align]
    return tabulate(rows, headers=header, tablefmt="pipe", colalign=colalign, disable_numparse=True)
