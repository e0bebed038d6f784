"""The report's "What to use" section: for each experiment, which method at which r gives the
best accuracy (or the lowest F) for the time it takes, read from the committed cells alone.

A point is one (method, r) of one experiment: the means over its repetitions of the accuracy,
of F (``objective``: the partition's k-means cost on A over ||A||²) and of the time per cell
(``total_seconds``: reduction and k-means), each with its 95% t-interval over the repetitions
(the unit of replication, as everywhere in the report). A point is on the accuracy front when no
other point of the experiment is at least as fast and more accurate, on the F front when none is
at least as fast with a lower F. Times are compared only within one experiment: other runs saw
another machine load. The short table names the most accurate point, the fastest point whose
accuracy is within :data:`MARGIN` of it (with the one-sided test that it is not worse by more,
:func:`kmdr.report.claims.significance.margin_test`), and the most accurate point within each
time budget of :data:`BUDGETS` (fractions of the no-reduction k-means's time per cell).

``python -m kmdr.report.what_to_use RESULTS`` writes, in
``RESULTS/what_to_use/<experiment>_pareto/``, ``<experiment>.png`` (the two fronts) and
``<experiment>_front.csv`` (every point, flagged where it is on a front);
:func:`section_what_to_use` writes the section from the cells and links those files.
"""

from __future__ import annotations

import io
import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr.report._text import md_table, number
from kmdr.report.claims.labels import shown_names
from kmdr.report.claims.significance import RANDOM_STARTS, replicates
from kmdr.report.experiments import Experiment, load_all
from kmdr.report.pipelines import question_rows
from kmdr.stats import (
    ALPHA,
    ONE_COMPUTATION,
    POWER,
    Sample,
    holm,
    log_of,
    margin_test,
    p_text,
    ratio_text,
    t_interval,
    test,
)

__all__ = [
    "BUDGETS",
    "FOLDER",
    "HEADING",
    "MARGIN",
    "annotated",
    "choices",
    "fronts",
    "main",
    "named",
    "points",
    "section_what_to_use",
    "stability",
    "write_what_to_use",
]

#: The section's heading (the page's first links go to it).
HEADING = "What to use"
#: The folder of the results holding the section's figures and CSVs.
FOLDER = "what_to_use"
#: How far below the best mean accuracy a point may be and still count as "as accurate".
MARGIN = 0.02
#: The time budgets of the table, as fractions of the baseline's mean time per cell (k-means on
#: all rows and all features, :func:`kmdr.results.reading.is_baseline`); an experiment without
#: the baseline has none.
BUDGETS = (0.25, 1.0)
#: How the questions name the baseline.
BASELINE_TEXT = "k-means on all features"
#: The measures of a point: (column, its name in the section, +1 higher is better / -1 lower).
MEASURES = (("accuracy", "accuracy", 1), ("objective", "F", -1))
TIME = "total_seconds"
_LEVEL = 0.95
#: Resamples of the bootstrap over repetitions that gives each pick's stability, and its seed.
BOOTSTRAP = 200
BOOTSTRAP_SEED = 0
#: A front point kept on its front in at least this share of the resamples is marked stable.
STABLE = 0.8


def _interval(values, bounds=(-math.inf, math.inf)) -> tuple[float, float, float]:
    """Mean and 95% t-interval over the repetitions (the mean alone when they do not vary)."""
    return t_interval(values, _LEVEL, bounds)


def named(cells: pd.DataFrame) -> pd.DataFrame:
    """``cells`` as the section reads them (:func:`replicates`), each method under the one name
    the report gives its algorithm (kmdr's variant of PD says so where its cells say "PD":
    :func:`kmdr.report.claims.labels.shown_names`)."""
    out = replicates(cells)
    names = shown_names(out)
    if names:
        out = out.assign(method=out["method"].replace(names))
    return out


