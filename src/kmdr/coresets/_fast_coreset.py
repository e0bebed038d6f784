"""Fast-Coresets and welterweight coresets (Draganov, Saulpic, Schwiegelshohn, *Settling Time vs.
Accuracy Tradeoffs for Clustering Big Data*, SIGMOD 2024): sensitivity sampling on a solution
that costs less than k-means++.

Sensitivity sampling spends its time on its solution: ``2k`` k-means++ seeds and every row's
nearest, O(ndk). A Fast-Coreset (the paper's Algorithm 1) computes its solution in near-linear time
instead: a Johnson-Lindenstrauss projection to O(log k) dimensions, where
Fast-kmeans++ (:func:`~kmdr.coresets._fast_kmeanspp.fast_kmeanspp`) seeds k centers and assigns
every row to one in its tree metric; the clusters' means are then taken in the original space.
A welterweight coreset spends less on its solution another way: k-means++ with j <= k seeds, which
moves it from lightweight coresets (j = 1) towards sensitivity sampling (j = k).

Both sample rows i.i.d. with probability proportional to ``w(p) s(p)``,
``s(p) = dist^2(p, c_p) / cost(C_p, c_p) + 1 / |C_p|`` with ``C_p`` the cluster of p and ``c_p``
its center (the paper's importance scores, its eq. 1, without the factor alpha that cancels), and
weigh a drawn row ``S / (m s(p))``, S the sum of ``w s``, so that the coreset's cost is an unbiased
estimate of the data's (the paper's preliminaries).

Where the authors' code (Andrew-Draganov/Fast-Coreset-Generation, ``make_coreset.py``,
``utils.py``) differs from the text, kmdr runs the text:

- ``fast_coreset`` samples from the trees' own costs and clusters: ``bound_sensitivities`` reads
  the tree distances ``fast_cluster_pp`` returns, where the text's step 4 costs each row against
  its cluster's mean in the original space;
- ``get_coreset`` draws without replacement (``replace=False``) and rescales the weights
  ``1 / s(p)`` to sum to the data's weight, where the text draws i.i.d. and weighs
  ``S / (m s(p))``; ``bound_sensitivities`` multiplies the cluster term by ``alpha = 10`` before
  adding ``1 / |C_p|``, which the text's eq. 1 does not (its alpha multiplies both terms);
- Fast-Coresets add no centers in the code; the text's Algorithm 1 gives each cluster the weight
  its sample misses, ``(1 + eps)|C_i| - |C_i hat|`` (its output line writes it as a factor of
  every row's weight, which would not be a weight; kmdr reads it as the group-sampling
  correction it is, with eps = 0, the cluster's mean carrying it, as
  :class:`~kmdr.coresets.SensitivitySampling` does; ``add_means=False``: the code's choice);
- the code's Fast-Coresets sample from ``2k`` Fast-kmeans++ centers, the text's from k
  (``seeds_per_cluster=2``: the code's choice);
- the JL projection: ``experiment_script.py`` computes one and then reloads the data unprojected,
  so the sweeps ran Fast-Coresets in the original dimension; kmdr projects as Algorithm 1 says
  (``projection=None`` runs it unprojected);
- welterweight coresets seed ``2j + 1`` centers in the code (``cluster_pp_slow`` draws ``2j``
  after its first); kmdr seeds j, the text's "j-means solution".
"""

from __future__ import annotations

import math
import warnings
from numbers import Integral
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.random_projection import GaussianRandomProjection, SparseRandomProjection
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.extmath import row_norms

from kmdr.coresets._base import BaseCoreset
from kmdr.coresets._bicriteria import bicriteria
from kmdr.coresets._fast_kmeanspp import fast_kmeanspp

__all__ = ["FastCoreset", "WelterweightCoreset"]

# rows read at a time when measuring distances to the clusters' means: bounded memory on 1M rows
_CHUNK = 1 << 16
# rows projected at a time: a block and its projection stay in cache (see _transform_by_blocks)
_PROJECTION_BLOCK = 1 << 13


def _sq_dist_to_means(X, labels, weight, n_clusters):
    """Each row's squared distance to the weighted mean of its cluster, in X's space."""
    n = X.shape[0]
    member = sp.csr_array((weight, (labels, np.arange(n))), shape=(n_clusters, n))
    sizes = member.sum(axis=1)
    means = member @ X
    means = np.asarray(means.todense() if sp.issparse(means) else means)
    means /= np.where(sizes > 0, sizes, 1.0)[:, None]
    sq_dist = np.empty(n)
    sq_means = row_norms(means, squared=True)
    for lo in range(0, n, _CHUNK):
        block, near = X[lo : lo + _CHUNK], labels[lo : lo + _CHUNK]
        if sp.issparse(block):
            cross = np.asarray(block.multiply(means[near]).sum(axis=1)).ravel()
            sq = row_norms(block, squared=True) - 2 * cross + sq_means[near]
            sq_dist[lo : lo + _CHUNK] = np.maximum(sq, 0.0)
        else:
            sq_dist[lo : lo + _CHUNK] = row_norms(block - means[near], squared=True)
    return sq_dist


