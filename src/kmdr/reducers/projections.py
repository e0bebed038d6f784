"""Dense and sparse random projections C = A R.

* sign, bzmd14 Algorithm 2 (``R_ij = ±1/sqrt(r)`` w.p. 1/2 each) and Achlioptas (``±sqrt(3/r)``
  w.p. 1/6 each, 0 w.p. 2/3) are drawn entrywise here: one random bit (sign) or one uniform draw
  from {0, ..., 5} (Achlioptas) per entry, kept compactly (signs packed 8 to a byte, Achlioptas
  as int8) and multiplied in blocks of R's columns, so neither a d x r float64 R nor a dense
  copy of a sparse A is ever built. scikit-learn's ``SparseRandomProjection`` draws the same
  distributions, but through int64 and float64 temporaries (three d x r arrays for the sign
  matrix: 1.07 GiB at d = 47236, r = 1000) or a per-row sampling loop (Achlioptas).
* Gaussian ``N(0, 1/r)``: drawn with a ``numpy.random.Generator`` (ziggurat normals), seeded
  from ``random_state``, and kept as a float64 d x r matrix. scikit-learn's
  ``GaussianRandomProjection`` draws the same distribution with the legacy ``RandomState``
  normals, 2-2.5x slower: its draw took as long as the product on the report's ORL data
  (400 x 10304, r = 50-300: 53-253 ms to draw, 60-210 ms to multiply).

Output is always dense: A R with a dense or 1/3-dense R is dense in practice even for sparse A.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from kmdr.reducers._base import RandomProjectionBase
from kmdr.reducers._builtins import declared_plan


class _EntrywiseProjection(RandomProjectionBase):
    """C = A R with R's entries drawn i.i.d. from {-1, 0, +1} times ``scale_`` (module docstring).

    Subclasses draw and keep R's pattern compactly (``_draw``) and hand out its columns lo:hi as
    a d x (hi - lo) integer array (``_pattern_block``); ``_transform`` multiplies A by R in blocks
    of columns converted to float64, so no d x r float64 array exists at any time.

    Attributes
    ----------
    scale_ : float
        The magnitude of R's nonzero entries.
    components_ : ndarray of shape (n_components, n_features)
        R transposed (scikit-learn's layout), built on access.
    """

    # Columns of R are converted to float64 about this many bytes at a time: 32 MiB for dense X,
    # at most 16 MiB for sparse X. For sparse X the block width does not change C: entry (i, j)
    # of X @ block sums over row i of X in the order of its nonzeros whatever the other columns
    # of the block (tested bit for bit). For dense X it can: BLAS picks its kernels by the width
    # (8 vs 40 columns change last bits), so the dense width stays what it was. Measured
    # (scripts/bench/bench_memory.py, r = 1000 on sparse_text): 32 MiB blocks raise the cell's peak
    # during the transform by 65 MiB, 16 MiB blocks by 30 MiB.
    _BLOCK_BYTES = 1 << 25
    _SPARSE_BLOCK_BYTES = 1 << 24

    def _draw(self, rng, n_features: int, n_components: int) -> None:
        """Draw R (n_features x n_components) from ``rng``; set its storage and ``scale_``."""
        raise NotImplementedError

    def _pattern_block(self, lo: int, hi: int) -> np.ndarray:
        """Columns lo:hi of R / scale_, as a C-ordered n_features x (hi - lo) integer array."""
        raise NotImplementedError

    def _fit(self, X, shared_value):
        self._draw(check_random_state(self.random_state), X.shape[1], self.n_components_)

    @property
    def components_(self) -> np.ndarray:
        return (self.scale_ * self._pattern_block(0, self.n_components_).astype(np.float64)).T

    def _transform(self, X):
        r = self.n_components_
        C = np.empty((X.shape[0], r))
        block_bytes = self._BLOCK_BYTES
        if sp.issparse(X):
            block_bytes = min(block_bytes, self._SPARSE_BLOCK_BYTES)
        # a multiple of 8 columns: the sign bits are packed 8 columns to a byte
        step = max(8, block_bytes // (8 * X.shape[1]) // 8 * 8)
        # CSR X is multiplied a block of rows at a time, so the product's temporary is at most
        # _SPARSE_BLOCK_BYTES whatever n: a row of X @ block depends on that row of X alone.
        rows = [(0, X)]
        if sp.issparse(X) and X.format == "csr":
            rows = _row_views(X, self._SPARSE_BLOCK_BYTES // (8 * min(step, r)))
        for lo in range(0, r, step):
            hi = min(r, lo + step)
            # C-ordered: scipy's sparse x dense product reads the rows of the block (and would
            # copy a Fortran-ordered one); BLAS takes either order.
            block = self._pattern_block(lo, hi).astype(np.float64)
            block *= self.scale_
            for first, part in rows:
                C[first : first + part.shape[0], lo:hi] = part @ block
        return C


def _row_views(X, rows: int) -> list:
    """``[(first row, CSR of the next rows)]``: CSR X in blocks of ``rows`` rows (at least one),
    each a view of X's arrays (only its indptr is new)."""
    rows = max(1, rows)
    views = []
    for lo in range(0, X.shape[0], rows):
        hi = min(X.shape[0], lo + rows)
        start, end = X.indptr[lo], X.indptr[hi]
        part = (X.data[start:end], X.indices[start:end], X.indptr[lo : hi + 1] - start)
        views.append((lo, sp.csr_matrix(part, shape=(hi - lo, X.shape[1]))))
    return views


class SignRandomProjection(_EntrywiseProjection):
    """Random sign projection, C = A R with i.i.d. ``R_ij = ±1/sqrt(r)``.

    Boutsidis, Zouzias, Mahoney, Drineas, *Randomized Dimensionality Reduction for k-means
    Clustering*, 2015, Algorithm 2 ("RP" in its figures), computed with a plain product as in its
    experiments (not the mailman algorithm). Each sign is one random bit of ``random_state``'s
    byte stream (``RandomState.bytes``): bit 1 is +1, bit 0 is -1.

    Parameters
    ----------
    n_components : int, default=2
        r >= 1 (r > d is allowed, if pointless).
    random_state : None, int or RandomState, default=None

    Attributes
    ----------
    sign_bits_ : ndarray of shape (n_features, ceil(n_components / 8)), dtype uint8
        The signs of R, row by row, packed 8 to a byte (``np.packbits`` order; the last byte of a
        row is padded when 8 does not divide r).
    scale_ : float
        ``1 / sqrt(r)``.
    components_ : ndarray of shape (n_components, n_features)
        R transposed (built on access).
    n_components_, n_features_in_, shared_seconds_
        See :class:`BaseReducer`.
    """

    plan = declared_plan(__name__, "SignRandomProjection")

    def _draw(self, rng, n_features, n_components):
        n_bytes = (n_components + 7) // 8
        raw = rng.bytes(n_features * n_bytes)
        self.sign_bits_ = np.frombuffer(raw, dtype=np.uint8).reshape(n_features, n_bytes)
        self.scale_ = float(1.0 / np.sqrt(n_components))

    def _pattern_block(self, lo, hi):
        packed = self.sign_bits_[:, lo // 8 : (hi + 7) // 8]  # lo is a multiple of 8
        signs = np.unpackbits(packed, axis=1, count=hi - lo).view(np.int8)
        signs *= 2  # bits 0/1 -> signs -1/+1, in place
        signs -= 1
        return signs


def _generator(random_state) -> np.random.Generator:
    """A ``numpy.random.Generator`` seeded by 128 bits drawn from ``random_state``.

    ``random_state`` is read as scikit-learn does (None: numpy's global RandomState, an int: a
    new ``RandomState(seed)``, or a RandomState instance, which the draw advances), so the same
    int gives the same Generator.
    """
    words = check_random_state(random_state).randint(0, 2**32, size=4, dtype=np.uint32)
    return np.random.default_rng(np.random.SeedSequence([int(w) for w in words]))


class GaussianProjection(RandomProjectionBase):
    """Gaussian random projection, C = A R with i.i.d. ``R_ij ~ N(0, 1/r)``.

    The classic Johnson-Lindenstrauss map (e.g. Dasgupta and Gupta, *An elementary proof of a
    theorem of Johnson and Lindenstrauss*, 2003), one of the projections compared in the
    course-project report reproducing bmd09/bzmd14. ``E ||x R||^2 = ||x||^2`` for every x.

    R is drawn with a ``numpy.random.Generator`` (standard normals times ``1 / sqrt(r)``) seeded
    by 128 bits drawn from ``random_state``: the same seed gives the same R. (Earlier versions
    wrapped scikit-learn's ``GaussianRandomProjection``: the same distribution, other draws.)

    Parameters
    ----------
    n_components : int, default=2
        r >= 1.
    random_state : None, int or RandomState, default=None

    Attributes
    ----------
    matrix_ : ndarray of shape (n_features, n_components)
        R, C-ordered (the layout a sparse A's product reads without a copy).
    scale_ : float
        ``1 / sqrt(r)``: the standard deviation of R's entries.
    components_ : ndarray of shape (n_components, n_features)
        R transposed (scikit-learn's layout; a view of ``matrix_``).
    n_components_, n_features_in_, shared_seconds_
        See :class:`BaseReducer`.
    """

    plan = declared_plan(__name__, "GaussianProjection")

    def _fit(self, X, shared_value):
        r = self.n_components_
        self.scale_ = float(1.0 / np.sqrt(r))
        R = _generator(self.random_state).standard_normal((X.shape[1], r))
        R *= self.scale_
        self.matrix_ = R
        self.components_ = R.T

    def _transform(self, X):
        return np.asarray(X @ self.matrix_)


class AchlioptasProjection(_EntrywiseProjection):
    """Achlioptas' database-friendly projection: ``R_ij = ±sqrt(3/r)`` w.p. 1/6 each, else 0.

    D. Achlioptas, *Database-friendly random projections*, PODS 2001; compared in the
    course-project report. Each entry is one uniform draw u from {0, ..., 5} of
    ``random_state`` (+1 for u = 0, -1 for u = 1, else 0); the output is dense.

    Parameters
    ----------
    n_components : int, default=2
        r >= 1.
    random_state : None, int or RandomState, default=None

    Attributes
    ----------
    entries_ : ndarray of shape (n_features, n_components), dtype int8
        R divided by ``scale_`` (entries -1, 0, +1).
    scale_ : float
        ``sqrt(3 / r)``.
    components_ : ndarray of shape (n_components, n_features)
        R transposed (built on access).
    n_components_, n_features_in_, shared_seconds_
        See :class:`BaseReducer`.
    """

    plan = declared_plan(__name__, "AchlioptasProjection")

    def _draw(self, rng, n_features, n_components):
        u = rng.randint(0, 6, size=(n_features, n_components), dtype=np.uint8)
        self.entries_ = (u == 0).view(np.int8) - (u == 1).view(np.int8)
        self.scale_ = float(np.sqrt(3.0 / n_components))

    def _pattern_block(self, lo, hi):
        return np.ascontiguousarray(self.entries_[:, lo:hi])
