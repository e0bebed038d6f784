"""The report's dss24 section, "Beside the authors": every table of Draganov, Saulpic and
Schwiegelshohn's draft (:mod:`.published`) with kmdr's number beside each of the authors', a
verdict per cell, and the differences between the authors' code and their text.

**The verdict of a cell.** kmdr's repetitions (one number each: the mean of its cells in that
repetition) against the authors' published mean. "The same" is an equivalence test: kmdr's mean
within ×(1 ± :data:`MARGIN`) of the authors', two one-sided Welch tests from the authors' summary
(TOST, :func:`kmdr.stats.margin_test_from_summary`: their runs are independent of kmdr's). Their
sd is the largest their printed variance allows (:func:`.published.sd_bound`), so a verdict is
never easier than the unrounded table would make it. Where a table prints means only (the
class-imbalance and Lloyd tables), there is no sd of theirs: the test is the one-sample test of
kmdr's repetitions against their mean as a fixed value (:func:`kmdr.stats.margin_test`), which
leaves their own run-to-run spread out; the section says so beside those cells. A cell is
*equivalent* (shown inside the margin), *kmdr higher* or *kmdr lower* (shown beyond it) or
*undecided* (neither: no difference found is not the same), after Holm's correction over one
family per table and construction (each of the authors' numbers in it once). Beside each: the
ratio of the means, Hedges' g (from the summaries), ε = distortion - 1 of both, and for an
undecided cell the narrowest margin its 1 - 2α interval (at Holm's strictest step) lies within.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr._io import read_csv
from kmdr.papers.dss24 import published as P
from kmdr.report._text import md_table
from kmdr.report.experiments import Experiment
from kmdr.report.sections import ReportContext, ReportSection
from kmdr.stats import (
    ALPHA,
    Sample,
    equivalence_interval,
    holm,
    margin_test,
    margin_test_from_summary,
    p_text,
    test,
    welch_from_summary,
)

__all__ = [
    "AUTHORS",
    "CODE_VS_TEXT",
    "MARGIN",
    "compare",
    "kmdr_cells",
    "render_authors",
]

#: kmdr's equivalence margin (not the paper's: the paper states none): kmdr's mean within
#: ×(1 ± MARGIN) of the authors'. The tables print distortions near 1 to two decimals, so 0.01 of
#: the distortion is the least difference their reader sees.
MARGIN = 0.01

#: The file of the code-versus-text checks (written by another step of kmdr), relative to the
#: results folder, and its columns.
CODE_VS_TEXT = Path("dss24_code_vs_text.csv")
CODE_VS_TEXT_COLUMNS = ("difference", "check", "text_value", "code_value", "ratio", "note")

#: The verdicts of a cell.
EQUIVALENT, HIGHER, LOWER, UNDECIDED = "equivalent", "kmdr higher", "kmdr lower", "undecided"

#: The keys a published row and kmdr's cells are matched on (the dataset by the authors' name
#: of it, :data:`.published.AUTHORS_DATASET`).
KEYS = ("dataset", "construction", "j_centers", "k", "m_scalar", "gamma", "setting")
#: The cells' column of the distortion of one weighted k-means++ seeding of the coreset (the
#: coresets kind's first seeding): the authors' ``evaluate_coreset`` measures one such seeding,
#: where a cell's ``distortion`` is the worst of its seedings. Read where the cells have it.
FIRST_SEEDING = "distortion_first"
#: The cells' columns of dss24's own families of solutions (:mod:`.evaluation`), on the
#: candidate solution the authors' code draws (2k + 1 weighted k-means++ seeds of the coreset):
#: costed as their code costs it (each set against its own clusters' means: what their numbers
#: are) and as their text defines the distortion (both costs on the same centers).
CODE_MEASURE = "distortion_code_means"
TEXT_MEASURE = "distortion_coreset_solution"
#: kmdr's construction that composes another over row blocks (merge-and-reduce): its cells are
#: the composition table's streaming column.
MERGE_REDUCE = "merge_reduce"
#: The constructions kmdr also runs as the authors' code runs them
#: (:mod:`kmdr.coresets._fast_coreset_code`), by the text's construction.
CODE_VARIANTS = {"fast_coreset": "fast_coreset_code"}

_NO_REDUCER = {"", "none", "nan", "identity", "null"}
_GAMMA_KEYS = ("gamma", "class_imbalance", "imbalance")


def _params(text) -> dict:
    """A JSON object of a cell (its ``coreset`` or ``dataset_params``), {} when absent."""
    if not isinstance(text, str) or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _gamma(text) -> float:
    params = _params(text)
    found = next((params[g] for g in _GAMMA_KEYS if g in params), None)
    return math.nan if found is None else float(found)


def _construction(name: str, params: dict) -> tuple[str, dict, str]:
    """A cell's construction, its parameters and its setting: merge-and-reduce over more than
    one block is the construction it composes, "streaming"; any other, "static"."""
    if name == MERGE_REDUCE:
        inner = str(params.get("construction", ""))
        blocks = params.get("n_blocks")
        setting = "static" if blocks is not None and int(blocks) == 1 else "streaming"
        return inner, dict(params.get("params") or {}), setting
    return name, params, "static"


def kmdr_cells(cells: pd.DataFrame) -> pd.DataFrame:
    """kmdr's coreset cells without a reducer in front, with the columns the comparison reads:
    :data:`KEYS` (the dataset by the authors' name, "" where they have none; a merge-and-reduce
    cell as the construction it composes, in the setting "streaming"; a welterweight coreset's
    j as its number of centers, else 0; γ from the dataset's parameters, NaN where it has none),
    ``solve``, ``repetition``, ``distortion`` (one seeding's, :data:`FIRST_SEEDING`, where the
    cells have it, else the cell's own) and ``objective_centers`` (NaN where absent)."""
    columns = [*KEYS, "kmdr_dataset", "experiment", "solve", "repetition", "distortion",
               "measure", "distortion_text", "objective_centers"]  # fmt: skip
    if cells.empty or "construction" not in cells:
        return pd.DataFrame(columns=columns)
    reducer = cells.get("reducer_name", pd.Series("", index=cells.index)).fillna("").astype(str)
    cells = cells[reducer.str.lower().isin(_NO_REDUCER)]
    out = pd.DataFrame(index=cells.index)
    out["experiment"] = cells.get("experiment", "")
    out["kmdr_dataset"] = cells["dataset"].astype(str)
    out["dataset"] = out["kmdr_dataset"].map(lambda d: P.AUTHORS_DATASET.get(d, ""))
    k = cells["n_clusters"] if "n_clusters" in cells else cells["k"]
    out["k"] = k.astype(int)
    coresets = cells.get("coreset", pd.Series("", index=cells.index))
    # the construction's registry name from the cell's rows step (its label adds parameters)
    found = [
        _construction(str(_params(c).get("name") or name), dict(_params(c).get("params") or {}))
        for name, c in zip(cells["construction"], coresets, strict=True)
    ]
    out["construction"] = [c for c, _p, _s in found]
    out["setting"] = [s for _c, _p, s in found]
    out["j_centers"] = [
        P.resolve_j(p["j"], kk) if "j" in p else 0
        for (_c, p, _s), kk in zip(found, out["k"], strict=True)
    ]
    factor = pd.to_numeric(cells.get("coreset_size_factor", np.nan), errors="coerce")
    size = pd.to_numeric(cells.get("coreset_size", np.nan), errors="coerce")
    out["m_scalar"] = factor.where(factor > 0, (size / out["k"]).round())
    out["gamma"] = [_gamma(t) for t in cells.get("dataset_params", [""] * len(cells))]
    out["solve"] = cells.get("solve", "seedings")
    out["repetition"] = cells.get("repetition", 0)
    for column in ("distortion", "objective_centers"):
        out[column] = pd.to_numeric(cells.get(column, np.nan), errors="coerce")
    # the authors' measure where the cells have it, else one seeding's distortion (the authors
    # draw one candidate; the cell's own distortion is its worst of five)
    for column in (FIRST_SEEDING, CODE_MEASURE):
        if column in cells:
            measured = pd.to_numeric(cells[column], errors="coerce")
            out["distortion"] = measured.where(measured.notna(), out["distortion"])
    nan = pd.Series(np.nan, index=cells.index)
    code = pd.to_numeric(cells.get(CODE_MEASURE, nan), errors="coerce")
    out["measure"] = np.where(code.notna(), "code", "seeding")
    out["distortion_text"] = pd.to_numeric(cells.get(TEXT_MEASURE, nan), errors="coerce")
    return out[columns].reset_index(drop=True)


def _published_keys(row) -> dict:
    gamma = float(row.gamma) if str(row.gamma).strip() else math.nan
    m = float(row.m_scalar) if str(row.m_scalar).strip() else math.nan
    return {"dataset": row.dataset, "construction": row.construction,
            "j_centers": int(row.j_centers), "k": int(row.k), "m_scalar": m, "gamma": gamma,
            "setting": row.setting or "static"}  # fmt: skip


def _match(cells: pd.DataFrame, keys: dict) -> pd.DataFrame:
    """The cells of one published row (γ NaN on both sides matches)."""
    mask = pd.Series(True, index=cells.index)
    for name, value in keys.items():
        column = cells[name]
        if isinstance(value, float) and math.isnan(value):
            mask &= column.isna()
        else:
            mask &= column == value
    return cells[mask]


def _sample(cells: pd.DataFrame, column: str) -> Sample | None:
    """One number per repetition: the mean of its cells' ``column``."""
    values = cells.groupby("repetition", sort=True)[column].mean().dropna()
    if values.empty:
        return None
    return Sample(values.to_numpy(dtype=float), tuple(values.index))


def _why_missing(row, cells: pd.DataFrame | None = None) -> str:
    """Why kmdr has no number beside one of the authors' (``cells``: kmdr's, to name the k
    it ran the dataset at instead)."""
    if row.construction in P.NOT_RUN:
        return P.NOT_RUN[row.construction]
    if not row.kmdr_dataset:
        return P.NO_DATASET.get(row.dataset, "no kmdr dataset of it")
    if row.dataset in P.DOWNLOADED:
        return f"not run here (`{row.kmdr_dataset}` needs a download)"
    if cells is not None and "dataset" in cells:
        ks = sorted(set(cells.loc[cells["dataset"] == row.dataset, "k"]) - {int(row.k)})
        if ks:
            ran = ", ".join(str(int(k)) for k in ks)
            return (f"not run at k = {int(row.k)} here (kmdr runs this dataset at k = {ran}: "
                    "its preset says why)")  # fmt: skip
    return "not run here (no cell of it in this results folder)"


def _lloyd_ratios(cells: pd.DataFrame, keys: dict) -> Sample | None:
    """kmdr's Lloyd cost of ``keys``'s construction over uniform sampling's, per repetition (the
    authors' costs are comparable only within a row)."""
    lloyd = cells[cells["solve"] == "lloyd"]
    ours = _sample(_match(lloyd, keys), "objective_centers")
    base = _sample(_match(lloyd, {**keys, "construction": "uniform", "j_centers": 0}),
                   "objective_centers")  # fmt: skip
    if ours is None or base is None:
        return None
    common = sorted(set(ours.reps) & set(base.reps))
    if len(common) == 0:
        return None
    a = dict(zip(ours.reps, ours.values, strict=True))
    b = dict(zip(base.reps, base.values, strict=True))
    return Sample(np.array([a[r] / b[r] for r in common]), tuple(common))


def compare(table: pd.DataFrame, cells: pd.DataFrame, margin: float = MARGIN) -> list[dict]:
    """One row per published number of the draft's tables (:func:`.published.published`, the
    copies the draft includes): the authors' mean and sd, kmdr's sample beside it (``cells``:
    :func:`.kmdr_cells`) or why there is none, and the verdict after Holm's correction within
    its family (table, construction). Lloyd's costs are compared as each construction's over
    uniform sampling's in the same row (their costs are "the first 5 digits")."""
    table = table[table["in_draft"].astype(str).str.lower() == "true"]
    # each published number of a construction whose code kmdr also runs is compared twice:
    # with the text's construction and with the code's (a row of its own, labelled)
    code = table[table["construction"].isin(CODE_VARIANTS) & (table["table"] != "lloyd")]
    code = code.assign(
        construction=code["construction"].map(CODE_VARIANTS),
        method=code["method"] + " (the authors' code)",
    )
    ran = [not _match(cells, _published_keys(r)).empty for r in code.itertuples()]
    code = code[np.array(ran, dtype=bool)]  # only where kmdr ran the code's construction
    table = pd.concat([table, code]).sort_index(kind="stable")
    rows = []
    for row in table.itertuples():
        keys = _published_keys(row)
        out = {"table": row.table, "dataset": row.dataset, "method": row.method,
               "construction": row.construction, "keys": keys, "theirs": float(row.mean),
               "sd": float(row.sd), "n_theirs": row.n, "sample": None, "test": None,
               "plain": None, "inside": False, "why": "", "fixed": False}  # fmt: skip
        rows.append(out)
        if row.table == "log_delta" or row.construction in P.NOT_RUN or not row.kmdr_dataset:
            out["why"] = _why_missing(row)
            continue
        theirs = float(row.mean)
        if row.table == "lloyd":
            if row.construction == "uniform":
                out["why"] = "the row's reference (the other costs are set against it)"
                continue
            uniform = table[(table["table"] == "lloyd") & (table["dataset"] == row.dataset)
                            & (table["construction"] == "uniform")]  # fmt: skip
            theirs = theirs / float(uniform["mean"].iloc[0])
            out["theirs"], out["printed"] = theirs, float(row.mean)
            sample = _lloyd_ratios(cells, keys)
        else:
            seedings = _match(cells[cells["solve"] != "lloyd"], keys)
            sample = _sample(seedings, "distortion")
            out["text_measure"] = _sample(seedings, "distortion_text")
            out["measure"] = "code" if (seedings["measure"] == "code").all() else "seeding"
        if sample is None:
            out["why"] = _why_missing(row, cells)
            continue
        low, high = -margin * theirs, margin * theirs
        out["sample"] = sample
        if math.isnan(out["sd"]):
            shifted = sample.map(lambda v, t=theirs: v - t)
            out["inside"], out["test"] = margin_test(shifted, None, low, high)
            out["plain"] = test(shifted, None)
            out["fixed"] = True
        else:
            n = int(row.n)
            out["inside"], out["test"] = margin_test_from_summary(
                sample, theirs, out["sd"], n, low, high
            )
            out["plain"] = welch_from_summary(sample, theirs, out["sd"], n)
    _decide(rows)
    return rows


def _decide(rows: list[dict]) -> None:
    """Each tested row's Holm-adjusted p (one family per table and construction), its verdict
    and the family's size."""
    families: dict[tuple, list[dict]] = {}
    for row in rows:
        if row["test"] is not None:
            families.setdefault((row["table"], row["construction"]), []).append(row)
    for members in families.values():
        adjusted = holm([r["test"].p for r in members])
        m = int(np.sum(~np.isnan(adjusted)))
        for row, adj in zip(members, adjusted, strict=True):
            row["p_holm"], row["family"] = float(adj), max(m, 1)
            if adj < ALPHA:
                row["verdict"] = EQUIVALENT if row["inside"] else (
                    HIGHER if row["plain"].diff > 0 else LOWER)  # fmt: skip
            else:
                row["verdict"] = UNDECIDED


def _could_show(row: dict) -> str:
    """The narrowest margin, as a share of the authors' mean, the row's 1 - 2α interval at
    Holm's strictest step lies within."""
    low, high = equivalence_interval(row["test"], ALPHA / row["family"])
    if math.isnan(low) or row["theirs"] == 0:
        return ""
    return f" (could show ±{100 * max(abs(low), abs(high)) / abs(row['theirs']):.2g}%)"


def _plain(name: str) -> str:
    """An authors' name without its LaTeX (``$j=\\sqrt{k}$`` is j = √k)."""
    for tex, text in (("$", ""), ("\\log ", "log "), ("\\sqrt{k}", "√k"), ("=", " = ")):
        name = name.replace(tex, text)
    return name


def _num(x: float) -> str:
    return "—" if x is None or math.isnan(x) else f"{x:.4g}"


def _cells_of(row: dict) -> list:
    """A compared row as the section's table shows it."""
    s, t, plain = row["sample"], row["test"], row["plain"]
    keys = row["keys"]
    shown = keys["setting"] != "static" or row["table"] == "composition"
    setting = [keys["setting"]] if shown else []
    if not math.isnan(keys["gamma"]):
        setting.append(f"γ = {keys['gamma']:g}")
    where = ", ".join(
        [
            f"k = {keys['k']}",
            *([f"m = {keys['m_scalar']:g}k"] if not math.isnan(keys["m_scalar"]) else []),
            *setting,
        ]
    )
    sd = "mean only" if math.isnan(row["sd"]) else f"sd ≤ {row['sd']:.3g}"
    n = row["n_theirs"]
    runs = "n not stated" if math.isnan(n) else f"n = {int(n)}"
    theirs = f"{_num(row['theirs'])} ({sd}, {runs})"
    if "printed" in row:  # a Lloyd cost: as printed, and over uniform sampling's
        theirs = f"{row['printed']:g}: ×{row['theirs']:.4g} of uniform's ({runs})"
    names = [_plain(row["dataset"]), _plain(row["method"])]
    if s is None:
        return [*names, where, theirs, "—", "—", "—", "—", "—", "—", row["why"]]
    text = row.get("text_measure")
    text = "—" if text is None else f"{text.mean:.4g}"
    mean = s.mean
    ci = plain.ci
    how = "" if row.get("measure", "code") == "code" else "one seeding, "
    if not math.isnan(ci[0]):
        ours = f"{mean:.4g} ({how}n = {s.n}; Δ 95% CI {ci[0]:+.3g} to {ci[1]:+.3g})"
    else:
        ours = f"{mean:.4g} ({how}n = {s.n})"
    ratio = mean / row["theirs"] if row["theirs"] else math.nan
    eps = f"{mean - 1:.3g} / {row['theirs'] - 1:.3g}" if row["table"] != "lloyd" else "—"
    g = "n/a" if math.isnan(plain.g) else f"{plain.g:+.2f}"
    verdict = row["verdict"]
    if verdict == UNDECIDED:
        verdict += _could_show(row)
    if row["fixed"]:
        verdict += "; their mean taken as exact (no spread published)"
    return [*names, where, theirs, ours, text, f"×{ratio:.4g}", eps, g,
            f"{p_text(t.p, why=t.why)}, {p_text(row['p_holm'], 'p_Holm')}", verdict]  # fmt: skip


_HEADER = ["dataset", "method", "setting", "authors' mean (sd bound, n)",
           "kmdr mean, the code's measure (n; 95% CI of the difference)",
           "kmdr mean, the text's measure", "ratio of means",
           "ε = distortion − 1, kmdr / authors'", "Hedges' g",
           f"p (TOST at ×(1 ± {MARGIN:g}) or beyond it), Holm", "verdict"]  # fmt: skip

_INTRO = (
    "Every table of A. Draganov, D. Saulpic and C. Schwiegelshohn's draft (*Settling Time vs. "
    "Accuracy Tradeoffs for Clustering Big Data*, SIGMOD 2024; the LaTeX in their repository "
    f"`{P.REPOSITORY}` at `{P.COMMIT}`, transcribed in `results/{P.TABLE.as_posix()}`, its "
    "README naming each file and where the draft and the final paper may differ), each number "
    "beside kmdr's. kmdr's number is the mean over its repetitions (each repetition the mean of "
    "its cells). Their distortion is measured by their code's `evaluate_coreset`: one candidate "
    "solution per coreset (2k + 1 weighted k-means++ seeds of it, no Lloyd step), the coreset "
    "and the data each costed against their own clusters' means (not the text's definition, "
    "which costs both on the same centers: see the differences below). kmdr measures the same "
    f"candidate both ways (its families `code_means`, the cells' `{CODE_MEASURE}`, and "
    f"`coreset_solution`, `{TEXT_MEASURE}`): the verdicts compare like with like, the code's "
    "measure with their numbers, and the text's is shown beside it, labelled (where a cell has "
    f"neither, one weighted k-means++ seeding's distortion, `{FIRST_SEEDING}`, said in the "
    "cell). The authors "
    "print means and variances over 5 runs, rounded: their sd here is "
    "the largest the printed variance allows (a variance printed 0.0 is below 0.005), which "
    "makes every verdict harder to reach, never easier, and their n is the fewer of the "
    "caption's (5) and their script's (3 for the distortion and composition tables). **The "
    "same is an equivalence test**: "
    f"kmdr's mean within ×(1 ± {MARGIN:g}) of the authors' (kmdr's margin; the paper states "
    "none: its tables print distortions to two decimals), two one-sided Welch tests from their "
    "summary (TOST); outside the margin, the test of being beyond it. Where a table prints "
    "means only, their mean is taken as a fixed value (the one-sample test of kmdr's "
    "repetitions), said beside each such cell. Holm's correction runs over one family per table "
    "and construction. A cell is **equivalent** (shown inside the margin), **kmdr higher** or "
    "**kmdr lower** (shown beyond it), or **undecided** (neither: no difference found is not "
    "the same), with the narrowest margin its data could show. Where kmdr has no number, the "
    'row says why. The Lloyd table\'s costs are "the first 5 digits" of each cost, comparable '
    "only within a row: each construction's cost is set against uniform sampling's in the same "
    "row, on both sides."
)

#: The differences between the authors' code and their text that kmdr's reading found (the
#: code's ``fast_kmeans_plusplus.py``, ``make_coreset.py``, ``experiment_utils/get_data.py``,
#: the experiment scripts).
DIFFERENCES = (
    "Fast-kmeans++ (`set_all_dists`) indexes a cell's path at the wrong depth, so tree distances "
    "after the first center are overestimated",
    "the distortion (`evaluate_coreset`) costs the coreset and the data each against their own "
    "clusters' means, not against the same centers as the text defines, and squares the "
    "distances for k-median too",
    "Fast-Coresets sample from the trees' own costs and clusters (`bound_sensitivities` reads "
    "`fast_cluster_pp`'s tree distances), where the text costs each row against its cluster's "
    "mean in the original space",
    "the coreset is drawn without replacement and its weights rescaled to the data's weight, "
    "and the cluster term is multiplied by alpha = 10, where the text draws i.i.d. and weighs "
    "S / (m s(p))",
    "Fast-Coresets add no centers, and sample from 2k Fast-kmeans++ centers where the text takes k",
    "the JL projection is computed and then the data reloaded unprojected, so the sweeps ran "
    "Fast-Coresets in the original dimension",
    "welterweight coresets seed 2j + 1 centers where the text's is a j-means solution, and the "
    "sweep script's default j is 2 where the text's is log k",
    "the loaders cut strings to one character (Adult) or fail (Cover Type)",
    "the spread reduction of the appendix is not implemented",
    "the noise, the number of runs (the distortion and log Δ scripts run 3, their captions say "
    "5) and the coreset sizes of some captions differ from the scripts",
)


#: The bench's files (``make bench-papers``: :mod:`.bench_growth`), relative to the results
#: folder.
GROWTH = Path("bench") / "dss24_growth.csv"
LOG_DELTA = Path("bench") / "dss24_log_delta.csv"


def _speed(root: Path) -> list[str]:
    """The paper's speed claims, from kmdr's bench: the runtime against k (the final paper's
    Table 2: sensitivity sampling slows linearly in k, Fast-Coresets logarithmically) and
    Fast-kmeans++'s runtime against log Δ (its Table 1: linear in log Δ)."""
    from kmdr.papers.dss24.bench_growth import log_delta_table, table

    out = ["", "### Speed: runtime against k and against log Δ (kmdr's bench)", ""]
    if not (root / GROWTH).is_file() or not (root / LOG_DELTA).is_file():
        return [*out, f"No bench here (`{GROWTH}` and `{LOG_DELTA}`: `make bench-papers`)."]
    growth = read_csv(root / GROWTH).set_index(["method", "k"])
    small, large = (
        growth.index.get_level_values("k").min(),
        growth.index.get_level_values("k").max(),
    )
    at = growth.xs(large, level="k")
    target = at.loc["fast_coreset"]
    out += [
        f"On {int(target.n):,} × {int(target.d)} rows, one thread, {int(target.repeats)} paired "
        f"repetitions (`{GROWTH}`): from k = {small} to {large}, sensitivity sampling's CPU time "
        f"grows ×{at.loc['sensitivity', 'cpu_growth']:.2f} (linear in k would be "
        f"×{target.growth_if_linear:.0f}) and the Fast-Coreset's ×{target.cpu_growth:.2f} "
        f"(log k would be ×{target.growth_if_log:.2f}): the shapes the paper claims, linear "
        f"and logarithmic (read from the medians, not tested). At k = {large} the "
        f"Fast-Coreset is ×{target.cpu_speedup:.2f} faster (paired range "
        f"×{target.cpu_speedup_low:.2f}–×{target.cpu_speedup_high:.2f}; one-sided p = "
        f"{target.p_speedup:.2g} that it exceeds 5 at n = {int(target.repeats)}) at a distortion "
        f"×{target.distortion_ratio:.3f} of sensitivity sampling's (p = {target.p_distortion:.2g} "
        "that it is below ×1.1).",
        "",
        table(root / "bench"),
    ]
    delta = read_csv(root / LOG_DELTA)
    theirs = delta[delta["source"] == "authors"].iloc[0]
    ours = delta[delta["source"] == "kmdr"].groupby("n").first()
    grows = [f"n = {n:,}: {r.relative_slope:.2%} [{r.relative_slope_low:.2%}, "
             f"{r.relative_slope_high:.2%}]" for n, r in ours.iterrows()]  # fmt: skip
    trend = all(ours["relative_slope_low"] > 0)
    out += [
        "",
        "Fast-kmeans++'s time against r ~ log Δ on the authors' instance (their "
        "`log_delta_experiments.py`), as a growth: the time per unit of r as a share of the time "
        f"at r = 20 (`{LOG_DELTA}`), kmdr's {'; '.join(grows)}, theirs "
        f"{theirs.relative_slope:.2%} [{theirs.relative_slope_low:.2%}, "
        f"{theirs.relative_slope_high:.2%}] (fitted on their four printed means). "
        + (
            "Every kmdr interval lies above 0: the time grows with log Δ, the paper's trend. "
            if trend
            else "A kmdr interval reaches 0: the trend is not shown here. "
        )
        + "The seconds themselves are not compared: theirs are the wall time of Python trees, "
        "kmdr's the CPU time of compiled ones.",
        "",
        log_delta_table(root / "bench"),
    ]
    return out


def _code_vs_text(root: Path) -> list[str]:
    out = ["", "### Where the authors' code and text differ", "",
           "A reading of the authors' code found it does not do what the text says in these "
           "places; kmdr runs the text's method:", "",
           *(f"- {d};" for d in DIFFERENCES[:-1]), f"- {DIFFERENCES[-1]}."]  # fmt: skip
    path = root / CODE_VS_TEXT
    if not path.is_file():
        return [*out, "", f"No check of them in this results folder (`{CODE_VS_TEXT}` is absent)."]
    checks = read_csv(path)
    missing = [c for c in CODE_VS_TEXT_COLUMNS if c not in checks]
    if missing:
        return [*out, "", f"`{CODE_VS_TEXT}` lacks the columns {', '.join(missing)}."]
    rows = []
    for r in checks.itertuples():
        effect = f"text {_value(r.text_value)}, code {_value(r.code_value)}"
        effect += f" (code / text ×{_value(r.ratio)})" if _value(r.ratio) != "—" else ""
        effect += f"; {r.note}" if isinstance(r.note, str) and r.note.strip() else ""
        rows.append([r.difference, r.check, effect])
    return [
        *out, "",
        f"What kmdr's checks found (`{CODE_VS_TEXT}`):", "",
        md_table(["difference", "confirmed by", "what it does to the numbers"], rows),
    ]  # fmt: skip


def _value(x) -> str:
    if isinstance(x, str):
        return x.strip() or "—"
    return _num(float(x))


def render_authors(root: Path, members: list[Experiment], context: ReportContext) -> str:
    out = ["## Beside the authors: fast coresets (Draganov, Saulpic, Schwiegelshohn, SIGMOD 2024)",
           "", _INTRO]  # fmt: skip
    table = P.published(root)
    if table.empty:
        out += ["", f"**No published table** in this results folder (`{P.TABLE.as_posix()}`)."]
        return "\n".join(out + _code_vs_text(root))
    frames = [e.cells.assign(experiment=e.name) for e in members if e.has_cells]
    cells = kmdr_cells(pd.concat(frames, ignore_index=True) if frames else pd.DataFrame())
    if not frames:
        out += ["", "**No kmdr cell** in this results folder: no dss24 preset has run here."]
    rows = compare(table, cells)
    for name, title in P.TABLES.items():
        these = [r for r in rows if r["table"] == name]
        if not these:
            continue
        counts = pd.Series([r.get("verdict", "no kmdr number") for r in these]).value_counts()
        tally = ", ".join(f"{n} {v}" for v, n in counts.items())
        code = sum(r["construction"] in CODE_VARIANTS.values() for r in these)
        numbers = f"{len(these) - code} published numbers" + (
            f" and {code} rows of the authors' code beside them" if code else "")  # fmt: skip
        out += ["", f"### {title}", "", f"{numbers}: {tally}.", "",
                md_table(_HEADER, [_cells_of(r) for r in these])]  # fmt: skip
    return "\n".join(out + _speed(root) + _code_vs_text(root))


#: The report section ``dss24_authors`` (shown, with the authors' numbers, even when none of the
#: paper's presets has run).
AUTHORS = ReportSection(render=render_authors, default_order=62, always_shown=True)
