"""Helpers shared by the benchmark scripts (imported from the scripts' own folder): timing, and
the Markdown tables they print."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from tabulate import tabulate


def median_time(fn: Callable[[], object], repeats: int) -> float:
    """Median wall-clock seconds of ``fn()`` over ``repeats`` calls, after one warm-up call."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def markdown(header: list[str], rows: list[list], align: str) -> str:
    """A Markdown table (tabulate's ``pipe`` format), cells as given; ``align`` holds one ``l``
    or ``r`` per column."""
    colalign = ["right" if a == "r" else "left" for a in align]
    return tabulate(rows, headers=header, tablefmt="pipe", colalign=colalign, disable_numparse=True)
