"""BICO (Fichtenberger, Gillé, Schmidt, Schwiegelshohn, Sohler, *BICO: BIRCH Meets Coresets for
k-Means Clustering*, ESA 2013): a one-pass coreset of at most m clustering features.

BICO reads the rows once and keeps a tree of clustering features, BIRCH's: a feature holds the
number of its rows, their sum and the sum of their squared norms, enough to know the k-means cost
of its rows about any point, and a reference row (the first it took). A row goes down the tree: at
each level to the feature whose reference row is nearest, if that one is within the level's radius
``T / 2^(3 + level)`` and its cost with the row added stays under the threshold T; it opens a new
feature where the nearest is too far, and goes one level down where the cost would be too high.
When more than m features are open, T is doubled (``threshold_growth``) and the tree rebuilt: the
first level re-inserted with the new radius, then every feature merged into its parent where the
two together still cost less than T. The first T is 16 times the smallest squared distance
between two different rows among the first rows read (the *buffer phase*). The first level's
nearest neighbour is searched only in one bucket of one random projection of the rows (the
smallest, of ``n_projections``). The coreset is the features' centroids, each weighing its rows:
in kmdr, each point is the mean of its rows, a row of ``composition_`` (every ``indices_`` is -1).

Following the C++ code of Fichtenberger et al. (the CluE library's ``Bico<T>``, as Schwiegelshohn
and Sheikh-Omar ran it for their study of coresets, ESA 2022: the repository
sheikhomar/eval-k-means-coresets, ``bico/src/clustering/bico.h``, ``cfentry.h``, run by
``bico/quickstart.cpp`` with 50 projections on most datasets), read line by line, with its
arithmetic and order kept where they decide something: a feature's cost for a new row is its cost,
with the row, about its centroid *before* the row (``insert``), against T with a strict ``<``; at a
rebuild a first-level feature merges into its nearest when their cost about the nearest's reference
row is ``<=`` T (``rebuildFirstLevel``), and a child into its parent when their cost about the
parent's centroid is ``<`` T, the parents being the second level's features and, below a child that
stays, that child's children (``rebuildTraversMerge`` recurses into a child's children, not into
the child: features merge into levels 2, 4, 6 and so on, never into the first level or an odd one),
and the children a merge hands to a parent are not visited in that rebuild when the merged child
was the parent's last, as the C++'s list iteration does; a node's nearest feature is the first
strictly nearest in the order the features were put in; the nearest neighbour search on the first
level takes the smallest bucket of the row's, one per projection (the first of the smallest), looks
no further when a projection's bucket is out of range (it doubles that projection's range once and
opens a new feature), and the buckets are ``ceil(sqrt(T / 16))`` wide, an integer, over the range
of the buffered rows' projections (the first row's excepted, as the C++ reads it), doubled when a
row falls outside it; the buffer phase ends when m + 1 *pairs* of buffered rows differ (so after
about sqrt(2m) rows, not m + 1 distinct rows as its comment says). The points come in the C++'s
order (the tree in preorder).

Where kmdr differs from the C++:

- the projections are NumPy's normal draws (normalised to unit length), not the C++'s random
  stream: the same seed gives the same coreset within kmdr, not theirs;
- a row weighs its ``sample_weight`` from the start (the C++ opens a feature with weight 1
  whatever the point's weight, and counts weights as integers); a row of weight 0 is skipped;
- a stream that ends in the buffer phase (fewer than m + 1 differing pairs: data of very few
  distinct rows) is put in the tree all the same, where the C++ returns no point at all, and data
  whose rows are all one row give one point;
- sums run over a row's entries in index order for dense and sparse rows alike (dense and CSR
  input give the same coreset), the C++'s over a dense row; the radius and bucket numbers are
  64-bit integers, the C++'s ``int`` (which overflows for a squared radius beyond 2^62 or a level
  beyond 28); a projection whose buffered range is empty gets one bucket, where the C++ would read
  an empty list;
- a tree whose features cannot merge any more (more than m of them below a first level that
  cannot shrink: the C++ merges nothing into the first level) makes the C++ rebuild forever, its
  threshold doubling to infinity; after 64 rebuilds in a row that merged nothing (T then 2^64
  times larger), kmdr merges children into their parents from the first level down once, which
  at that T merges nearly all: the coreset of such data has few points (one, on the random
  mixture a test keeps); the bucket radius is capped at 2^62;
- the C++'s buffer-phase counters are ``static`` (shared by every BICO in one process): each fit
  here starts afresh.

Kept from the C++ although it looks unintended: after a range is doubled to the left the old
buckets are shifted by their number, which puts them where new rows look only when the range's
width is a whole number of buckets; the merges into every other level only; and the buckets' width
is a whole number, at least 1, so that BICO is not invariant to the data's scale (data whose
projections all lie within +-0.5 has one bucket a projection, where the search is exact; the same
data times 10^6 is spread over many buckets).

Draganov, Saulpic and Schwiegelshohn (SIGMOD 2024) ran another BICO, a Python one
(Andrew-Draganov/Fast-Coreset-Generation, ``bico_master/bico/core.py``, called by
``make_coreset.py`` with 100 projections and m = 40 k), which differs from the C++ in its rules:
its buffer is the first ``sqrt(m) + 1`` rows; a row joins a node's feature when the cost about its
reference row allows, else goes to the nearest child found in the smallest bucket, with no radius
test; every node has buckets, ``2 R`` wide with R the radius of its level when the node was made
(the first root's with T = 1); a rebuild re-inserts every feature into an empty tree; and the
weights of the points it is given are ignored (also when their composition experiment merges
coresets, whose points weigh many rows). kmdr's ``bico`` is the C++'s.

The k-means cost of a feature uses the expansion ``SS - 2 LS.c + N |c|^2`` as the C++ does, which
loses precision for features far from the origin (their cost is a small difference of large
numbers): centre the data where that matters. The sums of the features are dense
(``coreset_size + 4`` rows of ``n_features``), also for sparse input.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval

from kmdr.coresets._base import BaseCoreset

__all__ = ["BICO"]


class BICO(BaseCoreset):
    """BICO's coreset: at most m clustering features of a one-pass tree, each its rows' mean.

    Parameters
    ----------
    n_clusters, random_state
        As :class:`~kmdr.coresets.BaseCoreset`. BICO does not read ``n_clusters`` (the C++ takes
        k and stores it unread) beyond checking that the coreset can hold k points.
    coreset_size : int, default=200
        m, the most clustering features the tree keeps (the C++'s ``nMax``): the coreset has at
        most m points, usually fewer.
    n_projections : int, default=50
        The random projections of the first level's nearest-neighbour search (the C++'s ``p``;
        the authors of the ESA 2022 study ran 50 on most datasets).
    threshold_growth : float, default=2.0
        The factor the threshold T grows by at each rebuild (the C++ doubles it).

    Attributes
    ----------
    points_, weights_, indices_, composition_, n_features_in_
        As :class:`~kmdr.coresets.BaseCoreset`; every ``indices_`` is -1 (a point is a mean).
    n_rebuilds_ : int
        The rebuilds the tree went through.
    threshold_ : float
        T at the end: BICO's estimate of the optimal cost, grown at each rebuild.
    """

    compat_version = 1

    _parameter_constraints: ClassVar[dict] = {
        **BaseCoreset._parameter_constraints,
        "n_projections": [Interval(Integral, 1, None, closed="left")],
        "threshold_growth": [Interval(Real, 1, None, closed="neither")],
    }

    def __init__(self, n_clusters=8, coreset_size=200, random_state=None, n_projections=50,
                 threshold_growth=2.0):  # fmt: skip
        super().__init__(n_clusters, coreset_size, random_state)
        self.n_projections = n_projections
        self.threshold_growth = threshold_growth

    def _build(self, X, weight, rng):
        from kmdr.coresets._bico_kernels import bico, projections, row_sqnorms

        d = X.shape[1]
        directions = rng.standard_normal((self.n_projections, d))
        directions /= np.linalg.norm(directions, axis=1, keepdims=True)
        if sp.issparse(X):
            X = sp.csr_array(X, dtype=np.float64)
            X.sort_indices()
            rows = (False, np.empty((0, d)), X.data, X.indices.astype(np.int64),
                    X.indptr.astype(np.int64))  # fmt: skip
        else:
            dense = np.ascontiguousarray(X, dtype=np.float64)
            empty = np.empty(0)
            rows = (True, dense, empty, np.empty(0, np.int64), np.zeros(1, np.int64))
        sqnorm = row_sqnorms(rows)
        proj = projections(rows, directions)
        label, cf_weight, n_rebuilds, threshold = bico(
            rows, d, sqnorm, proj, weight, self.coreset_size, float(self.threshold_growth)
        )
        self.n_rebuilds_ = int(n_rebuilds)
        self.threshold_ = float(threshold)
        return self._set_points(X, weight, np.empty(0, np.intp), np.empty(0), label, cf_weight)
