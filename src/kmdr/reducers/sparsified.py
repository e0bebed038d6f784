"""Preconditioned data sparsification (Pourkamali-Anaraki and Becker 2017), lst17's "PD", with
the variants of the paper's own experiments: sparsification without preconditioning, and the
two-pass algorithm (a second pass over the original data after sparsified k-means)."""

from __future__ import annotations

from numbers import Integral
from typing import ClassVar

import numpy as np
import scipy.fft
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from kmdr.kmeans.sparsified import (
    authors_sparsified_kmeans,
    check_sparsified,
    second_pass,
    sparsified_kmeans,
)
from kmdr.reducers._base import BaseReducer
from kmdr.reducers._builtins import declared_plan
from kmdr.reducers._plans import padded_dimension
from kmdr.reducers._validation import same_sparse_kind
from kmdr.reducers.srht import fwht_rows

#: Rows are preconditioned in blocks of about this many entries (8 bytes each), so sparse input
#: is densified one block at a time and memory stays O(block + n r), never O(n d).
_BLOCK_ENTRIES = 1 << 22


def fwht(Y: np.ndarray) -> np.ndarray:
    """Orthonormal Walsh-Hadamard transform of every row of ``Y`` (row length a power of two).

    ``H / sqrt(p)`` with H the Sylvester-ordered Hadamard matrix (``scipy.linalg.hadamard``), by
    the package's one fast transform (:func:`kmdr.reducers.srht.fwht_rows`, O(p log p) per row,
    no p x p matrix) on a copy. The matrix is symmetric and orthogonal, so the transform is its
    own inverse.
    """
    Y = np.array(Y, dtype=np.float64, copy=True, order="C")
    p = Y.shape[1]
    if p & (p - 1):
        raise ValueError(f"fwht needs a power-of-two row length, got {p}")
    return fwht_rows(Y) / np.sqrt(p)


def precondition(X: np.ndarray, signs: np.ndarray, transform: str = "dct") -> np.ndarray:
    """``H D x`` for every row x of the dense block ``X``: sign flips, then an orthogonal transform.

    ``signs`` (length p) is the diagonal of D; rows are zero-padded to p for Hadamard. H is the
    orthonormal DCT-II (``scipy.fft.dct(..., norm="ortho")``) or :func:`fwht`; ``"none"`` is no
    preconditioning at all (a float copy of the rows, signs ignored: the paper's "no
    preconditioning" curves). Norms and inner products of rows are kept exactly (H D is
    orthogonal).
    """
    if transform == "none":
        return np.array(X, dtype=np.float64, copy=True)
    p = len(signs)
    Z = np.zeros((X.shape[0], p))
    Z[:, : X.shape[1]] = X
    Z *= signs
    if transform == "hadamard":
        return fwht(Z)
    return scipy.fft.dct(Z, type=2, norm="ortho", axis=1)


def inverse_precondition(
    Y: np.ndarray, signs: np.ndarray, transform: str = "dct", n_features: int | None = None
) -> np.ndarray:
    """``(H D)^T y`` for every row y of ``Y``: back to the original features (padding dropped)."""
    Y = np.atleast_2d(np.asarray(Y, dtype=np.float64))
    if transform == "none":
        return Y[:, : (Y.shape[1] if n_features is None else n_features)].copy()
    Z = fwht(Y) if transform == "hadamard" else scipy.fft.idct(Y, type=2, norm="ortho", axis=1)
    Z = Z * signs
    return Z[:, : (len(signs) if n_features is None else n_features)]


def kept_positions(n_rows: int, p: int, r: int, rng: np.random.Generator) -> np.ndarray:
    """r distinct positions out of p per row, uniformly at random and independently across rows.

    ``Generator.choice(p, r, replace=False)`` per row (a uniform r-subset; O(r) per row when
    r << p), sorted. Returns an int array of shape (n_rows, r). The draw never sees the data.
    """
    pos = np.empty((n_rows, r), dtype=np.intp)
    for i in range(n_rows):
        pos[i] = rng.choice(p, r, replace=False, shuffle=False)
    pos.sort(axis=1)
    return pos