def points(cells: pd.DataFrame) -> pd.DataFrame:
    """One row per (method, r) of one experiment's cells: ``n`` repetitions, and for accuracy,
    objective and time their mean with ``_low`` / ``_high`` 95% bounds; ``baseline`` marks the
    no-reduction k-means."""
    df = replicates(cells)
    columns = [*(m for m, *_ in MEASURES), TIME]
    # one groupby for every point's per-repetition means (a groupby per point took most of the
    # report's time on the committed results)
    per_rep = df.groupby(["method", "r", "repetition"], sort=True)[columns].mean()
    flags = df.assign(single=df.get("single", False))
    meta = flags.groupby(["method", "r"], sort=True).agg(
        reducer_name=("reducer_name", "first"), baseline=("is_baseline", "all"),
        single=("single", "all"),
    )  # fmt: skip
    rows = []
    for (method, r), part in per_rep.groupby(level=["method", "r"], sort=True):
        found = meta.loc[(method, r)]
        row = {"method": method, "reducer_name": str(found["reducer_name"]), "r": int(r),
               "n": len(part), "baseline": bool(found["baseline"]),
               "single": bool(found["single"])}  # fmt: skip
        values = part.to_numpy(dtype=float)
        for i, column in enumerate(columns):
            bounds = (0.0, 1.0) if column == "accuracy" else (0.0, math.inf)
            row[column], row[f"{column}_low"], row[f"{column}_high"] = _interval(
                values[:, i], bounds
            )
        rows.append(row)
    return pd.DataFrame(rows)


def fronts(pts: pd.DataFrame) -> pd.DataFrame:
    """``pts`` with ``front_accuracy`` and ``front_F``: whether each point is on the Pareto front
    of its measure against the mean time (no other point at least as fast and better)."""
    out = pts.copy()
    for column, name, sense in MEASURES:
        score = sense * out[column]
        ordered = out.assign(_s=score).sort_values([TIME, "_s"], ascending=[True, False])
        best_before = ordered["_s"].cummax().shift(fill_value=-np.inf)
        on = ordered["_s"].notna() & (ordered["_s"] > best_before)
        out[f"front_{name}"] = on.reindex(out.index).fillna(False).astype(bool)
    return out


def _per_rep(cells: pd.DataFrame, method: str, r: int, column: str) -> Sample:
    """``column`` of one point's cells, one value per repetition (its seeds for pairing; flagged
    ``single`` where its repetitions repeat one deterministic computation)."""
    df = replicates(cells)
    part = df[(df["method"] == method) & (df["r"] == r)]
    by_rep = part.groupby("repetition")
    values = by_rep[column].mean()
    seeds = by_rep["seed"].agg(lambda x: " ".join(sorted(map(str, x)))) if "seed" in part else None
    # a deterministic score is one computation; its times are measurements all the same
    single = bool(part["single"].all()) if "single" in part and column != TIME else False
    return Sample(
        values.to_numpy(dtype=float),
        tuple(values.index),
        None if seeds is None else tuple(seeds.reindex(values.index)),
        single=single,
    )


def _point_text(row) -> str:
    return f"{row['method']}" if row["baseline"] else f"{row['method']} at r = {row['r']}"


def _acc(row) -> str:
    if row.get("single", False):
        return f"{number(row['accuracy'])} (one computation)"
    return (
        f"{number(row['accuracy'])} [{number(row['accuracy_low'])}, {number(row['accuracy_high'])}]"
    )


def _time(row) -> str:
    return f"{row[TIME]:.3g} s"


def _key(row) -> tuple[str, int]:
    return str(row["method"]), int(row["r"])


# --------------------------------------------------------------------------------------------
# The rules on the means (the picks before their tests; the bootstrap replays them)
# --------------------------------------------------------------------------------------------


def _by_accuracy(pts: pd.DataFrame) -> pd.DataFrame:
    """The points most accurate first, ties broken toward the cheaper (lower mean time)."""
    return pts.sort_values(["accuracy", TIME], ascending=[False, True], kind="stable")


def _reference_time(pts: pd.DataFrame) -> float | None:
    """The baseline's mean time per cell (k-means on all rows and all features), or None in an
    experiment without it: it then has no budget question."""
    base = pts[pts["baseline"]]
    return float(base[TIME].iloc[0]) if len(base) else None


def _candidates(pts: pd.DataFrame, best) -> pd.DataFrame:
    """The points of the accuracy front faster than ``best`` and within :data:`MARGIN` of its
    mean accuracy, fastest first (a point off the front is slower than one at least as
    accurate, so it is never the answer)."""
    near = pts[pts["front_accuracy"] & (pts["accuracy"] >= best["accuracy"] - MARGIN)
               & (pts[TIME] < best[TIME])]  # fmt: skip
    return near.sort_values(TIME, kind="stable")


