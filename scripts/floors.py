"""Write pip constraints that pin every direct dependency at its declared floor.

    python scripts/floors.py [--extras dev,dask,...] [-o requirements/floors.txt]

Reads pyproject.toml's ``dependencies`` (and the optional dependencies of the extras asked for)
and writes one ``name==floor`` line per requirement, the floor being its ``>=`` bound; a
requirement without one is an error (a floor nobody states is a floor nobody tests).
``make test-floors`` installs kmdr with these constraints into a separate virtual environment and
runs the fast tests there, so the floors pyproject.toml declares are floors that work.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import tomllib
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def requirements(pyproject: Path, extras: list[str]) -> list[Requirement]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    reqs = [Requirement(r) for r in project["dependencies"]]
    optional = project.get("optional-dependencies", {})
    unknown = [e for e in extras if e not in optional]
    if unknown:
        raise SystemExit(f"floors.py: unknown extras {unknown}; pyproject has {sorted(optional)}")
    for extra in extras:
        reqs += [Requirement(r) for r in optional[extra]]
    return reqs


def floor(req: Requirement) -> str:
    """The version of ``req``'s ``>=`` bound."""
    bounds = [spec.version for spec in req.specifier if spec.operator == ">="]
    if len(bounds) != 1:
        raise SystemExit(f"floors.py: {req} has no single '>=' floor; declare one in pyproject")
    return bounds[0]


def constraints(reqs: list[Requirement]) -> list[str]:
    """``name==floor`` per requirement (a package asked for twice keeps its highest floor)."""
    from packaging.utils import canonicalize_name
    from packaging.version import Version

    floors: dict[str, str] = {}
    for req in reqs:
        name = canonicalize_name(req.name)
        if name not in floors or Version(floor(req)) > Version(floors[name]):
            floors[name] = floor(req)
    return [f"{name}=={version}" for name, version in sorted(floors.items())]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extras", default="", help="comma-separated extras to pin as well")
    parser.add_argument("-o", "--output", default="-", help="file to write (default: stdout)")
    args = parser.parse_args(argv)
    extras = [e for e in args.extras.split(",") if e]
    lines = constraints(requirements(ROOT / "pyproject.toml", extras))
    text = "".join(f"{line}\n" for line in lines)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
