"""The architecture, checked from the source: imports only go down the layers, no module imports
another module's private names, no module is over :data:`MAX_LINES` lines, and no docstring or
comment tells the code's history instead of explaining it.

Every module under src/kmdr is parsed with :mod:`ast` (not imported): ``import`` and ``from ...
import`` statements anywhere in it count, at module level and inside functions alike (a lazy
import is still a dependency), relative ones resolved against the module's package. Strings are
not imports: a ``"module:attr"`` entry point or a registry's name is how the top layer is reached
without an import. Each failure lists every violation, one per line, as a to-do list.
"""

from __future__ import annotations

import ast
import io
import re
import socket
import tokenize
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "kmdr"

#: The layers, lowest first. A module belongs to the longest entry that is its dotted prefix
#: (the package ``kmdr`` itself only to ``"kmdr"``). Imports only go down: a module may import
#: its own unit and units of lower layers, never a unit of its own layer (peers) or a higher one.
LAYERS: dict[str, int] = {
    # Below everything: what must happen before numpy loads (OpenBLAS's kernels), which the
    # package's __init__ does on import, with the one owner of the thread pools' limits.
    "kmdr._native": 0,
    # Just below the base, which uses it too: one-line error reporting of every command, and the
    # walk of an error's chain (standard library only).
    "kmdr._errors": 1,
    # 2: the base every layer may use; none of it knows about experiments, configs or results.
    "kmdr": 2,  # the package's own __init__ (its version)
    "kmdr._log": 2,  # how much a run says (its verbosity), read by every layer
    "kmdr._io": 2,  # atomic writes, temporary files
    "kmdr._hashing": 2,  # the canonical digest of a JSON-like value
    "kmdr.plugins": 2,  # the generic registry that reducers, datasets, styles register into
    "kmdr.metrics": 2,  # scores of a partition, and its k-means cost
    "kmdr.stats": 2,  # the statistics over repetitions: intervals, tests, Holm
    # 3: k-means, its whole family (Lloyd with restarts, the online phase, sparsified k-means,
    # k-means on row blocks): the algorithms, no harness.
    "kmdr.kmeans": 3,
    # 4: what an experiment is made of; usable alone, as a library, without any harness.
    "kmdr.reducers": 4,
    "kmdr.datasets": 4,
    # Coreset constructions reduce the rows as reducers reduce the columns: beside them.
    "kmdr.coresets": 4,
    # 5: the Hydra config files (conf/, shipped as a data package): kmdr.config reads them.
    "kmdr.conf": 5,
    # 6: the configuration names reducers and datasets (their registries) and validates a run.
    "kmdr.config": 6,
    # 7: the results store keeps what runs produce, keyed by the configuration's identity.
    "kmdr.results": 7,
    # 8: the run engine writes results; figures read them. Peers: the app draws after a run, so
    # neither needs the other.
    "kmdr.engine": 8,
    "kmdr.figures": 8,
    # 9: a plug-in author's checks of a reducer, with the engine's checks of a reducer's output.
    "kmdr.testing": 9,
    # 10: the report reads results and figures, never the run engine's internals.
    "kmdr.report": 10,
    # 11: the command line ties the layers below together.
    "kmdr.app": 11,
    # 12: ``python -m kmdr`` runs the app's command: just above it, and nothing imports it.
    "kmdr.__main__": 12,
    # 13: each paper registers into the layers below (entry points, "module:attr" strings);
    # nothing imports a paper. Each paper's package is its own unit: papers do not import each
    # other, but may share the modules of kmdr.papers itself.
    "kmdr.papers": 13,
}

#: A module is one concept, whatever its length: a cap this size only catches a module that has
#: become several. It is set to what one cohesive module needs (scikit-learn's
#: random_projection.py is about 800 lines; here the SVD routines, a row's record format), not
#: lower: a lower cap splits one concept across files that must then be read together (a result
#: type, its checks and the routes that use them; a schema and the texts that follow it).
MAX_LINES = 800

#: The package root's lazy public facade (PEP 562): the root is layer 0, yet ``kmdr.run`` and
#: ``kmdr.read_results`` live in higher layers. The one exception to the layering is narrow: only
#: imports inside the root's module-level ``__getattr__`` may go up (they run on first use of a
#: public name, never when a module of kmdr is imported), and no module of kmdr imports a name
#: from the root (``from kmdr import run``): inside kmdr, a name comes from the module that defines
#: it, so the facade cannot hide an upward dependency.
FACADE = ("kmdr", "__getattr__")

#: What a docstring or comment must not cite: the history of the code (an issue), a document
#: outside the repository, or the machine it was built on.
HISTORY = [
    ("an issue number", re.compile(r"\bissues?\s*#?\d+|(?<![\w&#/])#\d+\b", re.IGNORECASE)),
    ("a spec outside the repository", re.compile(r"SPEC\.md")),
    ("a folder outside the repository", re.compile(r"\.\./shared|\bworkplace\b", re.IGNORECASE)),
]
_HOST = socket.gethostname().split(".")[0]
if _HOST and _HOST.lower() not in {"localhost", "localhost6"}:
    HISTORY.append(("the machine's name", re.compile(rf"\b{re.escape(_HOST)}\b", re.IGNORECASE)))


