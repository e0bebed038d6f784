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
from kmdr.report.claims.rankings import check_faster_than_full, check_leads_accuracy, time_ratio
from kmdr.report.claims.significance import log_of, ratio_text, sample, table
from kmdr.report.claims.verdicts import (
    KMDRS,
    NEAR_ACCURACY,
    NO_DATA,
    SIGNIFICANTLY,
    TREND_MARGIN,
    Claim,
    Comparison,
    Part,
    Verdict,
)

__all__ = [
    "BENCH_COLUMNS",
    "BENCH_CSV",
    "LARGE_N_GAMMA",
    "PAPER_SPEEDUP",
    "PB17_EXPERIMENTS",
    "SPARSIFIED",
    "check_large_n",
    "check_large_n_memory",
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

#: The bench file the large-N claims read, in the results folder the report is built from.
BENCH_CSV = "bench/pb17_large_n.csv"
#: Its columns, one row per (n, method, repetition): ``method`` is ``kmeans`` (Lloyd on the data
#: held whole) or ``sparsified`` (one pass sketching each block as it arrives, then sparsified
#: k-means on the sketch); ``pass_seconds`` the time to generate (and, sparsified, sketch) the
#: blocks, ``cluster_seconds`` the clustering, ``seconds_per_iter`` the clustering time per
#: iteration (the k-means++ start included), ``start_seconds`` that start and
#: ``lloyd_seconds_per_iter`` the clustering time without it per iteration (assignment + update,
#: the paper's timing; both absent from bench files written before they were measured),
#: ``peak_mb`` the peak memory the method added above the process's start.
BENCH_COLUMNS = (
    "n", "p", "k", "gamma", "m", "method", "repetition", "block_rows", "pass_seconds",
    "cluster_seconds", "n_iter", "seconds_per_iter", "start_seconds", "lloyd_seconds_per_iter",
    "total_seconds", "peak_mb", "accuracy",
)  # fmt: skip
#: The columns a bench file written before the start was timed apart lacks.
_START_COLUMNS = ("start_seconds", "lloyd_seconds_per_iter")
#: The paper's large-N setting: γ = 0.05, 9,631,605 points of dimension 784 in 58 chunks.
LARGE_N_GAMMA = 0.05
#: The paper's speed-up there: finding the assignments and updating the centers together, per
#: Lloyd iteration, ×40.1 (×100 for the assignments alone, ×26.4 for the updates).
PAPER_SPEEDUP = 40.1


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
                f"{_SIG} and at least {TREND_MARGIN:.0%} ({KMDRS}) above the first quarter, with "
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
            **{c: bench[c].astype(float) for c in _TIMES if c in bench},
            "n_iter": bench["n_iter"].astype(float),
            "peak_mb": bench["peak_mb"].astype(float),
            "accuracy": bench["accuracy"].astype(float),
        }
    )
    out["is_baseline"] = out["reducer_name"] == "none"
    return out


#: The bench's times the claims read: per iteration (the paper's measure: Lloyd's iterations apart
#: from the start where the file has it), the start, the clustering, the run.
_TIMES = (
    "lloyd_seconds_per_iter", "seconds_per_iter", "start_seconds", "cluster_seconds",
    "total_seconds",
)  # fmt: skip


