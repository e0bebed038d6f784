"""One cell's data as row blocks on a real dask LocalCluster (:mod:`kmdr.engine.blocks`): the
chunked cell equals its in-memory cell (same partition, the same metrics up to the rounding each
reducer states) for one block, three blocks and uneven splits, dense and sparse data; no graph
carries data; reducers that need the whole matrix are refused in one line before any work."""

from __future__ import annotations

import os

import numpy as np
import pytest
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from _backends import needs_dask
from _cases import case
from _dask_graphs import graph_sizes
from kmdr.config.schema import from_config
from kmdr.datasets import Dataset
from kmdr.datasets._fingerprint import content_fingerprint
from kmdr.datasets.blocks import SplitBlocks
from kmdr.engine.blocks import compute_chunked_cell
from kmdr.engine.work import compute_cell, compute_shared_work
from kmdr.results.cells import plan_cells

pytestmark = [
    pytest.mark.slow,
    needs_dask,
]

ROWWISE = ["sign", "achlioptas", "gaussian", "sparse_embedding", "srht"]
METRICS = ["objective", "objective_reduced", "accuracy", "nmi", "ari", "n_iter", "converged"]
#: The largest graph (tasks and their arguments) the chunked path may send.
PAYLOAD_LIMIT = 2**20


def _dense(n=240, d=40, k=4, seed=0) -> Dataset:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = rng.standard_normal((k, d))[y] * 3 + rng.standard_normal((n, d)) + 5.0  # off-center
    return Dataset("synth", X, y.astype(np.int64), k, None, "SYNTHETIC")


def _sparse(n=240, d=400, k=3, seed=1) -> Dataset:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    topic = rng.random((k, d)) < 0.05
    mask = (rng.random((n, d)) < 0.02) | (topic[y] & (rng.random((n, d)) < 0.5))
    X = sp.csr_matrix(mask * rng.integers(1, 5, (n, d)).astype(np.float64))
    return Dataset("sparse_text", X, y.astype(np.int64), k, None, "SYNTHETIC")


