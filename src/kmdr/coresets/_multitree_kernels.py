"""The compiled kernels of Fast-kmeans++: shifted quadtrees and k-means++ sampling on them.

Imported by :func:`kmdr.coresets._fast_kmeanspp.fast_kmeanspp` when it first runs, never by
``import kmdr.coresets``: importing numba and loading its cache takes a second a run that builds
no fast coreset should not pay. ``cache=True`` keeps the compiled code on disk beside this file, so
that only the first run on a machine compiles.

A tree is stored flat. Every tree orders the rows so that each of its cells is a contiguous range
of that order (``order``); its nodes are ranges ``[start, end)`` with a parent, and a node's
``level`` is that of the smallest quadtree cell holding all its rows. A chain of cells holding the
same rows is one node (the smallest of them): two rows a node's children separate have that cell
as their lowest common ancestor, which is all the tree distance reads, and the tree has fewer than
2n nodes however deep the cells go. Nodes holding one row, or rows in one cell of the finest grid,
are leaves.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _bit_length(x):
    n = 0
    while x > 0:
        x >>= 1
        n += 1
    return n


@numba.njit(cache=True)
def _fill_windows(grid, order, windows, a, b, base, n_levels):
    """The bits of rows ``order[a:b]`` from position ``base`` of their interleaved keys: position
    p is bit ``n_levels - 1 - p // d`` of coordinate ``p % d`` (the coarsest level first, its axes
    in order), and a window's word m holds positions ``base + 64 m`` onwards, the first in its
    highest bit; past the last level, zeros."""
    d = grid.shape[1]
    n_words = windows.shape[1]
    end = n_levels * d
    for i in range(a, b):
        r = order[i]
        for m in range(n_words):
            word = np.uint64(0)
            p = base + 64 * m
            j, shift = p % d, n_levels - 1 - p // d
            for t in range(64):
                if p + t >= end:
                    break
                word |= np.uint64((grid[r, j] >> shift) & 1) << np.uint64(63 - t)
                j += 1
                if j == d:
                    j, shift = 0, shift - 1
            windows[i, m] = word


@numba.njit(cache=True)
def _leading_zeros(x):
    return 64 - _bit_length(x)


@numba.njit(cache=True)
def build_tree(X, low, shift, width, n_levels):
    """One tree over the rows of X: a row x lies in the cell of level l with indices
    ``floor((x - low + shift) / width * 2**l)``, l up to ``n_levels`` (the finest grid).

    Returns ``order, start, end, level, parent, leaf_of``: the rows in the tree's order, each
    node's range in it, level (``n_levels + 1`` for a leaf of rows in one finest cell, whose tree
    distance is 0) and parent (-1 at the root), and each row's leaf.

    Each row's cell of the finest grid is computed once; a node reads its rows' cells as their
    interleaved keys (the coarsest level first), through a window of ``64 * ceil(d / 64)`` bits
    per row that moves with the rows and is refilled from the cells when a node reaches past its
    end. A node's rows share their keys up to the first position where they differ, which gives
    the node's level (that position's) and, in that level's bits, the axes that split it: a node
    costs its rows' windows, not their d coordinates.
    """
    n, d = X.shape
    grid = np.empty((n, d), np.int64)  # each row's finest cell, in X's order
    finest = 2.0**n_levels
    for i in range(n):
        for j in range(d):
            u = (X[i, j] - low[j] + shift[j]) / width
            grid[i, j] = min(np.int64(np.floor(u * finest)), np.int64(finest) - 1)
    order = np.arange(n)
    size = max(2 * n, 2)
    start = np.empty(size, np.int64)
    end = np.empty(size, np.int64)
    level = np.empty(size, np.int64)
    parent = np.empty(size, np.int64)
    leaf_of = np.empty(n, np.int64)
    stack_a = np.empty(size, np.int64)
    stack_b = np.empty(size, np.int64)
    stack_p = np.empty(size, np.int64)
    stack_base = np.empty(size, np.int64)
    # the child ranges of the node being split, one axis after the other
    part_a = np.empty((2, n + 1), np.int64)
    part_b = np.empty((2, n + 1), np.int64)
    n_words = (d + 63) // 64
    n_bits = 64 * n_words
    key_end = n_levels * d
    windows = np.empty((n, n_words), np.uint64)
    _fill_windows(grid, order, windows, 0, n, 0, n_levels)
    stack_a[0], stack_b[0], stack_p[0], stack_base[0] = 0, n, -1, 0
    top, n_nodes = 1, 0
    diff = np.empty(n_words, np.uint64)
    one = np.uint64(1)
    while top > 0:
        top -= 1
        a, b, par, base = stack_a[top], stack_b[top], stack_p[top], stack_base[top]
        node = n_nodes
        n_nodes += 1
        start[node], end[node], parent[node] = a, b, par
        # the first position of the keys where the node's rows differ, windows refilled further
        # on while they agree on all of theirs
        first = -1
        while True:
            diff[:] = 0
            for i in range(a + 1, b):
                for m in range(n_words):
                    diff[m] |= windows[i, m] ^ windows[a, m]
            for m in range(n_words):
                if diff[m] != 0:
                    first = base + 64 * m + _leading_zeros(diff[m])
                    break
            if first >= 0 or b - a == 1 or base + n_bits >= key_end:
                break
            base += n_bits
            _fill_windows(grid, order, windows, a, b, base, n_levels)
        if first < 0:  # one row, or rows in one finest cell
            level[node] = n_levels + 1
            for i in range(a, b):
                leaf_of[order[i]] = node
            continue
        # all rows share the cell of that position's level; its children are the rows' cells one
        # level down, told apart by the axes whose bit of that level differs
        lev = first // d
        level[node] = lev
        if lev * d + d > base + n_bits:  # the level's bits past the window: refill from it
            base = lev * d
            _fill_windows(grid, order, windows, a, b, base, n_levels)
            diff[:] = 0
            for i in range(a + 1, b):
                for m in range(n_words):
                    diff[m] |= windows[i, m] ^ windows[a, m]
        src, count = 0, 1
        part_a[0, 0], part_b[0, 0] = a, b
        for j in range(d):
            p = lev * d + j - base
            if p < 0:  # before the window: shared by the rows, as all before the first
                continue
            m, mask = p // 64, one << np.uint64(63 - p % 64)
            if diff[m] & mask == 0:
                continue
            dst, new_count = 1 - src, 0
            for q in range(count):
                lo, hi = part_a[src, q], part_b[src, q] - 1
                first_lo = lo
                while lo <= hi:
                    if windows[lo, m] & mask == 0:
                        lo += 1
                    else:
                        order[lo], order[hi] = order[hi], order[lo]
                        for w in range(n_words):
                            windows[lo, w], windows[hi, w] = windows[hi, w], windows[lo, w]
                        hi -= 1
                for ca, cb in ((first_lo, lo), (lo, part_b[src, q])):
                    if cb > ca:
                        part_a[dst, new_count], part_b[dst, new_count] = ca, cb
                        new_count += 1
            src, count = dst, new_count
        for q in range(count):
            stack_a[top], stack_b[top], stack_p[top] = part_a[src, q], part_b[src, q], node
            stack_base[top] = base
            top += 1
    return order, start[:n_nodes], end[:n_nodes], level[:n_nodes], parent[:n_nodes], leaf_of


@numba.njit(cache=True)
def _set_leaf(sums, offset, i, value):
    # a binary tree of sums over the rows' costs: exact sums up the path (no drift from deltas)
    k = offset + i
    sums[k] = value
    k >>= 1
    while k >= 1:
        sums[k] = sums[2 * k] + sums[2 * k + 1]
        k >>= 1


@numba.njit(cache=True)
def _draw(sums, offset, u):
    k = 1
    target = u * sums[1]
    while k < offset:
        left = sums[2 * k]
        if (target < left or sums[2 * k + 1] <= 0.0) and left > 0.0:
            k = 2 * k
        else:
            target -= left
            k = 2 * k + 1
    return k - offset


@numba.njit(cache=True)
def _update_sums(sums, offset, touched, n_touched):
    # a path per row changed, or the whole tree when that is cheaper (the first centers)
    if n_touched * 20 > offset:
        for k in range(offset - 1, 0, -1):
            sums[k] = sums[2 * k] + sums[2 * k + 1]
        return
    for q in range(n_touched):
        k = (offset + touched[q]) >> 1
        while k >= 1:
            sums[k] = sums[2 * k] + sums[2 * k + 1]
            k >>= 1


@numba.njit(cache=True)
def seed(
    orders, leaves_of, start, end, level, parent, sq_diameters, weight, first, uniforms, code_depths
):
    """Open ``uniforms.size + 1`` centers: ``first``, then each drawn with probability
    proportional to ``weight`` times its squared multi-tree distance to the centers open, the
    distance of a tree being the diameter of the rows' lowest common cell and the multi-tree
    distance the smallest over the trees (Cohen-Addad et al., NeurIPS 2020).

    The trees' nodes are numbered in one sequence (``start``... ``parent``: every tree's, one
    after the other); ``orders[t]`` and ``leaves_of[t]`` are tree t's. ``sq_diameters[t, level]``
    is the squared diameter of a cell of that level in tree t (0 at the leaf level). Opening a
    center walks up from its leaf in every tree to the first node that already holds a center:
    rows outside that node gain nothing (their lowest common cell with the new center is the one
    they share with the old), rows inside gain the diameter of the node where their path leaves
    the center's. Each node is walked once, so the whole seeding reads each row at most once per
    node above it.

    ``code_depths``, of shape ``(n_trees, 0)`` for the tree metric above, or ``(n_trees, n)``:
    each row's depth in the authors' uncompressed tree (the level its row is first alone in a
    cell, ``level[parent[leaf]] + 1``), for the distances the authors' ``set_all_dists`` gives
    (the repository Andrew-Draganov/Fast-Coreset-Generation, ``fast_kmeans_plusplus.py``). It
    walks down from the highest cell without a center, at depth T, counting depth from 0 there:
    a row whose lowest common cell with the center has depth L gets the distance of depth
    ``min(L, D - T - 1)``, D its own leaf's depth, where the tree metric is that of depth L; the
    distances are then ``sq_diameters[t, depth]`` read by that depth (the caller's table, the
    authors' ``tree_dist``), and a row in the center's finest cell gets 0.

    Returns ``centers, labels, sq_dist``: the rows opened (fewer when every row's distance is 0
    sooner), each row's center (an index into centers) and squared multi-tree distance to it.
    """
    n_trees = orders.shape[0]
    n = weight.size
    by_code = code_depths.shape[1] > 0
    n_levels = sq_diameters.shape[1] - 2  # the last level: a finest cell's rows, at distance 0
    offset = 1
    while offset < n:
        offset *= 2
    sums = np.zeros(2 * offset)
    sq_dist = np.full(n, np.inf)
    labels = np.full(n, -1, np.int64)
    marked = np.zeros(start.size, np.bool_)
    touched = np.empty(n, np.int64)
    centers = np.empty(uniforms.size + 1, np.int64)
    c = first
    n_open = 0
    while True:
        centers[n_open] = c
        n_touched = 0
        for t in range(n_trees):
            order = orders[t]
            node = leaves_of[t, c]
            child = -1
            top_depth = 0  # the code's depth of the highest cell without a center
            if by_code:
                top = node
                while parent[top] >= 0 and not marked[parent[top]]:
                    top = parent[top]
                if parent[top] >= 0:
                    top_depth = level[parent[top]] + 1
            while node >= 0 and not marked[node]:
                sq = sq_diameters[t, level[node]]
                skip_from = start[child] if child >= 0 else -1  # the rows already done
                i = start[node]
                while i < end[node]:
                    if i == skip_from:
                        i = end[child]
                        continue
                    r = order[i]
                    i += 1
                    if by_code:
                        sq = 0.0
                        if level[node] <= n_levels:
                            depth = min(level[node], code_depths[t, r] - top_depth - 1)
                            sq = sq_diameters[t, depth]
                    if sq < sq_dist[r]:
                        if labels[r] != n_open:  # not yet changed by this center
                            touched[n_touched] = r
                            n_touched += 1
                        sq_dist[r] = sq
                        labels[r] = n_open
                        sums[offset + r] = weight[r] * sq  # its path is summed after
                marked[node] = True
                child = node
                node = parent[node]
        _update_sums(sums, offset, touched, n_touched)
        n_open += 1
        if n_open == centers.size or not sums[1] > 0.0:
            break
        c = _draw(sums, offset, uniforms[n_open - 1])
    return centers[:n_open], labels, sq_dist
