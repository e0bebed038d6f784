"""Locally linear embedding (Roweis and Saul 2000), lst17's "LLE" baseline."""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import scipy.sparse as sp
from sklearn.manifold import LocallyLinearEmbedding
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from kmdr.reducers import _lle_sparse
from kmdr.reducers._base import BaseReducer
from kmdr.reducers._builtins import declared_plan
from kmdr.reducers._validation import check_count

#: scikit-learn's "auto" eigensolver switches to a dense n x n eigendecomposition when
#: r + 1 >= 10 (every lst17 grid point but the smallest): memory 8 n^2 bytes, time O(n^3).
_DENSE_FROM = 9


def lle_memory_bytes(n_samples: int, n_features: int, n_components: int | None = None) -> int:
    """Rough peak memory of :class:`LocallyLinearReducer` on dense n x d data, in bytes.

    A dense float64 copy of X (sparse input is densified), the embedding (n x r), and for the
    dense eigensolver the n x n matrix ``M = (I - W)^T (I - W)`` twice (it is formed from sparse
    products, then densified; LAPACK works on it in place). With ``n_components=None`` the dense
    solver is assumed (the worst case, the one lst17's grids up to r = 1000 need).
    """
    n, d = int(n_samples), int(n_features)
    r = min(n, d) if n_components is None else int(n_components)
    dense_solver = n_components is None or r >= _DENSE_FROM or n <= 200
    return 8 * (n * d + n * r + (2 * n * n if dense_solver else 0))


