"""The theory section's "How few dimensions suffice": how far an oblivious map distorts the
k-means cost of a partition, against r, beside the shape of the bound of Makarychev, Makarychev
and Razenshteyn (STOC 2019) and the r bzmd14's Theorem 12 would ask.

The distortion of a partition P under a cell's C is ``|cost_C(P) / cost_A(P) - 1|`` on the
unnormalised k-means costs. Two measurements, both written by ``scripts/distortion.py`` (which
makes each cell's C again from its seed):

* **fixed partitions** (``theory/distortion_fixed.csv``, one row per computation: cells of
  several experiments that share a seed are one C and one row): partitions chosen before the map
  is drawn, k-means' on A, perturbations of it and random partitions of its cluster sizes. Their
  distortion is the map's, and the section's claims are judged on it: per cell, the largest
  distortion over these partitions (:func:`fixed_eps`).
* **the partition the cell found** (``theory/distortion.csv``): Lloyd chose it on C, so its cost
  on C is fitted to C (it lies below its cost on A in nearly every cell): its distortion mixes
  the map with k-means' optimism. It is shown as its own, labelled line, never tested as the
  map's.

MMR19 prove that r = O(log(k/ε)/ε²) dimensions preserve the cost of every partition within
1 ± ε; read as a curve, ε = sqrt(c·log(k/ε)/r) with a constant c the theorem does not give. Its
slope in log-log, -L/(2L + 1) with L = log(k/ε), lies within δ = 1/(2(2L + 1)) of -1/2
(:func:`slope_margin`): that is the margin of the equivalence test of the measured slope. A c is
only shown as a description of the measured cloud, fitted on the even repetitions and checked on
the odd ones (:func:`held_out_c`), never drawn as a bound.

The claims (:data:`CLAIMS`), each judged by the report's one rule
(:func:`kmdr.report.claims.verdicts.decide`, one number per repetition): per (dataset, map) the
slope of log ε on log r is -1/2 within δ (two one-sided tests); the same pooled over every
independent repetition; at one k the c through the measured ε does not depend on d; and k alone
sets it (every pair of datasets with different k under one map has the same c within
:data:`C_TOLERANCE`, two one-sided tests on log c).
"""

from __future__ import annotations

import io
import math
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr.report import theory as T
from kmdr.report._text import md_table, read_optional_csv
from kmdr.report.claims.verdicts import ALPHA, Comparison, Part, decide
from kmdr.stats import (
    Pool,
    Sample,
    Test,
    effect_text,
    margin_test,
    random_effects,
    t_half_width,
    t_interval,
)

__all__ = [
    "CSV",
    "FIGURE",
    "FIXED_CSV",
    "c_through",
    "claim_parts",
    "draw_distortion",
    "fit_c",
    "fixed_eps",
    "held_out_c",
    "mmr_eps",
    "section_distortion",
    "slope_margin",
    "slopes",
]

CSV = "theory/distortion.csv"
#: The distortion of partitions fixed before the map is drawn, one row per computation.
FIXED_CSV = "theory/distortion_fixed.csv"
FIGURE = "theory/distortion.png"
#: The factor within which two per-repetition c must agree for "the same c" (kmdr's margin: a
#: factor 2 in c is a factor 1.41 in ε at the same r).
C_TOLERANCE = 2.0
#: The ε at which the r bzmd14's Theorem 12 asks is also quoted (the value of its experiments).
EPS_REFERENCE = T.EPS_EXPERIMENTS
#: The kinds of fixed partition (the column prefixes of :data:`FIXED_CSV`) and their names.
KINDS = {
    "kmeans_A": "k-means on A",
    "perturbed": "perturbed",
    "random": "random",
}
#: The groups of the fixed partitions: one map on one dataset, whatever experiments ran it.
FIXED_GROUP = ["dataset", "reducer_name"]
#: The groups of the found partitions: one (experiment, method).
FOUND_GROUP = ["experiment", "method"]
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


def slope_margin(k: int, eps_max: float) -> float:
    """How far the log-log slope of MMR19's shape lies from -1/2 where ε ≤ ``eps_max``: its
    slope is -L/(2L + 1) with L = log(k/ε) (differentiate ε²·r = c·L), -1/2 + 1/(2(2L + 1)),
    furthest from -1/2 at the smallest L, so δ = 1/(2(2L + 1)) at L = log(k/eps_max)."""
    L = math.log(k / eps_max)
    return 1.0 / (2.0 * (2.0 * L + 1.0))