def _modules() -> dict[str, Path]:
    """Every module under src/kmdr by its dotted name (a package by its ``__init__.py``)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _unit(module: str) -> str | None:
    """The LAYERS entry ``module`` belongs to (a paper's package under kmdr.papers), or None."""
    parts = module.split(".")
    if module.startswith("kmdr.papers.") and (PACKAGE / "papers" / parts[2]).is_dir():
        return f"kmdr.papers.{parts[2]}"
    for n in range(len(parts), 1, -1):
        prefix = ".".join(parts[:n])
        if prefix in LAYERS:
            return prefix
    return "kmdr" if module == "kmdr" else None


def _layer(unit: str) -> int:
    return LAYERS["kmdr.papers"] if unit.startswith("kmdr.papers.") else LAYERS[unit]


def _facade_nodes(module: str, tree: ast.Module) -> set[int]:
    """The ids of the nodes inside the root's ``__getattr__`` (see :data:`FACADE`)."""
    if module != FACADE[0]:
        return set()
    return {
        id(inner)
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name == FACADE[1]
        for inner in ast.walk(node)
    }


def _imports(module: str, path: Path) -> list[tuple[int, str]]:
    """(line, imported kmdr module) of every import statement in the module, at any depth (the
    root's facade left out: :data:`FACADE`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    facade = _facade_nodes(module, tree)
    found = []
    for node in ast.walk(tree):
        if id(node) in facade:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                # ``from kmdr.results import store`` imports the module kmdr.results.store
                sub = f"{target}.{alias.name}"
                found.append((node.lineno, sub if sub in MODULES else target))
    kmdr = {(line, name) for line, name in found if name == "kmdr" or name.startswith("kmdr.")}
    return sorted(kmdr)


def _import_violations() -> list[str]:
    problems = []
    for module, path in MODULES.items():
        unit = _unit(module)
        where = path.relative_to(SRC)
        if unit is None:
            problems.append(f"{where}: {module} is in no layer (add it to LAYERS)")
            continue
        for line, imported in _imports(module, path):
            other = _unit(imported)
            if other is None:
                problems.append(f"{where}:{line}: imports {imported}, which is in no layer")
                continue
            if other == unit:
                continue
            if other == "kmdr.papers" and unit.startswith("kmdr.papers."):
                continue  # a paper may use the modules the papers share
            mine, theirs = _layer(unit), _layer(other)
            if theirs > mine:
                kind = "upward"
            elif theirs == mine:
                kind = "between peers"
            else:
                continue
            problems.append(
                f"{where}:{line}: {module} imports {imported}: {kind} "
                f"({unit} is layer {mine}, {other} is layer {theirs})"
            )
    return problems


def test_imports_only_go_down_the_layers():
    problems = _import_violations()
    assert not problems, f"{len(problems)} imports against the layering:\n" + "\n".join(problems)


def _root_imports() -> list[str]:
    """Every ``from kmdr import <name>`` of a module of kmdr where the name is not a module."""
    problems = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            package = module if path.name == "__init__.py" else module.rpartition(".")[0]
            target = node.module or ""
            if node.level:
                base = package.split(".")
                target = ".".join(
                    base[: len(base) - (node.level - 1)] + ([target] if target else [])
                )
            for alias in node.names:
                if target == "kmdr" and f"kmdr.{alias.name}" not in MODULES:
                    where = path.relative_to(SRC)
                    problems.append(f"{where}:{node.lineno}: imports {alias.name!r} from the root")
    return problems


def test_the_roots_facade_is_the_only_way_up_and_nothing_inside_uses_it():
    """Only the root's ``__getattr__`` names higher layers; no module imports through it."""
    problems = _root_imports()
    assert not problems, "modules importing the root's public names:\n" + "\n".join(problems)
    tree = ast.parse(MODULES["kmdr"].read_text(encoding="utf-8"))
    facade = _facade_nodes("kmdr", tree)
    assert facade, "the root has no module-level __getattr__"
    # Outside it, the root imports only what lies below it (kmdr._native, on import).
    outside = [
        lineno
        for lineno, name in _imports("kmdr", MODULES["kmdr"])
        if _layer(_unit(name) or name) >= LAYERS["kmdr"]
    ]
    assert outside == [], f"the root imports kmdr modules outside its __getattr__: {outside}"


def test_the_facade_exception_covers_only_the_roots_getattr(tmp_path):
    """An upward import in the root's __getattr__ is not counted; one elsewhere in the root, or
    in another module's __getattr__, is."""
    path = tmp_path / "mod.py"
    path.write_text(
        "def __getattr__(name):\n"
        "    from kmdr.app.api import run\n"
        "    return run\n"
        "def other():\n"
        "    import kmdr.report.build\n"
    )
    assert [n for _, n in _imports("kmdr", path)] == ["kmdr.report.build"]
    got = sorted(n for _, n in _imports("kmdr.results.fake", path))
    assert got == ["kmdr.app.api", "kmdr.report.build"]


def test_no_module_is_over_the_line_cap():
    long = [
        f"{path.relative_to(SRC)}: {n} lines"
        for path in MODULES.values()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    ]
    assert not long, f"modules over {MAX_LINES} lines:\n" + "\n".join(long)


def _docs_and_comments(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every docstring and comment of a Python file; of every ``#`` comment line
    of another text file (config files, the data registry)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix != ".py":
        return [
            (i, line) for i, line in enumerate(text.splitlines(), 1) if line.lstrip()[:1] == "#"
        ]
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string))
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                first = node.body[0].lineno
                out += [(first + i, line) for i, line in enumerate(doc.splitlines())]
    return out


