"""Schwiegelshohn and Sheikh-Omar (ESA 2022): an empirical evaluation of k-means coresets, with
kmdr's reducers in front.

Everything only this paper uses lives in this package and is declared in :data:`PAPER`: its
hard instance, the Benchmark (:mod:`.benchmark`, the dataset ``ss22_benchmark`` of
:mod:`.datasets`, and its own solutions, the family ``benchmark`` of
:mod:`kmdr.coresets.evaluation`), the authors' real datasets (Covertype, Census, Tower and
NYTimes, read from their files by :mod:`.datasets`), its presets (``conf/``, on the config
search path), the authors' numbers (:mod:`.published`), its report sections (:mod:`.sections`:
beside the authors, and reducers before coresets), claims and figure style.
The constructions, how a coreset is measured and the experiment kind of coreset cells are kmdr's
(:mod:`kmdr.coresets`, :mod:`kmdr.coresets.evaluation`, :mod:`kmdr.engine.coresets`).
"""

from __future__ import annotations

from kmdr.papers.ss22.datasets import BENCHMARK, BENCHMARK_EXACT, REAL
from kmdr.plugins import Deviation, Paper

__all__ = ["PAPER"]

PAPER = Paper(
    key="ss22",
    title="Schwiegelshohn, Sheikh-Omar. An Empirical Evaluation of k-Means Coresets. ESA 2022 "
    "(LIPIcs 244, paper 84)",
    citation="Schwiegelshohn, Sheikh-Omar, ESA 2022",
    solution_families={"benchmark": "kmdr.papers.ss22.benchmark:BENCHMARK_FAMILY"},
    datasets={"ss22_benchmark": BENCHMARK, "ss22_benchmark_exact": BENCHMARK_EXACT, **REAL},
    configs="kmdr.papers.ss22.conf",
    report_sections={
        "ss22_authors": "kmdr.papers.ss22.sections:AUTHORS",
        "ss22_reducers": "kmdr.papers.ss22.sections:REDUCERS",
    },
    claims="kmdr.papers.ss22.claims:ss22_claims",
    figure_styles={"ss22_reducers": "kmdr.papers.ss22.figures:REDUCERS"},
    deviations=(
        Deviation(
            40,
            "**ss22's evaluation**: kmdr measures the solutions the authors evaluate "
            "(`kmdr.coresets.evaluation`): five weighted k-means++ seedings of each coreset, "
            "with scikit-learn's `kmeans_plusplus` (one trial per center) in place of their C++ "
            "tool; five random points of the convex hull of a seeding and five about the "
            "coreset's minimum enclosing ball, on kmdr's offline datasets; and on the Benchmark "
            "its own solutions, the means of the clusters a coreset does not starve, which are "
            "the authors' only Benchmark numbers. The draws are NumPy's from each cell's seed. "
            "BICO is kmdr's port of the C++ code the authors ran, on the Benchmark in a preset "
            "of its own (`ss22_benchmark_bico`: one cell takes about 25 s); StreamKM++ is the "
            "authors' step (m weighted k-means++ seeds), on the Benchmark in a preset of its own "
            "(`ss22_benchmark_streamkm`: one cell takes about a minute). On the Benchmark, ties "
            "between equidistant points are broken as the authors' two code paths break them "
            "(the rough solution's tie rule, the seeding loop's arithmetic; see the section "
            "beside the authors), except in the evaluation's seedings, which are "
            "scikit-learn's.",
        ),
    ),
)
