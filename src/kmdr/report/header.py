"""The opening of the report: what was run and how complete it is, the one list of skipped
experiments with their reasons, and what each method's time includes (from the reducer
declarations)."""

from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path

from kmdr._git import code_revision
from kmdr.reducers import reducer_entry
from kmdr.report._text import VERDICT_LEGEND, md_table
from kmdr.report.experiments import Experiment, public_text, run_field
from kmdr.report.notes import NO_DATA_WHY, TIME_INTRO
from kmdr.results.reading import is_baseline

__all__ = ["section_header", "section_skipped", "section_time_includes", "skipped_experiments"]


def _time_includes(name: str) -> str:
    """What the reduction time of reducer ``name`` covers, as its declaration says."""
    try:
        return reducer_entry(name).time_includes or "not described by its declaration"
    except ValueError:
        return "not described (a reducer not installed here)"


def _git_revision() -> str:
    """Short revision of the code writing the report (changes under results/ do not count)."""
    info = code_revision()
    if not info["revision"]:
        return "unknown"
    return info["revision"][:7] + (" (with uncommitted changes)" if info["dirty"] else "")


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
