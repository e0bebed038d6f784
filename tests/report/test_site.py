"""The results page (``index.html``): every file of the results folder linked, every text
escaped, the contents' links landing on headings, the interactive plots drawing the summary's
numbers, and a complete page without plotly."""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pandas as pd
import pytest
from PIL import Image

from _results_factory import make_cells, preset, write_experiment
from kmdr.report import build, interactive, site
from kmdr.results.summary import read_experiment

#: A title a browser would run as code if the page did not escape it.
HOSTILE = "<script>alert(1)</script> & <b>co</b>"


class _Links(HTMLParser):
    """The page's link targets (``href``, ``src``), its element ids and its tags."""

    def __init__(self):
        super().__init__()
        self.targets: list[str] = []
        self.ids: set[str] = set()
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for key, value in attrs:
            if key in ("href", "src") and value:
                self.targets.append(value)
            elif key == "id":
                self.ids.add(value)


def _parse(text: str) -> _Links:
    parser = _Links()
    parser.feed(text)
    return parser


def _figure(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (4, 3), "white").save(path)


def _results(root: Path) -> Path:
    """A results folder: one curves experiment with a hostile title (its figure, PDF and
    summary beside its cells), one experiment with no figure, and a theory folder."""
    cells = make_cells("orl_run", {"sign": [5, 10, 20], "svd": [5, 10, 20], "none": [64]}, 3)
    config = {"preset": preset(HOSTILE, order=10)}
    write_experiment(root, "orl_run", cells, config=config)
    _figure(root / "orl_run" / "figures" / "orl_run.png")
    (root / "orl_run" / "figures" / "orl_run.pdf").write_bytes(b"%PDF-1.4\n")
    read_experiment(root / "orl_run").summary.to_csv(root / "orl_run" / "summary.csv", index=False)
    other = make_cells("second run", {"sign": [5, 10]}, 2)
    write_experiment(root, "second run", other, config={"preset": preset("Second", order=20)})
    _figure(root / "theory" / "sampling_lemma.png")
    pd.DataFrame(
        {
            "dataset": "synth", "n_samples": 1000, "n_features": 2000, "k": 5, "r": [50, 1000],
            "seed": 0, "sampler": "reference", "sigma_min": [0.8, 0.97],
            "sigma_max": [1.2, 1.03], "sigma2_min": [0.64, 0.94], "sigma2_max": [1.44, 1.06],
            "delta": 0.1, "eps_lemma6": [1.36, 0.30], "lemma6_applies": [False, True],
            "within_bound": [True, True],
        }
    ).to_csv(root / "theory" / "sampling_lemma.csv", index=False)  # fmt: skip
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The results folder with its report and page written (once: the tests only read it)."""
    root = _results(tmp_path_factory.mktemp("site") / "results")
    # the page of an experiment since removed: not linked, not kept
    (root / interactive.FOLDER).mkdir()
    (root / interactive.FOLDER / "removed_run.html").write_text("<html></html>")
    build.write_report(root)
    return root


def _local_files(root: Path) -> set[str]:
    """Every file the page must link: tables, figures, texts and run records."""
    suffixes = {".csv", ".png", ".pdf", ".json", ".md"}
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.suffix in suffixes and p.name != site.INDEX and interactive.FOLDER not in p.parts
    }


@pytest.mark.slow  # writes the report of a results folder: seconds
def test_the_page_links_every_file_and_each_link_resolves(built):
    results = built
    page = _parse((results / site.INDEX).read_text())
    local = {unquote(urlsplit(t).path) for t in page.targets if not urlsplit(t).scheme}
    local.discard("")
    assert _local_files(results) <= local
    for target in local:
        assert (results / target).exists(), target
    # every figure is shown as an image, not only linked
    shown = {unquote(t) for t in page.targets if t.endswith(".png")}
    assert {"orl_run/figures/orl_run.png", "theory/sampling_lemma.png"} <= shown


@pytest.mark.slow  # writes the report of a results folder: seconds
def test_the_contents_links_land_on_the_headings(built):
    page = _parse((built / site.INDEX).read_text())
    anchors = [unquote(t[1:]) for t in page.targets if t.startswith("#")]
    assert len(anchors) > 5
    assert set(anchors) <= page.ids, set(anchors) - page.ids


@pytest.mark.slow  # writes the report of a results folder: seconds
def test_every_text_is_escaped(built):
    text = (built / site.INDEX).read_text()
    assert "<script>alert" not in text and "<b>co</b>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert _parse(text).tags.count("script") == 0
    # the one construct of raw HTML the report writes itself, a folded table, stays one
    assert "&lt;details&gt;" not in text and "<details><summary>" in text


@pytest.mark.slow  # writes the report of a results folder: seconds
def test_without_plotly_the_page_is_complete_and_says_how_to_get_the_plots(tmp_path, monkeypatch):
    results = _results(tmp_path / "results")
    monkeypatch.setitem(sys.modules, "plotly", None)  # how Python says "not importable"
    assert not interactive.available()
    build.write_report(results)
    text = (results / site.INDEX).read_text()
    assert site.NO_PLOTS in text and "interactive plot</a>" not in text
    assert not (results / interactive.FOLDER).exists()
    page = _parse(text)
    assert "orl_run/figures/orl_run.png" in page.targets


@pytest.mark.slow  # writes the report of a results folder: seconds
def test_the_interactive_plot_draws_the_summary_with_the_figures_band(built):
    """The lines are the means; the band is the static figure's, min to max (a band from the
    mean ± sd would fail); the hover gives mean ± sd, min to max and n."""
    pytest.importorskip("plotly", reason="the interactive plots need the site extra")
    summary = read_experiment(built / "orl_run").summary
    fig = interactive.experiment_figure(built / "orl_run")
    lines = [t for t in fig.data if t.fill != "toself" and "no reduction" not in t.name]
    accuracy = [t for t in lines if "accuracy" in t.hovertemplate.lower()]
    assert {t.name for t in accuracy} == {"RP", "SVD"}
    for trace in accuracy:
        rows = summary[summary["method"] == trace.name].sort_values("r")
        assert list(trace.x) == list(rows["r"])
        scale = trace.y[0] / rows["accuracy_mean"].iloc[0]
        assert list(trace.y) == pytest.approx(list(rows["accuracy_mean"] * scale))
        (band,) = [
            t for t in fig.data
            if t.fill == "toself" and t.xaxis == trace.xaxis and t.legendgroup == trace.name
        ]  # fmt: skip
        hi, lo = rows["accuracy_max"] * scale, rows["accuracy_min"] * scale
        assert list(band.y) == pytest.approx([*hi, *lo[::-1]])
        assert list(band.x) == [*rows["r"], *rows["r"][::-1]]
        n = rows["n_cells"].astype(int)
        for text, k in zip(trace.customdata, n, strict=True):
            assert " ± " in text and "min–max" in text and f"n = {k}" in text
    assert any("no reduction" in t.name for t in fig.data)


@pytest.mark.slow  # writes the report of a results folder: seconds
def test_the_interactive_pages_share_one_plotly_js_and_are_linked(built):
    pytest.importorskip("plotly", reason="the interactive plots need the site extra")
    results = built
    folder = results / interactive.FOLDER
    pages = sorted(p.name for p in folder.glob("*.html"))
    assert pages == ["orl_run.html", "second run.html"]
    assert [p.name for p in folder.glob("*.js")] == [interactive.PLOTLY_JS]
    for name in pages:
        text = (folder / name).read_text()
        assert f'src="{interactive.PLOTLY_JS}"' in text and "cdn" not in text.lower()
    index = _parse((results / site.INDEX).read_text())
    assert {unquote(t) for t in index.targets if t.startswith(interactive.FOLDER)} == {
        f"{interactive.FOLDER}/{p}" for p in pages
    }


def test_a_page_from_markdown_alone_escapes_and_anchors(tmp_path):
    """The page of a report text, without building a report: its raw HTML escaped (the folded
    table kept), its headings carrying the contents' anchors, its figure followed by the links to
    its folder's files."""
    _figure(tmp_path / "exp" / "figures" / "exp.png")
    (tmp_path / "exp" / "cells.csv").write_text("r\n1\n")
    body = "\n".join(
        [
            "## Ω & <i>x</i>",
            "![exp: exp](exp/figures/exp.png)",
            "",
            "<details><summary>more</summary>",
            "",
            "| a | b |",
            "|---|---|",
            "| <script>x</script> | 1 |",
            "",
            "</details>",
        ]
    )
    # the contents as the report writes them
    text = f"# Title <b>bold</b>\n\n{build.table_of_contents(body)}\n\n{body}"
    page = site.render_page(tmp_path, text, site.Site(tmp_path / site.INDEX))
    parsed = _parse(page)
    assert "<script>" not in page and "<b>bold</b>" not in page and "<i>x</i>" not in page
    assert "<details><summary>more</summary>" in page and "<table>" in page
    anchors = {unquote(t[1:]) for t in parsed.targets if t.startswith("#")}
    assert len(anchors) == 2 and anchors <= parsed.ids
    after_figure = page[page.index('src="exp/figures/exp.png"') :]
    assert after_figure.index('href="exp/cells.csv"') < after_figure.index("<details>")


@pytest.mark.slow  # writes the report of a results folder: seconds
def test_the_page_opens_with_each_figure_and_its_verdicts_and_folds_the_legend(built):
    text = (built / site.INDEX).read_text()
    glance = text.index(f">{site.GLANCE_HEADING}</h2>")
    # before every section of the report, the legend folded above it
    assert glance < text.index("<h2", text.index("</section>"))
    assert text.index('<details class="legend">') < glance
    cards = text[glance : text.index("</section>", glance)]
    page = _parse(cards)
    assert "orl_run/figures/orl_run.png" in {unquote(t) for t in page.targets}
    assert [t for t in page.targets if t.startswith("#")]  # each card links to its section
    assert "no claim checked" in cards  # a figure with no claim says so, not an empty line
