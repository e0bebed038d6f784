"""The worker pool started early: warm-up, reuse by the run, no-op where it does not
apply. No timing assertions (timings belong in scripts/bench_*.py)."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest
from joblib import Parallel, delayed

from kmdr.engine import parallel
from kmdr.engine.parallel import (
    Parallelism,
    backend_session,
    resolve_parallelism,
    start_workers,
    wait_for_workers,
)


def _spec(**over):
    base = {"backend": "loky", "backend_params": {}, "dry_run": False, "n_jobs": 2}
    base.update(over)
    return SimpleNamespace(**base)


def _par(n_jobs: int = 2) -> Parallelism:
    return Parallelism(n_jobs=n_jobs, blas_threads=1, launcher_jobs=1, cores=os.cpu_count() or 1)


@pytest.fixture(autouse=True)
def _no_leftover_warmup(monkeypatch):
    wait_for_workers()  # a warm-up from an earlier test must not overlap this one's jobs
    monkeypatch.setattr(parallel, "_WARMUP", None)
    yield
    wait_for_workers()


def _pid(_):
    return os.getpid()


def test_warm_workers_are_the_ones_the_run_uses():
    # joblib does not promise which worker takes which job (one fast worker may take both
    # warm-up jobs), so the test checks what matters: the pool of 2 is never restarted, i.e. no
    # process other than those 2 ever answers, from the warm-up through two runs.
    spec, par = _spec(), _par(2)
    start_workers(spec, par)
    warm = wait_for_workers()
    assert warm and os.getpid() not in warm
    with backend_session(spec, par):
        used = set(Parallel()(delayed(_pid)(i) for i in range(8)))
    # a second run with the same pool arguments starts nothing new and reuses the same workers
    start_workers(spec, par)
    assert wait_for_workers() == warm
    with backend_session(spec, par):
        used |= set(Parallel()(delayed(_pid)(i) for i in range(8)))
    seen = used | set(warm)
    assert len(seen) <= 2 and os.getpid() not in seen


@pytest.mark.parametrize(
    "spec, n_jobs",
    [
        (_spec(backend="threading"), 2),
        (_spec(backend="multiprocessing"), 2),
        (_spec(backend="sequential"), 2),
        (_spec(), 1),
        (_spec(dry_run=True), 2),
    ],
)
def test_no_warmup_where_it_does_not_apply(spec, n_jobs):
    start_workers(spec, _par(n_jobs))
    assert parallel._WARMUP is None and wait_for_workers() == []


def test_workers_start_from_the_checked_spec():
    """The app and make reproduce start the warm workers from the run's spec: its backend, its
    n_jobs with the quick grid merged; a config whose n_jobs is invalid never gets that far."""
    from kmdr.config.errors import ConfigError
    from kmdr.config.spec import spec_from_config

    base = {"dataset": {"name": "synth"}, "reducers": [{"name": "sign"}]}
    spec = spec_from_config({**base, "n_jobs": 1, "backend": "threading", "backend_params": {}})
    assert spec.backend == "threading" and resolve_parallelism(spec).n_jobs == 1
    quick = {"quick": True, "n_jobs": 1, "quick_grid": {"n_jobs": 2}, "backend": "loky"}
    assert resolve_parallelism(spec_from_config({**base, **quick})).n_jobs == 2
    for bad in (0, "many"):  # the spec's own checks report it, before any worker starts
        with pytest.raises(ConfigError, match="n_jobs"):
            spec_from_config({**base, "n_jobs": bad})
