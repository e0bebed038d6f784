"""Plug-in papers that misbehave, installed as real distributions on a temporary path: each fault
is one warning line when the papers are read, asking for what it would have declared is one error
line naming the problem and the fix, and every other paper's parts keep working.

The same clash policy as for every registry (:mod:`kmdr.plugins`), applied at two levels: a
paper's key (its entry point's name), and each part it declares (a figure style's name)."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
import warnings

import pytest

from _cases import SHADOWED, case
from kmdr.config.presentation import FIGURE_STYLES, SECTIONS
from kmdr.plugins import PAPERS, RegistryError, papers

MODULES = {
    # a paper whose package fails on import
    "toy_broken": "raise ImportError('toy_broken needs the library toylib, which is missing')",
    # a paper whose entry point name is not its key
    "toy_misnamed": """
        from kmdr.plugins import Paper
        PAPER = Paper(key="other", title="Misnamed", figure_styles={"misstyle": "x:Y"})
    """,
    # a paper that declares a built-in style's name, and a style that does not import
    "toy_clash": """
        from kmdr.plugins import Paper
        PAPER = Paper(
            key="toyclash",
            title="Clash",
            figure_styles={"bzmd14": "toy_clash:STYLE", "nostyle_here": "toy_clash_nowhere:STYLE"},
            report_sections={"dupsection": "toy_clash:SECTION"},
        )
        STYLE = SECTION = None
    """,
    # another paper that declares the same section name as toy_clash
    "toy_dup": """
        from kmdr.plugins import Paper
        PAPER = Paper(key="toydup", title="Dup", report_sections={"dupsection": "toy_dup:S"})
        S = None
    """,
    # a paper that takes a built-in paper's key
    "toy_shadow": """
        from kmdr.plugins import Paper
        PAPER = Paper(key="bzmd14", title="Shadow", figure_styles={"shadowstyle": "x:Y"})
    """,
}

ENTRY_POINTS = {
    "toy_broken": "toybroken = toy_broken:PAPER",
    "toy_misnamed": "toymisnamed = toy_misnamed:PAPER",
    "toy_clash": "toyclash = toy_clash:PAPER",
    "toy_dup": "toydup = toy_dup:PAPER",
    "toy_shadow": "bzmd14 = toy_shadow:PAPER",
}


@pytest.fixture
def plugged(tmp_path, monkeypatch):
    """The five plug-in distributions importable, the papers read again; the warnings they give
    while read, one string each."""
    for module, text in MODULES.items():
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(text))
        info = tmp_path / f"{module}-0.1.dist-info"  # the name before the version: no '-'
        info.mkdir()
        name = module.replace("_", "-")
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text(f"[kmdr.papers]\n{ENTRY_POINTS[module]}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        FIGURE_STYLES.reload()
        list(FIGURE_STYLES), list(SECTIONS)
    yield [str(w.message) for w in caught]
    monkeypatch.undo()
    FIGURE_STYLES.reload()
    for module in MODULES:
        sys.modules.pop(module, None)


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="its Paper's key is 'other': name the entry point 'other' or set key=",
            doing="plugin",
            cause="a paper plug-in's Paper has another key than the name of the entry point that "
            "declares it; the paper is not used",
            fix="make the entry point's name (in the plug-in's pyproject.toml) and Paper.key the "
            "same, then reinstall the plug-in",
            warning=True,
        ),
        case(**SHADOWED),
    ],
)
def test_a_paper_that_cannot_be_used_is_one_line_and_the_others_load(plugged, says):
    said = "\n".join(plugged)
    assert says in said
    assert all("\n" not in w for w in plugged)
    assert "toy_broken needs the library toylib" in said and "toy-broken 0.1" in said
    assert (
        "its Paper's key is 'other': name the entry point 'other' or set key='toymisnamed'" in said
    )
    assert "paper plug-in entry point bzmd14 = toy_shadow:PAPER" in said and "built-ins win" in said
    # kmdr's own papers are untouched: bzmd14 is kmdr's, the shadow's style is nowhere
    assert PAPERS.get("bzmd14").title.startswith("Boutsidis, Zouzias")
    assert "shadowstyle" not in FIGURE_STYLES and "misstyle" not in FIGURE_STYLES
    assert {"bmd09", "bzmd14", "lst17"} <= {p.key for p in papers()}
    for name in ("bzmd14", "lst17", "bmd09_fig1"):
        FIGURE_STYLES.get(name)
    for key in ("toybroken", "toymisnamed"):
        with pytest.raises(RegistryError) as err:
            PAPERS.get(key)
        assert "\n" not in str(err.value) and f"entry point {key}" in str(err.value)


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="a paper that may declare it failed to load",
            doing="plugin",
            cause="a preset asks for a figure style or report section that no loaded paper "
            "declares, and a paper plug-in that might declare it failed to load (the message "
            "gives why)",
            fix="fix the paper plug-in as the reason says (often: install what it needs), or use "
            "one of the valid names the message lists",
        )
    ],
)
def test_asking_for_a_part_of_a_broken_paper_names_its_failure(plugged, says):
    problem = FIGURE_STYLES.problem("toystyle")
    assert "\n" not in problem
    assert problem.startswith("figure style 'toystyle' is unknown; valid figure styles: ")
    assert says in problem and "toylib" in problem


@pytest.mark.parametrize("says", [case(**SHADOWED)])
def test_a_part_named_like_a_builtin_or_broken_is_one_line(plugged, says):
    ignored = [w for w in plugged if "'bzmd14' of paper toyclash" in w]
    assert len(ignored) == 1 and f"{says} figure style 'bzmd14'" in ignored[0]
    assert FIGURE_STYLES.get("bzmd14").reference.startswith("bzmd14")  # kmdr's
    assert FIGURE_STYLES.is_own("bzmd14") and not FIGURE_STYLES.is_own("nostyle_here")
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        with pytest.raises(RegistryError) as err:
            FIGURE_STYLES.get("nostyle_here")
    message = str(err.value)
    assert "\n" not in message and "'nostyle_here' of paper toyclash" in message
    assert "ModuleNotFoundError" in message and "toy_clash_nowhere" in message
    assert FIGURE_STYLES.problem("nostyle_here") == message  # the same line, every time after


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="is declared by 2 plug-ins",
            doing="plugin",
            cause="two installed plug-ins declare the same name (here a report section); neither "
            "is used",
            fix="uninstall one of the plug-ins the message names, or rename its declaration",
        )
    ],
)
def test_two_papers_declaring_one_name_are_refused_when_it_is_used(plugged, says):
    problem = SECTIONS.problem("dupsection")
    assert problem is not None and "\n" not in problem
    assert says in problem
    assert "of paper toyclash" in problem and "of paper toydup" in problem
    assert sum("'dupsection'" in w for w in plugged) == 1
    assert SECTIONS.problem("curves") is None


def test_a_paper_is_checked_when_declared():
    """A Paper's parts are checked as it is built: a wrong type is a one-line TypeError."""
    from kmdr.plugins import Deviation, Paper

    with pytest.raises(TypeError, match="figure_styles must be a mapping of names"):
        Paper(key="x", title="X", figure_styles=["a"])
    with pytest.raises(TypeError, match="deviations holds str: give Deviations"):
        Paper(key="x", title="X", deviations=("text",))
    paper = Paper(key="x", title="X", notes={"e": "n"}, deviations=[Deviation(1, "d")])
    with pytest.raises(TypeError):
        paper.notes["e"] = "changed"  # a declaration does not change once made
    assert paper.deviations == (Deviation(1, "d"),)


def test_a_paper_is_read_without_importing_its_parts():
    """Reading the papers (to know a style's or a section's name) imports their declarations
    only, not their figures, sections or claims: checking a config stays cheap."""
    code = (
        "import sys; from kmdr.config.presentation import FIGURE_STYLES, SECTIONS;"
        "assert 'bmd09_fig1' in FIGURE_STYLES and 'table1' in SECTIONS;"
        "heavy = [m for m in ('matplotlib', 'kmdr.papers.bmd09.styles', 'kmdr.report.sections',"
        " 'kmdr.papers.bzmd14.claims') if m in sys.modules]; print(heavy)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