def _largest_with_both(path: Path) -> tuple[pd.DataFrame, str] | Verdict:
    """The bench rows at the largest n where both methods ran (at its smallest γ), as cells, and
    the evidence's opening; a no-data Verdict when the file cannot give them."""
    if not path.is_file():
        return Verdict(
            NO_DATA,
            f"no data: {BENCH_CSV} is missing from the results folder (run python -m "
            "kmdr.papers.pb17.bench_large_n; at the paper's n = 10,000,000 it needs the chunked "
            "path's time and memory)",
        )
    bench = pd.read_csv(path)
    missing = [c for c in BENCH_COLUMNS if c not in bench.columns and c not in _START_COLUMNS]
    if missing:
        return Verdict(NO_DATA, f"no data: {BENCH_CSV} lacks the columns {missing}")
    both = bench.groupby("n")["method"].agg(lambda s: {"kmeans", "sparsified"} <= set(s))
    if not both.any():
        return Verdict(NO_DATA, f"no data: {BENCH_CSV} has no n at which both methods ran")
    n = int(both[both].index.max())
    at = bench[(bench["n"] == n) & (bench["gamma"] == bench.loc[bench["n"] == n, "gamma"].min())]
    row = at.sort_values("m").iloc[0]  # the sketch's m, not k-means' (all p entries)
    largest = int(bench["n"].max())
    head = (
        f"bench at n = {n:,}, p = {int(row['p'])}, k = {int(row['k'])}, γ = {row['gamma']:g} "
        f"(m = {int(row['m'])})"
        + (f"; sparsified k-means alone up to n = {largest:,}" if largest > n else "")
    )
    return _bench_cells(at[at["method"].isin(["kmeans", "sparsified"])]), head


def _ratio(cells: pd.DataFrame, metric: str) -> float:
    """Sparsified k-means' mean ``metric`` over standard k-means'."""
    mean = cells.groupby("method")[metric].mean()
    return float(mean[PD] / mean["kMeans"])


def _start_share(cells: pd.DataFrame) -> str:
    """The k-means++ start's share of each method's clustering time (the mean start over the
    mean clustering), as the evidence states it: what a time per iteration with the start
    included would have added to Lloyd's."""
    mean = cells.groupby("method")[["start_seconds", "cluster_seconds"]].mean()
    share = mean["start_seconds"] / mean["cluster_seconds"]
    return f"{share[PD]:.0%} of {PD}'s clustering, {share['kMeans']:.0%} of kMeans'"


def check_large_n(df: pd.DataFrame, path: Path | str) -> Part | Verdict:
    """Sparsified k-means against standard k-means at the largest n the bench ran both, on the
    paper's measure: the time per Lloyd iteration (finding the assignments and updating the
    centers), each repetition's as a ratio (on the log of the times). For the claim when
    significantly lower by at least the paper's ×40.1; short when lower by less. The whole
    clustering's and the whole run's ratios are given beside it (sparsified k-means takes more
    iterations, and both read the data once). ``df`` (the experiment's cells) is not read: the
    evidence is the bench file at ``path``."""
    found = _largest_with_both(Path(path))
    if isinstance(found, Verdict):
        return found
    cells, head = found
    apart = "lloyd_seconds_per_iter" in cells and cells["lloyd_seconds_per_iter"].notna().all()
    metric = "lloyd_seconds_per_iter" if apart else "seconds_per_iter"
    part = check_faster_than_full(cells, methods=(PD,), metric=metric)
    if not part.comparisons:
        return Verdict(NO_DATA, f"no data: {part.no_data or 'no repetitions'} in {BENCH_CSV}")
    ratio = _ratio(cells, metric)
    short = (
        f"{1 / ratio:.3g} times faster per iteration, the paper's {PAPER_SPEEDUP:g}"
        if 1 / ratio < PAPER_SPEEDUP
        else ""
    )
    what = "per Lloyd iteration" if apart else "per iteration, start included"
    comps = tuple(
        replace(c, label=f"{what}: {c.label}", short=c.short or short) for c in part.comparisons
    )
    iters = cells.groupby("method")["n_iter"].mean() if "n_iter" in cells else None
    accuracy = cells.groupby("method")["accuracy"].mean()
    measured = (
        f"Lloyd's iterations timed apart from the k-means++ start (the start: "
        f"{_start_share(cells)}; {PD}'s ×{_ratio(cells, 'start_seconds'):.3g} of kMeans')"
        if apart
        else "the time per iteration includes the k-means++ start: this bench file predates "
        "the start's separate timing (rerun the bench to measure Lloyd's iterations apart)"
    )
    beside = (
        f"{measured}; accuracy {PD} {accuracy[PD]:.3f}, kMeans {accuracy['kMeans']:.3f}; whole "
        f"clustering ×{_ratio(cells, 'cluster_seconds'):.3g}, whole run (the pass over the data "
        f"and the clustering) ×{_ratio(cells, 'total_seconds'):.3g}"
    )
    if iters is not None:
        beside += f" ({iters[PD]:.3g} iterations against {iters['kMeans']:.3g})"
    return Part(comps, (), f"{head}; {beside}")


