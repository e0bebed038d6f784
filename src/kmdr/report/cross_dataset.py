"""The report's "Across datasets" section: which reducer ranks first over several datasets, by
Demšar's procedure (JMLR 2006): Friedman's test with Iman and Davenport's F (and a permutation p:
exact enumeration at small N, a Monte Carlo estimate with its number of draws otherwise), then
Nemenyi's critical difference, drawn as a critical-difference diagram.

The experiments ranked are those whose cells cover the same reducers (the baseline, k-means on
all features, left out: it has no r) on different datasets: among the groups of experiments with
the same set of reducers, the one covering the most datasets (then the most reducers), with one
experiment per dataset (the first in the report's order). Datasets are told apart by their
data's fingerprint (``data_fingerprint``), not by name: the same data under two names counts
once, and so does a dataset declared a copy of another (``DatasetEntry.copy_of``: the ss22
Benchmark times k is the Benchmark). Fewer than two datasets: no section.

Each dataset is read at a matched budget: the r of its grid nearest :data:`BUDGET` of its
dimension d (the smaller on a tie), the same r for every reducer; the r/d each dataset reaches
is printed, and a sensitivity line ranks again at each share of :data:`SENSITIVITY`. A reducer
without a cell at a dataset's r is named on a line of its own (that dataset is then left out of
the ranking of every measure it lacks). There each reducer's accuracy,
F (``objective``) and time per cell (``total_seconds``) are the means over its repetitions, and
the reducers are ranked within the dataset (1 the best: the highest accuracy, the lowest F, the
shortest time; ties share their mean rank). A dataset without labels (a user's file) has no
accuracy and is left out of that ranking only.

Per measure (:mod:`kmdr.stats`): Friedman's chi², Iman and Davenport's F and its p, and the
permutation p of the rank sums (exact enumeration at small N), which decides; where it rejects,
Nemenyi's critical difference (CD) says which pairs differ; Conover's comparisons with Holm's
correction (:func:`scikit_posthocs.posthoc_conover_friedman`) are a second, labelled reading;
the smallest p a distribution-free pairwise test can reach at this N is printed; for two
reducers, the exact sign test. The table gives each reducer's mean rank with its 95% t-interval
over the datasets, and the critical-difference diagram
(:func:`scikit_posthocs.critical_difference_diagram`: reducers joined by a bar are less than one
CD apart) is written to ``cross_dataset/ranks.png``. The per-dataset ranks are written to
``cross_dataset/ranks.csv``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr.report._text import md_table
from kmdr.report.experiments import Experiment
from kmdr.stats import friedman, nemenyi_cd, nemenyi_pairs, smallest_pairwise_p, t_half_width

__all__ = ["BUDGET", "FOLDER", "HEADING", "MEASURES", "budget_r", "ranks", "section_cross_dataset"]

HEADING = "Across datasets"
#: The folder of the results holding the section's figure and CSV.
FOLDER = "cross_dataset"
#: The matched budget: each dataset's r nearest this fraction of its dimension.
BUDGET = 0.10
#: The shares of d the sensitivity line ranks at again.
SENSITIVITY = (0.025, 0.05, 0.10, 0.20)
#: (column, its name, +1 higher is better / -1 lower is better).
MEASURES = (("accuracy", "accuracy", 1), ("objective", "F", -1), ("total_seconds", "time", -1))
BASELINE = "none"
ALPHA = 0.05


def budget_r(grid, d: int) -> int:
    """The r of ``grid`` (below d) nearest ``BUDGET * d``, the smaller on a tie."""
    return _budget_r(grid, d, BUDGET)


def _budget_r(grid, d: int, budget: float) -> int:
    rs = sorted(int(r) for r in set(grid) if int(r) < d) or sorted(int(r) for r in set(grid))
    target = budget * d
    return min(rs, key=lambda r: (abs(r - target), r))


def dataset_label(cells: pd.DataFrame) -> str:
    """The dataset an experiment's cells ran on: its name, and for a user's file or an OpenML id
    (``dataset=file``, ``dataset=openml``) the file's name or the id, which tell them apart."""
    import json

    name = str(cells["dataset"].iloc[0])
    try:
        params = json.loads(str(cells["dataset_params"].iloc[0]))
    except (KeyError, ValueError):
        params = {}
    if isinstance(params, dict) and params.get("path"):
        return f"{name}:{Path(str(params['path'])).name}"
    if isinstance(params, dict) and params.get("data_id") is not None:
        return f"{name}:{params['data_id']}"
    return name