def fixed_eps(fixed: pd.DataFrame, kind: str | None = None) -> pd.DataFrame:
    """The fixed-partition rows with a ``distortion`` column: the largest |signed distortion|
    over every fixed partition of the cell (``kind`` None: the section's measure, the closest
    to the supremum MMR19 bound that these partitions give), or the mean over the partitions of
    one :data:`KINDS` kind."""
    if fixed.empty:
        return fixed
    cols = [c for c in fixed.columns if any(c.startswith(p) for p in KINDS)]
    if kind is not None:
        cols = [c for c in cols if c.startswith(kind)]
    values = fixed[cols].abs()
    out = fixed.drop(columns=[c for c in fixed.columns if any(c.startswith(p) for p in KINDS)])
    out["distortion"] = values.max(axis=1) if kind is None else values.mean(axis=1)
    return out


def _means(table: pd.DataFrame, group) -> pd.DataFrame:
    keys = [*group, "dataset", "n_clusters", "n_features", "r"]
    keys = list(dict.fromkeys(keys))
    return table.groupby(keys, as_index=False)["distortion"].agg(["mean", "std", "count"])


def fit_c(table: pd.DataFrame, group=FIXED_GROUP) -> float:
    """The c of MMR19's shape fitted to the per-(group, r) mean distortions: least squares on
    log ε (scipy's bounded scalar minimiser on log c). A description, not a bound."""
    from scipy.optimize import minimize_scalar

    means = _means(table, group)
    means = means[means["mean"] > 0]
    logs = np.log(means["mean"].to_numpy())

    def loss(log_c: float) -> float:
        c = math.exp(log_c)
        fit = [mmr_eps(r, k, c) for r, k in zip(means["r"], means["n_clusters"], strict=True)]
        return float(np.sum((logs - np.log(fit)) ** 2))

    return math.exp(minimize_scalar(loss, bounds=(-15.0, 10.0), method="bounded").x)


def held_out_c(table: pd.DataFrame, group=FIXED_GROUP) -> dict:
    """c fitted on the even repetitions, and how the odd ones sit against it: the geometric
    mean of measured ε over the curve's, and the share of cells above the curve."""
    even = table[table["repetition"] % 2 == 0]
    odd = table[(table["repetition"] % 2 == 1) & (table["distortion"] > 0)]
    c = fit_c(even, group)
    curve = np.array([mmr_eps(r, k, c) for r, k in zip(odd["r"], odd["n_clusters"], strict=True)])
    ratio = odd["distortion"].to_numpy() / curve
    return {
        "c": c,
        "ratio": float(np.exp(np.mean(np.log(ratio)))) if len(ratio) else math.nan,
        "above": float(np.mean(ratio > 1)) if len(ratio) else math.nan,
        "low": float(np.quantile(ratio, 0.05)) if len(ratio) else math.nan,
        "high": float(np.quantile(ratio, 0.95)) if len(ratio) else math.nan,
        "n": len(ratio),
    }


def slopes(table: pd.DataFrame, group=FOUND_GROUP) -> pd.DataFrame:
    """Each (group, repetition)'s least-squares slope of log ε on log r (at least three r)."""
    rows = []
    group = list(group)
    for key, part in table.groupby([*group, "repetition"]):
        part = part[part["distortion"] > 0]
        if part["r"].nunique() < 3:
            continue
        slope = np.polyfit(np.log(part["r"]), np.log(part["distortion"]), 1)[0]
        rows.append({**dict(zip([*group, "repetition"], key, strict=True)), "slope": slope})
    return pd.DataFrame(rows, columns=[*group, "repetition", "slope"])


def _group_label(part: pd.DataFrame) -> str:
    """A fixed group as the report names it: dataset and the map's method names."""
    methods = sorted({m for text in part["methods"] for m in str(text).split(" / ")})
    return f"{part['dataset'].iloc[0]} {', '.join(methods)}"


# --------------------------------------------------------------------------------------------
# The claims
# --------------------------------------------------------------------------------------------