def check_large_n_memory(df: pd.DataFrame, path: Path | str) -> Part | Verdict:
    """The peak memory of one-pass sparsified k-means (the sketch and its clustering) against
    standard k-means' (the whole matrix and its clustering) at the largest n the bench ran
    both, each repetition's as a ratio (on the log of the peaks)."""
    found = _largest_with_both(Path(path))
    if isinstance(found, Verdict):
        return found
    cells, head = found
    base, mine = (sample(table(cells, method, "peak_mb")) for method in ("kMeans", PD))
    if log_of(base) is None or log_of(mine) is None:
        return Verdict(NO_DATA, f"no data: {BENCH_CSV} has no positive peak of both methods")
    t, _ = time_ratio(mine, base)  # a ratio of peaks is tested as one of times: on their log
    mean = cells.groupby("method")["peak_mb"].mean()
    text = (
        f"{mean[PD] / 1024:.3g} GiB against {mean['kMeans'] / 1024:.3g} GiB "
        f"(×{mean[PD] / mean['kMeans']:.3g}, {ratio_text(t)})"
    )
    return Part((Comparison(f"peak memory: {PD}", text, t.p, t.diff < 0, test=t),), (), head)


#: The bench file of the authors' code run under Octave (``scripts/bench/bench_pb17_authors.py``).
AUTHORS_CSV = "bench/pb17_authors_octave.csv"
#: kmdr's equivalence margin in accuracy between kmdr's reading of the authors' rules and their
#: code (the paper states none).
AUTHORS_MARGIN = 0.05
#: The preset's method of each (preconditioner, passes) of the bench file.
_AUTHORS_METHOD = {("hadamard", 1): PD, ("none", 1): RAW, ("hadamard", 2): TWO}


def check_matches_authors_code(df: pd.DataFrame, path: Path | str) -> Part | Verdict:
    """Each (preconditioner, m, passes) of the authors' code under Octave against the same
    method of this preset's own cells (its repetitions at r = m): two one-sided Welch tests
    that the mean accuracies differ by less than :data:`AUTHORS_MARGIN` (TOST, from the bench
    file's mean, sd and trials), for the claim when both reject; a setting the preset does not
    run is listed as not run."""
    from scipy import stats

    if not Path(path).is_file():
        return Verdict(NO_DATA, f"no data: {AUTHORS_CSV} is missing")
    table_ = pd.read_csv(path)
    theirs = table_[table_["implementation"].astype(str).str.startswith("authors' code")]
    comps, missing = [], []
    for row in theirs.itertuples():
        method = _AUTHORS_METHOD.get((str(row.preconditioner), int(row.passes)))
        label = f"{row.preconditioner}, m = {int(row.m)}, {int(row.passes)} pass(es)"
        ours = sample(table(df, method, "accuracy"), [int(row.m)]) if method else None
        if ours is None:
            missing.append(f"{label} (not in the preset)")
            continue
        m1, s1, n1 = ours.mean, ours.sd, ours.n
        m2, s2, n2 = float(row.accuracy_mean), float(row.accuracy_sd), int(row.trials)
        diff = m1 - m2
        with np.errstate(all="ignore"):
            low = stats.ttest_ind_from_stats(
                m1 + AUTHORS_MARGIN, s1, n1, m2, s2, n2, equal_var=False, alternative="greater"
            ).pvalue
            high = stats.ttest_ind_from_stats(
                m1 - AUTHORS_MARGIN, s1, n1, m2, s2, n2, equal_var=False, alternative="less"
            ).pvalue
        p = float(max(low, high))
        if not np.isfinite(p):  # neither side varies: the difference is exact
            p = 0.0 if abs(diff) < AUTHORS_MARGIN else 1.0
        inside = abs(diff) < AUTHORS_MARGIN
        text = (f"{method} {m1:.3f} (n = {n1}) vs their code {m2:.3f} (n = {n2}), Δ = {diff:+.3f}, "
                f"TOST at ±{AUTHORS_MARGIN:g}")  # fmt: skip
        comps.append(Comparison(label, text, p, inside))
    head = (
        f"margin ±{AUTHORS_MARGIN:g} in accuracy ({KMDRS}), the preset's own cells against "
        f"{AUTHORS_CSV}"
    )
    return Part(tuple(comps), tuple(missing), head=head)


