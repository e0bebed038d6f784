"""The question users bring to coresets, answered from the cells: reduce (or not), build a
coreset, run Lloyd on it; how much faster is that than k-means on all rows, and how much worse is
its solution on all rows?

A *pipeline* is one (method, r) of an experiment whose cells solve the coreset by Lloyd
(:mod:`kmdr.engine.coresets`, ``solve: lloyd``): its cells' ``objective_centers`` is the cost of
its centers on ALL rows over ``||A||^2``, its ``total_seconds`` the whole pipeline (reduction,
construction, Lloyd on the coreset, and the assignment of every row). The *baseline* is the
experiment's k-means on all rows and all features (:func:`kmdr.results.reading.is_baseline`),
its cost F (``objective``). Per pipeline (:func:`pipeline_table`):

- the **speed-up**, the baseline's time over the pipeline's: the ratio of their geometric means
  with its 95% interval (Welch's t on the log times; the baseline and the pipelines draw their
  own seeds, so the repetitions are not paired);
- the **cost ratio**, the pipeline's cost on all rows over the baseline's: the ratio of their
  medians over the repetitions, of their best (lowest) repetitions, and of their geometric means
  with its 95% interval.

The question "the fastest pipeline whose cost is within 1%, 2% and 5% of k-means on all rows"
(:func:`fastest_within`, :data:`TOLERANCES`) is tested: a pipeline qualifies when the one-sided
Welch test on the log costs shows its geometric-mean cost ratio below ``1 + tolerance``, Holm
over the pipelines whose means are within it; the fastest that qualifies (by its mean time) is
named, with its speed-up. An experiment without the baseline has no such question.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr.report._text import md_table
from kmdr.report.claims.significance import replicates
from kmdr.report.sections import ReportSection
from kmdr.stats import ALPHA, Sample, holm, log_of, margin_test, p_text, test

__all__ = ["PIPELINES", "TOLERANCES", "fastest_within", "has_pipelines", "pipeline_table"]

#: The cost tolerances of the question, as fractions of k-means on all rows' cost.
TOLERANCES = (0.01, 0.02, 0.05)
#: The columns a pipeline's cost and time are read from.
COST, BASE_COST, TIME = "objective_centers", "objective", "total_seconds"


def _lloyd_rows(df: pd.DataFrame) -> pd.Series:
    """The rows of pipelines: Lloyd on a coreset (the solve column is written only away from
    Lloyd, its default), with the cost of their centers on all rows."""
    solve = df["solve"] if "solve" in df else pd.Series("lloyd", index=df.index)
    return (
        solve.astype("string").fillna("lloyd").eq("lloyd") & df[COST].notna() & ~df["is_baseline"]
    )


def has_pipelines(cells: pd.DataFrame) -> bool:
    """Whether the cells hold pipelines (Lloyd on a coreset) and the baseline to set them by."""
    if cells.empty or COST not in cells:
        return False
    df = replicates(cells)
    return bool(_lloyd_rows(df).any() and df["is_baseline"].any())


def _sample(part: pd.DataFrame, column: str) -> Sample:
    by_rep = part.groupby("repetition")[column].mean()
    return Sample(by_rep.to_numpy(dtype=float), tuple(by_rep.index))


def _ratio_ci(t) -> tuple[float, float, float]:
    """A test on logs as (ratio, low, high) of a over b."""
    return math.exp(t.diff), math.exp(t.ci[0]), math.exp(t.ci[1])


def _measured(cells: pd.DataFrame) -> tuple[pd.DataFrame, dict, Sample | None]:
    """Every pipeline's row of :func:`pipeline_table`, each pipeline's log costs by (method,
    r), and the baseline's log cost: what the table and the questions read, computed once."""
    if not has_pipelines(cells):
        return pd.DataFrame(), {}, None
    df = replicates(cells)
    base = df[df["is_baseline"]]
    base_time, base_cost = log_of(_sample(base, TIME)), log_of(_sample(base, BASE_COST))
    base_costs = base.groupby("repetition")[BASE_COST].mean()
    rows, log_costs = [], {}
    for (method, r), part in df[_lloyd_rows(df)].groupby(["method", "r"], sort=False):
        key = (str(method), int(r))
        time, cost = log_of(_sample(part, TIME)), log_of(_sample(part, COST))
        log_costs[key] = cost
        costs = part.groupby("repetition")[COST].mean()
        speed = _ratio_ci(test(base_time, time)) if time and base_time else (math.nan,) * 3
        ratio = _ratio_ci(test(cost, base_cost)) if cost and base_cost else (math.nan,) * 3
        rows.append({
            "method": key[0], "r": key[1], "n": int(part["repetition"].nunique()),
            "seconds": float(part.groupby("repetition")[TIME].mean().mean()),
            "speedup": speed[0], "speedup_low": speed[1], "speedup_high": speed[2],
            "cost_median": float(costs.median() / base_costs.median()),
            "cost_best": float(costs.min() / base_costs.min()),
            "cost_ratio": ratio[0], "cost_low": ratio[1], "cost_high": ratio[2],
        })  # fmt: skip
    table = pd.DataFrame(rows).sort_values("seconds", kind="stable").reset_index(drop=True)
    return table, log_costs, base_cost


def pipeline_table(cells: pd.DataFrame) -> pd.DataFrame:
    """One row per pipeline: ``method``, ``r``, ``n``, the mean ``seconds``, the speed-up
    (``speedup`` and its ``speedup_low``/``speedup_high`` 95% bounds), the cost ratio's
    ``cost_median``, ``cost_best``, and ``cost_ratio`` with ``cost_low``/``cost_high``; sorted
    fastest first. Empty without pipelines or baseline."""
    return _measured(cells)[0]


