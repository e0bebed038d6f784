"""The papers' quality measures: the normalized k-means objective F and the accuracy P.

F is always measured on the ORIGINAL data A, for a partition that may have been found on a
reduced matrix C: the centroids are those of the partition's clusters in A's space, never C's.
NMI and ARI are extras from scikit-learn; none of the three papers reports them.

Accuracy, NMI and ARI depend on a partition only through its class x cluster contingency table;
:func:`contingency_scores` gives all three from that table alone, so that a partition held in
row blocks on several processes is scored from the sum of its blocks' tables, never gathered.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from sklearn.metrics import adjusted_rand_score, mutual_info_score, normalized_mutual_info_score
from sklearn.metrics.cluster import contingency_matrix

__all__ = [
    "CANCELLATION_RATIO",
    "ObjectiveEvaluator",
    "ari",
    "cluster_sums",
    "clustering_accuracy",
    "contingency_scores",
    "encode_labels",
    "evaluate",
    "kmeans_objective",
    "label_scores",
    "nmi",
    "partition_cost",
    "squared_residuals",
    "within_from_sums",
]

# Dense residuals are formed this many elements at a time (32 MiB of float64).
_BLOCK_ELEMENTS = 1 << 22
#: Below this ratio W / T, F of dense A is computed from explicit residuals instead of the
#: per-cluster sums (see :class:`ObjectiveEvaluator`'s Notes).
CANCELLATION_RATIO = 1e-3


def _check_matrix(A):
    """A as float64 CSR (canonical: no duplicate entries, which would break sum(data**2)) or a
    2-D float64 ndarray: scikit-learn's ``check_array``, its message on one line."""
    from sklearn.utils import check_array

    from kmdr._errors import one_line

    try:
        A = check_array(A, accept_sparse="csr", dtype=np.float64, input_name="A")
    except (TypeError, ValueError) as err:
        raise ValueError(one_line(err)) from None
    if sp.issparse(A):
        A = sp.csr_matrix(A)
        if not A.has_canonical_format:
            A = A.copy()
            A.sum_duplicates()
    return A


def _check_labels(labels, n_samples: int, name: str = "labels") -> np.ndarray:
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.shape[0] != n_samples:
        raise ValueError(
            f"{name} must be 1-D of length n_samples = {n_samples}, got shape {labels.shape}"
        )
    return labels


