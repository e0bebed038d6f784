"""Merge-and-reduce: any construction's coreset composed over row blocks (:class:`MergeReduce`).

A coreset of a coreset is a coreset (its errors add up), and so is the union of coresets of
disjoint parts of the data. Merge-and-reduce (Bentley and Saxe, 1980, for decomposable search
problems; Har-Peled and Mazumdar, STOC 2004, for clustering coresets) uses both: each row block
is reduced to a coreset of ``m`` points, and coresets are merged (their points and weights put
together) and reduced again to ``m``, along a tree, until one coreset is left. Each reduction
works on one block or on a few coresets: the data is never held whole, and the blocks'
reductions are independent, so they run in parallel.

The tree (``tree``):

- ``"stream"``, the layout of Draganov, Saulpic and Schwiegelshohn (*Settling Time vs. Accuracy
  Tradeoffs for Clustering Big Data*, SIGMOD 2024, Section "Streaming Setting", and
  ``run_composition_experiments`` in their repository Andrew-Draganov/Fast-Coreset-Generation,
  ``experiment_utils/get_algorithm.py``): the blocks in order are cut into subtrees of 1, 1, 2,
  4, ... blocks ("if there are b = 8 blocks, then there would be coresets corresponding to
  blocks [[1], [2], [3, 4], [5, 6, 7, 8]]"), each reduced along a complete binary tree, and the
  union of the subtrees' coresets is reduced once more: what a stream holds after its blocks, one
  coreset per level, and the coreset a reader would take from it. Where b is not a power of two
  the last subtree holds the blocks left (fewer than its power of two);
- ``"binary"``: one complete binary tree over the blocks (each union of two children reduced),
  the classical batch merge-and-reduce: every row goes through ``ceil(log2 b)`` reductions.

Both halve a set of blocks as the authors' ``recursively_compose_coresets`` does, the first half
of ``floor(b/2)`` blocks. A reduction is the construction fitted to the merged points with their
weights as ``sample_weight``: the weights a merged coreset carries are the rows' weights of the
next reduction, in its draws and in the weights it gives, as the construction defines them for
weighted rows. A block, or a union, of at most ``m`` points is kept as it is (it is its own
coreset, exactly); with one block there is no merge and the coreset is the construction's on the
whole data, with this ``random_state``: the static coreset itself.

Where kmdr differs from the authors' code, and why:

- the blocks: their code permutes the rows at random and cuts ``int(n / b)`` rows per block,
  dropping the ``n mod b`` rows left over; kmdr cuts the rows in the order they come (a stream's
  order; ``shuffle=True`` deals them at random first, as theirs) into blocks that differ by at
  most one row, and drops none. On data whose rows come grouped by cluster (kmdr's ``mixture``),
  blocks in order each see a few clusters: a harder stream than the authors' shuffled one;
- their code reduces a subtree of one block a second time (``if len(leaf_coresets) ==
  params['m']`` compares the number of blocks with m, where one is meant), resampling a coreset of
  m points to m points; kmdr does not, as the text does not;
- their ``get_coreset`` rescales the drawn weights ``1 / s(p)`` to the input's total weight, so a
  merged coreset's weights enter a reduction only through its total (and, for sensitivity
  sampling, its costs); kmdr's constructions take weighted rows as weighted rows (drawn in
  proportion to weight times score, weighted so that the cost stays unbiased);
- their b is fixed at 16 (``num_tree_layers=4``); here ``n_blocks`` or ``block_rows`` set it,
  16 by default.

On Dask: :meth:`MergeReduce.fit` on a ``dask.array`` (dense, or of scipy.sparse chunks), or on
kmdr's row blocks (a :class:`kmdr.datasets.blocks.RowBlocks`, read here through its
``bounds``/``block`` contract), builds the tree as ``dask.delayed`` tasks: each block's coreset is
computed where its rows are (the block is read, or computed from the array, inside its task), the
merges follow the tree, and only the final coreset comes back, computed by the active Dask
scheduler (a ``distributed`` client, or the local threads). The seeds are drawn in the driver
before any task, one per reduction by its place in the tree, so the result is the in-memory
path's, bit for bit, whatever order the tasks run in.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _check_sample_weight, check_array

from kmdr.coresets._base import BaseCoreset

__all__ = ["MergeReduce"]

#: The authors' number of blocks (``num_tree_layers=4``: 2^4 blocks).
DEFAULT_BLOCKS = 16
#: The parameters a reduction's construction gets from :class:`MergeReduce`, never from ``params``.
SET_HERE = ("n_clusters", "coreset_size", "random_state")


@dataclass
class _Part:
    """A coreset of some of X's rows: its points, their weights, each point as a combination of
    X's rows (``composition``, n_points x n_samples) and the row each point is (-1: a
    combination)."""

    points: object
    weights: np.ndarray
    composition: sp.csr_array
    indices: np.ndarray


def _balanced(leaves: list):
    """A complete binary tree over ``leaves``, the first half of ``floor(len / 2)``."""
    if len(leaves) == 1:
        return leaves[0]
    half = len(leaves) // 2
    return (_balanced(leaves[:half]), _balanced(leaves[half:]))


def _stream(leaves: list):
    """Subtrees of 1, 1, 2, 4, ... leaves in order (the last one what is left), each balanced,
    their union reduced once."""
    groups, at, size = [], 0, 1
    while at < len(leaves):
        groups.append(leaves[at : at + size])
        at += size
        size = 1 if len(groups) == 1 else 2 * size
    subtrees = tuple(_balanced(group) for group in groups)
    return subtrees[0] if len(subtrees) == 1 else subtrees


def _merges(tree) -> int:
    return 0 if isinstance(tree, int) else 1 + sum(_merges(child) for child in tree)


def _stacked(parts):
    if sp.issparse(parts[0]):
        return sp.vstack(parts, format="csr")
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def _whole(points, weights, rows, n) -> _Part:
    """Points kept as they are: rows ``rows`` of X (a block small enough to be its own coreset)."""
    unit = sp.csr_array((np.ones(rows.size), rows, np.arange(rows.size + 1)), shape=(rows.size, n))
    return _Part(points, weights, unit, rows.astype(np.intp))


def _reduced(construction, points, weights, random_state):
    """The construction fitted to the weighted ``points``: a new estimator, the given unchanged."""
    fitted = clone(construction).set_params(random_state=random_state)
    return fitted.fit(points, sample_weight=weights)


def _leaf(construction, data, rows, weights, random_state, n, whole) -> _Part:
    """Block ``rows`` of X (its values ``data``): the construction's coreset of it, or the block
    itself when it holds at most m rows (``whole``: never with one block, the static coreset)."""
    data = check_array(data, accept_sparse="csr", dtype=[np.float64, np.float32])
    if not whole and rows.size <= construction.coreset_size:
        return _whole(data, weights, rows, n)
    fitted = _reduced(construction, data, weights, random_state)
    local = fitted.composition_.tocsr()
    composition = sp.csr_array((local.data, rows[local.indices], local.indptr),
                               shape=(local.shape[0], n))  # fmt: skip
    indices = np.where(fitted.indices_ >= 0, rows[np.maximum(fitted.indices_, 0)], -1)
    return _Part(fitted.points_, fitted.weights_, composition, indices)


def _merged(construction, parts, random_state) -> _Part:
    """The union of ``parts``, reduced by the construction when it holds more than m points."""
    points = _stacked([part.points for part in parts])
    weights = np.concatenate([part.weights for part in parts])
    composition = sp.vstack([part.composition for part in parts], format="csr")
    indices = np.concatenate([part.indices for part in parts])
    if weights.size <= construction.coreset_size:
        return _Part(points, weights, sp.csr_array(composition), indices)
    fitted = _reduced(construction, points, weights, random_state)
    local = sp.csr_array(fitted.composition_)
    taken = np.where(fitted.indices_ >= 0, indices[np.maximum(fitted.indices_, 0)], -1)
    return _Part(fitted.points_, fitted.weights_, sp.csr_array(local @ composition), taken)


def _read_rows(blocks, rows):
    """Rows ``rows`` (sorted) of a RowBlocks, reading only the blocks that hold them."""
    ends = np.array([hi for _, hi in blocks.bounds])
    which = np.searchsorted(ends, rows, side="right")
    parts = []
    for block in np.unique(which):
        lo = blocks.bounds[block][0]
        parts.append(blocks.block(int(block))[rows[which == block] - lo])
    return _stacked(parts)


def _take(band, local):
    return band[local]


def _dask_rows(X, rows, delayed):
    """Rows ``rows`` (sorted) of a dask.array, each of its row chunks that holds some sliced in
    a task of its own: dask's own fancy indexing concatenates the chunks' pieces with NumPy,
    which older dask cannot do for scipy.sparse chunks."""
    ends = np.cumsum(X.chunks[0])
    which = np.searchsorted(ends, rows, side="right")
    parts = [
        delayed(_take)(X.blocks[int(b)], rows[which == b] - (ends[b - 1] if b else 0))
        for b in np.unique(which)
    ]
    return delayed(_stacked)(parts)


class _RowBlocksInput:
    """A RowBlocks as the input of :meth:`MergeReduce.fit`: its shape, for the base's checks."""

    def __init__(self, blocks):
        self.blocks = blocks
        self.shape = (int(blocks.n_samples), int(blocks.n_features))


