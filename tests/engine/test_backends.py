"""Every joblib backend gives the same rows: loky, threading, multiprocessing, sequential, a real
dask cluster (the session's, at its address) and Ray (when installed). A backend that cannot
start is one line, and the run record says ``failed`` with the reason."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from _backends import needs_dask, needs_ray
from _cases import case
from _run_configs import run_alone, synth_run
from kmdr.config.schema import from_config
from kmdr.engine.backends import RunFailed, resolve_parallelism

#: The columns a cell's computation produces that must not depend on the backend.
VALUES = ["objective", "objective_reduced", "accuracy", "nmi", "ari", "n_iter", "seed"]


def config(results_dir, backend: str, **over):
    run_config = synth_run(
        results_dir,
        f"b_{backend}",
        (120, 30, 3),
        reducers=[
            {"name": "leverage"},
            {"name": "svd_approx"},
            {"name": "sign"},
            {"name": "none"},
            # Deterministic: one job per r reduces once for both repetitions; laplacian's
            # shared scores are computed once per worker process, not per repetition.
            {"name": "svd"},
            {"name": "laplacian"},
        ],
        r_grid=[3, 6],
        repeats=2,
        kmeans={"n_init": 2, "max_iter": 100},
        n_jobs=2,
        backend=backend,
    )
    return {**run_config, **over}


def rows(results_dir, backend: str, **over) -> pd.DataFrame:
    outcome = run_alone(*from_config(config(results_dir, backend, **over)))
    assert outcome.status == "complete" and outcome.n_computed == outcome.n_expected == 22
    cells = pd.read_csv(outcome.experiment_dir / "cells.csv")
    return cells.set_index("cell_id").sort_index()[VALUES]


@pytest.fixture(scope="module")
def loky_rows(tmp_path_factory):
    return rows(tmp_path_factory.mktemp("loky"), "loky")


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["threading", "multiprocessing", "sequential"])
def test_local_backends_give_loky_rows(tmp_path, loky_rows, backend):
    pd.testing.assert_frame_equal(rows(tmp_path, backend), loky_rows, check_exact=True)


@needs_dask
@pytest.mark.slow
def test_dask_connects_to_a_running_scheduler(tmp_path, loky_rows, scheduler):
    """The session's LocalCluster, at its address: the run connects, as to a remote scheduler,
    and its workers give loky's rows. (A run that starts a LocalCluster of its own, in a process
    of its own: tests/app/test_cli_sweeps.py's ``test_backend_dask_starts_a_local_cluster``.)"""
    got = rows(tmp_path, "dask", dask={"scheduler": scheduler})
    pd.testing.assert_frame_equal(got, loky_rows, check_exact=True)


@needs_ray
def test_ray_gives_loky_rows(tmp_path, loky_rows):
    pd.testing.assert_frame_equal(rows(tmp_path, "ray"), loky_rows, check_exact=True)


@pytest.mark.slow
@pytest.mark.parametrize(
    "says",
    [
        case(
            says="within 3 s (Dask's distributed.comm.timeouts.connect)",
            doing="run",
            cause="nothing answers at the dask.scheduler address (no scheduler there, or a "
            "firewall)",
            fix="start the scheduler (dask scheduler) or correct dask.scheduler=...; a slow "
            "network: DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=60s",
        )
    ],
)
def test_unreachable_dask_scheduler_is_one_line_and_a_failed_record(tmp_path, says):
    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")
    spec = from_config(config(tmp_path, "dask", dask={"scheduler": "tcp://127.0.0.1:9"}))
    # dask's own setting of the wait for a scheduler (30 s by default), as a user would set it
    with (
        dask.config.set({"distributed.comm.timeouts.connect": "3s"}),
        pytest.raises(RunFailed) as info,
    ):
        run_alone(*spec)
    assert says in str(info.value)
    assert "\n" not in str(info.value) and "127.0.0.1:9" in str(info.value)
    (record,) = (tmp_path / "b_dask" / "runs").glob("*.json")
    record = json.loads(record.read_text())
    assert record["status"] == "failed" and "127.0.0.1:9" in record["error"]


