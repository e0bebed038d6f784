"""The README's sweeps, run as written through the ``kmdr`` command: a multirun over any key keeps
every job's rows (shown apart in the summary), a sweep on a dask cluster, parallel jobs under
Hydra's joblib launcher with a thread budget that counts them, and the SLURM launcher's config."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from test_cli import run_kmdr

from _backends import needs_dask

TINY = [
    "dataset=synth",
    "dataset.params.n_samples=120",
    "dataset.params.n_features=30",
    "dataset.params.n_clusters=3",
    "reducer=sign",
    "r_grid=[4,8]",
    "repeats=2",
    "kmeans.max_iter=50",
    "progress=false",
]


def process(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``kmdr args`` in a process of its own: where a process is the point (a backend's cluster,
    a launcher's worker processes)."""
    code = "import sys; from kmdr.app import main; sys.exit(main())"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def kmdr(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``kmdr args`` in this process (Hydra's basic launcher runs the jobs one after another)."""
    return run_kmdr(list(args), cwd)


def records(exp: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((exp / "runs").glob("*.json"))]


@pytest.mark.parametrize(
    ("sweep", "column", "values"),
    [
        ("kmeans.n_init=1,3", "kmeans_n_init", {1, 3}),
        ("seed=0,1", "base_seed", {0, 1}),
    ],
)
def test_a_multirun_over_a_key_keeps_every_jobs_rows(tmp_path, sweep, column, values):
    run = kmdr("-m", sweep, *TINY, f"results_dir={tmp_path / 'r'}", "n_jobs=1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    exp = tmp_path / "r" / "custom"
    cells = pd.read_csv(exp / "cells.csv")
    assert len(cells) == 2 * (2 * 2 + 0)  # two jobs x (2 r x 2 repetitions)
    assert set(cells[column]) == values
    summary = pd.read_csv(exp / "summary.csv")
    # One summary row per (setting, r), never averaged over the two settings.
    assert len(summary) == 2 * 2 and summary["setting"].nunique() == 2
    assert set(summary["n_cells"]) == {2} and summary["complete"].all()
    assert sorted(r["status"] for r in records(exp)) == ["complete", "complete"]


@needs_dask
@pytest.mark.slow
def test_backend_dask_starts_a_local_cluster(tmp_path):
    """The suite's one ``kmdr`` process on backend=dask: the run starts a LocalCluster of its own
    (worker processes), prints kmdr's own lines only (no worker start-up or shutdown chatter, no
    library notice, no large-graph warning) and gives the rows the sequential backend computes
    here."""
    run = process(*TINY, "backend=dask", "n_jobs=2", f"results_dir={tmp_path / 'r'}", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert lines and all(line.startswith("[kmdr]") for line in lines), run.stderr[-3000:]
    (record,) = records(tmp_path / "r" / "custom")
    assert record["status"] == "complete" and record["backend_info"]["backend"] == "dask"
    assert record["backend_info"]["scheduler"].startswith("tcp://")
    here = kmdr(
        *TINY, "backend=sequential", "n_jobs=1", f"results_dir={tmp_path / 's'}", cwd=tmp_path
    )
    assert here.returncode == 0, here.stderr
    values = ["objective", "objective_reduced", "accuracy", "nmi", "ari", "n_iter", "seed"]
    got, want = (
        pd.read_csv(tmp_path / folder / "custom" / "cells.csv").set_index("cell_id").sort_index()
        for folder in ("r", "s")
    )
    assert len(got) == 4
    pd.testing.assert_frame_equal(got[values], want[values], check_exact=True)


@pytest.mark.skipif(
    importlib.util.find_spec("hydra_plugins.hydra_joblib_launcher") is None,
    reason="hydra-joblib-launcher is not installed (pip install 'kmdr[joblib-launcher]')",
)
@pytest.mark.slow
def test_joblib_launcher_jobs_share_the_cores(tmp_path):
    run = process(
        "-m",
        "hydra/launcher=joblib",
        "hydra.launcher.n_jobs=2",
        "seed=0,1",
        *TINY,
        f"results_dir={tmp_path / 'r'}",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    done = records(tmp_path / "r" / "custom")
    assert len(done) == 2
    for record in done:
        # n_jobs=-1: each of the 2 launcher jobs gets half the cores, one BLAS thread per worker
        assert record["launcher_jobs"] == 2
        assert record["n_jobs"] == max(1, record["cpu_count"] // 2)
        assert record["blas_threads"] == 1
    # kmdr's Hydra callbacks ran with the jobs in the launcher's processes: the figures are
    # drawn, and the multirun's closing line counts both jobs.
    assert list((tmp_path / "r" / "custom" / "figures").glob("*.png"))
    lines = run.stderr.strip().splitlines()
    assert lines[-1] == f"[kmdr] multirun: 2 jobs: 2 ran; results in {tmp_path / 'r' / 'custom'}"
    # each job's own closing line too, said in the launcher's worker after its task returned
    closing = [line for line in lines if " computed, " in line and " reused) in " in line]
    assert len(closing) == 2, run.stderr


@pytest.mark.skipif(
    importlib.util.find_spec("hydra_plugins.hydra_submitit_launcher") is None,
    reason="hydra-submitit-launcher is not installed (pip install 'kmdr[slurm]')",
)
def test_the_slurm_launcher_config_composes(tmp_path):
    run = kmdr(
        "--cfg",
        "hydra",
        "hydra/launcher=submitit_slurm",
        "hydra.launcher.partition=cpu",
        "hydra.launcher.cpus_per_task=8",
        "hydra.launcher.timeout_min=120",
        "experiment=bzmd14_orl",
        "n_jobs=8",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert "SlurmLauncher" in run.stdout and "partition: cpu" in run.stdout
    assert not (tmp_path / "results").exists()


def test_hydra_glob_and_range_sweeps_choose_the_jobs(tmp_path):
    """Hydra's own sweep grammar: ``glob`` over a config group's options, ``range`` over a key."""
    args = [a for a in TINY if not a.startswith("reducer=")]
    run = kmdr(
        "-m",
        *args,
        "reducer=glob(svd*)",
        "seed=range(0,2)",
        "n_jobs=1",
        "figures=false",  # the four jobs' cells and records are the point, not their figures
        f"results_dir={tmp_path / 'r'}",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    cells = pd.read_csv(tmp_path / "r" / "custom" / "cells.csv")
    assert set(cells.reducer) == {"svd", "svd_approx"} and set(cells.base_seed) == {0, 1}
    assert len(records(tmp_path / "r" / "custom")) == 4  # 2 reducers x 2 seeds, one job each