def _is_dask_array(X) -> bool:
    return type(X).__module__.startswith("dask.array") and hasattr(X, "chunks")


def _is_row_blocks(X) -> bool:
    return all(hasattr(X, name) for name in ("bounds", "block", "n_samples", "n_features"))


class MergeReduce(BaseCoreset):
    """Merge-and-reduce over row blocks of any construction (see the module docstring).

    Parameters
    ----------
    n_clusters, coreset_size, random_state
        As :class:`~kmdr.coresets.BaseCoreset`; given to every reduction (``coreset_size`` is
        the m of each block's coreset and of each merge's).
    construction : str or BaseCoreset, default="sensitivity"
        The construction each reduction runs: a name of :mod:`kmdr.coresets` (``kmdr-list
        coresets``), or an unfitted construction (cloned; its ``n_clusters``, ``coreset_size``
        and ``random_state`` are replaced by these).
    params : dict or None, default=None
        The construction's own parameters, e.g. ``{"j": 2}`` for ``welterweight``.
    n_blocks : int or None, default=None
        The number of row blocks, consecutive and differing by at most one row. None, with
        ``block_rows`` None: the chunks of a dask.array or the blocks of a RowBlocks, and 16
        blocks (the authors' number) of an in-memory matrix.
    block_rows : int or None, default=None
        The rows of each block (the last one shorter), in place of ``n_blocks``.
    tree : {"stream", "binary"}, default="stream"
        The merges: the authors' streaming layout, or one complete binary tree.
    shuffle : bool, default=False
        Deal the rows to the blocks by a random permutation (drawn from ``random_state``), as the
        authors' code does, instead of in their order. On a dask.array or RowBlocks each block
        then gathers its rows from every chunk.

    Attributes
    ----------
    n_blocks_ : int
        The blocks the rows were cut into.
    tree_ : int or tuple
        The merges: a block's index, or a tuple of the subtrees merged and reduced together.
    points_, weights_, indices_, composition_, n_features_in_
        As :class:`~kmdr.coresets.BaseCoreset`. With more than one block a point made by a
        reduction of merged points (a mean of means) is ``composition_ @ X`` up to rounding; a
        sampled row is the row itself.
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseCoreset._parameter_constraints,
        "construction": [str, BaseCoreset],
        "params": [dict, None],
        "n_blocks": [Interval(Integral, 1, None, closed="left"), None],
        "block_rows": [Interval(Integral, 1, None, closed="left"), None],
        "tree": [StrOptions({"stream", "binary"})],
        "shuffle": ["boolean"],
    }

    def __init__(self, n_clusters=8, coreset_size=200, random_state=None,
                 construction="sensitivity", params=None, n_blocks=None, block_rows=None,
                 tree="stream", shuffle=False):  # fmt: skip
        super().__init__(n_clusters, coreset_size, random_state)
        self.construction = construction
        self.params = params
        self.n_blocks = n_blocks
        self.block_rows = block_rows
        self.tree = tree
        self.shuffle = shuffle

    #: bumped when a change to merge-and-reduce changes its output
    own_version: ClassVar[int] = 1

    @property
    def compat_version(self) -> int:
        """The version a cell's identity reads (see BaseCoreset): ``1000 * own_version`` plus
        the construction's own, so that a change of either is a new cell."""
        inner = int(getattr(self._construction_class(), "compat_version", 1))
        return 1000 * self.own_version + inner

    def _construction_class(self) -> type:
        if isinstance(self.construction, str):
            from kmdr.coresets import coreset_class  # the registry: a one-line unknown name

            return coreset_class(self.construction)
        return type(self.construction)

    def _prototype(self) -> BaseCoreset:
        """The unfitted construction every reduction clones, with these sizes."""
        params = dict(self.params or {})
        what = self.construction if isinstance(self.construction, str) else (
            type(self.construction).__name__)  # fmt: skip
        if fixed := [name for name in SET_HERE if name in params]:
            raise ValueError(
                f"params={params!r}: {fixed[0]} is merge-and-reduce's own parameter, not the "
                f"construction's; give it to MergeReduce"
            )
        if isinstance(self.construction, str):
            prototype = self._construction_class()()
        else:
            prototype = clone(self.construction)
        takes = set(prototype.get_params(deep=False)) - set(SET_HERE)
        if bad := sorted(set(params) - takes):
            raise ValueError(
                f"params: construction {what!r} takes no parameter {bad[0]!r} (it takes "
                f"{', '.join(sorted(takes)) or 'none'})"
            )
        return prototype.set_params(**params, n_clusters=self.n_clusters,
                                    coreset_size=self.coreset_size)  # fmt: skip

    def _validated(self, X):
        # a dask.array or row blocks is read block by block, in the blocks' tasks
        if _is_dask_array(X):
            if X.ndim != 2 or any(np.isnan(X.shape)):
                raise ValueError(
                    f"a dask.array of shape {X.shape}: give n_samples x n_features with both "
                    "known (compute_chunk_sizes() for unknown chunk sizes)"
                )
            self.n_features_in_ = int(X.shape[1])
            return X
        if _is_row_blocks(X):
            self.n_features_in_ = int(X.n_features)
            return _RowBlocksInput(X)
        return super()._validated(X)

    def _weights(self, sample_weight, X):
        # only the number of rows is read: a stand-in of X's length, not its values
        return _check_sample_weight(sample_weight, np.empty((X.shape[0], 0)), dtype=np.float64)

    def _bounds(self, X, n) -> list[tuple[int, int]]:
        if self.n_blocks is not None and self.block_rows is not None:
            raise ValueError(
                f"n_blocks={self.n_blocks} and block_rows={self.block_rows}: give one of the two"
            )
        if self.block_rows is not None:
            return [(lo, min(lo + self.block_rows, n)) for lo in range(0, n, self.block_rows)]
        if self.n_blocks is None and _is_dask_array(X):
            ends = np.cumsum(X.chunks[0]).tolist()
            return list(zip([0, *ends[:-1]], ends, strict=True))
        if self.n_blocks is None and isinstance(X, _RowBlocksInput):
            return [(int(lo), int(hi)) for lo, hi in X.blocks.bounds]
        b = DEFAULT_BLOCKS if self.n_blocks is None else self.n_blocks
        if b > n:
            raise ValueError(f"n_blocks={b} is more than the data's {n} rows")
        ends = np.cumsum(np.full(b, n // b) + (np.arange(b) < n % b)).tolist()
        return list(zip([0, *ends[:-1]], ends, strict=True))

    def _build(self, X, weight, rng):
        n = X.shape[0]
        construction = self._prototype()
        bounds = self._bounds(X, n)
        b = len(bounds)
        self._warn_unused(b)
        tree = _stream(list(range(b))) if self.tree == "stream" else _balanced(list(range(b)))
        if b == 1:  # the static coreset: the construction on the whole data, with this state
            blocks, seeds = [np.arange(n)], [rng]
        else:
            perm = rng.permutation(n) if self.shuffle else np.arange(n)
            blocks = [np.sort(perm[lo:hi]) for lo, hi in bounds]
            seeds = list(rng.randint(np.iinfo(np.int32).max, size=b + _merges(tree)))
        part = self._run(X, construction, tree, blocks, weight, seeds, whole=b == 1)
        self.n_blocks_, self.tree_ = b, tree
        self.composition_ = part.composition
        self.weights_ = part.weights
        self.indices_ = part.indices
        self.points_ = part.points
        return self

    def _warn_unused(self, b):
        why = "one block is the static coreset" if b == 1 else "both trees merge them once"
        unused = ["shuffle=True"] if self.shuffle and b == 1 else []
        if self.tree != "stream" and b <= 2:
            unused.append(f"tree={self.tree!r}")
        for setting in unused:
            warnings.warn(
                f"{setting} changes nothing with {b} block{'s' if b > 1 else ''}: {why}",
                UserWarning,
                stacklevel=4,
            )

    def _run(self, X, construction, tree, blocks, weight, seeds, whole) -> _Part:
        """The tree's reductions: in this process on a matrix in memory, as dask.delayed tasks
        on a dask.array or row blocks (the same functions, the same seeds)."""
        n = X.shape[0]
        leaf_seeds, merge_seeds = seeds[: len(blocks)], iter(seeds[len(blocks) :])
        lazy = _is_dask_array(X) or isinstance(X, _RowBlocksInput)
        if lazy:
            from dask import compute, delayed

            leaf, merged, read = delayed(_leaf), delayed(_merged), delayed(_read_rows)
        else:
            leaf, merged = _leaf, _merged

        def data_of(rows):
            if not lazy:
                return X[rows]
            if isinstance(X, _RowBlocksInput):
                return read(X.blocks, rows)
            contiguous = rows.size and rows[-1] - rows[0] + 1 == rows.size
            return (
                X[int(rows[0]) : int(rows[-1]) + 1] if contiguous else _dask_rows(X, rows, delayed)
            )

        def walk(node):
            if isinstance(node, int):
                rows = blocks[node]
                return leaf(construction, data_of(rows), rows, weight[rows], leaf_seeds[node],
                            n, whole)  # fmt: skip
            children = [walk(child) for child in node]
            return merged(construction, children, next(merge_seeds))

        root = walk(tree)
        return compute(root)[0] if lazy else root