DATA = {"dense": _dense, "sparse": _sparse}
SPLITS = {
    "one block": lambda n: ((0, n),),
    "three blocks": lambda n: ((0, n // 3), (n // 3, 2 * n // 3), (2 * n // 3, n)),
    "uneven": lambda n: ((0, 1), (1, 2), (2, n - 7), (n - 7, n - 6), (n - 6, n)),
}


def _grid(reducers, splits=tuple(SPLITS)):
    """(reducer, kind, split): every reducer on both kinds of data in the uneven split (blocks of
    one row beside a large one), and the first reducer also in the other ``splits``: how rows
    are split is the chunked path's concern, the same for every reducer."""
    other = [s for s in splits if s != "uneven"]
    return [(r, kind, "uneven") for r in reducers for kind in DATA] + [
        (reducers[0], kind, split) for kind in DATA for split in other
    ]


def _cell(dataset: Dataset, reducer: str, r: int = 6, repetition: int = 0, kmeans=None, **params):
    spec, _, _ = from_config(
        {
            "name": "chunked",
            "dataset": {"name": dataset.name, "params": {}},
            "reducers": [{"name": reducer, "params": params}],
            "r_grid": [r],
            "repeats": repetition + 1,
            # one start: restarts on blocks are the k-means settings' test
            "kmeans": {"n_init": 1, "max_iter": 50, **(kmeans or {})},
            "figures": False,
        }
    )
    fingerprint = content_fingerprint(dataset.X, dataset.y)
    cells = plan_cells(spec, dataset.X, dataset.n_clusters, fingerprint)
    return next(c for c in cells if c.repetition == repetition)


def _in_memory(cell, dataset: Dataset) -> dict:
    """The cell as a sweep computes it in memory: its shared work, if any, seeded by the
    sweep's shared seed (kmdr.engine.sweep)."""
    k = dataset.n_clusters
    with threadpool_limits(limits=cell.blas_threads):
        shared = None
        if cell.shared_key is not None:
            seed = cell.shared_seed
            shared = compute_shared_work(cell.reducer_name, cell.params, cell.r, k, dataset.X, seed)
        return compute_cell(cell, dataset.X, dataset.y, k, shared)


def _assert_same_cell(got: dict, want: dict, rtol: float) -> None:
    for key in ("accuracy", "nmi", "ari", "n_iter", "converged"):  # from the same partition
        assert got[key] == want[key], key
    for key in ("objective", "objective_reduced"):
        assert got[key] == pytest.approx(want[key], rel=rtol, abs=0), key
    assert got["reduce_timing"] == want["reduce_timing"]
    assert got["shared_key"] == want["shared_key"]
    assert got["total_seconds"] == got["reduce_seconds"] + got["cluster_seconds"]


@pytest.mark.parametrize(("reducer", "kind", "split"), _grid(ROWWISE))
def test_a_chunked_rowwise_cell_is_its_in_memory_cell(client, reducer, kind, split):
    """The in-memory cell, its scores counted by the workers: the driver never reads the whole
    label vector (:class:`_LabelsOnlyOnWorkers`)."""
    dataset = DATA[kind]()
    cell = _cell(dataset, reducer)
    blocks = _LabelsOnlyOnWorkers(dataset, SPLITS[split](dataset.X.shape[0]))
    got = compute_chunked_cell(cell, blocks, client)
    _assert_same_cell(got, _in_memory(cell, dataset), rtol=1e-12)


@pytest.mark.parametrize("dense_output", ["auto", True, False])
def test_sparse_embedding_forms_on_blocks(client, dense_output):
    dataset = _sparse()
    # r = 40: "auto" gives a dense C on the whole matrix; a first block of one row would not
    cell = _cell(dataset, "sparse_embedding", r=40, dense_output=dense_output)
    blocks = SplitBlocks(dataset, SPLITS["uneven"](dataset.X.shape[0]))
    _assert_same_cell(compute_chunked_cell(cell, blocks, client), _in_memory(cell, dataset), 1e-12)


@pytest.mark.parametrize(
    ("kmeans", "kind"),
    [
        ({"n_init": 2}, "dense"),
        # k-means runs on C's blocks, dense whatever the data: its protocols on one kind (each
        # protocol's restarts on dense and sparse blocks: tests/kmeans/test_kmeans_blocks.py)
        ({"init": "first_of_class", "n_init": 1}, "dense"),
        ({"init": "k-means++", "n_init": 3, "tol": 1e-4}, "dense"),
        ({"init": "random", "n_init": 1, "max_iter": 2}, "dense"),  # max_iter: not converged
    ],
)
def test_a_later_repetition_and_other_kmeans_settings(client, kmeans, kind):
    """Every k-means setting a cell passes to the blocks (k-means++, random rows, the first point
    of each class, a relative tol, max_iter reached, restarts): the in-memory cell's partition."""
    dataset = DATA[kind]()
    cell = _cell(dataset, "gaussian", repetition=2, kmeans=kmeans)
    assert cell.repetition == 2 and all(cell.kmeans[key] == v for key, v in kmeans.items())
    blocks = SplitBlocks(dataset, SPLITS["three blocks"](dataset.X.shape[0]))
    _assert_same_cell(compute_chunked_cell(cell, blocks, client), _in_memory(cell, dataset), 1e-12)


class _LabelsOnlyOnWorkers(SplitBlocks):
    """Blocks whose whole label vector cannot be read in the process that made them (the
    driver): the workers read it, to make their blocks' labels."""

    def __init__(self, dataset, bounds):
        super().__init__(dataset, bounds)
        self.driver = os.getpid()

    def labels(self):
        if os.getpid() == self.driver:
            raise AssertionError("the driver read the whole label vector")
        return super().labels()


@pytest.mark.parametrize("kind", DATA)
def test_the_driver_never_holds_the_labels(client, kind):
    """Accuracy, NMI, ARI and the first point of each class come from the workers' per-block
    counts: the driver holds no vector of n labels, and the cell is the in-memory one. (Without
    first_of_class: every row-wise and sketch cell above, on these blocks.)"""
    dataset = DATA[kind]()
    cell = _cell(dataset, "sign", kmeans={"init": "first_of_class", "n_init": 1})
    blocks = _LabelsOnlyOnWorkers(dataset, SPLITS["uneven"](dataset.X.shape[0]))
    with pytest.raises(AssertionError, match="the driver read"):
        blocks.labels()
    _assert_same_cell(compute_chunked_cell(cell, blocks, client), _in_memory(cell, dataset), 1e-12)


def test_the_online_phase_is_refused_on_blocks_before_any_task(client):
    dataset = _dense()
    cell = _cell(dataset, "gaussian", kmeans={"online_phase": True})
    blocks = SplitBlocks(dataset, SPLITS["three blocks"](dataset.X.shape[0]))
    with graph_sizes() as sizes, pytest.raises(ValueError) as err:
        compute_chunked_cell(cell, blocks, client)
    assert str(err.value).startswith("kmeans.online_phase=true with block_rows: MATLAB's online")
    assert "\n" not in str(err.value) and sizes == []


def test_tight_clusters_take_the_residual_pass(client):
    """Clusters tight around far-off centers: W < 1e-3 T, where both paths form the residuals
    explicitly; F still equals the in-memory F."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 150)
    X = rng.standard_normal((3, 20))[y] * 100 + 1e-3 * rng.standard_normal((150, 20))
    dataset = Dataset("synth", X, y.astype(np.int64), 3, None, "SYNTHETIC")
    cell = _cell(dataset, "sign", r=5)
    blocks = SplitBlocks(dataset, SPLITS["uneven"](150))
    got, want = compute_chunked_cell(cell, blocks, client), _in_memory(cell, dataset)
    assert want["objective"] < 1e-6
    _assert_same_cell(got, want, rtol=1e-9)


@pytest.mark.parametrize("reducer", ["gaussian", "svd_approx"])
def test_no_graph_carries_data(client, reducer):
    """A 6 MiB matrix and a 1.6 MiB operator: the blocks object and the reducer are scattered
    once, each task names a block, so every graph stays under 1 MiB."""
    dataset = _dense(n=2000, d=400, k=4)
    cell = _cell(dataset, reducer, r=500 if reducer == "gaussian" else 6)
    blocks = SplitBlocks(dataset, SPLITS["three blocks"](2000))
    with graph_sizes() as sizes:
        compute_chunked_cell(cell, blocks, client)
    assert sizes, "dask measured no graph: the measurement is broken"
    assert max(sizes) <= PAYLOAD_LIMIT, f"a graph of {max(sizes):,} bytes"


@pytest.mark.parametrize(
    ("reducer", "says"),
    [
        case(
            reducer,
            says=f"block_rows: reducer {reducer!r} needs the whole matrix in one process and "
            "cannot run on row blocks",
            doing="run",
            cause="block_rows computes a cell from row blocks, and this reducer reads the whole "
            "matrix at once",
            fix="drop block_rows for it, or use a reducer the line lists (sign, svd_approx, ...)",
            id=reducer,
        )
        for reducer in ("svd", "leverage", "laplacian", "none")
    ],
)
def test_a_reducer_that_needs_the_whole_matrix_is_refused_before_any_work(client, reducer, says):
    dataset = _dense()
    cell = _cell(dataset, reducer, r=4)
    blocks = SplitBlocks(dataset, SPLITS["three blocks"](dataset.X.shape[0]))
    with graph_sizes() as sizes, pytest.raises(ValueError) as err:
        compute_chunked_cell(cell, blocks, client)
    message = str(err.value)
    assert "\n" not in message
    assert says in message
    assert "sign" in message and "svd_approx" in message and "'svd'" not in message.split(";")[1]
    assert sizes == []


@pytest.mark.parametrize(
    ("reducer", "kind", "split"), _grid(["svd_approx", "leverage_approx"], ["one block", "uneven"])
)
def test_a_chunked_sketch_cell_is_its_in_memory_cell_up_to_rounding(client, reducer, kind, split):
    """The same sketch R, Q from dask's TSQR (the in-memory Householder Q up to column signs,
    which leave B's right singular vectors unchanged): the same partition, F within 1e-9; the
    driver never reads the whole label vector."""
    dataset = DATA[kind]()
    cell = _cell(dataset, reducer, r=6)
    blocks = _LabelsOnlyOnWorkers(dataset, SPLITS[split](dataset.X.shape[0]))
    got = compute_chunked_cell(cell, blocks, client)
    _assert_same_cell(got, _in_memory(cell, dataset), rtol=1e-9)


def test_the_sketch_svd_over_blocks_is_fast_frobenius_svd(client):
    from kmdr.config.seeds import stream_seeds
    from kmdr.engine.blocks import fitted_reducer
    from kmdr.reducers import make_reducer

    dataset = _dense(n=300, d=60)
    cell = _cell(dataset, "svd_approx", r=5)
    blocks = SplitBlocks(dataset, SPLITS["uneven"](300))
    [blocks_f] = client.scatter([blocks], broadcast=True, hash=False)
    chunked = fitted_reducer(cell, blocks, 4, client, blocks_f)
    memory = make_reducer("svd_approx", 5, random_state=stream_seeds(cell.seed)[0]).fit(dataset.X)
    np.testing.assert_allclose(chunked.components_, memory.components_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(
        chunked.singular_values_, memory.singular_values_, rtol=1e-12, atol=0
    )


def _run_config(results_dir, backend: str, dataset: dict, **keys) -> dict:
    # one cell per kind of reducer (a row-wise one, one whose C is sparse, a sketch): a chunked
    # cell costs about a second of cluster round trips, and the other r and repetitions are the
    # tests above
    return {
        "name": "chunked_run",
        "dataset": dataset,
        "reducers": [{"name": "sign"}, {"name": "sparse_embedding"}, {"name": "svd_approx"}],
        "r_grid": [4],
        "repeats": 1,
        "kmeans": {"n_init": 1, "max_iter": 30},
        "n_jobs": 2,
        "blas_threads": 1,
        "backend": backend,
        "results_dir": str(results_dir),
        "figures": False,
        "progress": False,
        **keys,
    }


def _rows(config: dict):
    import pandas as pd

    from _run_configs import run_alone

    outcome = run_alone(*from_config(config))
    assert outcome.status == "complete"
    cells = pd.read_csv(outcome.experiment_dir / "cells.csv").set_index("cell_id").sort_index()
    return outcome, cells


# Blocks generated on the workers (each dataset's own blocks: synth's, and sparse_text's with
# the pass that counts its document frequencies), three of them: two of 70 rows and a shorter one.
SYNTH = {"name": "synth", "params": {"n_samples": 150, "n_features": 50, "seed": 3}}
SPARSE_TEXT = {
    "name": "sparse_text",
    "params": {"n_samples": 200, "n_features": 800, "n_clusters": 4, "seed": 1},
}


@pytest.mark.parametrize("dataset", [SYNTH, SPARSE_TEXT], ids=["synth", "sparse_text"])
def test_a_chunked_run_writes_the_in_memory_cells_and_resumes(tmp_path, dataset, scheduler):
    """backend=dask block_rows=70 (on the session's cluster): the same cell ids as the in-memory
    run, their partitions and F (within the stated rounding); run again, every cell is reused; an
    in-memory run into the same folder reuses them too (block_rows is not part of a cell's
    identity)."""
    # the in-memory cells as the sequential backend computes them (loky's, bit for bit:
    # tests/engine/test_backends.py), without starting loky's workers for three cells
    _, memory = _rows(_run_config(tmp_path / "memory", "sequential", dataset, n_jobs=1))
    config = _run_config(
        tmp_path / "chunked", "dask", dataset, block_rows=70, dask={"scheduler": scheduler}
    )
    with graph_sizes() as sizes:
        outcome, chunked = _rows(config)
    assert sizes and max(sizes) <= PAYLOAD_LIMIT, f"a graph of {max(sizes, default=0):,} bytes"
    assert outcome.n_computed == outcome.n_expected == len(memory) == 3
    assert list(chunked.index) == list(memory.index)
    for key in ("accuracy", "nmi", "ari", "n_iter"):
        assert list(chunked[key]) == list(memory[key]), key
    np.testing.assert_allclose(chunked["objective"], memory["objective"], rtol=1e-9, atol=0)
    again, _ = _rows(config)
    assert again.n_computed == 0 and again.n_reused == 3
    in_memory, _ = _rows({**config, "backend": "loky", "block_rows": None, "dask": {}})
    assert in_memory.n_computed == 0 and in_memory.n_reused == 3


@pytest.mark.parametrize(("reducer", "kind", "split"), _grid(["sparsified", "sparsified_raw"]))
def test_a_chunked_pd_cell_is_its_in_memory_cell(client, reducer, kind, split):
    """PD's kept positions are drawn row after row from one generator: the driver records its
    state at each block start, so every block, in whatever worker and order, keeps the in-memory
    positions; its C (the kept entries) and the sparsified k-means on it follow."""
    dataset = DATA[kind]()
    cell = _cell(dataset, reducer, r=5)
    blocks = SplitBlocks(dataset, SPLITS[split](dataset.X.shape[0]))
    _assert_same_cell(compute_chunked_cell(cell, blocks, client), _in_memory(cell, dataset), 1e-12)


def test_the_two_pass_variant_is_refused_before_any_task(client):
    dataset = _dense()
    cell = _cell(dataset, "sparsified_two_pass", r=4)
    blocks = SplitBlocks(dataset, SPLITS["three blocks"](dataset.X.shape[0]))
    with graph_sizes() as sizes, pytest.raises(ValueError) as err:
        compute_chunked_cell(cell, blocks, client)
    assert "\n" not in str(err.value) and "sparsified_two_pass" in str(err.value)
    assert sizes == []


def test_a_block_that_fails_stops_the_cell_with_its_error(client):
    """A NaN in the last block: the worker's validation error reaches the driver (as the
    in-memory fit's would), and the other tasks are cancelled."""
    dataset = _dense()
    dataset.X[-1, 0] = np.nan
    cell = _cell(dataset, "sign")
    blocks = SplitBlocks(dataset, SPLITS["three blocks"](dataset.X.shape[0]))
    with pytest.raises(ValueError, match="NaN"):
        compute_chunked_cell(cell, blocks, client)
    with pytest.raises(ValueError, match="NaN"):
        _in_memory(cell, dataset)


def test_sparse_blocks_with_duplicate_entries_score_as_in_memory(client):
    """A CSR matrix with repeated (row, column) entries: ||A||^2 is that of their sums, as the
    in-memory evaluator has it."""
    dataset = _sparse()
    X = dataset.X
    doubled = sp.csr_matrix(
        (np.repeat(X.data / 2, 2), np.repeat(X.indices, 2), X.indptr * 2), shape=X.shape
    )
    assert not doubled.has_canonical_format
    dataset = Dataset("sparse_text", doubled, dataset.y, dataset.n_clusters, None, "SYNTHETIC")
    cell = _cell(dataset, "sign")
    blocks = SplitBlocks(dataset, SPLITS["uneven"](X.shape[0]))
    _assert_same_cell(compute_chunked_cell(cell, blocks, client), _in_memory(cell, dataset), 1e-12)


def test_the_shared_sketch_is_computed_once_per_repetition(client):
    """leverage_approx at r = 4 and 8 in one repetition: one SVD over the blocks (their shared
    key's, as the in-memory sweep shares it), its time charged to both cells."""
    dataset = _dense()
    spec, _, _ = from_config(
        {
            "name": "chunked",
            "dataset": {"name": "synth", "params": {}},
            "reducers": [{"name": "leverage_approx"}],
            "r_grid": [4, 8],
            "repeats": 1,
            "kmeans": {"n_init": 2, "max_iter": 50},
        }
    )
    fingerprint = content_fingerprint(dataset.X, dataset.y)
    cells = plan_cells(spec, dataset.X, dataset.n_clusters, fingerprint)
    assert len(cells) == 2 and cells[0].shared_ident == cells[1].shared_ident
    blocks = SplitBlocks(dataset, SPLITS["three blocks"](dataset.X.shape[0]))
    sketches: dict = {}
    got = [compute_chunked_cell(cell, blocks, client, sketches=sketches) for cell in cells]
    assert list(sketches) == [cells[0].shared_ident]
    assert got[0]["shared_seconds"] == got[1]["shared_seconds"] > 0
    for metrics, cell in zip(got, cells, strict=True):
        assert metrics["reduce_timing"] == "shared per repetition"
        assert metrics["reduce_seconds"] >= metrics["shared_seconds"]
        assert metrics["shared_key"] == "/".join(str(p) for p in cell.shared_key)
        _assert_same_cell(metrics, _in_memory(cell, dataset), rtol=1e-9)