@pytest.mark.parametrize(
    ("cores", "launcher", "n_jobs", "blas", "expect"),
    [
        (8, 1, -1, 1, (8, 1)),  # all cores to one run, one thread per worker
        (8, 2, -1, 1, (4, 1)),  # two launcher jobs: half the cores each
        (8, 2, 2, 1, (2, 1)),  # never cores // (jobs x workers): the threads are the cell's
        (2, 1, 1, 1, (1, 1)),  # one worker does not get the idle core's thread either
        (2, 1, 1, 2, (1, 2)),  # more only when asked for (its cells have their own identity)
    ],
)
def test_workers_share_the_cores_and_threads_are_the_configs(
    monkeypatch, cores, launcher, n_jobs, blas, expect
):
    import joblib

    monkeypatch.setattr(joblib, "cpu_count", lambda *a, **k: cores)
    spec = from_config(config("unused", "loky", n_jobs=n_jobs, blas_threads=blas))
    par = resolve_parallelism(spec.execution, spec.experiment.blas_threads, launcher)
    assert (par.workers, spec.experiment.blas_threads) == expect


def test_blas_threads_defaults_to_one(tmp_path):
    cfg = config(tmp_path, "loky")
    del cfg["blas_threads"]
    assert from_config(cfg).experiment.blas_threads == 1


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="[kmdr] n_jobs=2 capped to 1: backend=sequential computes one cell at a time",
            doing="run",
            cause="joblib's sequential backend runs one job at a time, whatever n_jobs says",
            fix="use backend=loky for workers, or n_jobs=1",
            warning=True,
        )
    ],
)
def test_the_sequential_backend_is_one_job(monkeypatch, says):
    import joblib

    monkeypatch.setattr(joblib, "cpu_count", lambda *a, **k: 4)
    for n_jobs, requested in ((2, 2), (-1, None), (1, None)):
        spec = from_config(config("unused", "sequential", n_jobs=n_jobs))
        par = resolve_parallelism(spec.execution, spec.experiment.blas_threads)
        assert (par.workers, par.requested) == (1, requested)
        message = par.cap_message("sequential")
        assert (message is None) == (requested is None)
    assert message is None
    par = resolve_parallelism(from_config(config("unused", "sequential", n_jobs=2)).execution, 1)
    assert par.cap_message("sequential").startswith(says)


@pytest.mark.parametrize(
    ("backend", "over", "expect", "says"),
    [
        case(
            "loky", {}, (2, 8),
            says="[kmdr] n_jobs=8 capped to 2: backend=loky runs at most one worker per core here",
            doing="run",
            cause="n_jobs asks for more workers than the machine has cores: more would only "
            "contend for them",
            fix="n_jobs=-1 (one worker per core), or a smaller n_jobs",
            warning=True,
        ),
        ("threading", {}, (2, 8), "[kmdr] n_jobs=8 capped to 2: backend=threading"),
        ("dask", {}, (2, 8), "[kmdr] n_jobs=8 capped to 2: backend=dask"),  # a LocalCluster
        ("dask", {"dask": {"scheduler": "tcp://10.0.0.5:8786"}}, (8, None), None),  # as asked
        ("ray", {"ray": {"address": "auto"}}, (8, None), None),
    ],
)  # fmt: skip
def test_n_jobs_is_capped_to_the_cores_where_the_workers_run_here(
    monkeypatch, backend, over, expect, says
):
    import joblib

    monkeypatch.setattr(joblib, "cpu_count", lambda *a, **k: 2)
    spec = from_config(config("unused", backend, n_jobs=8, **over))
    par = resolve_parallelism(spec.execution, spec.experiment.blas_threads)
    assert (par.workers, par.requested) == expect
    message = par.cap_message(backend)
    assert message is None if says is None else message.startswith(says)
