"""What the dataset fault tests share: the one-line checks and a file writer."""

from __future__ import annotations

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


def put(folder: Path, rel: str, data: bytes) -> Path:
    """Write ``data`` to ``folder/rel`` (a file in a cache or mirror layout)."""
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path