def _sensitivity_draw(estimator, X, weight, labels, sq_dist, rng, add_centers):
    """Draw the coreset in proportion to the importance scores of the solution ``labels``, its
    rows at ``sq_dist`` from their centers; with ``add_centers``, each cluster's mean too, weighing
    what the sample misses of the cluster's weight."""
    n_clusters = int(labels.max()) + 1
    sizes = np.bincount(labels, weights=weight, minlength=n_clusters)
    cost = weight * sq_dist
    cluster_cost = np.bincount(labels, weights=cost, minlength=n_clusters)
    share = np.divide(sq_dist, cluster_cost[labels], out=np.zeros_like(sq_dist),
                      where=cluster_cost[labels] > 0)  # fmt: skip
    size = sizes[labels]
    s = share + np.divide(1.0, size, out=np.zeros_like(size), where=size > 0)
    mass = weight * s
    total = mass.sum()
    m = estimator.coreset_size
    rows = rng.choice(X.shape[0], size=m, p=mass / total)
    row_weights = total / (m * s[rows])
    if not add_centers:
        return estimator._set_points(X, weight, rows, row_weights)
    drawn = np.bincount(labels[rows], weights=row_weights, minlength=n_clusters)
    return estimator._set_points(X, weight, rows, row_weights, labels,
                                 np.maximum(0.0, sizes - drawn))  # fmt: skip


