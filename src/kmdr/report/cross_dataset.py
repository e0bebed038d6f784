"""The report's "Across datasets" section: which reducer ranks first over several datasets, with
the Friedman test, its post-hoc comparisons and a critical-difference diagram (Demšar, JMLR 2006).

The experiments ranked are those whose cells cover the same reducers (the baseline, k-means on
all features, left out: it has no r) on different datasets: among the groups of experiments with
the same set of reducers, the one covering the most datasets (then the most reducers), with one
experiment per dataset (the first in the report's order). Fewer than two datasets: no section.

Each dataset is read at a matched budget: the r of its grid nearest :data:`BUDGET` of its
dimension d (the smaller on a tie), the same r for every reducer. There each reducer's accuracy,
F (``objective``) and time per cell (``total_seconds``) are the means over its repetitions, and
the reducers are ranked within the dataset (1 the best: the highest accuracy, the lowest F, the
shortest time; ties share their mean rank). A dataset without labels (a user's file) has no
accuracy and is left out of that ranking only.

Per measure: the Friedman test over the datasets (the blocks) that the reducers' ranks differ
(:func:`scipy.stats.friedmanchisquare`; for two reducers the exact sign test); Conover's
post-hoc comparisons of every pair, their p corrected by Holm's method
(:func:`scikit_posthocs.posthoc_conover_friedman`); the table of each reducer's mean rank with
its 95% t-interval over the datasets; and the critical-difference diagram
(:func:`scikit_posthocs.critical_difference_diagram`: reducers joined by a bar do not differ at
the 5% level), written to ``cross_dataset/ranks.png``. The per-dataset ranks are written to
``cross_dataset/ranks.csv``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from kmdr.report._text import md_table
from kmdr.report.experiments import Experiment

__all__ = ["BUDGET", "FOLDER", "HEADING", "MEASURES", "budget_r", "ranks", "section_cross_dataset"]

HEADING = "Across datasets"
#: The folder of the results holding the section's figure and CSV.
FOLDER = "cross_dataset"
#: The matched budget: each dataset's r nearest this fraction of its dimension.
BUDGET = 0.10
#: (column, its name, +1 higher is better / -1 lower is better).
MEASURES = (("accuracy", "accuracy", 1), ("objective", "F", -1), ("total_seconds", "time", -1))
BASELINE = "none"
ALPHA = 0.05


def budget_r(grid, d: int) -> int:
    """The r of ``grid`` (below d) nearest ``BUDGET * d``, the smaller on a tie."""
    rs = sorted(int(r) for r in set(grid) if int(r) < d) or sorted(int(r) for r in set(grid))
    target = BUDGET * d
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
        ),
        key=lambda e: (e.preset["order"], e.name),
    )
    for exp in ordered:
        reducers = _reducers(exp)
        if len(reducers) >= 2:
            groups.setdefault(reducers, {}).setdefault(dataset_label(exp.cells), exp)
    if not groups:
        return []
    best = max(groups, key=lambda g: (len(groups[g]), len(g), sorted(g)))
    return list(groups[best].values()) if len(groups[best]) >= 2 else []


def ranks(exps: list[Experiment]) -> pd.DataFrame:
    """One row per (dataset, reducer): the experiment, its budget r, the means over the
    repetitions of each measure and the reducer's rank among the dataset's reducers
    (``<measure>_rank``; NaN where the measure is not scored)."""
    from scipy.stats import rankdata

    rows = []
    for exp in exps:
        cells = exp.cells[exp.cells["reducer"].astype(str) != BASELINE]
        d = int(cells["n_features"].iloc[0])
        r = budget_r(cells["r"].astype(int), d)
        at = cells[cells["r"].astype(int) == r]
        per_rep = at.groupby(["reducer", "repetition"])[[m for m, *_ in MEASURES]].mean()
        means = per_rep.groupby("reducer").mean()
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
    from kmdr.stats import t_half_width

    n = len(wide)
    mean = wide.mean()
    half = t_half_width(wide.std(ddof=1), n) if n > 1 else np.nan
    k = wide.shape[1]  # a rank lies in [1, k]: the interval is clipped there
    low, high = (mean - half).clip(1, k), (mean + half).clip(1, k)
    return pd.DataFrame({"mean": mean, "low": low, "high": high}).sort_values("mean")


def _tests(wide: pd.DataFrame):
    """The test over the datasets, as text, and the Holm-corrected p of each pair: the Friedman
    test and Conover's comparisons for three reducers or more; for two, the exact sign test over
    the datasets they do not tie on (the Friedman test of two reducers, whose chi² is not exact
    at so few datasets)."""
    import scikit_posthocs as sph
    from scipy.stats import binomtest, friedmanchisquare

    if wide.shape[1] == 2:
        a, b = wide.columns
        wins = int((wide[a] < wide[b]).sum())
        n = int((wide[a] != wide[b]).sum())
        p = float(binomtest(wins, n).pvalue) if n else 1.0
        pairs = pd.DataFrame([[1.0, p], [p, 1.0]], index=wide.columns, columns=wide.columns)
        return (
            f"two reducers: exact sign test, `{a}` ranked first on {wins} of {n}, p = {p:.3g}",
            pairs,
        )
    stat, p = friedmanchisquare(*(wide[c].to_numpy() for c in wide.columns))
    if not p < ALPHA:  # the post-hoc comparisons are read only where Friedman's test rejects
        ones = np.ones((wide.shape[1], wide.shape[1]))
        pairs = pd.DataFrame(ones, index=wide.columns, columns=wide.columns)
        return (
            f"Friedman chi² = {stat:.2f}, p = {p:.3g} (no post-hoc comparison: p >= {ALPHA:g})",
            pairs,
        )
    # Ranks equal on every dataset give Conover's statistic 0/0: no evidence of a difference
    # (p 1), not a warning of kmdr's.
    with np.errstate(divide="ignore", invalid="ignore"):
        pairs = sph.posthoc_conover_friedman(wide, p_adjust="holm").fillna(1.0)
    return f"Friedman chi² = {stat:.2f}, p = {p:.3g}", pairs


def _draw(path: Path, panels: list) -> None:
    """One critical-difference diagram per measure (scikit-posthocs draws each)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import scikit_posthocs as sph

    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 2.3 * len(panels)), squeeze=False)
    for ax, (name, mean, pairs) in zip(axes[:, 0], panels, strict=True):
        drawn = sph.critical_difference_diagram(mean, pairs, ax=ax, alpha=ALPHA)
        # scikit-posthocs draws a bar through its reducers in a set's order, which follows the
        # process's string hashing: sorted, the bar's pixels are the same in every run
        for bar in drawn["crossbars"]:
            for line in bar:
                line.set_xdata(sorted(line.get_xdata()))
        ax.set_title(f"{name}: mean rank (1 = best); a bar joins reducers that do not differ "
                     f"(Conover, Holm, {ALPHA:g})", fontsize=9)  # fmt: skip
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


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
        f"{g.dataset.iloc[0]} (d = {g.d.iloc[0]}): r = {g.r.iloc[0]} from `{g.experiment.iloc[0]}`"
        for _, g in table.groupby("dataset", sort=True)
    )
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
        "significant digits tie and share their mean rank). The Friedman test asks whether "
        "the ranks differ over the datasets; where it "
        f"rejects (p < {ALPHA:g}), Conover's post-hoc comparisons of every pair, Holm-corrected, "
        "say which; the interval of a mean rank is "
        "its 95% t-interval over the datasets, clipped to the ranks' range. With few datasets "
        "the tests have little power: a bar in the diagram is a failure to tell apart, not "
        "evidence of a tie. Per-dataset "
        f"ranks: [{FOLDER}/ranks.csv]({FOLDER}/ranks.csv).",
    ]
    panels = []
    for measure, name, _sign in MEASURES:
        wide = _wide(table, measure)
        out += ["", f"### Across datasets: {name}", ""]
        if len(wide) < 2:
            missing = sorted(set(table["dataset"]) - set(wide.index))
            out.append(f"Not ranked: {name} is scored on fewer than two datasets (no labels: "
                       f"{', '.join(missing) or 'none'}).")  # fmt: skip
            continue
        test, pairs = _tests(wide)
        mean = _mean_ranks(wide)
        unscored = sorted(set(table["dataset"]) - set(wide.index))
        note = f" ({', '.join(unscored)}: no labels, left out)" if unscored else ""
        out.append(f"{len(wide)} datasets{note}, {wide.shape[1]} reducers: {test}.")
        rows = []
        for reducer, row in mean.iterrows():
            others = pairs.loc[reducer].drop(reducer)
            worse = [o for o in others.index if others[o] < ALPHA and mean.loc[o, "mean"] >
                     row["mean"]]  # fmt: skip
            rows.append([f"`{reducer}`", _num(row["mean"]),
                         f"[{_num(row['low'])}, {_num(row['high'])}]",
                         ", ".join(f"`{o}`" for o in worse) or "none"])  # fmt: skip
        out += ["", md_table(["reducer", "mean rank", "95% interval",
                              "ranks better than (Holm p < 0.05)"], rows)]  # fmt: skip
        panels.append((name, mean["mean"], pairs))
    if panels:
        _draw(folder / "ranks.png", panels)
        out += ["", f"![{HEADING}: critical-difference diagrams]({FOLDER}/ranks.png)"]
    return "\n".join(out)
