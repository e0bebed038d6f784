"""The report's theory section: the theorems and the r they need, the empirical approximation
ratios beside their bounds, and the sampling lemma."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy import stats

from kmdr.report import claims as C
from kmdr.report import theory as T
from kmdr.report._text import md_table, number, read_optional_csv
from kmdr.report.experiments import Experiment, public_text
from kmdr.results.summary import is_baseline

__all__ = ["section_lemma", "section_ratios", "section_theory"]


def _ratio_r_values(rs: list[int], k: int) -> list[int]:
    picks = [x for x in (k, 10, 20, 50, 100, 300, 1000) if x in rs]
    if not picks:
        picks = rs
    return sorted(set([*picks, rs[0], rs[-1]]))


def section_theory(root: Path, exps: dict[str, Experiment]) -> str:
    eps = T.EPS_EXPERIMENTS
    out = [
        "## Theory",
        "",
        "### The theorems and the r they need",
        "",
        "Each theorem bounds F(partition found by a γ-approximate k-means on C) by a factor times "
        "F_opt on A, with some probability, when r meets its requirement. Factors are quoted at "
        "γ = 1 and ε = 1/3 (the value bzmd14's experiments use); Lloyd's algorithm with restarts "
        "carries no worst-case γ, so these are reference values, not guarantees for our runs.",
        "",
    ]
    rows = []
    for b in T.BOUNDS:
        rows.append(
            [b.title, ", ".join(b.methods), b.factor_text, number(b.factor(eps, 1.0), 3), b.r_text,
             b.probability, b.notes]
        )  # fmt: skip
    out.append(
        md_table(
            ["theorem", "our method", "factor", "at γ = 1, ε = 1/3", "r required", "probability",
             "notes"],
            rows,
        )
    )  # fmt: skip
    ks = sorted(
        {int(k) for e in exps.values() if e.has_cells for k in e.cells["n_clusters"].unique()}
    )
    max_r = max(
        (int(e.cells.loc[~is_baseline(e.cells), "r"].max()) for e in exps.values()
         if e.has_cells and (~is_baseline(e.cells)).any()),
        default=0,
    )  # fmt: skip
    if ks:
        need = [
            [str(k), f"{T._r_thm11(k, eps):.3g}", f"{T._r_thm12(k, eps):.3g}", str(k),
             f"{T.lemma6_min_r(k):.0f}"]
            for k in ks
        ]  # fmt: skip
        out += [
            "",
            f"The r these requirements give at ε = 1/3 for our k. Our largest r is {max_r}, so "
            "Theorems 11 and 12 do not formally apply to any of our runs; Theorem 13 and the "
            "exact-SVD result apply only at r = k; bmd09 Theorem 1 and lst17 Theorem 1 hide "
            "their constants, so whether they apply cannot be decided:",
            "",
            md_table(
                ["k", "Thm 11: c₁·4k ln(200k)/ε²", "Thm 12: c₂k/ε²", "Thm 13: r = k",
                 "Lemma 6: 4k ln(2k/δ), δ = 0.1"],
                need,
            ),
        ]  # fmt: skip
    out += ["", section_ratios(exps)]
    out += ["", section_lemma(root)]
    return "\n".join(out)


def _g(x: float) -> str:
    """A ratio or γ̂ in 3 significant digits (they span 1 to 1e7)."""
    return "—" if x is None or not np.isfinite(x) else f"{x:.3g}"


def _cell(ratio: float, gamma: float, defined: bool = True) -> str:
    if not defined:  # no k-means run on C: γ̂ has no meaning, no bound is judged
        return _g(ratio)
    mark = "" if np.isfinite(gamma) and gamma <= T.GAMMA_LARGE else " †"
    return f"{_g(ratio)} (γ̂ {_g(gamma)}){mark}"


def _bound_text(b: T.Bound, gm, rs: list[int], k: int) -> str:
    """The bound, where r meets its requirement, and there whether the estimated γ lets it be
    judged and whether the ratio is within it."""
    eps = T.EPS_EXPERIMENTS
    head = f"{b.key} ({b.factor(eps, 1.0):.3g} at γ = 1)"
    # only the r this method has (a partial sweep may lack some)
    applies = [r for r in rs if r in set(gm["r"]) and T.bound_applies(b, r, k) == "yes"]
    if not applies:
        return f"{head}: {_applies_summary(b, rs, k)}"
    verdicts = []
    by_r = gm.set_index("r")
    for r in applies:
        ratio, gamma = by_r.loc[r, "ratio_max"], by_r.loc[r, "gamma_at_worst"]
        judged = T.bound_at_gamma(b, gamma)
        if judged[0].isdigit():
            # ratio and γ̂ both understate their true values: neither side is conclusive
            within = (
                "below it (not a confirmation: the ratio estimate is a lower one)"
                if ratio <= b.factor(eps, gamma)
                else "**above it** (γ̂ understates γ too: a warning, not a proof)"
            )
            verdicts.append(f"r = {r}: factor {judged} at γ̂, ratio estimate {_g(ratio)} {within}")
        else:
            verdicts.append(f"r = {r}: {judged}")
    return f"{head}: " + "; ".join(verdicts)


def section_ratios(exps: dict[str, Experiment]) -> str:
    """The empirical approximation ratio per experiment, setting and dataset, with γ̂."""
    out = [
        "### Empirical approximation ratio",
        "",
        "ratio = F(partition found on C) / F(best partition of A known), where the denominator is "
        "the lowest F found by *any* cell of that dataset and setting (any method, r and "
        "repetition, kMeans on A included), so no ratio is below 1. Because that best known F is "
        "≥ F_opt, the ratio is a *lower* estimate of F / F_opt: it can only understate the true "
        "ratio, so a ratio below a theorem's factor does not confirm the bound (no upper "
        "estimate is possible from these files: it would need a lower bound on F_opt). Each "
        "cell shows the worst "
        "repetition and, beside it, γ̂: the k-means run's own approximation factor on the "
        "reduced data, estimated as its F on C (`objective_reduced`) over the lowest F on C of "
        "the same method and r (for randomized reducers each repetition has its own C, so γ̂ "
        "also carries that variation; with one repetition it is unknown). The theorems bound F "
        "for a γ-approximate k-means on C, so a bound is judged only at an r that meets its "
        f"requirement and where γ̂ ≤ {T.GAMMA_LARGE:g}; † marks γ̂ unknown or > "
        f"{T.GAMMA_LARGE:g}: there a large ratio is Lloyd's local optimum (a bad start kept), "
        "not a failure of the reduction, and no bound can apply. γ̂ is shown only where it is "
        "defined: not for a method that clusters its own output (PD's sparsified k-means is "
        "no k-means run on C).",
    ]
    any_ratio = False
    for name, e in exps.items():
        if not e.has_cells or "objective" not in e.cells:
            continue
        ratios = T.approximation_ratios(e.cells)
        if ratios.empty:
            continue
        any_ratio = True
        for (setting, ds), g in ratios.groupby(["setting", "dataset"], sort=True):
            base = g[g["baseline"]]
            g = g[~g["baseline"]]
            if g.empty:
                continue
            k = int(g["k"].iloc[0])
            rs = sorted(g["r"].unique())
            pick = _ratio_r_values(rs, k)
            rows = []
            for method, gm in g.groupby("method"):
                by_r = gm.set_index("r")
                defined = bool(gm["gamma_defined"].all())
                cells = [
                    _cell(by_r.loc[r, "ratio_max"], by_r.loc[r, "gamma_at_worst"], defined)
                    if r in by_r.index
                    else "—"
                    for r in pick
                ]
                btxt = "; ".join(_bound_text(b, gm, rs, k) for b in T.bounds_for(method))
                rows.append([method, *cells, _g(gm["ratio_max"].max()), btxt or "no theorem"])
            g = g.assign(gamma_defined=g["gamma_defined"].astype(bool))
            large = g[g["gamma_defined"] & ~(g["gamma_at_worst"] <= T.GAMMA_LARGE)]
            label = f"{ds}, {setting}" if setting else ds
            base_txt = ""
            if len(base):
                bb = base.iloc[0]
                base_txt = (
                    f"; kMeans on A: worst ratio {_g(bb['ratio_max'])} "
                    f"(γ̂ {_g(bb['gamma_at_worst'])})"
                )
            out += [
                "",
                f"**`{name}` / {label}** (k = {k}; best F known = {g['f_best'].iloc[0]:.4g}, "
                f"found by {g['f_best_method'].iloc[0]}{base_txt}"
                + (", partial sweep" if e.incomplete else "")
                + ")",
                "",
                md_table(
                    [
                        "method",
                        *(f"r = {r}" for r in pick),
                        "max over r",
                        "bound (where r meets it: judged at γ̂)",
                    ],
                    rows,
                ),
            ]
            if len(large):
                out += [
                    "",
                    f"γ̂ is unknown or above {T.GAMMA_LARGE:g} for {len(large)} of the "
                    f"{int(g['gamma_defined'].sum())} "
                    f"(method, r) points (largest γ̂ {_g(g['gamma_at_worst'].max())}): there the "
                    "worst repetition's ratio is dominated by a k-means local optimum on C, and "
                    "no theorem's bound can be judged.",
                ]
    if not any_ratio:
        out += ["", "*No data*: no experiment has cells with an objective."]
    return "\n".join(out)


def _applies_summary(b: T.Bound, rs: list[int], k: int) -> str:
    flags = [T.bound_applies(b, r, k) for r in rs]
    yes = [r for r, f in zip(rs, flags, strict=True) if f == "yes"]
    if yes:
        return "applies at r = " + ", ".join(map(str, yes))
    if not flags:
        return "—"
    last = flags[-1]
    if last.startswith("no ("):
        return "does not apply: " + last[4:-1]
    return last.replace("unknown (", "undecidable: ").rstrip(")")


def section_lemma(root: Path) -> str:
    out = [
        "### The sampling lemma: singular values of V_kᵀ Ω S",
        "",
        "bzmd14 Lemma 6: for V (d × k) with orthonormal columns, 0 < δ < 1 and "
        "4k ln(2k/δ) < r ≤ d, "
        "r i.i.d. draws with p_i = ‖V_(i)‖²/k and rescaling 1/√(r p_i) give, w.p. ≥ 1 − δ, "
        "1 − eps ≤ σ_i²(Vᵀ Ω S) ≤ 1 + eps for all i, with eps = √(4k ln(2k/δ)/r) (bmd09 Lemma 1 "
        "states the same kind of bound with unspecified constants). Exact V_k, a grid of r, "
        "several seeds per r, δ = 0.1; written by `python -m kmdr.report.theory` into "
        "`theory/sampling_lemma.csv`.",
        "",
    ]
    table = read_optional_csv(root / "theory" / "sampling_lemma.csv")
    if table.empty:
        out.append("*No data*: `theory/sampling_lemma.csv` is missing (run `python -m "
                   "kmdr.report.theory --results DIR`).")  # fmt: skip
        return "\n".join(out)
    samplers = ", ".join(sorted(table["sampler"].astype(str).unique()))
    out += [f"Sampler used for the draws: {samplers}.", ""]
    if (root / "theory" / "sampling_lemma.png").exists():
        out += ["![sampling lemma](theory/sampling_lemma.png)", ""]
    rows = []
    verdicts = []
    for ds, g in table.groupby("dataset", sort=False):
        k, d = int(g["k"].iloc[0]), int(g["n_features"].iloc[0])
        rmin = T.lemma6_min_r(k)
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
            within = app["within_bound"].astype(bool)
            frac = within.mean()
            # a finite number of draws: the lemma fails only if a one-sided binomial test
            # rejects "probability >= 1 - δ" (the report's α), not on a fraction below it
            test = stats.binomtest(int(within.sum()), len(within), 1 - T.LEMMA6_DELTA, "less")
            if frac >= 1 - T.LEMMA6_DELTA:
                word = "holds"
            elif test.pvalue < C.ALPHA:
                word = "fails"
            else:
                word = "not refuted (below the promise, within the draws' noise)"
            verdicts.append(
                f"- {ds} (k = {k}, d = {d}): where the lemma applies ({rmin:.0f} < r ≤ {d}), "
                f"{frac:.0%} of the {len(within)} draws have every σ_i² within 1 ± eps (the lemma "
                f"promises ≥ {1 - T.LEMMA6_DELTA:.0%}; binomial test of that promise, one-sided, "
                f"{C.p_text(test.pvalue)}): **{word}**."
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