def _fingerprint(cells: pd.DataFrame) -> str:
    """What tells two datasets apart: the fingerprint of their data (the label where the cells
    have none), a declared copy's counted as the data it copies
    (:func:`kmdr.datasets.counted_fingerprint`)."""
    import json

    from kmdr.datasets import DatasetUnavailable, counted_fingerprint

    if "data_fingerprint" not in cells:
        return dataset_label(cells)
    fingerprint = str(cells["data_fingerprint"].iloc[0])
    try:
        params = json.loads(str(cells["dataset_params"].iloc[0]))
        name = str(cells["dataset"].iloc[0])
        return counted_fingerprint(name, params if isinstance(params, dict) else {}, fingerprint)
    except (KeyError, ValueError, DatasetUnavailable):  # a dataset no longer declared: its own
        return fingerprint


def _reducers(exp: Experiment) -> frozenset[str]:
    return frozenset(str(r) for r in exp.cells["reducer"].unique()) - {BASELINE}


def chosen(exps: dict[str, Experiment]) -> list[Experiment]:
    """One experiment per dataset of the largest group sharing one set of reducers (see the
    module docstring); empty when no group covers two datasets."""
    groups: dict[frozenset, dict[str, Experiment]] = {}
    ordered = sorted(
        (
            e
            for e in exps.values()
            if e.has_cells
            and e.cells["dataset"].nunique() == 1
            and e.cells["dataset_params"].nunique() <= 1
            and e.cells.get("data_fingerprint", e.cells["dataset"]).nunique() == 1
        ),
        key=lambda e: (e.preset["order"], e.name),
    )
    for exp in ordered:
        reducers = _reducers(exp)
        if len(reducers) >= 2:
            groups.setdefault(reducers, {}).setdefault(_fingerprint(exp.cells), exp)
    if not groups:
        return []
    best = max(groups, key=lambda g: (len(groups[g]), len(g), sorted(g)))
    return list(groups[best].values()) if len(groups[best]) >= 2 else []


def ranks(exps: list[Experiment], budget: float = BUDGET) -> pd.DataFrame:
    """One row per (dataset, reducer): the experiment, its budget r, the means over the
    repetitions of each measure and the reducer's rank among the dataset's reducers
    (``<measure>_rank``; NaN where the measure is not scored, or the reducer has no cell at
    that r: its row is there, with NaN means)."""
    from scipy.stats import rankdata

    rows = []
    for exp in exps:
        cells = exp.cells[exp.cells["reducer"].astype(str) != BASELINE]
        d = int(cells["n_features"].iloc[0])
        r = _budget_r(cells["r"].astype(int), d, budget)
        at = cells[cells["r"].astype(int) == r]
        per_rep = at.groupby(["reducer", "repetition"])[[m for m, *_ in MEASURES]].mean()
        means = per_rep.groupby("reducer").mean().reindex(sorted(_reducers(exp)))
        means.index.name = "reducer"
        frame = means.reset_index().assign(
            dataset=dataset_label(exp.cells), experiment=exp.name, d=d, r=r
        )
        for measure, _name, sign in MEASURES:
            # means equal to 12 digits tie: their last bits follow the order of their sums
            # (and the CSV parser's rounding), which no rank should
            values = np.array([float(f"{v:.12g}") for v in frame[measure].to_numpy(dtype=float)])
            if np.isnan(values).any():
                frame[f"{measure}_rank"] = np.nan
            else:
                frame[f"{measure}_rank"] = rankdata(-sign * values, method="average")
        rows.append(frame)
    columns = ["dataset", "experiment", "d", "r", "reducer"]
    out = pd.concat(rows, ignore_index=True)
    return out[columns + [c for c in out.columns if c not in columns]]


