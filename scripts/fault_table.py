"""Write (or check) docs/fault-cases.md: the fault and bad-input cases the tests cover.

A test declares the case it covers with ``@pytest.mark.fault("what goes wrong", gets="what kmdr
does")`` (or ``pytest.param(..., marks=pytest.mark.fault(...))`` for one case of a parametrized
test). The table is collected from those markers, so it lists exactly what the suite checks::

    python scripts/fault_table.py           # rewrite docs/fault-cases.md
    python scripts/fault_table.py --check   # exit 1 if the file is not what the tests declare
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "docs" / "fault-cases.md"

HEADER = """# Fault and bad-input cases the tests cover

Each row is one case a test runs for real (a subprocess, a signal, a file edited or cut short on
disk, a plugin package on a temporary path) and the outcome that test asserts. The list is
collected from the tests' `fault` markers by `scripts/fault_table.py`; `tests/test_fault_table.py`
fails when this file and the tests disagree. An outcome is always one of: a correct result, or one
line naming the problem and its fix (no traceback), with nothing already computed lost.

"""


class _Collector:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str]] = []

    def pytest_collection_modifyitems(self, items) -> None:
        for item in items:
            for mark in item.iter_markers("fault"):
                case = mark.args[0] if mark.args else mark.kwargs["case"]
                gets = mark.kwargs.get("gets") or (mark.args[1] if len(mark.args) > 1 else "")
                if not gets:
                    raise ValueError(f"{item.nodeid}: a fault marker needs gets=...")
                test = item.nodeid.split("[")[0]
                self.rows.append((" ".join(case.split()), " ".join(gets.split()), test))


def collect() -> list[tuple[str, str, str]]:
    collector = _Collector()
    code = pytest.main(
        ["--collect-only", "-q", "-p", "no:cacheprovider", str(ROOT / "tests")],
        plugins=[collector],
    )
    if code not in (0, 5):
        raise SystemExit(f"collecting the tests failed (pytest exit {code})")
    # Test files in the order of their paths, each folder's entries by name (as pytest 8 collects
    # them; pytest 7, the floor, collects a folder's files before its subfolders), and each
    # file's cases in the order it declares them: the same table under either.
    ordered = sorted(collector.rows, key=lambda row: Path(row[2].split("::")[0]).parts)
    seen, rows = set(), []
    for row in ordered:
        if row[0] not in seen:  # one case, however many tests check it
            seen.add(row[0])
            rows.append(row)
    return rows


def render(rows: list[tuple[str, str, str]]) -> str:
    from tabulate import tabulate

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    body = [
        [str(i), cell(case), cell(gets), f"`{test}`"]
        for i, (case, gets, test) in enumerate(rows, 1)
    ]
    header = ["#", "case", "what kmdr does", "test"]
    table = tabulate(body, headers=header, tablefmt="github", disable_numparse=True)
    return f"{HEADER}{len(rows)} cases.\n\n{table}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the file is out of date")
    args = parser.parse_args(argv)
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        rows = collect()
    text = render(rows)
    if args.check:
        current = TABLE.read_text(encoding="utf-8") if TABLE.exists() else ""
        if current != text:
            print(
                f"{TABLE.relative_to(ROOT)} is out of date: run `python scripts/fault_table.py`",
                file=sys.stderr,
            )
            return 1
        return 0
    TABLE.write_text(text, encoding="utf-8")
    print(f"wrote {TABLE.relative_to(ROOT)} ({len(rows)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
