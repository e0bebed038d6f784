"""The report and results page of the committed results, written once into a copy of them: the
report holds its sections, and the page, opened in a real headless browser (Debian's chromium,
driven by selenium), loads every image, resolves every link to a local file, holds no error in
its console, and each interactive plot renders its traces and shows mean ± sd on hover.

The browser's tests skip only where chromium or its driver is not installed (``apt-get install
chromium chromium-driver``; ``.ci/run`` installs both).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from _browser import needs_chromium, when_ready
from _markdown import unpadded
from kmdr.report import build, interactive, site

REPO = Path(__file__).resolve().parents[2]
#: The figure files a results folder commits, each of which the page must link.
FIGURE_SUFFIXES = (".png", ".pdf", ".svg")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def committed_site(tmp_path_factory) -> Path:
    """A copy of the committed results with its page written (the repository is not touched)."""
    source = REPO / "results"
    if not any(source.glob("*/cells*.csv")):
        pytest.skip("results/ holds no cells yet")
    root = tmp_path_factory.mktemp("site") / "results"
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(site.INDEX, interactive.FOLDER))
    build.write_report(root)
    return root


def test_report_builds_from_committed_results(committed_site):
    text = unpadded((committed_site / "REPORT.md").read_text(encoding="utf-8"))
    assert "## Theory" in text and "bmd09 Table 1" in text


def _console_errors(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def _open(driver, path: Path) -> None:
    _console_errors(driver)  # reading the log empties it: what follows is this page's
    driver.get(path.as_uri())


@needs_chromium
def test_every_image_loads_and_every_local_link_resolves(committed_site, browser):
    _open(browser, committed_site / site.INDEX)
    images = browser.execute_script(
        "return Array.from(document.images).map(i => [i.src, i.complete, i.naturalWidth]);"
    )
    assert images, "the page shows no figure"
    broken = [src for src, complete, width in images if not (complete and width > 0)]
    assert not broken, f"images that did not load: {broken}"
    targets = browser.execute_script(
        "return Array.from(document.querySelectorAll('a[href]')).map(a => a.href);"
    )
    ids = set(browser.execute_script("return Array.from(document.querySelectorAll('[id]'))"
                                     ".map(e => e.id);"))  # fmt: skip
    page = (committed_site / site.INDEX).resolve()
    linked, missing = set(), []
    for target in [*targets, *(src for src, _, _ in images)]:
        url = urlsplit(target)
        if url.scheme != "file":
            continue
        path = Path(unquote(url.path))
        if path == page:  # a link within the page: its anchor must exist
            if url.fragment and unquote(url.fragment) not in ids:
                missing.append(target)
            continue
        linked.add(path)
        if not path.exists():
            missing.append(target)
    assert not missing, f"links to nothing: {missing}"
    figures = {p.resolve() for p in committed_site.rglob("*") if p.suffix in FIGURE_SUFFIXES}
    figures = {p for p in figures if interactive.FOLDER not in p.parts}
    assert figures and not figures - linked, f"figures not linked: {figures - linked}"
    assert _console_errors(browser) == []


@needs_chromium
def test_each_interactive_plot_renders_and_hovers_mean_and_sd(committed_site, browser):
    pytest.importorskip("plotly", reason="the interactive plots need the site extra")
    pages = sorted((committed_site / interactive.FOLDER).glob("*.html"))
    assert pages, "no interactive plot was written"
    sections = {}  # each plot's name -> the report's section its links lead back to
    for page in pages:
        _open(browser, page)
        n_traces = when_ready(
            browser,
            "const gd = document.querySelector('.plotly-graph-div');"
            "return gd && gd._fullData ? gd._fullData.length : 0;",
        )
        assert n_traces > 0, f"{page.name}: no plotly div with traces"
        hover = browser.execute_script(
            "const gd = document.querySelector('.plotly-graph-div');"
            "const i = gd._fullData.findIndex(t => t.hoverinfo !== 'skip');"
            "Plotly.Fx.hover(gd, [{curveNumber: i, pointNumber: 0}]);"
            "const t = document.querySelector('.hoverlayer .hovertext');"
            "return t ? t.textContent : '';"
        )
        assert "r = " in hover and "±" in hover, f"{page.name}: hover shows {hover!r}"
        assert "n = " in hover and "min–max" in hover, f"{page.name}: hover shows {hover!r}"
        # the band is the static figure's (min to max), and the caption says so
        bands = browser.execute_script(
            "return document.querySelector('.plotly-graph-div')._fullData"
            ".filter(t => t.fill === 'toself').length;"
        )
        assert bands > 0, f"{page.name}: no min-max band"
        caption = browser.find_element("css selector", "p.caption").text
        assert "min to max" in caption and "n = " in caption, caption
        # its links lead back to the report's section, the CSVs and the static figure
        links = browser.execute_script(
            "return Array.from(document.querySelectorAll('p.links a')).map(a => a.href);"
        )
        name = page.stem
        assert {f"{name}/cells.csv", f"{name}/summary.csv"} <= {
            "/".join(urlsplit(u).path.split("/")[-2:]) for u in links
        }, links
        for url in links:
            assert Path(unquote(urlsplit(url).path)).exists(), url
        sections[name] = next(u for u in links if "index.html#" in u)
        assert _console_errors(browser) == [], page.name
    _open(browser, committed_site / site.INDEX)  # once: the report's page is the heaviest
    for name, section in sections.items():
        anchor = unquote(urlsplit(section).fragment)
        assert browser.execute_script(f"return !!document.getElementById({anchor!r});"), section
        images = browser.execute_script(
            f"return Array.from(document.getElementById({anchor!r}).parentNode.querySelectorAll("
            "'img')).map(i => i.src);"
        )
        assert any(f"{name}/figures/" in src for src in images), (name, anchor)


@needs_chromium
def test_verdicts_are_text_badges_and_evidence_is_folded(committed_site, browser):
    """The verdicts read the same without an emoji font: text badges, no emoji in the page;
    each claims table is short (claim, verdict, evidence's first sentence) with the statement
    and the whole evidence folded in a <details>."""
    _open(browser, committed_site / site.INDEX)
    text = browser.execute_script("return document.body.innerText;")
    for mark in ("✅", "❌", "🟡", "❔", "⚪"):
        assert mark not in text
    badges = browser.execute_script(
        "return Array.from(document.querySelectorAll('table.claims .verdict'))"
        ".map(b => [b.textContent, b.getBoundingClientRect().width]);"
    )
    assert badges and all(width > 10 for _, width in badges), badges[:3]
    assert {word for word, _ in badges} <= {
        "holds",
        "partly",
        "undecided",
        "fails",
        "not testable",
        "no data",
    }
    rows = browser.execute_script(
        "return Array.from(document.querySelectorAll('table.claims tbody tr')).map(r => "
        "[r.cells.length, r.querySelectorAll('details').length, r.cells[2].innerText.length,"
        " r.querySelector('details').textContent.length]);"
    )
    assert rows and all(cells == 3 and folded == 1 for cells, folded, _, _ in rows)
    # folded, a row shows only the first sentence; the details hold the rest
    assert all(shown < whole for _, _, shown, whole in rows if whole > 400)
    assert _console_errors(browser) == []


@needs_chromium
def test_the_across_datasets_section_is_on_the_page_beside_what_to_use(committed_site, browser):
    from kmdr.report.anchors import heading_anchor
    from kmdr.report.cross_dataset import HEADING

    _open(browser, committed_site / site.INDEX)
    anchor = heading_anchor(HEADING, {})
    headings = browser.execute_script(
        "return Array.from(document.querySelectorAll('h2')).map(h => [h.id, h.textContent]);"
    )
    ids = [h[0] for h in headings]
    assert [anchor, HEADING] in headings
    assert ids.index(anchor) == ids.index(heading_anchor("What to use", {})) + 1
    assert browser.find_elements("css selector", f'a[href="#{anchor}"]')  # in the navigation
    widths = browser.execute_script(
        "return Array.from(document.images).filter(i => i.src.endsWith('cross_dataset/ranks.png'))"
        ".map(i => i.complete ? i.naturalWidth : 0);"
    )
    assert widths and widths[0] > 0