def pb17_claims() -> list[Claim]:
    """pb17's claims, experiment by experiment, then the large-N bench, in report order."""
    claims = [c for exp, args in PB17_EXPERIMENTS.items() for c in _claims(exp, *args)]
    bench = {
        "paper": "pb17",
        "source": "§VI",
        "experiment": "pb17_digits",
        "dataset": None,
        "reads": BENCH_CSV,
        "note": (
            f"Read from the bench file {BENCH_CSV} of the results folder (synthetic data streamed "
            "in seeded blocks by python -m kmdr.papers.pb17.bench_large_n), not from this "
            "experiment's cells."
        ),
    }
    speedup = Claim(
        id="pb17-large-n-speedup",
        figure="§VI Table (speed-up at N = 9,631,605)",
        statement=(
            "At large N, one-pass sparsified k-means (each block preconditioned and sparsified "
            f"as it arrives, γ = {LARGE_N_GAMMA:g}, only the sketch kept) finds the assignments "
            "and updates the centers much faster than standard k-means: at the largest n of "
            f"the bench where both ran, its time per Lloyd iteration (apart from the k-means++ "
            "start where the bench file times it apart; the evidence says which) is "
            f"{_SIG} lower (ratios of per-repetition times), by the paper's "
            f"×{PAPER_SPEEDUP:g} (its measure: the "
            "assignments and the center updates together, ×100 and ×26.4 apart, at "
            "N = 9,631,605, p = 784); short of that size, it holds partly. The whole "
            "clustering's and the whole run's ratios, and both methods' accuracy, are given "
            "beside it."
        ),
        check=check_large_n,
        **bench,
    )
    authors = Claim(
        id="pb17-matches-authors-code",
        paper="pb17",
        source="SparsifiedKMeans 2.1 (the authors' code)",
        figure="§VI accuracy vs γ (the authors' code)",
        statement=(
            "kmdr's reading of the authors' rules (PD, PD (no precond.), PD 2-pass of this "
            "preset) gives the accuracy of the authors' own code run under Octave on the same "
            "matrix: at each m, preconditioner and number of passes of the bench file, the two "
            f"mean accuracies {_SIG} within ±{AUTHORS_MARGIN:g} of each other (two one-sided "
            f"Welch tests, TOST; {KMDRS})."
        ),
        experiment="pb17_digits",
        dataset=None,  # the bench ran on the stand-in's matrix: no claim about MNIST
        check=check_matches_authors_code,
        reads=AUTHORS_CSV,
    )
    memory = Claim(
        id="pb17-large-n-memory",
        figure="§VI (one pass over blocks, only the sketch kept)",
        statement=(
            "At large N, one-pass sparsified k-means needs far less memory than standard "
            "k-means, since it keeps only the sketch (m = γp values and their positions per "
            "row) where k-means holds the whole matrix: at the largest n of the bench where "
            f"both ran, its peak memory is {_SIG} lower (ratios of per-repetition peaks)."
        ),
        check=check_large_n_memory,
        **bench,
    )
    return [*claims, authors, speedup, memory]
