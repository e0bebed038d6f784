"""Draganov, Saulpic and Schwiegelshohn (SIGMOD 2024): how fast a coreset can be built, and what
speed costs in accuracy; its Fast-Coresets reduce the columns (a Johnson-Lindenstrauss
projection) before they reduce the rows.

Everything only this paper uses lives in this package and is declared in :data:`PAPER`. Its
constructions are kmdr's estimators (:mod:`kmdr.coresets`: Fast-kmeans++ in compiled code,
Fast-Coresets, welterweight coresets and the authors' "StreamKM++", named ``fast_streamkm`` apart
from ss22's), registered here. Its datasets (:mod:`.datasets`): the synthetic ones of its
text, generated from a seed (:mod:`.generators`), and its real ones, read from the files kmdr
pins. The authors' code is public (the repository Andrew-Draganov/Fast-Coreset-Generation);
where it does not do what the text says, kmdr runs the text's method and names the code's
beside it.
"""

from __future__ import annotations

from kmdr.papers.dss24.datasets import REAL, SYNTHETIC
from kmdr.plugins import Paper

__all__ = ["PAPER"]

PAPER = Paper(
    key="dss24",
    title="Draganov, Saulpic, Schwiegelshohn. Settling Time vs. Accuracy Tradeoffs for Clustering "
    "Big Data. SIGMOD 2024 (arXiv 2404.01936)",
    citation="Draganov, Saulpic, Schwiegelshohn, SIGMOD 2024",
    coresets={
        "fast_coreset": "kmdr.coresets._fast_coreset:FastCoreset",
        "welterweight": "kmdr.coresets._fast_coreset:WelterweightCoreset",
        "fast_streamkm": "kmdr.coresets._fast_streamkm:FastStreamKM",
        # the authors' code where it differs from the text: their numbers' constructions
        "fast_coreset_code": "kmdr.coresets._fast_coreset_code:FastCoresetCode",
        "welterweight_code": "kmdr.coresets._fast_coreset_code:WelterweightCoresetCode",
    },
    datasets={**SYNTHETIC, **REAL},
    solution_families={
        "coreset_solution": "kmdr.papers.dss24.evaluation:CORESET_SOLUTION",
        "code_means": "kmdr.papers.dss24.evaluation:CODE_MEANS",
    },
    reproduce_steps=("kmdr.papers.dss24.code_vs_text",),
    configs="kmdr.papers.dss24.conf",
    report_sections={"dss24_authors": "kmdr.papers.dss24.sections:AUTHORS"},
    benches=("kmdr.papers.dss24.bench_growth",),
    bench_tables={
        "dss24_growth": "kmdr.papers.dss24.bench_growth:table",
        "dss24_log_delta": "kmdr.papers.dss24.bench_growth:log_delta_table",
    },
)
