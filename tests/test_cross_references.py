"""Every Sphinx cross-reference to kmdr in the source, the docs, the scripts and the examples
names something that exists: a function that moved or was renamed leaves no reference behind
(the API pages resolve theirs at build time, but most modules' docstrings are not rendered
there, so a stale name in them would go unnoticed)."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROLE = re.compile(r":(?:func|class|mod|meth|data|attr|exc):`~?(kmdr[\w.]*)`")
SKIPPED = {"_build", "generated", "auto_examples", "__pycache__"}


def _files() -> list[Path]:
    return [
        path
        for folder in ("src/kmdr", "docs", "scripts", "examples")
        for path in sorted((ROOT / folder).rglob("*"))
        if path.suffix in (".py", ".rst", ".md") and not SKIPPED & set(path.parts)
    ]


def _resolves(target: str) -> bool:
    """Whether ``target`` (``kmdr.module.name.attr``) is a module, or an attribute reached from
    the longest importable module prefix; an instance attribute counts when the class's code
    sets it (``self.name = ...``). A module that needs an optional dependency not
    installed here cannot be looked into: it counts as resolved."""
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError as err:
            if err.name and not err.name.startswith("kmdr"):
                return True
            continue
        for i, name in enumerate(parts[cut:], start=cut):
            if hasattr(obj, name):
                obj = getattr(obj, name)
            elif i == len(parts) - 1 and inspect.isclass(obj):
                return re.search(rf"\bself\.{name}\s*[:=]", inspect.getsource(obj)) is not None
            else:
                return False
        return True
    return False


def test_every_cross_reference_to_kmdr_resolves():
    stale = [
        f"{path.relative_to(ROOT)}:{text[: m.start()].count(chr(10)) + 1}: {m.group(1)}"
        for path in _files()
        for text in [path.read_text()]
        for m in ROLE.finditer(text)
        if not _resolves(m.group(1))
    ]
    assert not stale, "\n".join(stale)
