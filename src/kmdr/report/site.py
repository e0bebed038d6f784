"""``<results>/index.html``: the report as one static page that opens from disk (no server, no
network), with every file of the results folder linked and an interactive plot per experiment.

The page is the report itself (the Markdown :mod:`kmdr.report.build` writes, so the verdict
tables, the provenance and the figures are the report's own words and numbers), rendered by
markdown-it; every raw HTML in it is escaped, but for the tags of a folded table. Its headings
carry the anchors the report's contents link to (:func:`kmdr.report.anchors.heading_anchor`).
Below each figure come the links to its folder's files; a last section lists the files of every
folder (CSVs, figures in PNG and PDF, run records, the interactive plot) in one table. The
interactive plots (:mod:`kmdr.report.interactive`) need the optional ``site`` extra; without it
the page is still complete and says how to get them.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import pandas as pd
from markdown_it import MarkdownIt
from markdown_it.token import Token

from kmdr._io import atomic_write_text
from kmdr.report import interactive
from kmdr.report._text import VERDICT_MARK
from kmdr.report.anchors import heading_anchor
from kmdr.report.cross_dataset import HEADING as ACROSS_DATASETS
from kmdr.report.what_to_use import HEADING as WHAT_TO_USE
from kmdr.results.records import read_table
from kmdr.results.runs import experiment_dirs, load_runs, skip_reasons

__all__ = [
    "FILES_HEADING",
    "GLANCE_HEADING",
    "INDEX",
    "NO_PLOTS",
    "Site",
    "figure_sections",
    "render_page",
    "write_site",
]

#: The page's file name, in the results folder.
INDEX = "index.html"
#: The heading of the page's own last section.
FILES_HEADING = "Files of every folder"
#: What the page says where plotly is not installed.
NO_PLOTS = (
    "Interactive plots are not written here: they need plotly, the optional <code>site</code> "
    "extra. Install it (<code>pip install -e '.[site]'</code> in a checkout; "
    "<code>make report</code> installs it) and run <code>kmdr-report</code> again."
)
# The HTML tags the report writes in its Markdown (a folded table: <details><summary>): kept as
# tags, once every raw HTML of the report is escaped.
_KEPT_TAGS = re.compile(r"&lt;(/?)(details|summary)&gt;")
# The token type of the HTML the page adds to the report's (rendered as it is).
_OWN_HTML = "site_html"
# The kinds of file a folder's row lists, by suffix.
_TABLES = (".csv",)
_FIGURES = (".png", ".pdf", ".svg")
_TEXTS = (".md", ".txt")

#: The columns of a claims table in the report; the page shows it as :func:`_claims_table` does.
_CLAIM_COLUMNS = ["claim", "source", "statement", "verdict", "evidence"]
#: How long an evidence's first sentence may be in the claims table (the rest is folded).
_SUMMARY_CHARS = 220

_CSS = """
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b;
       max-width: 72rem; margin: 0 auto; padding: 1rem 1.5rem 4rem; }
