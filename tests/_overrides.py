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


#: The line Hydra ends its own error with (its message as Hydra prints it, exit status 1).
HYDRA_TAIL = "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace."


def refusal(code, err: str, out: str = "") -> str:
    """The message of a command refused before any work, on one line: kmdr's own check (exit 2,
    one line ``kmdr: error: ...``, no traceback), Hydra's (exit 1, as Hydra prints it: its
    message ending with :data:`HYDRA_TAIL`, or, for an error Hydra does not word itself, its
    trimmed traceback) or argparse's for Hydra's flags (exit 2, its usage screen first)."""
    if code == 1:
        assert err.strip(), out
    elif not err.startswith("usage: "):
        assert "Traceback" not in err + out, err
        assert code == 2 and err.count("\n") == 1 and err.startswith("kmdr: error: "), err
    return " ".join(err.split())
