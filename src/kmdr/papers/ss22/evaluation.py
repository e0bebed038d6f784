"""How Schwiegelshohn and Sheikh-Omar measure a coreset: the solutions they evaluate on it and
the distortion of each, as their code does (sheikhomar/eval-k-means-coresets, ``xrun/``).

A coreset (``points``, ``weights``) is good when every set of k centers costs about the same on
it as on the data A. No one can try every set, so the authors try a few families of solutions
(:data:`SOLUTIONS`), each :data:`CANDIDATES` times, and report, per family, the largest
distortion ``max(real / coreset, coreset / real)`` of its candidates (:func:`distortion`):

- ``kmeans++``: a weighted k-means++ seeding on the coreset with no Lloyd step (their ``kmeans``
  tool run with 0 iterations), a new seeding per candidate (``calc_costs.py``, the ``KM``
  column of their tables, ``distortion`` in their ``results-raw.csv``);
- ``convex``: k random points of the convex hull of a k-means++ seeding, each a random convex
  combination of 2 of its centers drawn with replacement (``generate_random_points_within_
  convex_hull``; "Random CH", their ``distortion_synthetic2``). The seeding is made once and the
  5 candidates draw their points from it: their script keeps the seeding's ``centers.txt`` for
  the next candidate, which only the plain k-means++ loop moves away;
- ``meb``: k random points about the coreset's minimum enclosing ball (Bădoiu and Clarkson's
  100 steps from a random point, per candidate), each ``length * u / ||u||`` for
  ``u ~ N(center, I)`` and ``length ~ U(1e-5, radius)``, as their
  ``generate_arbitrary_point_within_minimum_enclosing_ball`` writes it ("Random MEB", their
  ``distortion_synthetic``): the points lie within ``radius`` of the origin, not of the center;
- ``benchmark``: on their Benchmark only, the solutions it is built to tell coresets apart with
  (``xrun/eval_benchmark.py``, the only evaluation their Benchmark rows have): for each block a
  of the instance and each eps in 0.01, 0.05, 0.1, 0.3, 0.5, the means of the clusters C_i^a
  (the rows whose a-th digit is i) that the coreset does not starve, the coreset's weight on
  C_i^a (its points snapped to their nearest point of the instance) being at least
  ``(1 - eps) |C_i^a|``. A (block, eps) with no such cluster counts as distortion 0, as theirs.

The randomness is NumPy's, from one seed per cell (theirs draws from NumPy's global state).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import kmeans_plusplus
from sklearn.metrics import pairwise_distances_argmin_min
from sklearn.utils.extmath import row_norms, safe_sparse_dot

from kmdr.config.errors import ConfigError

__all__ = [
    "CANDIDATES",
    "SOLUTIONS",
    "BenchmarkSolutions",
    "check_benchmark_shape",
    "distortion",
    "measure",
    "solutions",
]

#: The candidates of each family, the authors' five.
CANDIDATES = 5
#: The families of solutions, in the authors' names (see the module docstring).
SOLUTIONS = ("kmeans++", "convex", "meb", "benchmark")
#: The authors' thresholds of a starved (deficient) cluster on the Benchmark.
BENCHMARK_EPSILONS = (0.01, 0.05, 0.1, 0.3, 0.5)
#: Bădoiu and Clarkson's steps toward the farthest point, the authors' 100.
MEB_STEPS = 100


def distortion(real: float, coreset: float) -> float:
    """``max(real / coreset, coreset / real)``; NaN when either cost is not positive."""
    return max(real / coreset, coreset / real) if real > 0 and coreset > 0 else np.nan


def measure(A, points, weights, centers) -> dict:
    """The solution ``centers`` on the data ``A`` and on the weighted coreset ``points``: the
    partition of A, both costs and the distortion."""
    labels, dist = pairwise_distances_argmin_min(A, centers)
    real = float(np.sum(dist**2))
    _, core_dist = pairwise_distances_argmin_min(points, centers)
    coreset = float(weights @ core_dist**2)
    return {
        "labels": labels,
        "real_cost": real,
        "coreset_cost": coreset,
        "distortion": distortion(real, coreset),
    }


def kmeanspp(points, weights, k: int, rng) -> np.ndarray:
    """One weighted k-means++ seeding of the coreset, no Lloyd step (one trial per center, as
    the authors' tool draws)."""
    return kmeans_plusplus(points, k, sample_weight=weights, random_state=rng,
                           n_local_trials=1)[0]  # fmt: skip


def convex(centers: np.ndarray, k: int, rng) -> np.ndarray:
    """k random convex combinations of 2 of ``centers``, drawn with replacement."""
    out = np.empty((k, centers.shape[1]))
    for i in range(k):
        mix = rng.rand(2)
        out[i] = (mix / mix.sum()) @ centers[rng.choice(centers.shape[0], 2)]
    return out


def _dense_row(points, i: int) -> np.ndarray:
    row = points[i]
    return row.toarray().ravel() if sp.issparse(row) else np.array(row, dtype=float)


def meb(points, k: int, rng) -> np.ndarray:
    """k random points about the minimum enclosing ball of ``points`` (dense or sparse), as the
    authors draw them."""
    norms = row_norms(points, squared=True)
    center = _dense_row(points, rng.choice(points.shape[0]))
    explored = []
    for step in range(1, MEB_STEPS + 1):
        # the squared distances to the center, without a dense copy of sparse points
        farthest = int(np.argmax(norms - 2 * safe_sparse_dot(points, center)))
        explored.append(farthest)
        center += (_dense_row(points, farthest) - center) / (step + 1)
    seen = sorted(set(explored))
    far = norms[seen] - 2 * safe_sparse_dot(points[seen], center) + center @ center
    radius = float(np.sqrt(max(far.max(), 0.0)))
    out = np.empty((k, points.shape[1]))
    for i in range(k):
        u = center + rng.standard_normal(points.shape[1])
        out[i] = rng.uniform(1e-5, radius) * u / np.linalg.norm(u)
    return out


def check_benchmark_shape(n: int, d: int, k: int) -> int:
    """The Benchmark's alpha for data of n rows and d columns with k clusters, or one line
    (:class:`~kmdr.config.errors.ConfigError`) for data of another shape."""
    alpha = d // k
    if alpha < 1 or d != alpha * k or n != k**alpha:
        raise ConfigError(
            f"kind_params.solutions: 'benchmark' needs ss22's Benchmark (k**alpha rows of "
            f"alpha * k columns for k = {k}), got {n} x {d}"
        )
    return alpha


class BenchmarkSolutions:
    """The Benchmark's own solutions (the module docstring's ``benchmark``) on data ``A`` with k
    clusters: its blocks' digits and cluster means, computed once for every coreset of A."""

    def __init__(self, A: np.ndarray, k: int):
        n, d = A.shape
        self.A, self.k, self.alpha = A, k, check_benchmark_shape(n, d, k)
        self.digits = [self.snap(A, a) for a in range(self.alpha)]
        self.means = []
        for digit in self.digits:
            member = sp.csr_matrix((np.ones(n), (digit, np.arange(n))), shape=(k, n))
            self.means.append((member @ A) / np.bincount(digit, minlength=k)[:, None])
        self._real: dict = {}  # (block, clusters) -> the real cost of their means

    def snap(self, points: np.ndarray, block: int) -> np.ndarray:
        """The digit of block ``block`` of each point's nearest point of the instance. Its
        distance to a point is a sum over blocks, and every combination of digits is a point, so
        the nearest has in each block the digit whose (centred, scaled) unit vector is nearest:
        the block's largest coordinate (the first among equals, as the nearest row of smallest
        index)."""
        return np.argmax(points[:, block * self.k : (block + 1) * self.k], axis=1)

    def distortions(self, points: np.ndarray, weights: np.ndarray) -> list[dict]:
        """Every (block, eps) solution's costs and distortion on this coreset."""
        size = self.A.shape[0] / self.k
        out = []
        for a in range(self.alpha):
            mass = np.bincount(self.snap(points, a), weights=weights, minlength=self.k)
            for eps in BENCHMARK_EPSILONS:
                kept = tuple(np.flatnonzero(mass >= size * (1 - eps)))
                if not kept:  # every cluster starved: distortion 0, as theirs
                    out.append({"real_cost": 0.0, "coreset_cost": 0.0, "distortion": 0.0,
                                "n_centers": 0})  # fmt: skip
                    continue
                centers = self.means[a][list(kept)]
                if (a, kept) not in self._real:
                    _, dist = pairwise_distances_argmin_min(self.A, centers)
                    self._real[a, kept] = float(np.sum(dist**2))
                real = self._real[a, kept]
                _, core = pairwise_distances_argmin_min(points, centers)
                coreset = float(weights @ core**2)
                out.append({"real_cost": real, "coreset_cost": coreset,
                            "distortion": distortion(real, coreset),
                            "n_centers": len(kept)})  # fmt: skip
        return out


def solutions(family: str, points, weights, k: int, rng, first=None) -> list[np.ndarray]:
    """The :data:`CANDIDATES` candidate solutions of ``family`` (but ``benchmark``) on the
    coreset; ``first``: the k-means++ seedings already drawn for the cell."""
    if family == "kmeans++":
        return first if first is not None else [kmeanspp(points, weights, k, rng)
                                                for _ in range(CANDIDATES)]  # fmt: skip
    if family == "convex":
        seeding = kmeanspp(points, weights, k, rng)
        return [convex(seeding, k, rng) for _ in range(CANDIDATES)]
    if family == "meb":
        return [meb(points, k, rng) for _ in range(CANDIDATES)]
    raise ValueError(f"no candidate solutions for {family!r}")
