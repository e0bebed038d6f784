"""A cell file's text: how a finished cell is written as JSON, sealed with its checksum, and
when such a text is a valid cell (every column, the right types, a matching checksum and id).
Run sidecars are written as the same JSON, with non-finite numbers as ``null``.
"""

from __future__ import annotations

import json
import math

from kmdr.results.columns import cell_problem
from kmdr.results.records import CHECKSUM, row_fields, row_problem, seal

__all__ = ["cell_text", "parse_cell_text", "run_record_text"]


def cell_text(row: dict) -> str:
    """The text of the cell file of ``row``, sealed with its checksum."""
    return _dumps(seal(row))


def run_record_text(payload: dict) -> str:
    """Strict JSON of a run record (NaN and infinities as ``null``)."""
    return _dumps(_finite(payload))


def parse_cell_text(text: str, cell_id: str) -> tuple[dict | None, str | None]:
    """(the row's fields as cells.csv texts, None) for a valid cell file's text, else (None, the
    problem)."""
    if not text.strip():
        return None, "empty file"
    try:
        row = json.loads(text)
    except ValueError as err:
        return (
            None,
            f"not JSON ({getattr(err, 'msg', err)} at character {getattr(err, 'pos', '?')})",
        )
    problem = cell_problem(row, cell_id)
    if problem:
        return None, problem
    if CHECKSUM not in row:
        return None, "no checksum (written by an older kmdr, or by hand)"
    fields = row_fields(row)
    problem = row_problem(fields)
    return (None, problem) if problem else (fields, None)


def _dumps(obj) -> str:
    return json.dumps(obj, indent=1, sort_keys=False, default=_json_default, allow_nan=True)


def _json_default(obj):
    if hasattr(obj, "item"):  # numpy scalars
        return obj.item()
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


def _finite(obj):
    """Replace NaN/inf floats by None so sidecars are strict JSON."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    return obj
