"""Reading the Markdown tables kmdr writes (tabulate pads every cell to its column's width)."""

from __future__ import annotations

import re


def unpadded(text: str) -> str:
    """``text`` with the padding of its table cells removed, so a row reads ``| a | b |`` and a
    rule ``|---|---|`` whatever the widths: tests look rows up as they would write them."""
    lines = []
    for line in text.splitlines():
        if line.startswith("|") and line.endswith("|"):
            cells = [c.strip() for c in line[1:-1].split(" | ")] if "---" not in line else None
            if cells is None:  # a rule: one --- per column (alignment colons kept)
                cells = [re.sub("-+", "---", c.strip()) for c in line[1:-1].split("|")]
                line = "|" + "|".join(cells) + "|"
            else:
                line = "| " + " | ".join(cells) + " |"
        lines.append(line)
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")