def _wide(table: pd.DataFrame, measure: str) -> pd.DataFrame:
    """Datasets x reducers of one measure's ranks, datasets without it left out."""
    wide = table.pivot(index="dataset", columns="reducer", values=f"{measure}_rank")
    return wide.dropna(how="any")


def _mean_ranks(wide: pd.DataFrame) -> pd.DataFrame:
    n = len(wide)
    mean = wide.mean()
    half = t_half_width(wide.std(ddof=1), n)
    k = wide.shape[1]  # a rank lies in [1, k]: the interval is clipped there
    low, high = (mean - half).clip(1, k), (mean + half).clip(1, k)
    return pd.DataFrame({"mean": mean, "low": low, "high": high}).sort_values("mean")


def _tests(wide: pd.DataFrame) -> dict:
    """Demšar's procedure on one measure's (datasets x reducers) ranks: ``text`` the omnibus
    line, ``cd`` Nemenyi's critical difference (NaN for two reducers), ``nemenyi`` the pairs
    at least one CD apart where the omnibus test rejects, ``conover`` the Conover-Holm p of
    every pair (ones where it does not reject), ``p`` the deciding p."""
    import scikit_posthocs as sph
    from scipy.stats import binomtest

    k = wide.shape[1]
    ones = pd.DataFrame(np.ones((k, k)), index=wide.columns, columns=wide.columns)
    if k == 2:
        a, b = wide.columns
        wins = int((wide[a] < wide[b]).sum())
        n = int((wide[a] != wide[b]).sum())
        p = float(binomtest(wins, n).pvalue) if n else 1.0
        pairs = pd.DataFrame([[1.0, p], [p, 1.0]], index=wide.columns, columns=wide.columns)
        nemenyi = [(a, b)] if p < ALPHA else []
        text = f"two reducers: exact sign test, `{a}` ranked first on {wins} of {n}, p = {p:.3g}"
        return {"text": text, "cd": math.nan, "nemenyi": nemenyi, "conover": pairs, "p": p}
    f = friedman(wide.to_numpy(dtype=float))
    if f.draws:
        how = (f"Monte Carlo permutation p = {f.p_exact:.2g} ({f.draws:,} random permutations "
               f"of each dataset's ranks: an estimate, the smallest it can give "
               f"{1 / (f.draws + 1):.1g})")  # fmt: skip
    else:
        how = (f"exact permutation p = {f.p_exact:.3g} (every one of the {f.permutations:,} "
               f"permutations of the datasets' ranks; the smallest it can give "
               f"{f.smallest:.3g})")  # fmt: skip
    text = (f"Friedman chi² = {f.chi2:.2f} (asymptotic p = {f.p_chi2:.3g}), Iman-Davenport "
            f"F({k - 1}, {(k - 1) * (f.n - 1)}) = {f.f:.2f}, p = {f.p_f:.3g}; {how}, which "
            "decides")  # fmt: skip
    cd = nemenyi_cd(k, f.n, ALPHA)
    mean = wide.mean().to_dict()
    if not f.p_exact < ALPHA:  # the post-hoc comparisons are read only where the test rejects
        return {"text": text + f"; no post-hoc comparison (p >= {ALPHA:g})", "cd": cd,
                "nemenyi": [], "conover": ones, "p": f.p_exact}  # fmt: skip
    # Ranks equal on every dataset give Conover's statistic 0/0: no evidence of a difference
    # (p 1), not a warning of kmdr's.
    with np.errstate(divide="ignore", invalid="ignore"):
        pairs = sph.posthoc_conover_friedman(wide, p_adjust="holm").fillna(1.0)
    return {"text": text, "cd": cd, "nemenyi": nemenyi_pairs(mean, cd), "conover": pairs,
            "p": f.p_exact}  # fmt: skip


