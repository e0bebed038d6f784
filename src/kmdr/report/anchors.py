"""The anchors of the report's headings, one rule for the Markdown table of contents and for the
HTML page's heading ids, so that the contents' links work in both."""

from __future__ import annotations

import re

__all__ = ["heading_anchor"]


def heading_anchor(heading: str, seen: dict[str, int]) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, a
    ``-1``, ``-2`` suffix on repeats (``seen`` counts the anchors given so far)."""
    slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
    n = seen.get(slug, 0)
    seen[slug] = n + 1
    return slug if n == 0 else f"{slug}-{n}"