def keep_uniform(Y: np.ndarray, r: int, rng: np.random.Generator):
    """Keep r entries of every row of the dense ``Y`` (:func:`kept_positions`).

    Returns (positions, values), each of shape (rows, r).
    """
    pos = kept_positions(Y.shape[0], Y.shape[1], r, rng)
    return pos, np.take_along_axis(Y, pos, axis=1)


def preconditioned_entries(
    X: sp.csr_matrix, pos: np.ndarray, signs: np.ndarray, transform: str = "dct"
) -> np.ndarray:
    """Entries ``(H D x)[pos[i]]`` of every row x of the sparse ``X``, from its nonzeros only.

    ``sum_j H[l, j] s_j x_j`` over the nonzeros j of x, for the r kept l: O(nnz(x) r) per row
    instead of O(p log p) for the whole transform (and no densified row), the cheaper way for
    sparse rows and small r. H[l, j] is ``c_l cos(pi l (2j + 1) / (2p))`` for the orthonormal
    DCT-II (c_0 = sqrt(1/p), else sqrt(2/p)) and ``(-1)^popcount(l & j) / sqrt(p)`` for the
    Sylvester Hadamard matrix. Equal to ``precondition(X.toarray(), ...)[pos]`` up to rounding.
    """
    X = sp.csr_matrix(X)
    p = len(signs)
    n_rows, r = pos.shape
    counts = np.diff(X.indptr)
    row_of = np.repeat(np.arange(n_rows), counts)
    j = X.indices.astype(np.int64)[:, None]
    l = pos[row_of].astype(np.int64)  # (nnz, r): the kept positions of each entry's row
    if transform == "hadamard":
        h = np.where(np.bitwise_count(l & j) % 2, -1.0, 1.0) / np.sqrt(p)
    else:
        # cos(pi m / (2p)) has period 4p in the integer m = l (2j + 1): a table of its 4p values
        # is exact and cheaper than evaluating cos for every (entry, kept position).
        table = np.cos(np.pi * np.arange(4 * p) / (2 * p)) * np.sqrt(2.0 / p)
        m = l * (2 * j + 1)
        m %= 4 * p
        h = table.take(m)
        h[l[:, 0] == 0, 0] /= np.sqrt(2.0)  # position 0 can only be first in a sorted row
    contrib = h * (X.data * signs[X.indices])[:, None]
    vals = np.zeros((n_rows, r))
    nonempty = counts > 0
    if nonempty.any():
        vals[nonempty] = np.add.reduceat(contrib, X.indptr[:-1][nonempty], axis=0)
    return vals


