"""No import circle within kmdr.app, kmdr.config, kmdr.engine or kmdr.datasets: within each,
the modules import one another in one direction, so each can be read (and changed) knowing only
what is below it.

Every import counts, at module level or inside a function (a function-level import defers the
circle, it does not remove it). Read with ``ast``, so every module is seen, imported or not.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGES = ("kmdr.app", "kmdr.config", "kmdr.engine", "kmdr.datasets")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(tree: ast.Module, module: str, is_package: bool, known=()) -> set[str]:
    """Every module ``module`` imports (absolute names). ``from x import y`` imports ``x.y``
    when that is a module (of ``known``: Python runs ``x/__init__`` first, as it does for any
    submodule, which is no dependency on what ``x`` imports), else ``x``."""
    package = module if is_package else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            subs = {f"{name}.{alias.name}" for alias in node.names}
            modules = subs & set(known)
            out.update(modules)
            if modules != subs or not known:
                out.add(name)
                out.update(subs - modules if known else subs)
    return out


def graph(package: str) -> dict[str, set[str]]:
    """The import graph of ``package``'s modules, restricted to its own modules."""
    folder = SRC / Path(*package.split("."))
    modules = {}
    for path in sorted(folder.rglob("*.py")):
        name = _module_name(path)
        modules[name] = (ast.parse(path.read_text(encoding="utf-8")), path.name == "__init__.py")
    edges = {}
    for name, (tree, is_package) in modules.items():
        found = _imports(tree, name, is_package, modules)
        edges[name] = {m for m in found if m in modules and m != name}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return out


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle(package):
    found = cycles(graph(package))
    assert not found, f"import cycles in {package}: {found}"


def test_a_planted_cycle_is_found():
    edges = {"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}, "p.d": {"p.a"}}
    assert cycles(edges) == [["p.a", "p.b", "p.c"]]
    assert cycles({"p.a": {"p.b"}, "p.b": set()}) == []


def test_function_level_and_relative_imports_count():
    source = "from . import b\n\n\ndef f():\n    from kmdr.x.c import g\n"
    found = _imports(ast.parse(source), "kmdr.x.a", is_package=False)
    assert {"kmdr.x.b", "kmdr.x.c"} <= found