class LocallyLinearReducer(BaseReducer):
    """Locally linear embedding to r dimensions, through scikit-learn's LocallyLinearEmbedding.

    Roweis and Saul, *Nonlinear dimensionality reduction by locally linear embedding*, Science
    290, 2000; the "LLE" baseline of Liu, Shen, Tsang (NIPS 2017), who ran Roweis' code with its
    default parameters: 12 neighbours. Every point is written as a regularized affine combination
    of its ``n_neighbors`` nearest neighbours; C is the embedding whose points keep those weights
    best, the bottom eigenvectors (after the constant one) of ``(I - W)^T (I - W)``. ``fit`` and
    ``fit_transform`` return that embedding; ``transform`` of new points uses scikit-learn's
    out-of-sample rule (the weights of their neighbours among the training points). The standard
    method and scikit-learn's defaults otherwise; Roweis' code regularizes the local Gram matrix
    only when the neighbours outnumber the input dimension, scikit-learn always (``reg``).

    Dense input goes to scikit-learn's estimator, which needs the whole of X dense and, for the
    r >= 9 of lst17's grids, a dense n x n eigendecomposition (8 n^2 bytes, O(n^3) time).
    Sparse input (any scipy.sparse format) takes a sparse path
    (:mod:`kmdr.reducers._lle_sparse`): the same method with scikit-learn's ARPACK solver
    (``eigen_solver`` is not read), on a sparse neighbour graph and a sparse ``M``, never
    densifying X; its memory is O(nnz + n k^2 + n r) and its time is dominated by the
    neighbour search, O(n^2) sparse row products.

    Each path refuses, with a one-line ValueError, data it cannot handle in reasonable time and
    memory, in ``fit`` and in :meth:`max_components` (which the runner calls before any work,
    told whether the data are sparse). Dense input:

    * n_samples > ``max_samples`` (default 10 000: ~1e12 flops and 0.8 GB for the eigenproblem,
      minutes on one core; SECTOR's 9 619 documents fit, RCV1's 15 564 documents x 47 236 terms,
      on which lst17 also gave up after three days, do not);
    * a peak memory estimate (:func:`lle_memory_bytes`) above ``max_memory_mb`` (default 4096:
      the harness runs several workers on one machine). RCV1 densified alone is 5.9 GB.

    Sparse input: n_samples > ``max_samples_sparse`` (default 20 000: at 15 564 x 47 236 with 76
    non-zeros a row, the 12-NN graph takes 15 s, the weights 14 s and ARPACK 6 s at r = 10 to
    25 s at r = 100 on one core; the neighbour search grows as n^2), or its memory estimate
    (:func:`~kmdr.reducers._lle_sparse.sparse_lle_memory_bytes` plus twice scikit-learn's
    ``working_memory`` for the chunked neighbour search) above ``max_memory_mb``; on sparse
    data :meth:`max_components` is also capped by the largest r within that memory.

    Parameters
    ----------
    n_components : int, default=2
        r, 1 <= r <= min(n_features, n_samples - 1).
    n_neighbors : int, default=12
        Neighbours per point (Roweis' default), 1 <= n_neighbors < n_samples.
    reg : float > 0, default=1e-3
        Regularization of the local Gram matrices (scikit-learn's, relative to their trace).
    eigen_solver : {"auto", "arpack", "dense"}, default="auto"
        scikit-learn's choice: ARPACK when n > 200 and r + 1 < 10, else dense.
    max_samples : int, default=10_000
        Largest n accepted for dense input (see above).
    max_samples_sparse : int, default=20_000
        Largest n accepted for sparse input (see above).
    max_memory_mb : float, default=4096
        Largest peak memory estimate accepted, in MiB.
    random_state : None, int or RandomState, default=None
        Seeds ARPACK's start vector (the dense solver is deterministic).

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, n_components)
        The embedding of the training points.
    reconstruction_error_ : float
        scikit-learn's reconstruction error of the embedding.
    lle_ : sklearn.manifold.LocallyLinearEmbedding or None
        The fitted scikit-learn estimator (None after a sparse fit).
    sparse_input_ : bool
        Whether the sparse path fitted it.
    nbrs_ : sklearn.neighbors.NearestNeighbors
        The neighbour search of a sparse fit (absent after a dense fit).
    n_components_, n_features_in_, shared_seconds_
        See :class:`BaseReducer`.
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "reg": [Interval(Real, 0, None, closed="neither")],
        "eigen_solver": [StrOptions({"auto", "arpack", "dense"})],
        "max_samples": [Interval(Integral, 2, None, closed="left")],
        "max_samples_sparse": [Interval(Integral, 2, None, closed="left")],
        "max_memory_mb": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    plan = declared_plan(__name__, "LocallyLinearReducer")

    def __init__(
        self,
        n_components=2,
        *,
        n_neighbors=12,
        reg=1e-3,
        eigen_solver=plan.defaults["eigen_solver"],
        max_samples=10_000,
        max_samples_sparse=20_000,
        max_memory_mb=4096,
        random_state=None,
    ):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.reg = reg
        self.eigen_solver = eigen_solver
        self.max_samples = max_samples
        self.max_samples_sparse = max_samples_sparse
        self.max_memory_mb = max_memory_mb
        self.random_state = random_state

    def check_feasible(self, n_samples: int, n_features: int, *, sparse: bool = False) -> None:
        """Raise a one-line ValueError if LLE on n_samples x n_features data (``sparse`` or
        dense) is unreasonable."""
        if sparse:
            self._check_feasible_sparse(n_samples, n_features)
            return
        if n_samples > self.max_samples:
            raise ValueError(
                f"LLE on n_samples={n_samples} is too slow (a dense {n_samples} x {n_samples} "
                f"eigenproblem, O(n^3)): it accepts n_samples <= max_samples={self.max_samples}; "
                "drop lle from this experiment or subsample the data"
            )
        r = None if self.n_components is None else min(int(self.n_components), n_features)
        need = lle_memory_bytes(n_samples, n_features, r) / 2**20
        if need > self.max_memory_mb:
            raise ValueError(
                f"LLE on n_samples={n_samples}, n_features={n_features} needs about "
                f"{need:.0f} MiB (dense X and an n x n matrix), over max_memory_mb="
                f"{self.max_memory_mb:g}; drop lle from this experiment or raise max_memory_mb"
            )

    def _check_feasible_sparse(self, n_samples: int, n_features: int) -> None:
        if n_samples > self.max_samples_sparse:
            raise ValueError(
                f"LLE on sparse n_samples={n_samples} is too slow (its neighbour search grows as "
                f"n^2): it accepts n_samples <= max_samples_sparse={self.max_samples_sparse}; "
                "drop lle from this experiment, subsample the data or raise max_samples_sparse"
            )
        r = 1 if self.n_components is None else int(self.n_components)
        need = self._sparse_memory_mb(n_samples, r)
        if need > self.max_memory_mb:
            raise ValueError(
                f"LLE on sparse n_samples={n_samples} at r={r} needs about {need:.0f} MiB (its "
                f"neighbour search and sparse eigenproblem), over max_memory_mb="
                f"{self.max_memory_mb:g}; drop lle from this experiment or raise max_memory_mb"
            )

    def _sparse_memory_mb(self, n_samples: int, r: int) -> float:
        """The sparse path's memory estimate, in MiB: its arrays and the neighbour search,
        which peaks at about twice scikit-learn's ``working_memory`` (2 GiB measured at the
        default 1 GiB: a chunk of distances and the sparse products behind it)."""
        from sklearn import get_config

        need = _lle_sparse.sparse_lle_memory_bytes(n_samples, self.n_neighbors, r) / 2**20
        return need + 2 * float(get_config()["working_memory"])

    def _sparse_max_r(self, n_samples: int) -> int:
        """The largest r whose sparse-path memory estimate is within max_memory_mb."""
        per_r = 8 * 3 * n_samples / 2**20  # MiB per unit of r (basis and embedding)
        spare = self.max_memory_mb - self._sparse_memory_mb(n_samples, 0)
        return int(spare // per_r)

    def max_components(self, n_samples, n_features, *, sparse=None):
        """min(n_features, n_samples - 1) (sparse data: also the largest r within
        max_memory_mb); a ValueError when LLE is infeasible on this shape (too many rows, too
        much memory, or n_neighbors >= n_samples), asked when a run is planned.

        ``sparse``: whether the data are sparse (None: the input being fitted, else dense).
        """
        if sparse is None:
            sparse = getattr(self, "_fitting_sparse", False)
        self._check_data_params((n_samples, n_features), sparse=sparse)
        top = max(min(n_features, n_samples - 1), 1)
        return min(top, self._sparse_max_r(n_samples)) if sparse else top

    def _check_data_params(self, shape, sparse=None):
        if sparse is None:
            sparse = getattr(self, "_fitting_sparse", False)
        self.check_feasible(*shape, sparse=sparse)
        check_count(self.n_neighbors, "n_neighbors", 1, shape[0] - 1, shape)

    def _fit_validated(self, X, shared):
        self._fitting_sparse = sp.issparse(X)  # the limits of the path X takes
        try:
            return super()._fit_validated(X, shared)
        finally:
            del self._fitting_sparse

    def _fit(self, X, shared_value):
        self.sparse_input_ = sp.issparse(X)
        if self.sparse_input_:
            self.embedding_, error, self.nbrs_ = _lle_sparse.fit_sparse_lle(
                X, self.n_neighbors, self.n_components_, self.reg, self.random_state
            )
            self.reconstruction_error_ = error
            self.lle_ = None
            self._train_rows = sp.csr_array(X)
            return
        self.lle_ = LocallyLinearEmbedding(
            n_neighbors=self.n_neighbors,
            n_components=self.n_components_,
            reg=self.reg,
            eigen_solver=self.eigen_solver,
            random_state=self.random_state,
        )
        self.embedding_ = self.lle_.fit_transform(X)
        self.reconstruction_error_ = float(self.lle_.reconstruction_error_)

    def fit_transform(self, X, y=None, shared=None):
        """Fit on ``X`` and return the embedding of its points (``embedding_``)."""
        self._fit_validated(X, shared)
        return self.embedding_

    def _transform(self, X):
        check_is_fitted(self, "embedding_")
        if self.sparse_input_:
            return _lle_sparse.transform_sparse(
                X, self._train_rows, self.nbrs_, self.embedding_, self.n_neighbors, self.reg
            )
        return self.lle_.transform(X.toarray() if sp.issparse(X) else X)