class PreconditionedSparsification(BaseReducer):
    """Precondition every point, then keep r of its entries uniformly at random ("PD").

    Pourkamali-Anaraki and Becker, *Preconditioned Data Sparsification for Big Data with
    Applications to PCA and K-means*, IEEE Trans. Inf. Theory 63(5), 2017; the "PD" baseline of
    Liu, Shen, Tsang, NIPS 2017 (who ran the authors' SparsifiedKMeans code with its defaults).

    Each row x (length d) becomes ``y = H D x``: D a diagonal of random signs, H a fast orthogonal
    transform (the orthonormal DCT, this class's default; or Walsh-Hadamard after zero-padding to
    the next power of two p). **Not the authors' defaults**: their code uses the Hadamard
    transform when d is a power of two (the DCT otherwise) and starts its k-means from
    k-means++, while here the transform is ``preconditioner`` (DCT unless asked) and the start of
    :meth:`cluster` is the run's k-means setting (``kmeans_init``; lst17's preset gives every
    method random starts). The report lists this among its deviations.

    Preconditioning spreads the energy of x over all coordinates, so a few uniformly drawn
    entries represent it well. Then each row keeps **r = n_components entries
    out of p**, drawn uniformly without replacement, independently per row: unlike the other
    reducers, **r is the number of entries kept per row, not the output dimension**. The output is
    a CSR matrix of shape (n, p) with exactly r stored entries per row (stored zeros included: a
    kept entry that happens to be 0 still counts as kept; with ``rules="authors"`` it is not
    stored, as in the authors' code); its values are not rescaled.

    The output is meant for :meth:`cluster` (the paper's sparsified k-means, which knows which
    entries were kept), not for plain Lloyd: zeros off the kept positions are unknown values, not
    zeros. Preconditioning costs O(n p log p) with the fast transform on dense blocks of rows
    (sparse input densified one block at a time; memory O(block + n r)); for sparse input with
    ``10 nnz(X) r <= n p log2 p`` the kept entries are computed directly from the nonzeros instead,
    in O(nnz(X) r) (:func:`preconditioned_entries`; same numbers up to rounding).

    The paper's experiments (its Section on K-means, MNIST digits) compare this with two
    variants, both parameters here:

    * ``preconditioner="none"``: the raw entries of x are kept (no signs, no transform), the
      paper's "sparsified K-means without preconditioning". The signs are still drawn (and
      unused) so that, for one ``random_state``, the kept positions are the same draws as with a
      preconditioner: the two variants differ only by the preconditioning.
    * ``second_pass=True``: the two-pass algorithm. :meth:`cluster` runs sparsified k-means on
      the sketch, then reads the original data once more (the matrix :meth:`fit` was given,
      kept by reference, or ``X`` passed to :meth:`cluster`): each point goes to the
      nearest of the sparsified centers mapped back to the d features, and each center becomes
      the exact mean of the original points assigned to it (see
      :func:`~kmdr.kmeans.sparsified.second_pass`). The sketch is the same as without it.

    Rows can also be sparsified block by block (:meth:`fit_rows`, :meth:`transform_rows`),
    giving exactly the rows :meth:`transform` gives on the whole matrix.

    Parameters
    ----------
    n_components : int, default=2
        r, the entries kept per row: 1 <= r <= p (p = d for the DCT and "none").
    preconditioner : {"dct", "hadamard", "none"}, default="dct"
        The orthogonal transform H ("none": no preconditioning).
    second_pass : bool, default=False
        Whether :meth:`cluster` ends with the second pass over the original data.
    rules : {"kmdr", "authors"}, default="kmdr"
        Whose rules the sketch and :meth:`cluster` follow. ``"kmdr"``: every kept entry is stored
        (zeros included) and :func:`~kmdr.kmeans.sparsified.sparsified_kmeans` clusters (dense
        first centers from the seeds' partition). ``"authors"``: the authors' code
        (SparsifiedKMeans 2.1 with its defaults): a kept entry that is exactly 0 is not stored,
        and :func:`~kmdr.kmeans.sparsified.authors_sparsified_kmeans` clusters (sparse first
        centers, their start, update, empty-cluster action and stop; ``tol`` is then their
        absolute tolerance on the centers' move).
    random_state : None, int or RandomState, default=None
        Draws the signs and the kept positions.

    Attributes
    ----------
    signs_ : ndarray of shape (p,)
        The diagonal of D (±1; all ones for ``preconditioner="none"``).
    n_features_out_ : int
        p, the number of output columns (d, or the padded power of two for Hadamard).
    sampling_seed_ : int
        Seeds the draw of kept positions in :meth:`transform`: row i of any matrix gets the same
        draw, so ``transform`` is deterministic after ``fit`` and ``fit_transform(X)`` equals
        ``fit(X).transform(X)``. The draws never depend on the data values.
    n_components_, n_features_in_, shared_seconds_
        See :class:`BaseReducer`.
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "preconditioner": [StrOptions({"dct", "hadamard", "none"})],
        "second_pass": ["boolean"],
        "rules": [StrOptions({"kmdr", "authors"})],
        "random_state": ["random_state"],
    }

    #: scikit-learn estimator checks that cannot pass, and why (read by the tests).
    _expected_failed_checks: ClassVar[dict] = {
        "check_methods_sample_order_invariance": (
            "kept positions are drawn per row position: permuting the rows of X changes which "
            "draw a point gets (each draw is still uniform and independent of the data)"
        ),
        "check_methods_subset_invariance": (
            "kept positions are drawn per row position: a batch of rows gets the draws of rows "
            "0..b-1, not the draws those rows had inside the full matrix (transform_rows gives "
            "a block the draws of its place)"
        ),
    }

    plan = declared_plan(__name__, "PreconditionedSparsification")

    def __init__(
        self,
        n_components=2,
        *,
        preconditioner=plan.defaults["preconditioner"],
        second_pass=plan.defaults["second_pass"],
        rules=plan.defaults["rules"],
        random_state=None,
    ):
        self.n_components = n_components
        self.preconditioner = preconditioner
        self.second_pass = second_pass
        self.rules = rules
        self.random_state = random_state

    def _fit(self, X, shared_value):
        self._fit_columns(X.shape[1])
        if self.second_pass:
            self.second_pass_data_ = X  # a reference, read again by cluster's second pass

    def _fit_columns(self, n_features: int) -> None:
        """Draw the signs and the sampling seed: they depend on d only, never on the data."""
        # a former fit's data and row count are not this one's
        self.__dict__.pop("second_pass_data_", None)
        self.__dict__.pop("n_samples_", None)
        rng = check_random_state(self.random_state)
        p = padded_dimension(n_features, self.preconditioner)
        self.n_features_out_ = p
        # drawn for "none" too, so that the sampling seed (and every kept position) is the one
        # the preconditioned variants draw from the same random_state
        signs = rng.randint(2, size=p) * 2.0 - 1.0
        self.signs_ = np.ones(p) if self.preconditioner == "none" else signs
        self.sampling_seed_ = int(rng.randint(np.iinfo(np.int32).max))
        # the position generator's state at row starts (row -> state), for transform_rows
        self.row_states_ = {0: np.random.default_rng(self.sampling_seed_).bit_generator.state}

    def _transform(self, X):
        n = X.shape[0]
        positions = kept_positions(
            n, self.n_features_out_, self.n_components_, np.random.default_rng(self.sampling_seed_)
        )
        return self._sparsify(X, positions)

    def _sparsify(self, X, positions):
        """The CSR sketch of the rows of ``X`` keeping ``positions`` (one row of it per row)."""
        n, p, r = X.shape[0], self.n_features_out_, self.n_components_
        # Sparse rows with few kept entries: only the kept entries of H D x, from the nonzeros
        # (O(nnz r)); otherwise the fast transform of whole dense blocks (O(n p log p)).
        # Measured: ~60 ns per (nonzero, kept entry) against ~6 ns per n p log2 p for the FFT.
        direct = (
            self.preconditioner != "none"
            and sp.issparse(X)
            and 10 * X.nnz * r <= n * p * max(np.log2(p), 1.0)
        )
        block = max(1, _BLOCK_ENTRIES // (r * max(X.nnz // max(n, 1), 1) if direct else p))
        data = np.empty((n, r))
        source = sp.csr_matrix(X) if direct else X
        for start in range(0, n, block):
            rows, pos = source[start : start + block], positions[start : start + block]
            if direct:
                vals = preconditioned_entries(rows, pos, self.signs_, self.preconditioner)
            else:
                dense = rows.toarray() if sp.issparse(rows) else rows
                Y = precondition(dense, self.signs_, self.preconditioner)
                vals = np.take_along_axis(Y, pos, axis=1)
            data[start : start + len(pos)] = vals
        index_dtype = np.int32 if max(p, n * r) < np.iinfo(np.int32).max else np.int64
        indptr = np.arange(0, n * r + 1, r, dtype=index_dtype)
        W = sp.csr_matrix((data.ravel(), positions.ravel().astype(index_dtype), indptr), (n, p))
        if self.rules == "authors":
            W.eliminate_zeros()  # their sparse matrix stores no sampled entry that is exactly 0
        return same_sparse_kind(X, W) if sp.issparse(X) else W

    # -- row blocks ------------------------------------------------------------------------------

    def _fit_rows(self, shape, nnz_counts):
        """The fit for row blocks reads the shape only, as :meth:`fit` does: the same signs and
        sampling seed for the same ``random_state``."""
        self._fit_columns(shape[1])
        self.n_samples_ = shape[0]

    def _follow_rows(self, n_samples, starts):
        """Record the position generator's state at each block start, so that
        :meth:`transform_rows` can begin any block without drawing the rows before it: one
        positions-only pass (O(n r), no data read). Without ``starts``, blocks sent in row order
        need no such pass (each block records where the next one starts)."""
        wanted = sorted(set(starts))
        if wanted and not (wanted[0] >= 0 and wanted[-1] < n_samples):
            raise ValueError(
                f"starts must lie in [0, {n_samples}) (n_samples = {n_samples}), got "
                f"{wanted[0]}..{wanted[-1]}"
            )
        rng = np.random.default_rng(self.sampling_seed_)
        row = 0
        for s in wanted:
            kept_positions(s - row, self.n_features_out_, self.n_components_, rng)
            row = s
            self.row_states_[s] = rng.bit_generator.state

    def _transform_rows(self, X_block, start):
        """Rows ``start`` to ``start + len(X_block) - 1`` of what :meth:`transform` gives on the
        whole matrix, from those rows alone, bit for bit.

        The kept positions of row i are the i-th draw of one generator: the block's draws
        start from the generator's state at ``start`` (recorded by :meth:`fit_rows` or by the
        block that ended there; otherwise the nearest recorded earlier row, drawing forward
        without data). The state at the block's end is recorded for the next block.
        """
        if self.second_pass:
            raise ValueError(
                "the two-pass variant reads the whole data again in its second pass: run it "
                "without row blocks"
            )
        known = max(s for s in self.row_states_ if s <= start)
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = self.row_states_[known]
        p, r = self.n_features_out_, self.n_components_
        kept_positions(start - known, p, r, rng)  # rows with no block here: positions only
        positions = kept_positions(X_block.shape[0], p, r, rng)
        self.row_states_[start + X_block.shape[0]] = rng.bit_generator.state
        return self._sparsify(X_block, positions)

    # -- clustering ------------------------------------------------------------------------------

    def inverse_precondition(self, Y) -> np.ndarray:
        """Map dense rows of the preconditioned space (e.g. cluster centers) to the d features."""
        check_is_fitted(self)
        return inverse_precondition(Y, self.signs_, self.preconditioner, self.n_features_in_)

    def cluster(self, C, n_clusters, *, n_init=5, max_iter=500, init="k-means++", tol=1e-4,
                random_state=None, X=None):  # fmt: skip
        """Sparsified k-means on this reducer's output C (:mod:`kmdr.kmeans.sparsified`).

        The runner calls this instead of :func:`kmdr.kmeans.lloyd.kmeans`: assignments use each
        point's kept entries only, centers are per-coordinate means over the points that kept
        the coordinate. Parameters as :func:`~kmdr.kmeans.sparsified.sparsified_kmeans`; with
        ``second_pass``, ``X`` is the original data of C's rows (default: the matrix
        :meth:`fit` was given; the runner fits and transforms the same matrix).

        Returns
        -------
        kmdr.kmeans.lloyd.KMeansResult
            One pass: centers in the preconditioned space (map them back with
            :meth:`inverse_precondition`); inertia on the kept coordinates. With the second
            pass: the second pass's labels, centers in the d original features (the exact means
            of the clusters) and their exact inertia on X; ``n_iter`` and ``converged`` are
            those of the sparsified k-means.
        """
        check_is_fitted(self)
        if self.rules == "authors":
            W, m = sp.csr_matrix(C, dtype=np.float64), self.n_components_
        else:
            W, m = check_sparsified(C)
        if W.shape[1] != self.n_features_out_ or m != self.n_components_:
            raise ValueError(
                f"C has shape {W.shape} with {m} entries per row, but this reducer outputs "
                f"{self.n_features_out_} columns with {self.n_components_} kept per row: pass "
                "its own transform output"
            )
        if self.second_pass:
            X = getattr(self, "second_pass_data_", None) if X is None else X
            if X is None or X.shape != (W.shape[0], self.n_features_in_):
                got = "no data" if X is None else f"shape {X.shape}"
                raise ValueError(
                    f"second_pass=True reads the original data of C's {W.shape[0]} rows "
                    f"({self.n_features_in_} features) again, got {got}: transform that data "
                    "first or pass X"
                )
        params = dict(
            n_init=n_init, max_iter=max_iter, init=init, tol=tol, random_state=random_state
        )
        if self.rules == "authors":
            result = authors_sparsified_kmeans(
                W, n_clusters, n_kept=m, n_features=self.n_features_in_, **params
            )
        else:
            result = sparsified_kmeans(W, n_clusters, **params)
        if not self.second_pass:
            return result
        return second_pass(X, self.inverse_precondition(result.cluster_centers), result)

    @property
    def _n_features_out(self):
        return self.n_features_out_