def fastest_within(cells: pd.DataFrame, tolerance: float) -> dict:
    """The fastest pipeline whose cost on all rows is shown within ``1 + tolerance`` of k-means
    on all rows (see the module docstring): ``{"pick": (method, r) or None, "p": its one-sided
    p, "p_holm": Holm's, "tested": how many were tested, "closest": the best p's (method, r)
    when none qualifies}``."""
    return _fastest(_measured(cells), tolerance)


def _fastest(measured: tuple, tolerance: float) -> dict:
    """:func:`fastest_within` on the pipelines already measured (:func:`_measured`)."""
    table, log_costs, base_cost = measured
    bound = math.log1p(tolerance)
    tests = []
    for row in table.itertuples():  # fastest first
        cost = log_costs[(row.method, row.r)]
        if cost is None or base_cost is None or row.cost_ratio > 1 + tolerance:
            continue  # only the pipelines within it by their means are tested
        _, t = margin_test(cost, base_cost, -math.inf, bound)
        tests.append(((row.method, row.r), t))
    adjusted = holm([t.p for _, t in tests]) if tests else np.array([])
    for (key, t), p_adj in zip(tests, adjusted, strict=True):
        if p_adj < ALPHA and t.diff < bound:
            return {"pick": key, "p": t.p, "p_holm": float(p_adj), "tested": len(tests),
                    "closest": None}  # fmt: skip
    closest = min(tests, key=lambda x: math.inf if math.isnan(x[1].p) else x[1].p, default=None)
    return {"pick": None, "p": math.nan if closest is None else closest[1].p, "p_holm": math.nan,
            "tested": len(tests), "closest": None if closest is None else closest[0]}  # fmt: skip


def _point(key) -> str:
    method, r = key
    return f"{method} at r = {r}"


def question_rows(cells: pd.DataFrame) -> list[list[str]]:
    """The rows "fastest within 1% / 2% / 5% of k-means on all rows" of an experiment's "What to
    use" table; none without pipelines or the baseline."""
    measured = _measured(cells)
    table = measured[0]
    if table.empty:
        return []
    by_key = {(r.method, r.r): r for r in table.itertuples()}
    rows = []
    for tolerance in TOLERANCES:
        question = f"fastest pipeline within {tolerance:.0%} of k-means on all rows' cost"
        got = _fastest(measured, tolerance)
        if got["pick"] is None:
            why = (f"none shown at n = {int(table['n'].max())} (of {got['tested']} within it by "
                   "their means" + (f"; closest: {_point(got['closest'])}, "
                                    f"{p_text(got['p'])}, one-sided" if got["closest"] else "")
                   + ")")  # fmt: skip
            rows.append([question, "none shown", "—", "—", why])
            continue
        row = by_key[got["pick"]]
        rows.append([
            question, _point(got["pick"]),
            f"cost ×{row.cost_ratio:.4g} [{row.cost_low:.4g}, {row.cost_high:.4g}]",
            f"{row.seconds:.3g} s",
            f"{row.speedup:.3g}× faster [{row.speedup_low:.3g}, {row.speedup_high:.3g}]; cost "
            f"below ×{1 + tolerance:g} ({p_text(got['p'])}, {p_text(got['p_holm'], 'p_Holm')}, "
            f"one-sided Welch on the log costs, Holm over the {got['tested']} pipeline(s) within "
            "it by their means)",
        ])  # fmt: skip
    return rows


def _block(exp) -> list[str]:
    out = [f"### {exp.preset.get('title') or exp.name}", ""]
    table = pipeline_table(exp.cells)
    if table.empty:
        return [*out, "**No data**: no pipeline or no k-means on all rows in this folder."]
    shown = [
        [row.method, str(row.r), str(row.n), f"{row.seconds:.3g}",
         f"{row.speedup:.3g} [{row.speedup_low:.3g}, {row.speedup_high:.3g}]",
         f"{row.cost_median:.4g}", f"{row.cost_best:.4g}",
         f"{row.cost_ratio:.4g} [{row.cost_low:.4g}, {row.cost_high:.4g}]"]
        for row in table.itertuples()
    ]  # fmt: skip
    header = ["pipeline", "r", "n", "seconds", "speed-up [95%]", "cost ratio (median)",
              "cost ratio (best)", "cost ratio (geometric mean) [95%]"]  # fmt: skip
    out += [md_table(header, shown), ""]
    out += [md_table(["question", "answer", "cost", "time", "evidence"], question_rows(exp.cells))]
    return out


_INTRO = (
    "Each pipeline reduces the columns (or not), builds a coreset of the rows, runs weighted "
    "Lloyd on it with the experiment's k-means settings, and assigns every row to its centers. "
    "Its **speed-up** is the time of k-means on all rows and all features (the baseline, in the "
    "same run) over its own, whole pipeline included; its **cost ratio** is the cost of its "
    "centers on all rows over the baseline's: of their medians over the repetitions, of their "
    "best repetitions, and of their geometric means with a 95% interval (Welch's t on the logs; "
    "the repetitions are not paired, each method drawing its own seeds). A pipeline is named "
    "within 1%, 2% or 5% only when the one-sided test shows its cost ratio below that bound "
    "(Holm over the pipelines within it by their means); the fastest so shown is named. Times "
    "are those of one machine under one load, compared within one run."
)


def render_pipelines(root: Path, members: list, context) -> str:
    out = ["## Coresets against k-means on all rows", "", _INTRO]
    if not members:
        out += ["", "**No data**: no pipelines preset has run here."]
    for exp in members:
        out += ["", *_block(exp)]
    return "\n".join(out)


#: The report section ``pipelines``.
PIPELINES = ReportSection(render=render_pipelines, default_order=62, always_shown=False)
