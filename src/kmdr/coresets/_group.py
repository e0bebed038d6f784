"""Group sampling following Schwiegelshohn and Sheikh-Omar's code (ESA 2022, Section 3).

Cohen-Addad, Saulpic and Schwiegelshohn's construction (STOC 2021), in the choices of the authors'
code (sheikhomar/eval-k-means-coresets, ``gs/source/coresets/group_sampling.cpp``, called from
``gs/source/main.cpp`` with 2k seeds, beta = 10000, H = 4 groups):

1. a rough solution A: 2k k-means++ seeds, every row assigned to its nearest by their tie rule
   (a tie to the seed of the lowest row index; :mod:`kmdr.coresets._bicriteria`), a row's cost
   ``cost(p, A)`` its Euclidean *distance* to its seed, not the square, as their
   ``ClusterAssignmentList`` stores it (:class:`GroupSamplingSquared`, ``group_squared``, is the
   textbook version with squared distances);
2. rings: row p of cluster c with average cost Delta_c is in ring l when
   ``Delta_c 2^l <= cost(p, A) < Delta_c 2^(l+1)``, for l from ``-floor(log10 beta)`` to
   ``floor(log10 beta)``; cheaper rows ("shortfall") are moved to their center, which weighs
   their number; dearer rows are "overshot";
3. groups: each non-empty ring of a cluster is a group (the authors' code makes one per cluster
   and ring: the H cost ranges it checks decide nothing more), and each cluster's overshot rows
   are a group for every one of the five ranges ``j = 0..4`` its overshot cost falls in, with
   range ``H - 1 = 3`` open below, so that a cluster whose overshot cost is in
   ``[2^-4, 2^-3) cost(O) / k`` has its overshot rows in two groups, as there;
4. sampling: a group G expecting ``T_G = m cost(G) / cost(A) < 1`` draws moves its rows to their
   center; one expecting at least ``|G|`` draws is taken whole (weight 1); the others share the
   draws left in proportion to their cost, rounded stochastically, drawn uniformly with replacement
   inside the group and weighted ``cost(G) / (T_G cost(p, A))``, all as the authors do.

Where kmdr differs from their code: the seeds are drawn by scikit-learn's k-means++ (the same
D^2 draws, not their random stream or arithmetic), the first in proportion to the rows' weights
(theirs is uniform: their rows have no weights); a row's cost is its weight times its distance and
a cluster's size its rows' weight (their rows all weigh 1); a row at its seed, or every row of a
cluster of cost 0, is a shortfall row where their code stops with an error; a sampled row is drawn
in proportion to its weight inside its group (theirs uniformly: the same with unit weights).
"""

from __future__ import annotations

from numbers import Integral
from typing import ClassVar

import numpy as np
from sklearn.utils._param_validation import Interval

from kmdr.coresets._base import BaseCoreset
from kmdr.coresets._bicriteria import bicriteria

__all__ = ["GroupSampling", "GroupSamplingSquared"]


def _rings(dist, average, lowest, highest):
    """Each row's ring l (``average 2^l <= dist < average 2^(l+1)``), clipped to one below
    ``lowest`` (shortfall) or one above ``highest`` (overshot)."""
    # a row at its seed (cost 0) is below every ring: moved to its center, as a shortfall row;
    # so is every row of a cluster of cost 0, where the authors' code stops with an error
    with np.errstate(divide="ignore", invalid="ignore"):
        ring = np.floor(np.log2(dist / average))
    ring = np.clip(np.nan_to_num(ring, nan=lowest - 1, neginf=lowest - 1), lowest - 1, highest + 1)
    # the logarithm may round across a boundary: settle it with the products the bounds are
    below = dist < average * np.exp2(ring)
    above = dist >= average * np.exp2(ring + 1)
    ring = np.clip(ring - below + above, lowest - 1, highest + 1)
    ring[average == 0] = lowest - 1
    return ring.astype(int)


