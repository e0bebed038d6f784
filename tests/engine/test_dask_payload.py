"""On a real dask LocalCluster the data reaches each worker once and never travels in a task
(:mod:`kmdr.engine.job_data`): every graph the run sends stays under :data:`PAYLOAD_LIMIT`, as dask
itself measures graphs, file data is scattered to every worker, generated data is generated on
each worker, the cells equal loky's bit for bit, and the run prints no backend chatter."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pandas as pd
import pytest

from _dask_graphs import graph_sizes
from _data import real_dataset
from kmdr.config.schema import from_config
from kmdr.engine.session import run_experiment

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("distributed") is None,
        reason="dask.distributed is not installed (pip install 'kmdr[dask]')",
    ),
]

#: The largest graph (all the tasks dask is sent at once, arguments included) a run may send.
PAYLOAD_LIMIT = 2**20
VALUES = ["objective", "objective_reduced", "accuracy", "nmi", "ari", "n_iter", "seed"]


def run_config(results_dir, backend: str, dataset: dict, **keys) -> dict:
    return {
        "name": f"p_{backend}",
        "dataset": dataset,
        "reducers": [{"name": "sign"}, {"name": "none"}],
        "r_grid": [10, 50],
        "repeats": 2,
        "kmeans": {"n_init": 1, "max_iter": 30},
        "n_jobs": 2,
        "blas_threads": 1,
        "backend": backend,
        "results_dir": str(results_dir),
        "figures": False,
        "progress": False,
        **keys,
    }


def run_rows(config: dict, dataset=None) -> pd.DataFrame:
    outcome = run_experiment(*from_config(config), dataset=dataset)
    assert outcome.status == "complete" and outcome.n_computed == outcome.n_expected > 0
    cells = pd.read_csv(outcome.experiment_dir / "cells.csv")
    return cells.set_index("cell_id").sort_index()[VALUES]


ORL = {"name": "orl", "params": {}}
ORL_REDUCERS = [{"name": n} for n in ("leverage", "sign", "svd", "laplacian", "none")]


def test_orl_on_dask_sends_small_graphs_and_gives_loky_rows(tmp_path):
    """ORL (400 x 4096, 12.5 MiB, from files: scattered) on 2 dask workers."""
    data = real_dataset("orl")
    keys = {"dataset": ORL, "reducers": ORL_REDUCERS, "r_grid": [5, 20]}
    loky = run_rows(run_config(tmp_path / "loky", "loky", **keys), data)
    with graph_sizes() as sizes:
        got = run_rows(run_config(tmp_path / "dask", "dask", **keys), data)
    pd.testing.assert_frame_equal(got, loky, check_exact=True)
    assert sizes, "dask measured no graph: the measurement is broken"
    assert max(sizes) <= PAYLOAD_LIMIT, f"a graph of {max(sizes):,} bytes"


def test_one_dask_worker_gives_loky_rows(tmp_path):
    """With one worker thread joblib runs the jobs in the run's own process: they take the run's
    data from memory (neither a scattered future nor a second generation)."""
    data = real_dataset("orl")
    keys = {"dataset": ORL, "reducers": [{"name": "sign"}], "r_grid": [5], "n_jobs": 1}
    loky = run_rows(run_config(tmp_path / "loky", "loky", **keys), data)
    got = run_rows(run_config(tmp_path / "dask", "dask", **keys), data)
    pd.testing.assert_frame_equal(got, loky, check_exact=True)


def test_the_measurement_sees_a_task_that_carries_orl(tmp_path):
    """The same measurement reports a job that carries the data itself (what a job did before
    the data went to the workers once): the limit would catch it."""
    from dask.distributed import Client, LocalCluster
    from joblib import Parallel, delayed, parallel_config

    from kmdr.engine.job_data import prepare_data
    from kmdr.metrics import ObjectiveEvaluator

    objective = ObjectiveEvaluator(prepare_data(real_dataset("orl").X))
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster,
        Client(cluster),
        parallel_config(backend="dask", n_jobs=2),
        graph_sizes() as sizes,
    ):
        Parallel()(delayed(type)(objective) for _ in range(2))
    assert max(sizes) > 12 * 2**20


def sparse_text(n_samples: int) -> dict:
    return {"name": "sparse_text", "params": {"seed": 0, "n_samples": n_samples}}


def test_sparse_text_on_dask_is_generated_by_the_workers_and_gives_loky_rows(tmp_path):
    keys = {
        "dataset": sparse_text(3000),
        "reducers": [{"name": "sparse_embedding"}, {"name": "sign"}],
    }
    loky = run_rows(run_config(tmp_path / "loky", "loky", **keys))
    with graph_sizes() as sizes:
        got = run_rows(run_config(tmp_path / "dask", "dask", **keys))
    pd.testing.assert_frame_equal(got, loky, check_exact=True)
    assert sizes and max(sizes) <= PAYLOAD_LIMIT, f"a graph of {max(sizes, default=0):,} bytes"


def test_sparse_text_of_100000_rows_sends_small_graphs(tmp_path):
    keys = {
        "dataset": sparse_text(100_000),
        "reducers": [{"name": "sparse_embedding"}],
        "r_grid": [10],
        "repeats": 1,
        "kmeans": {"n_init": 1, "max_iter": 5},
    }
    with graph_sizes() as sizes:
        run_rows(run_config(tmp_path, "dask", **keys))
    assert sizes and max(sizes) <= PAYLOAD_LIMIT, f"a graph of {max(sizes, default=0):,} bytes"


def test_file_data_is_scattered_to_every_worker_and_generated_data_is_not_sent(tmp_path):
    """The rule of kmdr.engine.job_data, on a real cluster: ORL goes to both workers once (one
    future held by each), sparse_text is generated by the worker, with the run's content."""
    import numpy as np
    from dask.distributed import Client, LocalCluster

    from kmdr.datasets import load_dataset
    from kmdr.datasets._fingerprint import content_fingerprint
    from kmdr.engine.job_data import DataCache, prepare_data, shipped
    from kmdr.engine.session import forget_worker_data

    def content(data, payload):
        X, y, _ = data.resolve(payload, DataCache())
        return content_fingerprint(X, y)

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster,
        Client(cluster) as client,
    ):
        workers = sorted(client.scheduler_info()["workers"])
        for dataset, source in ((ORL, "scattered"), (sparse_text(500), "generate")):
            spec = from_config(run_config(tmp_path, "dask", dataset))
            if dataset is ORL:
                loaded = real_dataset("orl")
            else:
                loaded = load_dataset(
                    spec.experiment.dataset.name, **spec.experiment.dataset.params
                )
            X, y = prepare_data(loaded.X), np.asarray(loaded.y)
            ship = shipped(
                spec.experiment,
                spec.execution,
                X,
                y,
                loaded.fingerprint,
                DataCache(),
                forget_worker_data,
            )
            with ship as (data, payload):
                assert data.source == source
                if source == "scattered":
                    assert sorted(client.who_has([payload])[payload.key]) == workers
                else:
                    assert payload is None and len(str(data)) < 1000
                for worker in workers:
                    got = client.submit(content, data, payload, workers=[worker], pure=False)
                    assert got.result() == content_fingerprint(X, y)


