"""``kmdr-report RESULTS``: write ``RESULTS/REPORT.md`` from the CSVs alone (no experiment runs).

Reads only what docs/results-layout.md lists: ``<experiment>/cells*.csv``, ``runs/*.json``,
``summary.csv`` (recomputed from the cells when absent), ``figures/*.png``,
``<experiment>/leverage_scores.csv`` and ``theory/*.csv``.

The experiments are found by scanning the results folder, and each one's place comes from its
preset metadata (``config.preset`` of its last sidecar: ``section``, ``order``, ``title``,
``paper``; :func:`kmdr.experiments.aggregate.preset_of`), never from its name: a new preset or a
user's own experiment appears with its figure and completeness (an ad-hoc run in "Your
experiments"). Sections, ordered by the smallest ``order`` of their experiments: bmd09 Table 1
beside the published numbers (``table1``), the bmd09 Figure 1 terms (``fig1``), the curve-only
figures with the papers' claims and their verdicts (``curves``), diagnostics (``diagnostic``) and
your experiments (``custom``); before them what was run and how complete it is, after them the
theory (approximation ratios beside the theorems' bounds, the sampling lemma) and the deviations
from the papers' data. The papers' three sections always appear (with *no data* when nothing ran).
Text about one specific experiment (its notes, why it has no data) is keyed by its name; no
behaviour is.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import math
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr._git import code_revision
from kmdr._io import atomic_write_text, read_csv
from kmdr.experiments import aggregate
from kmdr.experiments._plot_style import canonical
from kmdr.experiments.aggregate import SECTIONS, is_baseline
from kmdr.experiments.published import (
    BMD09_FIG1_TERMS,
    BMD09_TABLE1,
    BMD09_TABLE1_COLUMNS,
    BMD09_TABLE1_NAMES,
)
from kmdr.report import claims as C
from kmdr.report import theory as T

#: Where a section stands when none of its experiments gives an ``order``.
SECTION_DEFAULT_ORDER = {"table1": 10, "fig1": 20, "curves": 30, "diagnostic": 900, "custom": 1000}
#: The papers' sections: shown (with *no data*) even when none of their experiments ran.
PAPER_SECTIONS = ("table1", "fig1", "curves")

NO_DATA_WHY = {
    "bmd09_table1": (
        "the NIPS count matrix and the Bio microarray data could not be obtained (see Deviations)"
    ),
    "bmd09_fig1": "the NIPS count matrix could not be obtained (see Deviations)",
    "lst17_rcv1": "RCV1 could not be obtained here (see Deviations)",
}

VERDICT_MARK = {
    C.HOLDS: "✅ holds",
    C.PARTLY: "🟡 partly",
    C.FAILS: "❌ fails",
    C.NO_DATA: "⚪ no data",
}


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


def _canonical_methods(frame: pd.DataFrame) -> pd.DataFrame:
    if "method" not in frame:
        return frame
    return frame.assign(method=frame["method"].map(canonical))


class Experiment:
    """What the report knows about one results/<experiment>/ folder (possibly absent)."""

    def __init__(self, root: Path, name: str):
        self.name = name
        self.dir = root / name
        self.exists = self.dir.is_dir()
        self.cells = pd.DataFrame()
        self.summary = pd.DataFrame()
        self.runs: list[dict] = []
        self.skipped: list[str] = []
        self.n_cells = self.n_expected = 0
        self.preset = aggregate.preset_of(self.dir, [])
        if not self.exists:
            return
        self.runs = aggregate.load_runs(self.dir)
        self.preset = aggregate.preset_of(self.dir, self.runs)
        self.skipped = aggregate.skip_reasons(self.dir, self.runs)
        # Method labels differ between papers (lst17 writes "LS" and "k-means" where bzmd14 writes
        # "LapScores" and "kMeans"); the claims and tables speak of one name per method.
        self.cells = _canonical_methods(aggregate.load_cells(self.dir))
        if len(self.cells):
            self.summary = _canonical_methods(aggregate.load_summary(self.dir))
        # counted even without a cell: a first run killed before writing one is incomplete
        comp = aggregate.completeness(self.dir)
        self.n_cells = int(comp["n_cells"].sum()) if len(comp) else 0
        self.n_expected = int(comp["n_expected"].sum()) if len(comp) else 0

    @property
    def running(self) -> bool:
        """A sidecar still says ``running``: the run is in progress, or was killed."""
        return any(run.get("status") == "running" for run in self.runs)

    @property
    def datasets(self) -> set[str]:
        """The datasets of its cells and of its sidecars."""
        names = set(self.cells["dataset"].astype(str)) if self.has_cells else set()
        for run in self.runs:
            dataset = run.get("dataset")
            if isinstance(dataset, dict) and dataset.get("name"):
                names.add(str(dataset["name"]))
        return names

    @property
    def incomplete(self) -> bool:
        """Fewer cells than its sidecars expect (an interrupted, killed or partial sweep)."""
        return self.n_cells < self.n_expected

    @property
    def has_cells(self) -> bool:
        return len(self.cells) > 0

    @property
    def has_results(self) -> bool:
        """Cells, or (bmd09 Figure 1) the leverage scores of every feature."""
        return self.has_cells or (self.dir / "leverage_scores.csv").exists()

    @property
    def complete(self) -> bool:
        return self.has_cells and self.n_cells >= self.n_expected

    def status(self) -> str:
        if self.incomplete:
            text = f"**incomplete ({self.n_cells} of {self.n_expected} cells)**"
            if self.running:
                text += " (a run is still marked running: in progress, or killed)"
            return text
        if self.has_cells:
            return f"complete ({self.n_cells} cells)"
        if self.skipped:
            return "skipped: " + "; ".join(self.skipped)
        if self.exists and (self.dir / "leverage_scores.csv").exists():
            return "leverage scores written"
        return "not run (no results folder)" if not self.exists else "no cells"

    def figures(self) -> list[Path]:
        return sorted((self.dir / "figures").glob("*.png")) if self.exists else []


def load_all(root: Path) -> dict[str, Experiment]:
    """Every experiment folder under ``root``, in the order of their presets (then name)."""
    exps = [Experiment(root, p.name) for p in aggregate.experiment_dirs(root)]
    exps.sort(key=lambda e: (e.preset["order"], e.name))
    return {e.name: e for e in exps}


def _in_section(exps: dict[str, Experiment], section: str) -> list[Experiment]:
    return [e for e in exps.values() if e.preset["section"] == section]


# --------------------------------------------------------------------------------------------
# Formatting helpers
# --------------------------------------------------------------------------------------------


def _f(x, nd: int = 3) -> str:
    if x is None or x is pd.NA:
        return "—"
    try:
        x = float(x)
    except (TypeError, ValueError):
        return str(x)
    return "—" if math.isnan(x) else f"{x:.{nd}f}"


def _table(header: list[str], rows: Iterable[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [str(c).replace("|", "\\|").replace("\n", " ") for c in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _git_revision() -> str:
    """Short revision of the code writing the report (changes under results/ do not count)."""
    info = code_revision()
    if not info["revision"]:
        return "unknown"
    return info["revision"][:7] + (" (with uncommitted changes)" if info["dirty"] else "")


def _run_field(exp: Experiment, *keys: str) -> list[str]:
    vals = []
    for run in exp.runs:
        for key in keys:
            v = run.get(key)
            if isinstance(v, dict):  # the runner's {"revision": ..., "dirty": ...}
                rev = v.get("revision")
                v = None if rev is None else str(rev)[:10] + (" (dirty)" if v.get("dirty") else "")
            if v is not None and str(v) not in vals:
                vals.append(str(v))
                break
    return vals


# --------------------------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------------------------


def section_header(root: Path, exps: dict[str, Experiment]) -> str:
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    revs = sorted({v for e in exps.values() for v in _run_field(e, "git", "git_revision")})
    starts = sorted(v for e in exps.values() for v in _run_field(e, "started_at", "start_time"))
    ends = sorted(v for e in exps.values() for v in _run_field(e, "finished_at", "end_time"))
    out = [
        "# kmdr: the papers' tables, figures and claims beside our results",
        "",
        "Papers: **bmd09** (Boutsidis, Mahoney, Drineas, NIPS 2009), **bzmd14** (Boutsidis, "
        "Zouzias, Mahoney, Drineas, IEEE TIT 2015 / arXiv 2014), **lst17** (Liu, Shen, Tsang, "
        "NIPS 2017).",
        "",
        f"- Report written: {now}, by `kmdr-report {root}` from the CSVs under `{root}/` alone.",
        f"- Code revision at report time: `{_git_revision()}`; revisions recorded by the runs: "
        + (", ".join(f"`{r}`" for r in revs) if revs else "none recorded")
        + ".",
    ]
    if starts:
        out.append(f"- Runs started {starts[0]} and ended {ends[-1] if ends else '?'}.")
    out += [
        "- Verdicts: **holds** (our data satisfies the stated check), **partly** (for some of the "
        "methods or r values), **fails**, **no data** (the experiment was not run or skipped). "
        "Every check and its threshold is written in the statement it judges.",
        "",
        "## What was run",
        "",
    ]
    rows = []
    for e in exps.values():
        ds = ", ".join(sorted(e.datasets)) or "—"
        methods = ", ".join(sorted(e.cells["method"].unique())) if e.has_cells else "—"
        if e.has_cells:
            rr = e.cells.loc[~is_baseline(e.cells), "r"]
            rng = f"{rr.min()}–{rr.max()}" if len(rr) else "—"
            reps = str(e.cells["repetition"].nunique())
        else:
            rng = reps = "—"
        rows.append([f"`{e.name}`", e.preset["title"], e.status(), ds, methods, rng, reps])
    header = ["experiment", "reproduces", "status", "datasets", "methods", "r", "repetitions"]
    out.append(_table(header, rows) if rows else "*No experiment folder found.*")
    incomplete = [e.name for e in exps.values() if e.incomplete]
    skipped = [e.name for e in exps.values() if not e.has_results and not e.incomplete]
    out.append("")
    if incomplete:
        out.append(
            "**Incomplete sweeps** (verdicts on them are provisional and marked so): "
            + ", ".join(f"`{n}`" for n in incomplete)
            + "."
        )
    if skipped:
        out.append(
            "Not run or skipped (their claims are reported as *no data*): "
            + ", ".join(f"`{n}`" for n in skipped)
            + "."
        )
    skipped_md = root / "SKIPPED.md"
    if skipped_md.exists():
        out += ["", "The runner's `SKIPPED.md`:", ""]
        out += ["> " + line for line in skipped_md.read_text().strip().splitlines()]
    return "\n".join(out)


def section_table1(members: list[Experiment]) -> str:
    """bmd09 Table 1 for each experiment of section ``table1`` (published values only if none)."""
    return "\n\n".join(_table1_block(e) for e in members or [None])


def _table1_block(e: Experiment | None) -> str:
    trials = int(e.cells["repetition"].nunique()) if e is not None and e.has_cells else None
    title = "bmd09 Table 1: leverage-score sampling, best of the trials by F"
    title = e.preset["title"] if e is not None and e.preset["paper"] else title
    ours_trials = f"{trials} trials here" if trials else "30 trials in the paper"
    ran = f", {trials} in our run" if trials else ""
    out = [
        f"## {title} ({ours_trials})",
        "",
        *([f"`{e.name}`: {e.status()}.", ""] if e is not None else []),
        "P = accuracy, F = ||A − XXᵀA||²_F / ||A||²_F of the trial with the lowest F among the "
        f"trials (30 in the paper{ran}). Tolerance: |ΔP| ≤ max(2·sd_P, 2/n) and |ΔF| ≤ max(2·sd_F, "
        "0.005), where sd is the standard deviation of P or F over our trials at that column and "
        "n the number of points: a best-of-30 value varies with the draws by about that much, and "
        "P moves in steps of 1/n (2/n = two points). Verdict: *within tolerance* when both hold, "
        "*deviates* otherwise, *no data* without our number.",
        "",
    ]
    ours = aggregate.table1(e.summary) if e is not None and len(e.summary) else pd.DataFrame()
    if e is None or not e.has_cells:
        skipped = e.skipped if e is not None else []
        why = "; ".join(skipped) if skipped else NO_DATA_WHY["bmd09_table1"]
        out += [f"**No data: the experiment did not run** ({why}). Published values only.", ""]
    rows = []
    for dataset, cols in BMD09_TABLE1.items():
        for column in BMD09_TABLE1_COLUMNS:
            p_pub, f_pub = cols[column]
            sel = (
                ours[(ours["dataset"].str.lower() == dataset) & (ours["column"] == column)]
                if len(ours)
                else ours
            )
            if column != "All" and len(sel):
                lev = sel[
                    sel["method"].str.startswith("Sampl") | sel["method"].str.contains("ever")
                ]
                sel = lev if len(lev) else sel
            label = f"r = {column}" if column != "All" else "All"
            if not len(sel):
                rows.append(
                    [BMD09_TABLE1_NAMES[dataset], label, "—", "—", _f(p_pub), _f(f_pub), "—", "—",
                     "—", VERDICT_MARK[C.NO_DATA]]
                )  # fmt: skip
                continue
            row = sel.iloc[0]
            s = e.summary
            srow = s[
                (s["dataset"] == row["dataset"])
                & (s["reducer"] == row["reducer"])
                & (s["r"] == row["r"])
            ]
            n = int(srow["n_samples"].iloc[0]) if "n_samples" in srow and len(srow) else None
            sd_p = srow["accuracy_std"].iloc[0] if "accuracy_std" in srow and len(srow) else None
            sd_f = srow["objective_std"].iloc[0] if "objective_std" in srow and len(srow) else None
            tol_p = max(2 * (0 if pd.isna(sd_p) or sd_p is None else sd_p), 2 / n if n else 0.0)
            tol_f = max(2 * (0 if pd.isna(sd_f) or sd_f is None else sd_f), 0.005)
            dp, df = row["P_ours"] - p_pub, row["F_ours"] - f_pub
            ok = abs(dp) <= tol_p and abs(df) <= tol_f
            verdict = "within tolerance" if ok else "deviates"
            if not bool(row["complete"]):
                verdict += f" (partial: {row['n_cells']}/{row['n_expected']} trials)"
            rows.append(
                [BMD09_TABLE1_NAMES[dataset], f"{label} (r = {row['r']})", _f(row["P_ours"]),
                 _f(row["F_ours"]), _f(p_pub), _f(f_pub), f"{dp:+.3f}", f"{df:+.3f}",
                 f"±{tol_p:.3f} / ±{tol_f:.3f}", verdict]
            )  # fmt: skip
    out.append(
        _table(
            ["dataset", "column", "P ours", "F ours", "P paper", "F paper", "ΔP", "ΔF",
             "tolerance P / F", "verdict"],
            rows,
        )
    )  # fmt: skip
    return "\n".join(out)


def _claim_rows(pairs, exp: Experiment | None) -> list[list]:
    rows = []
    for claim, verdict in pairs:
        mark = VERDICT_MARK[verdict.verdict]
        if exp is not None and exp.incomplete and verdict.verdict != C.NO_DATA:
            mark += f" (provisional: partial sweep, {exp.n_cells}/{exp.n_expected} cells)"
        statement = claim.statement + (f" *{claim.note}*" if claim.note else "")
        rows.append(
            [f"`{claim.id}`", f"{claim.paper} {claim.source}", statement, mark, verdict.evidence]
        )
    return rows


#: Heading and opening paragraph of the sections that list experiments one by one.
SECTION_TEXT = {
    "curves": (
        "## Curve-only figures: the papers' claims checked",
        "bzmd14 and lst17 publish curves, not numbers. Their text says what the curves show "
        "(bzmd14 §7.5 and §8; lst17 §4.2); each such sentence is restated below as a check on our "
        "means over the repetitions (bzmd14: mean of 5 executions, as the paper). bzmd14 Figure 2 "
        "(b, d, f) (LIGHT) and lst17's SECTOR and ILSVRC2012 panels are not reproduced (see "
        "Deviations).",
    ),
    "diagnostic": (
        "## Diagnostics",
        "Runs that are not paper figures but separate what a paper figure mixes; each title says "
        "which figure it explains, and its claims are checked as on that figure's own run.",
    ),
    "custom": (
        "## Your experiments",
        "Experiments outside the papers' sections: ad-hoc runs (`kmdr dataset=... reducer=...`) "
        "and presets of your own (`preset.section: custom`), each with its figure and how "
        "complete it is. A run's place in this report comes from its preset's metadata.",
    ),
}


def section_experiments(
    root: Path, section: str, members: list[Experiment], by_exp: dict[str, list], orphans=()
) -> str:
    """A section listing its experiments in order: each one's status, notes, figure and claims;
    ``orphans`` are the claims about experiments absent from the results folder (no data)."""
    heading, intro = SECTION_TEXT[section]
    out = [heading, "", intro]
    for e in members:
        out += ["", _experiment_block(root, e, by_exp.get(e.name, []))]
    if orphans:
        names = ", ".join(f"`{n}`" for n in dict.fromkeys(c.experiment for c, _ in orphans))
        out += [
            "",
            "### Claims about experiments not in this results folder",
            "",
            f"No folder for {names}: every claim about them is *no data*.",
            "",
            _table(
                ["claim", "source", "statement", "verdict", "evidence"],
                _claim_rows(orphans, None),
            ),
        ]
    return "\n".join(out)


def _experiment_block(root: Path, e: Experiment, pairs: list) -> str:
    preset = e.preset
    where = f"paper {preset['paper']}" if preset["paper"] else "your own experiment"
    out = [
        f"### {preset['title']}",
        "",
        f"`{e.name}` ({where}, figure style {preset['figure']}): {e.status()}.",
    ]
    if "setting" in e.summary.columns:
        settings = ", ".join(f"`{x}`" for x in sorted(e.summary["setting"].dropna().unique()))
        out += ["", f"Settings, drawn as one row of panels each: {settings}."]
    also = " Every claim below is *no data*." if pairs else ""
    if not e.has_results and e.incomplete:
        out += [
            "",
            "**No cell finished yet**: the run stopped (or is still running) before its first "
            f"cell; running the same command again resumes it.{also}",
        ]
    elif not e.has_results:
        why = "; ".join(e.skipped) if e.skipped else NO_DATA_WHY.get(e.name, "not run")
        out += ["", f"**No data**: {why}.{also}"]
    if e.name in FIGURE_NOTES:
        out += ["", FIGURE_NOTES[e.name]]
    for fig in e.figures():
        rel = fig.relative_to(root).as_posix()
        out += ["", f"![{e.name}: {fig.stem}]({rel})"]
    if pairs:
        out += [
            "",
            _table(["claim", "source", "statement", "verdict", "evidence"], _claim_rows(pairs, e)),
        ]
    return "\n".join(out)


#: What a reader must know before reading a figure's claims.
FIGURE_NOTES = {
    "bzmd14_synth": (
        "On Synth the curves mostly show Lloyd's starts, not the reductions: from MATLAB's "
        "'sample' start (k random points, the paper's protocol) a run often ends with two of the "
        "five far-apart clusters merged and one split (P = 0.8, F thousands of times the optimum) "
        "and cannot leave that local optimum; on the full data 11 of 40 single starts (seeds "
        "0-39) reached P = 1, so about a quarter of 5-restart executions stay stuck, whichever the "
        "method. The same grid with k-means++ starts follows."
    ),
    "bzmd14_synth_kmeanspp": (
        "Same data, reducers, r-grid and 5 repetitions as `bzmd14_synth`; only `kmeans.init` is "
        "k-means++. With starts that do not merge clusters, every method recovers the five "
        "clusters exactly: this is the paper's statement that r ≈ 20 (here already r = 5) "
        "suffices on well-separated data, seen without the noise of the starts."
    ),
    "report_orl_projections": (
        "The course-project report (a 2020 reproduction of bmd09 and of the random-projection "
        "paper) compares sign, Gaussian and Achlioptas projections, leverage sampling with an "
        "approximate SVD, square-root leverage scores and A V_r on the raw 112×92 ORL images "
        "(10304 features). It publishes no numbers that SPEC.md records, so there is nothing to "
        "check here; the figure is ours, for comparison with the report's. Its FJLT/SRHT variant "
        "is not implemented."
    ),
    "lst17_sparse_text": (
        "**This is a synthetic stand-in with RCV1's shape and sparsity, not RCV1. Its numbers "
        "are NOT a reproduction of lst17's RCV1 panel**; they only show whether the methods "
        "behave as the paper describes on sparse text-like data."
    ),
}


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
            [b.title, ", ".join(b.methods), b.factor_text, _f(b.factor(eps, 1.0), 3), b.r_text,
             b.probability, b.notes]
        )  # fmt: skip
    out.append(
        _table(
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
            _table(
                ["k", "Thm 11: c₁·4k ln(200k)/ε²", "Thm 12: c₂k/ε²", "Thm 13: r = k",
                 "Lemma 6: 4k ln(2k/δ), δ = 0.1"],
                need,
            ),
        ]  # fmt: skip
    # Approximation ratios
    out += [
        "",
        "### Empirical approximation ratio",
        "",
        "ratio = F(partition found on C) / F(best partition found on A), where the denominator is "
        "the lowest kMeans objective over our repetitions; the table shows the worst repetition "
        "(max). Because F(best found on A) ≥ F_opt, this ratio is a *lower* estimate of "
        "F/F_opt: a value above a bound would show a violation only where the theorem applies, "
        "while values below a bound are consistent with it but do not prove it. Ratios below 1 "
        "mean the reduced k-means found a better partition of A than k-means on A did. "
        "'applies' says whether that r meets the theorem's requirement.",
    ]
    any_ratio = False
    for name, e in exps.items():
        if not e.has_cells or "objective" not in e.cells:
            continue
        ratios = T.approximation_ratios(e.cells)
        if ratios.empty:
            continue
        any_ratio = True
        for ds, g in ratios.groupby("dataset"):
            k = int(g["k"].iloc[0])
            rs = sorted(g["r"].unique())
            pick = _ratio_r_values(rs, k)
            rows = []
            for method, gm in g.groupby("method"):
                vals = gm.set_index("r")["ratio_max"]
                bounds = T.bounds_for(method)
                btxt = (
                    "; ".join(
                        f"{b.key}: {b.factor(eps, 1.0):.3g} ({_applies_summary(b, rs, k)})"
                        for b in bounds
                    )
                    or "no theorem"
                )
                rows.append([method, *(_f(vals.get(r), 3) for r in pick), _f(vals.max(), 3), btxt])
            out += [
                "",
                f"**`{name}` / {ds}** (k = {k}; F best on A = {g['f_best_on_a'].iloc[0]:.4g}"
                + (", partial sweep" if e.incomplete else "")
                + ")",
                "",
                _table(
                    [
                        "method",
                        *(f"r = {r}" for r in pick),
                        "max over r",
                        "bound at γ = 1 (applies?)",
                    ],
                    rows,
                ),
            ]
    if not any_ratio:
        out += ["", "*No data*: no experiment with a kMeans baseline has results."]
    out += ["", section_lemma(root)]
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
    table = _read_csv(root / "theory" / "sampling_lemma.csv")
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
            frac = app["within_bound"].astype(bool).mean()
            ok = frac >= 1 - T.LEMMA6_DELTA
            verdicts.append(
                f"- {ds} (k = {k}, d = {d}): where the lemma applies ({rmin:.0f} < r ≤ {d}), "
                f"{frac:.0%} of the draws have every σ_i² within 1 ± eps (the lemma promises "
                f"≥ {1 - T.LEMMA6_DELTA:.0%}): **{'holds' if ok else 'fails'}**."
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
        _table(
            ["dataset", "k", "d", "r", "σ²_min", "σ²_max", "eps(r)", "lemma applies",
             "draws within 1 ± eps"],
            rows,
        ),
        "",
        "</details>",
    ]  # fmt: skip
    skipped = _read_csv(root / "theory" / "sampling_lemma_skipped.csv")
    if len(skipped):
        out += [
            "",
            "Datasets skipped: "
            + "; ".join(f"{r.dataset} ({r.reason})" for r in skipped.itertuples()),
        ]
    return "\n".join(out)


def _read_csv(path: Path | None, **kwargs) -> pd.DataFrame:
    """A CSV the report may or may not find (empty frame when absent)."""
    return read_csv(path, **kwargs) if path is not None and path.exists() else pd.DataFrame()


def section_fig1(root: Path, members: list[Experiment]) -> str:
    """bmd09 Figure 1 for each experiment of section ``fig1`` (the paper's terms only if none)."""
    return "\n\n".join(_fig1_block(root, e) for e in members or [None])


def _fig1_block(root: Path, e: Experiment | None) -> str:
    title = "bmd09 Figure 1: the high-leverage NIPS terms"
    out = [f"## {e.preset['title'] if e is not None and e.preset['paper'] else title}", ""]
    if e is not None:
        out += [f"`{e.name}`: {e.status()}.", ""]
    path = None if e is None else e.dir / "leverage_scores.csv"
    scores = _read_csv(path, keep_default_na=False)
    if scores.empty or "term" not in scores:
        skipped = e.skipped if e is not None else []
        why = "; ".join(skipped) if skipped else NO_DATA_WHY["bmd09_fig1"]
        out.append(
            f"**No data** ({why}). The paper names these terms: "
            + ", ".join(BMD09_FIG1_TERMS)
            + ". The vocabulary we hold (nips17.vocab) contains all of them, but without the "
            "counts their leverage scores cannot be computed."
        )
        return "\n".join(out)
    scores = scores.sort_values("score", ascending=False).reset_index(drop=True)
    scores["rank"] = np.arange(1, len(scores) + 1)
    drawn = int((scores.get("times_drawn", pd.Series(0)) > 0).sum())
    top_n = 30
    rows, hits = [], 0
    for term in BMD09_FIG1_TERMS:
        m = scores[scores["term"].astype(str) == term]
        if m.empty:
            rows.append([term, "—", "—", "—", "not in our vocabulary"])
            continue
        r = m.iloc[0]
        hit = r["rank"] <= top_n
        hits += hit
        rows.append(
            [term, int(r["rank"]), f"{r['score']:.4f}", int(r.get("times_drawn", 0)),
             "among our top 30" if hit else "not in our top 30"]
        )  # fmt: skip
    out += [
        f"Our leverage scores of the {len(scores)} terms, ranked; top 30 = the size of one "
        f"r = 10k = 30 sample (the paper's 'best set (r = 30)'); {drawn} distinct terms were drawn "
        "in our r = 30 sample.",
        "",
        _table(["term (paper)", "our rank", "score", "times drawn", "verdict"], rows),
        "",
        f"{hits} of {len(BMD09_FIG1_TERMS)} published terms are among our 30 highest-leverage "
        "terms.",
    ]
    for fig in e.figures():
        out += ["", f"![bmd09 Figure 1]({fig.relative_to(root).as_posix()})"]
    return "\n".join(out)


def section_deviations(exps: dict[str, Experiment]) -> str:
    def shape(name: str, ds: str) -> str:
        e = exps.get(name)
        if e is None or not e.has_cells or "n_samples" not in e.cells:
            return ""
        g = e.cells[e.cells["dataset"] == ds]
        if g.empty:
            return ""
        return f" (ours: {int(g['n_samples'].iloc[0])} × {int(g['n_features'].iloc[0])})"

    nips_ran = any(e.has_results and "nips" in e.datasets for e in exps.values())
    if nips_ran:
        nips_item = (
            "**NIPS** (bmd09 Table 1 and Figure 1): built from Gal Chechik's nips_1-17.mat as "
            "bmd09 describes (the CN, LT and NS documents of 2001-2003, terms that occur in them)"
            + shape("bmd09_table1", "nips")
            + "; bmd09 reports 184 × 6314."
        )
    else:
        nips_item = (
            "**NIPS** (bmd09 Table 1 and Figure 1): the 184 × 6314 count matrix is built from Gal "
            "Chechik's nips_1-17.mat, which could not be obtained: every public copy found was "
            "above the ~4 MB blob limit of the snapshot store the data was collected from, and "
            "this machine has no network. Only the metadata (vocabulary, document names, section "
            "labels) is here; it confirms the 184 documents (CN 50, LT 68, NS 66) and contains all "
            "the Figure 1 terms. bmd09's NIPS results are therefore *no data*."
        )
    items = [
        "**COIL20**: 1440 images (20 objects × 72 poses, 32×32 = 1024 features, values in [0, 1]; "
        "scikit-feature's COIL20.mat)"
        + shape("bzmd14_coil20", "coil20")
        + ". bzmd14 §7.3 says 1400 images but also 20 objects × 72 images, which is 1440; we "
        "use all 1440.",
        "**USPS**: 11000 × 256, 1100 images per digit scaled to [0, 1] (uint8/255), as bzmd14 "
        "§7.3 describes" + shape("bzmd14_usps", "usps") + ". The file is Roweis' usps_all content "
        "in a fea/gnd form converted by a third party (2017); it could not be compared byte for "
        "byte with the original. Its labels match its images (1-nearest-neighbour accuracy 95% "
        "in 3-fold cross-validation), yet k-means finds it much harder than the better known "
        "9298-image Hull USPS: with the same k-means (k-means++, 5 restarts) P = 0.41 and "
        "NMI = 0.43 here against P = 0.67 and NMI = 0.63 on the Hull file of SOURCES.md "
        "(measured once when this report was written, not by `make reproduce`), so low P on "
        "USPS is a property of this form of the data.",
        "**ORL**: Deng Cai's 64×64 version, 400 × 4096, as bzmd14 uses"
        + shape("bzmd14_orl", "orl")
        + " (identical pixels to Roweis' Olivetti file). The 2020 course-project report used the "
        "raw 112×92 = 10304-pixel images; `report_orl_projections` follows the report there.",
        "**PIE**: 2856 × 1024, 68 people × 42 images under varying illumination"
        + shape("bzmd14_pie", "pie")
        + ". This matches the 2856 × 1024 bzmd14 gives, but bzmd14 "
        "describes its set as five near-frontal poses with all illuminations and expressions, "
        "which would be larger; whether this is the paper's exact subset could not be checked.",
        "**LIGHT** (bzmd14 Figure 2 b, d, f): not obtained (not among the files in SOURCES.md); "
        "that panel is not reproduced.",
        "**Synth**: generated as bzmd14 §7.3 describes (1000 points in 2000 dimensions, 5 centers "
        "uniform in a hypercube of side 2000, 200 points per center, unit variance) from our "
        "seed; the paper's own draw is not available, so only its distribution is reproduced.",
        nips_item,
        "**Bio** (Nielsen et al. 2002, 31 × 5520): no public copy was found; bmd09's Bio row is "
        "*no data*.",
        "**RCV1 and SECTOR** (lst17): the LIBSVM files are far above the blob limit and no "
        "smaller copy was found; without network they could not be fetched. lst17's RCV1 and "
        "SECTOR panels are *no data*; **ILSVRC2012** was not attempted (far too large).",
        "**sparse_text**: a synthetic sparse tf-idf matrix with RCV1-like shape and density and "
        "planted topics" + shape("lst17_sparse_text", "sparse_text") + ", used so that SE, RP and "
        "the others can be timed on sparse text-like input. **Its numbers are not a "
        "reproduction of lst17's RCV1 panel** and no verdict on it is a verdict on RCV1.",
        "**k-means**: Lloyd's algorithm with restarts (scikit-learn), not MATLAB's `kmeans`; the "
        "seeding, restarts and iteration cap of each cell are recorded in `cells.csv` "
        "(`kmeans_init`, `kmeans_n_init`, `kmeans_max_iter`).",
        "**Times** were measured on a shared 2-core machine; compare their shapes and orderings "
        "with the papers', not their values.",
    ]
    return "## Deviations from the papers' data and setup\n\n" + "\n".join(f"- {i}" for i in items)


# --------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------


def evaluate_claims(summaries: dict[str, pd.DataFrame]) -> list[tuple[C.Claim, C.Verdict]]:
    """Every claim's verdict; on an experiment holding several settings (a ``setting`` column),
    one verdict per setting, its evidence prefixed with the setting: a claim is never checked on
    curves averaged over seeds or k-means settings."""
    results = []
    for claim in C.CLAIMS:
        df = summaries.get(claim.experiment)
        if df is None or "setting" not in df.columns or df["setting"].nunique() < 2:
            results.append((claim, C.evaluate(claim, summaries)))
            continue
        for setting, part in df.groupby("setting", sort=True):
            verdict = C.evaluate(claim, {claim.experiment: part})
            results.append((claim, C.Verdict(verdict.verdict, f"[{setting}] {verdict.evidence}")))
    return results


def build_report(root: str | Path) -> str:
    """The whole REPORT.md text for the results folder ``root``."""
    root = Path(root)
    exps = load_all(root)
    summaries = {n: e.summary for n, e in exps.items() if len(e.summary)}
    results = evaluate_claims(summaries)
    counts = {v: sum(1 for _, r in results if r.verdict == v) for v in C.VERDICTS}
    tally = ", ".join(f"{counts[v]} {v}" for v in C.VERDICTS)
    by_exp: dict[str, list] = {}
    for claim, verdict in results:
        by_exp.setdefault(claim.experiment, []).append((claim, verdict))
    orphans = [pair for name, pairs in by_exp.items() if name not in exps for pair in pairs]
    sections = []
    for rank, section in enumerate(SECTIONS):
        members = _in_section(exps, section)
        if not members and section not in PAPER_SECTIONS:
            continue
        order = min((e.preset["order"] for e in members), default=SECTION_DEFAULT_ORDER[section])
        if section == "table1":
            text = section_table1(members)
        elif section == "fig1":
            text = section_fig1(root, members)
        else:
            extra = orphans if section == "curves" else ()
            text = section_experiments(root, section, members, by_exp, extra)
        sections.append((order, rank, text))
    parts = [
        section_header(root, exps),
        f"\n**Claims checked: {len(results)}** ({tally}).",
        *(text for _order, _rank, text in sorted(sections)),
        section_theory(root, exps),
        section_deviations(exps),
    ]
    return "\n\n".join(parts).rstrip() + "\n"


def write_report(root: str | Path) -> Path:
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    path = root / "REPORT.md"
    atomic_write_text(path, build_report(root))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="kmdr-report", description="Write RESULTS/REPORT.md from the CSVs under RESULTS/."
    )
    parser.add_argument("results", nargs="?", default="results", type=Path)
    args = parser.parse_args(argv)
    path = write_report(args.results)
    print(f"kmdr-report: wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
