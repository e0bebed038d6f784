"""Subsampled randomized Hadamard transform (SRHT, the FJLT of Ailon and Chazelle)."""

from __future__ import annotations

from functools import cache

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn import get_config
from sklearn.utils import check_random_state, gen_batches

from kmdr.reducers._base import RandomProjectionBase
from kmdr.reducers._builtins import declared_plan
from kmdr.reducers._plans import next_power_of_two

#: The first log2(_BASE) butterfly stages only mix entries inside aligned blocks of _BASE entries,
#: where together they are the product with the _BASE x _BASE Hadamard matrix
#: (``scipy.linalg.hadamard``). numpy is slow on butterflies of stride 1, 2, 4, ... (tiny strided
#: slices), so those stages run as one BLAS product; the cost stays O(n m (_BASE + log m)).
#: Neither scipy nor numpy has a fast Walsh-Hadamard transform, and the packages that do (fht,
#: pyfht, ffht) are unmaintained or GPU-only, so this is the package's one implementation
#: (:func:`kmdr.reducers.sparsified.fwht` normalizes it).
_BASE = 32


def _butterflies(Y: np.ndarray, start: int) -> np.ndarray:
    # The stages of stride start, 2 start, ...: blocks of 2h entries, halves (a, b) -> (a+b, a-b).
    n, m = Y.shape
    h = start
    while h < m:
        blocks = Y.reshape(n, m // (2 * h), 2, h)
        a, b = blocks[:, :, 0, :], blocks[:, :, 1, :]
        a_old = a.copy()
        a += b
        np.subtract(a_old, b, out=b)
        h *= 2
    return Y


@cache
def _hadamard(size: int) -> np.ndarray:
    # Sylvester's +-1 matrix as float64 (exact), read-only since it is shared between calls.
    H = scipy.linalg.hadamard(size, dtype=np.float64)
    H.flags.writeable = False
    return H


def fwht_rows(Y: np.ndarray) -> np.ndarray:
    """Unnormalized fast Walsh-Hadamard transform of every row of ``Y``, in place.

    ``Y`` is a C-contiguous float array of shape (n, m) with m a power of two; on return it holds
    ``Y @ H_m`` where ``H_m`` is Sylvester's (natural-order) Hadamard matrix with ±1 entries, the
    matrix ``scipy.linalg.hadamard(m)`` builds. log2(m) butterfly stages, each vectorized over all
    rows at once (the first five as one product with H_32, see ``_BASE``): O(n m log m)
    operations and temporaries of at most n x m, never an m x m matrix.
    """
    n, m = Y.shape
    base = min(_BASE, m)
    if base > 1:
        Y[...] = (Y.reshape(n * (m // base), base) @ _hadamard(base)).reshape(n, m)
    return _butterflies(Y, base)


_CACHE_BYTES = 2**20


class SRHTProjection(RandomProjectionBase):
    """Subsampled randomized Hadamard transform, C = sqrt(d'/r) A D H S.

    The fast Johnson-Lindenstrauss transform of Ailon and Chazelle (*Approximate nearest neighbors
    and the fast Johnson-Lindenstrauss transform*, STOC 2006), cited by Boutsidis, Zouzias,
    Mahoney, Drineas (*Randomized Dimensionality Reduction for k-means Clustering*, 2015) as the
    fast alternative to dense random projections, in the subsampled form analysed by Tropp
    (*Improved analysis of the subsampled randomized Hadamard transform*, 2011) and Boutsidis and
    Gittens (*Improved matrix algorithms via the SRHT*, 2013); the "FJLT" projection of the
    course-project report.

    ``A`` (n x d) is padded with zero columns to ``d' = `` the next power of two ``>= d``;
    ``D`` is a d' x d' diagonal of i.i.d. ±1 signs, ``H`` the normalized Walsh-Hadamard matrix
    (``H H^T = I``, entries ``±1/sqrt(d')``) and ``S`` (d' x r) keeps r distinct columns chosen
    uniformly at random (without replacement). ``D H`` is orthogonal, so ``C`` preserves squared
    norms in expectation, exactly when r = d'. Equivalently
    ``C = (A D H_unnormalized)[:, selected_columns_] / sqrt(r)``, which is what is computed:
    the Hadamard product is a fast Walsh-Hadamard transform (:func:`fwht_rows`), O(n d' log d').

    Dense and scipy.sparse input are accepted; the output is dense (``A D H`` mixes every feature
    into every column). Rows are transformed in blocks of about 1 MiB (fewer if scikit-learn's
    ``working_memory`` is smaller), so the butterflies run in cache, memory stays O(block x d')
    beyond the n x r output, and sparse input is densified one block of rows at a time.

    Parameters
    ----------
    n_components : int, default=2
        r, with 1 <= r <= d' (columns are sampled without replacement).
    random_state : None, int or RandomState, default=None
        Seeds the signs and the sampled columns.

    Attributes
    ----------
    n_padded_features_ : int
        d', the Hadamard size.
    signs_ : ndarray of shape (n_features,)
        The diagonal of D on the d real features (±1.0); the padding columns are zero, so their
        signs do not matter and are not drawn.
    selected_columns_ : ndarray of shape (n_components,)
        The r distinct columns of ``A D H`` kept (indices into ``range(d')``), in output order.
    n_components_, n_features_in_, shared_seconds_
        See :class:`BaseReducer`.
    """

    plan = declared_plan(__name__, "SRHTProjection")

    def _fit(self, X, shared_value):
        rng = check_random_state(self.random_state)
        d = X.shape[1]
        self.n_padded_features_ = next_power_of_two(d)
        self.signs_ = rng.randint(2, size=d) * 2.0 - 1.0
        self.selected_columns_ = rng.choice(
            self.n_padded_features_, size=self.n_components_, replace=False
        )

    def _block_rows(self) -> int:
        # A block of about 1 MiB stays in cache through the log2(d') passes over it (several times
        # faster than passes over all rows), and scikit-learn's working_memory (MiB) caps it.
        budget = min(_CACHE_BYTES, get_config()["working_memory"] * 2**20)
        return max(1, int(budget // (8 * self.n_padded_features_)))

    def _transform(self, X):
        n, d = X.shape
        r = self.n_components_
        C = np.empty((n, r))
        scale = 1.0 / np.sqrt(r)  # sqrt(d'/r) times the 1/sqrt(d') normalization of H
        block_rows = self._block_rows()
        buffer = np.zeros((min(n, block_rows), self.n_padded_features_))
        for rows in gen_batches(n, block_rows):
            Y = buffer[: rows.stop - rows.start]
            block = X[rows]
            Y[:, :d] = block.toarray() if sp.issparse(block) else block
            Y[:, d:] = 0.0  # the butterflies overwrite the padding
            Y[:, :d] *= self.signs_
            fwht_rows(Y)
            C[rows] = Y[:, self.selected_columns_] * scale
        return C
