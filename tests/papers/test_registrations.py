"""Every paper is ONE declaration (:class:`kmdr.plugins.Paper`, the ``PAPER`` of its package)
registered under the one entry-point group ``kmdr.papers``: each part it names loads to a
declaration of its kind, counts as a built-in, and the report, figures and kinds find it by name;
no other entry-point group is kmdr's."""

from __future__ import annotations

import ast
import importlib.metadata
from collections.abc import Mapping
from pathlib import Path

import pytest

from kmdr.config.kinds import KINDS
from kmdr.config.presentation import FIGURE_STYLES, SECTIONS
from kmdr.figures.style import FigureStyle
from kmdr.plugins import OWN_DISTRIBUTION, PAPERS, Paper, entry_points_of, papers
from kmdr.report.claims import CLAIM_SETS, Claim, all_claims
from kmdr.report.theory import THEORY, TheoryPart, bounds

ROOT = Path(__file__).resolve().parents[2]
PAPERS_DIR = ROOT / "src" / "kmdr" / "papers"
REGISTRIES = [FIGURE_STYLES, SECTIONS, KINDS, CLAIM_SETS, THEORY]


def test_kmdr_registers_its_papers_and_nothing_else():
    own = [
        ep
        for ep in importlib.metadata.distribution(OWN_DISTRIBUTION).entry_points
        if ep.group != "console_scripts"
    ]
    assert {ep.group for ep in own} == {"kmdr.papers"}
    assert [ep.name for ep in own] == list(PAPERS)
    for ep in own:
        paper = PAPERS.get(ep.name)
        assert isinstance(paper, Paper) and paper.key == ep.name and paper.title
        assert PAPERS.is_own(ep.name)


def test_each_paper_package_declares_exactly_one_paper():
    """Every package under kmdr/papers is one paper: its ``__init__`` assigns ``PAPER`` once, and
    no other module of kmdr builds a Paper (outside the declarations of :mod:`kmdr.papers`)."""
    packages = sorted(p.parent for p in PAPERS_DIR.glob("*/__init__.py"))
    assert {p.name for p in packages} >= {"bmd09", "bzmd14", "lst17"}
    registered = {ep.value for ep in entry_points_of("kmdr.papers")}
    for package in packages:
        tree = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
        targets = [t for node in tree.body if isinstance(node, ast.Assign) for t in node.targets]
        assigned = [t for t in targets if isinstance(t, ast.Name) and t.id == "PAPER"]
        assert len(assigned) == 1, f"{package.name}: {len(assigned)} PAPER declarations"
        assert f"kmdr.papers.{package.name}:PAPER" in registered, f"{package.name} not registered"


@pytest.mark.parametrize("registry", REGISTRIES, ids=lambda r: r.what)
def test_every_part_a_paper_names_loads(registry):
    names = list(registry)
    assert names, f"kmdr declares no {registry.what}"
    assert registry.group == "kmdr.papers" and registry.paper_field
    for name in names:
        assert registry.is_own(name) and registry.problem(name) is None
        registry.get(name)  # imports, and passes the registry's check
    # each name comes from exactly one paper's declaration (or is declared in code, as "cells")
    declared = [name for paper in papers() for name in _declared(paper, registry.paper_field)]
    assert len(declared) == len(set(declared))
    assert set(names) - set(declared) <= {"cells", "coresets"}  # kmdr's own kinds of cells


def _declared(paper: Paper, field: str) -> list[str]:
    part = getattr(paper, field)
    if isinstance(part, Mapping):
        return list(part)
    return [] if part is None else [paper.key]


def test_the_papers_declarations():
    assert {"bzmd14", "lst17", "bmd09_fig1", "bmd09_table1"} <= set(FIGURE_STYLES)
    assert all(isinstance(FIGURE_STYLES.get(n), FigureStyle) for n in FIGURE_STYLES)
    # the curves styles declare panels; the bmd09 ones draw themselves
    assert FIGURE_STYLES.get("lst17").panels and FIGURE_STYLES.get("bmd09_fig1").draw
    assert FIGURE_STYLES.get("bmd09_table1").write_tables is not None
    assert {"table1", "fig1", "curves", "diagnostic", "custom"} <= set(SECTIONS)
    orders = [SECTIONS.get(n).default_order for n in ("table1", "fig1", "curves", "diagnostic")]
    assert orders == sorted(orders)
    assert {"cells", "leverage_scores", "sampling_lemma"} <= set(KINDS)
    assert all(isinstance(THEORY.get(n), TheoryPart) for n in THEORY)
    keys = [b.key for b in bounds()]
    assert keys[0] == "bmd09-thm1" and keys[-1] == "lst17-thm1" and len(set(keys)) == len(keys)
    claims = all_claims()
    assert claims and all(isinstance(c, Claim) for c in claims)
    assert [c.paper for c in claims] == sorted(c.paper for c in claims)  # bzmd14's, then lst17's
    # the generic sections and the curves the papers share are declared once, by "shared"
    shared = PAPERS.get("shared")
    assert set(shared.report_sections) == {"curves", "diagnostic", "custom", "pipelines"}


def test_an_unknown_figure_style_or_section_is_one_line():
    for registry, name in ((FIGURE_STYLES, "nostyle"), (SECTIONS, "nosection")):
        problem = registry.problem(name)
        assert problem is not None and "\n" not in problem and name in problem
    assert "bzmd14" in FIGURE_STYLES.problem("nostyle")  # it names the valid ones


def test_the_generic_report_layer_names_no_experiment_of_a_paper():
    """The papers' prose (deviations, notes, why an experiment has no data) is in their
    declarations: no string of kmdr.report names one of their presets."""
    folders = [ROOT / "conf", *(ROOT / "src" / "kmdr" / "papers").glob("*/conf")]
    presets = {p.stem for folder in folders for p in (folder / "experiment").glob("*.yaml")}
    found = []
    for path in sorted((ROOT / "src" / "kmdr" / "report").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found += [f"{path.name}:{node.lineno}: {n}" for n in presets if n in node.value]
    assert not found, "\n".join(found)
    # and the papers do declare them: every preset's no-data reason or note has its paper
    notes = {n for paper in papers() for n in (*paper.notes, *paper.no_data)}
    assert notes and notes <= presets