#: The claims of the section: (title, statement), in the order of :func:`claim_parts`.
CLAIMS = (
    (
        "a fixed partition's ε falls like MMR19's shape, per dataset and map",
        "each repetition's least-squares slope of log ε on log r (ε: the largest over the fixed "
        "partitions) is −1/2 within ±δ, δ = 1/(2(2L + 1)) the log factor's pull at L = "
        "log(k/ε) of the group's largest mean ε (two one-sided tests per (dataset, map))",
    ),
    (
        "the same, on average over every dataset and map: a −1/2 slope on fixed partitions shows "
        "the generic random-projection rate ε ∝ r^(−1/2) for each partition; it cannot show "
        "MMR19's bound, which holds over all partitions at once",
        "each group's mean slope pooled with random effects (DerSimonian-Laird: the groups may "
        "differ, I² says how much): the pooled mean is −1/2 within ±δ, δ the groups' δ averaged "
        "with the pool's weights (two one-sided z-tests); the prediction interval is where a "
        "new dataset's slope would fall",
    ),
    (
        "at a fixed k, does not depend on d",
        f"every pair of datasets with one k at two d under one map (here the same ORL faces at "
        f"64×64 and 112×92): the per-repetition c through the "
        f"measured ε (mean of log c over the pair's common r) agrees within ×{C_TOLERANCE:g} "
        "(two one-sided tests on log c, Welch)",
    ),
    (
        "k alone sets it (one c for every dataset)",
        f"every pair of datasets with different k under one map: the c agree within "
        f"×{C_TOLERANCE:g} (two one-sided tests on log c, Welch; other data: what differs "
        "besides k differs too)",
    ),
)


def _slope_comparison(label: str, slope: Sample, delta: float, extra: str = "") -> Comparison:

    inside, t = margin_test(slope.map(lambda v: v + 0.5), None, -delta, delta)
    low, high = (v - 0.5 for v in t.ci)
    # the narrowest margin two one-sided tests at α would show at this n and spread (the
    # 90% interval's far end from -1/2): what an equivalence test could detect here
    reach = abs(t.diff) + t_half_width(slope.sd, slope.n, 1 - 2 * ALPHA)
    text = (
        f"slope {slope.mean:+.3f} (95% CI {low:+.2f} to {high:+.2f}; n = {slope.n}{extra}), "
        f"−1/2 ± {delta:.3f} claimed; the narrowest margin these repetitions show: "
        f"±{reach:.3f} (α = {ALPHA:g}, before Holm)"
    )
    return Comparison(label, text, t.p, inside, test=t, margin=(-delta, delta))


def slope_pool(groups) -> Pool | None:
    """The random-effects pool of the groups' mean slopes (each with its variance sd²/n); None
    with fewer than two groups of at least two repetitions."""
    usable = [s for _, s, _, _ in groups if s.n > 1]
    if len(usable) < 2 or len(usable) != len(groups):
        return None
    return random_effects([s.mean for s in usable], [s.sd**2 / s.n for s in usable])


def _pooled_comparison(pool: Pool, delta: float, n_groups: int) -> Comparison:
    """Two one-sided z-tests that the pooled slope is within -1/2 ± δ."""
    inside = -delta <= pool.mean + 0.5 <= delta
    lower = pool.p(-0.5 - delta, "greater")
    upper = pool.p(-0.5 + delta, "less")
    p = max(lower, upper) if inside else min(lower, upper)
    ci = (pool.ci[0] + 0.5, pool.ci[1] + 0.5)
    t = Test(p, pool.mean + 0.5, math.nan, False, n_groups, 0, math.nan, ci=ci,
             why="random-effects pool")  # fmt: skip
    text = (
        f"slope {pool.mean:+.3f} (random effects over {n_groups} groups, 95% CI "
        f"{pool.ci[0]:+.2f} to {pool.ci[1]:+.2f}; I² = {pool.i2:.0%}, "
        f"τ = {math.sqrt(pool.tau2):.3f}; "
        f"95% prediction interval for a new group {pool.pi[0]:+.2f} to {pool.pi[1]:+.2f}; the "
        f"largest weight {pool.weights.max():.0%}), −1/2 ± {delta:.3f} claimed"
    )
    return Comparison("every dataset and map", text, p, inside, test=t)