# --------------------------------------------------------------------------------------------
# Stability: a bootstrap over the repetitions
# --------------------------------------------------------------------------------------------


def _per_rep_wide(cells: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """The points (method, r, baseline) and, per measure, their per-repetition means as a
    (point x repetition) array (NaN where a point lacks a repetition)."""
    df = replicates(cells)
    keys = ["method", "r"]
    info = df.groupby(keys, sort=True).agg(baseline=("is_baseline", "all"))
    reps = sorted(df["repetition"].unique())
    wide = {
        column: df.groupby([*keys, "repetition"])[column].mean().unstack("repetition")
        .reindex(index=info.index, columns=reps).to_numpy(dtype=float)
        for column in (TIME, *(m for m, *_ in MEASURES))
    }  # fmt: skip
    return info, wide


def _front_mask(time: np.ndarray, score: np.ndarray) -> np.ndarray:
    """:func:`fronts`'s rule on arrays: no other point at least as fast with a higher score."""
    score = np.where(np.isnan(score), -np.inf, score)
    order = np.lexsort((-score, time))
    s = score[order]
    before = np.maximum.accumulate(np.concatenate([[-np.inf], s[:-1]]))
    on = np.zeros(len(time), dtype=bool)
    on[order] = (s > before) & np.isfinite(s)
    return on


def _picks_of(acc, time, front, baseline) -> dict[str, int | None]:
    """Each question's pick by the means alone (indices of the points): the most accurate (ties
    toward the cheaper), the fastest point of the accuracy front within :data:`MARGIN` of it,
    and the most accurate point of the front within each budget (ties toward the cheaper). The
    table names these only where their own test passes (:func:`choices`); the bootstrap
    replays this rule on each resample."""
    ok = ~np.isnan(acc)
    if not ok.any():
        return {}
    idx = np.flatnonzero(ok)
    ranked = idx[np.lexsort((time[idx], -acc[idx]))]
    best = int(ranked[0])
    near = np.flatnonzero(front & ok & (acc >= acc[best] - MARGIN) & (time < time[best]))
    out: dict[str, int | None] = {"best": best}
    out["fast"] = int(near[np.argmin(time[near])]) if near.size else best
    if not baseline.any():  # no baseline, no budget question
        return out
    reference = float(time[baseline][0])
    for share in BUDGETS:
        within = [int(i) for i in ranked if front[i] and time[i] <= share * reference]
        out[f"budget {share:g}"] = within[0] if within else None
    return out


def stability(cells: pd.DataFrame, n: int = BOOTSTRAP, seed: int = BOOTSTRAP_SEED):
    """A bootstrap over the repetitions (``n`` resamples drawn with replacement, the same draw
    for every point: a repetition is one draw of everything random, shared by the points of
    one experiment), seeded: for each point the share of resamples that keep it on each front
    (``stable_accuracy``, ``stable_F``), and for each question of :func:`_picks_of` the share
    of resamples whose rule picks the same point (a dict question -> {(method, r): share})."""
    info, wide = _per_rep_wide(cells)
    keys = [(str(m), int(r)) for m, r in info.index]
    baseline = info["baseline"].to_numpy(dtype=bool)
    n_reps = wide[TIME].shape[1]
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n_reps, np.full(n_reps, 1 / n_reps), size=n)  # (n, reps)
    means = {}
    for column, values in wide.items():
        present = ~np.isnan(values)
        total = np.where(present, values, 0.0) @ counts.T  # (points, n)
        weight = present.astype(float) @ counts.T
        with np.errstate(invalid="ignore", divide="ignore"):
            means[column] = total / weight
    on = {name: np.zeros(len(keys)) for _, name, _ in MEASURES}
    picks: dict[str, dict] = {}
    for b in range(n):
        time = means[TIME][:, b]
        fronts_b = {name: _front_mask(time, sense * means[column][:, b])
                    for column, name, sense in MEASURES}  # fmt: skip
        for name, mask in fronts_b.items():
            on[name] += mask
        chosen = _picks_of(means["accuracy"][:, b], time, fronts_b["accuracy"], baseline)
        for question, i in chosen.items():
            tally = picks.setdefault(question, {})
            key = None if i is None else keys[i]
            tally[key] = tally.get(key, 0) + 1
    shares = pd.DataFrame({f"stable_{name}": on[name] / n for _, name, _ in MEASURES},
                          index=info.index).reset_index()  # fmt: skip
    return shares, {q: {k: c / n for k, c in tally.items()} for q, tally in picks.items()}


