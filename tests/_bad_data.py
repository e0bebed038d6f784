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


# The messages several dataset tests check, each with the cause and fix the error guide gives
# (``case(**DAMAGED_CACHE)``): one entry, however many tests meet it.
DAMAGED_CACHE = dict(
    says="sha256 mismatch for",
    doing="data",
    cause="the cached copy of the file was damaged (cut short, edited) and no mirror copy or "
    "download can replace it",
    fix="remove the file the message names and fetch it again (`kmdr-data NAME`) with "
    "KMDR_DATA_MIRROR set or the network up",
)
DAMAGED_MIRROR = dict(
    says="sha256 mismatch for",
    doing="data",
    cause="the copy of the file in the mirror folder (KMDR_DATA_MIRROR) is damaged or another "
    "file: its hash is not the one kmdr's registry pins; nothing is copied",
    fix="replace it with the file from the URL the message gives, or remove it so that kmdr "
    "downloads it",
)
UNREADABLE = dict(
    says="the file is damaged or not the published one: delete it",
    doing="data",
    cause="the data file has the hash its registry line pins (one you pinned yourself, for a "
    "file with no published hash), but its reader cannot read it: cut short, not a MAT or LIBSVM "
    "file, or without the variables the loader needs",
    fix="delete the file the message names (and its source in the mirror, if that is damaged "
    "too) and fetch a good copy again (`kmdr-data NAME`)",
)
UNREGISTERED = dict(
    says="is not in the data registry",
    doing="plugin",
    cause="a plug-in's 'file' dataset reads a file kmdr's data registry does not list, so kmdr "
    "cannot fetch or check it",
    fix="add the file's line (path, sha256, URL) to src/kmdr/datasets/registry.txt, or ship the "
    "data inside the plug-in's package as a 'bundled' dataset",
)
DOWNLOAD_MISMATCH = dict(
    says="the server sent another file: put the registered file in KMDR_DATA_MIRROR instead",
    doing="data",
    cause="a download's hash is not the one kmdr's registry pins: the server now sends another "
    "file (a new version, an error page) or the transfer was damaged; nothing is kept",
    fix="get the registered file (the one whose hash the message gives as expected) and put it "
    "in the folder KMDR_DATA_MIRROR names; if the server just failed, try again later",
)
PARAM_RANGE = dict(
    doing="configure",
    cause="a generated dataset's parameter (dataset.params.NAME) is outside the values the "
    "generator accepts",
    fix="give a value in the range the message states; the line lists the defaults",
)
PARAM_UNKNOWN = dict(
    says="unknown parameters",
    doing="configure",
    cause="a parameter the generated dataset does not declare was added with "
    "+dataset.params.NAME=...",
    fix="use one of the parameter names the message lists (`kmdr-list datasets` shows each "
    "dataset's parameters), without the +",
)
PARAM_CLUSTERS_ROWS = dict(
    says="must be <= 'n_samples'",
    doing="configure",
    cause="more clusters (dataset.params.n_clusters) were asked of a generated dataset than it has "
    "rows (dataset.params.n_samples)",
    fix="lower dataset.params.n_clusters or raise dataset.params.n_samples",
)
