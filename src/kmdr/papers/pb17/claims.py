"""pb17's claims (Pourkamali-Anaraki and Becker 2017, §VI), one :class:`~.verdicts.Claim` each.

On the accuracy-vs-γ experiments (``pb17_mnist``, and ``pb17_digits``, its stand-in): the accuracy
of sparsified k-means grows with γ and approaches that of k-means on all features, preconditioning
raises it, and the two-pass algorithm raises it further. On the large-N bench
(``results/bench/pb17_large_n.csv``, written by ``python -m kmdr.papers.pb17.bench_large_n``):
one-pass sparsified k-means on a streamed sketch is faster than standard k-means. Every comparison
is on the repetition as unit (:mod:`kmdr.report.claims`).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr.report.claims.checks import check_near_accuracy, check_trend
from kmdr.report.claims.rankings import check_faster_than_full, check_leads_accuracy
from kmdr.report.claims.verdicts import (
    NEAR_ACCURACY,
    NO_DATA,
    SIGNIFICANTLY,
    TREND_MARGIN,
    Claim,
    Part,
    Verdict,
)

__all__ = [
    "BENCH_COLUMNS",
    "BENCH_CSV",
    "LARGE_N_GAMMA",
    "PB17_EXPERIMENTS",
    "SPARSIFIED",
    "check_large_n",
    "check_near_largest_m",
    "pb17_claims",
]

PD, RAW, TWO = "PD", "PD (no precond.)", "PD 2-pass"
#: The sparsified k-means variants, as the reducers' declared labels name them.
SPARSIFIED = (PD, RAW, TWO)

#: experiment -> (dataset, its name in the statements, its largest m: γ = 0.3 of p, the note).
PB17_EXPERIMENTS = {
    "pb17_mnist": ("mnist", "MNIST digits 0, 3, 9", 235, ""),
    "pb17_digits": (
        "digits",
        "scikit-learn's digits 0, 3, 9 (MNIST stand-in)",
        19,
        "Stand-in for MNIST: scikit-learn's 8x8 digits 0, 3, 9 (541 x 64), NOT MNIST; a check "
        "of the methods' behaviour on small digit images, not a reproduction of the MNIST "
        "figure.",
    ),
}
_SIG = SIGNIFICANTLY  # the words of every comparison's test

#: The bench file the large-N claim reads (relative to the folder the report is built from).
BENCH_CSV = Path("results") / "bench" / "pb17_large_n.csv"
#: Its columns, one row per (n, method, repetition): ``method`` is ``kmeans`` (Lloyd on the data
#: held whole) or ``sparsified`` (one pass sketching each block as it arrives, then sparsified
#: k-means on the sketch); ``pass_seconds`` the time to generate (and, sparsified, sketch) the
#: blocks, ``cluster_seconds`` the clustering, ``seconds_per_iter`` the clustering time per
#: Lloyd iteration (assignment + update, the paper's timing), ``peak_mb`` the peak memory the
#: method added above the process's start.
BENCH_COLUMNS = (
    "n", "p", "k", "gamma", "m", "method", "repetition", "block_rows", "pass_seconds",
    "cluster_seconds", "n_iter", "seconds_per_iter", "total_seconds", "peak_mb", "accuracy",
)  # fmt: skip
#: The paper's large-N setting: γ = 0.05, 9,631,605 points of dimension 784 in 58 chunks.
LARGE_N_GAMMA = 0.05


def _claims(exp: str, ds: str, name: str, m_top: int, note: str) -> list[Claim]:
    common = {"paper": "pb17", "experiment": exp, "dataset": ds, "note": note}
    fig = "§VI Fig. (accuracy vs γ)"
    return [
        Claim(
            id=f"pb17-accuracy-grows-{ds}",
            figure=fig,
            source="§VI",
            statement=(
                f"On {name}, the assignment accuracy of sparsified k-means "
                f"({', '.join(SPARSIFIED)}) increases with γ = m/p: last-quarter mean P "
                f"{_SIG} and at least {TREND_MARGIN:.0%} above the first quarter, with "
                "Spearman ρ(m, P) > 0."
            ),
            check=partial(check_trend, methods=SPARSIFIED, metric="accuracy", direction=+1),
            **common,
        ),
        Claim(
            id=f"pb17-approaches-kmeans-{ds}",
            figure=fig,
            source="§VI",
            statement=(
                f"On {name}, sparsified k-means approaches k-means on all features as γ grows: "
                f"at the largest γ of the grid (0.3: m = {m_top}) the mean accuracy of {PD} and "
                f"of {TWO} is "
                f"{_SIG} no more than {NEAR_ACCURACY:g} below k-means' (one-sided)."
            ),
            check=partial(check_near_largest_m, methods=(PD, TWO)),
            **common,
        ),
        Claim(
            id=f"pb17-preconditioning-helps-{ds}",
            figure=fig,
            source="§VI",
            statement=(
                f"On {name}, preconditioning makes sparsified k-means more accurate: {PD}'s mean "
                f"P over the γ grid {_SIG} above that of {RAW}."
            ),
            check=partial(check_leads_accuracy, leader=PD, others=(RAW,)),
            **common,
        ),
        Claim(
            id=f"pb17-two-pass-helps-{ds}",
            figure="§VI Fig. (two-pass algorithm)",
            source="§VI",
            statement=(
                f"On {name}, the second pass over the data improves the accuracy: {TWO}'s mean P "
                f"over the γ grid {_SIG} above that of {PD} (one pass)."
            ),
            check=partial(check_leads_accuracy, leader=TWO, others=(PD,)),
            **common,
        ),
    ]


def check_near_largest_m(df: pd.DataFrame, methods) -> Part:
    """:func:`~kmdr.report.claims.checks.check_near_accuracy` at the largest m any of
    ``methods`` ran (the largest γ of the experiment's grid)."""
    rows = df[df["method"].isin(methods)] if "method" in df else df.iloc[:0]
    if rows.empty:
        return Part(no_data="none of the methods was run", missing=tuple(methods))
    return check_near_accuracy(df, methods=methods, r_targets=(int(rows["r"].max()),))


def _bench_cells(bench: pd.DataFrame) -> pd.DataFrame:
    """The bench rows as cells the ranking checks read: k-means as the no-reduction baseline,
    sparsified k-means as PD, one row per repetition (r = m)."""
    out = pd.DataFrame(
        {
            "method": np.where(bench["method"] == "kmeans", "kMeans", PD),
            "reducer_name": np.where(bench["method"] == "kmeans", "none", "sparsified"),
            "r": bench["m"].astype(int),
            "repetition": bench["repetition"].astype(int),
            "seconds_per_iter": bench["seconds_per_iter"].astype(float),
            "cluster_seconds": bench["cluster_seconds"].astype(float),
        }
    )
    out["is_baseline"] = out["reducer_name"] == "none"
    return out


def check_large_n(df: pd.DataFrame, path: Path | str = BENCH_CSV) -> Part | Verdict:
    """Sparsified k-means against standard k-means at the largest n the bench ran both: the time
    per Lloyd iteration and the whole clustering time, each repetition's as a ratio (on the log
    of the times), one Holm family. ``df`` (the experiment's cells) is not read: the evidence is
    the bench file at ``path``."""
    path = Path(path)
    if not path.is_file():
        return Verdict(
            NO_DATA,
            f"no data: {path} is missing (run python -m kmdr.papers.pb17.bench_large_n; at the "
            "paper's n = 10,000,000 it needs the chunked path's time and memory)",
        )
    bench = pd.read_csv(path)
    missing = [c for c in BENCH_COLUMNS if c not in bench.columns]
    if missing:
        return Verdict(NO_DATA, f"no data: {path} lacks the columns {missing}")
    both = bench.groupby("n")["method"].agg(lambda s: {"kmeans", "sparsified"} <= set(s))
    if not both.any():
        return Verdict(NO_DATA, f"no data: {path} has no n at which both methods ran")
    n = int(both[both].index.max())
    largest = int(bench["n"].max())
    at = bench[(bench["n"] == n) & (bench["gamma"] == bench.loc[bench["n"] == n, "gamma"].min())]
    cells = _bench_cells(at[at["method"].isin(["kmeans", "sparsified"])])
    per_iter = check_faster_than_full(cells, methods=(PD,), metric="seconds_per_iter")
    whole = check_faster_than_full(cells, methods=(PD,), metric="cluster_seconds")
    row = at.iloc[0]
    head = (
        f"bench at n = {n:,}, p = {int(row['p'])}, k = {int(row['k'])}, γ = {row['gamma']:g} "
        f"(m = {int(row['m'])}); sparsified k-means alone up to n = {largest:,}"
    )
    comps = tuple(
        replace(c, label=f"{title}: {c.label}")
        for title, part in (("per iteration", per_iter), ("clustering", whole))
        for c in part.comparisons
    )
    if not comps:
        return Verdict(NO_DATA, f"no data: {per_iter.no_data or 'no repetitions'} in {path}")
    return Part(comps, (), head)


def pb17_claims() -> list[Claim]:
    """pb17's claims, experiment by experiment, then the large-N bench, in report order."""
    claims = [c for exp, args in PB17_EXPERIMENTS.items() for c in _claims(exp, *args)]
    speedup = Claim(
        id="pb17-large-n-speedup",
        paper="pb17",
        figure="§VI Table (speed-up at N = 9,631,605)",
        source="§VI",
        statement=(
            "At large N, one-pass sparsified k-means (each block preconditioned and sparsified "
            f"as it arrives, γ = {LARGE_N_GAMMA:g}, only the sketch kept) clusters faster than "
            "standard k-means: at the largest n of the bench where both ran, the time per Lloyd "
            f"iteration and the whole clustering time are each {_SIG} lower (ratios of "
            "per-repetition times). The paper measured ×40.1 overall (×100 for the assignments, "
            "×26.4 for the center updates) at N = 9,631,605, p = 784."
        ),
        experiment="pb17_digits",
        dataset=None,
        check=check_large_n,
        note=(
            "Read from the bench file results/bench/pb17_large_n.csv (synthetic data streamed "
            "in seeded blocks by python -m kmdr.papers.pb17.bench_large_n), not from this "
            "experiment's cells."
        ),
    )
    return [*claims, speedup]
