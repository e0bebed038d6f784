"""A cell is computed with the BLAS/OpenMP threads of its identity (``blas_threads``, default 1),
whatever ``n_jobs``, the backend or the machine's cores: the same command gives the same numbers
with one worker or two, every library (also one loaded during the run, also OpenMP in a
threading-backend worker thread) runs that many threads, and the run's process gets its own
thread counts back after the run.

The data is chosen thread-sensitive: on Synth 300 x 400, the SVD and the sign projection at r = 9
differ in their last bits between one and two OpenBLAS threads (as on ORL, COIL20 and
sparse_text), which ``objective_reduced`` shows."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import pandas as pd
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from _cases import case
from _run_configs import run_alone, synth_run
from kmdr._io import read_csv
from kmdr.config.schema import from_config
from kmdr.engine import work
from kmdr.results.records import RESULT_COLUMNS


def config(results_dir, **over) -> dict:
    cfg = synth_run(
        results_dir,
        "threads",
        (300, 400, 5),
        reducers=[{"name": "svd"}, {"name": "sign"}],
        r_grid=[9],
        repeats=1,
        kmeans={"n_init": 1, "max_iter": 50},
    )
    del cfg["blas_threads"]  # the default
    return {**cfg, **over}


def run(results_dir, **over) -> pd.DataFrame:
    outcome = run_alone(*from_config(config(results_dir, **over)))
    assert outcome.status == "complete" and outcome.n_computed == 2
    cells = read_csv(outcome.experiment_dir / "cells.csv")  # floats read back exactly
    return cells.set_index("cell_id").sort_index()


def test_one_worker_or_two_give_the_same_cells(tmp_path):
    one = run(tmp_path / "one", n_jobs=1)
    two = run(tmp_path / "two", n_jobs=2)
    assert list(one.index) == list(two.index)  # the same cells (ids)
    columns = list(RESULT_COLUMNS)
    pd.testing.assert_frame_equal(one[columns], two[columns], check_exact=True)
    assert (one["blas_threads"] == 1).all() and (two["blas_threads"] == 1).all()


def _threads_seen_by_cells(monkeypatch) -> list[dict]:
    """Record, in each cell's own thread, every library's thread count while it reduces."""
    seen = []
    reduce = work._reduce

    def probe(cell, *args):
        seen.append({i["filepath"]: i["num_threads"] for i in threadpool_info()})
        return reduce(cell, *args)

    monkeypatch.setattr(work, "_reduce", probe)
    return seen


@pytest.mark.parametrize(
    ("over", "threads"),
    [
        ({"n_jobs": 1}, 1),
        ({"n_jobs": 1, "blas_threads": 2}, 2),
        # joblib's worker threads: OpenMP's count is per thread, the main thread's is not theirs
        ({"n_jobs": 2, "backend": "threading"}, 1),
    ],
    ids=["sequential", "sequential-2-threads", "threading"],
)
def test_every_library_runs_the_cells_threads_in_the_runs_process(
    tmp_path, monkeypatch, over, threads
):
    seen = _threads_seen_by_cells(monkeypatch)
    # Every pool loaded first, whatever ran before in this process (one loaded during the run
    # is given its library's default back: test_libraries_loaded_after_the_limit_still_get_it).
    importlib.import_module("scipy.linalg")
    importlib.import_module("sklearn.cluster")
    with threadpool_limits(limits=3):  # whatever the process had: the run sets its own
        before = {i["filepath"]: i["num_threads"] for i in threadpool_info()}
        run(tmp_path, **over)
        after = {i["filepath"]: i["num_threads"] for i in threadpool_info()}
    assert len(seen) == 2
    for counts in seen:
        assert any("openblas" in path for path in counts), counts
        assert set(counts.values()) == {threads}, counts
    assert after == before  # given back after the run


def _fresh_process(context: str, first: str = "pass", setup: str = "") -> tuple[dict, dict]:
    """In a fresh process where only numpy is loaded (and no thread variable is set) before
    ``setup`` runs: every library's thread count inside ``context`` once ``first`` ran and
    scipy.linalg and sklearn.cluster are imported in it, and after it."""
    code = (
        "import contextlib, json, numpy\n"
        "from threadpoolctl import threadpool_info\n"
        f"{setup}\n"
        f"with {context}:\n"
        f"    {first}\n"
        "    import scipy.linalg, sklearn.cluster\n"
        "    inside = {i['filepath']: i['num_threads'] for i in threadpool_info()}\n"
        "after = {i['filepath']: i['num_threads'] for i in threadpool_info()}\n"
        "print(json.dumps([inside, after]))\n"
    )
    names = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"}
    env = {k: v for k, v in os.environ.items() if k not in names}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    inside, after = json.loads(proc.stdout)
    return inside, after


def test_libraries_loaded_after_the_limit_still_get_it():
    # threadpoolctl limits only what is loaded: a job's pin, made when only numpy is, must still
    # reach scipy's OpenBLAS and scikit-learn's OpenMP, which a reducer loads later, and the run
    # gives each its count back after.
    defaults, _ = _fresh_process("contextlib.nullcontext()")
    setup = "from kmdr.engine.worker import ProcessState; pools = ProcessState()"
    inside, after = _fresh_process("pools.threads(1)", setup=setup)
    assert len(inside) >= 3, inside  # numpy's and scipy's OpenBLAS, scikit-learn's OpenMP
    assert set(inside.values()) == {1}, inside
    assert after == defaults


@pytest.mark.parametrize(
    ("cores", "launcher_jobs", "over", "n_jobs", "says"),
    [
        (4, 1, {"n_jobs": -1, "blas_threads": 2}, 2, None),  # -1: the workers that fit
        (2, 1, {"n_jobs": -1, "blas_threads": 2}, 1, None),
        (4, 2, {"n_jobs": -1, "blas_threads": 2}, 1, None),  # a launcher's share of the cores
        (8, 1, {"n_jobs": -2, "blas_threads": 2}, 3, None),
        (2, 1, {"n_jobs": 2}, 2, None),  # one thread per worker: never more than the cores
        (2, 1, {"n_jobs": 2, "blas_threads": 2}, 2, "use n_jobs=1 (or -1)"),
        (2, 1, {"n_jobs": -1, "blas_threads": 4}, 1, "blas_threads above 2 cannot"),
        (2, 1, {"n_jobs": 2, "blas_threads": 2, "dask": {"scheduler": "tcp://10.0.0.5:8786"},
                "backend": "dask"}, 2, None),  # a cluster's cores are not this machine's
    ],
)  # fmt: skip
def test_workers_and_threads_fit_the_cores_or_a_line_says_so(
    monkeypatch, tmp_path, cores, launcher_jobs, over, n_jobs, says
):
    import joblib

    from kmdr.engine.backends import resolve_parallelism

    monkeypatch.setattr(joblib, "cpu_count", lambda *a, **k: cores)
    spec = from_config(config(tmp_path, **over))
    par = resolve_parallelism(spec.execution, spec.experiment.blas_threads, launcher_jobs)
    assert par.workers == n_jobs
    message = par.oversubscription_message(spec.experiment.blas_threads)
    assert (message is None) == (says is None), message
    if says:
        assert message.startswith("[kmdr] ") and "\n" not in message and says in message


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="n_jobs=1 x blas_threads=2 = 2 threads on this run's 1 core(s) contend for them",
            doing="run",
            cause="the workers' BLAS threads (n_jobs x blas_threads) outnumber the cores: the "
            "cells' numbers are those of their identity, only slower",
            fix="use the n_jobs the line names (or -1), or a smaller blas_threads",
            warning=True,
        )
    ],
)
def test_a_run_whose_threads_outnumber_the_cores_says_so_once(monkeypatch, tmp_path, capsys, says):
    import joblib

    from kmdr._log import console

    monkeypatch.setattr(joblib, "cpu_count", lambda *a, **k: 1)
    spec = from_config(config(tmp_path, n_jobs=1, blas_threads=2))
    with console():
        outcome = run_alone(*spec)
    assert outcome.status == "complete" and outcome.n_computed == 2
    lines = capsys.readouterr().err.splitlines()
    said = [line for line in lines if "contend" in line]
    assert len(said) == 1 and says in said[0], lines
