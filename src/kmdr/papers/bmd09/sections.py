"""The report's bmd09 sections: Table 1 beside the published numbers, and the Figure 1 terms."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from kmdr.papers.bmd09 import PAPER
from kmdr.papers.bmd09.table1 import table1
from kmdr.papers.published import (
    BMD09_FIG1_TERMS,
    BMD09_TABLE1,
    BMD09_TABLE1_COLUMNS,
    BMD09_TABLE1_NAMES,
)
from kmdr.report import claims as C
from kmdr.report._text import VERDICT_MARK, md_table, number, read_optional_csv
from kmdr.report.experiments import SKIPPED_ANCHOR, Experiment
from kmdr.report.sections import ReportContext, ReportSection

__all__ = ["FIG1_SECTION", "TABLE1_SECTION", "section_fig1", "section_table1"]


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
    ours = table1(e.summary) if e is not None and len(e.summary) else pd.DataFrame()
    if e is None or not e.has_cells:
        skipped = e.skipped if e is not None else []
        why = PAPER.no_data["bmd09_table1"] + (
            f"; skipped, see {SKIPPED_ANCHOR}" if skipped else ""
        )
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
                    [BMD09_TABLE1_NAMES[dataset], label, "—", "—", number(p_pub), number(f_pub),
                     "—", "—", "—", VERDICT_MARK[C.NO_DATA]]
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
                [BMD09_TABLE1_NAMES[dataset], f"{label} (r = {row['r']})", number(row["P_ours"]),
                 number(row["F_ours"]), number(p_pub), number(f_pub), f"{dp:+.3f}", f"{df:+.3f}",
                 f"±{tol_p:.3f} / ±{tol_f:.3f}", verdict]
            )  # fmt: skip
    out.append(
        md_table(
            ["dataset", "column", "P ours", "F ours", "P paper", "F paper", "ΔP", "ΔF",
             "tolerance P / F", "verdict"],
            rows,
        )
    )  # fmt: skip
    return "\n".join(out)


def section_fig1(root: Path, members: list[Experiment]) -> str:
    """bmd09 Figure 1 for each experiment of section ``fig1`` (the paper's terms only if none)."""
    return "\n\n".join(_fig1_block(root, e) for e in members or [None])


def _fig1_block(root: Path, e: Experiment | None) -> str:
    title = "bmd09 Figure 1: the high-leverage NIPS terms"
    out = [f"## {e.preset['title'] if e is not None and e.preset['paper'] else title}", ""]
    if e is not None:
        out += [f"`{e.name}`: {e.status()}.", ""]
    path = None if e is None else e.dir / "leverage_scores.csv"
    scores = read_optional_csv(path, keep_default_na=False)
    if scores.empty or "term" not in scores:
        skipped = e.skipped if e is not None else []
        why = PAPER.no_data["bmd09_fig1"]
        why += f"; skipped, see {SKIPPED_ANCHOR}" if skipped else ""
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
        md_table(["term (paper)", "our rank", "score", "times drawn", "verdict"], rows),
        "",
        f"{hits} of {len(BMD09_FIG1_TERMS)} published terms are among our 30 highest-leverage "
        "terms.",
    ]
    for fig in e.figures():
        out += ["", f"![bmd09 Figure 1]({fig.relative_to(root).as_posix()})"]
    return "\n".join(out)


def _render_table1(root: Path, members: list[Experiment], context: ReportContext) -> str:
    return section_table1(members)


def _render_fig1(root: Path, members: list[Experiment], context: ReportContext) -> str:
    return section_fig1(root, members)


#: The report sections ``table1`` and ``fig1``, shown (with the published numbers, or *no data*)
#: even when no experiment ran.
TABLE1_SECTION = ReportSection(render=_render_table1, default_order=10, always_shown=True)
FIG1_SECTION = ReportSection(render=_render_fig1, default_order=20, always_shown=True)