h1 { font-size: 1.7rem; line-height: 1.25; }
h2 { border-bottom: 1px solid #d0d7de; padding-bottom: .2rem; margin-top: 2.5rem; }
h3 { margin-top: 2rem; }
a { color: #0645ad; }
code { font-size: .9em; background: #f3f4f6; padding: .05em .3em; border-radius: 3px; }
pre { background: #f6f8fa; padding: .8rem; overflow-x: auto; }
pre code { background: none; padding: 0; }
img { max-width: 100%; height: auto; border: 1px solid #e5e7eb; }
table { border-collapse: collapse; display: block; overflow-x: auto; margin: 1rem 0;
        font-size: .9rem; }
th, td { border: 1px solid #d0d7de; padding: .3rem .5rem; vertical-align: top; text-align: left; }
th { background: #f3f4f6; }
tr:nth-child(even) td { background: #fafbfc; }
table.files td { overflow-wrap: anywhere; }
nav.page { background: #f6f8fa; border: 1px solid #d0d7de; padding: .5rem 1rem; }
p.files { font-size: .92rem; background: #f6f8fa; padding: .4rem .8rem;
          border-left: 3px solid #0645ad; }
.verdict { display: inline-block; padding: .05rem .45rem; border-radius: .7rem; font-size: .8rem;
           font-weight: 600; white-space: nowrap; border: 1px solid; }
.verdict.holds { background: #dafbe1; color: #116329; border-color: #4ac26b; }
.verdict.partly { background: #fff8c5; color: #7d4e00; border-color: #d4a72c; }
.verdict.undecided { background: #ddf4ff; color: #0a3069; border-color: #54aeff; }
.verdict.fails { background: #ffebe9; color: #a40e26; border-color: #ff8182; }
.verdict.no-data { background: #f6f8fa; color: #57606a; border-color: #d0d7de; }
.verdict.not-testable { background: #f6f8fa; color: #24292f; border-color: #8c959f; }
table.claims { display: table; width: 100%; }
table.claims td.id { width: 15rem; overflow-wrap: anywhere; }
table.claims td.id small { color: #57606a; }
table.claims td.v { width: 6rem; }
table.claims details { margin-top: .3rem; }
table.claims summary { cursor: pointer; color: #0645ad; font-size: .85rem; }
table.claims details p { margin: .3rem 0; }
section.glance h3 { margin: 1.2rem 0 .4rem; }
section.glance .cards { display: flex; flex-wrap: wrap; gap: .8rem; }
section.glance .card { width: 13.5rem; border: 1px solid #d0d7de; border-radius: 6px;
                       padding: .4rem; font-size: .85rem; }
section.glance .card img { width: 100%; border: none; }
section.glance .card a { text-decoration: none; }
section.glance .card .verdict { margin: .1rem .1rem 0 0; }
details.legend { background: #f6f8fa; border: 1px solid #d0d7de; padding: .3rem 1rem;
                 margin: 1rem 0; }
details.legend summary { cursor: pointer; font-weight: 600; }
"""

#: The heading of the page's first block: each figure as a thumbnail, with its claims' verdicts.
GLANCE_HEADING = "At a glance"


@dataclass
class Site:
    """What :func:`write_site` wrote: the page, and the interactive plots (relative paths, by
    experiment), those that could not be drawn (why, by experiment), or why there are none."""

    index: Path
    plots: dict[str, str] = field(default_factory=dict)
    not_drawn: dict[str, str] = field(default_factory=dict)
    no_plots: str = ""


def _link(root: Path, path: Path, text: str | None = None) -> str:
    rel = path.relative_to(root).as_posix()
    label = html.escape(text if text is not None else path.name)
    return f'<a href="{html.escape(quote(rel))}">{label}</a>'


def _folders(root: Path) -> list[Path]:
    """The folders the page lists: the results folder itself, then each subfolder holding a file
    the page links (the interactive plots' own folder excepted)."""
    subs = [
        d
        for d in sorted(root.iterdir())
        if d.is_dir() and d.name != interactive.FOLDER and not d.name.startswith(".")
    ]
    return [root, *(d for d in subs if _files(d))]


def _files(folder: Path) -> dict[str, list[Path]]:
    """The files of a folder the page links, by kind: its tables, figures and texts (top level
    and ``figures/``), and its run records (``runs/*.json``)."""
    here = [p for d in (folder, folder / "figures") if d.is_dir() for p in sorted(d.iterdir())]
    kinds = {
        "tables": [p for p in here if p.suffix in _TABLES],
        "figures": [p for p in here if p.suffix in _FIGURES],
        "texts": [p for p in here if p.suffix in _TEXTS],
        "run records": _run_records(folder),
    }
    return {kind: paths for kind, paths in kinds.items() if paths}


def _run_records(folder: Path) -> list[Path]:
    """The run records the folder's results rest on: those of the runs that computed its cells
    (a run that reused every cell adds nothing), else the first record giving the latest skip
    reason, else every record. So re-running over the same results links the same records."""
    records = sorted((folder / "runs").glob("*.json")) if folder.is_dir() else []
    if not records:
        return []
    cells = folder / "cells.csv"
    if cells.is_file():
        try:
            table = read_table(cells)  # the store's own parser of cells.csv
        except (OSError, ValueError):  # unreadable, or not a cells.csv: list them all
            return records
        ids = set(table.get("run_id", ()))
        return [p for p in records if p.stem in ids] or records
    runs = [r for r in load_runs(folder) if r.get("skipped") and r.get("run_id")]
    if runs:
        latest = skip_reasons(folder, runs[-1:])
        first = next(r for r in runs if skip_reasons(folder, [r]) == latest)
        return [p for p in records if p.stem == str(first["run_id"])] or records
    return records


def _plot_link(name: str, site: Site) -> str:
    if name in site.plots:
        return f'<a href="{html.escape(quote(site.plots[name]))}">interactive plot</a>'
    return html.escape(site.not_drawn.get(name, ""))


def _folder_links(root: Path, folder: Path, site: Site) -> str:
    """One line of links to a folder's files (below its figure)."""
    parts = [
        f"{kind}: " + ", ".join(_link(root, p) for p in paths)
        for kind, paths in _files(folder).items()
    ]
    plot = _plot_link(folder.name, site)
    return " · ".join([*([plot] if plot else []), *parts])


def _files_table(root: Path, site: Site) -> str:
    rows = []
    for folder in _folders(root):
        files = _files(folder)
        name = "(the results folder)" if folder == root else folder.name
        rows.append(
            {
                "folder": html.escape(name),
                **{
                    kind: "<br>".join(_link(root, p) for p in files.get(kind, []))
                    for kind in ("tables", "figures", "texts", "run records")
                },
                "interactive plot": _plot_link(folder.name, site) if folder != root else "",
            }
        )
    # The cells are links built (and escaped) above: pandas writes the table around them.
    frame = pd.DataFrame(rows)
    return frame.to_html(index=False, escape=False, border=0, na_rep="", classes="files")


def _image_folder(inline: Token, root: Path) -> Path | None:
    """The results subfolder of the first local image of a paragraph, if any."""
    for child in inline.children or []:
        if child.type == "image":
            src = str(child.attrGet("src") or "")
            head = src.split("/", 1)[0]
            if "/" in src and ":" not in head and (root / head).is_dir():
                return root / head
    return None


def _badge(verdict: str, text: str | None = None) -> str:
    """A verdict as a text badge (its CSS class from its name), showing ``text`` (default: the
    verdict)."""
    css = re.sub(r"\W+", "-", verdict).strip("-")
    return f'<span class="verdict {css}">{html.escape(verdict if text is None else text)}</span>'


def _verdict_badges(text: str) -> str:
    """``text`` (HTML) with each verdict mark of the report as a text badge: the marks' emoji
    need an emoji font the reader's browser may not have (they show as empty boxes)."""
    for verdict, mark in VERDICT_MARK.items():
        text = text.replace(html.escape(mark, quote=False), _badge(verdict))
    return text


def _cells(tokens: list[Token], kind: str) -> list[list[Token]]:
    """The inline token of each cell of ``kind`` (``th`` or ``td``), row by row, of one table's
    tokens."""
    rows: list[list[Token]] = []
    for i, token in enumerate(tokens):
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "inline" and i and tokens[i - 1].type == f"{kind}_open":
            rows[-1].append(token)
    return [row for row in rows if row]


def _first_sentence(text: str) -> str:
    """The first sentence of an evidence (up to :data:`_SUMMARY_CHARS`, then cut), after the
    test it names in brackets (the statement names it too)."""
    text = re.sub(r"^\[[^\]]*\]\s*", "", text)
    end = text.find(". ")
    head = text if end < 0 else text[: end + 1]
    if len(head) > _SUMMARY_CHARS:
        head = head[:_SUMMARY_CHARS].rsplit(" ", 1)[0] + " …"
    return head


def _is_claims_table(tokens: list[Token]) -> bool:
    """Whether one table's tokens are a claims table of the report (:data:`_CLAIM_COLUMNS`)."""
    return [[t.content.strip() for t in row] for row in _cells(tokens, "th")] == [_CLAIM_COLUMNS]


def _claims_table(md: MarkdownIt, tokens: list[Token]) -> str | None:
    """A claims table of the report (:data:`_CLAIM_COLUMNS`) as a short table to scan: the
    claim and its source, the verdict's badge, the evidence's first sentence; the statement and
    the whole evidence folded under it. None for any other table."""
    if not _is_claims_table(tokens):
        return None

    def inline(text: str) -> str:
        return md.renderInline(text)

    rows = []
    for cells in _cells(tokens, "td"):
        claim, source, statement, verdict, evidence = (c.content for c in cells)
        short = _first_sentence(evidence)
        rest = (
            f"<details><summary>the claim and all its evidence</summary>"
            f"<p><b>Claim:</b> {inline(statement)}</p><p><b>Evidence:</b> {inline(evidence)}</p>"
            "</details>"
        )
        rows.append(
            f'<tr><td class="id">{inline(claim)}<br><small>{inline(source)}</small></td>'
            f'<td class="v">{inline(verdict)}</td><td>{inline(short)}{rest}</td></tr>'
        )
    head = "<thead><tr><th>claim</th><th>verdict</th><th>evidence</th></tr></thead>"
    return f'<table class="claims">{head}<tbody>{"".join(rows)}</tbody></table>\n'


def _report_tokens(md: MarkdownIt, text: str, root: Path, site: Site) -> list[Token]:
    """The report's tokens, with the contents' anchors on its headings, each figure followed
    by its folder's links, and each claims table as :func:`_claims_table` shows it."""
    tokens = md.parse(text)
    seen: dict[str, int] = {}
    out: list[Token] = []
    pending: Path | None = None
    skip_to = -1
    for i, token in enumerate(tokens):
        if i <= skip_to:
            continue
        if token.type == "table_open":
            end = next(j for j in range(i, len(tokens)) if tokens[j].type == "table_close")
            claims = _claims_table(md, tokens[i : end + 1])
            if claims is not None:
                block = Token(_OWN_HTML, "", 0)
                block.content = claims
                out.append(block)
                skip_to = end
                continue
        out.append(token)
        if token.type == "heading_open" and token.tag in ("h2", "h3"):
            token.attrSet("id", heading_anchor(tokens[i + 1].content, seen))
        elif token.type == "inline" and i and tokens[i - 1].type == "paragraph_open":
            pending = _image_folder(token, root)
        elif token.type == "paragraph_close" and pending is not None:
            links = _folder_links(root, pending, site)
            block = Token(_OWN_HTML, "", 0)
            block.content = f'<p class="files">{links}</p>\n' if links else ""
            out.append(block)
            pending = None
    return out


def _escaped_html(self, tokens, idx, options, env) -> str:
    """Raw HTML in the report, escaped, but for the few tags it writes itself (``_KEPT_TAGS``)."""
    return _KEPT_TAGS.sub(r"<\1\2>", html.escape(tokens[idx].content, quote=False))


def _own_html(self, tokens, idx, options, env) -> str:
    """The page's own HTML (links it built and escaped itself)."""
    return tokens[idx].content


def _markdown() -> MarkdownIt:
    """CommonMark with tables ("js-default"); raw HTML is parsed, so that its tokens can be
    escaped by the page's own rule instead of passed on."""
    md = MarkdownIt("js-default", {"html": True})
    md.add_render_rule("html_block", _escaped_html)
    md.add_render_rule("html_inline", _escaped_html)
    md.add_render_rule(_OWN_HTML, _own_html)
    return md


@dataclass
class _Section:
    """A section of the report (an h2 or h3), as the page's anchors name it: its title, the
    results folders whose figures it shows, the verdicts of its claims tables."""

    title: str
    folders: list[Path] = field(default_factory=list)
    verdicts: list[str] = field(default_factory=list)


def _sections(report_text: str, root: Path) -> dict[str, _Section]:
    """The report's sections by anchor, in its order (see :class:`_Section`)."""
    tokens = _markdown().parse(report_text)
    verdict_of = {mark: verdict for verdict, mark in VERDICT_MARK.items()}
    seen: dict[str, int] = {}
    sections: dict[str, _Section] = {}
    section = None
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag in ("h2", "h3"):
            title = tokens[i + 1].content
            section = sections.setdefault(heading_anchor(title, seen), _Section(title))
        elif section is None:
            continue
        elif token.type == "inline":
            folder = _image_folder(token, root)
            if folder is not None:
                section.folders.append(folder)
        elif token.type == "table_open":
            close = next(j for j in range(i, len(tokens)) if tokens[j].type == "table_close")
            if _is_claims_table(tokens[i:close]):
                for row in _cells(tokens[i:close], "td"):
                    text = row[3].content.strip()
                    section.verdicts.append(
                        next((v for m, v in verdict_of.items() if m in text), text)
                    )
    return sections


def _glance(report_text: str, root: Path) -> str:
    """The page's first block: per paper, each section's figure as a thumbnail linked to the
    section, with the verdicts of the claims checked there; "" when no section has a figure."""
    from kmdr.results.runs import preset_of

    papers: dict[str, list[str]] = {}
    for anchor, section in _sections(report_text, root).items():
        folder = next(iter(section.folders), None)
        png = None if folder is None else next(iter(sorted(folder.glob("figures/*.png"))), None)
        if png is None:
            continue
        paper = str(dict(preset_of(folder)).get("paper") or "your experiments")
        counts = Counter(section.verdicts)
        # the verdicts in the legend's order, any other after them
        order = [v for v in VERDICT_MARK if v in counts] + [
            v for v in counts if v not in VERDICT_MARK
        ]
        badges = " ".join(_badge(v, f"{counts[v]} {v}") for v in order)
        src = quote(png.relative_to(root).as_posix())
        papers.setdefault(paper, []).append(
            f'<div class="card"><a href="#{anchor}"><img src="{src}" loading="lazy" alt="">'
            f"{html.escape(section.title)}</a><br>"
            f"{badges or '<small>no claim checked</small>'}</div>"
        )
    if not papers:
        return ""
    blocks = "".join(
        f'<h3>{html.escape(paper)}</h3><div class="cards">{"".join(cards)}</div>'
        for paper, cards in papers.items()
    )
    glance_id = heading_anchor(GLANCE_HEADING, {})
    return (
        f'<section class="glance"><h2 id="{glance_id}">{html.escape(GLANCE_HEADING)}</h2>'
        "<p>Each figure links to its section; under it, the verdicts of the claims checked on "
        f"it.</p>{blocks}</section>\n"
    )


def _folded_legend(body: str) -> str:
    """``body`` with the report's opening list (how it was made, how to read its verdicts)
    folded under a summary line: a reader looks at the figures and verdicts first."""
    start = body.find("<ul>")
    if start < 0 or start > body.find("<h2"):
        return body
    end = body.find("</ul>", start) + len("</ul>")
    return (
        f'{body[:start]}<details class="legend"><summary>How this report was made and how to '
        f"read its verdicts</summary>{body[start:end]}</details>{body[end:]}"
    )


def render_page(root: str | Path, report_text: str, site: Site) -> str:
    """The page for the results folder ``root``, from the report's Markdown ``report_text``."""
    root = Path(root)
    md = _markdown()
    body = md.renderer.render(_report_tokens(md, report_text, root, site), md.options, {})
    body = _verdict_badges(_folded_legend(body))
    first_h2 = body.find("<h2")
    glance = _glance(report_text, root)
    if first_h2 >= 0 and glance:
        body = body[:first_h2] + glance + body[first_h2:]
    files_id = heading_anchor(FILES_HEADING, {})
    plots_note = (
        f"<p>{NO_PLOTS}</p>"
        if site.no_plots
        else "<p>Each experiment's interactive plot draws the numbers of its figure, "
        f"{html.escape(interactive.BAND)}; hover a point for the method, r, the mean ± sd, min "
        "to max and n over the repetitions.</p>"
    )
    reports = [p for p in (root / "REPORT.md",) if p.exists()]
    what_to_use = f"\n## {WHAT_TO_USE}\n" in report_text
    nav = " · ".join(
        [
            *([f'<a href="#{heading_anchor(WHAT_TO_USE, {})}">{WHAT_TO_USE}</a>'] * what_to_use),
            *(
                [f'<a href="#{heading_anchor(ACROSS_DATASETS, {})}">{ACROSS_DATASETS}</a>']
                * (f"\n## {ACROSS_DATASETS}\n" in report_text)
            ),
            f'<a href="#{files_id}">{html.escape(FILES_HEADING)} and interactive plots</a>',
            *(_link(root, p, "the report as Markdown") for p in reports),
        ]
    )
    title = html.escape(f"kmdr results: {root.resolve().name}")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{_CSS}</style>
</head>
<body>
<nav class="page" aria-label="This page">{nav}</nav>
<main>
{body}
<h2 id="{files_id}">{html.escape(FILES_HEADING)}</h2>
{plots_note}
{_files_table(root, site)}
</main>
</body>
</html>
"""


def figure_sections(report_text: str, root: str | Path) -> dict[str, str]:
    """The anchor of the page's section that shows each experiment folder's figure, by folder
    name (the first, when several do)."""
    out: dict[str, str] = {}
    for anchor, section in _sections(report_text, Path(root)).items():
        for folder in section.folders:
            out.setdefault(folder.name, anchor)
    return out


def write_site(root: str | Path, report_text: str, say=None) -> Site:
    """Write ``root/index.html`` (and the interactive plots where plotly is installed) from the
    report's Markdown ``report_text``."""
    root = Path(root)
    site = Site(root / INDEX)
    if interactive.available():
        names = [d.name for d in experiment_dirs(root)]
        sections = figure_sections(report_text, root)
        site.plots, site.not_drawn = interactive.write_interactive(root, names, sections, say)
    else:
        site.no_plots = "plotly is not installed"
    atomic_write_text(site.index, render_page(root, report_text, site))
    return site
