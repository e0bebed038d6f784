"""On a real dask LocalCluster the data reach each worker once and never travel in a task
(joblib scatters them: :func:`kmdr.engine.sweep.compute_in_memory`): every graph the run sends
stays under :data:`PAYLOAD_LIMIT`, as dask itself measures graphs, the cells equal loky's bit for
bit, and the run prints no backend chatter."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest

from _backends import needs_dask, needs_ray
from _dask_graphs import graph_sizes
from _data import real_dataset
from _run_configs import run_alone
from kmdr.config.schema import from_config

pytestmark = [
    pytest.mark.slow,
    needs_dask,
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
    outcome = run_alone(*from_config(config), dataset=dataset)
    assert outcome.status == "complete" and outcome.n_computed == outcome.n_expected > 0
    cells = pd.read_csv(outcome.experiment_dir / "cells.csv")
    return cells.set_index("cell_id").sort_index()[VALUES]


def loky_rows(results_dir, data=None, **keys) -> pd.DataFrame:
    """Loky's rows, as the sequential backend computes them in this process (bit for bit the
    same: tests/engine/test_backends.py), without starting loky's workers for a reference."""
    return run_rows(run_config(results_dir, "sequential", **{**keys, "n_jobs": 1}), data)


ORL = {"name": "orl", "params": {}}
ORL_REDUCERS = [{"name": n} for n in ("leverage", "sign", "svd", "laplacian", "none")]


def test_orl_on_dask_sends_small_graphs_and_gives_loky_rows(tmp_path, scheduler):
    """ORL (400 x 4096, 12.5 MiB, from files: scattered) on 2 dask workers (the session's
    cluster)."""
    data = real_dataset("orl")
    keys = {"dataset": ORL, "reducers": ORL_REDUCERS, "r_grid": [5, 20], "repeats": 1}
    loky = loky_rows(tmp_path / "loky", data, **keys)
    with graph_sizes() as sizes:
        on_cluster = run_config(tmp_path / "dask", "dask", dask={"scheduler": scheduler}, **keys)
        got = run_rows(on_cluster, data)
    pd.testing.assert_frame_equal(got, loky, check_exact=True)
    assert sizes, "dask measured no graph: the measurement is broken"
    assert max(sizes) <= PAYLOAD_LIMIT, f"a graph of {max(sizes):,} bytes"


def test_one_dask_worker_gives_loky_rows(tmp_path, scheduler):
    """With one worker joblib runs the jobs in the run's own process, on the run's data."""
    data = real_dataset("orl")
    keys = {"dataset": ORL, "reducers": [{"name": "sign"}], "r_grid": [5], "n_jobs": 1}
    loky = run_rows(run_config(tmp_path / "loky", "loky", **keys), data)
    on_cluster = run_config(tmp_path / "dask", "dask", dask={"scheduler": scheduler}, **keys)
    got = run_rows(on_cluster, data)
    pd.testing.assert_frame_equal(got, loky, check_exact=True)


def test_the_measurement_sees_a_task_that_carries_orl(tmp_path, client):
    """The same measurement reports a job that carries the data itself (what a job did before
    the data went to the workers once): the limit would catch it."""
    from joblib import Parallel, delayed, parallel_config

    from kmdr.engine.work import prepare_data
    from kmdr.metrics import ObjectiveEvaluator

    objective = ObjectiveEvaluator(prepare_data(real_dataset("orl").X))
    with parallel_config(backend="dask", n_jobs=2, client=client), graph_sizes() as sizes:
        Parallel()(delayed(type)(objective) for _ in range(2))
    assert max(sizes) > 12 * 2**20


def sparse_text(n_samples: int) -> dict:
    return {"name": "sparse_text", "params": {"seed": 0, "n_samples": n_samples}}


def test_sparse_text_on_dask_sends_small_graphs_and_gives_loky_rows(tmp_path, scheduler):
    keys = {
        "dataset": sparse_text(3000),
        "reducers": [{"name": "sparse_embedding"}, {"name": "sign"}],
    }
    on_cluster = {"dask": {"scheduler": scheduler}, **keys}
    loky = loky_rows(tmp_path / "loky", **keys)
    with graph_sizes() as sizes:
        got = run_rows(run_config(tmp_path / "dask", "dask", **on_cluster))
    pd.testing.assert_frame_equal(got, loky, check_exact=True)
    assert sizes and max(sizes) <= PAYLOAD_LIMIT, f"a graph of {max(sizes, default=0):,} bytes"


def test_sparse_text_of_100000_rows_sends_small_graphs(tmp_path, scheduler):
    keys = {
        "dask": {"scheduler": scheduler},
        "dataset": sparse_text(100_000),
        "reducers": [{"name": "sparse_embedding"}],
        "r_grid": [10],
        "repeats": 1,
        "kmeans": {"n_init": 1, "max_iter": 5},
    }
    with graph_sizes() as sizes:
        run_rows(run_config(tmp_path, "dask", **keys))
    assert sizes and max(sizes) <= PAYLOAD_LIMIT, f"a graph of {max(sizes, default=0):,} bytes"


# backend=dask's run prints kmdr's lines only too: the suite's one kmdr process on dask,
# tests/app/test_cli_sweeps.py's test_backend_dask_starts_a_local_cluster (the graphs stay far
# below dask's large-graph warning: the tests above measure them).
@pytest.mark.parametrize(
    "backend",
    [
        pytest.param(
            "ray",
            marks=needs_ray,
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


# A scheduler and a nanny with two workers started as real commands, beside the session's own
# cluster: many processes, for what the README's commands start.
@pytest.mark.longhaul
def test_runs_on_a_scheduler_and_workers_started_as_the_readme_says(tmp_path):
    """``dask scheduler`` and ``dask worker <address> --nworkers 2 --nthreads 1`` as real
    processes (README, "Scaling out with Dask"; docs/guide/scaling.md, "One cell larger than
    memory"): a sweep at that address gives loky's rows, and so does one on row blocks
    (``block_rows``: every cell's blocks reduced by the workers, F within the chunked path's
    1e-12); every graph either sends is small."""
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

        with Client(address, timeout="60s") as client:  # both workers up before the runs
            client.wait_for_workers(2, timeout=120)
        on_cluster = {"dask": {"scheduler": address}, **keys}
        with graph_sizes() as sizes:
            got = run_rows(run_config(tmp_path / "dask", "dask", **on_cluster))
            blocks = run_rows(run_config(tmp_path / "blocks", "dask", block_rows=300, **on_cluster))
    finally:
        for proc in (worker, scheduler):
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=60)
    pd.testing.assert_frame_equal(got, loky, check_exact=True)
    # F on A and on C are formed from per-block sums (k-means runs on C's blocks): equal within
    # rounding; the partition and its scores are the in-memory ones exactly.
    rounded = ("objective", "objective_reduced")
    exact = [v for v in VALUES if v not in rounded]
    pd.testing.assert_frame_equal(blocks[exact], loky[exact], check_exact=True)
    for column in rounded:
        np.testing.assert_allclose(blocks[column], loky[column], rtol=1e-12, atol=0)
    assert sizes and max(sizes) <= PAYLOAD_LIMIT, f"a graph of {max(sizes, default=0):,} bytes"
