"""k-means on row blocks (:mod:`kmdr.kmeans.blocks`) on a real dask LocalCluster: the
partition, iteration count and inertia of the in-memory k-means (:func:`kmdr.kmeans.lloyd.kmeans`,
scikit-learn's Lloyd) for every start protocol, restarts, tol and max_iter, dense and sparse C,
one, three and uneven blocks, and clusters left empty."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from _backends import needs_dask
from kmdr.engine.progress import LogProgress
from kmdr.kmeans._block_centering import center_blocks
from kmdr.kmeans.blocks import choice_with_weights, kmeans_on_blocks
from kmdr.kmeans.lloyd import kmeans


@pytest.mark.parametrize("n", [1, 5, 999, 1000, 1001, 4321])
def test_the_uniform_draws_are_numpys_across_chunks(n):
    """The first k-means++ center and the random rows: RandomState.choice with scikit-learn's
    weights, its cumulative sum taken 1,000 entries at a time; the state moves on alike."""
    for seed in range(10):
        ours, numpy = np.random.RandomState(seed), np.random.RandomState(seed)
        weights = np.ones(n) / n
        assert choice_with_weights(ours, n, chunk=1000) == numpy.choice(n, p=weights)
        k = min(n, 7)
        got = choice_with_weights(ours, n, k, chunk=1000)
        np.testing.assert_array_equal(got, numpy.choice(n, size=k, replace=False, p=weights))
        assert ours.random_sample() == numpy.random_sample()


def test_a_progress_line_says_what_the_cell_in_progress_does(capsys):
    from kmdr._log import console, logging_for

    with console(), logging_for("normal"):
        bar = LogProgress(3, 0, "big: cells", "cell", every=0.0)
        bar.set_postfix_str("k-means start 1, iteration 7, inertia 12.5")
        bar.tick()
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1].endswith("; k-means start 1, iteration 7, inertia 12.5")


def _data(kind: str, n=300, d=12, k=5, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = rng.standard_normal((k, d))[y] * 2 + rng.standard_normal((n, d)) + 3.0
    if kind == "sparse":
        X = sp.csr_matrix(np.where(rng.random((n, d)) < 0.6, 0.0, np.abs(X)))
    return X


SPLITS = {
    "one block": lambda n: [(0, n)],
    "three blocks": lambda n: [(0, n // 3), (n // 3, 2 * n // 3), (2 * n // 3, n)],
    "uneven": lambda n: [(0, 1), (1, 2), (2, n - 7), (n - 7, n - 6), (n - 6, n)],
}
PROTOCOLS = {
    "k-means++, 3 starts": {"init": "k-means++", "n_init": 3, "tol": 0.0},
    "random rows, 3 starts": {"init": "random", "n_init": 3, "tol": 0.0},
    "k-means++, relative tol": {"init": "k-means++", "n_init": 2, "tol": 1e-3},
    "random, max_iter 2": {"init": "random", "n_init": 2, "tol": 0.0, "max_iter": 2},
}


def _on_blocks(client, X, bounds, k, **settings):
    # keys of their own (not the data's hash): the blocks of another test with the same data
    # may be in the middle of being released
    parts = [client.scatter(X[lo:hi], hash=False) for lo, hi in bounds]
    sizes = [hi - lo for lo, hi in bounds]
    return kmeans_on_blocks(client, parts, sizes, k, sparse=sp.issparse(X), **settings)


def _assert_same(got, want):
    np.testing.assert_array_equal(got.labels, want.labels)
    assert got.n_iter == want.n_iter and got.converged == want.converged
    assert got.inertia == pytest.approx(want.inertia, rel=1e-9, abs=0)
    np.testing.assert_allclose(got.cluster_centers, want.cluster_centers, rtol=1e-9, atol=1e-12)


KINDS = ("dense", "sparse")


def _combinations() -> list:
    """Every kind of C with every split and protocol. Those ``make test`` runs meet every split
    with every protocol, and each of them with both kinds (the kind alternating over the split
    and protocol grid: every pair of values is met); the other half run as long-haul tests."""
    rows = []
    for i, split in enumerate(SPLITS):
        for j, protocol in enumerate(PROTOCOLS):
            for kind in KINDS:
                marks = () if kind == KINDS[(i + j) % 2] else pytest.mark.longhaul
                rows.append(pytest.param(kind, split, protocol, marks=marks,
                                         id=f"{kind}-{split}-{protocol}"))  # fmt: skip
    return rows


@pytest.mark.slow
@needs_dask
@pytest.mark.parametrize(("kind", "split", "protocol"), _combinations())
def test_blocks_give_the_in_memory_partition(client, kind, split, protocol):
    X = _data(kind)
    settings = {"max_iter": 100, **PROTOCOLS[protocol], "random_state": 7}
    got = _on_blocks(client, X, SPLITS[split](X.shape[0]), 5, **settings)
    _assert_same(got, kmeans(X, 5, **settings))


@pytest.mark.slow
@needs_dask
@pytest.mark.parametrize("seed", range(6))
def test_empty_clusters_are_relocated_as_in_memory(client, seed):
    """Six distinct points repeated, nine clusters: random starts pick equal rows, and the
    clusters they leave empty take the rows farthest from their centers."""
    rng = np.random.default_rng(seed)
    X = np.repeat(rng.standard_normal((6, 4)), 30, axis=0)[rng.permutation(180)]
    X += np.where(rng.random((180, 4)) < 0.1, rng.standard_normal((180, 4)), 0.0)
    settings = {"init": "random", "n_init": 2, "max_iter": 50, "tol": 0.0, "random_state": seed}
    got = _on_blocks(client, X, [(0, 50), (50, 51), (51, 180)], 9, **settings)
    _assert_same(got, kmeans(X, 9, **settings))


@pytest.mark.slow
@needs_dask
def test_given_centers_start_one_run_and_progress_is_reported(client):
    X = _data("dense", seed=3)
    centers = X[[0, 50, 100, 150, 200]]
    seen = []
    got = _on_blocks(
        client,
        X,
        SPLITS["uneven"](X.shape[0]),
        5,
        init=centers,
        n_init=4,
        max_iter=100,
        tol=0.0,
        report=lambda *step: seen.append(step),
    )
    _assert_same(got, kmeans(X, 5, init=centers, max_iter=100, tol=0.0))
    assert [s[:2] for s in seen] == [(1, i) for i in range(1, got.n_iter + 1)]
    assert seen[-1][2] == pytest.approx(got.inertia, rel=1e-9)


@pytest.mark.slow
@needs_dask
def test_a_long_blocked_kmeans_shows_its_progress_and_stops_on_ctrl_c(tmp_path):
    import signal

    from _procs import kmdr, one_line, statuses, wait_for

    args = [
        "dataset=sparse_text",
        "+dataset.params={n_samples:3000,n_features:400,n_clusters:8,seed:2}",
        "reducer=sign",
        "r_grid=[8]",
        "repeats=1",
        "kmeans.n_init=100000",  # a cell that would run for hours
        "backend=dask",
        "n_jobs=1",  # a LocalCluster of one worker process: the blocks' tasks queue on it
        "block_rows=1000",
        "figures=false",
        "progress_every=1",
        f"results_dir={tmp_path}",
    ]
    proc = kmdr(*args, cwd=tmp_path)
    try:
        lines = wait_for(
            lambda: [x for x in proc.stderr.splitlines() if "; k-means start 2, iteration " in x],
            "a progress line of the cell's second k-means start",
            proc,
        )
        assert lines[-1].startswith("[kmdr] custom: cells: 0/1 cells done"), lines[-1]
        assert ", inertia " in lines[-1], lines[-1]
        proc.signal(signal.SIGINT, group=True)
        assert proc.wait() == 130, proc.stderr
    finally:
        proc.kill()
    assert one_line(proc.stderr).startswith("kmdr: interrupted;"), proc.stderr
    assert statuses(tmp_path / "custom") == ["interrupted"]
    assert not (tmp_path / "custom" / "cells.csv").exists()


@pytest.mark.parametrize(
    ("settings", "param"),
    [({"n_init": 0}, "n_init"), ({"tol": -1.0}, "tol"), ({"init": "kmeans++"}, "init")],
)
def test_bad_settings_are_refused_before_the_cluster_is_used(settings, param):
    # kmeans's own rules and messages; n_clusters is checked against the blocks' rows
    with pytest.raises(ValueError, match=f"The '{param}' parameter of kmeans_on_blocks"):
        kmeans_on_blocks(None, [], [5, 5], 2, sparse=False, **settings)
    with pytest.raises(ValueError, match=r"'n_clusters' parameter .* range \[1, 10\]"):
        kmeans_on_blocks(None, [], [5, 5], 11, sparse=False)


@pytest.mark.slow
@needs_dask
@pytest.mark.parametrize("n_blocks", [2, 7])
def test_iterations_send_no_task_through_the_scheduler(client, n_blocks):
    """Whatever the number of blocks, the scheduler sees the same tasks for 2 iterations as for
    3: the iterations are calls to one actor on each worker (the centers in, each block's sums
    out), and the restart's end is one task per worker."""
    import collections

    from distributed import get_task_stream

    X = _data("dense", n=700, seed=5)
    bounds = list(itertools.pairwise(np.linspace(0, X.shape[0], n_blocks + 1).astype(int)))
    workers = min(n_blocks, len(client.scheduler_info(n_workers=-1)["workers"]))
    seen = []
    for max_iter in (2, 3):
        with get_task_stream(client) as stream:
            got = _on_blocks(client, X, bounds, 5, init=X[:5], max_iter=max_iter, tol=0.0)
        assert got.n_iter == max_iter  # it ran every iteration: none stopped early
        _assert_same(got, kmeans(X, 5, init=X[:5], max_iter=max_iter, tol=0.0))
        seen.append(collections.Counter(str(t["key"]).split("-")[0] for t in stream.data))
    assert seen[0] == seen[1]
    assert seen[0]["_Stepper"] == seen[0]["_finish"] == workers


