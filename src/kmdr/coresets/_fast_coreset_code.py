"""Fast-Coresets and welterweight coresets as the authors' code builds them (Draganov, Saulpic,
Schwiegelshohn, *Settling Time vs. Accuracy Tradeoffs for Clustering Big Data*, SIGMOD 2024; the
repository Andrew-Draganov/Fast-Coreset-Generation): the constructions behind their published
numbers where the code does not do what the text says.

kmdr's :class:`~kmdr.coresets.FastCoreset` and :class:`~kmdr.coresets.WelterweightCoreset` run
the text (their docstrings list where the code differs). These run the code, read line by line
(``make_coreset.py``, ``utils.py``, ``fast_kmeans_plusplus.py``, ``hst.py``,
``kmeans_plusplus_slow.py``, ``experiment_script.py``), so that a report can show both:

- the sensitivities are ``bound_sensitivities``': per cluster ``alpha * cost(p) / cost(C_p)``
  plus ``1 / |C_p|`` (rows counted, not weighed), ``alpha = 10``, normalised to sum to 1;
- ``get_coreset`` draws ``m`` rows *without* replacement in proportion to them (NumPy's
  ``choice``, as theirs) and weighs a drawn row ``1 / s(p)``, rescaled so that the weights sum to
  the data's; the rows' own weights enter only that sum;
- no cluster means are added to the sample.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from kmdr.coresets._base import BaseCoreset
from kmdr.coresets._fast_kmeanspp import TREE_DISTANCES, fast_kmeanspp

__all__ = ["FastCoresetCode", "WelterweightCoresetCode", "code_sensitivities"]


def code_sensitivities(labels, costs, alpha):
    """The authors' ``bound_sensitivities``: per cluster, ``alpha * cost / cluster cost`` (0 in
    a cluster of cost 0) plus one over the cluster's number of rows, normalised to sum to 1."""
    labels = np.asarray(labels)
    n_clusters = int(labels.max()) + 1
    cluster_cost = np.bincount(labels, weights=costs, minlength=n_clusters)
    counts = np.bincount(labels, minlength=n_clusters)
    share = np.divide(costs, cluster_cost[labels], out=np.zeros_like(costs, dtype=float),
                      where=cluster_cost[labels] > 0)  # fmt: skip
    s = alpha * share + 1.0 / counts[labels]
    return s / s.sum()


def _code_draw(estimator, X, weight, s, rng):
    """The authors' ``get_coreset``: m rows without replacement in proportion to ``s``, each
    weighing ``1 / s`` rescaled so that the weights sum to the data's."""
    rows = rng.choice(X.shape[0], size=estimator.coreset_size, replace=False, p=s)
    row_weights = 1.0 / s[rows]
    row_weights *= weight.sum() / row_weights.sum()
    return estimator._set_points(X, weight, rows, row_weights)


