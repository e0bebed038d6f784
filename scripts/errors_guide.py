"""Write (or check) docs/errors.md: each message a user can meet, what causes it and the fix.

The rows come from the suite's case tables (``tests/_cases.py``'s ``case(...)``): each row a test
checks carries an ``error`` marker with the message (``says``), what the user was doing, the cause
and the fix. They are collected as pytest collects the tests, so the guide lists exactly the
messages the suite checks, each once, grouped by what the user was doing::

    python scripts/errors_guide.py           # rewrite docs/errors.md
    python scripts/errors_guide.py --check   # exit 1 if the file is not what the tables give
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "errors.md"
COMMAND = "python scripts/errors_guide.py"

sys.path.insert(0, str(ROOT / "tests"))
from _cases import DOING  # noqa: E402  (the sections and their order: the case tables' own)

HEADER = """# Error messages and what to do

Find the message you met (search this page for a few of its words): each heading is the
message, or the part of it that names the problem, and below it are what causes it and how to fix
it. A message marked **warning** lets the run go on; the others stop it. The command line's parser
errors are Hydra's own words; the other messages are kmdr's.

The page is generated from the cases the test suite checks, so every message here is one kmdr
gives today, worded as the suite sees it.
"""


@dataclass(frozen=True)
class Entry:
    says: str
    doing: str
    cause: str
    fix: str
    warning: bool


class _Collector:
    """A pytest plug-in that keeps the ``error`` markers of every collected test."""

    def __init__(self) -> None:
        self.rows: list[tuple[tuple[str, ...], Entry]] = []

    @pytest.hookimpl(tryfirst=True)  # before any -m or -k selection drops a test
    def pytest_collection_modifyitems(self, items) -> None:
        for item in items:
            where = Path(item.nodeid.split("::")[0]).parts
            for mark in item.iter_markers("error"):
                entry = Entry(**{k: _one_line(v) for k, v in mark.kwargs.items()})
                self.rows.append((where, entry))


def _one_line(value):
    return " ".join(value.split()) if isinstance(value, str) else value


def collect() -> list[Entry]:
    """Every ``error`` row of the suite, collected as pytest collects the tests."""
    collector = _Collector()
    with contextlib.redirect_stdout(io.StringIO()):
        code = pytest.main(
            [
                "--collect-only",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:randomly",
                str(ROOT / "tests"),
            ],
            plugins=[collector],
        )
    if code not in (0, 5):
        raise SystemExit(f"collecting the tests failed (pytest exit {code})")
    # Test files in the order of their paths, each file's rows in the order it declares them: the
    # same guide whichever pytest collects (pytest 7, the floor, collects a folder's files before
    # its subfolders; pytest 8 by name).
    return [entry for _, entry in sorted(collector.rows, key=lambda row: row[0])]


def _code(text: str) -> str:
    """``text`` as a Markdown code span, however many backticks it holds."""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _sentence(text: str) -> str:
    """``text`` as a sentence: a capital first letter (unless it opens with a setting's name, as
    ``cell_time_limit`` or ``n_jobs=2``, which keeps its case) and a closing full stop."""
    first = text.split(" ", 1)[0]
    if not re.search(r"[_=.(\[]", first):
        text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else f"{text}."


def render(entries: list[Entry]) -> str:
    """The guide: one section per ``DOING``, in its order; in each, its messages in alphabetical
    order, each once (under the first section that meets it), with every distinct cause and fix
    the tables give for it."""
    by_message: dict[str, list[Entry]] = {}
    for entry in entries:
        by_message.setdefault(entry.says, []).append(entry)
    order = list(DOING)
    sections: dict[str, list[str]] = {doing: [] for doing in order}
    for says, rows in by_message.items():
        sections[min((row.doing for row in rows), key=order.index)].append(says)
    out = [HEADER]
    for doing, messages in sections.items():
        if not messages:
            continue
        out.append(f"## {DOING[doing]}\n")
        for says in sorted(messages, key=lambda s: (s.casefold().strip("'\"`"), s)):
            rows = by_message[says]
            kind = " (warning)" if any(row.warning for row in rows) else ""
            out.append(f"### {_code(says)}{kind}\n")
            pairs = list(dict.fromkeys((row.cause, row.fix) for row in rows))
            for cause, fix in pairs:
                out.append(f"**Cause:** {_sentence(cause)}\n\n**Fix:** {_sentence(fix)}\n")
    return "\n".join(out).rstrip("\n") + "\n"


def counts(entries: list[Entry]) -> dict[str, int]:
    """How many messages the guide gives under each section (each message counted once)."""
    order = list(DOING)
    first: dict[str, str] = {}
    for entry in entries:
        now = first.get(entry.says)
        if now is None or order.index(entry.doing) < order.index(now):
            first[entry.says] = entry.doing
    return {doing: sum(1 for d in first.values() if d == doing) for doing in order}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the file is out of date")
    args = parser.parse_args(argv)
    entries = collect()
    text = render(entries)
    if args.check:
        current = GUIDE.read_text(encoding="utf-8") if GUIDE.exists() else ""
        if current != text:
            print(f"{GUIDE.relative_to(ROOT)} is out of date: run `{COMMAND}`", file=sys.stderr)
            return 1
        return 0
    GUIDE.write_text(text, encoding="utf-8")
    per = ", ".join(f"{doing} {n}" for doing, n in counts(entries).items())
    print(f"wrote {GUIDE.relative_to(ROOT)} ({len(set(e.says for e in entries))} messages: {per})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
