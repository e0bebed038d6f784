"""The compiled kernel of BICO: one pass over the rows, a tree of clustering features.

Imported by :class:`kmdr.coresets.BICO` when it is first fitted, never by
``import kmdr.coresets`` (numba's import and cache cost a second a run without BICO should not
pay). ``cache=True`` keeps the compiled code beside this file.

The tree is stored flat, in slots: a slot is a clustering feature (its weight ``N``, the weighted
sum of its rows ``LS``, the weighted sum of their squared norms ``SS``, its reference row ``rep``)
and the list of its children, or a root (a list only). A list is doubly linked (``head``,
``tail``, ``nxt``, ``prv``, ``owner``), so that the C++'s ``std::list`` insertions at the end,
erasures and splices keep its order: the order decides every tie (the first feature strictly
nearer wins) and the order of the coreset's points. The first level's nearest-neighbour buckets
are linked lists of slots as well, one chain per bucket and projection, in the order features
were put in them.

A row is read as a dense row or as a CSR row in the same index order, so that dense and sparse
input give the same sums bit for bit: a zero adds nothing to a sum.
"""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True)
def _sqdist(rows, a, b):
    """|x_a - x_b|^2, summed by index (a sparse pair merged along their sorted indices)."""
    dense, Xd, data, indices, indptr = rows
    s = 0.0
    if dense:
        for j in range(Xd.shape[1]):
            t = Xd[a, j] - Xd[b, j]
            s += t * t
        return s
    pa, ea, pb, eb = indptr[a], indptr[a + 1], indptr[b], indptr[b + 1]
    while pa < ea or pb < eb:
        if pb >= eb or (pa < ea and indices[pa] < indices[pb]):
            t = data[pa]
            pa += 1
        elif pa >= ea or indices[pb] < indices[pa]:
            t = -data[pb]
            pb += 1
        else:
            t = data[pa] - data[pb]
            pa += 1
            pb += 1
        s += t * t
    return s


@numba.njit(cache=True)
def _dot(rows, e, v):
    """x_e . v for a dense vector v."""
    dense, Xd, data, indices, indptr = rows
    s = 0.0
    if dense:
        for j in range(Xd.shape[1]):
            s += Xd[e, j] * v[j]
        return s
    for p in range(indptr[e], indptr[e + 1]):
        s += data[p] * v[indices[p]]
    return s


@numba.njit(cache=True)
def _add_row(rows, e, w, v):
    """v += w x_e."""
    dense, Xd, data, indices, indptr = rows
    if dense:
        for j in range(Xd.shape[1]):
            v[j] += w * Xd[e, j]
    else:
        for p in range(indptr[e], indptr[e + 1]):
            v[indices[p]] += w * data[p]


@numba.njit(cache=True)
def projections(rows, directions):
    """Every row's projection on every direction, summed by index as the C++'s ``project``."""
    n = rows[1].shape[0] if rows[0] else rows[4].size - 1
    L = directions.shape[0]
    out = np.empty((n, L))
    for e in range(n):
        for i in range(L):
            out[e, i] = _dot(rows, e, directions[i])
    return out


@numba.njit(cache=True)
def row_sqnorms(rows):
    """Every row's squared norm, summed by index."""
    dense, Xd, data, _, indptr = rows
    n = Xd.shape[0] if dense else indptr.size - 1
    out = np.zeros(n)
    for e in range(n):
        s = 0.0
        if dense:
            for j in range(Xd.shape[1]):
                s += Xd[e, j] * Xd[e, j]
        else:
            for p in range(indptr[e], indptr[e + 1]):
                s += data[p] * data[p]
        out[e] = s
    return out


# -- lists ---------------------------------------------------------------------------------------


@numba.njit(cache=True)
def _append(lists, o, s):
    """Put slot s at the end of slot o's list (``lists``: head, tail, nxt, prv, owner)."""
    head, tail, nxt, prv, owner = lists[0], lists[1], lists[2], lists[3], lists[4]
    prv[s] = tail[o]
    nxt[s] = -1
    if tail[o] != -1:
        nxt[tail[o]] = s
    else:
        head[o] = s
    tail[o] = s
    owner[s] = o


