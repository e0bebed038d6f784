"""The theory section's "How few dimensions suffice": the measured distortion of every oblivious
map's partition against r, beside the shape of the bound of Makarychev, Makarychev and
Razenshteyn (STOC 2019) and the r bzmd14's Theorem 12 would ask.

The distortion of a cell is ``|cost_C(P) / cost_A(P) - 1|`` for the partition P the cell found
on C, on the unnormalised k-means costs (``scripts/distortion.py`` recomputes ||C||² from each
cell's seed and writes ``theory/distortion.csv``; this module reads it and draws
``theory/distortion.png``). MMR19 prove that r = O(log(k/ε)/ε²) dimensions of a random
(sub-Gaussian) projection preserve the cost of every partition within 1 ± ε, whatever n and d;
read as a curve, ε ≈ sqrt(c·log(k/ε)/r), with a constant c the theorem does not give, so it is
fitted here (least squares on log ε of the per-(dataset, method, r) means) and stated.

Three claims (:data:`CLAIMS`), each judged by the report's one rule
(:func:`kmdr.report.claims.verdicts.decide`, one number per repetition): the distortion falls at
least as fast as r^(-1/2) (each repetition's least-squares slope of log ε on log r at most
-1/2 + :data:`SLOPE_TOLERANCE`); at a fixed k it does not depend on d (on the same 400 ORL faces,
k = 40, at d = 4096 and d = 10304 the sign projection's per-repetition c, the c that puts MMR19's
curve through its measured ε averaged on the log scale over r, agrees within a factor
:data:`C_TOLERANCE`); and k alone sets it (the c of the smallest and the largest k of the bzmd14
datasets agree within that factor: other data, so what differs besides k differs too).
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr.report import theory as T
from kmdr.report._text import md_table, read_optional_csv
from kmdr.report.claims.significance import Sample, effect_text, margin_test
from kmdr.report.claims.verdicts import Comparison, Part, decide

__all__ = [
    "CSV",
    "FIGURE",
    "c_through",
    "claim_parts",
    "draw_distortion",
    "fit_c",
    "mmr_eps",
    "section_distortion",
    "slopes",
]

CSV = "theory/distortion.csv"
FIGURE = "theory/distortion.png"
#: How far a repetition's slope of log ε on log r may lie from MMR19's -1/2.
SLOPE_TOLERANCE = 0.25
#: The factor within which two per-repetition c must agree for "the same shape".
C_TOLERANCE = 2.0
#: The ε at which the r bzmd14's Theorem 12 asks is also quoted (the value of its experiments).
EPS_REFERENCE = T.EPS_EXPERIMENTS
CITATION = (
    "K. Makarychev, Y. Makarychev, I. Razenshteyn, *Performance of Johnson-Lindenstrauss "
    "Transform for k-Means and k-Medians Clustering*, STOC 2019"
)


def mmr_eps(r: float, k: int, c: float) -> float:
    """The ε of MMR19's shape: the root of ε²·r = c·log(k/ε) in (0, k)."""
    from scipy.optimize import brentq

    return float(brentq(lambda e: e * e * r - c * math.log(k / e), 1e-12, float(k)))


def c_through(eps, r, k) -> np.ndarray:
    """The c that puts MMR19's curve through each measured (ε, r, k): ε²·r / log(k/ε)."""
    eps, r, k = (np.asarray(a, dtype=float) for a in (eps, r, k))
    return eps**2 * r / np.log(k / eps)


def _means(table: pd.DataFrame) -> pd.DataFrame:
    keys = ["dataset", "experiment", "method", "n_clusters", "n_features", "r"]
    return table.groupby(keys, as_index=False)["distortion"].agg(["mean", "std", "count"])


def fit_c(table: pd.DataFrame) -> float:
    """The c of MMR19's shape fitted to the per-(dataset, method, r) mean distortions: least
    squares on log ε (scipy's bounded scalar minimiser on log c)."""
    from scipy.optimize import minimize_scalar

    means = _means(table)
    means = means[means["mean"] > 0]
    logs = np.log(means["mean"].to_numpy())

    def loss(log_c: float) -> float:
        c = math.exp(log_c)
        fit = [mmr_eps(r, k, c) for r, k in zip(means["r"], means["n_clusters"], strict=True)]
        return float(np.sum((logs - np.log(fit)) ** 2))

    return math.exp(minimize_scalar(loss, bounds=(-15.0, 10.0), method="bounded").x)


