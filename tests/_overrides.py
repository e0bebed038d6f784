"""Overrides a test builds on a shared base: kmdr refuses a key given twice, so a test that
changes a key of its base gives the base without it."""

from __future__ import annotations


def _key(text: str) -> str | None:
    if text.startswith("~"):  # a deletion: ~key or ~key=value
        return text[1:].partition("=")[0]
    if text.startswith("-") or "=" not in text:
        return None  # a flag or a flag's value
    return text.partition("=")[0].lstrip("+~")


def overridden(base, *more: str) -> list[str]:
    """``base``'s overrides whose key none of ``more`` sets, then ``more``."""
    changed = {_key(t) for t in more} - {None}
    return [*(t for t in base if _key(t) not in changed), *more]