@numba.njit(cache=True)
def _unlink(lists, s):
    head, tail, nxt, prv, owner = lists[0], lists[1], lists[2], lists[3], lists[4]
    o = owner[s]
    if prv[s] != -1:
        nxt[prv[s]] = nxt[s]
    else:
        head[o] = nxt[s]
    if nxt[s] != -1:
        prv[nxt[s]] = prv[s]
    else:
        tail[o] = prv[s]
    nxt[s] = -1
    prv[s] = -1
    owner[s] = -1


@numba.njit(cache=True)
def _splice_all(lists, src, dst):
    """Move src's whole list to the end of dst's (``spliceAllTo``)."""
    head, tail, nxt, prv, owner = lists[0], lists[1], lists[2], lists[3], lists[4]
    first = head[src]
    if first == -1:
        return
    s = first
    while s != -1:
        owner[s] = dst
        s = nxt[s]
    if tail[dst] != -1:
        nxt[tail[dst]] = first
        prv[first] = tail[dst]
    else:
        head[dst] = first
    tail[dst] = tail[src]
    head[src] = -1
    tail[src] = -1


# -- buckets -------------------------------------------------------------------------------------


@numba.njit(cache=True)
def _bucket_of(lo, radius, i, val):
    """``calcBucketNumber``: floor((val - lower border) / radius)."""
    return np.int64(math.floor((val - lo[i]) / radius[i]))


@numba.njit(cache=True)
def _allocate(buckets, nb, lo, hi, i, left):
    """``allocateBucket``: double projection i's buckets and its range, to the left (the old
    buckets shifted to the upper half, as the C++ shifts them whatever the range's width is a
    multiple of) or to the right. Returns the bucket arrays, grown when full."""
    bhead, btail, bsize = buckets
    size = nb[i]
    if 2 * size > bhead.shape[1]:
        cap = max(2 * bhead.shape[1], 2 * size)
        grown = (np.full((bhead.shape[0], cap), -1, np.int64),
                 np.full((bhead.shape[0], cap), -1, np.int64),
                 np.zeros((bhead.shape[0], cap), np.int64))  # fmt: skip
        grown[0][:, : bhead.shape[1]] = bhead
        grown[1][:, : bhead.shape[1]] = btail
        grown[2][:, : bhead.shape[1]] = bsize
        bhead, btail, bsize = grown
    if left:
        lo[i] = 2 * lo[i] - hi[i]
        for b in range(size - 1, -1, -1):
            bhead[i, b + size] = bhead[i, b]
            btail[i, b + size] = btail[i, b]
            bsize[i, b + size] = bsize[i, b]
        for b in range(size):
            bhead[i, b] = -1
            btail[i, b] = -1
            bsize[i, b] = 0
    else:
        hi[i] = 2 * hi[i] - lo[i]
        for b in range(size, 2 * size):
            bhead[i, b] = -1
            btail[i, b] = -1
            bsize[i, b] = 0
    nb[i] = 2 * size
    return (bhead, btail, bsize)


@numba.njit(cache=True)
def _build_buckets(buckets, grid, r1):
    """``buildBuckets``: empty every bucket; a projection of one bucket keeps it (and its
    radius), the others get the radius ceil(sqrt(R_1)) and as many buckets as cover the range."""
    bnext, nb, lo, hi, radius = grid
    bhead, btail, bsize = buckets
    L = nb.size
    for i in range(L):
        if nb[i] == 1:
            size = 1
        else:
            # capped: a radius beyond 2^62 is one bucket all the same, and stays an integer
            radius[i] = max(np.int64(math.ceil(min(math.sqrt(r1), 2.0**62))), 1)
            size = max(np.int64(math.ceil((hi[i] - lo[i]) / radius[i])), 1)
        if size > bhead.shape[1]:
            bhead = np.full((L, size), -1, np.int64)
            btail = np.full((L, size), -1, np.int64)
            bsize = np.zeros((L, size), np.int64)
        nb[i] = size
    bhead[:] = -1
    btail[:] = -1
    bsize[:] = 0
    bnext[:] = -1
    return (bhead, btail, bsize)