def slopes(table: pd.DataFrame) -> pd.DataFrame:
    """Each (experiment, method, repetition)'s least-squares slope of log ε on log r."""
    rows = []
    for (exp, method, rep), part in table.groupby(["experiment", "method", "repetition"]):
        part = part[part["distortion"] > 0]
        if part["r"].nunique() < 3:
            continue
        slope = np.polyfit(np.log(part["r"]), np.log(part["distortion"]), 1)[0]
        rows.append({"experiment": exp, "method": method, "repetition": rep, "slope": slope})
    return pd.DataFrame(rows, columns=["experiment", "method", "repetition", "slope"])


def _c_sample(table: pd.DataFrame, experiment: str, method: str, grid) -> Sample | None:
    """Per repetition, the mean over ``grid`` of log c (the c through each cell)."""
    part = table[(table["experiment"] == experiment) & (table["method"] == method)]
    part = part[part["r"].isin(grid) & (part["distortion"] > 0)]
    if part.empty:
        return None
    logc = np.log(c_through(part["distortion"], part["r"], part["n_clusters"]))
    per_rep = pd.Series(logc, index=part["repetition"].to_numpy()).groupby(level=0).mean()
    return Sample(per_rep.to_numpy(), tuple(per_rep.index))


def _c_comparison(table: pd.DataFrame, label: str, a: tuple, b: tuple) -> Comparison | None:
    """Whether the per-repetition c of (experiment, method) ``a`` and ``b`` agree within
    :data:`C_TOLERANCE` (two one-sided tests on log c, Welch: the seeds differ)."""
    grid = sorted(
        set(table.loc[(table["experiment"] == a[0]) & (table["method"] == a[1]), "r"])
        & set(table.loc[(table["experiment"] == b[0]) & (table["method"] == b[1]), "r"])
    )
    sa, sb = _c_sample(table, *a, grid), _c_sample(table, *b, grid)
    if sa is None or sb is None:
        return None
    bound = math.log(C_TOLERANCE)
    inside, t = margin_test(sa, sb, -bound, bound)
    text = (
        f"c of {a[0]} {a[1]} / c of {b[0]} {b[1]} = ×{math.exp(t.diff):.3g} over r "
        f"{grid[0]}..{grid[-1]} (within ×{C_TOLERANCE:g} claimed; {effect_text(t)} on log c)"
    )
    return Comparison(label, text, t.p, inside, test=replace_log(t))


def replace_log(t):
    from dataclasses import replace

    return replace(t, log=True)


#: The three claims of the section: (title, statement), in the order of :func:`claim_parts`.
CLAIMS = (
    (
        "falls at least as fast as MMR19's shape",
        "each repetition's least-squares slope of log ε on log r is at most −1/2 + "
        f"{SLOPE_TOLERANCE:g} (one-sided test per (experiment, method))",
    ),
    (
        "at a fixed k, does not depend on d",
        f"on the same faces at two d, the c through the measured ε agrees within ×{C_TOLERANCE:g} "
        "(two one-sided tests on log c)",
    ),
    (
        "k alone sets it (one c for every dataset)",
        f"the c of the smallest and of the largest k agree within ×{C_TOLERANCE:g} (other data: "
        "what differs besides k differs too)",
    ),
)


def claim_parts(table: pd.DataFrame) -> tuple[Part, Part, Part]:
    """The comparisons of the three :data:`CLAIMS`: each (experiment, method)'s slope; the c at
    two d for one k; the c at the smallest and the largest k."""
    slopes_part = []
    per = slopes(table)
    for (exp, method), part in per.groupby(["experiment", "method"], sort=True):
        s = Sample(part["slope"].to_numpy() + 0.5, tuple(part["repetition"]))
        inside, t = margin_test(s, None, -math.inf, SLOPE_TOLERANCE)
        text = (
            f"slope of log ε on log r = {part['slope'].mean():+.3f} (at most "
            f"{SLOPE_TOLERANCE - 0.5:+g} claimed; n = {len(part)})"
        )
        slopes_part.append(Comparison(f"{exp} {method}", text, t.p, inside, test=t))
    d_part, k_part = [], []
    for label, a, b in _c_pairs(table):
        c = _c_comparison(table, label, a, b)
        if c is not None:
            (d_part if label.startswith("d:") else k_part).append(c)
    return Part(tuple(slopes_part)), Part(tuple(d_part)), Part(tuple(k_part))