def _history_violations() -> list[str]:
    problems = []
    for path in sorted(SRC.rglob("*")):
        if not path.is_file() or path.suffix not in {".py", ".txt", ".yaml", ".yml", ".cfg"}:
            continue
        for line, text in _docs_and_comments(path):
            for what, pattern in HISTORY:
                if match := pattern.search(text):
                    problems.append(
                        f"{path.relative_to(SRC)}:{line}: cites {what} ({match.group(0)!r})"
                    )
    return problems


def test_docstrings_and_comments_explain_the_code_not_its_history():
    problems = _history_violations()
    assert not problems, "docstrings or comments citing history:\n" + "\n".join(problems)


def test_every_module_has_a_layer():
    """Each module's unit: the longest LAYERS entry that is its prefix, a paper's own package."""
    assert _unit("kmdr.results.store") == "kmdr.results"
    assert _unit("kmdr.papers.bmd09.table1") == "kmdr.papers.bmd09"
    assert _unit("kmdr.papers.published") == "kmdr.papers"
    assert _unit("kmdr") == "kmdr" and _unit("kmdr.nowhere") is None
    assert [m for m in MODULES if _unit(m) is None] == []


def test_the_layer_check_reads_lazy_and_relative_imports(tmp_path):
    """A relative and a function-level import are found; a "module:attr" string is not."""
    path = tmp_path / "mod.py"
    path.write_text(
        "from . import records\n"
        "from .. import _io\n"
        "ENTRY = 'kmdr.papers.bmd09:register'\n"
        "def f():\n"
        "    import kmdr.report.build\n"
    )
    got = sorted(name for _, name in _imports("kmdr.results.fake", path))
    assert got == ["kmdr._io", "kmdr.report.build", "kmdr.results.records"]


#: Hydra's global state (its initialized instance, the ConfigStore, its plug-in registry, the
#: running job's HydraConfig, the Compose API that initializes it): what a module may use only in
#: the command line's layer.
HYDRA_GLOBAL_STATE = {
    "hydra": {"compose", "initialize", "initialize_config_dir", "initialize_config_module"},
    "hydra.core.global_hydra": {"GlobalHydra"},
    "hydra.core.config_store": {"ConfigStore"},
    "hydra.core.plugins": {"Plugins"},
    "hydra.core.hydra_config": {"HydraConfig"},
}


def test_only_the_command_lines_layer_touches_hydras_global_state():
    """Hydra's global state is the app's (kmdr.app): no other module imports what reads or
    sets it, so a library caller's Hydra is never left changed by kmdr."""
    problems = []
    for module, path in MODULES.items():
        if _unit(module) == "kmdr.app":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in HYDRA_GLOBAL_STATE:
                names = {alias.name for alias in node.names} & HYDRA_GLOBAL_STATE[node.module]
                if names:
                    where = path.relative_to(SRC)
                    problems.append(f"{where}:{node.lineno}: imports {', '.join(sorted(names))}")
    assert not problems, "\n".join(problems)


def test_no_module_imports_another_modules_private_names():
    """A name with a leading underscore is its module's own: another module imports it only as
    a private module of the package (``from kmdr import _log``), never a private function or
    constant out of a module (``from kmdr.kmeans.lloyd import _check_int``)."""
    problems = []
    for path in MODULES.values():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kmdr")):
                continue
            for alias in node.names:
                if not alias.name.startswith("_") or alias.name.startswith("__"):
                    continue
                target = SRC.joinpath(*node.module.split("."), alias.name)
                if not (target.with_suffix(".py").is_file() or target.is_dir()):
                    where = path.relative_to(SRC)
                    problems.append(f"{where}:{node.lineno}: {node.module}.{alias.name}")
    assert not problems, "\n".join(problems)


def test_the_layers_are_whole_steps():
    # a fractional layer is a module squeezed between two others: it belongs in a package of its
    # own concept (k-means' family is kmdr.kmeans), whose modules order themselves
    assert [unit for unit, layer in LAYERS.items() if layer != int(layer)] == []


#: The package's root keeps its face (``__init__``, ``__main__``), ``metrics``, ``stats``,
#: ``testing`` and the private helpers; every family lives in a package of its own.
MAX_ROOT_MODULES = 10


def test_the_root_holds_at_most_ten_modules():
    root = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(root) <= MAX_ROOT_MODULES, root