def _encode(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Map arbitrary label values to codes 0..m-1 (m = number of distinct values).

    Returns (codes, counts). Non-negative integer labels of moderate size take an O(n + max)
    path (no sort); anything else goes through ``np.unique``.
    """
    n = labels.shape[0]
    if labels.dtype.kind in "iu" and n and labels.min() >= 0 and labels.max() <= 4 * n:
        counts = np.bincount(labels)
        present = counts > 0
        lookup = np.cumsum(present) - 1
        return lookup[labels], counts[present]
    _, codes, counts = np.unique(labels, return_inverse=True, return_counts=True)
    return codes.ravel(), counts


def _cluster_sums(A, codes: np.ndarray, m: int):
    """S = M A with M the m x n cluster-indicator matrix: row c of S sums the rows in cluster c.

    Sparse A gives a sparse S (nnz(S) <= nnz(A)), computed in O(nnz(A) + n).
    """
    n = codes.shape[0]
    indicator = sp.csr_matrix(
        (np.ones(n), (codes, np.arange(n))), shape=(m, n)
    )  # built by a counting pass, O(n)
    return indicator @ A


def within_from_sums(sums, counts: np.ndarray, about: float) -> float:
    """W, the within-cluster sum of squares, as ``T - sum_c ||s_c||^2 / |c|`` from the
    per-cluster sums ``sums`` (m x d, dense or sparse) of the rows measured about a point (the
    column mean, or the origin), their counts, and ``about`` (T: the rows' sum of squares about
    that point); :class:`ObjectiveEvaluator` and the chunked path's scoring pass both form W so."""
    if sp.issparse(sums):
        between = np.asarray(sums.multiply(sums).sum(axis=1)).ravel()
    else:
        between = np.einsum("ij,ij->i", sums, sums)
    return about - float(between @ (1.0 / counts))


def squared_residuals(rows, centroids) -> float:
    """``sum_i ||rows_i - centroids_i||^2`` for dense rows and the centroid of each row's cluster
    (aligned row for row), the residuals formed explicitly, which has no cancellation at all: the
    one residual sum of a partition's k-means cost, read by :class:`ObjectiveEvaluator`, the row
    blocks' scoring pass (block by block) and :func:`partition_cost`."""
    residual = rows - centroids
    return float(np.einsum("ij,ij->", residual, residual))


def partition_cost(M, labels) -> float:
    """The k-means cost of a partition of the rows of ``M``, about its clusters' own means: the
    sum of squared distances of the rows to their cluster's mean, unnormalised.

    Not ``||M||^2`` less the means' part: where a partition fits (k-means' on planted clusters),
    that difference cancels six of the sixteen digits. A dense ``M`` is summed over blocks of
    rows (:func:`squared_residuals`); a sparse one is never made dense: over each row's nonzeros
    ``(x - mu)^2``, plus the part of ``mu`` off the row's support, ``||mu||^2`` less ``mu^2`` on
    it, both sums of terms >= 0 (a row's support is a small share of mu's for sparse data, so
    that difference keeps its digits). ``labels``: codes 0..k-1.
    """
    labels = np.asarray(labels)
    n, k = M.shape[0], int(labels.max()) + 1
    M = sp.csr_matrix(M) if sp.issparse(M) else M
    sums = _cluster_sums(M, labels, k)
    sums = sums.toarray() if sp.issparse(sums) else np.asarray(sums)
    means = sums / np.maximum(np.bincount(labels, minlength=k), 1)[:, None]
    if sp.issparse(M):
        rows = np.repeat(np.arange(n), np.diff(M.indptr))
        mu = means[labels[rows], M.indices]
        on_support = np.bincount(rows, weights=mu**2, minlength=n)
        off_support = np.maximum(np.sum(means**2, axis=1)[labels] - on_support, 0.0)
        return float(np.sum((M.data - mu) ** 2) + np.sum(off_support))
    step = max(1, _BLOCK_ELEMENTS // max(1, M.shape[1]))
    return sum(
        squared_residuals(np.asarray(M[start : start + step]), means[labels[start : start + step]])
        for start in range(0, n, step)
    )


def encode_labels(labels) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, counts)``: labels of any values as codes 0..m-1, and each code's count, as
    :class:`ObjectiveEvaluator` numbers the clusters (for a caller scoring A block by block)."""
    return _encode(np.asarray(labels))


def cluster_sums(A, codes: np.ndarray, m: int):
    """Row c: the sum of the rows of A whose code is c (m rows; sparse for sparse A), the
    per-cluster sums :class:`ObjectiveEvaluator` computes W from (see its Notes)."""
    return _cluster_sums(A, codes, m)


class ObjectiveEvaluator:
    """The normalized k-means objective F of many partitions of one matrix A.

    Everything that depends on A alone is done once here, so that scoring a partition costs one
    pass over A (dense) or over its nonzeros (sparse) plus O(n + k d): A is validated once (shape,
    finiteness), ``||A||_F^2`` is cached and, for dense A, the column mean ``mu`` is computed once
    (and by default subtracted once). Calling the evaluator with labels returns
    ``F = W / ||A||_F^2``, where W is the sum of squared distances of the rows to the centroids of
    their clusters (see :func:`kmeans_objective` for the definition).

    Parameters
    ----------
    A : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        The ORIGINAL data. Any sparse format is converted to CSR once; a float64 ndarray, C- or
        Fortran-ordered, is not copied.
    keep_centered : bool, default=True
        Dense A only. True keeps a C-ordered copy of ``A - mu`` (one copy, made here), the fastest
        for many partitions. False keeps no copy: every call centers blocks of rows (32 MiB at a
        time) on the fly, for a one-off score or an A too large to hold twice. Both give the same
        value to the last bit (same blocks, same arithmetic).

    Attributes
    ----------
    n_samples : int
    squared_norm : float
        ``||A||_F^2``, the denominator of F.

    Notes
    -----
    W is computed from per-cluster sums: with ``s_c`` the sum of the rows of cluster c,
    ``W = T - sum_c ||s_c||^2 / |c|``, where T is the total sum of squares about a fixed point.

    Dense A: the sums are taken over the centered rows ``a_i - mu`` (a sparse indicator times a
    C-ordered block of rows, block by block) and T is ``||A - mu||_F^2``. Centering removes the
    cancellation a large mean would cause (rows far from the origin, clusters tight around them):
    the subtraction then loses at most about ``eps * T / W`` in relative accuracy, i.e. only when
    the clusters are tight compared with the spread of the whole data set. When ``W < 1e-3 T``
    the residuals ``a_i - mu_c`` are formed explicitly instead, which has no cancellation at all.

    Sparse A is not centered (that would densify it): ``T = ||A||_F^2`` and the sums ``s_c`` come
    from a sparse (k x n indicator) @ A product in O(nnz(A) + n), so the relative accuracy is about
    ``eps / F``; it is accurate unless F is tiny, and the papers' data give F of order 0.1-1. Tiny
    negative round-off is clipped to 0.
    """

    def __init__(self, A, *, keep_centered: bool = True):
        A = _check_matrix(A)
        self.n_samples = A.shape[0]
        self._mean = None
        if sp.issparse(A):
            self.squared_norm = float(A.data @ A.data)
            self._about = self.squared_norm  # T: the sum of squares the sums are measured about
            self._data = A
        else:
            self.squared_norm = float(np.einsum("ij,ij->", A, A))
            self._mean = A.mean(axis=0)
            self._data = np.subtract(A, self._mean, order="C") if keep_centered else A
            self._centered = keep_centered
            self._about = sum(float(np.einsum("ij,ij->", b, b)) for _, b in self._blocks())
        if self.squared_norm == 0.0:
            raise ValueError("A is all zeros: F = 0/0 is undefined")

    def _blocks(self):
        """(start, C-ordered block of centered rows) over dense A, in fixed blocks of rows.

        Without a kept centered copy, every block is centered into one buffer, overwritten by the
        next block: a block is valid until the next one is drawn.
        """
        X = self._data
        step = max(1, _BLOCK_ELEMENTS // X.shape[1])
        if self._centered:
            for start in range(0, X.shape[0], step):
                yield start, X[start : start + step]
            return
        buffer = np.empty((min(step, X.shape[0]), X.shape[1]))
        for start in range(0, X.shape[0], step):
            rows = X[start : start + step]
            yield start, np.subtract(rows, self._mean, out=buffer[: rows.shape[0]])

    def __call__(self, labels) -> float:
        """F of the partition ``labels`` (any values; equal values are one cluster)."""
        labels = _check_labels(labels, self.n_samples)
        codes, counts = _encode(labels)
        m = counts.shape[0]
        if self._mean is None:
            sums = _cluster_sums(self._data, codes, m)
        else:
            sums = np.zeros((m, self._data.shape[1]))
            for start, block in self._blocks():
                sums += _cluster_sums(block, codes[start : start + block.shape[0]], m)
        within = within_from_sums(sums, counts, self._about)
        if self._mean is not None and within < CANCELLATION_RATIO * self._about:
            within = self._residual(sums / counts[:, None], codes)
        return max(within, 0.0) / self.squared_norm

    def _residual(self, centroids: np.ndarray, codes: np.ndarray) -> float:
        """Sum of ||(a_i - mu) - c_i||^2 over the rows, residuals formed explicitly."""
        total = 0.0
        for start, block in self._blocks():
            total += squared_residuals(block, centroids[codes[start : start + block.shape[0]]])
        return total


def kmeans_objective(A, labels) -> float:
    """The normalized k-means objective F of a partition, measured on A.

    ``F = ||A - X X^T A||_F^2 / ||A||_F^2``, where X is the n x m scaled cluster indicator of
    ``labels``: the sum of squared distances of the rows of A to the centroids, in A's space, of
    their clusters, divided by ``||A||_F^2``. It lies in [0, 1]; 0 when every cluster holds copies
    of one point, 1 - n ||mean(A)||^2 / ||A||_F^2 for a single cluster.

    Parameters
    ----------
    A : array-like, scipy.sparse matrix or ObjectiveEvaluator
        The ORIGINAL data, of shape (n_samples, n_features) (not the reduced matrix the partition
        may have been found on). To score many partitions of one A, build an
        :class:`ObjectiveEvaluator` once and pass it (or call it) instead: this function does
        ``ObjectiveEvaluator(A, keep_centered=False)(labels)``, i.e. redoes the label-independent
        work every time, without holding a centered copy of A.
    labels : array-like of shape (n_samples,)
        Any values; equal values are one cluster. Ids need not be 0..k-1 or contiguous.

    Returns
    -------
    float

    Notes
    -----
    Cost O(n d) for dense A, O(nnz(A) + n) for sparse A (never densified); accuracy as described
    in :class:`ObjectiveEvaluator`.
    """
    if isinstance(A, ObjectiveEvaluator):
        return A(labels)
    # one partition: no centered copy of a dense A (same value as the default evaluator's)
    return ObjectiveEvaluator(A, keep_centered=False)(labels)


def clustering_accuracy(y_true, labels) -> float:
    """Accuracy P: the fraction of points whose cluster maps to their class.

    Clusters are matched to classes one-to-one so that the number of correctly placed points is
    largest (the Hungarian algorithm on the class x cluster contingency table). With more clusters
    than classes the extra clusters match nothing and their points count as errors, and vice versa.
    """
    y_true = np.asarray(y_true)
    if y_true.ndim != 1 or y_true.shape[0] < 1:
        raise ValueError(f"y_true must be 1-D and non-empty, got shape {y_true.shape}")
    labels = _check_labels(labels, y_true.shape[0])
    return _matched_fraction(contingency_matrix(y_true, labels))  # classes x clusters


def _matched_fraction(table: np.ndarray) -> float:
    """The accuracy of a class x cluster count table: its largest one-to-one matching's count
    (the Hungarian algorithm) over the number of points."""
    rows, cols = linear_sum_assignment(table, maximize=True)
    return float(table[rows, cols].sum()) / int(table.sum())


def nmi(y_true, labels, *, average_method: str = "arithmetic") -> float:
    """Normalized mutual information (scikit-learn's, normalized by the arithmetic mean of the
    two entropies by default). The papers report no NMI; MATLAB codes in the literature also use
    the max or the geometric mean, which scikit-learn offers through ``average_method``."""
    y_true = np.asarray(y_true)
    labels = _check_labels(labels, y_true.shape[0])
    return float(normalized_mutual_info_score(y_true, labels, average_method=average_method))


def ari(y_true, labels) -> float:
    """Adjusted Rand index (scikit-learn's)."""
    y_true = np.asarray(y_true)
    labels = _check_labels(labels, y_true.shape[0])
    return float(adjusted_rand_score(y_true, labels))


def _entropy(counts: np.ndarray) -> float:
    """The entropy (natural log) of a labeling with these positive class sizes, as
    scikit-learn's NMI computes it from the labels (the same operations in the same order)."""
    if counts.size == 1:
        return 0.0
    pi = counts.astype(np.float64)
    pi_sum = np.sum(pi)
    return float(-np.sum((pi / pi_sum) * (np.log(pi) - math.log(pi_sum))))


def _averaged(h_true: float, h_pred: float, average_method: str) -> float:
    """The mean of the two entropies that normalizes NMI (scikit-learn's four)."""
    if average_method == "arithmetic":
        return float(np.mean([h_true, h_pred]))
    if average_method == "geometric":
        return float(np.sqrt(h_true * h_pred))
    if average_method == "min":
        return min(h_true, h_pred)
    if average_method == "max":
        return max(h_true, h_pred)
    raise ValueError(
        f"average_method must be 'arithmetic', 'geometric', 'min' or 'max', got {average_method!r}"
    )


def _nmi_of_table(table: np.ndarray, average_method: str) -> float:
    if table.shape[0] == table.shape[1] == 1:  # neither labeling splits the data: a perfect match
        return 1.0
    mi = mutual_info_score(None, None, contingency=sp.csr_matrix(table))
    if mi == 0:
        return 0.0
    h_true, h_pred = _entropy(table.sum(axis=1)), _entropy(table.sum(axis=0))
    return float(mi / _averaged(h_true, h_pred, average_method))


def _ari_of_table(table: np.ndarray) -> float:
    # the pair counts of scikit-learn's pair_confusion_matrix, in exact integer arithmetic
    n = int(table.sum())
    n_c, n_k = table.sum(axis=1), table.sum(axis=0)
    sum_squares = int((table**2).sum())
    fp = int((table @ n_k).sum()) - sum_squares
    fn = int((table.T @ n_c).sum()) - sum_squares
    tp = sum_squares - n
    tn = n * n - fp - fn - sum_squares
    if fn == 0 and fp == 0:
        return 1.0
    return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


def contingency_scores(table, *, average_method: str = "arithmetic") -> dict[str, float]:
    """``accuracy``, ``nmi`` and ``ari`` of a partition from its class x cluster count table
    alone (entry ``[c, j]``: the points of class ``c`` in cluster ``j``; rows or columns of
    zeros, classes or clusters without a point, are allowed).

    The values equal :func:`clustering_accuracy`, :func:`nmi` and :func:`ari` of the labels to
    the last bit: the same operations on the same counts (scikit-learn's ``mutual_info_score``
    takes the table; the entropies and the ARI's pair counts are scikit-learn's formulas on the
    table's margins, which scikit-learn computes from the labels only). Tables add: the table of
    a partition held in row blocks is the sum of its blocks' tables, so a partition no process
    holds whole is scored from ``k x c`` numbers.
    """
    table = np.asarray(table)
    if table.ndim != 2 or not np.issubdtype(table.dtype, np.integer) or (table < 0).any():
        raise ValueError("the contingency table must be a 2-D array of counts (integers >= 0)")
    table = table.astype(np.int64, copy=False)
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    if table.size == 0:
        raise ValueError("the contingency table counts no point")
    return {
        "accuracy": _matched_fraction(table),
        "nmi": _nmi_of_table(table, average_method),
        "ari": _ari_of_table(table),
    }


def label_scores(y_true, labels) -> dict[str, float]:
    """``accuracy``, ``nmi`` and ``ari`` of a partition against the true labels; NaN for the three
    when there are none (``y_true`` None, or every label -1: a user's unlabeled file)."""
    if y_true is None or (np.size(y_true) and (np.asarray(y_true) == -1).all()):
        return {"accuracy": np.nan, "nmi": np.nan, "ari": np.nan}
    return {
        "accuracy": clustering_accuracy(y_true, labels),
        "nmi": nmi(y_true, labels),
        "ari": ari(y_true, labels),
    }


def evaluate(A, y_true, labels) -> dict[str, float]:
    """All measures of one partition: ``objective`` (F on A), ``accuracy``, ``nmi``, ``ari``.

    ``A`` may be an :class:`ObjectiveEvaluator` of the original data (reused across partitions).

    ``y_true=None`` (no ground truth) gives NaN for the three label-based measures.
    """
    return {"objective": kmeans_objective(A, labels), **label_scores(y_true, labels)}
