"""The documentation site, built as ``make docs`` builds it and opened in a real headless browser
(Debian's chromium, driven by selenium): every page loads without a console error, every image
shows, and every local link resolves to a file of the site (and to an element, for a ``#``
anchor).

The site is read from ``$KMDR_DOCS_SITE`` when that names a built site (``.ci/run`` builds it
once with ``make docs`` and points the test at it), else built here into a temporary folder: a
build runs every gallery example (minutes on two cores), so without a built site the tests are
long-haul ones (``make test-longhaul``), and ``make test`` leaves them out. They skip only where
chromium or its driver is not installed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from _browser import needs_chromium, when_ready

REPO = Path(__file__).resolve().parents[2]

#: A site named by the environment, else None: the tests build their own.
GIVEN = os.environ.get("KMDR_DOCS_SITE")

pytestmark = [
    pytest.mark.slow,
    needs_chromium,
    *([] if GIVEN else [pytest.mark.longhaul]),
]


@pytest.fixture(scope="module")
def built_site(tmp_path_factory) -> Path:
    if GIVEN:
        site = Path(GIVEN)
        assert (site / "index.html").is_file(), f"KMDR_DOCS_SITE={GIVEN} holds no built site"
        return site
    pytest.importorskip("sphinx")
    out = tmp_path_factory.mktemp("docs") / "html"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            "html",
            "-W",
            "--keep-going",
            "-q",
            str(REPO / "docs"),
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out


class _Links(HTMLParser):
    """The href of every <a> and the id of every element of one page."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs) -> None:
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.hrefs.append(attrs["href"])


def _parsed(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def _doc_pages(site: Path) -> list[Path]:
    """The site's own pages (not the copied results folder, which has a browser test of its
    own, nor Sphinx's source copies)."""
    return sorted(
        p
        for p in site.rglob("*.html")
        if p.relative_to(site).parts[0] not in ("results", "_sources", "_modules", "_static")
    )


def test_every_local_link_of_the_site_resolves(built_site):
    pages = _doc_pages(built_site)
    assert len(pages) >= 15, [p.name for p in pages]
    ids: dict[Path, set[str]] = {}
    broken = []
    for page in pages:
        for href in _parsed(page).hrefs:
            parts = urlsplit(href)
            if parts.scheme or href.startswith("//") or href.startswith("mailto:"):
                continue
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{page.relative_to(built_site)} -> {href}")
                continue
            if parts.fragment and target.suffix == ".html":
                if target not in ids:
                    ids[target] = _parsed(target).ids
                if unquote(parts.fragment) not in ids[target]:
                    broken.append(f"{page.relative_to(built_site)} -> {href} (no such anchor)")
    assert not broken, "\n".join(broken[:30])


def test_the_guide_links_to_the_committed_report(built_site):
    index = (built_site / "index.html").read_text(encoding="utf-8")
    assert 'href="results/index.html"' in index
    assert (built_site / "results" / "REPORT.md").is_file()
    assert (built_site / "results" / "index.html").is_file()


def test_every_gallery_example_ran_and_drew(built_site):
    examples = sorted((built_site / "auto_examples").glob("plot_*.html"))
    assert len(examples) >= 4, examples
    for page in examples:
        text = page.read_text(encoding="utf-8")
        # sphinx-gallery embeds what an example drew as sphx_glr_<name>_NNN.png images.
        assert re.search(r"sphx_glr_plot_\w+_\d+\.png", text), f"{page.name} drew no figure"


def test_every_page_loads_and_shows_its_images(built_site, browser):
    problems = []
    for page in _doc_pages(built_site):
        browser.get_log("browser")  # reading the log empties it: what follows is this page's
        browser.get(page.as_uri())
        shown = "return document.querySelectorAll('main, article, body').length"
        if not when_ready(browser, shown):
            problems.append(f"{page.name}: no content")
        broken = browser.execute_script(
            "return Array.from(document.images)"
            ".filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src);"
        )
        problems += [f"{page.relative_to(built_site)}: image {src} does not show" for src in broken]
        errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        problems += [f"{page.relative_to(built_site)}: console: {m}" for m in errors]
    assert not problems, "\n".join(problems[:30])
