"""A failure inside a dask worker reaches the terminal as kmdr's one line: the worker's own log
(distributed's "Compute Failed" with the task's traceback) goes to the workers' log file, which
the line names; ``verbosity=verbose`` leaves it on the terminal. Real processes: the ``kmdr``
command on a LocalCluster, reading a shard folder with one shard changed after it was written,
and, through kmdr.run in this process on the session's cluster, one written with a NaN (its
manifest agrees: only the block's own check can tell)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

from _backends import needs_dask
from _cases import case
from _procs import kmdr

pytestmark = [
    pytest.mark.slow,
    needs_dask,
]


@pytest.fixture(scope="module")
def changed_shards(tmp_path_factory) -> Path:
    """A shard folder of 400 rows in 4 shards, one of them given a NaN after it was written."""
    from kmdr.datasets import load_dataset
    from kmdr.datasets.blocks import write_shards

    folder = tmp_path_factory.mktemp("shards") / "data"
    data = load_dataset("synth", n_samples=400, n_features=30, n_clusters=3)
    write_shards(data, folder, rows=100)
    shard = folder / "shard-00002.npz"
    arrays = dict(np.load(shard))
    arrays["X"] = arrays["X"].copy()
    arrays["X"][3, 4] = np.nan
    np.savez(shard, **arrays)
    return folder


@pytest.fixture(scope="module")
def nan_shards(tmp_path_factory, changed_shards) -> Path:
    """The same folder, its manifest holding the changed shard's hash: a folder written with a
    NaN in its rows (hashes agree), as a user's own writer could produce."""
    import shutil

    folder = tmp_path_factory.mktemp("nan") / "data"
    shutil.copytree(changed_shards, folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    for shard in manifest["shards"]:
        shard["sha256"] = hashlib.sha256((folder / shard["file"]).read_bytes()).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


def run(folder, results, *extra):
    proc = kmdr(
        "dataset=shards",
        f"dataset.params.path={folder}",
        "reducer=sign",
        "r_grid=[5]",
        "repeats=1",
        "backend=dask",
        "n_jobs=2",
        "block_rows=100",
        f"results_dir={results}",
        "figures=false",
        *extra,
        cwd=results,
    )
    return proc, proc.wait()


# distributed 2024.8: a worker logs a failed task with its traceback, as an error
@pytest.mark.floors
@pytest.mark.parametrize(
    "says",
    [
        case(
            says="DataIntegrityError: shard folder",
            doing="data",
            cause="a shard of the data's folder changed after it was written (an edit, a copy cut "
            "short); the line names the run's log, which holds the worker's traceback",
            fix="write the shard folder again, then run the same command",
        )
    ],
)
def test_a_failure_in_a_worker_is_one_line_and_its_traceback_goes_to_the_log(
    changed_shards, tmp_path, says
):
    proc, code = run(changed_shards, tmp_path)
    assert code == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "Compute Failed" not in proc.stderr, proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert says in line and "shard-00002.npz" in line
    log = Path(re.search(r"its traceback: (\S+)$", line).group(1))
    text = log.read_text()
    assert "Traceback" in text and "shard-00002.npz" in text

    proc, code = run(changed_shards, tmp_path, "verbosity=verbose")
    assert code == 1
    assert "Compute Failed" in proc.stderr and "Traceback" in proc.stderr


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="row block 2 (rows 200 to 300): X holds 1 non-finite values (1 NaN, 0 inf)",
            doing="data",
            cause="a row block of the data holds NaN or infinite values",
            fix="clean the rows the line names (drop or impute them), then run again",
        )
    ],
)
def test_a_nan_in_a_block_is_one_line_naming_the_cell_and_the_block(
    nan_shards, tmp_path, scheduler, says
):
    # kmdr.run's route in this process, on the session's cluster: the line is the error's
    from _run_configs import run_alone
    from kmdr.config.schema import from_config
    from kmdr.engine.backends import RunFailed

    config = {
        "name": "nan",
        "dataset": {"name": "shards", "params": {"path": str(nan_shards)}},
        "reducers": [{"name": "sign"}],
        "r_grid": [5],
        "repeats": 1,
        "backend": "dask",
        "dask": {"scheduler": scheduler},
        "n_jobs": 2,
        "block_rows": 100,
        "results_dir": str(tmp_path),
        "figures": False,
        "progress": False,
    }
    with pytest.raises(RunFailed) as info:
        run_alone(*from_config(config))
    line = str(info.value)
    assert "\n" not in line and line.startswith("reducer 'sign' in cell r=5 repetition 0 ("), line
    assert says in line
