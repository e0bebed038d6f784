"""The importance-sampling constructions: uniform, lightweight and sensitivity sampling.

Each draws ``coreset_size`` rows i.i.d. from a distribution ``p`` and weighs a drawn row by
``w / (m p)``, which makes the coreset's cost of any centers an unbiased estimate of the data's.
They differ in ``p`` alone.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.extmath import row_norms, safe_sparse_dot

from kmdr.coresets._base import BaseCoreset
from kmdr.coresets._bicriteria import bicriteria

__all__ = [
    "LightweightCoreset",
    "SensitivitySampling",
    "SensitivitySamplingSquared",
    "UniformSampling",
]


def _draw(estimator, X, weight, p, rng, labels=None, center_weights=None):
    m = estimator.coreset_size
    rows = rng.choice(X.shape[0], size=m, p=p / p.sum())
    row_weights = weight[rows] / (m * (p[rows] / p.sum()))
    return estimator._set_points(X, weight, rows, row_weights, labels, center_weights)


class UniformSampling(BaseCoreset):
    """Uniform sampling: rows drawn in proportion to their weight, each weighing n/m.

    The baseline every coreset paper compares with; on data with small far clusters (the
    Benchmark instance) it misses them, which is the point of that instance.
    """

    def _build(self, X, weight, rng):
        return _draw(self, X, weight, weight, rng)


class LightweightCoreset(BaseCoreset):
    """Lightweight coresets (Bachem, Lucic, Krause, KDD 2018, Algorithm 1).

    Half uniform, half in proportion to the squared distance to the data's mean:
    ``q(x) = 1/2 * w(x)/W + 1/2 * w(x) d(x, mu)^2 / sum w d^2``. One pass over the data, no
    clustering: an additive-error guarantee where the others give a multiplicative one.
    """

    def _build(self, X, weight, rng):
        mean = np.asarray(safe_sparse_dot(weight, X) / weight.sum()).ravel()
        sq_dist = row_norms(X, squared=True) - 2 * safe_sparse_dot(X, mean) + mean @ mean
        cost = weight * np.maximum(sq_dist, 0)
        p = 0.5 * weight / weight.sum()
        if cost.sum() > 0:
            p = p + 0.5 * cost / cost.sum()
        return _draw(self, X, weight, p, rng)


class SensitivitySampling(BaseCoreset):
    """Sensitivity sampling following Schwiegelshohn and Sheikh-Omar's code (ESA 2022, Section 3).

    Following the authors' code (sheikhomar/eval-k-means-coresets,
    ``gs/source/coresets/sensitivity_sampling.cpp``): a rough solution A of ``2k`` k-means++ seeds
    (:func:`~kmdr.coresets._bicriteria.bicriteria`), each row assigned to the nearest seed with
    their tie rule (a tie to the seed of the lowest row index), ``m`` rows drawn with probability
    ``cost(p, A) / cost(A)`` and weighted ``cost(A) / (m cost(p, A))``, and A's centers added,
    center i weighing ``max(0, |C_i| - sum of the weights drawn from C_i)`` so that each cluster's
    weight adds up to its size. A center is its cluster's mean, as in the authors' code.

    ``cost(p, A)`` is, as in their ``ClusterAssignmentList``, the Euclidean *distance* of p to its
    seed (times p's weight), not its square: rows are drawn in proportion to distance.
    :class:`SensitivitySamplingSquared` (``sensitivity_squared``) is the textbook version, with
    squared distances.

    Where kmdr differs from their code: the seeds are drawn by scikit-learn's k-means++ (the
    same D^2 draws, not their random stream or their arithmetic), the first seed in proportion to
    the rows' weights (theirs is uniform: their rows have no weights), and a row's cost is its
    weight times its distance (their rows all weigh 1).
    """

    #: bumped when a change to the construction changes its output (see BaseCoreset)
    compat_version = 2

    #: whether ``cost(p, A)`` is the squared distance (the textbook's) rather than the distance
    _squared = False

    def _build(self, X, weight, rng):
        labels, dist = bicriteria(X, weight, 2 * self.n_clusters, rng, squared=self._squared)
        cost = weight * dist
        sizes = np.bincount(labels, weights=weight)
        if cost.sum() == 0:  # the seeds are the data's distinct points: they are the coreset
            return self._set_points(X, weight, [], [], labels, sizes)
        m = self.coreset_size
        rows = rng.choice(X.shape[0], size=m, p=cost / cost.sum())
        row_weights = weight[rows] * cost.sum() / (m * cost[rows])
        drawn = np.bincount(labels[rows], weights=row_weights, minlength=sizes.size)
        return self._set_points(
            X, weight, rows, row_weights, labels, np.maximum(0.0, sizes - drawn)
        )


class SensitivitySamplingSquared(SensitivitySampling):
    """Sensitivity sampling with squared distances: kmdr's variant of ``sensitivity``.

    The textbook construction (Feldman and Langberg, STOC 2011; the sensitivity of a row for
    k-means is bounded by its *squared* distance to a rough solution), which the ESA 2022 paper
    describes and kmdr ran under the name ``sensitivity`` before its rough solution was matched
    to the authors' code, whose costs are distances. Everything else is ``sensitivity``'s: the
    same rough solution and tie rule, the same draws and weights, with ``cost(p, A)`` the squared
    distance. It exists to show what the authors' choice of distance changes.
    """

    _squared = True
