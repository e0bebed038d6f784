"""Report sections: the declaration a section registers under its name
(:data:`kmdr.config.presentation.SECTIONS`), and the generic section that lists its experiments
one by one (each one's status, notes, figure and claims with their verdicts).

An experiment's preset names its section (``preset.section``); :mod:`kmdr.report.build` renders
every registered section that has experiments (or is always shown) in the order of the smallest
``order`` of its experiments, else its ``default_order``. Every section is declared by a paper
(the ``report_sections`` of its :class:`kmdr.plugins.Paper`), kmdr's own as a plug-in's would be;
``diagnostic`` and ``custom`` below are declared by :mod:`kmdr.papers.shared`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kmdr.report import claims as C
from kmdr.report._text import VERDICT_MARK, md_table
from kmdr.report.experiments import SKIPPED_ANCHOR, Experiment
from kmdr.report.notes import FIGURE_NOTES, NO_DATA_WHY

__all__ = ["CUSTOM", "DIAGNOSTIC", "ExperimentsSection", "ReportContext", "ReportSection"]


@dataclass
class ReportContext:
    """What every section may use beside its experiments: the claims and verdicts per
    experiment (``by_exp``), and those about experiments absent from the results folder
    (``orphans``)."""

    by_exp: dict[str, list] = field(default_factory=dict)
    orphans: list = field(default_factory=list)


@dataclass(frozen=True)
class ReportSection:
    """A report section. ``render(root, members, context) -> str`` writes it (Markdown, from a
    ``##`` heading) for its experiments in order; ``default_order`` places it when none of them
    gives an ``order``; ``always_shown`` sections appear (saying *no data*) without any."""

    render: Callable[[Path, list[Experiment], ReportContext], str]
    default_order: float
    always_shown: bool = False


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


def section_experiments(
    root: Path, heading: str, intro: str, members: list[Experiment], by_exp: dict, orphans=()
) -> str:
    """A section listing its experiments in order: each one's status, notes, figure and claims;
    ``orphans`` are the claims about experiments absent from the results folder (no data)."""
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


@dataclass(frozen=True)
class ExperimentsSection:
    """A section listing its experiments one by one under ``heading`` and ``intro``;
    ``takes_orphans``: it also lists the claims about experiments absent from the results
    (the claims' section). ``default_order`` and ``always_shown`` as for
    :class:`ReportSection`."""

    heading: str
    intro: str
    default_order: float
    always_shown: bool = False
    takes_orphans: bool = False

    def render(self, root: Path, members: list[Experiment], context: ReportContext) -> str:
        orphans = context.orphans if self.takes_orphans else ()
        return section_experiments(root, self.heading, self.intro, members, context.by_exp, orphans)


DIAGNOSTIC = ExperimentsSection(
    heading="## Diagnostics",
    default_order=900,
    intro="Runs that are not paper figures but separate what a paper figure mixes; each title "
    "says which figure it explains, and its claims are checked as on that figure's own run.",
)
CUSTOM = ExperimentsSection(
    heading="## Your experiments",
    default_order=1000,
    intro="Experiments outside the papers' sections: ad-hoc runs (`kmdr dataset=... "
    "reducer=...`) and presets of your own (`preset.section: custom`), each with its figure and "
    "how complete it is. A run's place in this report comes from its preset's metadata.",
)