class FastCoresetCode(BaseCoreset):
    """Fast-Coreset as the authors' code builds it (``make_coreset.fast_coreset``), the
    construction behind their published Fast-Coreset numbers.

    Where it follows the code and not the text (Algorithm 1):

    - no Johnson-Lindenstrauss projection: ``experiment_script.py`` computes one (``jl_proj``) and
      then reloads the data and builds the coreset on it unprojected, so the trees are built in
      the data's own dimension (sparse input is densified for them);
    - ``fast_cluster_pp`` opens ``2k`` Fast-kmeans++ centers (``seeds_per_cluster=2``), the text k;
    - the sensitivities are read from the trees' own costs and clusters (each row's squared
      multi-tree distance to its tree-nearest center), where the text costs each row against its
      cluster's mean in the original space;
    - those tree distances are what ``set_all_dists`` gives (``tree_distances="set_all_dists"``):
      its walk from the highest cell without a center counts depth from 0 there, so after the
      first center a row gets the distance of a cell up to that many levels higher than its
      lowest common cell with the new center (:func:`~kmdr.coresets._fast_kmeanspp.fast_kmeanspp`,
      whose tests replay that walk on explicit cells); "hst_dist" gives the code's own formula
      at the right depth, "cells" the text's metric;
    - ``bound_sensitivities`` with ``alpha = 10`` and ``get_coreset``'s draw without replacement
      and rescaled weights (the module docstring).

    Parameters
    ----------
    n_clusters, coreset_size, random_state
        As :class:`~kmdr.coresets.BaseCoreset`.
    alpha : float, default=10
        ``bound_sensitivities``' factor on the cluster term (the authors' default).
    seeds_per_cluster : int, default=2
        Fast-kmeans++ opens ``seeds_per_cluster * k`` centers: 2 as ``fast_cluster_pp``.
    n_trees : int, default=3
        The shifted quadtrees: the authors' ``norm + 1`` for k-means.
    tree_distances : {"set_all_dists", "hst_dist", "cells"}, default="set_all_dists"
        The tree distances the seeding and the sensitivities read.

    Attributes
    ----------
    centers_ : ndarray of shape (n_centers,)
        The rows Fast-kmeans++ opened.
    tree_cost_ : float
        The weighted sum of the rows' squared tree distances to their centers.
    (and those of :class:`~kmdr.coresets.BaseCoreset`)
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseCoreset._parameter_constraints,
        "alpha": [Interval(Real, 0, None, closed="left")],
        "seeds_per_cluster": [Interval(Integral, 1, None, closed="left")],
        "n_trees": [Interval(Integral, 1, None, closed="left")],
        "tree_distances": [StrOptions(set(TREE_DISTANCES))],
    }

    def __init__(self, n_clusters=8, coreset_size=200, random_state=None, alpha=10.0,
                 seeds_per_cluster=2, n_trees=3, tree_distances="set_all_dists"):  # fmt: skip
        super().__init__(n_clusters, coreset_size, random_state)
        self.alpha = alpha
        self.seeds_per_cluster = seeds_per_cluster
        self.n_trees = n_trees
        self.tree_distances = tree_distances

    def _build(self, X, weight, rng):
        dense = X.toarray() if sp.issparse(X) else X
        seeding = fast_kmeanspp(dense, self.seeds_per_cluster * self.n_clusters,
                                sample_weight=weight, n_trees=self.n_trees, random_state=rng,
                                distances=self.tree_distances)  # fmt: skip
        self.centers_ = seeding.centers
        costs = weight * seeding.sq_distances  # set_all_dists stores each row's cost weighted
        self.tree_cost_ = float(costs.sum())
        s = code_sensitivities(seeding.labels, costs, self.alpha)
        return _code_draw(self, X, weight, s, rng)


class WelterweightCoresetCode(BaseCoreset):
    """Welterweight coreset as the authors' code builds it (``make_coreset.semi_uniform_coreset``
    with their default ``cluster_pp_slow``).

    Where it follows the code and not the text ("sensitivity sampling with respect to a
    candidate j-means solution"):

    - the solution is ``2j + 1`` k-means++ seeds (``cluster_pp_slow`` draws a first row, then
      ``2j`` more), not j centers; the first is drawn in proportion to the rows' weights here,
      uniformly in the code (the same on unweighted data);
    - each row's cost is its squared distance to its nearest seed, not to its cluster's mean,
      and is not multiplied by the row's weight (``semi_uniform_coreset``, unlike
      ``sensitivity_coreset``);
    - ``bound_sensitivities`` with ``alpha = 10`` and ``get_coreset``'s draw (module docstring);
    - the default j is 2, ``experiment_script.py``'s ``j_func: '2'``, where the text says its
      experiments default to log k.

    Parameters
    ----------
    n_clusters, coreset_size, random_state
        As :class:`~kmdr.coresets.BaseCoreset`.
    j : int or {"log", "sqrt"}, default=2
        The j of the j-means solution: an int, or ``int(ln k)`` / ``int(sqrt k)`` as the
        authors' ``j_func`` (at least 1 here; the code would take 0 at k = 2).
    alpha : float, default=10
        ``bound_sensitivities``' factor on the cluster term.

    Attributes
    ----------
    j_ : int
    seeds_ : ndarray of shape (n_seeds,)
        The seeds' rows.
    (and those of :class:`~kmdr.coresets.BaseCoreset`)
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseCoreset._parameter_constraints,
        "j": [Interval(Integral, 1, None, closed="left"), StrOptions({"log", "sqrt"})],
        "alpha": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, n_clusters=8, coreset_size=200, random_state=None, j=2, alpha=10.0):
        super().__init__(n_clusters, coreset_size, random_state)
        self.j = j
        self.alpha = alpha

    def _build(self, X, weight, rng):
        from sklearn.cluster import kmeans_plusplus
        from sklearn.metrics import pairwise_distances_argmin_min

        k = self.n_clusters
        scaled = {"log": math.log(k), "sqrt": math.sqrt(k)}
        self.j_ = max(1, int(scaled[self.j])) if isinstance(self.j, str) else int(self.j)
        n_seeds = min(2 * self.j_ + 1, X.shape[0])
        _, self.seeds_ = kmeans_plusplus(X, n_seeds, sample_weight=weight, random_state=rng,
                                         n_local_trials=1)  # fmt: skip
        labels, dist = pairwise_distances_argmin_min(X, X[self.seeds_])
        s = code_sensitivities(labels, dist**2, self.alpha)
        return _code_draw(self, X, weight, s, rng)
