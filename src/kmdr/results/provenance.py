"""Where a run's numbers came from: run ids, timestamps, package versions, the code revision.

The run record (``runs/<run_id>.json``, docs/results-layout.md) starts from :func:`run_record`
and is completed by the runner and the experiment kind.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import subprocess
import sys
import uuid
from pathlib import Path

#: What decides a run's numbers, relative to the repository root: "dirty" means uncommitted
#: changes here. Results folders are outputs (a reproduction rewrites the committed ones), so
#: their changes do not count.
CODE_PATHS = ("src", "conf", "scripts", "pyproject.toml")


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=True
    ).stdout.strip()


def code_revision() -> dict:
    """``{"revision": full hash, "dirty": bool}`` of this package's checkout (None when not one)."""
    here = Path(__file__).resolve().parent
    try:
        top, rev = _git("rev-parse", "--show-toplevel", "HEAD", cwd=here).splitlines()
        top = Path(top)
        dirty = _git("status", "--porcelain", "--untracked-files=no", "--", *CODE_PATHS, cwd=top)
        return {"revision": rev, "dirty": bool(dirty)}
    except (OSError, subprocess.SubprocessError):
        return {"revision": None, "dirty": None}


#: Packages whose versions can change a run's numbers or outputs: the name a record gives each
#: (its import name) and the distribution that installs it. A package the process has not
#: imported is read from its installed distribution's metadata, so that recording the versions
#: imports none of them (scikit-learn and matplotlib alone take seconds to import in a process
#: that would not otherwise need them).
_PACKAGES = {
    "kmdr": "kmdr",
    "numpy": "numpy",
    "scipy": "scipy",
    "sklearn": "scikit-learn",
    "pandas": "pandas",
    "joblib": "joblib",
    "threadpoolctl": "threadpoolctl",
    "hydra": "hydra-core",
    "omegaconf": "omegaconf",
    "matplotlib": "matplotlib",
}


def now() -> str:
    """The current UTC time, ISO 8601 with milliseconds."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


def new_run_id() -> str:
    """A unique, time-sortable run id (``20261122T010203Z-1a2b3c``)."""
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{uuid.uuid4().hex[:6]}"


def versions(blas: list[dict] | None = None) -> dict:
    """Python, platform, the versions of :data:`_PACKAGES` and the BLAS libraries loaded
    (``blas``: threadpoolctl's ``threadpool_info()`` when the caller has it)."""
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version(), "platform": platform.platform()}
    for name, distribution in _PACKAGES.items():
        # A module this process imported says its version itself; reading the metadata
        # scans the installed distributions (half a millisecond each, per run in a notebook).
        imported = getattr(sys.modules.get(name), "__version__", None)
        try:
            out[name] = imported if isinstance(imported, str) else version(distribution)
        except PackageNotFoundError:  # a missing optional package is just not recorded
            out[name] = None
    try:
        if blas is None:
            from threadpoolctl import threadpool_info

            blas = threadpool_info()
        out["blas"] = [
            {k: i.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
            for i in blas
        ]
    except Exception:
        pass
    return out


def run_record(
    experiment, execution, output, run_id: str, parallelism, blas=None, config_files=None
) -> dict:
    """The run record as it stands when a run starts (status ``running``): ``experiment``,
    ``execution`` and ``output`` are the run's objects (:mod:`kmdr.config.schema`), kept under
    ``spec`` and, for the readers of older records (which kept the composed Hydra config there),
    under ``config`` too; ``blas``: as for :func:`versions`; ``config_files``: the file of each
    option a config folder of the user's own (``-cd``) supplied in place of kmdr's, by group
    (the command line's task tells, :func:`kmdr.app.compose.users_files`)."""
    from kmdr.config.schema import spec_of

    spec = spec_of(experiment, execution, output)
    return {
        "experiment": experiment.name,
        "run_id": run_id,
        "kind": experiment.kind,
        "status": "running",
        "started_at": now(),
        "finished_at": None,
        "config": spec,
        "spec": spec,
        "config_files": dict(config_files or {}),
        "versions": versions(blas),
        "cpu_count": parallelism.cores,
        "os_cpu_count": os.cpu_count(),
        **parallelism.record,
        "blas_threads": experiment.blas_threads,
        "launcher_jobs": parallelism.launcher_jobs,
        "backend": execution.backend,
        "git": code_revision(),
        "argv": sys.argv,
        "skipped": None,
    }
