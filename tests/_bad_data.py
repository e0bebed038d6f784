"""What the dataset tests share: the one-line checks, a file writer and ``make reproduce``'s
script run in the test's own process."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import _command as command


def one_line(message: str) -> str:
    """``message``, asserted to be one line with no traceback."""
    assert "\n" not in message.strip() and "Traceback" not in message, message
    return message


def kmdr_fails(argv, capsys, results: Path) -> str:
    """Run ``kmdr`` (this process) and return its one error line; nothing may be written."""
    with pytest.raises(SystemExit) as exc:
        command.kmdr([*argv, f"results_dir={results}", "n_jobs=1", "progress=false"])
    out, err = capsys.readouterr()
    assert exc.value.code == 2, err
    assert err.count("\n") == 1 and err.startswith("kmdr: error: "), err
    assert "Traceback" not in out + err
    assert not results.exists()  # refused before any cell is computed
    return err


def reproduce(argv: list[str]) -> int:
    """``scripts/reproduce.py argv`` in this process (its ``main``), its exit status returned."""
    script = Path(__file__).resolve().parents[1] / "scripts" / "reproduce.py"
    spec = importlib.util.spec_from_file_location("reproduce_script", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main(argv)


def put(folder: Path, rel: str, data: bytes) -> Path:
    """Write ``data`` to ``folder/rel`` (a file in a cache or mirror layout)."""
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path
