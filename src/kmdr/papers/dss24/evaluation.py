"""How Draganov, Saulpic and Schwiegelshohn (SIGMOD 2024) measure a coreset: their distortion as
the text defines it and as their code computes it, two families of solutions
(:class:`~kmdr.coresets.evaluation.SolutionFamily`) declared by :data:`kmdr.papers.dss24.PAPER`.

The text (its "Metrics" paragraph) takes ss22's distortion
``max(cost(P, C_O) / cost(O, C_O), cost(O, C_O) / cost(P, C_O))``, ``C_O`` "a candidate solution
computed over the coreset" O. Their code (the repository Andrew-Draganov/Fast-Coreset-Generation,
``make_coreset.evaluate_coreset``, called once per coreset by ``experiment_utils/get_algorithm.py``)
computes C_O as ``kmeans_plusplus.cluster_pp(coreset, k, weights)``: a first row, then ``2k``
k-means++ draws in proportion to the coreset's weights times the squared distances, so ``2k + 1``
seeds, and no Lloyd step. Then it costs each side against its *own* clusters' means
(``utils.get_cluster_assignments``): the data's rows and the coreset's points are each assigned
to their nearest seed, and each costed against the mean of its side's cluster (the coreset's
means unweighted, the costs then multiplied by the weights), squared for every norm, k-median
runs (``norm = 1``) included.

- ``coreset_solution``: the text's distortion, both costs against the same centers C_O, C_O
  drawn as the code draws it (``2k + 1`` weighted k-means++ seeds, one draw per seed; the first
  drawn by weight here, uniformly in the code: the same on an unweighted coreset);
- ``code_means``: the code's measure on that C_O, each side against its own clusters' means.

Each draws one C_O per coreset, as the code (kmdr's own families draw
:data:`~kmdr.coresets.evaluation.CANDIDATES`). A perfect coreset (the data, weight 1 each) has
distortion 1 under both.
"""

from __future__ import annotations

import numpy as np

from kmdr.coresets.evaluation import SolutionFamily, distortion, kmeanspp

__all__ = ["CODE_MEANS", "CORESET_SOLUTION", "code_means_measure", "code_solution"]

# rows read at a time when costing against the clusters' means
_CHUNK = 1 << 16


def code_solution(points, weights, k: int, rng) -> np.ndarray:
    """The code's C_O: ``2k + 1`` weighted k-means++ seeds of the coreset (fewer when it has
    fewer points), one draw per seed, no Lloyd step."""
    return kmeanspp(points, weights, min(2 * k + 1, points.shape[0]), rng)


def _cost_to_own_means(X, labels, n_clusters, weights=None) -> float:
    """Each row's squared distance to the unweighted mean of its cluster in X (dense or CSR),
    summed with ``weights`` (all 1 when None): ``get_cluster_assignments``' costs."""
    import scipy.sparse as sp
    from sklearn.utils.extmath import row_norms

    n = X.shape[0]
    weights = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    member = sp.csr_array((np.ones(n), (labels, np.arange(n))), shape=(n_clusters, n))
    means = member @ X
    means = np.asarray(means.todense() if sp.issparse(means) else means, dtype=float)
    means /= np.maximum(np.bincount(labels, minlength=n_clusters), 1)[:, None]
    sq_means = row_norms(means, squared=True)
    total = 0.0
    for lo in range(0, n, _CHUNK):  # bounded memory: no n-by-d copy of the means
        block, near = X[lo : lo + _CHUNK], labels[lo : lo + _CHUNK]
        if sp.issparse(block):
            cross = np.asarray(block.multiply(means[near]).sum(axis=1)).ravel()
            sq = np.maximum(row_norms(block, squared=True) - 2 * cross + sq_means[near], 0.0)
        else:
            sq = row_norms(block - means[near], squared=True)
        total += float(weights[lo : lo + _CHUNK] @ sq)
    return total


def code_means_measure(A, points, weights, centers) -> dict:
    """The code's measure of the solution ``centers``: the data A and the coreset each assigned
    to their nearest center and costed against their own clusters' means, the coreset's
    unweighted, its costs then weighed (``make_coreset.evaluate_coreset``)."""
    from sklearn.metrics import pairwise_distances_argmin

    n_centers = centers.shape[0]
    real = _cost_to_own_means(A, pairwise_distances_argmin(A, centers), n_centers)
    core_labels = pairwise_distances_argmin(points, centers)
    coreset = _cost_to_own_means(points, core_labels, n_centers, weights)
    return {"real_cost": real, "coreset_cost": coreset, "distortion": distortion(real, coreset)}


class _CoresetSolution(SolutionFamily):
    """``coreset_solution``: the text's distortion on the code's C_O (module docstring); both
    costs against the same centers, kmdr's :func:`~kmdr.coresets.evaluation.measure`."""

    def candidates(self, points, weights, k, rng, seeded):
        return [code_solution(points, weights, k, rng)]


class _CodeMeans(SolutionFamily):
    """``code_means``: the code's measure on its C_O (module docstring)."""

    def candidates(self, points, weights, k, rng, seeded):
        return [code_solution(points, weights, k, rng)]

    def measure(self, prepared, A, points, weights, k, rng, seeded):
        return [code_means_measure(A, points, weights, c) for c in self.candidates(
            points, weights, k, rng, seeded)]  # fmt: skip


#: The text's distortion, declared by the paper as the family ``coreset_solution``.
CORESET_SOLUTION = _CoresetSolution()
#: The code's measure, declared by the paper as the family ``code_means``.
CODE_MEANS = _CodeMeans()
