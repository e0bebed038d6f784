"""``kmdr-report RESULTS``: write ``RESULTS/REPORT.md`` from the CSVs alone (no experiment runs).

Reads only what docs/results-layout.md lists: ``<experiment>/cells.csv`` with ``cells/*.json``,
``runs/*.json``, ``summary.csv`` (recomputed from the cells when absent), ``figures/*.png``,
``<experiment>/leverage_scores.csv`` and ``theory/*.csv``.

The experiments are found by scanning the results folder, and each one's place comes from its
preset metadata (``config.preset`` of its last sidecar: ``section``, ``order``, ``title``,
``paper``; :func:`kmdr.results.summary.preset_of`), never from its name: a new preset or a
user's own experiment appears with its figure and completeness (an ad-hoc run in "Your
experiments"). Sections, ordered by the smallest ``order`` of their experiments: bmd09 Table 1
beside the published numbers (``table1``), the bmd09 Figure 1 terms (``fig1``), the curve-only
figures with the papers' claims and their verdicts (``curves``), diagnostics (``diagnostic``) and
your experiments (``custom``); before them what was run and how complete it is, after them the
theory (approximation ratios beside the theorems' bounds, the sampling lemma) and the deviations
from the papers' data. The papers' three sections always appear (with *no data* when nothing ran).
A table of contents opens the report; skipped experiments are listed once, with their reasons
(no absolute path of the build machine: :func:`kmdr.report.experiments.public_text`), and every
other mention links to that list.
Text about one specific experiment (its notes, why it has no data; :mod:`kmdr.report.notes`) is
keyed by its name; no behaviour is. The sections live in :mod:`kmdr.papers.bmd09.sections`,
:mod:`kmdr.report.theory_sections` and :mod:`kmdr.report.deviations`; this module places them.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import re
import sys
from pathlib import Path

import pandas as pd

from kmdr._git import code_revision
from kmdr._io import atomic_write_text
from kmdr.papers.bmd09.sections import section_fig1, section_table1
from kmdr.reducers import reducer_entry
from kmdr.report import claims as C
from kmdr.report._text import VERDICT_LEGEND, VERDICT_MARK, md_table
from kmdr.report.deviations import section_deviations
from kmdr.report.experiments import (
    SKIPPED_ANCHOR,
    Experiment,
    in_section,
    load_all,
    public_text,
    run_field,
)
from kmdr.report.notes import FIGURE_NOTES, NO_DATA_WHY, TIME_INTRO
from kmdr.report.theory_sections import section_theory
from kmdr.results import summary as aggregate
from kmdr.results.summary import SECTIONS, is_baseline

#: Where a section stands when none of its experiments gives an ``order``.
SECTION_DEFAULT_ORDER = {"table1": 10, "fig1": 20, "curves": 30, "diagnostic": 900, "custom": 1000}
#: The papers' sections: shown (with *no data*) even when none of their experiments ran.
PAPER_SECTIONS = ("table1", "fig1", "curves")


def _git_revision() -> str:
    """Short revision of the code writing the report (changes under results/ do not count)."""
    info = code_revision()
    if not info["revision"]:
        return "unknown"
    return info["revision"][:7] + (" (with uncommitted changes)" if info["dirty"] else "")


# --------------------------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------------------------


def section_header(root: Path, exps: dict[str, Experiment]) -> str:
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    revs = sorted({v for e in exps.values() for v in run_field(e, "git", "git_revision")})
    starts = sorted(v for e in exps.values() for v in run_field(e, "started_at", "start_time"))
    ends = sorted(v for e in exps.values() for v in run_field(e, "finished_at", "end_time"))
    out = [
        "# kmdr: the papers' tables, figures and claims beside our results",
        "",
        "Papers: **bmd09** (Boutsidis, Mahoney, Drineas, NIPS 2009), **bzmd14** (Boutsidis, "
        "Zouzias, Mahoney, Drineas, IEEE TIT 2015 / arXiv 2014), **lst17** (Liu, Shen, Tsang, "
        "NIPS 2017).",
        "",
        # the folder's name only: the report is read on other machines
        f"- Report written: {now}, by `kmdr-report {root.name}` from the CSVs under "
        f"`{root.name}/` alone.",
        f"- Code revision at report time: `{_git_revision()}`; revisions recorded by the runs: "
        + (", ".join(f"`{r}`" for r in revs) if revs else "none recorded")
        + ".",
    ]
    if starts:
        out.append(f"- Runs started {starts[0]} and ended {ends[-1] if ends else '?'}.")
    out += [
        VERDICT_LEGEND,
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
    out.append(md_table(header, rows) if rows else "*No experiment folder found.*")
    incomplete = [e.name for e in exps.values() if e.incomplete]
    out.append("")
    if incomplete:
        out.append(
            "**Incomplete sweeps** (verdicts on them are provisional and marked so): "
            + ", ".join(f"`{n}`" for n in incomplete)
            + "."
        )
    out += ["", section_skipped(root, exps), "", section_time_includes(exps)]
    return "\n".join(out)


def skipped_experiments(root: Path, exps: dict[str, Experiment]) -> dict[str, str]:
    """Each skipped or not-run experiment and why, once: the sidecars' reasons, else the runner's
    ``SKIPPED.md`` (``- `name`: reason`` lines), else the report's note, else "not run"."""
    listed: dict[str, str] = {}
    skipped_md = root / "SKIPPED.md"
    if skipped_md.exists():
        for line in skipped_md.read_text().splitlines():
            m = re.match(r"^- `([^`]+)`: (.+)$", line.strip())
            if m:
                listed[m.group(1)] = public_text(m.group(2))
    out = {}
    for e in exps.values():
        if e.has_results or e.incomplete:
            continue
        reason = "; ".join(e.skipped) or listed.get(e.name) or NO_DATA_WHY.get(e.name, "not run")
        out[e.name] = reason
    for name, reason in listed.items():
        out.setdefault(name, reason)
    return out


