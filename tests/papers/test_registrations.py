"""Every paper registers what it adds through kmdr's own entry points: each one loads to a
declaration of its kind, counts as a built-in, and the report and figures find it by name."""

from __future__ import annotations

import pytest

from kmdr.config.presentation import FIGURE_STYLES, SECTIONS
from kmdr.figures.style import FigureStyle
from kmdr.plugins import OWN_DISTRIBUTION, entry_points_of
from kmdr.report.claims import CLAIM_SETS, Claim, all_claims
from kmdr.report.theory import THEORY, TheoryPart, bounds


@pytest.mark.parametrize("registry", [FIGURE_STYLES, SECTIONS, CLAIM_SETS, THEORY])
def test_kmdrs_own_entry_points_load(registry):
    own = [ep for ep in entry_points_of(registry.group) if ep.dist.name == OWN_DISTRIBUTION]
    assert own, f"kmdr declares no {registry.what}"
    for ep in own:
        assert ep.name in registry and registry.problem(ep.name) is None
        registry.get(ep.name)  # loads, and passes the registry's check


def test_the_papers_declarations():
    assert {"bzmd14", "lst17", "bmd09_fig1", "bmd09_table1"} <= set(FIGURE_STYLES)
    assert all(isinstance(FIGURE_STYLES.get(n), FigureStyle) for n in FIGURE_STYLES)
    # the curves styles declare panels; the bmd09 ones draw themselves
    assert FIGURE_STYLES.get("lst17").panels and FIGURE_STYLES.get("bmd09_fig1").draw
    assert FIGURE_STYLES.get("bmd09_table1").write_tables is not None
    assert {"table1", "fig1", "curves", "diagnostic", "custom"} <= set(SECTIONS)
    orders = [SECTIONS.get(n).default_order for n in ("table1", "fig1", "curves", "diagnostic")]
    assert orders == sorted(orders)
    assert all(isinstance(THEORY.get(n), TheoryPart) for n in THEORY)
    keys = [b.key for b in bounds()]
    assert keys[0] == "bmd09-thm1" and keys[-1] == "lst17-thm1" and len(set(keys)) == len(keys)
    claims = all_claims()
    assert claims and all(isinstance(c, Claim) for c in claims)
    assert [c.paper for c in claims] == sorted(c.paper for c in claims)  # bzmd14's, then lst17's


def test_an_unknown_figure_style_or_section_is_one_line():
    for registry, name in ((FIGURE_STYLES, "nostyle"), (SECTIONS, "nosection")):
        problem = registry.problem(name)
        assert problem is not None and "\n" not in problem and name in problem
    assert "bzmd14" in FIGURE_STYLES.problem("nostyle")  # it names the valid ones