@pytest.mark.slow
@needs_dask
@pytest.mark.parametrize("n_blocks", [1, 2, 7])
def test_the_mean_is_numpys_to_the_bit_with_no_task_per_block(client, n_blocks):
    """The centering's column sums run block after block, as NumPy sums the matrix, carried
    from worker to worker by calls to one actor on each: the scheduler sees one task per worker
    for the sums (the actor's start) and one per block for the centered copies, whatever the
    blocks' order over the workers."""
    import collections

    from distributed import get_task_stream

    X = _data("dense", n=9000, seed=3) * 1e3 + 1e-3  # sums that round differently by order
    bounds = list(itertools.pairwise(np.linspace(0, X.shape[0], n_blocks + 1).astype(int)))
    parts = [client.scatter(X[lo:hi], hash=False) for lo, hi in bounds]
    holders = client.who_has(parts)
    with get_task_stream(client) as stream:
        centered, mean = center_blocks(client, parts, [hi - lo for lo, hi in bounds])
        got = np.concatenate(client.gather(centered))
    assert mean.tobytes() == X.mean(axis=0).tobytes()
    assert got.tobytes() == (X - X.mean(axis=0)).tobytes()
    tasks = collections.Counter(str(t["key"]).split("-")[0] for t in stream.data)
    workers = len({min(holders[p.key]) for p in parts})
    assert tasks == {"_ColumnSums": workers, "_centered": n_blocks}


@pytest.mark.slow
@needs_dask
def test_a_worker_that_leaves_ends_the_clustering_in_one_line():
    """A worker whose process ends in the middle of k-means takes its blocks' labels with it:
    the next iteration ends with the worker named, instead of waiting for it forever."""
    from dask.distributed import Client, LocalCluster

    X = _data("dense", n=400, seed=1)
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit=None,
                     dashboard_address=":0") as cluster,
        Client(cluster) as own,
    ):  # fmt: skip

        def retire_one(restart, iteration, inertia):
            if iteration == 2:  # its nanny kills the process and starts a new one
                own.restart_workers(sorted(own.scheduler_info()["workers"])[:1])

        with pytest.raises(
            RuntimeError,
            match=r"^k-means on row blocks: worker tcp://.* left the cluster or was restarted",
        ):
            _on_blocks(own, X, SPLITS["three blocks"](400), 5, init=X[:5], max_iter=50,
                       tol=0.0, report=retire_one)  # fmt: skip