def _group_slopes(fixed: pd.DataFrame) -> list[tuple[str, Sample, float, int]]:
    """Per fixed group: its label, its per-repetition slopes, its δ and its k."""
    eps = fixed_eps(fixed)
    per = slopes(eps, FIXED_GROUP)
    out = []
    for key, part in eps.groupby(FIXED_GROUP, sort=True):
        own = per[(per["dataset"] == key[0]) & (per["reducer_name"] == key[1])]
        if own.empty:
            continue
        k = int(part["n_clusters"].iloc[0])
        delta = slope_margin(k, float(_means(part, FIXED_GROUP)["mean"].max()))
        sample = Sample(own["slope"].to_numpy(), tuple(own["repetition"]))
        out.append((_group_label(part), sample, delta, k))
    return out


def _c_sample(part: pd.DataFrame, grid) -> Sample | None:
    """Per repetition holding every r of ``grid``, the mean over it of log c (the c through
    each cell)."""
    part = part[part["r"].isin(grid) & (part["distortion"] > 0)]
    complete = part.groupby("repetition")["r"].nunique() == len(grid)
    part = part[part["repetition"].isin(complete[complete].index)]
    if part["repetition"].nunique() < 2:
        return None
    logc = np.log(c_through(part["distortion"], part["r"], part["n_clusters"]))
    per_rep = pd.Series(logc, index=part["repetition"].to_numpy()).groupby(level=0).mean()
    return Sample(per_rep.to_numpy(), tuple(per_rep.index))


def _c_comparison(label: str, a: pd.DataFrame, b: pd.DataFrame) -> Comparison | None:
    """Whether the per-repetition c of fixed groups ``a`` and ``b`` agree within
    :data:`C_TOLERANCE` (two one-sided tests on log c, Welch: the seeds differ)."""
    grid = sorted(set(a["r"]) & set(b["r"]))
    if len(grid) < 1:
        return None
    sa, sb = _c_sample(a, grid), _c_sample(b, grid)
    if sa is None or sb is None:
        return None
    bound = math.log(C_TOLERANCE)
    inside, t = margin_test(sa, sb, -bound, bound)
    from dataclasses import replace

    t = replace(t, log=True)
    text = (
        f"c of {_group_label(a)} / c of {_group_label(b)}: {effect_text(t)} over r "
        f"{grid[0]}..{grid[-1]} (n = {sa.n}, {sb.n}; within ×{C_TOLERANCE:g} claimed)"
    )
    return Comparison(label, text, t.p, inside, test=t, margin=(-bound, bound))


def c_pairs(fixed: pd.DataFrame) -> tuple[list, list]:
    """The eligible pairs of fixed groups (one map, two datasets): those with the same k and
    different d (the d claim), and those with different k (the k claim); each as (label, rows
    of a, rows of b), smaller k (then d) first."""
    eps = fixed_eps(fixed)
    d_pairs, k_pairs = [], []
    for reducer, own in eps.groupby("reducer_name", sort=True):
        groups = [part for _, part in own.groupby("dataset", sort=True)]
        groups.sort(key=lambda p: (int(p["n_clusters"].iloc[0]), int(p["n_features"].iloc[0])))
        for a, b in combinations(groups, 2):
            (ka, da), (kb, db) = (
                (int(p["n_clusters"].iloc[0]), int(p["n_features"].iloc[0])) for p in (a, b)
            )
            if ka == kb and da != db:
                d_pairs.append((f"d: {da} vs {db} at k = {ka} ({reducer})", a, b))
            elif ka != kb:
                k_pairs.append((f"k: {ka} vs {kb} ({reducer}, other data)", a, b))
    return d_pairs, k_pairs


def claim_parts(fixed: pd.DataFrame) -> tuple[Part, Part, Part, Part]:
    """The comparisons of the four :data:`CLAIMS`, all on the fixed partitions."""
    groups = _group_slopes(fixed)
    per_group = tuple(
        _slope_comparison(label, s, delta, f", k = {k}") for label, s, delta, k in groups
    )
    pooled = ()
    pool = slope_pool(groups)
    if pool is not None:
        # each group's shape is within its own δ of -1/2, so their pooled mean is within the
        # mean of the δ weighted as the pool weighs the groups
        delta = float(np.average([d for *_, d, _ in groups], weights=pool.weights))
        pooled = (_pooled_comparison(pool, delta, len(groups)),)
    d_pairs, k_pairs = c_pairs(fixed)
    d_part = tuple(filter(None, (_c_comparison(*pair) for pair in d_pairs)))
    k_part = tuple(filter(None, (_c_comparison(*pair) for pair in k_pairs)))
    return Part(per_group), Part(pooled), Part(d_part), Part(k_part)


