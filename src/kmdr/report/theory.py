"""The theorems behind the reducers, checked where our data can check them: the generic part.

* :class:`Bound`: a quality-of-approximation theorem with its factor, the number of dimensions r
  it needs and its success probability, and :func:`bound_applies` to say whether one of our r
  values meets that requirement. The papers declare their theorems in their own packages as a
  :class:`TheoryPart`, the ``theory`` of their :class:`kmdr.plugins.Paper`
  (:data:`THEORY`): the bounds, the columns they add to the report's table of required r, and
  sections of their own (bzmd14's sampling lemma);
* :func:`approximation_ratios`: the empirical ratio F(partition found on C) / F(best partition
  of A known) per method and r, from ``cells.csv`` (the lowest F of any cell of that dataset and
  setting), with :func:`estimated_gamma`, the approximation factor of each k-means run on C
  estimated from ``objective_reduced``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr.plugins import Registry

__all__ = [
    "EPS_EXPERIMENTS",
    "GAMMA_LARGE",
    "RATIO_COLUMNS",
    "THEORY",
    "Bound",
    "Requirement",
    "TheoryPart",
    "approximation_ratios",
    "bound_applies",
    "bound_at_gamma",
    "bounds",
    "bounds_for",
    "clusters_itself",
    "estimated_gamma",
    "theory_parts",
]

#: The accuracy bzmd14's experiments fix for the approximate SVD (§7.1); bounds are quoted at it.
EPS_EXPERIMENTS = 1.0 / 3.0


# --------------------------------------------------------------------------------------------
# The theorems
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bound:
    """One quality-of-approximation theorem: ``F(partition from C) <= factor * F_opt``.

    ``factor(eps, gamma)`` is the theorem's factor for a gamma-approximate k-means on C;
    ``r_required(k, eps)`` the r the theorem needs, or None when its constants are unspecified;
    ``r_equals_k`` marks theorems that are about exactly r = k features.
    """

    key: str
    title: str
    methods: tuple[str, ...]
    factor_text: str
    factor: Callable[[float, float], float]
    r_text: str
    r_required: Callable[[int, float], float] | None
    probability: str
    notes: str = ""
    r_equals_k: bool = False


@dataclass(frozen=True)
class Requirement:
    """A column of the report's table of required r: ``header``, and ``value(k, eps)``, the
    text of the r a theorem needs for k clusters at accuracy eps."""

    header: str
    value: Callable[[int, float], str]


@dataclass(frozen=True)
class TheoryPart:
    """What one paper adds to the report's theory section: its ``bounds``, the columns of the
    table of required r (``requirements``) and the paragraph that reads them
    (``requirements_note``, formatted with ``max_r``, our largest r), and ``sections``:
    ``section(root) -> str`` Markdown subsections of its own, in order."""

    bounds: tuple[Bound, ...] = ()
    requirements: tuple[Requirement, ...] = ()
    requirements_note: str = ""
    sections: tuple[Callable[[Path], str], ...] = ()


def _theory_part(obj, name: str) -> TheoryPart:
    if not isinstance(obj, TheoryPart):
        raise TypeError(f"{name} is a {type(obj).__name__}: give a kmdr.report.theory.TheoryPart")
    return obj


#: The papers' theory parts, by paper key.
THEORY: Registry = Registry(
    "theory part", "kmdr.papers", convert=_theory_part, paper_field="theory"
)


def theory_parts() -> list[TheoryPart]:
    """Every registered theory part, in registry order."""
    return [THEORY.get(name) for name in THEORY]


def bounds() -> tuple[Bound, ...]:
    """Every registered theorem, part by part."""
    return tuple(b for part in theory_parts() for b in part.bounds)


def bounds_for(method: str) -> list[Bound]:
    """The theorems that speak about ``method`` (a label as in ``cells.csv``)."""
    return [b for b in bounds() if method in b.methods]


def bound_applies(bound: Bound, r: int, k: int, eps: float = EPS_EXPERIMENTS) -> str:
    """Whether ``r`` meets ``bound``'s requirement: 'yes', 'no (...)' or 'unknown (...)'."""
    if bound.r_required is None:
        return "unknown (constants unspecified)"
    need = bound.r_required(k, eps)
    if bound.r_equals_k:
        return "yes" if int(r) == int(k) else f"no (theorem is for r = k = {k})"
    if r >= need:
        return "yes"
    return f"no (needs r ≥ {need:.3g})"


