"""A dense C held as row blocks on a Dask cluster, centered by its column mean as scikit-learn
centers a dense X before k-means (:func:`center_blocks`), the mean the in-memory one to the last
bit. :mod:`kmdr.kmeans.blocks` clusters the centered blocks."""

from __future__ import annotations

import numpy as np

from kmdr.kmeans._block_dispatch import block_data, check_workers, spread


def as_float(C):
    """C as float64: dense C-ordered, or CSR."""
    import scipy.sparse as sp

    if sp.issparse(C):
        return sp.csr_matrix(C, dtype=np.float64)
    return np.ascontiguousarray(C, dtype=np.float64)


def _sum_after(C, carry: np.ndarray | None) -> np.ndarray:
    """``carry`` (zeros when None) plus the rows of dense C added one after another, as NumPy's
    ``sum(axis=0)`` adds a C-ordered matrix's rows: block after block, the column sums of the
    whole matrix. The rows go through one buffer behind the carry, a chunk at a time (a new
    array per chunk made this pass 1.5 times slower)."""
    C = as_float(C)
    total = np.zeros(C.shape[1]) if carry is None else carry
    buffer = np.empty((min(4096, C.shape[0]) + 1, C.shape[1]))
    for lo in range(0, C.shape[0], 4096):
        chunk = C[lo : lo + 4096]
        buffer[0] = total
        buffer[1 : chunk.shape[0] + 1] = chunk
        total = np.add.reduce(buffer[: chunk.shape[0] + 1], axis=0)
    return total


class _ColumnSums:
    """The column sums of C in row order, continued on the worker holding the next blocks, as a
    Dask actor: :func:`center_blocks` calls it straight from the driver, once per run of
    consecutive blocks on one worker, where a task per block went through the scheduler."""

    def after(self, keys: list, carry: np.ndarray | None) -> np.ndarray:
        for key in keys:
            carry = _sum_after(block_data(key), carry)
        return carry


def _centered(C, mean):
    """Dense C, as float64, minus the column mean (a new block)."""
    return np.subtract(as_float(C), mean, order="C")


def center_blocks(client, parts: list, sizes: list[int]) -> tuple[list, np.ndarray]:
    """Dense C's blocks (``sizes`` rows each) centered by its column mean, as scikit-learn
    centers a dense X before k-means: ``(centered blocks, mean)``. The column sums are taken in
    row order, block after block, as NumPy sums the whole matrix, so the mean is the in-memory
    mean to the last bit: the sum is carried from worker to worker through the driver
    (:class:`_ColumnSums`). The centered blocks are new, spread evenly over the workers
    (:func:`kmdr.kmeans._block_dispatch.placement`); the caller lets the originals go.

    Why so: the sum is a chain, one block after another, so its cost is the hops between them.
    On 1,000,000 x 100 in 8 blocks spread alternately over 2 workers (nothing else running),
    the whole centering took a median 0.695 s with a task per block, each waiting for the one
    before through the scheduler, and 0.265 s with a call per run of blocks on one worker,
    driver to worker and back (8 times each; the chain's arithmetic is 64 ms of it)."""
    import itertools

    from distributed import wait

    wait(parts)
    holders = client.who_has(parts)
    owner = [min(holders[part.key]) for part in parts]
    summers = {
        worker: client.submit(
            _ColumnSums, workers=[worker], allow_other_workers=False, actor=True, pure=False
        )
        for worker in dict.fromkeys(owner)
    }
    total = None
    try:
        for worker, run in itertools.groupby(range(len(parts)), key=owner.__getitem__):
            keys = [parts[i].key for i in run]
            total = summers[worker].result().after(keys, total).result()
    except Exception:  # a worker lost says so; any other error is the call's own
        check_workers(client, summers)
        raise
    del summers  # the actors go with their futures
    mean = total / sum(sizes)
    return spread(client, _centered, parts, sizes, mean), mean
