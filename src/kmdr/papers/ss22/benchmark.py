"""The hard instance of Schwiegelshohn and Sheikh-Omar (ESA 2022, Section 4.2): the Benchmark.

It is generated as the authors' ``gen_benchmark`` does (the authors' repository
sheikhomar/eval-k-means-coresets, ``xrun/data/gen_benchmark.py``): the first block of columns is
the centred k x k identity, ``(k - 1)/k`` on the diagonal and ``-1/k`` elsewhere, repeated down
the ``n = k**alpha`` rows (row ``i`` is the ``i mod k``-th unit vector, centred); each further
block of k columns is the block before it read at row ``i // k``, so that the ``alpha`` blocks
spell the base-k digits of ``i``. Every point is then one of ``k**alpha`` distinct points of
equal norm, and any k centers leave most of the cost on the blocks they cannot fit: sampling
that ignores this structure misses whole digits. Block ``b`` (0-based) is scaled by ``beta**-b``
when ``beta > 1`` (the authors ran beta = 1, 1.5 and 2).

The instance is deterministic: there is no seed to take. The authors' sizes are k = 10 with
alpha = 6 (1,000,000 x 60), k = 20 with alpha = 5, and k = 30, 40, 50 with alpha = 4
(:data:`AUTHORS_ALPHA`).
"""

from __future__ import annotations

import numpy as np

from kmdr.coresets.evaluation import SolutionFamily, distortion

__all__ = [
    "AUTHORS_ALPHA",
    "BENCHMARK_EPSILONS",
    "BENCHMARK_FAMILY",
    "BenchmarkSolutions",
    "check_benchmark_shape",
    "make_benchmark",
]

#: The authors' thresholds of a starved (deficient) cluster on the Benchmark.
BENCHMARK_EPSILONS = (0.01, 0.05, 0.1, 0.3, 0.5)

#: The alpha the authors generated for each k (``xrun/go.py``'s BenchmarkDataset).
AUTHORS_ALPHA = {10: 6, 20: 5, 30: 4, 40: 4, 50: 4}


def make_benchmark(
    k: int, alpha: int, beta: float = 1.0, scale: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """The Benchmark instance of ``k**alpha`` points in ``alpha * k`` dimensions.

    Parameters
    ----------
    k : int
        The size of the first block (a centred k x k identity), and the k of its clustering.
    alpha : int
        The number of column blocks.
    beta : float, default=1.0
        Block ``b`` is scaled by ``beta**-b`` when ``beta > 1``; ``beta <= 1`` scales nothing, as
        in the authors' generator.
    scale : float, default=1.0
        Every coordinate times ``scale`` (not the authors': kmdr's diagnostic). ``scale=k`` with
        ``beta=1`` makes the coordinates the integers ``k - 1`` and ``-1``, so that every
        distance is computed exactly and the instance's ties (its points are equidistant block
        by block) stay ties in the authors' seeding loop's arithmetic too (StreamKM++'s and Ray
        Maker's), where at ``scale=1`` the rounding of ``(k - 1)/k`` and ``-1/k`` breaks them;
        the rough solution's explicit differences are exact at both scales. Distortions are
        ratios of costs: the scale does not change them.

    Returns
    -------
    X : ndarray of shape (k**alpha, alpha * k)
    labels : ndarray of shape (k**alpha,)
        The first block's digit ``i mod k`` of each row: the partition that the first block, the
        one with most of the cost when beta > 1, induces.
    """
    if k < 2 or alpha < 1:
        raise ValueError(f"the Benchmark needs k >= 2 and alpha >= 1, got k={k}, alpha={alpha}")
    n = k**alpha
    rows = np.arange(n)
    block = np.full((k, k), -1.0 / k)
    np.fill_diagonal(block, (k - 1) / k)
    if scale != 1:  # from the integers, so that scale = k gives them exactly
        block = (np.eye(k) * k - 1) * (scale / k)
    X = np.empty((n, alpha * k))
    for b in range(alpha):
        # block b of row i is block 0 of row i // k**b: the b-th base-k digit of i
        digit = (rows // k**b) % k
        X[:, b * k : (b + 1) * k] = block[digit]
        if beta > 1:
            X[:, b * k : (b + 1) * k] *= beta ** (-float(b))
    return X, rows % k


def check_benchmark_shape(n: int, d: int, k: int) -> int:
    """The Benchmark's alpha for data of n rows and d columns with k clusters, or one line
    (``ValueError``) for data of another shape."""
    alpha = d // k
    if alpha < 1 or d != alpha * k or n != k**alpha:
        raise ValueError(
            f"kind_params.solutions: 'benchmark' needs ss22's Benchmark (k**alpha rows of "
            f"alpha * k columns for k = {k}), got {n} x {d}"
        )
    return alpha


class BenchmarkSolutions:
    """The Benchmark's own solutions (the module docstring's ``benchmark``) on data ``A`` with k
    clusters: its blocks' digits and cluster means, computed once for every coreset of A."""

    def __init__(self, A: np.ndarray, k: int):
        import scipy.sparse as sp  # here, not at import: the paper is read by every command

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
        from sklearn.metrics import pairwise_distances_argmin_min

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


class _BenchmarkFamily(SolutionFamily):
    """``kind_params.solutions: [benchmark]``: the Benchmark's own solutions (its authors' only
    evaluation of a Benchmark coreset, ``xrun/eval_benchmark.py``): for each block a of the
    instance and each eps in :data:`BENCHMARK_EPSILONS`, the means of the clusters C_i^a (the
    rows whose a-th digit is i) that the coreset does not starve, the coreset's weight on C_i^a
    (its points snapped to their nearest point of the instance) being at least
    ``(1 - eps) |C_i^a|``. A (block, eps) with no such cluster counts as distortion 0, as
    theirs."""

    def check(self, n_samples, n_features, n_clusters):
        check_benchmark_shape(n_samples, n_features, n_clusters)

    def prepare(self, A, k):
        return BenchmarkSolutions(A, k)

    def measure(self, prepared, A, points, weights, k, rng, seeded):
        return prepared.distortions(points, weights)


#: The Benchmark's solutions, declared by the paper as the family ``benchmark``.
BENCHMARK_FAMILY = _BenchmarkFamily()
