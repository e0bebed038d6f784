"""Ray Maker, the heuristic Schwiegelshohn and Sheikh-Omar proposed and evaluated (ESA 2022,
Section 3), following their code (sheikhomar/eval-k-means-coresets,
``gs/include/coresets/ray.hpp``, called from ``gs/source/main.cpp`` with 2k seeds and at most 20
rays per cluster).

1. A rough solution: 2k k-means++ seeds, every row left with the seed the seeding loop's own
   strict-``<`` updates gave it, in that loop's arithmetic
   (:func:`~kmdr.coresets._seeding.seeding_loop`, as their ``Ray Maker`` takes the clusters of
   ``pickInitialCentersViaKMeansPlusPlus``); the clusters in their seeds' row order, a seed left
   with no row making none.
2. Rays: cluster C, seeded at its row o, gets ``min(20, ceil(|C| / (2 t)))`` lines through o in
   uniformly random directions u, where ``t = m / 2k`` is the points each cluster should give;
   each row x of C goes to the line nearest to it, at its position ``(x - o).u / (u.u)`` along
   it, the distance being the norm of the explicit difference ``position u - (x - o)`` and the
   first line strictly nearest winning, as theirs.
3. Each line holding ``|R|`` rows is cut into ``ceil(|R| / |C| * t)`` groups by optimal
   one-dimensional k-means of the positions (the kmeans1d package, which the authors' code
   copies), not capped at ``|R|``, as theirs; each group of more than one row becomes its mean,
   weighing its size.

Kept from the authors' code, for the numbers to be theirs: a line given at most one group gives
no point, and neither does a group of one row, so the coreset's weights can add up to less than
n (this is part of why Ray Maker's distortion is high in their study). With ``m <= 2k`` every
line is given at most one group (``|R| <= |C|`` and ``t <= 1``), so their code's coreset is empty
there: kmdr refuses it with a one-line :class:`ValueError` before any work, and refuses as well
any coreset left empty otherwise (every group of one row), where theirs would return nothing.

Where kmdr differs from their code: the draws (seeds and directions) are NumPy's, not their random
stream, and the seeding loop's own differences (:mod:`kmdr.coresets._seeding`); a position's dot
product and ``u.u`` are summed by BLAS, not column by column, and the nearest line is found by the
expansion ``|x - o|^2 - position^2 u.u`` with only the lines within its rounding of the nearest
measured by explicit differences, so that a line nearer by less than that rounding may differ
from theirs; a group's mean and size are weighted by the rows' weights (their rows weigh 1).
"""

from __future__ import annotations

from numbers import Integral
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval

from kmdr.coresets._base import BaseCoreset
from kmdr.coresets._seeding import seeding_loop

__all__ = ["RayMaker"]


def _split_by(labels, n_labels):
    """The positions of each label 0 .. n_labels - 1 in ``labels``, each in increasing order
    (as ``np.flatnonzero(labels == c)``), from one stable sort: O(n log n) instead of one pass
    over ``labels`` a label."""
    # a label this small sorts stably by radix, in one pass
    order = np.argsort(labels.astype(np.min_scalar_type(n_labels)), kind="stable")
    return np.split(order, np.cumsum(np.bincount(labels, minlength=n_labels)))[:-1]


def _squared_norms(rows, chunk=2048):
    """Each row's squared norm, as ``(rows**2).sum(axis=1)`` sums it (the same bits: a row's
    sum does not depend on the others), a chunk of rows at a time so that the squares stay in
    cache."""
    return np.concatenate(
        [(rows[start : start + chunk] ** 2).sum(axis=1) for start in range(0, len(rows), chunk)]
        or [np.empty(0)]
    )


def _nearest_ray(offsets, directions):
    """Each row's nearest line through the seed (``offsets``: the rows minus the seed) and its
    position along it, as the authors' ``RandomRay`` decides up to the rounding of its sums
    (BLAS's here, column by column there): the position is
    ``(x - o).u / (u.u)`` (u.u is 1 up to rounding), the distance the norm of the explicit
    difference ``position u - (x - o)``, the first line strictly nearest winning. The distances
    are found by the expansion ``|x - o|^2 - position^2 u.u`` and only the lines within its
    rounding of the nearest are measured by explicit differences."""
    d = offsets.shape[1]
    norms = np.einsum("ij,ij->j", directions.T, directions.T)  # u.u, each line's
    lengths = (offsets @ directions.T) / norms
    sq = _squared_norms(offsets)
    expanded = sq[:, None] - lengths**2 * norms
    best = expanded.min(axis=1)
    slack = 16 * (d + 2) * np.finfo(np.float64).eps * (sq + 1e-300)
    near = expanded <= (best + 2 * slack)[:, None]
    nearest = near.argmax(axis=1)
    rows, rays = np.nonzero(near & (near.sum(axis=1) > 1)[:, None])
    if rows.size:
        diff = lengths[rows, rays, None] * directions[rays] - offsets[rows]
        measured = np.einsum("ij,ij->i", diff, diff)
        first = np.flatnonzero(np.diff(rows, prepend=-1))
        smallest = np.repeat(np.minimum.reduceat(measured, first), np.diff(first, append=rows.size))
        winners = np.flatnonzero(measured == smallest)
        winners = winners[np.flatnonzero(np.diff(rows[winners], prepend=-1))]
        nearest[rows[winners]] = rays[winners]
    return nearest, lengths[np.arange(nearest.size), nearest]


