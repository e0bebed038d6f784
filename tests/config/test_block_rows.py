"""``block_rows`` (one cell's data as row blocks on dask) asked for where it cannot work: one line
naming the problem and the fix, through the command line and from_config, before any work and
with nothing written."""

from __future__ import annotations

import pytest

import _command as command
from kmdr.config.errors import ConfigError
from kmdr.config.schema import check_together, from_config

TINY = [
    "dataset=synth",
    "+dataset.params={n_samples:60,n_features:12,n_clusters:3}",
    "r_grid=[2,4]",
    "repeats=1",
    "kmeans.n_init=1",
    "n_jobs=1",
    "figures=false",
    "progress=false",
]


def case(args, expected, what):
    """One row: the overrides, the text asserted, and the case as the test's id."""
    return pytest.param(args, expected, id=what)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        case(
            ["block_rows=100", "reducer=sign"],
            "block_rows=100 reduces one cell's row blocks on a dask cluster: it needs "
            "backend=dask, got backend=loky",
            "block_rows without backend=dask",
        ),
        case(
            ["block_rows=100", "backend=dask", "reducer=svd"],
            "block_rows: reducer 'svd' needs the whole matrix in one process and cannot run on "
            "row blocks; those that can: ",
            "block_rows with a reducer that needs the whole matrix (exact svd)",
        ),
        case(
            ["block_rows=100", "backend=dask", "reducer=sign", "kmeans.online_phase=true"],
            "kmeans.online_phase=true with block_rows: MATLAB's online phase moves one row at a "
            "time over the whole matrix and does not run on row blocks; drop one of them",
            "block_rows with MATLAB's online phase (kmeans.online_phase=true)",
        ),
        case(
            ["block_rows=0", "backend=dask", "reducer=sign"],
            "'block_rows' must be >= 1: 0",
            "block_rows=0",
        ),
    ],
)
def test_block_rows_where_it_cannot_work_is_refused(args, expected, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        command.kmdr([*TINY, *args, f"results_dir={tmp_path}"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("kmdr: error: "), err
    assert expected in err
    assert list(tmp_path.iterdir()) == []


def _config(**keys) -> dict:
    return {
        "dataset": {"name": "synth", "params": {}},
        "reducers": [{"name": "sign"}, {"name": "leverage_approx"}, {"name": "sparsified"}],
        "backend": "dask",
        **keys,
    }


def test_chunkable_reducers_are_accepted_and_the_field_is_kept():
    _, execution, _ = from_config(_config(block_rows=1000))
    assert execution.block_rows == 1000
    _, execution, _ = from_config(_config())
    assert execution.block_rows is None


def test_the_refusal_names_every_reducer_that_can():
    with pytest.raises(ConfigError) as err:
        experiment, execution, _ = from_config(
            _config(block_rows=10, reducers=[{"name": "sign"}, {"name": "laplacian"}])
        )
        check_together(experiment, execution)  # what Session.run checks before any work
    message = str(err.value)
    can = message.split("those that can: ")[1].split(", ")
    assert {"sign", "achlioptas", "gaussian", "sparse_embedding", "srht", "sparsified"} <= set(can)
    assert {"svd_approx", "leverage_approx"} <= set(can)
    assert not {"svd", "leverage", "laplacian", "lle", "none"} & set(can)
