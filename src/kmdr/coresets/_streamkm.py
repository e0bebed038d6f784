"""StreamKM++ (Ackermann, Märtens, Raupach, Swierkot, Lammersen, Sohler, JEA 2012), as the
authors of the coreset study ran it, with the merge-and-reduce over row blocks that makes it a
streaming algorithm.

The authors' code (sheikhomar/eval-k-means-coresets, ``gs/source/coresets/stream_km.cpp``)
builds the coreset of the whole data in one step: ``m`` k-means++ seeds, each weighing the rows
that the seeding loop's own updates left with it (``KMeans::pickInitialCentersViaKMeansPlusPlus``,
``gs/source/clustering/kmeans.cpp``: a row moves to a new seed only when it is strictly nearer, in
that loop's arithmetic). kmdr runs that loop (:func:`~kmdr.coresets._seeding.seeding_loop`, which
says where it differs from theirs: the draws and the rows' weights), so that a row equidistant
from several seeds, everywhere on their Benchmark, goes where theirs goes; the seeds come out in
increasing row order and a seed left with no row gives no point, as theirs. (StreamKM++'s coreset
tree is a faster approximation of that seeding: kmdr's variant
:class:`~kmdr.coresets.StreamKMTree`.) That
step is :class:`StreamKMPlusPlus` with ``block_size=None``, the default. With ``block_size`` set,
the rows are read one block at a time and the step reduces each block to ``m`` weighted rows,
merged as a binary counter (StreamKM++'s buckets): two reductions of one level are merged and
reduced again to the next level, so that at most ``log2(n / block_size)`` levels of ``m`` rows
are kept besides the block being read. Its memory does not grow with n beyond that logarithm,
and X may be a memory map read block by block. (The merge-and-reduce is kmdr's: the authors ran
the one step; a merged level's rows carry weights, which the loop's draws and counts take in.)
"""

from __future__ import annotations

from numbers import Integral
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_array

from kmdr.coresets._base import BaseCoreset
from kmdr.coresets._seeding import seeding_loop

__all__ = ["StreamKMPlusPlus"]


def _reduce(points, weight, m, rng):
    """The authors' step: ``m`` k-means++ seeds among ``points`` by their seeding loop, each
    weighing the weight of the points its updates left with it (the first seed strictly nearest,
    in their arithmetic: :func:`~kmdr.coresets._seeding.seeding_loop`). Returns the seeds'
    positions in ``points``, in increasing order (their ``std::set``), and their weights; a seed
    left with no point is left out, as theirs."""
    if points.shape[0] <= m:
        return np.arange(points.shape[0]), weight
    _, owner = seeding_loop(points, weight, m, rng)
    seeds, position = np.unique(owner, return_inverse=True)
    return seeds, np.bincount(position, weights=weight, minlength=seeds.size)


class StreamKMPlusPlus(BaseCoreset):
    """StreamKM++'s coreset: ``m`` weighted k-means++ seeds, whole or by merge-and-reduce.

    Parameters
    ----------
    n_clusters, coreset_size, random_state
        As :class:`~kmdr.coresets.BaseCoreset` (the construction does not read ``n_clusters``
        beyond checking that the coreset can hold k points).
    block_size : int or None, default=None
        None: the whole data in one step, as the authors ran it. An int (at least
        ``coreset_size``): rows read in blocks of that many, merge-and-reduce.
    """

    #: bumped when a change to the construction changes its output (see BaseCoreset)
    compat_version = 2

    _parameter_constraints: ClassVar[dict] = {
        **BaseCoreset._parameter_constraints,
        "block_size": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, n_clusters=8, coreset_size=200, random_state=None, block_size=None):
        super().__init__(n_clusters, coreset_size, random_state)
        self.block_size = block_size

    def _validated(self, X):
        if self.block_size is None:
            return super()._validated(X)
        # blocks are validated as they are read: a memory map stays on disk
        self.n_features_in_ = X.shape[1]
        return X

    def _weights(self, sample_weight, X):
        if self.block_size is None or sample_weight is not None:
            return super()._weights(sample_weight, X)
        return None  # unit weights, made block by block: nothing of size n is held

    def _build(self, X, weight, rng):
        m, n = self.coreset_size, X.shape[0]
        if self.block_size is None:
            seeds, seed_weights = self._step(X, weight, m, rng)
            return self._set_points(X, weight, seeds, seed_weights)
        if self.block_size < m:
            raise ValueError(
                f"block_size={self.block_size} is smaller than coreset_size={m}: a block must "
                "hold the coreset it is reduced to"
            )
        levels: list[tuple | None] = []  # (rows of X, their weights, their values) per level
        for start in range(0, n, self.block_size):
            rows = np.arange(start, min(start + self.block_size, n))
            # read into memory (a copy, also of a memory map's rows), as a stream would be
            block = check_array(X[start : start + self.block_size], accept_sparse="csr",
                                dtype=[np.float64, np.float32], copy=True)  # fmt: skip
            block_weight = np.ones(rows.size) if weight is None else weight[rows]
            carry = self._reduced(rows, block_weight, block, m, rng)
            for level, held in enumerate(levels):
                if held is None:
                    levels[level] = carry
                    break
                carry = self._reduced(*self._merged(held, carry), m, rng)
                levels[level] = None
            else:
                levels.append(carry)
        held = [part for part in levels if part is not None]
        rows, weights, values = held[0]
        for part in held[1:]:
            rows, weights, values = self._merged((rows, weights, values), part)
        rows, weights, _ = self._reduced(rows, weights, values, m, rng)
        return self._set_points(X, weight, rows, weights)

    def _step(self, points, weight, m, rng):
        """The step that reduces weighted points to ``m`` of them (the authors' k-means++
        seeding here; a subclass may change it and keep the merge-and-reduce)."""
        return _reduce(points, weight, m, rng)

    def _reduced(self, rows, weights, values, m, rng):
        seeds, seed_weights = self._step(values, weights, m, rng)
        return rows[seeds], seed_weights, values[seeds]

    @staticmethod
    def _merged(first, second):
        values = (sp.vstack if sp.issparse(first[2]) else np.vstack)([first[2], second[2]])
        return np.concatenate([first[0], second[0]]), np.concatenate([first[1], second[1]]), values
