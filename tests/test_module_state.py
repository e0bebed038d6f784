"""Process-wide state has one owner: no module of src/ but kmdr/engine/worker.py keeps mutable
state at module level or starts a thread (its ProcessState holds what a process keeps across the
jobs it computes: thread limits, the shared-work memo, the watch on its parent, the default
session; the Session owns pools, clusters and signal handling while a run goes on, as context
managers, without module state).

The check reads the source with ``ast``, so it sees every module, imported or not. It flags:

* a module-level assignment whose value is a dict, list or set display or comprehension, or a
  call that builds a mutable object (``threading.Lock()``, ``OrderedDict()``, ``dict()``, an
  instance of a class), unless the call is one of the declarations of :data:`ALLOWED_CALLS`;
* a ``global`` statement in a function (state rebound from inside a function);
* a thread started: ``threading.Thread``, ``threading.Timer``, ``ThreadPoolExecutor``,
  ``multiprocessing``'s ``ThreadPool`` or ``_thread.start_new_thread`` called anywhere, however it
  was imported (``import threading as th``, ``from threading import Thread as T``), or a class
  deriving from ``threading.Thread`` started (its ``.start()``);

outside :data:`OWNER`. Module-level constants, tuples, frozensets, frozen dataclasses, enums,
``MappingProxyType`` views and registry objects filled only at import are declarations, not
state: :data:`ALLOWED_CALLS` and :data:`ALLOWED_NAMES` name each, with its reason.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
#: The one module that owns process-wide state and the run's threads.
OWNER = "kmdr/engine/worker.py"

#: Calls allowed at module level: they build immutable values or declaration registries.
ALLOWED_CALLS = {
    # immutable values
    "frozenset": "immutable",
    "tuple": "immutable",
    "MappingProxyType": "a read-only view",
    "types.MappingProxyType": "a read-only view",
    "re.compile": "a compiled pattern is immutable",
    "Path": "paths are immutable",
    "pathlib.Path": "paths are immutable",
    "TypeVar": "a typing declaration",
    "typing.TypeVar": "a typing declaration",
    "logging.getLogger": "the logging module owns loggers; a name lookup",
    "namedtuple": "a class declaration",
    "collections.namedtuple": "a class declaration",
    "field": "a dataclass field declaration",
    "dataclasses.field": "a dataclass field declaration",
    "os.environ.get": "a string read once",
    "str": "immutable",
    "int": "immutable",
    "float": "immutable",
    "len": "an int",
    "max": "a number",
    "min": "a number",
    "object": "a sentinel: identity only, nothing stored in it",
    "getattr": "a constant looked up once",
    "contextvars.ContextVar": "a declaration: each thread's value is its own, set and reset by "
    "the block that owns it",
    "Registry": "kmdr.plugins.Registry: declarations, filled at import by the modules and "
    "entry points that declare them, read while runs go on",
}

#: What mutates a container in place.
MUTATORS = {
    "append", "extend", "insert", "add", "update", "setdefault", "pop", "popitem", "clear",
    "remove", "discard", "move_to_end", "sort", "reverse", "__setitem__",
}  # fmt: skip

#: Module-level names allowed to hold a mutable object, each with its reason: declaration
#: registries filled only at import (by the declaring modules and plug-in entry points), never
#: while a run goes on.
ALLOWED_NAMES = {
    # An experiment kind is a declaration too: an object without state, whose methods run a kind.
    ("kmdr/engine/sweep.py", "CELLS"): "the cells kind, a stateless declaration",
    ("kmdr/papers/bmd09/leverage_scores.py", "LEVERAGE_SCORES"): "a stateless kind",
    ("kmdr/papers/bzmd14/sampling_lemma.py", "SAMPLING_LEMMA"): "a stateless kind",
    ("kmdr/engine/coresets.py", "CORESETS"): "the coresets kind, a stateless declaration",
    ("kmdr/papers/ss22/benchmark.py", "BENCHMARK_FAMILY"): "a stateless family of solutions",
    ("kmdr/papers/dss24/evaluation.py", "CORESET_SOLUTION"): "a stateless family of solutions",
    ("kmdr/papers/dss24/evaluation.py", "CODE_MEANS"): "a stateless family of solutions",
    # Read-only views that look the papers' declarations up when asked: they hold no state.
    ("kmdr/report/notes.py", "NO_DATA_WHY"): "a read-only view of every paper's no_data",
    ("kmdr/report/notes.py", "FIGURE_NOTES"): "a read-only view of every paper's notes",
    # A dask worker's own row blocks between the Lloyd iterations of one clustering (keyed by its
    # token, dropped at its end): state of the worker process, which kmdr's run does not own.
    ("kmdr/kmeans/blocks.py", "_HELD"): "a dask worker's blocks held across one clustering",
    # The kmdr command's -cd folder, pushed and popped by user_folder_first around its Hydra app.
    ("kmdr/config/search_path.py", "_FIRST"): "the -cd folder while the kmdr command runs",
}

#: The classes allowed to start a thread outside the session module, (module, class) each with
#: its reason: anywhere else in the module, a thread is flagged.
ALLOWED_THREADS: dict[tuple[str, str], str] = {
    ("kmdr/engine/progress.py", "Ticking"): "a context manager the run enters while its cells "
    "compute: the thread writing a logged run's progress lines, joined when it exits",
    ("kmdr/engine/deadlines.py", "Deadlines"): "a context manager the run enters under a time "
    "limit: its watch on the jobs' deadlines and a dask worker's restart, joined when it exits",
}

#: What starts a thread, by the full name of the callable.
THREAD_CALLS = {
    "threading.Thread",
    "threading.Timer",
    "concurrent.futures.ThreadPoolExecutor",
    "concurrent.futures.thread.ThreadPoolExecutor",
    "multiprocessing.pool.ThreadPool",
    "multiprocessing.dummy.Pool",
    "_thread.start_new_thread",
    "_thread.start_new",
}


def _name(node: ast.AST) -> str:
    """The dotted name of a call's function (``threading.Lock``), '' if it is not one."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _name(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def _imports(tree: ast.Module) -> dict[str, str]:
    """The names a module binds by importing, each to the full name it stands for
    (``import threading as th``: th -> threading; ``from threading import Thread as T``:
    T -> threading.Thread)."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    out[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    out[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                out[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return out


def _full_name(node: ast.AST, imports: dict[str, str]) -> str:
    """The full name of a call's function, its first part resolved through the imports."""
    name = _name(node)
    head, _, rest = name.partition(".")
    if head in imports:
        return f"{imports[head]}.{rest}" if rest else imports[head]
    return name