def section_skipped(root: Path, exps: dict[str, Experiment]) -> str:
    """The report's one list of skipped experiments with their reasons."""
    skipped = skipped_experiments(root, exps)
    out = ["### Skipped experiments", ""]
    if not skipped:
        return "\n".join([*out, "None."])
    out.append(
        "Their claims are reported as *no data*; elsewhere the report points here instead of "
        "repeating the reason. Local data files are named under `$KMDR_DATA_MIRROR` (the data "
        "folder the loaders read), never by the build machine's path."
    )
    out.append("")
    out += [f"- `{name}`: {reason}" for name, reason in skipped.items()]
    return "\n".join(out)


def _time_includes(name: str) -> str:
    """What the reduction time of reducer ``name`` covers, as its declaration says."""
    try:
        return reducer_entry(name).time_includes or "not described by its declaration"
    except ValueError:
        return "not described (a reducer not installed here)"


def section_time_includes(exps: dict[str, Experiment]) -> str:
    """What each method's time includes, for the reducers present in the results."""
    labels: dict[str, set[str]] = {}
    for e in exps.values():
        if e.has_cells and "reducer_name" in e.cells:
            for name, method in e.cells[["reducer_name", "method"]].drop_duplicates().values:
                labels.setdefault(str(name), set()).add(str(method))
    out = ["### What each method's time includes", "", TIME_INTRO, ""]
    rows = [
        [", ".join(sorted(labels[name])), f"`{name}`",
         _time_includes(name)]
        for name in sorted(labels)
    ]  # fmt: skip
    out.append(md_table(["method", "reducer", "reduction time includes"], rows) if rows else "—")
    return "\n".join(out)