# --------------------------------------------------------------------------------------------
# The found partitions, as their own line
# --------------------------------------------------------------------------------------------


def preset_orders(root: Path, experiments) -> dict[str, float]:
    """Each experiment's preset ``order`` (the papers' experiments before the diagnostics that
    repeat them), read from its run records."""
    from kmdr.results.runs import preset_of

    return {exp: float(preset_of(Path(root) / exp)["order"]) for exp in sorted(set(experiments))}


def found_groups(found: pd.DataFrame, order: dict[str, float] | None = None) -> pd.DataFrame:
    """The found-partition rows with experiments whose rows are the same measurement (the same
    r, repetitions and distortions: one computation) kept once: the first by preset ``order``
    (a paper's experiment before the diagnostic that repeats it), the copies named in an
    ``also`` column."""
    if found.empty:
        return found
    order = order or {}
    seeds = found.assign(
        key=list(zip(found["r"], found["repetition"], found["distortion"], strict=True))
    )
    signature = seeds.groupby(FOUND_GROUP)["key"].agg(lambda x: tuple(sorted(x)))
    ranked = sorted(signature.index, key=lambda key: (order.get(key[0], math.inf), key))
    keep, also = [], {}
    for key in ranked:
        twin = next((k for k in keep if signature[k] == signature[key]), None)
        if twin is None:
            keep.append(key)
            also[key] = []
        else:
            also[twin].append(key[0])
    out = found.set_index(FOUND_GROUP).loc[keep].reset_index()
    out["also"] = [
        ", ".join(also[(e, m)]) for e, m in zip(out["experiment"], out["method"], strict=True)
    ]
    out["order"] = [order.get(e, math.inf) for e in out["experiment"]]
    return out


def _ci_text(values: np.ndarray) -> str:
    """A mean with its 95% t interval (a description of the repetitions' spread)."""
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return f"{values.mean():+.2f}" if len(values) else "—"
    mean, low, high = t_interval(values)
    return f"{mean:+.2f} [{low:+.2f}, {high:+.2f}]"


def _slope_rows(fixed: pd.DataFrame, found: pd.DataFrame) -> list[list[str]]:
    """One row per fixed group: the slopes of each fixed kind and of the found partitions of
    the experiments that ran that map on that dataset, and how often the cost on C lies below
    the cost on A."""
    per = {None: slopes(fixed_eps(fixed), FIXED_GROUP)}
    for kind in KINDS:
        per[kind] = slopes(fixed_eps(fixed, kind), FIXED_GROUP)
    found_slopes = slopes(found, FOUND_GROUP)
    orders = dict(zip(found["experiment"], found["order"], strict=True)) if len(found) else {}
    rows = []
    for (dataset, reducer), part in fixed.groupby(FIXED_GROUP, sort=True):
        cells = []
        for kind in (None, *KINDS):
            own = per[kind][
                (per[kind]["dataset"] == dataset) & (per[kind]["reducer_name"] == reducer)
            ]
            cells.append(_ci_text(own["slope"].to_numpy()))
        mine = found[(found["dataset"] == dataset) & (found["reducer_name"] == reducer)]
        lines = []
        for (_, exp, method), fpart in mine.groupby(["order", *FOUND_GROUP], sort=True):
            own = found_slopes[
                (found_slopes["experiment"] == exp) & (found_slopes["method"] == method)
            ]
            twin = f", the same cells as {fpart['also'].iloc[0]}" if fpart["also"].iloc[0] else ""
            served = part["experiments"].str.split()
            served = served[served.map(lambda names, e=exp: e in names)]
            earlier = [
                name
                for name, rank in orders.items()
                if rank < orders.get(exp, math.inf)
                and len(served)
                and served.map(lambda names, n=name: n in names).all()
            ]
            if earlier:  # a diagnostic repeating another's maps: its partitions, not new maps
                twin += f"; the same maps as {', '.join(earlier)}"
            lines.append(f"{_ci_text(own['slope'].to_numpy())} ({exp}{twin})")
        below_found = float((mine["cost_C"] < mine["cost_A"]).mean()) if len(mine) else math.nan
        below_fixed = float((part["kmeans_A"] < 0).mean())
        rows.append(
            [
                f"{dataset} {_group_label(part).split(' ', 1)[1]}",
                str(int(part["n_clusters"].iloc[0])),
                str(int(part["n_features"].iloc[0])),
                str(part["repetition"].nunique()),
                *cells,
                "; ".join(lines) or "—",
                f"{below_found:.0%} / {below_fixed:.0%}",
            ]
        )
    return sorted(rows, key=lambda row: (int(row[1]), row[0]))


