"""Fast-kmeans++ (Cohen-Addad, Lattanzi, Norouzi-Fard, Sohler, Svensson, *Fast and Accurate
k-means++ via Rejection Sampling*, NeurIPS 2020): k-means++ sampling on a multi-tree embedding.

Plain k-means++ draws each new center in proportion to the squared distance to the centers open,
which costs O(nd) per center and O(ndk) in all. Fast-kmeans++ replaces the distance by a
multi-tree distance: the rows go into ``n_trees`` randomly shifted quadtrees, the distance of a
tree is the diameter of the two rows' lowest common cell, and the multi-tree distance is the
smallest over the trees. That metric dominates the Euclidean one and, in expectation, stretches
it by O(d log n) at most; opening a center then updates only the rows of the cells it is the first
center of, which makes the whole seeding near-linear in n, and almost independent of k. The
centers come with their assignment, each row to the center nearest in the tree metric: the
solution Fast-Coresets sample from (:class:`~kmdr.coresets.FastCoreset`).

Following the code of Draganov, Saulpic and Schwiegelshohn (the repository
Andrew-Draganov/Fast-Coreset-Generation, ``fast_kmeans_plusplus.py``, ``hst.py``,
``multi_hst.py``): ``norm + 1 = 3`` trees for k-means; each tree's root is a cube of side twice the
data's spread (its largest range along one axis), the data shifted by a uniform draw in
``[0, spread)`` per axis; a cell splits at its middle along every axis; the first center is a
uniformly drawn row (drawn in proportion to the rows' weights here). Where kmdr differs:

- the authors' ``set_all_dists`` starts its walk down from the highest cell without a center at
  depth 0 whatever that cell's depth T, and compares the cells' paths at that wrong depth: a row
  whose lowest common cell with the new center has depth L gets the distance of depth
  ``min(L, D - T - 1)``, D the depth where the row is alone in its cell, so a row fewer than
  T + 1 levels below that cell gets the distance of a cell higher up, and the tree distances
  after the first center are overestimated. kmdr gives each row the diameter of its lowest
  common cell with the center, the tree metric the text defines (a test checks it against a
  brute-force computation of that metric). ``distances="set_all_dists"`` gives the authors'
  distances instead, for :class:`~kmdr.coresets.FastCoresetCode` (tests replay their walk on
  explicit cells and match it);
- the authors' distance between rows whose lowest common cell has depth l is
  ``4 D (2^-(l+1) - 2^-depth)``, D the root's diameter and depth the tree's: twice the cell's
  diameter less a constant; kmdr's is the cell's diameter, which draws the same centers up to that
  constant (k-means++ sampling does not see a common factor);
- the authors' ``fast_cluster_pp`` opens ``2k`` centers when asked for k; :func:`fast_kmeanspp`
  opens the number it is given (the text's Fast-Coreset asks for k);
- the trees are compiled code (numba, :mod:`kmdr.coresets._multitree_kernels`): the authors'
  Python trees with their per-row dictionaries and per-center sums over all rows cost O(nk), which
  hides the speed the text claims.

Why numba and not Cython or a C extension: numba compiles the loops at run time from plain
Python, so kmdr keeps no build step and stays a pure-Python wheel installable everywhere numba's
wheels are (PyPI has them for every platform kmdr's lock supports); its arrays are numpy's. The
compiled code is cached on disk (``cache=True``), and numba is imported only when Fast-kmeans++
first runs, so ``import kmdr.coresets`` does not pay for it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.utils import check_random_state

__all__ = [
    "TREE_DISTANCES",
    "MultiTree",
    "SeedingResult",
    "authors_distance_table",
    "fast_kmeanspp",
]

#: The finest grid's level: cells of side 2^-50 of the root's. Coordinates are read as float64,
#: whose 53 bits hold the cell indices of every level exactly.
N_LEVELS = 50


class MultiTree(NamedTuple):
    """Where the trees' cells are: a row x lies, in tree t, in the cell of level l with indices
    ``floor((x - low + shifts[t]) / width * 2**l)``; a cell of level l has diameter
    ``sqrt(d) * width / 2**l``."""

    low: np.ndarray  #: (d,): the data's smallest coordinate on each axis
    shifts: np.ndarray  #: (n_trees, d): each tree's random shift, in [0, width / 2)
    width: float  #: the root cell's side: twice the data's spread


class SeedingResult(NamedTuple):
    centers: np.ndarray  #: the rows opened as centers, in the order they were opened
    labels: np.ndarray  #: each row's center (an index into ``centers``) in the tree metric
    sq_distances: np.ndarray  #: each row's squared multi-tree distance to it
    trees: MultiTree
    #: (n_trees, n): each row's depth in the authors' uncompressed trees, the level where it is
    #: first alone in a cell (a level below its leaf's parent; 0 for a lone row)
    depths: np.ndarray


#: The tree distances :func:`fast_kmeanspp` can seed with: the diameter of the rows' lowest common
#: cell (kmdr's, the text's tree metric); the authors' ``hst_dist`` (``4 D (2^-(l+1) -
#: 2^-depth)``, l that cell's depth); or what their ``set_all_dists`` gives (that formula at the
#: wrong depth, see the module docstring).
TREE_DISTANCES = ("cells", "hst_dist", "set_all_dists")


def fast_kmeanspp(X, n_centers, *, sample_weight=None, n_trees=3, random_state=None,
                  distances="cells"):  # fmt: skip
    """Seed ``n_centers`` centers among the rows of dense X by Fast-kmeans++.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Dense: the trees read coordinates (Fast-Coresets run it on a low-dimensional projection).
    n_centers : int
    sample_weight : ndarray of shape (n_samples,), default=None
    n_trees : int, default=3
        The number of shifted quadtrees: the authors' ``norm + 1``, 3 for k-means.
    random_state : int, RandomState instance or None
    distances : {"cells", "hst_dist", "set_all_dists"}, default="cells"
        One of :data:`TREE_DISTANCES`: "cells" for the text's tree metric; the two others for the
        authors' code (``hst.py``'s ``hst_dist``, and the distances ``set_all_dists`` actually
        gives), which :class:`~kmdr.coresets.FastCoresetCode` runs. The draws are the same
        whichever is chosen: only the distances differ.

    Returns
    -------
    SeedingResult
        Fewer than ``n_centers`` centers when the rows have fewer distinct cells of the finest
        grid (every row's distance is then 0).
    """
    from kmdr.coresets import _multitree_kernels as kernels  # numba: only when seeding

    if distances not in TREE_DISTANCES:
        raise ValueError(f"distances={distances!r}: give one of {TREE_DISTANCES}")

    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    weight = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    rng = check_random_state(random_state)
    low = X.min(axis=0)
    spread = float((X.max(axis=0) - low).max())
    width = 2.0 * spread if spread > 0 else 1.0
    shifts = rng.uniform(0.0, width / 2, size=(n_trees, d))
    sq_diameters = np.zeros((n_trees, N_LEVELS + 2))
    sq_diameters[:, : N_LEVELS + 1] = d * (width / 2.0 ** np.arange(N_LEVELS + 1)) ** 2
    trees = [kernels.build_tree(X, low, shift, width, N_LEVELS) for shift in shifts]
    bases = np.cumsum([0] + [tree[1].size for tree in trees[:-1]])
    orders = np.stack([tree[0] for tree in trees])
    leaves_of = np.stack([tree[5] + base for tree, base in zip(trees, bases, strict=True)])
    start, end, level = (np.concatenate([tree[i] for tree in trees]) for i in (1, 2, 3))
    parent = np.concatenate([np.where(tree[4] >= 0, tree[4] + base, -1)
                             for tree, base in zip(trees, bases, strict=True)])  # fmt: skip
    depths = np.stack([np.where(tree[4][tree[5]] >= 0, tree[3][tree[4][tree[5]]] + 1, 0)
                       for tree in trees]).astype(np.int64)  # fmt: skip
    code_depths = np.zeros((n_trees, 0), np.int64)
    if distances != "cells":
        sq_diameters = authors_distance_table(sq_diameters[:, 0], depths, distances)
        code_depths = depths if distances == "set_all_dists" else code_depths
    first = rng.choice(n, p=weight / weight.sum())
    uniforms = rng.uniform(size=max(n_centers - 1, 0))
    centers, labels, sq_dist = kernels.seed(orders, leaves_of, start, end, level, parent,
                                            sq_diameters, weight, first, uniforms,
                                            code_depths)  # fmt: skip
    return SeedingResult(centers, labels, sq_dist, MultiTree(low, shifts, width), depths)


def authors_distance_table(sq_root_diameters, depths, distances="hst_dist"):
    """The authors' squared tree distances, ``(4 D (2^-depth - 2^-max_depth))^2``
    (``utils.tree_dist``; D the root's diameter, ``sq_root_diameters`` its square per tree,
    max_depth the deepest leaf's, from ``depths`` as :class:`SeedingResult` gives them), by
    level: for "hst_dist" read at the depth below the rows' lowest common cell (level l holds the
    value of depth l + 1), as ``hst_dist`` reads it; for "set_all_dists" by the depth that walk
    computes. The last column (rows in one finest cell) is 0."""
    if distances not in TREE_DISTANCES[1:]:
        raise ValueError(f"distances={distances!r}: give one of {TREE_DISTANCES[1:]}")
    n_trees = depths.shape[0]
    table = np.zeros((n_trees, N_LEVELS + 2))
    steps = np.arange(N_LEVELS + 1) + (1 if distances == "hst_dist" else 0)
    for t in range(n_trees):
        diameter = np.sqrt(sq_root_diameters[t])
        # depths below the deepest leaf are never read: 0 there rather than a negative length
        length = np.maximum(0.5**steps - 0.5 ** depths[t].max(), 0.0)
        table[t, :-1] = (4 * diameter * length) ** 2
    return table
