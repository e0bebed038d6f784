"""Data and statistics shared by the reducer tests (tests/test_reducers*.py)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy import stats


def decaying_matrix(n=60, d=40, decay=0.7, seed=0):
    """A = U diag(decay^i) V^T with random orthonormal U, V: a clear spectral decay and gaps."""
    rng = np.random.default_rng(seed)
    m = min(n, d)
    U, _ = np.linalg.qr(rng.standard_normal((n, m)))
    V, _ = np.linalg.qr(rng.standard_normal((d, m)))
    return (U * 10.0 * decay ** np.arange(m)) @ V.T


def sparse_pair(n=50, d=30, density=0.3, seed=0):
    """A dense matrix with many zeros and the same matrix as CSR."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    X[:, 0] += 1.0  # no all-zero column, distinct singular values
    return X, sp.csr_matrix(X)


def never_densified(X, what="the sparse input"):
    """CSR ``X`` as a matrix that fails the test if anything densifies an array with X's d
    columns (or d rows): X itself, some of its rows, or anything else that size, which data as
    wide as the sparse stand-in (15564 x 47236) cannot afford.

    Scipy carries a CSR subclass over to what is computed from it, so a product an algorithm
    needs densely and whose size does not grow with d (the m x m Gram matrix of m rows behind
    pairwise distances, which scikit-learn before 1.8 densifies with ``toarray``) is of this
    class too: its shape lets it through.
    """
    d = X.shape[1]

    class NeverDensified(sp.csr_matrix):
        def _refuse(self):
            if d in self.shape:
                raise AssertionError(f"{what} was densified (a {self.shape} dense array)")

        def toarray(self, *args, **kwargs):
            self._refuse()
            return sp.csr_matrix.toarray(self, *args, **kwargs)

        def todense(self, *args, **kwargs):
            self._refuse()
            return sp.csr_matrix.todense(self, *args, **kwargs)

        def __array__(self, *args, **kwargs):
            raise AssertionError(f"{what} was turned into a numpy array")

    return NeverDensified(X)


def to_dense(C):
    return C.toarray() if sp.issparse(C) else np.asarray(C)


def pooled_chisquare(counts, probs, min_expected=5.0):
    """Chi-square goodness-of-fit p-value of ``counts`` against ``probs``.

    Bins whose expected count is below ``min_expected`` are pooled (in increasing order of
    expected count) until every pooled bin reaches it, so the chi-square approximation holds.
    """
    counts = np.asarray(counts, dtype=float)
    expected = np.asarray(probs, dtype=float) * counts.sum()
    order = np.argsort(expected)
    obs_bins, exp_bins = [], []
    acc_o = acc_e = 0.0
    for i in order:
        acc_o += counts[i]
        acc_e += expected[i]
        if acc_e >= min_expected:
            obs_bins.append(acc_o)
            exp_bins.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0:  # leftover mass joins the last bin
        obs_bins[-1] += acc_o
        exp_bins[-1] += acc_e
    return stats.chisquare(obs_bins, exp_bins).pvalue