def annotated(cells: pd.DataFrame) -> pd.DataFrame:
    """The points with their fronts and their stability (the CSV's columns)."""
    pts = fronts(points(cells))
    shares, _ = stability(cells)
    return pts.merge(shares, on=["method", "r"], how="left")


# --------------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------------


def _kind(t) -> str:
    if t.why == ONE_COMPUTATION:
        return ONE_COMPUTATION
    if t.exact:
        return "no spread: exact sign test"
    return "paired" if t.paired else "one-sample against one computation" if t.n_b == 0 else "Welch"


def _time_ratio(cells: pd.DataFrame, a, b) -> tuple[str, object]:
    """a's time over b's as a ratio of geometric means with its 95% interval (the test on the
    per-repetition log times), and that test."""
    ta = log_of(_per_rep(cells, a["method"], a["r"], TIME))
    tb = log_of(_per_rep(cells, b["method"], b["r"], TIME))
    if ta is None or tb is None:
        return f"×{a[TIME] / b[TIME]:.3g} (a time of 0 s: no interval)", None
    t = replace(test(ta, tb), log=True)
    if t.why == ONE_COMPUTATION:
        return f"×{a[TIME] / b[TIME]:.3g} ({ONE_COMPUTATION})", t
    return ratio_text(t).removeprefix("ratio "), t


def _runs_of(cells: pd.DataFrame, *rows) -> set[str]:
    if "run_id" not in cells:
        return set()
    keys = {(str(r["method"]), int(r["r"])) for r in rows}
    mask = [(m, int(r)) in keys for m, r in zip(cells["method"], cells["r"], strict=True)]
    return set(cells.loc[mask, "run_id"].astype(str))


def _across(cells: pd.DataFrame, *rows) -> str:
    runs = _runs_of(cells, *rows)
    return f"; times from {len(runs)} runs (their loads above)" if len(runs) > 1 else ""


def _stable(shares: dict[str, dict], question: str, key) -> str:
    """How often the rule by the means alone (untested: :func:`_picks_of`) picks the point named
    on the bootstrap resamples, and its most frequent pick where that is another point: the
    named point passed its test, which the resamples do not replay."""
    tally = shares.get(question, {})
    share = tally.get(key, 0.0)
    text = (f"the rule by the means alone (untested) picks it in {share:.0%} of {BOOTSTRAP} "
            "bootstrap resamples")  # fmt: skip
    top = max(tally.items(), key=lambda kv: kv[1], default=(None, 0.0))
    if top[0] is not None and top[0] != key and top[1] > share:
        method, r = top[0]
        text += f" (most often {method} at r = {r}: {top[1]:.0%})"
    return text


def choices(cells: pd.DataFrame, pts: pd.DataFrame, shares: dict | None = None) -> list[list[str]]:
    """The short table's rows: (question, point, accuracy [95% interval], time per cell, note).

    Each pick is the rule's on the means (:func:`_picks_of`: ties toward the cheaper point),
    named only where its own test passes: "within :data:`MARGIN`" the one-sided test that it is
    not worse by more (Holm over the front's candidates, the fastest passing one named), "within
    a budget" the one-sided test that its time ratio to the reference is below the budget (Holm
    over the points within it by their means, the most accurate passing one named). Where none
    passes, the row says what no point could show at this n. A point that repeats one
    deterministic computation has no test: it is named with "one computation, no test". Each
    note gives the time ratio with its 95% interval and the pick's share of bootstrap
    resamples (:func:`stability`)."""
    pts = fronts(pts[pts["accuracy"].notna()].reset_index(drop=True))
    if pts.empty:
        return []
    cells = replicates(cells)
    shares = stability(cells)[1] if shares is None else shares
    n = int(pts["n"].max())
    ranked = _by_accuracy(pts)
    best = ranked.iloc[0]
    rows = [["most accurate", _point_text(best), _acc(best), _time(best),
             _stable(shares, "best", _key(best))]]  # fmt: skip
    rows.append(_fastest_within(cells, pts, best, n, shares))
    # with coresets solved by Lloyd: the fastest pipeline within 1%, 2%, 5% of the baseline's cost
    rows += question_rows(cells)
    reference = _reference_time(pts)
    if reference is None:  # the budgets are fractions of the baseline's time: none without it
        return rows
    base = pts[pts["baseline"]]
    for share in BUDGETS:
        rows.append(_within_budget(cells, ranked, base, share, reference, BASELINE_TEXT, n,
                                   shares))  # fmt: skip
    return rows