class GroupSampling(BaseCoreset):
    """Group sampling, following the authors' code (the module says where kmdr differs).

    Parameters
    ----------
    n_clusters, coreset_size, random_state
        As :class:`~kmdr.coresets.BaseCoreset`.
    beta : int, default=10000
        Rings run over ``l`` in ``[-floor(log10 beta), floor(log10 beta)]``.
    n_groups : int, default=4
        H: the cost ranges a cluster's ring falls in (the last open below).
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseCoreset._parameter_constraints,
        "beta": [Interval(Integral, 10, None, closed="left")],
        "n_groups": [Interval(Integral, 2, None, closed="left")],
    }

    #: bumped when a change to the construction changes its output (see BaseCoreset)
    compat_version = 2

    #: whether ``cost(p, A)`` is the squared distance (the textbook's) rather than the distance
    _squared = False

    def __init__(self, n_clusters=8, coreset_size=200, random_state=None, beta=10000,
                 n_groups=4):  # fmt: skip
        super().__init__(n_clusters, coreset_size, random_state)
        self.beta = beta
        self.n_groups = n_groups

    def _groups(self, labels, dist, cost, sizes):
        """The groups' rows, in the authors' order (rings by l, then clusters; then overshot)."""
        k = sizes.size
        highest = int(np.floor(np.log10(self.beta)))
        average = np.bincount(labels, weights=cost, minlength=k) / np.maximum(sizes, 1e-300)
        ring = _rings(dist, average[labels], -highest, highest)
        # one group per (ring, cluster), by ring then cluster, each's rows in order
        in_rings = np.flatnonzero(np.abs(ring) <= highest)
        # a small integer key: numpy sorts it stably by radix, in one pass
        key = (ring[in_rings] + highest) * k + labels[in_rings]
        key = key.astype(np.min_scalar_type(-(2 * highest + 1) * k))
        order = np.argsort(key, kind="stable")
        starts = np.flatnonzero(np.diff(key[order], prepend=-1))
        groups = np.split(in_rings[order], starts[1:])
        overshot = ring > highest
        total = cost[overshot].sum()
        for c in range(k):
            rows = np.flatnonzero(overshot & (labels == c))
            if rows.size == 0:
                continue
            cluster_cost = cost[rows].sum()
            for j in range(5):  # the authors loop over five ranges with H = 4 (see above)
                lower, upper = total / k * 2.0**-j, total / k * 2.0 ** (1 - j)
                if j == 0:
                    inside = cluster_cost >= lower
                elif j == self.n_groups - 1:
                    inside = cluster_cost < upper
                else:
                    inside = lower <= cluster_cost < upper
                if inside:
                    groups.append(rows)
        return [g for g in groups if g.size], ring < -highest

    def _build(self, X, weight, rng):
        labels, dist = bicriteria(X, weight, 2 * self.n_clusters, rng, squared=self._squared)
        cost = weight * dist
        sizes = np.bincount(labels, weights=weight)
        groups, shortfall = self._groups(labels, dist, cost, sizes)
        center_weights = np.bincount(labels[shortfall], weights=weight[shortfall],
                                     minlength=sizes.size)  # fmt: skip
        total, m = cost.sum(), self.coreset_size
        rows, row_weights, sampled = [], [], []
        remaining = m
        for group in groups:
            expected = m * cost[group].sum() / total
            if expected < 1:
                center_weights += np.bincount(labels[group], weights=weight[group],
                                              minlength=sizes.size)  # fmt: skip
            elif expected >= group.size:
                rows.append(group)
                row_weights.append(weight[group])
                remaining -= group.size
            else:
                sampled.append(group)
        remaining = max(remaining, 0)
        sampled_cost = sum(cost[g].sum() for g in sampled)
        for group in sampled:
            group_cost = cost[group].sum()
            expected = remaining * group_cost / sampled_cost
            draws = int(np.floor(expected) + (rng.uniform() < expected - np.floor(expected)))
            p = weight[group] / weight[group].sum()
            drawn = group[rng.choice(group.size, size=draws, p=p)]
            rows.append(drawn)
            row_weights.append(group_cost / (expected * dist[drawn]))
        rows = np.concatenate(rows) if rows else np.empty(0, dtype=np.intp)
        row_weights = np.concatenate(row_weights) if row_weights else np.empty(0)
        return self._set_points(X, weight, rows, row_weights, labels, center_weights)


class GroupSamplingSquared(GroupSampling):
    """Group sampling with squared distances: kmdr's variant of ``group``.

    Cohen-Addad, Saulpic and Schwiegelshohn's construction as their paper states it (rings and
    groups on the squared distance ``cost(p, A)`` of k-means), which kmdr ran under the name
    ``group`` before its rough solution was matched to the authors' code, whose costs are
    distances. Everything else is ``group``'s: the same rough solution and tie rule, rings,
    groups, draws and weights, on squared distances. It exists to show what the authors' choice
    of distance changes.
    """

    _squared = True
