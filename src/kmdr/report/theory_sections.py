"""The report's theory section: the registered theorems and the r they need, the empirical
approximation ratios beside their bounds, then the papers' own theory subsections (bzmd14's
sampling lemma)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kmdr.report import theory as T
from kmdr.report._text import md_table, number
from kmdr.report.experiments import Experiment
from kmdr.results.reading import is_baseline

__all__ = ["section_ratios", "section_theory"]


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
    parts = T.theory_parts()
    for b in T.bounds():
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
    requirements = [q for part in parts for q in part.requirements]
    if ks and requirements:
        need = [[str(k), *(q.value(k, eps) for q in requirements)] for k in ks]
        notes = [part.requirements_note.format(max_r=max_r) for part in parts]
        out += [
            "",
            " ".join(filter(None, notes)),
            "",
            md_table(["k", *(q.header for q in requirements)], need),
        ]
    out += ["", section_ratios(exps)]
    for section in (section for part in parts for section in part.sections):
        out += ["", section(root)]
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