def _fastest_within(cells, pts, best, n, shares) -> list[str]:
    question = f"fastest within {MARGIN:g} of the most accurate"
    near = _candidates(pts, best)
    if near.empty:
        return [question, _point_text(best), _acc(best), _time(best),
                "the most accurate itself: no faster point of the front is within "
                f"{MARGIN:g} of it"]  # fmt: skip
    b = _per_rep(cells, best["method"], best["r"], "accuracy")
    tests = []
    for _, row in near.iterrows():
        a = _per_rep(cells, row["method"], row["r"], "accuracy")
        inside, t = margin_test(a, b, -MARGIN, math.inf)
        tests.append((row, inside, t))
    adjusted = holm([t.p if inside else math.nan for _, inside, t in tests])
    family = f"Holm over the {len(tests)} faster front point(s) within {MARGIN:g} by their means"
    for (row, inside, t), p_adj in zip(tests, adjusted, strict=True):
        exact = t.why == ONE_COMPUTATION
        if not (exact or (inside and p_adj < ALPHA)):
            continue
        ratio, _ = _time_ratio(cells, best, row)
        if exact:
            shown = f"{best['accuracy'] - row['accuracy']:.3g} below it ({ONE_COMPUTATION})"
        else:
            shown = (f"within {MARGIN:g} of it ({p_text(t.p)}, {p_text(p_adj, 'p_Holm')}, "
                     f"one-sided, n = {t.n_a}, {_kind(t)}; {family})")  # fmt: skip
        note = (f"{ratio} faster; {shown}{_across(cells, best, row)}; "
                f"{_stable(shares, 'fast', _key(row))}")  # fmt: skip
        return [question, _point_text(row), _acc(row), _time(row), note]
    closest = min(tests, key=lambda x: math.inf if math.isnan(x[2].p) else x[2].p)
    row, _, t = closest
    return [question, "none shown", "—", "—",
            f"no faster point is shown within {MARGIN:g} of the most accurate at n = {n} "
            f"(closest: {_point_text(row)}, {p_text(t.p, why=t.why or 'no test')}, one-sided, "
            f"{_kind(t)}{_reach(t, ALPHA / len(tests), f'above the −{MARGIN:g} bound')}; "
            f"{family}); the means pick {_point_text(near.iloc[0])} in "
            f"{shares.get('fast', {}).get(_key(near.iloc[0]), 0.0):.0%} of {BOOTSTRAP} "
            "resamples"]  # fmt: skip


def _reach(t, alpha: float, where: str) -> str:
    """What a test of this design could show at ``alpha`` (power :data:`POWER`)."""
    if t.exact:
        smallest = 0.5**t.n_a
        return f"; a sign test on {t.n_a} repetitions has smallest p {smallest:.2g}"
    _g, delta = t.detectable(alpha)
    if math.isnan(delta):
        return ""
    if t.log:
        return (f"; it would show a true ratio ×{math.exp(-delta):.3g} {where} with power "
                f"{POWER:g}")  # fmt: skip
    return f"; it would show a true mean {delta:.3g} {where} with power {POWER:g}"


