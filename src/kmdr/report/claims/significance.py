"""The statistics the claims rest on: each method's per-repetition values read from the cells,
the tests on them (Welch's or the paired t-test, two-sided or against a tolerance; the sign test
where no repetition differs from another), Hedges' g or, for times and memory, the ratio with its
95% interval, the smallest effect a test could have detected, Holm's correction and how a p-value
is printed.

**The unit of replication is the repetition.** A method's repetition is one draw of everything
random in its cells (their seeds, the reduction shared by its r points, the machine's load
while they ran), so the r points of one repetition are not independent: a comparison over
several r first reduces each repetition to one number (the mean over the r it covers, or a
difference of two such means) and tests those numbers, one per repetition. Two methods are
paired when their repetitions share seeds (repetition i of both has the same seeds); otherwise
their per-repetition numbers are independent samples (Welch's t). See :mod:`.verdicts` for how a
claim's comparisons are judged with them.

**Copies of one computation are one observation.** A point whose every repetition runs the same
deterministic computation (a start that draws nothing, such as the label-informed first point of
each class, after a reduction that draws nothing: its cells give the same partition, bit for bit,
in every repetition) is measured once, whatever its number of rows: its accuracy and F are one
observation (:attr:`Sample.single`), but its times are measurements, one per repetition (a time
ratio is always a test on both sets of timings). Against a side that varies, it is a fixed
value (the one-sample test of the other side's repetitions); two such points have no test at
all ("one computation, no test").
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from kmdr.report.experiments import flag_copied_timings
from kmdr.results.reading import is_baseline, setting_labels
from kmdr.stats import (  # noqa: F401 (re-exported: the claims import their statistics here)
    ALPHA,
    ONE_COMPUTATION,
    P_FLOOR,
    POWER,
    Sample,
    Test,
    difference,
    effect_text,
    equivalence_interval,
    holm,
    interval_text,
    is_time,
    log_of,
    margin_test,
    margin_test_from_summary,
    p_text,
    ratio_test,
    ratio_text,
    t_interval,
    test,
)

#: How the claims and their evidence name the no-reduction baseline; its rows are found by the
#: reducer declared ``baseline=True`` (:func:`kmdr.results.reading.is_baseline`), whatever the
#: label.
BASELINE = "kMeans"
#: What a replicate is, as the report's legend says it.
REPLICATE = (
    "The unit of every test is the repetition: each method's repetition (its own seeds, the "
    "reduction its r points share, the load of the machine while they ran) gives one number, "
    "its mean over the r points the comparison covers (or the difference of two such means), "
    "so r points of one repetition never count as independent samples. A point whose "
    "repetitions repeat one deterministic computation (the same label-informed start after a "
    "reduction that draws nothing) is one observation for its accuracy and F: against a side "
    "that varies it is a fixed value, and between two such points there is no test (one "
    "computation, no test). Its times are measurements all the same: a time ratio is always "
    "a test on both sets of timings, one per repetition."
)
#: The k-means starts that draw from the seed: any other start (the label-informed first point of
#: each class) makes Lloyd deterministic.
RANDOM_STARTS = ("k-means++", "random", "sample")


def replicates(cells: pd.DataFrame) -> pd.DataFrame:
    """An experiment's cells as the claims read them: each time flagged where it was copied
    between repetitions (:func:`kmdr.report.experiments.flag_copied_timings`, so that no test
    uses it), whether it is the no-reduction baseline (``is_baseline``, read once) and, on an
    experiment holding several settings, each cell's ``setting`` (a claim is judged per
    setting, never on curves averaged over settings)."""
    if cells.empty or "is_baseline" in cells:
        return cells
    out = cells.reset_index(drop=True)
    out["is_baseline"] = is_baseline(out).to_numpy()
    if "reduce_seconds" in out and "reduce_seconds_copied" not in out:
        out = flag_copied_timings(out, out)
    labels = setting_labels(out) if "dataset" in out else None
    if labels is not None and "setting" not in out:
        out.insert(0, "setting", labels.to_numpy())
    if "single" not in out:
        out["single"] = one_computation(out).to_numpy()
    return out


def one_computation(cells: pd.DataFrame) -> pd.Series:
    """Per cell: whether its point (setting, method, r) repeats one deterministic computation
    in every repetition: a start that draws nothing (``kmeans_init`` not among
    :data:`RANDOM_STARTS`) and the same partition's F, on A and on C, in all of at least two
    repetitions (a reduction that draws something never gives C's F twice to the bit)."""
    no = pd.Series(False, index=cells.index)
    if "kmeans_init" not in cells or "objective" not in cells or "repetition" not in cells:
        return no
    fixed = ~cells["kmeans_init"].astype(str).isin(RANDOM_STARTS)
    if not fixed.any():
        return no
    keys = [c for c in ("setting", "dataset", "method", "r") if c in cells]
    values = [c for c in ("objective", "objective_reduced") if c in cells]
    g = cells.groupby(keys, dropna=False)
    same = g[values].transform("nunique").le(1).all(axis=1)
    many = g["repetition"].transform("nunique").ge(2)
    return fixed & same & many


def table(df: pd.DataFrame, method: str, metric: str) -> pd.DataFrame:
    """``method``'s cells as a table: one row per repetition, one column per r, the value of
    ``metric`` in each (NaN where a cell is missing); ``BASELINE`` selects the no-reduction rows
    by registry name. Its index is (``repetition``, ``seeds``: the repetition's cell seeds as
    one text, "" when the cells have none); ``attrs["copied"]`` says whether any value is a
    copied time. An empty table when the method has no such values."""
    empty = pd.DataFrame(dtype=float)
    empty.attrs["copied"] = False
    if "repetition" not in df or metric not in df:
        return empty
    base = df["is_baseline"] if "is_baseline" in df else is_baseline(df)
    rows = df[base] if method == BASELINE else df[(df["method"] == method) & ~base]
    rows = rows[rows[metric].notna()]
    if rows.empty:
        return empty
    flag = f"{metric}_copied"
    copied = bool(rows[flag].eq(True).any()) if flag in rows else False  # NaN: not copied
    # a deterministic score is one computation; its times are measurements all the same
    single = bool(rows["single"].all()) if "single" in rows and not is_time(metric) else False
    wide = rows.groupby(["repetition", "r"])[metric].mean().astype(float).unstack("r")
    wide = wide.sort_index().sort_index(axis=1)
    if "seed" in rows:
        seeds = rows.groupby("repetition")["seed"].agg(lambda x: " ".join(sorted(map(str, x))))
    else:
        seeds = pd.Series("", index=wide.index)
    wide.index = pd.MultiIndex.from_arrays(
        [wide.index, seeds.reindex(wide.index).to_numpy()], names=["repetition", "seeds"]
    )
    wide.attrs["copied"] = copied
    wide.attrs["single"] = single
    return wide


def as_sample(values, index: pd.Index, copied: bool, single: bool = False) -> Sample:
    """A :class:`Sample` of ``values`` for the repetitions of a :func:`table`'s ``index``."""
    seeds = tuple(index.get_level_values("seeds"))
    return Sample(
        np.asarray(values, dtype=float),
        tuple(index.get_level_values("repetition")),
        seeds if all(seeds) else None,
        copied,
        single,
    )


def sample(wide: pd.DataFrame, grid=None) -> Sample | None:
    """Each repetition of a :func:`table` reduced to one number: its mean over the r of
    ``grid`` (all its r when None). Repetitions missing any of those r are left out. None when
    no repetition remains."""
    if wide.empty:
        return None
    cols = wide.columns if grid is None else [r for r in wide.columns if r in set(grid)]
    if not len(cols):
        return None
    part = wide[cols].dropna()
    if part.empty:
        return None
    single = bool(wide.attrs.get("single"))
    return as_sample(part.mean(axis=1), part.index, bool(wide.attrs.get("copied")), single)


def curve(wide: pd.DataFrame) -> pd.Series:
    """A :func:`table`'s mean over its repetitions at each r (index r ascending)."""
    return wide.mean(axis=0).dropna().astype(float)


def baseline_value(df: pd.DataFrame, metric: str) -> float | None:
    """kMeans' mean ``metric`` (it does not depend on r)."""
    s = sample(table(df, BASELINE, metric))
    return s.mean if s else None
