"""``kmdr-report RESULTS``: write ``RESULTS/REPORT.md`` from the CSVs alone (no experiment runs).

Reads only what docs/results-layout.md lists: ``<experiment>/cells.csv`` with ``cells/*.json``,
``runs/*.json``, ``summary.csv`` (recomputed from the cells when absent), ``figures/*.png``,
``<experiment>/leverage_scores.csv`` and ``theory/*.csv``.

The experiments are found by scanning the results folder, and each one's place comes from its
preset metadata (``config.preset`` of its last sidecar: ``section``, ``order``, ``title``,
``paper``; :func:`kmdr.results.summary.preset_of`), never from its name: a new preset or a
user's own experiment appears with its figure and completeness (an ad-hoc run in "Your
experiments"). The sections are those registered in :data:`kmdr.config.presentation.SECTIONS`
(the papers' own, e.g. bmd09 Table 1 and the curve-only figures with their claims, and the
generic diagnostics and "your experiments"), ordered by the smallest ``order`` of their
experiments; the claims are those registered in :mod:`kmdr.report.claims`. Before the sections
comes what was run and how complete it is (:mod:`kmdr.report.header`), after them the theory
(:mod:`kmdr.report.theory_sections`) and the deviations from the papers' data. A table of
contents opens the report; skipped experiments are listed once, with their reasons, and every
other mention links to that list.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

from kmdr._errors import CommandParser, say_error
from kmdr._io import atomic_write_text
from kmdr.config.presentation import SECTIONS
from kmdr.report import claims as C
from kmdr.report.anchors import heading_anchor as _anchor
from kmdr.report.cross_dataset import section_cross_dataset
from kmdr.report.deviations import section_deviations
from kmdr.report.distortion import distortion_verdicts, section_distortion
from kmdr.report.experiments import in_section, load_all, public_text
from kmdr.report.header import section_header
from kmdr.report.sections import ReportContext
from kmdr.report.site import write_site
from kmdr.report.theory_sections import section_theory
from kmdr.report.what_to_use import section_what_to_use
from kmdr.results.reading import Once
from kmdr.results.runs import experiment_dirs

__all__ = ["build_report", "evaluate_claims", "main", "table_of_contents", "write_report"]


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


# --------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------


def evaluate_claims(
    cells: dict[str, pd.DataFrame], root: Path | None = None
) -> list[tuple[C.Claim, C.Verdict]]:
    """Every claim's verdict on the experiments' cells (:func:`kmdr.report.claims.replicates`)
    of the results folder ``root`` (where a claim's own file is read);
    on an experiment holding several settings (a ``setting`` column), one verdict per setting,
    its evidence prefixed with the setting: a claim is never checked on curves averaged over
    seeds or k-means settings."""
    results = []
    for claim in C.all_claims():
        df = cells.get(claim.experiment)
        # a claim across experiments is one family over all of them (its check splits them)
        if (df is None or claim.experiments or "setting" not in df.columns
                or df["setting"].nunique() < 2):  # fmt: skip
            results.append((claim, C.evaluate(claim, cells, root)))
            continue
        for setting, part in df.groupby("setting", sort=True):
            verdict = C.evaluate(claim, {claim.experiment: part}, root)
            results.append((claim, C.Verdict(verdict.verdict, f"[{setting}] {verdict.evidence}")))
    return results


def section_unread(unread: dict[str, str]) -> str:
    """The experiment folders the report could not read, each with its reason."""
    lines = ["## Experiment folders not read", ""]
    lines.append("These folders could not be read and are left out of everything above:")
    lines.append("")
    lines += [f"- `{name}`: {public_text(reason)}" for name, reason in unread.items()]
    return "\n".join(lines)


def build_report(root: str | Path, unread: dict[str, str] | None = None, say=None) -> str:
    """The whole REPORT.md text for the results folder ``root`` (``unread``: see
    :func:`write_report`)."""
    root = Path(root)
    exps = load_all(root, unread, say)
    results = evaluate_claims(
        {n: C.replicates(e.cells) for n, e in exps.items() if e.has_cells}, root
    )
    extra = distortion_verdicts(root)  # the distortion section's claims count as any other's
    every = [*results, *extra]
    counts = {v: sum(1 for _, r in every if r.verdict == v) for v in C.VERDICTS}
    tally = ", ".join(f"{counts[v]} {v}" for v in C.VERDICTS)
    by_exp: dict[str, list] = {}
    for claim, verdict in results:
        by_exp.setdefault(claim.experiment, []).append((claim, verdict))
    # A folder of one's own experiments only (``kmdr-report my_results``): the papers' sections
    # and claims would each say *no data*, pages of them above the user's own; one line instead.
    own_only = bool(exps) and not any(e.preset["paper"] for e in exps.values())
    orphans = [pair for name, pairs in by_exp.items() if name not in exps for pair in pairs]
    context = ReportContext(by_exp, [] if own_only else orphans)
    if own_only:
        tally = (
            f"none of the papers' {len(results)} is about an experiment in this folder; "
            "`kmdr-report results` checks them on the committed results"
        )
    sections = []
    for name in SECTIONS:
        section = SECTIONS.get(name)
        members = in_section(exps, name)
        if not members and (own_only or not getattr(section, "always_shown", False)):
            continue
        order = min((e.preset["order"] for e in members), default=section.default_order)
        text = section.render(root, members, context)
        sections.append((order, section.default_order, name, text))
    parts = [
        section_header(root, exps),
        f"\n**Claims checked: {0 if own_only else len(every)}** ({tally}).",
        *([] if own_only or not results else [C.report_wide(results, extra)]),
        *(text for *_place, text in sorted(sections)),
        *([section_what_to_use(root, exps)] if any(e.has_cells for e in exps.values()) else []),
        *filter(None, [section_cross_dataset(root, exps)]),  # beside "What to use"
        section_theory(root, exps),
        *filter(None, [section_distortion(root)]),  # a subsection of the theory
        section_deviations(exps),
        *([section_unread(unread)] if unread else []),
    ]
    body = "\n\n".join(parts).rstrip() + "\n"
    # The contents go just before the first section, after the title and the run's metadata.
    first = body.index("\n## ") + 1
    return body[:first] + table_of_contents(body) + "\n\n" + body[first:]


def write_report(root: str | Path, unread: dict[str, str] | None = None) -> Path:
    """Write ``root/REPORT.md`` and its page ``root/index.html`` (:func:`kmdr.report.site.
    write_site`). ``unread``: collect the experiment folders that cannot be read (name: one-line
    reason) and report the others; None: such a folder raises."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    path = root / "REPORT.md"
    say = Once()  # the folders are read again for the page: each damaged file is named once
    text = build_report(root, unread, say)
    atomic_write_text(path, text)
    write_site(root, text, say)
    return path


def _error(message: str) -> None:
    say_error("kmdr-report", message)


def main(argv: list[str] | None = None) -> int:
    """``kmdr-report [RESULTS]``: write RESULTS/REPORT.md.

    RESULTS must be an existing folder holding at least one experiment folder (a mistyped path
    is one line and exit status 2, and nothing is written). An experiment folder that cannot be
    read is named in one line and left out, the report is written with the others and its last
    section lists what was left out; the exit status is then 1.
    """
    parser = CommandParser(
        prog="kmdr-report", description="Write RESULTS/REPORT.md from the CSVs under RESULTS/."
    )
    parser.add_argument("results", nargs="?", default="results", type=Path)
    args = parser.parse_args(argv)
    root: Path = args.results
    if not root.is_dir():
        what = "is a file" if root.exists() else "does not exist"
        _error(f"{root} {what}; give the results folder (one folder per experiment, e.g. results)")
        return 2
    if not experiment_dirs(root):
        _error(f"no experiment folders under {root} (none holds cells*.csv, runs/ or "
               "leverage_scores.csv); give the results folder, nothing was written")  # fmt: skip
        return 2
    if not os.access(root, os.W_OK | os.X_OK):
        _error(f"{root} is not writable; give a results folder you can write to, or copy it")
        return 2
    unread: dict[str, str] = {}
    try:
        path = write_report(root, unread)
    except OSError as err:  # each file is written whole or not at all: none is left half-written
        where = err.filename or root
        _error(f"cannot write {where} ({err.strerror or err}); free that path or give a "
               "results folder you can write to")  # fmt: skip
        return 2
    for name, reason in unread.items():
        _error(f"{name}: not in the report ({reason}); fix or move aside its damaged files")
    print(f"kmdr-report: wrote {path} and {path.parent / 'index.html'}")
    if unread:
        _error(f"{len(unread)} experiment folders left out of the report: {', '.join(unread)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
