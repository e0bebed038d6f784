"""The one canonical digest of a JSON-like value: what a seed, a fingerprint and a folder name
derived from settings are hashed from, so the same value always gives the same digest."""

from __future__ import annotations

import hashlib
import json

__all__ = ["canonical_json", "stable_digest"]


def canonical_json(obj) -> bytes:
    """``obj`` as canonical JSON: sorted keys, no spaces, non-JSON values by ``str``; UTF-8."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str).encode("utf-8")


def stable_digest(obj) -> str:
    """Hex sha256 of ``obj``'s canonical JSON (:func:`canonical_json`)."""
    return hashlib.sha256(canonical_json(obj)).hexdigest()