def _c_pairs(table: pd.DataFrame) -> list[tuple[str, tuple, tuple]]:
    """The (label, (experiment, method), (experiment, method)) of the c checks: the same ORL
    faces at two d (k = 40), and the smallest against the largest k of the sign projection."""
    sign = table[table["reducer_name"] == "sign"]
    orl = sign[sign["n_clusters"] == 40]
    bz = sign[sign["experiment"].str.startswith("bzmd14_")]
    pairs = [
        _extremes(orl, "n_features", "d: {lo} vs {hi} at k = 40 (RP)"),
        _extremes(bz, "n_clusters", "k: {lo} vs {hi} (RP, other data)"),
    ]
    return [pair for pair in pairs if pair is not None]


def _extremes(cells: pd.DataFrame, column: str, label: str) -> tuple[str, tuple, tuple] | None:
    """The experiments of ``cells`` with the smallest and the largest ``column`` (ties by name),
    as a c check's (label, (experiment, method), (experiment, method)); None when it has one
    value."""
    ordered = cells.drop_duplicates("experiment").sort_values([column, "experiment"])
    if ordered[column].nunique() < 2:
        return None
    lo, hi = ordered.iloc[0], ordered.iloc[-1]
    return (
        label.format(lo=lo[column], hi=hi[column]),
        (lo["experiment"], lo["method"]),
        (hi["experiment"], hi["method"]),
    )


# --------------------------------------------------------------------------------------------
# The figure
# --------------------------------------------------------------------------------------------


def draw_distortion(root: str | Path) -> Path:
    """Draw ``<root>/theory/distortion.png`` from ``<root>/theory/distortion.csv``: one panel
    per dataset, the mean distortion (± sd over the repetitions) of each (experiment, method)
    against r, MMR19's shape with the fitted c at the dataset's k, and the r Theorem 12 asks."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kmdr._io import atomic_write_bytes
    from kmdr.figures import appearance

    root = Path(root)
    table = read_optional_csv(root / CSV)
    c = fit_c(table)
    means = _means(table)
    datasets = list(dict.fromkeys(means.sort_values(["n_clusters", "dataset"])["dataset"]))
    ncols = min(4, len(datasets))
    nrows = math.ceil(len(datasets) / ncols)
    lines = table[["reducer_name", "method"]].drop_duplicates().sort_values("method")
    styles = appearance.styles_for(lines.itertuples(index=False))
    name_of = dict(zip(lines["method"], lines["reducer_name"], strict=False))
    with plt.rc_context(appearance.RC):
        fig, axes = plt.subplots(nrows, ncols, figsize=(3.6 * ncols, 3.2 * nrows), squeeze=False)
        for ax, dataset in zip(axes.flat, datasets, strict=False):
            own = means[means["dataset"] == dataset]
            k, d = int(own["n_clusters"].iloc[0]), int(own["n_features"].iloc[0])
            experiments = sorted(own["experiment"].unique())
            for (exp, method), part in own.groupby(["experiment", "method"], sort=True):
                style = styles[(name_of[method], method)]
                dash = ("-", ":", "-.")[experiments.index(exp) % 3]  # which run, in one panel
                ax.errorbar(
                    part["r"],
                    part["mean"],
                    yerr=part["std"].fillna(0),
                    marker=style.marker or "o",
                    ls=dash,
                    color=style.color,
                    ms=3,
                    lw=0.9,
                    label=f"{method} ({exp})" if len(experiments) > 1 else method,
                )
            grid = np.geomspace(own["r"].min(), own["r"].max(), 40)
            ax.plot(
                grid,
                [mmr_eps(r, k, c) for r in grid],
                "k--",
                lw=1.6,
                label=f"MMR19 shape, c = {c:.3g}",
            )
            ax.set_xscale("log")
            ax.set_yscale("log")
            r12 = _r_thm12(k, EPS_REFERENCE)
            title = f"{appearance.dataset_label(dataset)}: k = {k}, d = {d}"
            ax.set_title(title + (f"\nThm 12 asks r ≥ {r12:.2g} at ε = 1/3" if r12 else ""))
            ax.set_xlabel("r")
            ax.set_ylabel("|cost_C(P)/cost_A(P) − 1|")
            ax.legend(
                fontsize=6, frameon=False, title=f"k = {k}", title_fontsize=7, loc="lower left"
            )
        for ax in list(axes.flat)[len(datasets) :]:
            ax.set_visible(False)
        fig.suptitle("Distortion of the partition each oblivious-map cell found, against r")
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", bbox_inches="tight", dpi=110, metadata={})
        plt.close(fig)
    path = root / FIGURE
    atomic_write_bytes(path, buffer.getvalue())
    return path


def _r_thm12(k: int, eps: float) -> float | None:
    """The r bzmd14's Theorem 12 asks (None when no paper registers the theorem)."""
    for bound in T.bounds():
        if bound.key == "bzmd14-thm12" and bound.r_required is not None:
            return float(bound.r_required(k, eps))
    return None