def _thread_classes(tree: ast.Module, imports: dict[str, str]) -> set[str]:
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and any(_full_name(b, imports) == "threading.Thread" for b in node.bases)
    }


def _enclosing_classes(tree: ast.Module) -> dict[ast.AST, str]:
    """Each node inside a class body (at any depth), to the name of its outermost class."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for inner in ast.walk(node):
                out[inner] = node.name
    return out


def _constant_name(name: str) -> bool:
    """PEP 8's name of a constant: upper case, digits and underscores."""
    return name.lstrip("_").upper() == name.lstrip("_") and any(c.isalpha() for c in name)


def _mutated(trees) -> set[str]:
    """The names (bare or as ``module.NAME``) some module changes in place: an item assigned or
    deleted, an augmented assignment, a mutating method called."""

    def base(node):
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute):
            return node.attr
        return None

    out = set()
    for tree in trees:
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Assign | ast.Delete):
                targets = node.targets
            elif isinstance(node, ast.AugAssign):
                targets = [node.target]
            for target in targets:
                if isinstance(target, ast.Subscript) and base(target.value):
                    out.add(base(target.value))
                if isinstance(node, ast.AugAssign) and base(target):
                    out.add(base(target))
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in MUTATORS
                and base(node.func.value)
            ):
                out.add(base(node.func.value))
    return out


def _declared_classes(trees) -> set[str]:
    """Classes whose instances are values: frozen dataclasses, named tuples, enums."""
    out = set()
    for tree in trees:
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {_name(b).split(".")[-1] for b in node.bases}
            frozen = any(
                isinstance(d, ast.Call)
                and _name(d.func).split(".")[-1] == "dataclass"
                and any(k.arg == "frozen" and getattr(k.value, "value", False) for k in d.keywords)
                for d in node.decorator_list
            )
            if frozen or bases & {"NamedTuple", "Enum", "IntEnum", "str"}:
                out.add(node.name)
    return out


def _mutable_value(name: str, value: ast.AST, context: dict) -> str | None:
    """Why ``value`` (the module-level assignment of ``name``) is mutable state, or None.

    A container display is a constant when its name says so and no module changes it in place;
    a call is a declaration when it builds a value (:data:`ALLOWED_CALLS`, an instance of a
    frozen dataclass, a named tuple or an enum)."""
    constant = _constant_name(name) and name not in context["mutated"]
    if isinstance(value, ast.Dict | ast.List | ast.Set):
        return None if constant else f"a {type(value).__name__.lower()} display"
    if isinstance(value, ast.DictComp | ast.ListComp | ast.SetComp):
        return None if constant else "a comprehension"
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Constant):
            return None  # a method of a constant ("..., ".join(...)): a str or bytes
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
            return _mutable_value(name, func.value, context)  # Path(...).with_name(...)
        called = _name(value.func)
        last = called.split(".")[-1]
        if called in ALLOWED_CALLS or last in ALLOWED_CALLS or last in context["values"]:
            return None
        if last in ("dict", "list", "set", "sorted") and constant:
            return None
        return f"a call that builds an object ({called or 'expression'}(...))"
    return None


