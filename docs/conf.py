"""Sphinx configuration of kmdr's documentation site (``make docs``).

The site is the user guide (Markdown pages, read by MyST), the API reference (numpydoc pages from
the docstrings) and a gallery of examples that sphinx-gallery runs at build time. The committed
results folder (the report, its page and the figures) is copied into the built site as
``results/``, so the guide can link to it. Every page and theme asset comes from this checkout;
the examples run on the ORL faces, which the build reads from the data cache or the folder
``KMDR_DATA_MIRROR`` names (``make docs`` names the workplace's mirror when there is one), and
downloads once otherwise (1.5 MB, checked against its pinned hash).

``import kmdr`` comes first: it pins OpenBLAS's kernels before numpy loads it
(:mod:`kmdr._native`), so the examples computed here give the committed results' numbers.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import kmdr

ROOT = Path(__file__).resolve().parents[1]

project = "kmdr"
author = "the kmdr developers"
copyright = "2026, the kmdr developers"
release = kmdr.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
    "auto_examples/*.json",
    "sg_execution_times.rst",
]

# Markdown pages: headings get anchors (``page.md#section`` links), and fenced ``{note}`` blocks.
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# The API pages: numpydoc sections, members in source order, no intersphinx lookups over the
# network (a build must work offline), type hints in the description rather than the signature.
autosummary_generate = True
autodoc_member_order = "bysource"
autodoc_typehints = "description"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
intersphinx_mapping: dict = {}

html_theme = "pydata_sphinx_theme"
html_title = "kmdr"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_sidebars = {"index": []}
# A fixed light mode: the theme otherwise reads an empty mode from a file:// page's storage and
# logs a console error on the first page opened.
html_context = {"default_mode": "light"}

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    # Every example runs at build time; a failing one fails the build.
    "abort_on_example_error": True,
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    # Its timing page loads jQuery from a CDN: the site must work offline.
    "write_computation_times": False,
}

# What the results folder holds that a reader of the site needs: the report, its page, the
# figures, the CSVs and run records (not the per-cell checkpoints, claims or caches).
_RESULTS_SKIP = shutil.ignore_patterns("cells", ".locks", ".cache", "*.tmp")


def _copy_results(app, exception) -> None:
    """Copy the committed results folder into the built site (``<site>/results/``)."""
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "results"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(ROOT / "results", target, ignore=_RESULTS_SKIP)


def setup(app) -> None:
    # Examples write into temporary folders; none may touch the checkout's results/.
    os.environ.setdefault("MPLBACKEND", "Agg")
    app.connect("build-finished", _copy_results)