@pytest.mark.fault(
    "a dask or Ray worker generates the run's synthetic data with other content (other numpy, "
    "scipy or kmdr versions than the run's process)",
    gets="one line naming the dataset, both contents and the fix (the same versions)",
)
def test_a_worker_generating_other_data_is_one_line():
    from kmdr.engine.job_data import DataCache, WorkerData, WorkerDataError

    ref = WorkerData("generator:test", "generate", content="content:0", dataset="synth")
    with pytest.raises(WorkerDataError) as info:
        ref.resolve(None, DataCache())
    assert "\n" not in str(info.value) and "content:0" in str(info.value)
    assert "'synth'" in str(info.value) and "same versions" in str(info.value)


@pytest.mark.parametrize(
    "backend",
    [
        "dask",
        pytest.param(
            "ray",
            marks=pytest.mark.skipif(
                importlib.util.find_spec("ray") is None,
                reason="ray is not installed (pip install 'kmdr[ray]')",
            ),
        ),
    ],
)
def test_a_cluster_run_prints_only_kmdr_lines(tmp_path, backend):
    """No large-graph warning, no worker start-up chatter, no library notice: stderr holds kmdr's
    own lines only."""
    real_dataset("orl")  # or skip, with kmdr's reason
    command = [
        sys.executable,
        "-m",
        "kmdr.app",
        "experiment=bzmd14_orl",
        "r_grid=[5,20]",
        "repeats=1",
        "kmeans.n_init=1",
        "kmeans.max_iter=50",
        f"backend={backend}",
        "n_jobs=2",
        f"results_dir={tmp_path}",
        "figures=false",
        "progress=false",
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=600, env={**os.environ}, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines and all(line.startswith("[kmdr]") for line in lines), done.stderr[-3000:]


def _dask_cli(log, *args: str) -> subprocess.Popen:
    """``dask <args>`` as a real process in its own session, its log written to ``log``."""
    dask = os.path.join(os.path.dirname(sys.executable), "dask")
    with open(log, "w") as out:
        return subprocess.Popen(
            [dask, *args], stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def _address(log, proc: subprocess.Popen) -> str:
    """The address the scheduler writing ``log`` says it listens on."""
    import time

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        for line in log.read_text().splitlines():
            if "Scheduler at:" in line:
                return line.split("Scheduler at:")[1].strip()
        time.sleep(0.1)
    raise AssertionError(f"dask scheduler never said its address:\n{log.read_text()[-2000:]}")


def test_a_run_on_a_scheduler_and_workers_started_as_the_readme_says(tmp_path):
    """``dask scheduler`` and ``dask worker <address> --nworkers 2 --nthreads 1`` as real
    processes (README, "Scaling out with Dask"): the run at that address gives loky's rows,
    with every graph small and the data generated on the workers."""
    keys = {"dataset": sparse_text(2000), "reducers": [{"name": "sparse_embedding"}]}
    loky = run_rows(run_config(tmp_path / "loky", "loky", **keys))
    scheduler = _dask_cli(
        tmp_path / "scheduler.log", "scheduler", "--host", "127.0.0.1", "--port", "0",
        "--no-dashboard",
    )  # fmt: skip
    worker = None
    try:
        address = _address(tmp_path / "scheduler.log", scheduler)
        worker = _dask_cli(
            tmp_path / "worker.log", "worker", address, "--nworkers", "2", "--nthreads", "1"
        )
        from dask.distributed import Client

        with Client(address, timeout="60s") as client:  # both workers up before the run
            client.wait_for_workers(2, timeout=120)
        with graph_sizes() as sizes:
            got = run_rows(
                run_config(tmp_path / "dask", "dask", dask={"scheduler": address}, **keys)
            )
    finally:
        for proc in (worker, scheduler):
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=60)
    pd.testing.assert_frame_equal(got, loky, check_exact=True)
    assert sizes and max(sizes) <= PAYLOAD_LIMIT, f"a graph of {max(sizes, default=0):,} bytes"


def test_a_chunked_run_on_a_scheduler_and_workers_gives_the_in_memory_rows(tmp_path):
    """``block_rows`` on ``dask scheduler`` and ``dask worker`` processes (docs/guide/scaling.md,
    "One cell larger than memory"): every cell's blocks are reduced by the workers, the rows
    are loky's in-memory rows (F within the chunked path's 1e-12), and every graph is small."""
    import numpy as np

    keys = {
        "dataset": sparse_text(2000),
        "reducers": [{"name": "sparse_embedding"}, {"name": "sign"}],
        "r_grid": [10],
        "repeats": 1,
    }
    loky = run_rows(run_config(tmp_path / "loky", "loky", **keys))
    scheduler = _dask_cli(
        tmp_path / "scheduler.log", "scheduler", "--host", "127.0.0.1", "--port", "0",
        "--no-dashboard",
    )  # fmt: skip
    worker = None
    try:
        address = _address(tmp_path / "scheduler.log", scheduler)
        worker = _dask_cli(
            tmp_path / "worker.log", "worker", address, "--nworkers", "2", "--nthreads", "1"
        )
        from dask.distributed import Client

        with Client(address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
        config = run_config(
            tmp_path / "dask", "dask", dask={"scheduler": address}, block_rows=300, **keys
        )
        with graph_sizes() as sizes:
            got = run_rows(config)
    finally:
        for proc in (worker, scheduler):
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=60)
    # F on A and on C are formed from per-block sums (k-means runs on C's blocks): equal within
    # rounding; the partition and its scores are the in-memory ones exactly.
    rounded = ("objective", "objective_reduced")
    exact = [v for v in VALUES if v not in rounded]
    pd.testing.assert_frame_equal(got[exact], loky[exact], check_exact=True)
    for column in rounded:
        np.testing.assert_allclose(got[column], loky[column], rtol=1e-12, atol=0)
    assert sizes and max(sizes) <= PAYLOAD_LIMIT, f"a graph of {max(sizes, default=0):,} bytes"
