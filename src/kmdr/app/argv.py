"""What ``kmdr`` reads from its command line itself; everything else is Hydra's.

- ``--version`` prints kmdr's version (the installed distribution's), not Hydra's.
- :func:`command_line_problem`: the one line for two mistakes Hydra's argparse would answer with
  a usage screen or a message that does not say what to do: ``--cfg`` with ``-m``, and a flag
  placed after an override that another override follows.
- :func:`parsed_overrides`: the tokens Hydra's override grammar reads as overrides (``kmdr.run``
  checks its arguments with it).
"""

from __future__ import annotations

__all__ = [
    "CFG_FLAGS",
    "MULTIRUN_FLAGS",
    "command_line_problem",
    "parsed_overrides",
    "version_line",
]

CFG_FLAGS = ("-c", "--cfg")
MULTIRUN_FLAGS = ("-m", "--multirun")


def _flag(token: str) -> str:
    """``--cfg=job`` -> ``--cfg``."""
    return token.partition("=")[0] if token.startswith("--") else token


def _has(args: list[str], flags: tuple[str, ...]) -> bool:
    return any(_flag(a) in flags for a in args)


def _is_override(token: str) -> bool:
    """A token argparse hands to Hydra as an override (a flag's value has no ``=``)."""
    return not token.startswith("-") and "=" in token


def parsed_overrides(args: list[str]):
    """The tokens of ``args`` that Hydra's grammar reads as overrides, parsed."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    parser = OverridesParser.create()
    out = []
    for text in args:
        if text.startswith("-") or "=" not in text:
            continue
        try:
            out += parser.parse_overrides([text])
        except HydraException:  # a flag's value, not an override
            continue
    return out


def command_line_problem(args: list[str]) -> str | None:
    """The one line for ``--cfg`` given with ``-m``, or for a flag between overrides, else
    None."""
    if _has(args, CFG_FLAGS) and _has(args, MULTIRUN_FLAGS):
        return (
            "--cfg prints the config of one job, so it does not go with -m/--multirun; leave "
            "out -m and give each swept key one of its values (e.g. dataset=orl)"
        )
    first = next((i for i, a in enumerate(args) if _is_override(a)), None)
    if first is None:
        return None
    for i, token in enumerate(args[first + 1 :], start=first + 1):
        if token.startswith("-") and any(_is_override(a) for a in args[i + 1 :]):
            return (
                f"the flag {_flag(token)} comes after the override {args[first]!r}: Hydra reads "
                f"flags only before the overrides; write `kmdr {token} ... {args[first]} ...`"
            )
    return None


def version_line() -> str:
    """``kmdr <version>``."""
    import kmdr

    return f"kmdr {kmdr.__version__}"
