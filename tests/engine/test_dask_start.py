"""The run's dask LocalCluster (:mod:`kmdr.engine.clusters`): started in the background while
the run loads its data, taken over by the run's session, closed when the run ends before using
it; its workers warm (the modules cells need imported), ignoring Ctrl-C (the run's process
closes them) and spawned without distributed's ``MALLOC_TRIM_THRESHOLD_``; no worker process
outlives the run."""

from __future__ import annotations

import importlib.util
import logging
import sys
import threading

import pytest

from _run_configs import synth_run
from kmdr.config.errors import ConfigError
from kmdr.config.schema import from_config
from kmdr.engine import clusters
from kmdr.engine.parallel import WORKER_MODULES
from kmdr.engine.session import Session, run_experiment

needs_dask = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None,
    reason="dask.distributed is not installed (pip install 'kmdr[dask]')",
)


def config(results_dir, **keys) -> dict:
    run = {
        "reducers": [{"name": "sign"}, {"name": "none"}],
        "r_grid": [3],
        "repeats": 2,
        "kmeans": {"n_init": 1, "max_iter": 20},
        "n_jobs": 2,
        "backend": "dask",
    }
    return synth_run(results_dir, "early", (60, 12, 3), **{**run, **keys})


@pytest.fixture
def made(monkeypatch):
    """Every LocalCluster kmdr makes, with the thread that made it and its worker processes."""
    made: list[dict] = []
    real = clusters.local_cluster

    def recording(distributed, n_workers):
        cluster = real(distributed, n_workers)
        pids = [nanny.pid for nanny in cluster.workers.values()]
        made.append({"cluster": cluster, "thread": threading.current_thread().name, "pids": pids})
        return cluster

    monkeypatch.setattr(clusters, "local_cluster", recording)
    yield made
    for entry in made:  # whatever a failing test left
        entry["cluster"].close()


def assert_gone(entry: dict) -> None:
    import psutil

    assert entry["cluster"].status.name == "closed"
    assert entry["pids"] and all(pid is not None for pid in entry["pids"])
    alive = [pid for pid in entry["pids"] if psutil.pid_exists(pid)]
    assert not alive, f"worker processes {alive} outlived the run"


@needs_dask
@pytest.mark.slow
def test_a_run_takes_over_the_cluster_started_while_its_data_loads(tmp_path, made):
    outcome = run_experiment(*from_config(config(tmp_path)))
    assert outcome.status == "complete" and outcome.n_computed == outcome.n_expected == 4
    (entry,) = made  # one cluster, started in the background and used by the session
    assert entry["thread"] == "kmdr-start-cluster"
    assert_gone(entry)


@needs_dask
@pytest.mark.slow
@pytest.mark.fault(
    "a dask run whose LocalCluster is already starting ends before using it (a config the data "
    "rejects, a dataset that cannot be obtained)",
    gets="the cluster is closed and its worker processes have exited when the run returns",
)
@pytest.mark.parametrize("ending", ["config error", "dataset unavailable"])
def test_a_cluster_started_early_is_closed_when_the_run_ends_before_using_it(
    tmp_path, made, ending
):
    from kmdr.datasets import DatasetUnavailable

    if ending == "config error":  # r = 50 > d = 12: rejected once the data is loaded
        with pytest.raises(ConfigError, match="too large"):
            bad = config(tmp_path, reducers=[{"name": "svd"}], r_grid=[50])
            run_experiment(*from_config(bad))
    else:
        unavailable = DatasetUnavailable("synth: not here")
        outcome = run_experiment(*from_config(config(tmp_path)), dataset=unavailable)
        assert outcome.status == "skipped"
    (entry,) = made
    assert entry["thread"] == "kmdr-start-cluster"
    assert_gone(entry)


@needs_dask
@pytest.mark.fault(
    "a backend=dask run whose cells are all computed already (a sweep run again)",
    gets="every cell reused and no cluster started, in the background or at the run's start "
    "(once a LocalCluster was started and closed for nothing)",
)
def test_a_run_that_reuses_every_cell_starts_no_cluster(tmp_path, monkeypatch):
    first = run_experiment(*from_config(config(tmp_path, backend="sequential", n_jobs=1)))
    assert first.n_computed == first.n_expected == 4

    def fail(*args):
        raise AssertionError("a LocalCluster was started")

    monkeypatch.setattr(clusters, "local_cluster", fail)
    again = run_experiment(*from_config(config(tmp_path)))
    assert again.status == "complete" and again.n_reused == again.n_expected == 4


@needs_dask
@pytest.mark.slow
def test_local_cluster_workers_are_warm_ignore_ctrl_c_and_lack_malloc_trim(monkeypatch):
    import os

    import distributed

    # As an earlier cluster in this process leaves it (distributed writes its nannies'
    # pre-spawn environment into os.environ): the workers must not inherit it, and starting the
    # cluster must leave this process's environment as it found it.
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    before = dict(os.environ)

    def worker_state():
        import os
        import signal

        modules = [m in sys.modules for m in WORKER_MODULES]
        ctrl_c = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        return os.environ.get("MALLOC_TRIM_THRESHOLD_"), modules, ctrl_c

    cluster = clusters.local_cluster(distributed, 2)
    try:
        assert dict(os.environ) == before
        pids = [nanny.pid for nanny in cluster.workers.values()]
        with distributed.Client(cluster) as client:
            states = list(client.run(worker_state).values())
    finally:
        cluster.close()
    assert states == [(None, [True] * len(WORKER_MODULES), True)] * 2
    assert_gone({"cluster": cluster, "pids": pids})


@pytest.mark.parametrize(
    "over",
    [
        {"backend": "loky"},
        {"dask": {"scheduler": "tcp://127.0.0.1:9"}},  # a remote cluster: nothing to start
        {"dry_run": True},
    ],
)
def test_nothing_is_started_early_but_a_local_cluster_for_a_run(tmp_path, monkeypatch, over):
    def fail(*args):
        raise AssertionError("a LocalCluster was started")

    monkeypatch.setattr(clusters, "local_cluster", fail)
    spec = from_config({**config(tmp_path), **over})
    with Session(spec.execution) as session:
        session.prepare(spec.experiment, spec.output)
        assert session._cluster is None


def test_overlapping_library_logs_blocks_restore_the_level_after_the_last(monkeypatch):
    """A cluster starting in the background and the session that takes it over quiet the same
    loggers in overlapping blocks: the level comes back when the last one ends, not before."""
    logger = logging.getLogger("kmdr-test-library")
    monkeypatch.setattr(logger, "level", logging.INFO)
    logs = clusters.LibraryLogs()
    first = logs.quiet("kmdr-test-library")
    second = logs.quiet("kmdr-test-library")
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert logger.level == logging.ERROR
    second.__exit__(None, None, None)
    assert logger.level == logging.INFO
