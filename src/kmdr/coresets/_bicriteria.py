"""The rough solution sensitivity and group sampling start from: k-means++ seeding, no Lloyd step.

The authors' constructions (sheikhomar/eval-k-means-coresets, ``gs/source/main.cpp``) seed
``2k`` centers by plain k-means++ (one candidate per step, their ``KMeans(2k, true, 0)``) and
assign every point to its nearest seed: a bicriteria approximation, cheap and good enough for
sensitivities. scikit-learn's :func:`~sklearn.cluster.kmeans_plusplus` with ``n_local_trials=1``
is that seeding.
"""

from __future__ import annotations

from sklearn.cluster import kmeans_plusplus
from sklearn.metrics import pairwise_distances_argmin_min

__all__ = ["bicriteria"]


def bicriteria(X, weight, n_centers, rng):
    """Seed ``n_centers`` centers by plain weighted k-means++ and assign each row to its nearest.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
        Each row's nearest seed.
    sq_dist : ndarray of shape (n_samples,)
        Its squared distance to that seed (a row's cost is ``weight * sq_dist``).
    """
    n_centers = min(n_centers, X.shape[0])
    centers, _ = kmeans_plusplus(
        X, n_centers, sample_weight=weight, random_state=rng, n_local_trials=1
    )
    labels, dist = pairwise_distances_argmin_min(X, centers)
    return labels, dist**2