class FastCoreset(BaseCoreset):
    """Fast-Coreset (Draganov, Saulpic, Schwiegelshohn, SIGMOD 2024, Algorithm 1).

    Parameters
    ----------
    n_clusters, coreset_size, random_state
        As :class:`~kmdr.coresets.BaseCoreset`. The coreset has ``coreset_size`` sampled rows and
        at most ``n_clusters`` clusters' means besides.
    projection : {"sparse", "gaussian"}, transformer or None, default="sparse"
        The Johnson-Lindenstrauss map the solution is computed on: scikit-learn's
        ``SparseRandomProjection`` (the authors' ``jl_proj``) or ``GaussianRandomProjection``
        to ``n_components`` dimensions; or an unfitted transformer, e.g. one of kmdr's reducers
        (``make_reducer("sign", 8)``), cloned and fitted with this ``random_state`` when its own
        is None (kmdr.coresets sits beside kmdr.reducers and imports none: the caller passes
        it); None: the rows as they are (densified if sparse).
    n_components : int or None, default=None
        The dimension of the named projections; None: ``ceil(4 ln k)``, the authors' ``jl_proj``
        at their eps = 0.5 (``ln k / eps^2``). No projection is made when it is not below the
        data's.
    n_trees : int, default=3
        Fast-kmeans++'s shifted quadtrees (the authors' ``norm + 1``).
    seeds_per_cluster : int, default=1
        Fast-kmeans++ opens ``seeds_per_cluster * k`` centers: 1 as the text's Algorithm 1, 2 as
        the authors' code (``fast_cluster_pp`` opens 2k), a finer solution to sample from.
    add_means : bool, default=True
        True: the text's steps 7-8, each cluster's mean weighing what the sample misses of its
        cluster's weight. False: the sample alone, as the preliminaries' sensitivity sampling and
        the authors' code; unbiased, and less distorted where the clusters are rough (the means
        of clusters that merge blobs lie between them).

    Attributes
    ----------
    n_components_ : int
        The dimension the solution was computed in.
    centers_ : ndarray of shape (n_centers,)
        The rows Fast-kmeans++ opened.
    (and those of :class:`~kmdr.coresets.BaseCoreset`)
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseCoreset._parameter_constraints,
        "projection": [StrOptions({"sparse", "gaussian"}), HasMethods(["fit_transform"]), None],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "n_trees": [Interval(Integral, 1, None, closed="left")],
        "seeds_per_cluster": [Interval(Integral, 1, None, closed="left")],
        "add_means": ["boolean"],
    }

    def __init__(self, n_clusters=8, coreset_size=200, random_state=None, projection="sparse",
                 n_components=None, n_trees=3, seeds_per_cluster=1, add_means=True):  # fmt: skip
        super().__init__(n_clusters, coreset_size, random_state)
        self.projection = projection
        self.n_components = n_components
        self.n_trees = n_trees
        self.seeds_per_cluster = seeds_per_cluster
        self.add_means = add_means

    def _build(self, X, weight, rng):
        reduced = self._reduced(X, rng)
        self.n_components_ = reduced.shape[1]
        n_seeds = self.seeds_per_cluster * self.n_clusters
        seeding = fast_kmeanspp(reduced, n_seeds, sample_weight=weight,
                                n_trees=self.n_trees, random_state=rng)  # fmt: skip
        self.centers_ = seeding.centers
        sq_dist = _sq_dist_to_means(X, seeding.labels, weight, seeding.centers.size)
        return _sensitivity_draw(self, X, weight, seeding.labels, sq_dist, rng, self.add_means)

    def _reduced(self, X, rng):
        if self.n_components is not None and not isinstance(self.projection, str):
            warnings.warn(
                f"n_components={self.n_components} changes nothing with projection="
                f"{self.projection!r}: it sizes the named projections only",
                UserWarning,
                stacklevel=4,
            )
        if self.projection is None:
            return X.toarray() if sp.issparse(X) else X
        if not isinstance(self.projection, str):
            reducer = clone(self.projection)
            if reducer.get_params().get("random_state", rng) is None:
                reducer.set_params(random_state=rng)
            reduced = reducer.fit_transform(X)
            return reduced.toarray() if sp.issparse(reduced) else np.asarray(reduced)
        r = self.n_components
        if r is None:
            r = max(1, math.ceil(4 * math.log(self.n_clusters)))
        if r >= X.shape[1]:
            return X.toarray() if sp.issparse(X) else X
        if self.projection == "gaussian":  # a dense product already, row-ordered
            return GaussianRandomProjection(r, random_state=rng).fit_transform(X)
        reducer = SparseRandomProjection(r, dense_output=True, random_state=rng)
        if sp.issparse(X):
            return reducer.fit_transform(X)
        return _transform_by_blocks(reducer.fit(X), X)


def _transform_by_blocks(reducer, X):
    """A fitted ``SparseRandomProjection``'s ``transform(X)`` for dense X, as a C-ordered float64
    array, computed on blocks of rows.

    Each entry is a sum over the row's features the block computes as the whole would (the same
    terms in the same order: the same value to the bit), but a sparse projection of the whole
    (scipy's sparse product, ``(components @ X.T).T``) copies X transposed and runs over columns
    of n entries, one per nonzero of the components, where a block's stay in cache: ten times
    faster on 1M rows; and its result is column-ordered where the trees read rows.
    """
    out = np.empty((X.shape[0], reducer.n_components_))
    for lo in range(0, X.shape[0], _PROJECTION_BLOCK):
        out[lo : lo + _PROJECTION_BLOCK] = reducer.transform(X[lo : lo + _PROJECTION_BLOCK])
    return out


class WelterweightCoreset(BaseCoreset):
    """Welterweight coreset (Draganov, Saulpic, Schwiegelshohn, SIGMOD 2024, among its baselines):
    sensitivity sampling on a candidate j-means solution.

    Parameters
    ----------
    n_clusters, coreset_size, random_state
        As :class:`~kmdr.coresets.BaseCoreset`.
    j : int or {"log", "sqrt"}, default="log"
        The solution's number of centers: an int, or ``int(ln k)`` / ``int(sqrt k)`` (at least 1)
        as the authors' ``j_func``; the paper sweeps 2, log k and sqrt k and defaults to log k.
        The solution is j plain k-means++ seeds, each row assigned to its nearest.

    Attributes
    ----------
    j_ : int
        The number of seeds used.
    (and those of :class:`~kmdr.coresets.BaseCoreset`)
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseCoreset._parameter_constraints,
        "j": [Interval(Integral, 1, None, closed="left"), StrOptions({"log", "sqrt"})],
    }

    def __init__(self, n_clusters=8, coreset_size=200, random_state=None, j="log"):
        super().__init__(n_clusters, coreset_size, random_state)
        self.j = j

    def _build(self, X, weight, rng):
        k = self.n_clusters
        scaled = {"log": math.log(k), "sqrt": math.sqrt(k)}
        self.j_ = max(1, int(scaled[self.j])) if isinstance(self.j, str) else int(self.j)
        labels, sq_dist = bicriteria(X, weight, self.j_, rng)
        return _sensitivity_draw(self, X, weight, labels, sq_dist, rng, add_centers=False)