@numba.njit(cache=True)
def _bucket_in(buckets, grid, proj_row, s):
    """Put first-level feature s in its bucket of every projection, doubling the range until the
    bucket exists, as ``insert`` and ``rebuildFirstLevel`` do."""
    bnext, nb, lo, hi, radius = grid
    for i in range(nb.size):
        val = proj_row[i]
        b = _bucket_of(lo, radius, i, val)
        while b < 0:
            buckets = _allocate(buckets, nb, lo, hi, i, True)
            b = _bucket_of(lo, radius, i, val)
        while b > nb[i] - 1:
            buckets = _allocate(buckets, nb, lo, hi, i, False)
            b = _bucket_of(lo, radius, i, val)
        bhead, btail, bsize = buckets
        bnext[i, s] = -1
        if btail[i, b] != -1:
            bnext[i, btail[i, b]] = s
        else:
            bhead[i, b] = s
        btail[i, b] = s
        bsize[i, b] += 1
    return buckets


#: Rebuilds in a row that merge nothing before kmdr merges from the first level (the threshold
#: has then grown 2^64-fold with the C++'s doubling: a tree that merges nothing then never will)
STALLED = 64


# -- the tree ------------------------------------------------------------------------------------


@numba.njit(cache=True)
def bico(rows, d, sqnorm, proj, weight, m, growth):
    """BICO over the rows in order (Fichtenberger et al.'s ``Bico<T>::operator<<`` for each row,
    then ``compute``).

    Returns ``label, cf_weight, n_rebuilds, threshold``: each row's point (-1 for a row of weight
    0, read by nothing), the points' weights in the C++'s output order (the tree in preorder),
    the number of rebuilds and the final estimate of the optimal cost.
    """
    n = weight.size
    L = proj.shape[1]
    cap = m + 4  # at most m + 1 features, and the old and new roots of a rebuild
    N = np.zeros(cap)
    LS = np.zeros((cap, max(d, 1)))
    SS = np.zeros(cap)
    LSsq = np.zeros(cap)  # |LS|^2, kept as rows are added (exact after each merge)
    rep = np.full(cap, -1, np.int64)
    cid = np.full(cap, -1, np.int64)  # the feature's creation number: the labels' union-find
    lists = np.full((5, cap), -1, np.int64)
    free = np.arange(cap - 1, -1, -1)
    n_free = cap
    alias = np.arange(n)  # creation number -> the one it was merged into (a union-find)
    slot_of = np.full(n, -1, np.int64)
    label = np.full(n, -1, np.int64)
    n_created = 0

    nb = np.zeros(L, np.int64)
    lo = np.zeros(L)
    hi = np.zeros(L)
    radius = np.ones(L, np.int64)
    buckets = (np.full((L, 1), -1, np.int64), np.full((L, 1), -1, np.int64),
               np.zeros((L, 1), np.int64))  # fmt: skip
    bnext = np.full((L, cap), -1, np.int64)
    grid = (bnext, nb, lo, hi, radius)  # arrays changed in place; ``buckets`` may be replaced

    n_free -= 1
    root = free[n_free]
    opt_est = -1.0
    n_cfs = 0
    n_rebuilds = 0

    # the buffer phase: the rows until (m + 1) pairs of them differ
    min_dist = np.inf
    pairs = 0
    max_val = np.full(L, -1.0)
    e = 0
    while e < n and pairs < m + 1:
        if weight[e] > 0:
            for b in range(e):  # the rows buffered so far (those of weight 0 skipped)
                if weight[b] <= 0:
                    continue
                dist = _sqdist(rows, b, e)
                if dist > 0:
                    pairs += 1
                    if dist < min_dist:
                        min_dist = dist
                # the C++ updates the ranges inside this loop: the first row's projections are
                # never read, the others' once per row buffered before them
                for i in range(L):
                    val = abs(proj[e, i])
                    if val > max_val[i] or max_val[i] == -1:
                        max_val[i] = val
        e += 1
    # kmdr's: a stream that ends in the buffer phase (fewer than m + 1 differing pairs, where
    # the C++ returns no point) is put in the tree all the same; rows that are all one row make
    # one point
    opt_est = 16.0 * min_dist if min_dist < np.inf else 1.0
    for i in range(L):
        lo[i] = -max(max_val[i], 0.0)
        hi[i] = max(max_val[i], 0.0)
        if hi[i] <= lo[i]:  # no range (the C++ would read an empty bucket list)
            hi[i] = lo[i] + 1.0
    buckets = _build_buckets(buckets, grid, opt_est / 16.0)

    for e in range(n):
        w = weight[e]
        if w <= 0:
            continue
        # insert(root, 1, e)
        node = root
        level = 1
        while True:
            r_level = opt_est / 2.0 ** (3 + level)  # getR(level); the C++ shifts an int
            nearest = -1
            if level == 1:
                nearest, buckets = _nearest_first(buckets, grid, proj[e], rows, rep, e)
            else:
                best = -1.0
                s = lists[0, node]
                while s != -1:
                    dist = _sqdist(rows, rep[s], e)
                    if dist < best or best == -1.0:
                        best = dist
                        nearest = s
                    s = lists[2, s]
            if lists[0, node] == -1 or nearest == -1 or _sqdist(rows, rep[nearest], e) > r_level:
                n_free -= 1
                s = free[n_free]
                N[s] = w
                LS[s, :] = 0.0
                _add_row(rows, e, w, LS[s])
                SS[s] = w * sqnorm[e]
                LSsq[s] = w * w * sqnorm[e]
                rep[s] = e
                lists[0, s] = -1
                lists[1, s] = -1
                _append(lists, node, s)
                cid[s] = n_created
                slot_of[n_created] = s
                label[e] = n_created
                n_created += 1
                if level == 1:
                    buckets = _bucket_in(buckets, grid, proj[e], s)
                n_cfs += 1
                break
            # the cost of the nearest feature with the row added, about its centre before
            c = nearest
            ls_x = _dot(rows, e, LS[c])
            cost = (
                (SS[c] + w * sqnorm[e])
                - 2.0 * ((LSsq[c] + w * ls_x) / N[c])
                + (N[c] + w) * (LSsq[c] / (N[c] * N[c]))
            )
            if cost < opt_est:
                N[c] += w
                _add_row(rows, e, w, LS[c])
                SS[c] += w * sqnorm[e]
                LSsq[c] += 2.0 * w * ls_x + w * w * sqnorm[e]
                label[e] = cid[c]
                break
            node = c
            level += 1
        stalled = 0  # rebuilds in a row that merged nothing
        while n_cfs > m:
            # rebuild: a new root, the threshold grown, the first level re-inserted
            before = n_cfs
            n_free -= 1
            new_root = free[n_free]
            lists[0, new_root] = -1
            lists[1, new_root] = -1
            old_root = root
            root = new_root
            opt_est *= growth
            n_rebuilds += 1
            r1 = opt_est / 16.0
            buckets = _build_buckets(buckets, grid, r1)
            it = lists[0, old_root]
            while it != -1:
                nxt_it = lists[2, it]
                r = rep[it]
                nearest, buckets = _nearest_first(buckets, grid, proj[r], rows, rep, r)
                if lists[0, root] == -1 or nearest == -1 or _sqdist(rows, rep[nearest], r) > r1:
                    _unlink(lists, it)
                    _append(lists, root, it)
                    buckets = _bucket_in(buckets, grid, proj[r], it)
                else:
                    q = rep[nearest]
                    cost = (
                        (SS[it] + SS[nearest])
                        - 2.0 * (_dot(rows, q, LS[it]) + _dot(rows, q, LS[nearest]))
                        + (N[it] + N[nearest]) * sqnorm[q]
                    )
                    if cost <= opt_est:
                        n_free = _merge(lists, N, LS, SS, LSsq, cid, alias, free, n_free,
                                        nearest, it)  # fmt: skip
                        n_cfs -= 1
                    else:
                        _unlink(lists, it)
                        _append(lists, nearest, it)
                it = nxt_it
            free[n_free] = old_root
            n_free += 1
            # rebuildTraversMerge from the second level down (the order of independent
            # subtrees does not change what merges)
            stack = np.empty(cap, np.int64)
            top = 0
            if stalled >= STALLED:
                # kmdr's: the C++ never merges a second-level feature into its parent, so a tree
                # with more than m features below few first-level ones rebuilds forever; after
                # STALLED rebuilds that merged nothing, the merging starts at the first level
                stack[0] = root
                top = 1
            else:
                s = lists[0, root]
                while s != -1:
                    stack[top] = s
                    top += 1
                    s = lists[2, s]
            while top > 0:
                top -= 1
                node = stack[top]
                parent = lists[0, node]
                while parent != -1:
                    child = lists[0, parent]
                    while child != -1:
                        nxt_child = lists[2, child]
                        dot_pc = 0.0
                        for j in range(LS.shape[1]):
                            dot_pc += LS[child, j] * LS[parent, j]
                        np_ = N[parent]
                        cost = (
                            (SS[parent] + SS[child])
                            - 2.0 * ((LSsq[parent] + dot_pc) / np_)
                            + (np_ + N[child]) * (LSsq[parent] / (np_ * np_))
                        )
                        if cost < opt_est:
                            n_free = _merge(lists, N, LS, SS, LSsq, cid, alias, free, n_free,
                                            parent, child)  # fmt: skip
                            n_cfs -= 1
                        else:
                            stack[top] = child
                            top += 1
                        child = nxt_child
                    parent = lists[2, parent]
            stalled = stalled + 1 if n_cfs == before else 0

    # compute: the features in preorder, each its rows' mean weighing their weight
    index_of = np.full(cap, -1, np.int64)
    cf_weight = np.empty(n_cfs)
    count = 0
    stack = np.empty(2 * cap + 2, np.int64)
    top = 0
    if lists[0, root] != -1:
        stack[0] = lists[0, root]
        top = 1
    while top > 0:
        top -= 1
        s = stack[top]
        index_of[s] = count
        cf_weight[count] = N[s]
        count += 1
        if lists[2, s] != -1:
            stack[top] = lists[2, s]
            top += 1
        if lists[0, s] != -1:
            stack[top] = lists[0, s]
            top += 1
    for e in range(n):
        if label[e] >= 0:
            c = label[e]
            while alias[c] != c:
                alias[c] = alias[alias[c]]
                c = alias[c]
            label[e] = index_of[slot_of[c]]
    return label, cf_weight, n_rebuilds, opt_est


