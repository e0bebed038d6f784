"""What ``kmdr`` does with its command line before Hydra reads it.

- ``--version`` prints kmdr's version (the installed distribution's), not Hydra's.
- ``--cfg``/``-c`` prints the config resolved: Hydra's own ``--resolve`` flag is added, so the
  output holds values (``data_dir: null``), not interpolations (``${oc.env:...}``).
- ``--cfg`` with ``-m``: Hydra prints one job's config and refuses a multirun; the refusal is
  one line saying what to do instead.
- A dry run with ``-m`` plans without writing: Hydra's sweep folder (``multirun/...``, where it
  writes ``multirun.yaml``) goes to a temporary folder removed at the end, unless the command
  sets ``hydra.sweep.dir`` itself.

Overrides are read with Hydra's override parser; a token it cannot parse (a flag's value such as
``job`` or a folder) is not an override.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator

__all__ = [
    "CFG_FLAGS",
    "MULTIRUN_FLAGS",
    "dry_run_sweep_dir",
    "multirun_cfg_problem",
    "parsed_overrides",
    "prepared",
    "version_line",
]

CFG_FLAGS = ("-c", "--cfg")
MULTIRUN_FLAGS = ("-m", "--multirun")
_RESOLVE = "--resolve"
_SWEEP_DIR = "hydra.sweep.dir"


def _flag(token: str) -> str:
    """``--cfg=job`` -> ``--cfg``."""
    return token.partition("=")[0] if token.startswith("--") else token


def _has(args: list[str], flags: tuple[str, ...]) -> bool:
    return any(_flag(a) in flags for a in args)


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


def multirun_cfg_problem(args: list[str]) -> str | None:
    """The one line for ``--cfg`` given with ``-m``, else None."""
    if _has(args, CFG_FLAGS) and _has(args, MULTIRUN_FLAGS):
        return (
            "--cfg prints the config of one job, so it does not go with -m/--multirun; leave "
            "out -m and give each swept key one of its values (e.g. dataset=orl)"
        )
    return None


def _is_dry_run(args: list[str]) -> bool:
    """Whether every job of the command is a dry run (``dry_run=true``, swept or not)."""
    for override in parsed_overrides(args):
        if override.get_key_element().lstrip("+~") != "dry_run":
            continue
        values = (
            list(override.sweep_iterator()) if override.is_sweep_override() else [override.value()]
        )
        return bool(values) and all(str(v).lower() == "true" for v in values)
    return False


@contextlib.contextmanager
def dry_run_sweep_dir(args: list[str]) -> Iterator[list[str]]:
    """``args``, with Hydra's sweep folder sent to a temporary folder (removed at the end) when
    the command is a dry run with ``-m`` that does not choose the folder itself."""
    chosen = any(o.get_key_element().lstrip("+~") == _SWEEP_DIR for o in parsed_overrides(args))
    if chosen or not _has(args, MULTIRUN_FLAGS) or not _is_dry_run(args):
        yield args
        return
    folder = tempfile.mkdtemp(prefix="kmdr-dry-run-")
    try:
        quoted = "'" + folder.replace("'", "\\'") + "'"  # read as it is by Hydra's grammar
        yield [*args, f"{_SWEEP_DIR}={quoted}"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def prepared(args: list[str]) -> list[str]:
    """``args`` with ``--resolve`` added where ``--cfg`` prints a config (see the module
    docstring)."""
    if _has(args, CFG_FLAGS) and _RESOLVE not in args:
        return [_RESOLVE, *args]
    return args


def version_line() -> str:
    """``kmdr <version>``."""
    import kmdr

    return f"kmdr {kmdr.__version__}"