def _within_budget(cells, ranked, base, share, reference, what, n, shares) -> list[str]:
    budget = share * reference
    question = f"most accurate within {share:g}× the time of {what} ({budget:.3g} s)"
    within = ranked[ranked["front_accuracy"] & (ranked[TIME] <= budget)]
    if within.empty:
        return [question, "none", "—", "—", "no point is that fast on the means"]
    ref = base.iloc[0]
    tr = log_of(_per_rep(cells, ref["method"], ref["r"], TIME))
    tests = []
    for _, row in within.iterrows():
        if row["baseline"]:
            tests.append((row, None))
            continue
        ta = log_of(_per_rep(cells, row["method"], row["r"], TIME))
        t = None
        if ta is not None and tr is not None:
            _, t = margin_test(ta, tr, -math.inf, math.log(share))
            t = replace(t, log=True)
        tests.append((row, t))
    ps = [math.nan if t is None or t.why == ONE_COMPUTATION else t.p for _, t in tests]
    adjusted = holm(ps)
    family = (f"Holm over the {int(np.sum(~np.isnan(adjusted)))} front point(s) within it by "
              "their means")  # fmt: skip
    for (row, t), p_adj in zip(tests, adjusted, strict=True):
        key = _key(row)
        stable = _stable(shares, f"budget {share:g}", key)
        if row["baseline"]:  # k-means on all features within its own time: no test needed
            return [question, _point_text(row), _acc(row), _time(row),
                    f"k-means on all features itself; {stable}"]  # fmt: skip
        if t is None:
            continue
        ratio = ratio_text(t).removeprefix("ratio ")
        if t.why == ONE_COMPUTATION:
            ratio = f"×{row[TIME] / ref[TIME]:.3g}"
            return [question, _point_text(row), _acc(row), _time(row),
                    f"{ratio} the time of {what} ({ONE_COMPUTATION}); {stable}"]  # fmt: skip
        if p_adj < ALPHA and t.diff < math.log(share):
            return [question, _point_text(row), _acc(row), _time(row),
                    f"{ratio} the time of {what}, below ×{share:g} ({p_text(t.p)}, "
                    f"{p_text(p_adj, 'p_Holm')}, one-sided, {_kind(t)}; {family})"
                    f"{_across(cells, row, ref)}; {stable}"]  # fmt: skip
    row, t = next(((r, t) for r, t in tests if t is not None), (within.iloc[0], None))
    why = (
        ""
        if t is None
        else (
            f" (the most accurate by the means, {_point_text(row)}: "
            f"{ratio_text(t).removeprefix('ratio ')}, {p_text(t.p, why=t.why or 'no test')}"
            f"{_reach(t, ALPHA, f'below ×{share:g}')})"
        )
    )
    return [
        question,
        "none shown",
        "—",
        "—",
        f"no point is shown below ×{share:g} the time of {what} at n = {n}{why}; {family}",
    ]


def _loads(exp: Experiment) -> str:
    """The runs an experiment's cells come from and the load each ran under, where there are
    several (times are then compared across runs)."""
    cells = exp.cells
    if "run_id" not in cells or cells["run_id"].nunique() < 2:
        return ""
    cpus = {
        str(run.get("run_id")): run.get("cpu_count") for run in exp.runs if isinstance(run, dict)
    }
    names = shown_names(cells)
    parts = []
    for run_id, part in cells.groupby("run_id", sort=True):
        day = str(part["finished_at"].min())[:10] if "finished_at" in part else "?"
        jobs = ", ".join(map(str, sorted(part["n_jobs"].unique()))) if "n_jobs" in part else "?"
        blas = (", ".join(map(str, sorted(part["blas_threads"].unique())))
                if "blas_threads" in part else "?")  # fmt: skip
        cores = cpus.get(str(run_id))
        on = f" on {cores} cores" if cores else ""
        methods = ", ".join(sorted({names.get(m, m) for m in part["method"]}))
        parts.append(f"`{run_id}` ({day}; {methods}; {jobs} worker(s){on}, {blas} BLAS "
                     "thread(s) each)")  # fmt: skip
    return (
        f"Its cells come from {len(parts)} runs, so some times below are compared across runs; "
        "each run's load: " + "; ".join(parts) + ". A note says where a comparison crosses runs."
    )