@numba.njit(cache=True)
def _merge(lists, N, LS, SS, LSsq, cid, alias, free, n_free, into, s):
    """Feature s merged into feature ``into``: its sums added, its children made ``into``'s
    (at the end of its list), its slot freed and its rows now ``into``'s."""
    N[into] += N[s]
    LS[into] += LS[s]
    SS[into] += SS[s]
    t = 0.0
    for j in range(LS.shape[1]):
        t += LS[into, j] * LS[into, j]
    LSsq[into] = t
    _splice_all(lists, s, into)
    _unlink(lists, s)
    alias[cid[s]] = cid[into]
    free[n_free] = s
    return n_free + 1


@numba.njit(cache=True)
def _nearest_first(buckets, grid, proj_row, rows, rep, e):
    """``BicoNode::nearest`` on the first level: of the row's buckets, one per projection, the
    smallest (the first of the smallest; a bucket out of range ends the search with none, after
    doubling that projection's range once), and in it the feature whose reference row is
    nearest (the first strictly nearest)."""
    bnext, nb, lo, hi, radius = grid
    bhead, _, bsize = buckets
    L = nb.size
    mini = 0
    b = _bucket_of(lo, radius, 0, proj_row[0])
    bucket_min = b
    if b < 0 or b > nb[0] - 1:
        pass
    else:
        mins = bsize[0, b]
        for i in range(1, L):
            b = _bucket_of(lo, radius, i, proj_row[i])
            if b >= 0 and b <= nb[i] - 1:
                if bsize[i, b] < mins:
                    mins = bsize[i, b]
                    bucket_min = b
                    mini = i
            else:
                bucket_min = b
                mini = i
                break
    if bucket_min < 0:
        return -1, _allocate(buckets, nb, lo, hi, mini, True)
    if bucket_min > nb[mini] - 1:
        return -1, _allocate(buckets, nb, lo, hi, mini, False)
    nearest = -1
    best = -1.0
    s = bhead[mini, bucket_min]
    while s != -1:
        dist = _sqdist(rows, rep[s], e)
        if dist < best or best == -1.0:
            best = dist
            nearest = s
        s = bnext[mini, s]
    return nearest, buckets