# --------------------------------------------------------------------------------------------
# The section
# --------------------------------------------------------------------------------------------


def section_distortion(root: Path) -> str:
    """The theory subsection (empty when ``theory/distortion.csv`` is absent)."""
    from kmdr.report._text import VERDICT_MARK

    table = read_optional_csv(root / CSV)
    if table.empty:
        return ""
    c = fit_c(table)
    cover = float(
        np.quantile(c_through(table["distortion"], table["r"], table["n_clusters"]), 0.95)
    )
    reproduced = table["reproduced"].dropna().astype(bool)
    verdicts = [decide(part) for part in claim_parts(table)]
    per = slopes(table)
    median = float(np.median(per["slope"]))
    out = [
        "### How few dimensions suffice",
        "",
        f"{CITATION} prove that r = O(log(k/ε)/ε²) dimensions of a random projection preserve "
        "the k-means cost of every partition within 1 ± ε, with high probability, whatever n and "
        "d. bzmd14's Theorem 12 asks r = c₂k/ε² with c₂ = 3330·15² instead, millions of "
        "dimensions for our k. What the committed cells show: for each cell of an oblivious map "
        "(RP and its variants, SE, SRHT) the distortion |cost_C(P)/cost_A(P) − 1| of the "
        "partition P it found, on the unnormalised costs (the cell's F on A and on C times "
        "||A||² and ||C||², ||C||² recomputed from the cell's seed by `scripts/distortion.py`: "
        f"{len(table)} cells; the first cell of each of {len(reproduced)} (experiment, method) "
        f"was computed again whole and {int(reproduced.sum())} reproduced its F on C). "
        "Measured: only the partitions found, not every partition, so these are lower bounds on "
        "the distortion the theorem bounds; MMR19's proof covers the sub-Gaussian maps (RP "
        "sign, Gaussian, Achlioptas); SE and SRHT are drawn beside them. The dashed line is "
        f"MMR19's shape ε = sqrt(c·log(k/ε)/r) with c fitted to every mean: c = {c:.3g}; a c "
        f"of {cover:.3g} puts 95% of the cells under the curve.",
        "",
        f"![Distortion against r]({FIGURE})",
        "",
        md_table(
            [
                "dataset",
                "k",
                "d",
                "methods",
                "cells",
                "ε at largest r (mean)",
                "largest r",
                "MMR19 r at that ε (fitted c)",
                "Thm 12 r at that ε",
            ],
            _rows(table, c),
        ),
        "",
        f"Measured slopes of log ε on log r: median {median:+.2f} over the {len(per)} "
        "repetitions (MMR19's shape: about −1/2, a little flatter for its log factor): the "
        f"distortion of the partitions found {_pace(median)}.",
        "",
        md_table(
            ["claim (what the data show)", "tested as", "verdict", "evidence"],
            [
                [title, how, VERDICT_MARK[v.verdict], v.evidence]
                for (title, how), v in zip(CLAIMS, verdicts, strict=True)
            ],
        ),
    ]
    return "\n".join(out)


def _pace(slope: float) -> str:
    """How a median slope compares with MMR19's -1/2, in words."""
    if slope < -0.5 - SLOPE_TOLERANCE:
        return "falls faster than the bound's shape, which is an upper envelope of the curves here"
    if slope > -0.5 + SLOPE_TOLERANCE:
        return "falls slower than the bound's shape"
    return "falls like the bound's shape"


def _rows(table: pd.DataFrame, c: float) -> list[list[str]]:
    rows = []
    for dataset, part in table.groupby("dataset", sort=False):
        k, d = int(part["n_clusters"].iloc[0]), int(part["n_features"].iloc[0])
        r_max = int(part["r"].max())
        eps = float(part.loc[part["r"] == r_max, "distortion"].mean())
        r12 = _r_thm12(k, eps)
        mmr = c * math.log(k / eps) / eps**2
        rows.append(
            [
                dataset,
                str(k),
                str(d),
                ", ".join(sorted(part["method"].unique())),
                str(len(part)),
                f"{eps:.3g}",
                str(r_max),
                f"{mmr:.3g}",
                "—" if r12 is None else f"{r12:.3g}",
            ]
        )
    return sorted(rows, key=lambda row: (int(row[1]), row[0]))