def _starts(exp: Experiment) -> str:
    """The protocol's label-informed start, where the cells use it."""
    cells = exp.cells
    if "kmeans_init" not in cells:
        return ""
    inits = set(cells["kmeans_init"].astype(str))
    fixed = sorted(inits - set(RANDOM_STARTS))
    if not fixed:
        return ""
    return (
        f"Its protocol starts k-means from the labels ({', '.join(fixed)}: the first point of "
        "each class as the initial centers), so its accuracies are not those of an unsupervised "
        "start, and a reduction that draws nothing gives one deterministic computation repeated "
        f"in every repetition: such a point is one observation ({ONE_COMPUTATION})."
    )


# --------------------------------------------------------------------------------------------
# Files: one figure and one CSV per experiment
# --------------------------------------------------------------------------------------------


def draw(pts: pd.DataFrame, title: str):
    """The figure of one experiment: accuracy and F against the mean time per cell, each point
    with its 95% intervals, the Pareto front drawn as a step line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    from kmdr.figures import appearance

    with plt.rc_context(appearance.RC):
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
        lines = pts.sort_values("method")[["reducer_name", "method"]].drop_duplicates()
        methods = list(lines["method"])
        styles = appearance.styles_for(lines.itertuples(index=False))
        for ax, (column, name, sense) in zip(axes, MEASURES, strict=True):
            if pts[column].isna().all():  # unlabeled data: no accuracy scored, nothing to draw
                ax.set_axis_off()
                ax.text(0.5, 0.5, f"no {name}: the data have no labels", ha="center",
                        va="center", transform=ax.transAxes)  # fmt: skip
                continue
            for method in methods:
                own = pts[pts["method"] == method]
                key = (str(own["reducer_name"].iloc[0]), method)
                style = appearance.baseline_style() if own["baseline"].all() else styles[key]
                ax.errorbar(
                    own[TIME], own[column],
                    xerr=[own[TIME] - own[f"{TIME}_low"], own[f"{TIME}_high"] - own[TIME]],
                    yerr=[own[column] - own[f"{column}_low"], own[f"{column}_high"] - own[column]],
                    fmt=style.marker or "o", color=style.color, ms=4, lw=0.8, alpha=0.85,
                    label=method,
                )  # fmt: skip
            front = pts[pts[f"front_{name}"]].sort_values(TIME)
            ax.step(front[TIME], front[column], where="post", color="black", lw=1.2, alpha=0.6,
                    label="Pareto front")  # fmt: skip
            if f"stable_{name}" in front:
                kept = front[front[f"stable_{name}"] >= STABLE]
                ax.scatter(
                    kept[TIME], kept[column], s=90, facecolors="none", edgecolors="black", lw=1.0,
                    label=f"on the front in ≥ {STABLE:.0%} of resamples",
                )  # fmt: skip
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel("mean time per cell (s, reduction + k-means)")
            better = "higher" if sense > 0 else "lower"
            ax.set_ylabel(f"mean {name} ({better} is better)")
            ax.set_title(f"{name} against time")
        axes[1].legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
        fig.suptitle(f"{title}: each (method, r), 95% intervals over the repetitions")
        fig.tight_layout()
    return fig


def _own_folder(experiment: str) -> str:
    """The folder of one experiment's figure and CSV, in :data:`FOLDER`: one each, so the page
    lists its two files under its figure; never named as the experiment, whose name the page
    gives to the experiment's own folder."""
    return f"{experiment}_pareto"


def write_what_to_use(root: str | Path, exps: dict[str, Experiment] | None = None) -> list[Path]:
    """Write ``<root>/what_to_use/<experiment>_pareto/<experiment>.png`` and ``_front.csv``
    for every experiment with cells; returns the files written."""
    import matplotlib.pyplot as plt

    from kmdr._io import atomic_write_bytes, atomic_write_text

    root = Path(root)
    exps = load_all(root) if exps is None else exps
    written = []
    for name, exp in exps.items():
        if not exp.has_cells:
            continue
        pts = annotated(named(exp.cells))
        folder = root / FOLDER / _own_folder(name)
        csv = folder / f"{name}_front.csv"
        atomic_write_text(csv, pts.to_csv(index=False, float_format="%.6g"))
        fig = draw(pts, exp.preset.get("title") or name)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", bbox_inches="tight", dpi=110, metadata={})
        plt.close(fig)
        png = folder / f"{name}.png"
        atomic_write_bytes(png, buffer.getvalue())
        written += [png, csv]
    return written


