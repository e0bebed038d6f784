"""The report's subsection on bzmd14 Lemma 6: the singular values of V_kᵀ Ω S that
``python -m kmdr.papers.bzmd14.sampling_lemma`` wrote into ``theory/``, against the lemma's
bound, with a binomial test of the probability it promises."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy import stats

from kmdr.papers.bzmd14.sampling_lemma import LEMMA6_DELTA, lemma6_min_r
from kmdr.report import claims as C
from kmdr.report._text import md_table, read_optional_csv
from kmdr.report.experiments import public_text

__all__ = ["section_lemma"]


def section_lemma(root: Path) -> str:
    out = [
        "### The sampling lemma: singular values of V_kᵀ Ω S",
        "",
        "bzmd14 Lemma 6: for V (d × k) with orthonormal columns, 0 < δ < 1 and "
        "4k ln(2k/δ) < r ≤ d, "
        "r i.i.d. draws with p_i = ‖V_(i)‖²/k and rescaling 1/√(r p_i) give, w.p. ≥ 1 − δ, "
        "1 − eps ≤ σ_i²(Vᵀ Ω S) ≤ 1 + eps for all i, with eps = √(4k ln(2k/δ)/r) (bmd09 Lemma 1 "
        "states the same kind of bound with unspecified constants). Exact V_k, a grid of r, "
        "several seeds per r, δ = 0.1; written by `python -m kmdr.papers.bzmd14.sampling_lemma` "
        "into "
        "`theory/sampling_lemma.csv`.",
        "",
    ]
    table = read_optional_csv(root / "theory" / "sampling_lemma.csv")
    if table.empty:
        out.append("*No data*: `theory/sampling_lemma.csv` is missing (run `python -m "
                   "kmdr.papers.bzmd14.sampling_lemma --results DIR`).")  # fmt: skip
        return "\n".join(out)
    samplers = ", ".join(sorted(table["sampler"].astype(str).unique()))
    out += [f"Sampler used for the draws: {samplers}.", ""]
    if (root / "theory" / "sampling_lemma.png").exists():
        out += ["![sampling lemma](theory/sampling_lemma.png)", ""]
    rows = []
    verdicts = []
    for ds, g in table.groupby("dataset", sort=False):
        k, d = int(g["k"].iloc[0]), int(g["n_features"].iloc[0])
        rmin = lemma6_min_r(k)
        for r, gr in g.groupby("r"):
            applies = bool(gr["lemma6_applies"].iloc[0])
            frac = gr["within_bound"].astype(bool).mean()
            rows.append(
                [ds, k, d, r, f"{gr['sigma2_min'].median():.3f}",
                 f"{gr['sigma2_max'].median():.3f}",
                 f"{gr['eps_lemma6'].iloc[0]:.3f}", "yes" if applies else "no",
                 f"{frac:.0%} of {len(gr)}"]
            )  # fmt: skip
        app = g[g["lemma6_applies"].astype(bool)]
        if app.empty:
            verdicts.append(
                f"- {ds} (k = {k}, d = {d}): the lemma never applies (needs {rmin:.0f} < r ≤ {d})"
                + ("; this is an empty range." if rmin >= d else ".")
            )
        else:
            # the unit is the seed: a seed's draws at the r values where the lemma applies are
            # nested (one seed draws all of them), never independent. A seed counts as within
            # when all its draws are (an event no likelier than any one draw being within: if it
            # is significantly above 1 - δ, so is each draw's), and as outside when none is (no
            # likelier than any one draw being outside: if its share is significantly above δ,
            # so is a draw's failure); the other seeds count on neither side.
            by_seed = app.groupby("seed")["within_bound"].agg(lambda x: x.astype(bool).tolist())
            n = len(by_seed)
            all_in = int(sum(all(v) for v in by_seed))
            none_in = int(sum(not any(v) for v in by_seed))
            above = stats.binomtest(all_in, n, 1 - LEMMA6_DELTA, "greater")
            test = stats.binomtest(n - none_in, n, 1 - LEMMA6_DELTA, "less")
            if above.pvalue < C.ALPHA:
                word, shown = "holds", above
            elif test.pvalue < C.ALPHA:
                word, shown = "fails", test
            else:
                word = "not rejected (neither significantly above nor below the promise)"
                shown = above if all_in / n >= 1 - LEMMA6_DELTA else test
            side = "above" if shown is above else "below"
            draws = len(app)
            verdicts.append(
                f"- {ds} (k = {k}, d = {d}): where the lemma applies ({rmin:.0f} < r ≤ {d}), "
                f"{all_in} of {n} seeds have every σ_i² within 1 ± eps at each of their r "
                f"({app['within_bound'].astype(bool).mean():.0%} of the {draws} draws; the seed "
                f"is the unit, its draws over r are nested) (the lemma promises ≥ "
                f"{1 - LEMMA6_DELTA:.0%} per draw; one-sided binomial test on the seeds that the "
                f"share is {side} it, {C.p_text(shown.pvalue)}): **{word}**."
            )
    out += verdicts
    app = table[table["lemma6_applies"].astype(bool)]
    if len(app):
        dev = np.maximum(1 - app["sigma2_min"], app["sigma2_max"] - 1) / app["eps_lemma6"]
        out += [
            "",
            f"Where the lemma applies, the largest deviation max_i |σ_i² − 1| is {dev.max():.0%} "
            f"of eps(r) (median {dev.median():.0%}): "
            + (
                "the bound is loose at these r."
                if dev.max() < 0.5
                else "the bound is nearly tight."
            ),
        ]
    out += [
        "",
        "",
        "<details><summary>all r values (median over seeds)</summary>",
        "",
        md_table(
            ["dataset", "k", "d", "r", "σ²_min", "σ²_max", "eps(r)", "lemma applies",
             "draws within 1 ± eps"],
            rows,
        ),
        "",
        "</details>",
    ]  # fmt: skip
    skipped = read_optional_csv(root / "theory" / "sampling_lemma_skipped.csv")
    if len(skipped):
        out += [
            "",
            "Datasets skipped: "
            + "; ".join(
                f"{r.dataset} ({public_text(str(r.reason))})" for r in skipped.itertuples()
            ),
        ]
    return "\n".join(out)
