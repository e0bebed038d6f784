"""``mixture``: a SYNTHETIC imbalanced Gaussian mixture, to measure coreset pipelines against
k-means on all rows (1,000,000 x 100 at the defaults).

Cluster ``i`` (``i = 0 .. k-1``) has a size about proportional to ``ratio**i``: the largest holds
about ``(1 - ratio) / (1 - ratio**k)`` of the rows, the smallest ``ratio**(k-1)`` times that
(20 clusters at ratio 0.8: about 202,000 rows down to about 2,900). A uniform sample of rows
misses the small clusters that a k-means solution on all rows keeps, which is what a coreset's
sensitivity sampling is there to prevent.

The centers are ``N(0, spread^2 I)``: two centers lie about ``spread * sqrt(2 d)`` apart and a
point about ``std * sqrt(d)`` from its center, a ratio of about ``sqrt(2) * spread / std`` (14 at
the defaults) whatever ``d``. So the clusters are well separated (at the defaults every point
is nearest its own cluster's mean) but not trivially for a pipeline that sees few rows: merging
the smallest cluster into its nearest costs some 48% more at the defaults, while centers
estimated from ``m`` well-spread rows cost about ``k * d / m`` more (0.1% from a uniform sample
of 20,000 rows), so a difference of ~1% in cost is the quality of the centers, not the noise of
which clusters were found.

The matrix is drawn in tiles of :data:`TILE_VALUES` values (whole rows), each tile's noise from
its own stream, straight into the output array: memory is the matrix and nothing of its size,
any block of rows is drawn alone (:func:`mixture_rows`, bit for bit the rows of the whole), and
the tile size is part of the data's definition.
"""

from __future__ import annotations

import numpy as np

from ._base import Dataset
from ._synthetic import MixtureParams

__all__ = [
    "TILE_VALUES",
    "make_mixture",
    "mixture_cluster_sizes",
    "mixture_labels",
    "mixture_rows",
]

#: Values per tile of noise (rows of ``max(1, TILE_VALUES // n_features)``; 1 MiB of float64, so
#: a tile is scaled and shifted while in cache). Changing it changes the numbers.
TILE_VALUES = 1 << 17


def mixture_cluster_sizes(p: MixtureParams) -> np.ndarray:
    """Each cluster's number of rows (int64, non-increasing, at least 1, summing to n_samples).

    Every cluster gets one row; the other ``n - k`` rows are shared in proportion to
    ``ratio**i`` by largest remainders (Hamilton's method): each cluster gets the floor of its
    share, and the rows left over go one each to the largest fractional parts, the lower index
    first on a tie. So ``|size_i - 1 - (n - k) * w_i| < 1`` with ``w_i = ratio**i / sum_j
    ratio**j``, and ratio 1 gives sizes one apart."""
    k, extra = p.n_clusters, p.n_samples - p.n_clusters
    w = p.ratio ** np.arange(k, dtype=np.float64)
    share = extra * (w / w.sum())
    sizes = np.floor(share).astype(np.int64)
    # the shares sum to ``extra`` (to rounding far below a row), so the floors leave 0 to k-1
    # rows, one each to the largest remainders
    left = extra - int(sizes.sum())
    sizes[np.argsort(-(share - sizes), kind="stable")[:left]] += 1
    return sizes + 1


def mixture_labels(p: MixtureParams) -> np.ndarray:
    """Every row's cluster (int64, rows grouped by cluster, the largest first)."""
    return np.repeat(np.arange(p.n_clusters, dtype=np.int64), mixture_cluster_sizes(p))


def _tile_rows(p: MixtureParams) -> int:
    return max(1, TILE_VALUES // p.n_features)


def mixture_rows(p: MixtureParams, lo: int, hi: int) -> np.ndarray:
    """Rows ``lo:hi`` of :func:`make_mixture`'s matrix, bit for bit whatever the other blocks.

    The centers are drawn from the seed's stream; tile ``t`` (rows ``t*T .. (t+1)*T``, T from
    :data:`TILE_VALUES`) draws its noise from its own stream (``SeedSequence(seed,
    spawn_key=(t,))``) into the output, then is scaled by ``std`` and shifted by its rows'
    centers in place. Memory: the block and, for a block starting inside a tile, the noise of
    that tile's rows before it (drawn and discarded)."""
    d, T = p.n_features, _tile_rows(p)
    centers = np.random.default_rng(p.seed).normal(0.0, p.spread, size=(p.n_clusters, d))
    sizes = mixture_cluster_sizes(p)
    ends = np.cumsum(sizes)
    starts = ends - sizes
    X = np.empty((hi - lo, d))
    for t in range(lo // T, -(-hi // T)):
        a, b = max(lo, t * T), min(hi, (t + 1) * T)
        stream = np.random.default_rng(np.random.SeedSequence(p.seed, spawn_key=(t,)))
        if a > t * T:  # the tile's rows before the block: a normal draw cannot be jumped over
            stream.standard_normal((a - t * T) * d)
        tile = X[a - lo : b - lo]
        stream.standard_normal(out=tile)
        if p.std != 1.0:
            tile *= p.std
        first = int(np.searchsorted(ends, a, side="right"))
        last = int(np.searchsorted(ends, b - 1, side="right"))
        for c in range(first, last + 1):  # rows are grouped by cluster: a few runs per tile
            r0, r1 = max(a, starts[c]), min(b, ends[c])
            tile[r0 - a : r1 - a] += centers[c]
    return X


def make_mixture(**params) -> Dataset:
    """An imbalanced Gaussian mixture (see the module docstring): ``n_clusters`` centers from
    ``N(0, spread^2 I)`` in ``n_features`` dimensions, cluster ``i`` holding about a share
    ``ratio**i`` of the ``n_samples`` rows (:func:`mixture_cluster_sizes`), its points from an
    isotropic Gaussian of standard deviation ``std`` about its center.

    Defaults: 1,000,000 x 100, k = 20, ratio 0.8, spread 10, std 1, seed 0 (800 MB of float64,
    drawn in a few seconds). Rows are grouped by cluster, labels 0..k-1 from the largest to the
    smallest. The centers are not among the points.
    """
    p = MixtureParams.checked(params)
    n, d, k = p.n_samples, p.n_features, p.n_clusters
    sizes = mixture_cluster_sizes(p)
    return Dataset(
        name="mixture",
        X=mixture_rows(p, 0, n),
        y=mixture_labels(p),
        n_clusters=k,
        feature_names=None,
        description=(
            f"SYNTHETIC imbalanced Gaussian mixture: {n} x {d}, {k} centers "
            f"N(0, {p.spread:g}^2 I), cluster sizes {sizes[0]} down to {sizes[-1]} "
            f"(ratio {p.ratio:g}), std {p.std:g}, seed {p.seed}"
        ),
    )
