"""Ray Maker, the heuristic Schwiegelshohn and Sheikh-Omar proposed and evaluated (ESA 2022,
Section 3), as their code runs it (sheikhomar/eval-k-means-coresets,
``gs/include/coresets/ray.hpp``, called from ``gs/source/main.cpp`` with 2k seeds and at most 20
rays per cluster).

1. A rough solution: 2k plain k-means++ seeds, every row assigned to its nearest.
2. Rays: cluster C, seeded at its row o, gets ``min(20, ceil(|C| / (2 t)))`` lines through o in
   uniformly random directions, where ``t = m / 2k`` is the points each cluster should give;
   each row of C goes to the line nearest to it, at its position along that line.
3. Each line holding ``|R|`` rows is cut into ``ceil(|R| / |C| * t)`` groups by optimal
   one-dimensional k-means of the positions (the kmeans1d package, which the authors' code
   copies), and each group of more than one row becomes its mean, weighing its size.

Kept from the authors' code, for the numbers to be theirs: a line given at most one group gives
no point, and neither does a group of one row, so the coreset's weights can add up to less than
n (this is part of why Ray Maker's distortion is high in their study).
"""

from __future__ import annotations

from numbers import Integral
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import kmeans_plusplus
from sklearn.metrics import pairwise_distances_argmin_min
from sklearn.utils._param_validation import Interval

from kmdr.coresets._base import BaseCoreset

__all__ = ["RayMaker"]


class RayMaker(BaseCoreset):
    """Ray Maker, as the authors' code runs it.

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

    def __init__(self, n_clusters=8, coreset_size=200, random_state=None, max_rays=20):
        super().__init__(n_clusters, coreset_size, random_state)
        self.max_rays = max_rays

    def _build(self, X, weight, rng):
        import kmeans1d  # the authors' one-dimensional k-means (Grønlund et al.'s SMAWK form)

        n_seeds = min(2 * self.n_clusters, X.shape[0])
        centers, seeds = kmeans_plusplus(X, n_seeds, sample_weight=weight, random_state=rng,
                                         n_local_trials=1)  # fmt: skip
        cluster, _ = pairwise_distances_argmin_min(X, centers)
        per_cluster = self.coreset_size / n_seeds
        group = np.full(X.shape[0], -1)
        n_groups = 0
        for c, seed in enumerate(seeds):
            members = np.flatnonzero(cluster == c)
            # a cluster's rows relative to its seed, dense (a sparse matrix cannot broadcast)
            block = X[np.append(members, seed)]
            block = block.toarray() if sp.issparse(block) else block
            offsets = block[:-1] - block[-1]
            n_rays = int(min(self.max_rays, np.ceil(members.size / (2 * per_cluster))))
            directions = rng.standard_normal((n_rays, X.shape[1]))
            directions /= np.linalg.norm(directions, axis=1, keepdims=True)
            lengths = offsets @ directions.T
            # the squared distance to a line through the seed: what is left off its projection
            nearest = np.argmin((offsets**2).sum(axis=1)[:, None] - lengths**2, axis=1)
            for ray in range(n_rays):
                on_ray = nearest == ray
                n_cuts = min(int(np.ceil(on_ray.sum() / members.size * per_cluster)),
                             int(on_ray.sum()))  # fmt: skip
                if n_cuts <= 1:
                    continue
                cut, _ = kmeans1d.cluster(lengths[on_ray, ray], n_cuts)
                cut = np.asarray(cut)
                sizes = np.bincount(cut, minlength=n_cuts)
                big = sizes > 1
                renumbered = np.full(n_cuts, -1)
                renumbered[big] = n_groups + np.arange(big.sum())
                group[members[on_ray]] = renumbered[cut]
                n_groups += int(big.sum())
        grouped = group >= 0
        center_weights = np.bincount(group[grouped], weights=weight[grouped], minlength=n_groups)
        return self._set_points(X, weight, [], [], group, center_weights)