# --------------------------------------------------------------------------------------------
# The section
# --------------------------------------------------------------------------------------------


def section_what_to_use(root: Path, exps: dict[str, Experiment]) -> str:
    """The "What to use" section: the rules, then per experiment its figure, CSV and table."""
    out = [
        f"## {HEADING}",
        "",
        "Which reducer, at which r, for data like these? No paper answers it; every experiment "
        "below holds every method's accuracy, F and time on the same data, under the same "
        "protocol. Each point is one method at one r: the means over its repetitions, with 95% "
        "t-intervals over them. The black step line is the Pareto front: no other point is at "
        "least as fast and better. Rules: (1) each pick is the rule's on the means, ties broken "
        "toward the cheaper point, so no pick is dominated; (2) a pick is named only where its "
        f'own test passes: "within {MARGIN:g}" is the one-sided test (TOST side) that its mean '
        f"accuracy is not more than {MARGIN:g} below the most accurate point's (the exact sign "
        "test where neither varies), Holm-corrected over the front's faster points within it by "
        "their means, the fastest that passes named; a budget is the one-sided test that the "
        "point's time ratio to k-means on all features is below it (on the log times, "
        "Holm-corrected over the points within it by their means); where none passes, the row "
        "says what no point could show at this n; (3) a point that repeats one deterministic "
        f"computation is one observation ({ONE_COMPUTATION}); (4) every time ratio is the ratio "
        "of the geometric means with its 95% interval; (5) times are compared within one run, "
        "or across runs with each run's load stated; (6) each pick's stability is the share of "
        f"{BOOTSTRAP} bootstrap resamples of the repetitions (seed {BOOTSTRAP_SEED}, the same draw "
        "for every point) whose rule picks the same point, and the front's points kept on it in "
        f"at least {STABLE:.0%} of them are circled in the figure, listed under it and flagged "
        "in the CSV (`stable_accuracy`, `stable_F`: their shares). The fronts come from the "
        "committed cells alone; the CSV beside each figure lists every point.",
    ]
    with_cells = sorted(
        (e for e in exps.values() if e.has_cells), key=lambda e: (e.preset["order"], e.name)
    )
    for exp in with_cells:
        cells = named(exp.cells)
        pts = fronts(points(cells))
        title = exp.preset.get("title") or exp.name
        out += ["", f"### What to use: {exp.name}", "", f"{title}."]
        said = " ".join(x for x in (_starts(exp), _loads(exp)) if x)
        if said:
            out += ["", said]
        where = f"{FOLDER}/{_own_folder(exp.name)}"
        png, csv = (root / where / f"{exp.name}{s}" for s in (".png", "_front.csv"))
        if png.exists():
            out += ["", f"![What to use: {exp.name}]({where}/{png.name})"]
        else:
            out += [
                "",
                f"(No figure yet: `python -m kmdr.report.what_to_use {root.name}` draws it.)",
            ]
        if csv.exists():
            out += ["", f"The front as a CSV: [{where}/{csv.name}]({where}/{csv.name})."]
        shares, picks = stability(cells)
        kept = pts.merge(shares, on=["method", "r"])
        kept = kept[kept["front_accuracy"] & (kept["stable_accuracy"] >= STABLE)]
        listed = ", ".join(f"{_point_text(r)} ({r['stable_accuracy']:.0%})"
                           for _, r in kept.sort_values(TIME).iterrows())  # fmt: skip
        out += ["", f"On the accuracy front in at least {STABLE:.0%} of the resamples: "
                f"{listed or 'no point'}."]  # fmt: skip
        rows = choices(cells, pts, picks)
        if rows:
            out += ["", md_table(["question", "point", "accuracy [95%]", "time per cell", "note"],
                                 rows)]  # fmt: skip
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """``python -m kmdr.report.what_to_use [RESULTS]``: write the section's figures and CSVs."""
    from kmdr._errors import CommandParser

    parser = CommandParser(prog="python -m kmdr.report.what_to_use", description=__doc__)
    parser.add_argument("results", nargs="?", default="results", type=Path)
    args = parser.parse_args(argv)
    written = write_what_to_use(args.results)
    print(f"wrote {len(written)} files under {args.results / FOLDER}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
