"""Where a run's numbers came from: run ids, timestamps, package versions, the code revision.

The run record (``runs/<run_id>.json``, docs/results-layout.md) starts from :func:`run_record`
and is completed by the runner and the experiment kind.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import os
import platform
import sys
import uuid

from kmdr._git import code_revision

__all__ = ["new_run_id", "now", "run_record", "versions"]

#: Packages whose versions can change a run's numbers or outputs.
_PACKAGES = (
    "kmdr",
    "numpy",
    "scipy",
    "sklearn",
    "pandas",
    "joblib",
    "threadpoolctl",
    "hydra",
    "omegaconf",
    "matplotlib",
)


def now() -> str:
    """The current UTC time, ISO 8601 with milliseconds."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


def new_run_id() -> str:
    """A unique, time-sortable run id (``20261122T010203Z-1a2b3c``)."""
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{uuid.uuid4().hex[:6]}"


def versions() -> dict:
    """Python, platform, the versions of :data:`_PACKAGES` and the BLAS libraries loaded."""
    out = {"python": platform.python_version(), "platform": platform.platform()}
    for mod in _PACKAGES:
        try:
            out[mod] = importlib.import_module(mod).__version__
        except Exception:  # a missing optional package is just not recorded
            out[mod] = None
    try:
        from threadpoolctl import threadpool_info

        out["blas"] = [
            {k: i.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
            for i in threadpool_info()
        ]
    except Exception:
        pass
    return out


def run_record(
    experiment, execution, output, run_id: str, config: dict | None, parallelism
) -> dict:
    """The run record as it stands when a run starts (status ``running``): ``experiment``,
    ``execution`` and ``output`` are the run's :mod:`kmdr.config.objects`, kept flat under
    ``spec``."""
    from kmdr.config.objects import flat_dict

    spec = flat_dict(experiment, execution, output)
    return {
        "experiment": experiment.name,
        "run_id": run_id,
        "kind": experiment.kind,
        "status": "running",
        "started_at": now(),
        "finished_at": None,
        "config": config if config is not None else spec,
        "spec": spec,
        "versions": versions(),
        "cpu_count": parallelism.cores,
        "os_cpu_count": os.cpu_count(),
        "n_jobs": parallelism.n_jobs,
        "blas_threads": experiment.blas_threads,
        "launcher_jobs": parallelism.launcher_jobs,
        "backend": execution.backend,
        "git": code_revision(),
        "argv": sys.argv,
        "skipped": None,
    }