# --------------------------------------------------------------------------------------------
# Empirical approximation ratio
# --------------------------------------------------------------------------------------------

#: Above this estimated γ no bound is judged: a factor 1 + (2 + ε)γ is already > 5, and the
#: ratio then measures Lloyd's local optimum rather than the reduction.
GAMMA_LARGE = 2.0

RATIO_COLUMNS = [
    "experiment",
    "setting",
    "dataset",
    "method",
    "baseline",
    "r",
    "k",
    "n_repetitions",
    "ratio_max",
    "ratio_median",
    "ratio_min",
    "gamma_defined",
    "gamma_at_worst",
    "gamma_max",
    "f_best",
    "f_best_method",
]


def _setting_columns(cells: pd.DataFrame) -> list[str]:
    from kmdr.results.reading import SETTING_COLUMNS

    return [c for c in SETTING_COLUMNS if c in cells.columns and c != "dataset"]


def clusters_itself(reducer_name) -> bool:
    """Whether the registry reducer ``reducer_name`` clusters its own output (a ``cluster``
    method, as sparsified k-means): its partition is not a k-means run on C, so γ̂ is not
    defined for it. Unknown names (a plug-in not installed) are taken as clustered by k-means."""
    from kmdr.reducers import reducer_class

    try:
        cls = reducer_class(str(reducer_name))
    except ValueError:
        return False
    return callable(getattr(cls, "cluster", None))


def estimated_gamma(cells: pd.DataFrame) -> pd.Series:
    """Per row, γ̂ = F on C of its partition / the lowest F on C among the rows of its
    (method, r): the approximation factor of the k-means run on the reduced data, estimated
    against the best partition of that reduced data we know (``objective_reduced``).

    The best known is ≥ the optimum, so γ̂ is a *lower* estimate of γ. For a deterministic
    reducer every repetition reduces to the same C, and γ̂ compares partitions of one matrix; for
    a randomized one each repetition has its own C, and γ̂ also carries that variation. NaN where
    ``objective_reduced`` is missing, the group holds a single repetition (nothing to compare), or
    the reducer clusters its own output (:func:`clusters_itself`: no k-means run on C to rate).
    """
    if "objective_reduced" not in cells:
        return pd.Series(np.nan, index=cells.index)
    f = cells["objective_reduced"].astype(float)
    keys = ["method", "r"]
    best = f.groupby([cells[c] for c in keys]).transform("min")
    count = f.groupby([cells[c] for c in keys]).transform("count")
    gamma = f / best
    defined = _gamma_defined(cells)
    return gamma.where((count >= 2) & (best > 0) & np.isfinite(best) & defined)


def _gamma_defined(cells: pd.DataFrame) -> pd.Series:
    """Per row: whether γ̂ means anything (its partition is a k-means run on C)."""
    if "reducer_name" not in cells:
        return pd.Series(True, index=cells.index)
    names = cells["reducer_name"].astype(str)
    own = {n: clusters_itself(n) for n in names.unique()}
    return ~names.map(own).astype(bool)