def _anchor(heading: str, seen: dict[str, int]) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, a
    ``-1``, ``-2`` suffix on repeats."""
    slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
    n = seen.get(slug, 0)
    seen[slug] = n + 1
    return slug if n == 0 else f"{slug}-{n}"


def table_of_contents(text: str) -> str:
    """Links to the ``##`` and ``###`` headings of ``text`` (outside fenced code)."""
    seen: dict[str, int] = {}
    lines, fenced = ["## Contents", ""], False
    _anchor("Contents", seen)
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        m = None if fenced else re.match(r"^(#{2,3}) (.+)$", line)
        if m:
            indent = "  " * (len(m.group(1)) - 2)
            title = m.group(2).strip()
            label = title.replace("[", "(").replace("]", ")")
            lines.append(f"{indent}- [{label}](#{_anchor(title, seen)})")
    return "\n".join(lines)


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
            md_table(
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
        why = f"skipped, see {SKIPPED_ANCHOR}" if e.skipped else NO_DATA_WHY.get(e.name, "not run")
        out += ["", f"**No data**: {why}.{also}"]
    if e.name in FIGURE_NOTES:
        out += ["", FIGURE_NOTES[e.name]]
    for fig in e.figures():
        rel = fig.relative_to(root).as_posix()
        out += ["", f"![{e.name}: {fig.stem}]({rel})"]
    if pairs:
        out += [
            "",
            md_table(
                ["claim", "source", "statement", "verdict", "evidence"], _claim_rows(pairs, e)
            ),
        ]
    return "\n".join(out)


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


def section_unread(unread: dict[str, str]) -> str:
    """The experiment folders the report could not read, each with its reason."""
    lines = ["## Experiment folders not read", ""]
    lines.append("These folders could not be read and are left out of everything above:")
    lines.append("")
    lines += [f"- `{name}`: {public_text(reason)}" for name, reason in unread.items()]
    return "\n".join(lines)


def build_report(root: str | Path, unread: dict[str, str] | None = None) -> str:
    """The whole REPORT.md text for the results folder ``root`` (``unread``: see
    :func:`write_report`)."""
    root = Path(root)
    exps = load_all(root, unread)
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
        members = in_section(exps, section)
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
        *([section_unread(unread)] if unread else []),
    ]
    body = "\n\n".join(parts).rstrip() + "\n"
    # The contents go just before the first section, after the title and the run's metadata.
    first = body.index("\n## ") + 1
    return body[:first] + table_of_contents(body) + "\n\n" + body[first:]


def write_report(root: str | Path, unread: dict[str, str] | None = None) -> Path:
    """Write ``root/REPORT.md``. ``unread``: collect the experiment folders that cannot be read
    (name: one-line reason) and report the others; None: such a folder raises."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    path = root / "REPORT.md"
    atomic_write_text(path, build_report(root, unread))
    return path


def _error(message: str) -> None:
    print(f"kmdr-report: error: {' '.join(str(message).split())}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    """``kmdr-report [RESULTS]``: write RESULTS/REPORT.md.

    RESULTS must be an existing folder holding at least one experiment folder (a mistyped path
    is one line and exit status 2, and nothing is written). An experiment folder that cannot be
    read is named in one line and left out, the report is written with the others and its last
    section lists what was left out; the exit status is then 1.
    """
    parser = argparse.ArgumentParser(
        prog="kmdr-report", description="Write RESULTS/REPORT.md from the CSVs under RESULTS/."
    )
    parser.add_argument("results", nargs="?", default="results", type=Path)
    args = parser.parse_args(argv)
    root: Path = args.results
    if not root.is_dir():
        what = "is a file" if root.exists() else "does not exist"
        _error(f"{root} {what}; give the results folder (one folder per experiment, e.g. results)")
        return 2
    if not aggregate.experiment_dirs(root):
        _error(f"no experiment folders under {root} (none holds cells*.csv, runs/ or "
               "leverage_scores.csv); give the results folder, nothing was written")  # fmt: skip
        return 2
    unread: dict[str, str] = {}
    path = write_report(root, unread)
    for name, reason in unread.items():
        _error(f"{name}: not in the report ({reason}); fix or move aside its damaged files")
    print(f"kmdr-report: wrote {path}")
    if unread:
        _error(f"{len(unread)} experiment folders left out of the report: {', '.join(unread)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
