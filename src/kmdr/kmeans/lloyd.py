"""Lloyd's k-means with restarts, as the papers ran it (through scikit-learn's KMeans).

The papers used MATLAB's ``kmeans``, which runs Lloyd's (batch) iterations from ``Replicates``
random starts and keeps the one with the lowest within-cluster sum of squares:

* bmd09: ``kmeans(A, k, 'Replicates', 30, 'MaxIter', 30)``, i.e. ``n_init=30, max_iter=30``;
* bzmd14: ``kmeans(A, k, 'Replicates', 5, 'MaxIter', 500)``, i.e. ``n_init=5, max_iter=500``
  (the defaults of :func:`kmeans`).

At the time MATLAB's default start was ``'sample'``: k distinct rows drawn uniformly at random;
it is ``init="random"`` (alias ``"sample"``) here. k-means++ is today's default in both tools.
Given initial centers (MATLAB's ``'Start', C0``; scikit-learn's ``init=array``) start one
deterministic Lloyd run, as the course-project report's protocol does.

Stopping rule. MATLAB's batch phase stops when no point changes cluster (or after ``MaxIter``
iterations); older releases then ran an "online" phase of single-point moves by default
(``'OnlinePhase','on'``), which scikit-learn does not have: ``online_phase=True`` adds it here
(:func:`kmdr.kmeans.online_phase.online_phase`). scikit-learn's Lloyd also stops when the labels do
not
change, and in addition when the squared shift of the centers falls below ``tol`` times the mean
per-feature variance of X (so ``tol`` is relative to the data's scale, not an absolute
threshold). ``tol=0`` keeps only the "labels unchanged" rule, which is MATLAB's batch rule.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # scipy.sparse loads where sparse data is handled
    import scipy.sparse as sp

# scikit-learn is imported by the functions that cluster: reading INITS (a config check) does not
# need it.

__all__ = ["INITS", "KMeansResult", "check_centers", "check_kmeans_params", "kmeans"]

#: Accepted ``init`` names and the scikit-learn name each maps to.
INITS = {"k-means++": "k-means++", "random": "random", "sample": "random"}


@dataclass(frozen=True)
class KMeansResult:
    """The best of ``n_init`` Lloyd runs.

    Attributes
    ----------
    labels : ndarray of shape (n_samples,), int
        Cluster index of every row, in ``0 .. n_clusters - 1``.
    inertia : float
        Sum of squared distances of the rows to ``cluster_centers``, in the space that was
        clustered (scikit-learn's ``inertia_``; not normalized, and not the objective on the
        original data: use :func:`kmdr.metrics.kmeans_objective` for that).
    n_iter : int
        Lloyd iterations of the best run.
    cluster_centers : ndarray of shape (n_clusters, n_features)
        The centers of the best run. When the run converged (labels unchanged) they are the
        centroids of ``labels``; when it stopped on ``tol`` or ``max_iter`` they are the centroids
        of the previous iteration's labels and ``labels`` are the nearest centers.
    converged : bool
        True when the best run stopped before ``max_iter`` iterations. A run that converged on its
        very last allowed iteration is reported as not converged (scikit-learn does not say).
    """

    labels: np.ndarray
    inertia: float
    n_iter: int
    cluster_centers: np.ndarray
    converged: bool


def check_kmeans_params(caller: str, n_samples: int, **params) -> None:
    """Check k-means parameters given by name (``n_clusters``, ``n_init``, ``max_iter``,
    ``tol``, ``init``, ``online_phase``) for data of ``n_samples`` rows, with scikit-learn's
    parameter validation, as its estimators check theirs: an ``InvalidParameterError`` (a
    ValueError) naming ``caller``, the parameter and what it may be. :func:`kmeans`,
    :func:`kmdr.kmeans.sparsified.sparsified_kmeans` and
    :func:`kmdr.kmeans.blocks.kmeans_on_blocks` check theirs here."""
    from sklearn.utils._param_validation import (
        Interval,
        StrOptions,
        validate_parameter_constraints,
    )

    constraints = {
        "n_clusters": [Interval(numbers.Integral, 1, n_samples, closed="both")],
        "n_init": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "init": [StrOptions(set(INITS)), "array-like", "sparse matrix"],
        "online_phase": ["boolean"],
    }
    validate_parameter_constraints(
        {name: constraints[name] for name in params}, params, caller_name=caller
    )


def _int32_indices(X: sp.csr_matrix) -> sp.csr_matrix:
    """X with 32-bit index arrays when every index fits.

    scikit-learn's KMeans accepts only 32-bit sparse indices, and scipy's sparse products may
    return 64-bit ones (e.g. a sparse embedding of the RCV1-sized text data) even when they fit.
    """
    import scipy.sparse as sp

    if X.indices.dtype == np.int32 and X.indptr.dtype == np.int32:
        return X
    if max(X.nnz, *X.shape) >= np.iinfo(np.int32).max:
        raise ValueError(
            f"X has {X.nnz} nonzeros and shape {X.shape}: scikit-learn's KMeans needs 32-bit "
            "sparse indices; cluster a smaller or dense X"
        )
    return sp.csr_matrix(
        (X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)), shape=X.shape
    )


def _check_data(X):
    """X as a float CSR matrix (32-bit indices) or a 2-D float ndarray: scikit-learn's
    ``check_array``, its message on one line."""
    import scipy.sparse as sp
    from sklearn.utils import check_array

    from kmdr._errors import one_line

    try:
        X = check_array(X, accept_sparse="csr", dtype=[np.float64, np.float32], input_name="X")
    except (TypeError, ValueError) as err:
        raise ValueError(one_line(err)) from None
    return _int32_indices(sp.csr_matrix(X)) if sp.issparse(X) else X


def check_centers(init, n_clusters: int, n_features: int) -> np.ndarray:
    """``init`` given as an array (dense or sparse) as a finite float array of shape
    (n_clusters, n_features), or a one-line ValueError. :func:`kmeans` and
    :func:`kmdr.kmeans.sparsified.sparsified_kmeans` read their initial centers here."""
    import scipy.sparse as sp

    if sp.issparse(init):
        init = init.toarray()
    try:
        centers = np.asarray(init, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"init must be one of {sorted(INITS)} or an array of initial centers, got "
            f"{type(init).__name__}"
        ) from None
    if centers.shape != (n_clusters, n_features):
        raise ValueError(
            f"init has shape {centers.shape}: initial centers must have shape ({n_clusters}, "
            f"{n_features}) (n_clusters, n_features), one row per cluster"
        )
    if not np.isfinite(centers).all():
        raise ValueError("init must be finite (the initial centers contain NaN or inf)")
    return centers


# Rows of a dense X are checked for the centering round trip this many elements (2 MiB of
# float64) at a time.
_BLOCK_ELEMENTS = 1 << 18


def _fit_without_copy(est, X) -> None:
    """``est.fit(X)`` without scikit-learn's copy of X, leaving X bit-for-bit unchanged.

    scikit-learn's KMeans copies X (``copy_x=True``) because it centers a dense X in place,
    ``X -= X.mean(axis=0)``, for the fit, and with ``copy_x=False`` only adds the mean back
    (``X += mean``), which does not always give back X's bits: ``(x - m) + m`` is rounded twice
    (about 11% of the entries of a sign projection of the sparse_text data change in their last
    bits). So before the fit, every row block of X goes through the same two operations on the
    same mean, and the entries the round trip changes are recorded with their input values
    (12 bytes each for float64: a 32-bit position within the block and the value); after the
    fit they are written back. The fit itself sees the same centered array as with a copy (same
    mean, same elementwise subtraction), so labels, inertia, centers and iteration counts are
    identical.

    A copy is still made (``copy_x=True``) when scikit-learn would convert X anyway (not
    C-ordered, read-only, another dtype) and when recording the changed entries would take more
    than half the memory of a copy. Sparse X is never modified by scikit-learn (it is not
    centered), so it is passed as it is. If the fit raises, X is restored too.
    """
    import scipy.sparse as sp

    if sp.issparse(X):
        # never centered, but scikit-learn's Cython loops need writeable buffers (a CSR matrix
        # memory-mapped read-only by joblib is not)
        writeable = all(a.flags.writeable for a in (X.data, X.indices, X.indptr))
        est.set_params(copy_x=not writeable)
        est.fit(X)
        return
    if not (X.dtype in (np.float64, np.float32) and X.flags.c_contiguous and X.flags.writeable):
        est.set_params(copy_x=True)
        est.fit(X)
        return
    mean = X.mean(axis=0)  # the very computation scikit-learn makes on the same array
    n_cols = X.shape[1]
    rows = max(1, _BLOCK_ELEMENTS // n_cols)
    as_int = np.dtype(f"i{X.itemsize}")
    position = np.int32 if rows * n_cols < 2**31 else np.intp
    # Work buffers reused for every block: the records are the only allocations that live on.
    centered = np.empty((rows, n_cols), dtype=X.dtype)
    back = np.empty_like(centered)
    mask = np.empty((rows, n_cols), dtype=bool)
    changed = []  # (first row of the block, flat positions within the block, input values)
    stored, budget = 0, X.nbytes // 2
    witness = None  # (flat index, centered value as an integer): tells whether X is centered
    for lo in range(0, X.shape[0], rows):
        block = X[lo : lo + rows]
        c, b, m = centered[: block.shape[0]], back[: block.shape[0]], mask[: block.shape[0]]
        np.subtract(block, mean, out=c)
        np.add(c, mean, out=b)
        np.not_equal(b.view(as_int), block.view(as_int), out=m)
        moved = np.flatnonzero(m).astype(position)
        if moved.size:
            changed.append((lo, moved, block.reshape(-1)[moved]))
            stored += moved.nbytes + moved.size * X.itemsize
            if stored > budget:  # recording costs more than half a copy: copy instead
                del changed, centered, back, mask
                est.set_params(copy_x=True)
                est.fit(X)
                return
        if witness is None:
            ci, xi, bi = (a.reshape(-1).view(as_int) for a in (c, block, b))
            distinct = np.flatnonzero((ci != xi) & (ci != bi))
            if distinct.size:
                witness = (lo * n_cols + int(distinct[0]), ci[distinct[0]])
    del centered, back, mask
    flat = X.reshape(-1)  # a view: X is C-contiguous
    est.set_params(copy_x=False)
    try:
        est.fit(X)
    except BaseException:
        # Centered and not yet un-centered: add the mean back as scikit-learn would have.
        if witness is not None and flat.view(as_int)[witness[0]] == witness[1]:
            X += mean
        raise
    finally:
        for lo, moved, values in changed:
            X[lo : lo + rows].reshape(-1)[moved] = values


def _with_online_phase(est, X, n_init: int, max_iter: int, random_state) -> KMeansResult:
    """``n_init`` single runs of ``est`` (Lloyd), each followed by :func:`online_phase` with the
    iterations it left of ``max_iter``; the run with the lowest final objective is kept (the first
    among equal ones), as MATLAB keeps its best replicate after both phases.

    The runs draw their starts one after the other from one RandomState, in the order
    scikit-learn's own ``n_init`` loop draws them, so the batch phase of run m is the m-th run of
    the fit without the online phase."""
    from sklearn.utils import check_random_state

    from kmdr.kmeans.online_phase import inertia_of, online_phase

    state = check_random_state(random_state)
    est.set_params(n_init=1, random_state=state)
    best = None
    for _ in range(n_init):
        est.fit(X)
        batch_iter = int(est.n_iter_)
        online = online_phase(
            X,
            est.labels_,
            est.n_clusters,
            max_passes=max(0, max_iter - batch_iter),
        )
        inertia = inertia_of(X, online.labels, online.cluster_centers)
        if best is None or inertia < best.inertia:
            best = KMeansResult(
                labels=online.labels,
                inertia=inertia,
                n_iter=batch_iter + online.n_passes,
                cluster_centers=online.cluster_centers,
                converged=bool(online.converged and batch_iter + online.n_passes < max_iter),
            )
    return best


def kmeans(
    X,
    n_clusters: int,
    *,
    n_init: int = 5,
    max_iter: int = 500,
    init="k-means++",
    tol: float = 1e-4,
    random_state=None,
    copy_x: bool = True,
    online_phase: bool = False,
) -> KMeansResult:
    """Cluster the rows of X with Lloyd's k-means, best of ``n_init`` restarts.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        The points, one per row. Sparse input is clustered without densifying.
    n_clusters : int in [1, n_samples]
        k.
    n_init : int >= 1, default=5
        Number of restarts (MATLAB's ``Replicates``); the run with the lowest inertia is kept.
    max_iter : int >= 1, default=500
        Iterations per restart (MATLAB's ``MaxIter``).
    init : {"k-means++", "random", "sample"} or array-like of shape (n_clusters, n_features), \
default="k-means++"
        ``"random"``: k distinct rows drawn uniformly without replacement, as MATLAB's
        ``'Start','sample'`` (scikit-learn draws ``random_state.choice(n, k, replace=False)``
        with uniform weights, i.e. a uniform random k-subset of the row indices; duplicate rows
        can still give equal initial centers, in both tools). ``"sample"`` is an alias.
        An array gives the initial centers (scikit-learn's ``init`` array semantics: row j is
        the start of cluster j, so labels follow the order of its rows). Lloyd from given centers
        is deterministic, so ``n_init`` is then forced to 1 (restarts would repeat the same run)
        and ``random_state`` has no effect.
    tol : float >= 0, default=1e-4
        scikit-learn's tolerance on the squared center shift, relative to the mean per-feature
        variance of X. ``tol=0`` stops only when the labels no longer change (see the module
        docstring for how this relates to MATLAB).
    random_state : int, RandomState instance or None
        Seeds the starts. The same seed gives the same result.
    copy_x : bool, default=True
        True: X is never written (scikit-learn works on its own copy). False: a dense X that
        scikit-learn would not have to convert is centered in place during the fit and given
        back bit for bit before this function returns (see ``_fit_without_copy``), which saves
        a second n x d array; nobody else may read X meanwhile (another thread clustering or
        reducing the same array would see it centered). The result is the same either way.
    online_phase : bool, default=False
        Follow every restart's Lloyd (batch) phase with MATLAB's online phase
        (:func:`kmdr.kmeans.online_phase.online_phase`, given the iterations the batch phase left of
        ``max_iter``), and keep the restart with the lowest objective after it. False:
        scikit-learn's Lloyd alone, unchanged. X is then never written (``copy_x`` does not apply).

    Returns
    -------
    KMeansResult

    Notes
    -----
    BLAS/OpenMP threads are not limited here; the experiment runner does that.

    With ``copy_x=False`` X is not copied when scikit-learn would not have to convert it (a
    C-ordered, writeable float64 or float32 ndarray, or a CSR matrix with 32-bit indices):
    scikit-learn's KMeans then centers a dense X in place during the fit, and X is returned to its
    exact input bits before this function returns (see ``_fit_without_copy``). The result is the
    same, to the last bit, as with scikit-learn's own copy, which costs a second n x d array.
    """
    X = _check_data(X)
    check_kmeans_params(
        "kmeans",
        X.shape[0],
        n_clusters=n_clusters,
        n_init=n_init,
        max_iter=max_iter,
        tol=tol,
        init=init,
        online_phase=online_phase,
    )
    if isinstance(init, str):
        start = INITS[init]
    else:
        start = check_centers(init, n_clusters, X.shape[1])
        n_init = 1  # one run: restarts from the same centers would all be the same run

    from sklearn.cluster import KMeans

    est = KMeans(
        n_clusters=n_clusters,
        init=start,
        n_init=n_init,
        max_iter=max_iter,
        tol=float(tol),
        algorithm="lloyd",
        random_state=random_state,
        copy_x=True,
    )
    if online_phase:
        return _with_online_phase(est, X, n_init, max_iter, random_state)
    if copy_x:
        est.fit(X)
    else:
        _fit_without_copy(est, X)
    return KMeansResult(
        labels=np.asarray(est.labels_, dtype=np.intp),
        inertia=float(est.inertia_),
        n_iter=int(est.n_iter_),
        cluster_centers=est.cluster_centers_,
        converged=bool(est.n_iter_ < max_iter),
    )