def _draw(path: Path, panels: list) -> None:
    """One critical-difference diagram per measure (scikit-posthocs draws each): a bar joins the
    reducers less than Nemenyi's CD apart."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import scikit_posthocs as sph

    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 2.3 * len(panels)), squeeze=False)
    for ax, (name, mean, found) in zip(axes[:, 0], panels, strict=True):
        apart = {frozenset(p) for p in found["nemenyi"]}
        names = list(mean.index)
        sig = pd.DataFrame(
            [[0.0 if frozenset((a, b)) in apart else 1.0 for b in names] for a in names],
            index=names, columns=names,
        )  # fmt: skip
        drawn = sph.critical_difference_diagram(mean, sig, ax=ax, alpha=ALPHA)
        # scikit-posthocs draws a bar through its reducers in a set's order, which follows the
        # process's string hashing: sorted, the bar's pixels are the same in every run
        for bar in drawn["crossbars"]:
            for line in bar:
                line.set_xdata(sorted(line.get_xdata()))
        cd = found["cd"]
        what = f"Nemenyi CD = {cd:.2f} ranks at {ALPHA:g}" if np.isfinite(cd) else "sign test"
        ax.set_title(f"{name}: mean rank (1 = best); a bar joins reducers less than one CD apart "
                     f"({what})", fontsize=9)  # fmt: skip
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


def _sensitivity(members: list[Experiment], measure: str) -> str:
    """The ranking again at each share of d in :data:`SENSITIVITY`: N, the deciding p and the
    number of pairs one Nemenyi CD apart (and Conover-Holm's)."""
    parts = []
    for share in SENSITIVITY:
        table = ranks(members, share)
        wide = _wide(table, measure)
        # the share each dataset's grid reaches (a grid that stops short of it stays at its
        # largest r): the label says the range, not only the share aimed at
        reached = (table["r"] / table["d"]).astype(float)
        label = f"r/d ≈ {share:.3g} (reached {reached.min():.1%}–{reached.max():.1%})"
        if len(wide) < 2:
            parts.append(f"{label}: fewer than two datasets")
            continue
        found = _tests(wide)
        conover = found["conover"].to_numpy()
        n_conover = int((conover[np.triu_indices_from(conover, 1)] < ALPHA).sum())
        parts.append(f"{label}: N = {len(wide)}, p = {found['p']:.2g}, "
                     f"{len(found['nemenyi'])} Nemenyi pair(s), "
                     f"{n_conover} Conover-Holm")  # fmt: skip
    head = (
        "Sensitivity over r (the same procedure at other shares of d, each dataset at the r "
        "of its grid nearest the share): "
    )
    return head + "; ".join(parts) + "."


def _num(x: float, digits: int = 2) -> str:
    return "n/a" if not np.isfinite(x) else f"{x:.{digits}f}"


def section_cross_dataset(root: Path, exps: dict[str, Experiment]) -> str | None:
    """The section (see the module docstring), its figure and CSV written under
    ``root/cross_dataset``; None when fewer than two datasets share reducers."""
    members = chosen(exps)
    if len(members) < 2:
        return None
    table = ranks(members)
    folder = Path(root) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    table.to_csv(folder / "ranks.csv", index=False, float_format="%.10g", lineterminator="\n")
    budgets = ", ".join(
        f"{g.dataset.iloc[0]} (d = {g.d.iloc[0]}): r = {g.r.iloc[0]}, r/d = "
        f"{g.r.iloc[0] / g.d.iloc[0]:.1%}, from `{g.experiment.iloc[0]}`"
        for _, g in table.groupby("experiment", sort=True)
    )
    measured = table[[f"{m}_rank" for m, *_ in MEASURES]]
    absent = table[table[[m for m, *_ in MEASURES]].isna().all(axis=1)]
    reducers = sorted(table["reducer"].unique())
    out = [
        f"## {HEADING}",
        "",
        f"Which reducer ranks first over datasets? The {len(members)} experiments below share "
        f"{len(reducers)} reducers ({', '.join(f'`{r}`' for r in reducers)}; k-means on all "
        "features has no r and is left out) on different datasets. Matched budget: each "
        f"dataset's r nearest {BUDGET:.0%} of its dimension d in its grid: {budgets}. Within a "
        "dataset the reducers are ranked on the means over the repetitions (1 the best: the "
        "highest accuracy, the lowest F, the shortest time per cell; means equal to 12 "
        "significant digits tie and share their mean rank). Datasets are told apart by their "
        "data's fingerprint. Demšar's procedure: Friedman's test asks whether the ranks differ "
        "over the datasets (Iman and Davenport's F, and the permutation p of the rank sums, "
        "exact by enumeration where every permutation can be listed, a Monte Carlo estimate "
        "otherwise, its number of draws stated; it decides); where it "
        f"rejects (p < {ALPHA:g}), two reducers differ when their mean ranks are at least "
        "Nemenyi's critical difference (CD) apart; Conover's comparisons with Holm's "
        "correction are a second, more liberal reading, labelled as such. The interval of a "
        "mean rank is its 95% t-interval over the datasets, clipped to the ranks' range. With "
        "few datasets the tests have little power: a bar in the diagram is a failure to tell "
        "apart, not evidence of a tie. Per-dataset "
        f"ranks: [{FOLDER}/ranks.csv]({FOLDER}/ranks.csv).",
    ]
    del measured
    for _, row in absent.iterrows():
        out += ["", f"Missing: `{row['reducer']}` has no cell at r = {row['r']} on "
                    f"{row['dataset']} (`{row['experiment']}`), which is left out of every "
                    "ranking below."]  # fmt: skip
    panels = []
    for measure, name, _sign in MEASURES:
        wide = _wide(table, measure)
        out += ["", f"### Across datasets: {name}", ""]
        if len(wide) < 2:
            missing = sorted(set(table["dataset"]) - set(wide.index))
            out.append(f"Not ranked: {name} is scored on fewer than two datasets (left out: "
                       f"{', '.join(missing) or 'none'}).")  # fmt: skip
            continue
        found = _tests(wide)
        pairs = found["conover"]
        mean = _mean_ranks(wide)
        left = sorted(set(table["dataset"]) - set(wide.index))
        short = set(absent["dataset"])
        why = [f"{d}: a reducer missing, left out" for d in left if d in short]
        why += [f"{d}: no labels, left out" for d in left if d not in short]
        note = f" ({'; '.join(why)})" if why else ""
        n = len(wide)
        cd = found["cd"]
        cd_text = f"Nemenyi's CD = {cd:.2f} ranks (k = {wide.shape[1]}, N = {n}); " if (
            np.isfinite(cd)) else ""  # fmt: skip
        out.append(f"{n} datasets{note}, {wide.shape[1]} reducers: {found['text']}. {cd_text}"
                   f"at N = {n} no distribution-free pairwise test (sign, Wilcoxon) can reach a "
                   f"p below {smallest_pairwise_p(n):.3g} (two-sided).")  # fmt: skip
        apart = {frozenset(p) for p in found["nemenyi"]}
        rows = []
        for reducer, row in mean.iterrows():
            others = pairs.loc[reducer].drop(reducer)
            higher = [o for o in others.index if mean.loc[o, "mean"] > row["mean"]]
            by_cd = [o for o in higher if frozenset((reducer, o)) in apart]
            by_conover = [o for o in higher if others[o] < ALPHA]
            rows.append([f"`{reducer}`", _num(row["mean"]),
                         f"[{_num(row['low'])}, {_num(row['high'])}]",
                         ", ".join(f"`{o}`" for o in by_cd) or "none",
                         ", ".join(f"`{o}`" for o in by_conover) or "none"])  # fmt: skip
        out += ["", md_table(["reducer", "mean rank", "95% interval",
                              "ranks better than (Nemenyi, ≥ 1 CD)",
                              "second reading: Conover, Holm p < 0.05"], rows)]  # fmt: skip
        out += ["", _sensitivity(members, measure)]
        panels.append((name, mean["mean"], found))
    if panels:
        _draw(folder / "ranks.png", panels)
        out += ["", f"![{HEADING}: critical-difference diagrams (Nemenyi)]({FOLDER}/ranks.png)"]
    return "\n".join(out)