def problems(source: str, rel: str, context: dict | None = None) -> list[str]:
    """The module-state and thread problems of one module's ``source`` (path ``rel``);
    ``context``: what :func:`_context` found in all of src/ (default: this module alone)."""
    tree = ast.parse(source)
    if context is None:
        context = {"mutated": _mutated([tree]), "values": _declared_classes([tree])}
    out = []
    for node in tree.body:
        targets, value = [], None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        for name in names:
            if name == "__all__" and isinstance(value, ast.List | ast.Tuple):
                continue  # the public names: a declaration
            why = _mutable_value(name, value, context)
            if why and (rel, name) not in ALLOWED_NAMES:
                out.append(f"{rel}:{node.lineno}: module-level {name} is {why}")
    imports = _imports(tree)
    thread_classes = _thread_classes(tree, imports)
    within = _enclosing_classes(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            out.append(f"{rel}:{node.lineno}: global {', '.join(node.names)} in a function")
        if not isinstance(node, ast.Call) or (rel, within.get(node)) in ALLOWED_THREADS:
            continue
        if _full_name(node.func, imports) in THREAD_CALLS:
            out.append(f"{rel}:{node.lineno}: starts a thread ({_name(node.func)})")
        elif (
            isinstance(node.func, ast.Attribute)
            and node.func.attr == "start"
            and isinstance(node.func.value, ast.Call)
            and _name(node.func.value.func).split(".")[-1] in thread_classes
        ):
            out.append(f"{rel}:{node.lineno}: starts a thread ({_name(node.func.value.func)})")
    return out


def _scan() -> list[str]:
    sources = {
        path.relative_to(SRC).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(SRC.rglob("*.py"))
    }
    trees = [ast.parse(text) for text in sources.values()]
    context = {"mutated": _mutated(trees), "values": _declared_classes(trees)}
    found = []
    for rel, text in sources.items():
        if rel != OWNER:
            found += problems(text, rel, context)
    return found


def test_no_module_state_or_thread_outside_the_session():
    found = _scan()
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("planted", "what"),
    [
        ("_cache: dict = {}", "module-level _cache is a dict display"),
        ("_seen = set()", "module-level _seen is a call"),
        ("SEEN = set()\n\n\ndef f(x):\n    SEEN.add(x)", "module-level SEEN is a call"),
        ("TABLE = {}\n\n\ndef f(x):\n    TABLE[x] = 1", "module-level TABLE is a dict display"),
        ("import threading\n_LOCK = threading.Lock()", "module-level _LOCK is a call"),
        ("from collections import OrderedDict\n_M = OrderedDict()", "module-level _M is a call"),
        ("_items = [i for i in range(3)]", "module-level _items is a comprehension"),
        ("class Holder:\n    pass\n\n\nHELD = Holder()", "module-level HELD is a call"),
        ("X = None\n\n\ndef f():\n    global X\n    X = 1", "global X in a function"),
        (
            "import threading\n\n\ndef f():\n    threading.Thread(target=f).start()",
            "starts a thread (threading.Thread)",
        ),
        ("import threading\n\n\ndef f():\n    threading.Timer(1, f).start()", "starts a thread"),
        (
            "from concurrent.futures import ThreadPoolExecutor\n\n\ndef f():\n"
            "    ThreadPoolExecutor(2)",
            "starts a thread (ThreadPoolExecutor)",
        ),
        (
            "import threading\n\n\nclass W(threading.Thread):\n    pass\n\n\ndef f():\n"
            "    W().start()",
            "starts a thread (W)",
        ),
        (
            "import threading as th\n\n\ndef f():\n    th.Thread(target=f).start()",
            "starts a thread (th.Thread)",
        ),
        (
            "from threading import Thread as T\n\n\ndef f():\n    T(target=f).start()",
            "starts a thread (T)",
        ),
        (
            "import _thread\n\n\ndef f():\n    _thread.start_new_thread(f, ())",
            "starts a thread (_thread.start_new_thread)",
        ),
        (
            "from multiprocessing.pool import ThreadPool\n\n\ndef f():\n    ThreadPool(2)",
            "starts a thread (ThreadPool)",
        ),
    ],
)
def test_a_planted_violation_is_found(planted, what):
    found = problems(textwrap.dedent(planted), "kmdr/planted.py")
    assert any(what in p for p in found), found


@pytest.mark.parametrize(
    "rel", ["kmdr/results/store.py", "kmdr/engine/parallel.py", "kmdr/results/locks.py"]
)
def test_a_thread_started_outside_the_session_module_is_found(rel):
    """A ``threading.Thread(...).start()`` anywhere but the session module fails."""
    planted = "import threading\n\n\ndef f():\n    threading.Thread(target=f).start()\n"
    assert problems(planted, rel) == [f"{rel}:5: starts a thread (threading.Thread)"]
    assert OWNER not in rel


@pytest.mark.parametrize(
    "declaration",
    [
        "NAMES = ('a', 'b')",
        "KINDS_SET = frozenset({'a'})",
        "from types import MappingProxyType\nVIEW = MappingProxyType({'a': 1})",
        "__all__ = ['f']",
        "import re\nPATTERN = re.compile('x')",
        "LIMIT = 2**63 - 1",
        "TABLE = {'a': 1}",  # a constant's name, never changed in place
        "from dataclasses import dataclass\n\n\n@dataclass(frozen=True)\nclass P:\n    x: int"
        "\n\n\nPOINT = P(1)",
    ],
)
def test_declarations_are_not_state(declaration):
    assert problems(declaration, "kmdr/declared.py") == []
