"""StreamKM++'s coreset tree (Ackermann, Märtens, Raupach, Swierkot, Lammersen, Sohler,
"StreamKM++: A clustering algorithm for data streams", ACM JEA 17, 2012, Section 3): kmdr's
variant of :class:`~kmdr.coresets.StreamKMPlusPlus`.

Schwiegelshohn and Sheikh-Omar's study (ESA 2022) runs StreamKM++'s reduction step without the
tree: ``m`` plain k-means++ seeds, each weighing the rows nearest to it, in ``O(n d m)`` time (the
``streamkm`` construction). The tree is the paper's own way to draw the same kind of seeds in
``O(n d log m)`` expected time. It is a binary tree whose leaves split the rows, each leaf with a
representative among its rows:

1. the root holds every row, its representative drawn in proportion to the rows' weights (as
   k-means++ draws its first seed);
2. to add a representative, descend from the root to a leaf, at each node into a child with
   probability proportional to the cost of its subtree (a leaf's cost: its rows' weighted squared
   distances to its representative), so that a leaf is reached in proportion to its cost;
3. in that leaf, draw the new representative by D^2 sampling against the leaf's representative,
   split the leaf's rows between the old and the new one (each to the nearer, a tie to the old),
   and update the costs up to the root.

After ``m - 1`` splits the ``m`` leaves' representatives are the coreset, each weighing its
leaf's (weighted) rows. A draw only reads the rows of one leaf: where k-means++ compares every row
with every new seed, a row here is compared with the seeds of the leaves it passes through, about
``log2 m`` of them in a balanced tree; and a split measures only the rows that could move (a row
within half the distance between the two representatives of its own is nearer to it).

A leaf's representative is its row, as in the paper (the authors' implementation in MOA,
``moa.clusterers.streamkm.TreeCoreset``, moves it to its leaf's mean at the end and keeps the best
of three draws a split; kmdr keeps the paper's one draw, as ``streamkm`` keeps plain k-means++).
Data with fewer than ``m`` distinct rows (weighted) stops when every leaf costs 0: the coreset
then has fewer than ``m`` points, each at one distinct row, weighing its copies.

``block_size`` reads the rows in blocks with the merge-and-reduce of
:class:`~kmdr.coresets.StreamKMPlusPlus`, the tree as its reduction step, as StreamKM++ runs it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.extmath import row_norms

from kmdr.coresets._streamkm import StreamKMPlusPlus

__all__ = ["StreamKMTree"]

#: Rows gathered at a time to measure them against a new representative: a block stays in cache.
_CHUNK = 2048


def _sq_distances(points, norms, rows, center):
    """The squared distances of ``points[rows]`` (every row when None) to row ``center``, from
    the rows' squared norms as scikit-learn's k-means++ measures them, in float64."""
    q = points[[center]]
    q = (q.toarray() if sp.issparse(q) else np.asarray(q)).ravel().astype(np.float64)
    if rows is None:
        dots = np.asarray(points @ q, dtype=np.float64)
        near = norms
    elif sp.issparse(points):
        dots = np.asarray(points[rows] @ q, dtype=np.float64)
        near = norms[rows]
    elif rows.size and 3 * rows.size >= rows[-1] - rows[0] + 1:
        # rows (in increasing order) that fill a third of their span: reading the whole span
        # in order costs less than gathering them
        dots = (points[rows[0] : rows[-1] + 1] @ q)[rows - rows[0]]
        near = norms[rows]
    else:
        # a chunk of rows at a time into one buffer: a gather that stays in cache
        dots = np.empty(rows.size)
        buffer = np.empty((min(_CHUNK, rows.size), points.shape[1]), dtype=points.dtype)
        for i in range(0, rows.size, _CHUNK):
            chunk = rows[i : i + _CHUNK]
            np.take(points, chunk, axis=0, out=buffer[: chunk.size], mode="clip")  # valid rows
            dots[i : i + chunk.size] = buffer[: chunk.size] @ q
        near = norms[rows]
    return np.maximum(near - 2 * dots + norms[center], 0.0)


def _tree_reduce(points, weight, m, rng):
    """StreamKM++'s coreset tree on weighted ``points``: the positions of at most ``m``
    representatives in ``points``, and their leaves' weights."""
    n = points.shape[0]
    if n <= m:
        return np.arange(n), weight
    norms = row_norms(points, squared=True).astype(np.float64)
    # the rows in leaf order: leaf v holds order[start[v]:stop[v]], with its rows' weights and
    # squared distances to its representative at the same positions
    order = np.arange(n)
    w = np.asarray(weight, dtype=np.float64).copy()
    first = int(rng.choice(n, p=w / w.sum()))
    sq = _sq_distances(points, norms, None, first)
    sq[first] = 0.0  # a representative is at distance 0 from itself, whatever the rounding
    # the nodes, by number (the root is 0): Python lists, read one element at a time
    start, stop, rep, cost = [0], [n], [first], [float(w @ sq)]
    left, right, parent = [-1], [-1], [-1]
    n_leaves = 1
    while n_leaves < m and cost[0] > 0:
        node, u = 0, rng.uniform() * cost[0]
        while left[node] >= 0:  # into a child in proportion to its cost
            lo, hi = left[node], right[node]
            if u < cost[lo] or cost[hi] == 0:
                node = lo
            else:
                u -= cost[lo]
                node = hi
        s, e = start[node], stop[node]
        cumulative = np.cumsum(w[s:e] * sq[s:e])  # D^2 sampling against the leaf's representative
        drawn = np.searchsorted(cumulative, rng.uniform() * cumulative[-1], side="right")
        # a product rounded up to the total: the last row that has a cost, not one past it
        drawn = int(min(drawn, np.searchsorted(cumulative, cumulative[-1])))
        new = int(order[s + drawn])
        # a row within half the distance D between the two representatives of its own stays
        # (the triangle inequality: its distance to the new one is at least D minus that):
        # only the others are measured
        leaf_sq = sq[s:e]
        far = np.flatnonzero(4 * leaf_sq > leaf_sq[drawn])
        to_new = _sq_distances(points, norms, order[s:e][far], new)
        closer = to_new < leaf_sq[far]  # a tie stays with the old representative
        moves = np.zeros(e - s, dtype=bool)
        moves[far[closer]] = True
        moves[drawn] = True
        updated = leaf_sq.copy()
        updated[far[closer]] = to_new[closer]
        updated[drawn] = 0.0
        # the leaf's rows, those staying first, each part in its order
        stays = np.flatnonzero(~moves)
        perm = np.concatenate([stays, np.flatnonzero(moves)])
        sq[s:e] = updated[perm]
        order[s:e] = order[s:e][perm]
        w[s:e] = w[s:e][perm]
        mid = s + stays.size
        for lo, hi, r in ((s, mid, rep[node]), (mid, e, new)):
            start.append(lo)
            stop.append(hi)
            rep.append(r)
            cost.append(float(w[lo:hi] @ sq[lo:hi]))
            left.append(-1)
            right.append(-1)
            parent.append(node)
        left[node], right[node] = len(cost) - 2, len(cost) - 1
        n_leaves += 1
        while node >= 0:
            cost[node] = cost[left[node]] + cost[right[node]]
            node = parent[node]
    leaves = sorted((v for v in range(len(cost)) if left[v] < 0), key=start.__getitem__)
    weights = np.add.reduceat(w, [start[v] for v in leaves])
    return np.array([rep[v] for v in leaves]), weights


class StreamKMTree(StreamKMPlusPlus):
    """StreamKM++'s coreset tree: ``m`` representatives drawn by the paper's tree, each weighing
    its leaf's rows; kmdr's variant of ``streamkm``, whose study runs the step without the tree.

    Parameters
    ----------
    n_clusters, coreset_size, random_state
        As :class:`~kmdr.coresets.BaseCoreset` (the construction does not read ``n_clusters``
        beyond checking that the coreset can hold k points).
    block_size : int or None, default=None
        None: the whole data in one tree. An int (at least ``coreset_size``): rows read in blocks
        of that many, merged and reduced as :class:`~kmdr.coresets.StreamKMPlusPlus` does, each
        reduction a tree.
    """

    #: its own version: the tree's output did not change with ``streamkm``'s seeding loop
    compat_version = 1

    def _step(self, points, weight, m, rng):
        return _tree_reduce(points, weight, m, rng)