def approximation_ratios(cells: pd.DataFrame) -> pd.DataFrame:
    """F(partition from C) / F(best partition of A known), per (experiment, setting, dataset,
    method, r), with the estimated γ of each k-means run beside it.

    The denominator is the lowest ``objective`` (F measured on A) of ANY cell of the same
    experiment, setting (the columns of :data:`kmdr.results.reading.SETTING_COLUMNS`: a
    multirun may hold several) and dataset: any method, any r, any repetition, the kMeans
    baseline included. No ratio is therefore below 1, and each is a lower estimate of F / F_opt:
    it can understate the true ratio, never overstate it, so a ratio within a bound does not
    confirm the bound. ``gamma_at_worst`` is :func:`estimated_gamma` of the repetition giving
    ``ratio_max`` (the worst one), ``gamma_max`` the largest over the repetitions;
    ``gamma_defined`` is False where γ̂ has no meaning (the reducer clusters its own output);
    ``baseline`` marks kMeans on A.
    """
    if cells is None or len(cells) == 0 or "objective" not in cells:
        return pd.DataFrame(columns=RATIO_COLUMNS)
    cells = cells.copy()
    if "experiment" not in cells:
        cells["experiment"] = ""
    setting_cols = _setting_columns(cells)
    from kmdr.results.reading import is_baseline, setting_labels

    labels = setting_labels(cells) if setting_cols else None
    cells["_setting"] = "" if labels is None else labels.fillna("")
    rows = []
    group_keys = ["experiment", "_setting", "dataset", *setting_cols]
    for key, group in cells.groupby(group_keys, sort=True, dropna=False):
        exp, setting, ds = key[:3]
        f_all = group["objective"].astype(float)
        if not f_all.notna().any() or not np.isfinite(f_all.min()) or f_all.min() <= 0:
            continue
        f_best = float(f_all.min())
        best_method = str(group.loc[f_all.idxmin(), "method"])
        gamma = estimated_gamma(group)
        defined = _gamma_defined(group)
        each = pd.DataFrame(
            {
                "ratio": f_all / f_best,
                "gamma": gamma,
                "defined": defined,
                # the declared baseline: no reducer and no rows step (a coreset alone is not it)
                "baseline": is_baseline(group).to_numpy(),
                "k": group.get("n_clusters", -1),
            }
        )
        # one row per (method, r) with a ratio, all its statistics computed in one grouping
        keys = [group["method"], group["r"]]
        per = each.groupby(keys, sort=True).agg(
            n=("ratio", "count"),
            ratio_max=("ratio", "max"),
            ratio_median=("ratio", "median"),
            ratio_min=("ratio", "min"),
            gamma_max=("gamma", "max"),
            defined=("defined", "all"),
            baseline=("baseline", "all"),
            k=("k", "first"),
        )
        per = per[per["n"] > 0]
        # γ̂ of the repetition with the worst ratio (the first such row, as idxmax takes)
        rated = each[each["ratio"].notna()]
        worst = rated.groupby(keys, sort=True)["ratio"].idxmax()
        for (method, r), row in per.iterrows():
            rows.append(
                {
                    "experiment": exp,
                    "setting": setting,
                    "dataset": ds,
                    "method": method,
                    "baseline": bool(row["baseline"]),
                    "r": int(r),
                    "k": int(row["k"]),
                    "n_repetitions": int(row["n"]),
                    "ratio_max": float(row["ratio_max"]),
                    "ratio_median": float(row["ratio_median"]),
                    "ratio_min": float(row["ratio_min"]),
                    "gamma_defined": bool(row["defined"]),
                    "gamma_at_worst": float(gamma.loc[worst.loc[(method, r)]]),
                    "gamma_max": float(row["gamma_max"]),
                    "f_best": f_best,
                    "f_best_method": best_method,
                }
            )
    return pd.DataFrame(rows, columns=RATIO_COLUMNS)


def bound_at_gamma(bound: Bound, gamma: float, eps: float = EPS_EXPERIMENTS) -> str:
    """The bound's factor at the estimated γ, or why it cannot be judged (γ unknown or large)."""
    if not np.isfinite(gamma):
        return "γ unknown"
    if gamma > GAMMA_LARGE:
        return f"cannot apply: γ̂ = {gamma:.3g} > {GAMMA_LARGE:g}"
    return f"{bound.factor(eps, gamma):.3g}"