# --------------------------------------------------------------------------------------------
# The figure
# --------------------------------------------------------------------------------------------


def draw_distortion(root: str | Path) -> Path:
    """Draw ``<root>/theory/distortion.png``: one panel per dataset, against r, the mean (± sd
    over the repetitions) of each map's distortion on the fixed partitions (solid) and of the
    partitions each (experiment, method) found (dotted, faint), with MMR19's shape at the
    dataset's k for the c fitted on the even repetitions (a description, not a bound)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kmdr._io import atomic_write_bytes
    from kmdr.figures import appearance

    root = Path(root)
    found = read_optional_csv(root / CSV)
    found = found_groups(found, preset_orders(root, found["experiment"]))
    fixed = fixed_eps(read_optional_csv(root / FIXED_CSV))
    c = held_out_c(fixed)["c"]
    fixed_means = _means(fixed, FIXED_GROUP)
    found_means = _means(found, [*FOUND_GROUP, "reducer_name"])
    datasets = list(dict.fromkeys(fixed_means.sort_values(["n_clusters", "dataset"])["dataset"]))
    ncols = min(4, len(datasets))
    nrows = math.ceil(len(datasets) / ncols)
    lines = found[["reducer_name", "method"]].drop_duplicates().sort_values("method")
    styles = appearance.styles_for(lines.itertuples(index=False))
    style_of = {red: styles[(red, m)] for red, m in lines.itertuples(index=False)}
    with plt.rc_context(appearance.RC):
        fig, axes = plt.subplots(nrows, ncols, figsize=(3.8 * ncols, 3.3 * nrows), squeeze=False)
        for ax, dataset in zip(axes.flat, datasets, strict=False):
            own = fixed_means[fixed_means["dataset"] == dataset]
            k, d = int(own["n_clusters"].iloc[0]), int(own["n_features"].iloc[0])
            for reducer, part in own.groupby("reducer_name", sort=True):
                style = style_of.get(reducer)
                ax.errorbar(
                    part["r"], part["mean"], yerr=part["std"].fillna(0),
                    marker=(style.marker if style else None) or "o",
                    color=style.color if style else None, ms=3, lw=1.0, ls="-",
                    label=f"{reducer}: fixed partitions",
                )  # fmt: skip
            mine = found_means[found_means["dataset"] == dataset]
            for (exp, method, reducer), part in mine.groupby(
                [*FOUND_GROUP, "reducer_name"], sort=True
            ):
                style = style_of.get(reducer)
                ax.plot(
                    part["r"], part["mean"], ls=":", lw=0.9, alpha=0.6,
                    color=style.color if style else None,
                    label=f"{method} ({exp}): found on C",
                )  # fmt: skip
            grid = np.geomspace(own["r"].min(), own["r"].max(), 40)
            ax.plot(
                grid,
                [mmr_eps(r, k, c) for r in grid],
                "k--",
                lw=1.4,
                label=f"MMR19 shape, c = {c:.3g} (even reps; a description)",
            )
            ax.set_xscale("log")
            ax.set_yscale("log")
            r12 = _r_thm12(k, EPS_REFERENCE)
            title = f"{appearance.dataset_label(dataset)}: k = {k}, d = {d}"
            ax.set_title(title + (f"\nThm 12 asks r ≥ {r12:.2g} at ε = 1/3" if r12 else ""))
            ax.set_xlabel("r")
            ax.set_ylabel("|cost_C(P)/cost_A(P) − 1|")
            ax.legend(fontsize=5, frameon=False, loc="lower left")
        for ax in list(axes.flat)[len(datasets) :]:
            ax.set_visible(False)
        fig.suptitle(
            "Distortion of partitions fixed before the map (solid) and of the partition found "
            "on C (dotted), against r"
        )
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


def distortion_verdicts(root: Path) -> list[tuple[str, object]]:
    """The section's claims as (title, verdict), for the report's count and its report-wide
    Holm line; empty without ``theory/distortion_fixed.csv``."""
    raw = read_optional_csv(Path(root) / FIXED_CSV)
    if raw.empty:
        return []
    return [(f"distortion: {title.split(':')[0]}", decide(part))
            for (title, _), part in zip(CLAIMS, claim_parts(raw), strict=True)]  # fmt: skip


def section_distortion(root: Path) -> str:
    """The theory subsection (empty when ``theory/distortion_fixed.csv`` is absent)."""
    from kmdr.report._text import VERDICT_MARK

    raw = read_optional_csv(root / FIXED_CSV)
    if raw.empty:
        return ""
    every_found = read_optional_csv(root / CSV)
    found = found_groups(every_found, preset_orders(root, every_found.get("experiment", [])))
    fixed = fixed_eps(raw)
    reproduced = (
        every_found["reproduced"].dropna().astype(bool) if len(every_found) else pd.Series([])
    )
    held = held_out_c(fixed)
    verdicts = [decide(part) for part in claim_parts(raw)]
    groups = _group_slopes(raw)
    deltas = [d for _, _, d, _ in groups]
    pooled = np.concatenate([s.values for _, s, _, _ in groups]) if groups else np.array([])
    found_per = slopes(found, FOUND_GROUP)
    n_experiments = raw["experiments"].str.split().explode().nunique()
    sets = raw["experiments"].str.split().map(lambda e: " and ".join(sorted(e)))
    shared_by = sets[raw["experiments"].str.split().str.len() > 1].value_counts(sort=False)
    shared = "; ".join(f"{n} by {names}" for names, n in sorted(shared_by.items()))
    out = [
        "### How few dimensions suffice",
        "",
        f"{CITATION} prove that r = O(log(k/ε)/ε²) dimensions of a random projection preserve "
        "the k-means cost of every partition within 1 ± ε, with high probability, whatever n and "
        "d. bzmd14's Theorem 12 asks r = c₂k/ε² with c₂ = 3330·15² instead: at the ε measured "
        "here, hundreds of millions to tens of trillions of dimensions for our k (the last column "
        "below), far beyond every d. What the committed cells show, as the distortion "
        "|cost_C(P)/cost_A(P) − 1| of a partition P on the unnormalised costs, each cell's C "
        "made again from its seed by `scripts/distortion.py` "
        f"(the first cell of each of {len(reproduced)} (experiment, method) was computed again "
        f"whole and {int(reproduced.sum())} reproduced its F on C):",
        "",
        f"- **the map** (solid lines, and every claim below): partitions fixed before the map is "
        "drawn, per dataset the partition k-means finds on A, 8 perturbations of it (10% of "
        "the points swap labels) and 8 random partitions of its cluster sizes; a cell's ε is "
        "the largest distortion over these 17, a lower bound on the largest over all "
        "partitions, which MMR19 bound. "
        f"{len(raw)} computations of {raw.groupby(FIXED_GROUP).ngroups} (dataset, map) groups "
        f"over {n_experiments} experiments: cells of several experiments with the same seed are "
        f"one C, so one observation (computations shared: {shared or 'none'});",
        "- **the partition each cell found** (dotted lines, not tested as the map's): Lloyd chose "
        "it on C, so its cost on C is fitted to C. Its cost on C lies below its cost on A in "
        f"{_share(found['cost_C'] < found['cost_A'])} of the found cells, against "
        f"{_share(raw['kmeans_A'] < 0)} for k-means' partition of A: its distortion, median "
        f"slope {_median(found_per['slope'])} over {len(found_per)} repetitions, measures "
        "k-means' optimism as much as the map.",
        "",
        "MMR19's proof covers the sub-Gaussian maps (RP sign, Gaussian, Achlioptas); SE and SRHT "
        "are measured beside them. Read as a curve, the bound is ε = sqrt(c·log(k/ε)/r), whose "
        "slope in log-log is −L/(2L + 1) with L = log(k/ε): within δ = 1/(2(2L + 1)) of −1/2, "
        f"δ from {min(deltas, default=math.nan):.3f} to {max(deltas, default=math.nan):.3f} over "
        "the groups here (L at the group's largest mean ε). The "
        "slope is the test, against −1/2 ± δ; the theorem gives no c. The dashed line is the "
        f"shape with c = {held['c']:.3g} fitted on the even repetitions, a description of the "
        "cloud, not a bound: on the odd repetitions the measured ε is "
        f"×{held['ratio']:.3g} the curve's (geometric mean; 90% of cells between "
        f"×{held['low']:.2g} and ×{held['high']:.2g}), {held['above']:.0%} of their "
        f"{held['n']} cells above it.",
        "",
        f"![Distortion against r]({FIGURE})",
        "",
        md_table(
            [
                "dataset",
                "k",
                "d",
                "cells (found)",
                "computations (fixed)",
                "ε at largest r: fixed / found (mean)",
                "largest r",
                "Thm 12 r at the fixed ε",
            ],
            _rows(fixed, found),
        ),
        "",
        "Slopes of log ε on log r, mean over the repetitions with its 95% interval: on the fixed "
        "partitions (the largest over the 17, and the mean over each kind) beside the partitions "
        "found on C (per experiment, the papers' first; a diagnostic whose found cells are the "
        "same measurement is named beside its experiment, not counted again). The last column "
        "is the share of cells whose cost on C lies below the "
        "cost on A: for the found partitions, and for k-means' partition of A.",
        "",
        md_table(
            [
                "dataset, map",
                "k",
                "d",
                "repetitions",
                "fixed: largest",
                "k-means on A",
                "perturbed",
                "random",
                "found on C (experiment)",
                "cost_C < cost_A: found / k-means on A",
            ],
            _slope_rows(raw, found),
        ),
        "",
        _pool_line(groups, pooled) + f" The found partitions' median is "
        f"{_median(found_per['slope'])}.",
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


def _pool_line(groups, pooled: np.ndarray) -> str:
    """The fixed partitions' slope pooled with random effects: its heterogeneity and where a
    new dataset's slope would fall."""
    pool = slope_pool(groups)
    if pool is None:
        return f"The fixed partitions' slopes, {len(pooled)} repetitions: {_ci_text(pooled)}."
    return (
        f"Pooled with random effects over the {pool.k} groups ({len(pooled)} repetitions; "
        f"DerSimonian-Laird), the fixed partitions' slope is {pool.mean:+.3f} [95% CI "
        f"{pool.ci[0]:+.2f}, {pool.ci[1]:+.2f}]; the groups differ beyond their noise: I² = "
        f"{pool.i2:.0%}, τ = {math.sqrt(pool.tau2):.3f}, Cochran's Q = {pool.q:.1f} on "
        f"{pool.k - 1} df; the largest group weighs {pool.weights.max():.0%}. A new dataset's "
        f"slope would fall in {pool.pi[0]:+.2f} to {pool.pi[1]:+.2f} (95% prediction interval)."
    )


def _share(mask: pd.Series) -> str:
    return f"{float(mask.mean()):.0%}" if len(mask) else "—"


def _median(values: pd.Series) -> str:
    return f"{float(np.median(values)):+.2f}" if len(values) else "—"


def _rows(fixed: pd.DataFrame, found: pd.DataFrame) -> list[list[str]]:
    rows = []
    for dataset, part in fixed.groupby("dataset", sort=False):
        k, d = int(part["n_clusters"].iloc[0]), int(part["n_features"].iloc[0])
        r_max = int(part["r"].max())
        eps = float(part.loc[part["r"] == r_max, "distortion"].mean())
        mine = found[found["dataset"] == dataset] if len(found) else found
        at = mine[mine["r"] == r_max]["distortion"] if len(mine) else pd.Series([], dtype=float)
        r12 = _r_thm12(k, eps)
        rows.append(
            [
                dataset,
                str(k),
                str(d),
                str(len(mine)),
                str(len(part)),
                f"{eps:.3g} / {at.mean():.3g}" if len(at) else f"{eps:.3g} / —",
                str(r_max),
                "—" if r12 is None else f"{r12:.3g}",
            ]
        )
    return sorted(rows, key=lambda row: (int(row[1]), row[0]))