class RayMaker(BaseCoreset):
    """Ray Maker, following the authors' code (the module says where kmdr differs).

    Parameters
    ----------
    n_clusters, coreset_size, random_state
        As :class:`~kmdr.coresets.BaseCoreset`.
    max_rays : int, default=20
        The most lines through one cluster's seed.
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseCoreset._parameter_constraints,
        "max_rays": [Interval(Integral, 1, None, closed="left")],
    }

    #: bumped when a change to the construction changes its output (see BaseCoreset)
    compat_version = 2

    def __init__(self, n_clusters=8, coreset_size=200, random_state=None, max_rays=20):
        super().__init__(n_clusters, coreset_size, random_state)
        self.max_rays = max_rays

    def _build(self, X, weight, rng):
        import kmeans1d  # the authors' one-dimensional k-means (Grønlund et al.'s SMAWK form)

        n_seeds = min(2 * self.n_clusters, X.shape[0])
        if self.coreset_size <= n_seeds:
            raise ValueError(
                f"ray_maker needs coreset_size above its {n_seeds} clusters (2 x n_clusters, at "
                f"most one a row), got {self.coreset_size}: each line is cut into at most m / 2k "
                "<= 1 group, which gives no point, so the coreset would be empty (as in the "
                "authors' code)"
            )
        # the rough solution: the seeding loop's own assignment, clusters in their seeds' row
        # order (the authors' std::set), a seed left with no row making none
        _, owner = seeding_loop(X, weight, n_seeds, rng)
        seeds, cluster = np.unique(owner, return_inverse=True)
        per_cluster = self.coreset_size / n_seeds
        group = np.full(X.shape[0], -1)
        n_groups = 0
        # each cluster's rows in increasing order, from one sort rather than a mask a cluster
        for members, seed in zip(_split_by(cluster, seeds.size), seeds, strict=True):
            # a cluster's rows relative to its seed, dense (a sparse matrix cannot broadcast)
            offsets = X[members]
            offsets = offsets.toarray() if sp.issparse(offsets) else offsets
            offsets -= X[[seed]].toarray() if sp.issparse(X) else X[seed]
            n_rays = int(min(self.max_rays, np.ceil(members.size / (2 * per_cluster))))
            directions = rng.standard_normal((n_rays, X.shape[1]))
            directions /= np.linalg.norm(directions, axis=1, keepdims=True)
            nearest, lengths = _nearest_ray(offsets, directions)
            for on_ray in _split_by(nearest, n_rays):
                # not capped at the line's rows, as theirs: kmeans1d then makes at most one
                # group a distinct position
                n_cuts = int(np.ceil(on_ray.size / members.size * per_cluster))
                if n_cuts <= 1:
                    continue
                # a list of floats: kmeans1d copies it into C faster than an array's scalars
                cut, _ = kmeans1d.cluster(lengths[on_ray].tolist(), n_cuts)
                cut = np.asarray(cut)
                sizes = np.bincount(cut, minlength=n_cuts)
                big = sizes > 1
                renumbered = np.full(n_cuts, -1)
                renumbered[big] = n_groups + np.arange(big.sum())
                group[members[on_ray]] = renumbered[cut]
                n_groups += int(big.sum())
        grouped = group >= 0
        center_weights = np.bincount(group[grouped], weights=weight[grouped], minlength=n_groups)
        if not (center_weights > 0).any():
            raise ValueError(
                f"ray_maker's coreset is empty: every group its lines were cut into holds one row "
                f"(or rows of weight 0), which gives no point, as in the authors' code; its "
                f"{n_seeds} clusters are too small for coreset_size={self.coreset_size}"
            )
        return self._set_points(X, weight, [], [], group, center_weights)
