"""The opening of the report: what was run and how complete it is, the one list of skipped
experiments with their reasons, and what each method's time includes (from the reducer
declarations)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

from kmdr._io import read_text
from kmdr.plugins import papers
from kmdr.reducers import reducer_entry
from kmdr.report._text import VERDICT_LEGEND, md_table
from kmdr.report.claims.labels import shown_names
from kmdr.report.experiments import Experiment, public_text, run_field
from kmdr.report.notes import NO_DATA_WHY, TIME_INTRO
from kmdr.results import runs as sidecars
from kmdr.results.reading import is_baseline

__all__ = [
    "dirty_cells",
    "section_header",
    "section_skipped",
    "section_time_includes",
    "skipped_experiments",
]


def _time_includes(name: str) -> str:
    """What the reduction time of reducer ``name`` covers, as its declaration says."""
    try:
        return reducer_entry(name).time_includes or "not described by its declaration"
    except ValueError:
        return "not described (a reducer not installed here)"


def _computing_runs(exp: Experiment) -> list[dict]:
    """The run records behind what the report shows of ``exp``: those whose id a cell carries
    (with cells), else those that were not skipped (bmd09 Figure 1's scores). A run that reused
    every cell or was skipped adds nothing, so re-running over the same results leaves the
    report as it was."""
    if exp.has_cells and "run_id" in exp.cells:
        ids = set(exp.cells["run_id"].astype(str))
        return [run for run in exp.runs if str(run.get("run_id")) in ids]
    return [run for run in exp.runs if not run.get("skipped")]


def dirty_cells(exp: Experiment) -> list[str]:
    """One line per run record of ``exp`` marked dirty (its code had uncommitted changes) that
    computed cells: how many, of which methods and r, the run and its revision."""
    out = []
    if not exp.has_cells or "run_id" not in exp.cells:
        return out
    for run in _computing_runs(exp):
        git = run.get("git")
        if not (isinstance(git, dict) and git.get("dirty")):
            continue
        cells = exp.cells[exp.cells["run_id"].astype(str) == str(run.get("run_id"))]
        methods = ", ".join(
            f"{m} (r = {', '.join(str(r) for r in sorted(part['r'].unique()))})"
            for m, part in cells.groupby("method", sort=True)
        )
        rev = str(git.get("revision") or "unknown")[:10]
        out.append(
            f"`{exp.name}`: {len(cells)} cells, {methods}; run `{run.get('run_id')}` on `{rev}` "
            "with uncommitted changes"
        )
    return out


def section_header(root: Path, exps: dict[str, Experiment]) -> str:
    runs = [run for e in exps.values() for run in _computing_runs(e)]
    revs = sorted({v for r in runs for v in _run_values(r, "git", "git_revision")})
    starts = sorted(v for r in runs for v in _run_values(r, "started_at", "start_time"))
    ends = sorted(v for r in runs for v in _run_values(r, "finished_at", "end_time"))
    out = [
        "# kmdr: the papers' tables, figures and claims beside our results",
        "",
        _papers_line(),
        "",
        # the folder's name only: the report is read on other machines; no date or revision of
        # the writing: the same results give the same report
        f"- Written by `kmdr-report {root.name}` from the CSVs under `{root.name}/` alone.",
        "- Code revisions of the runs that computed the cells: "
        + (", ".join(f"`{r}`" for r in revs) if revs else "none recorded")
        + ".",
    ]
    dirty = [line for e in exps.values() for line in dirty_cells(e)]
    if dirty:
        out.append(
            "- **Cells computed by code with uncommitted changes** (no revision holds exactly "
            "their code): " + "; ".join(dirty) + "."
        )
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
        methods = "; ".join(sorted(set(_algorithms(e)))) if e.has_cells else "—"
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
    out += ["", section_methods(exps)]
    out += ["", section_skipped(root, exps), "", section_time_includes(exps)]
    return "\n".join(out)


def _algorithms(exp: Experiment) -> dict[str, str]:
    """{the name the report gives each algorithm of ``exp``: its reducer as the cells and the
    config name it (``reducer``; kmdr's variant of PD is ``sparsified_kmdr`` where its cells say
    "PD")}: one name per algorithm, the same in every table."""
    return {name: reducer for name, (reducer, _) in _declared(exp).items()}


def _declared(exp: Experiment) -> dict[str, tuple[str, str]]:
    """{algorithm: (its reducer, the declaration that describes its time)}: the declaration is
    its registry reducer's, except for a sparsified k-means whose parameters make it the
    two-pass or unpreconditioned one (kmdr's variants run the one estimator under its
    parameters)."""
    if not exp.has_cells or "reducer_name" not in exp.cells:
        return {}
    cells = exp.cells
    names = shown_names(cells)
    ids = cells["reducer"] if "reducer" in cells else cells["reducer_name"]
    params = cells["reducer_params"] if "reducer_params" in cells else ids.map(lambda _: "")
    rows = zip(cells["method"], ids, cells["reducer_name"], params, strict=True)
    out = {}
    for m, reducer, registered, given in dict.fromkeys(rows):
        declared = str(registered)
        if declared == "sparsified":
            try:
                value = json.loads(given) if isinstance(given, str) and given else {}
            except ValueError:
                value = {}
            if value.get("second_pass"):
                declared = "sparsified_two_pass"
            elif value.get("preconditioner") == "none":
                declared = "sparsified_raw"
        out[names.get(str(m), str(m))] = (str(reducer), declared)
    return out


def section_methods(exps: dict[str, Experiment]) -> str:
    """The methods run, one row per algorithm: its name, its reducers as the cells name them
    (an algorithm a preset runs under a reducer id of its own has each id listed), the
    experiments."""
    reducers: dict[str, set[str]] = {}
    where: dict[str, list[str]] = {}
    for e in exps.values():
        for method, reducer in _algorithms(e).items():
            reducers.setdefault(method, set()).add(reducer)
            where.setdefault(method, []).append(f"`{e.name}`")
    rows = [[m, _ids(reducers[m]), ", ".join(where[m])] for m in sorted(where)]
    out = ["### Methods run", "", "One row per algorithm, under the one name the report gives it."]
    out += ["", md_table(["method", "reducer", "experiments"], rows) if rows else "—"]
    return "\n".join(out)


def _ids(reducers) -> str:
    return ", ".join(f"`{r}`" for r in sorted(reducers))


def _papers_line() -> str:
    """The papers the report holds, each with its citation (its declaration's ``citation``), in
    the papers' order."""
    cited = [f"**{paper.key}** ({paper.citation})" for paper in papers() if paper.citation]
    return "Papers: " + ", ".join(cited) + "."


def _run_values(run: dict, *keys: str) -> list[str]:
    """The first of ``keys`` a run record has, as text (a ``git`` record as its revision)."""
    return run_field(SimpleNamespace(runs=[run]), *keys)  # the one attribute it reads


def _latest_skip(exp: Experiment) -> str:
    """The reason the latest skipped run of ``exp`` gives ("" if none): an earlier run's may say
    the same in other words, and is not a second reason."""
    runs = [run for run in exp.runs if run.get("skipped")][-1:]
    return "; ".join(public_text(_data_dir_named(t)) for t in sidecars.skip_reasons(exp.dir, runs))


def _data_dir_named(text: str) -> str:
    """``text`` with the data cache folder named as its setting says it: ``datasets/`` (a
    checkout's own, relative to it), else ``$KMDR_DATA_DIR``."""
    from kmdr.datasets import resolve_data_dir

    folder = resolve_data_dir()
    name = "datasets/" if (folder.parent / "pyproject.toml").is_file() else "$KMDR_DATA_DIR/"
    return text.replace(f"{folder}/", name)


def skipped_experiments(root: Path, exps: dict[str, Experiment]) -> dict[str, str]:
    """Each skipped or not-run experiment and why, once: the sidecars' reasons, else the runner's
    ``SKIPPED.md`` (``- `name`: reason`` lines), else the report's note, else "not run"."""
    listed: dict[str, str] = {}
    skipped_md = root / "SKIPPED.md"
    if skipped_md.exists():
        for line in read_text(skipped_md).splitlines():
            m = re.match(r"^- `([^`]+)`: (.+)$", line.strip())
            if m:
                listed[m.group(1)] = public_text(m.group(2))
    out = {}
    for e in exps.values():
        if e.has_results or e.incomplete:
            continue
        reason = _latest_skip(e) or listed.get(e.name) or NO_DATA_WHY.get(e.name, "not run")
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
    reducers: dict[tuple[str, str], set[str]] = {}
    for e in exps.values():
        for m, (r, d) in _declared(e).items():
            reducers.setdefault((d, m), set()).add(r)
    out = ["### What each method's time includes", "", TIME_INTRO, "", "One row per algorithm.", ""]
    rows = [[m, _ids(reducers[d, m]), _time_includes(d)] for d, m in sorted(reducers)]
    out.append(md_table(["method", "reducer", "reduction time includes"], rows) if rows else "—")
    return "\n".join(out)
