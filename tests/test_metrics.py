"""Tests of kmdr.metrics: F vs its definition and sklearn, sparse vs dense, P vs brute force."""

from itertools import permutations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
from sklearn.metrics.cluster import contingency_matrix

from kmdr.kmeans.lloyd import kmeans
from kmdr.metrics import (
    ObjectiveEvaluator,
    ari,
    clustering_accuracy,
    contingency_scores,
    evaluate,
    kmeans_objective,
    nmi,
)


def objective_by_definition(A, labels):
    """||A - X X^T A||_F^2 / ||A||_F^2 with X the n x m scaled indicator (orthonormal columns)."""
    A = np.asarray(A, dtype=np.float64)
    ids = np.unique(labels)
    X = np.zeros((A.shape[0], ids.size))
    for j, c in enumerate(ids):
        members = labels == c
        X[members, j] = 1.0 / np.sqrt(members.sum())
    R = A - X @ (X.T @ A)
    return np.sum(R**2) / np.sum(A**2)


def random_sparse(rng, n, d, density):
    """Random CSR matrix with some rows and columns forced empty."""
    A = sp.random(n, d, density=density, random_state=rng, format="lil")
    A[rng.choice(n, n // 5, replace=False), :] = 0
    A[:, rng.choice(d, d // 5, replace=False)] = 0
    A = A.tocsr()
    A.data -= 0.5  # signed values
    return A


# --- F ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_objective_matches_definition_random_labels(seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(60, 7)) + rng.normal(size=7)
    labels = rng.choice([-4, 3, 10, 11, 250], size=60)  # non-contiguous, negative ids
    assert kmeans_objective(A, labels) == pytest.approx(objective_by_definition(A, labels), 1e-12)


def test_objective_equals_sklearn_inertia_at_convergence():
    A, _ = make_blobs(n_samples=300, centers=4, n_features=5, random_state=0)
    # tol=0: scikit-learn stops only when the labels stop changing, so the final centers are the
    # centroids of the final labels and inertia_ is exactly the objective of labels_.
    km = KMeans(4, n_init=3, tol=0, max_iter=300, random_state=0).fit(A)
    assert km.n_iter_ < 300
    expected = km.inertia_ / np.sum(A**2)
    assert kmeans_objective(A, km.labels_) == pytest.approx(expected, rel=1e-10)
    assert kmeans_objective(sp.csr_matrix(A), km.labels_) == pytest.approx(expected, rel=1e-10)


def test_partition_found_on_reduced_matrix_is_scored_on_original():
    A, _ = make_blobs(n_samples=200, centers=3, n_features=30, random_state=1)
    A = A + np.random.default_rng(1).normal(scale=3.0, size=A.shape)
    C = A @ np.random.default_rng(2).normal(size=(30, 4))
    labels = kmeans(C, 3, random_state=0).labels
    f = kmeans_objective(A, labels)
    assert f == pytest.approx(objective_by_definition(A, labels), rel=1e-12)
    # The same partition found on a rescaled C has the same F: only A's geometry matters.
    labels_scaled = kmeans(1000.0 * C, 3, random_state=0).labels
    assert adjusted_rand_score(labels, labels_scaled) == 1.0
    assert kmeans_objective(A, labels_scaled) == pytest.approx(f, rel=1e-12)
    # ... whereas the objective measured in C's space is a different number.
    assert abs(kmeans_objective(C, labels) - f) > 1e-3


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_sparse_equals_dense(seed):
    rng = np.random.default_rng(seed)
    A = random_sparse(rng, 80, 40, 0.08)
    assert A.getnnz(axis=1).min() == 0 and A.getnnz(axis=0).min() == 0
    labels = rng.choice([7, 2, 99, -1], size=80)
    dense = kmeans_objective(A.toarray(), labels)
    assert dense == pytest.approx(objective_by_definition(A.toarray(), labels), rel=1e-12)
    for fmt in (A, A.tocsc(), A.tocoo(), sp.csr_array(A)):
        assert kmeans_objective(fmt, labels) == pytest.approx(dense, rel=1e-10)


def test_sparse_with_duplicate_entries_is_not_modified():
    cols, vals = [1, 1, 0, 2], [1.0, 2.0, 4.0, -1.0]
    A_dup = sp.csr_matrix(
        (np.array(vals), np.array(cols), np.array([0, 2, 3, 4])), shape=(3, 3)
    )  # row 0 holds column 1 twice (1 + 2)
    labels = np.array([0, 0, 1])
    assert kmeans_objective(A_dup, labels) == pytest.approx(
        objective_by_definition(A_dup.toarray(), labels), rel=1e-12
    )
    assert A_dup.nnz == 4  # the caller's matrix keeps its duplicates


@pytest.mark.parametrize("make", [np.asarray, sp.csr_matrix])
def test_objective_extreme_partitions(make):
    rng = np.random.default_rng(5)
    A = rng.normal(size=(30, 6)) + 2.0
    n = A.shape[0]
    assert kmeans_objective(make(A), np.arange(n)) == pytest.approx(0.0, abs=1e-12)
    one = 1.0 - n * np.sum(A.mean(axis=0) ** 2) / np.sum(A**2)
    assert kmeans_objective(make(A), np.zeros(n, dtype=int)) == pytest.approx(one, rel=1e-12)


def test_dense_objective_has_no_cancellation_far_from_origin():
    # Rows at distance ~1e6 from the origin, clusters of spread ~1: the identity
    # ||A||^2 - sum ||s_c||^2/|c| would lose ~10 of 16 digits here; residuals do not.
    rng = np.random.default_rng(0)
    noise = rng.normal(size=(200, 5))
    labels = rng.integers(0, 4, size=200)
    offset = 1.0e6
    A = offset + noise
    exact_noise = A - offset  # exact (Sterbenz), the same points shifted to the origin
    residual = kmeans_objective(A, labels) * np.sum(A**2)
    expected = objective_by_definition(exact_noise, labels) * np.sum(exact_noise**2)
    assert residual == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("kind", ["C", "F", "csr", "csc", "csr_array"])
def test_evaluator_matches_definition_for_many_labelings(kind):
    rng = np.random.default_rng(7)
    A = random_sparse(rng, 90, 35, 0.3).toarray() + 3.0 * (kind in ("C", "F"))  # mean 3 if dense
    data = {
        "C": np.ascontiguousarray(A),
        "F": np.asfortranarray(A),
        "csr": sp.csr_matrix(A),
        "csc": sp.csc_matrix(A),
        "csr_array": sp.csr_array(A),
    }[kind]
    evaluator = ObjectiveEvaluator(data)
    assert evaluator.squared_norm == pytest.approx(np.sum(A**2), rel=1e-14)
    for _ in range(20):
        k = int(rng.integers(1, 12))
        labels = rng.integers(0, k, size=90) * 3 - 5  # non-contiguous, negative ids
        expected = objective_by_definition(A, labels)
        assert evaluator(labels) == pytest.approx(expected, rel=1e-11)
        assert kmeans_objective(data, labels) == evaluator(labels)
        assert kmeans_objective(evaluator, labels) == evaluator(labels)
    if kind == "F":
        assert np.isfortran(data)  # the caller's array is left as it was


@pytest.mark.parametrize("order", ["C", "F"])
def test_evaluator_blocks_and_copy_agree_to_the_last_bit(monkeypatch, order):
    import kmdr.metrics

    monkeypatch.setattr(kmdr.metrics, "_BLOCK_ELEMENTS", 7 * 13)  # blocks of 7 rows, last of 4
    rng = np.random.default_rng(11)
    A = np.asarray(50.0 + 20.0 * rng.normal(size=(60, 13)), order=order)
    kept = ObjectiveEvaluator(A)
    streamed = ObjectiveEvaluator(A, keep_centered=False)
    for k in (1, 3, 17, 60):
        labels = rng.integers(0, k, size=60)
        assert kept(labels) == streamed(labels) == kmeans_objective(A, labels)
        assert kept(labels) == pytest.approx(objective_by_definition(A, labels), rel=1e-12)
    # every row its own cluster: W = 0 < 1e-3 T, the explicit residuals (in blocks) give 0
    assert kept(np.arange(60)) == streamed(np.arange(60)) == 0.0


def test_evaluator_keeps_accuracy_with_large_mean_and_tight_clusters():
    # Rows at ~1e6 from the origin in 3 clusters of spread ~1e-3 around centers ~10 apart: W is
    # about 1e-13 of ||A||^2 and 1e-7 of the centered total, so the per-cluster-sum formula would
    # lose all digits without centering, and ~8 with it; the explicit residuals keep them.
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 3, size=300)
    centers = 1.0e6 + 10.0 * rng.normal(size=(3, 6))
    noise = 1.0e-3 * rng.normal(size=(300, 6))
    A = centers[labels] + noise
    evaluator = ObjectiveEvaluator(np.asfortranarray(A))
    exact = 0.0
    for c in range(3):
        members = A[labels == c] - centers[c]  # exact: Sterbenz, the points are within 1e-2
        exact += np.sum((members - members.mean(axis=0)) ** 2)
    assert evaluator(labels) * evaluator.squared_norm == pytest.approx(exact, rel=1e-10)
    # random labels: W is most of the centered total, the sums formula is used and exact enough
    random_labels = rng.integers(0, 4, size=300)
    assert evaluator(random_labels) == pytest.approx(
        objective_by_definition(A, random_labels), rel=1e-9
    )


def test_objective_rejects_bad_input():
    A = np.ones((4, 2))
    with pytest.raises(ValueError, match="labels"):
        kmeans_objective(A, [0, 1, 0])
    with pytest.raises(ValueError, match="labels"):
        kmeans_objective(A, np.zeros((4, 1)))
    with pytest.raises(ValueError, match="Input A contains NaN"):
        kmeans_objective(np.array([[1.0, np.nan], [0.0, 1.0]]), [0, 1])
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
        kmeans_objective(np.ones(4), [0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"Found array with 0 sample\(s\)"):
        kmeans_objective(np.ones((0, 3)), [])
    with pytest.raises(ValueError, match="all zeros"):
        kmeans_objective(sp.csr_matrix((3, 3)), [0, 1, 1])


# --- P ----------------------------------------------------------------------------------------


def accuracy_by_brute_force(y_true, labels):
    classes, clusters = np.unique(y_true), np.unique(labels)
    best = 0
    if clusters.size <= classes.size:
        for image in permutations(classes, clusters.size):
            mapping = dict(zip(clusters, image, strict=True))
            best = max(best, sum(mapping[c] == y for c, y in zip(labels, y_true, strict=True)))
    else:
        for preimage in permutations(clusters, classes.size):
            mapping = dict(zip(preimage, classes, strict=True))
            best = max(best, sum(mapping.get(c) == y for c, y in zip(labels, y_true, strict=True)))
    return best / len(y_true)


def test_accuracy_is_one_for_any_relabelling():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 5, size=50)
    perm = rng.permutation(5)
    assert clustering_accuracy(y, perm[y]) == 1.0
    assert clustering_accuracy(y, 10 * perm[y] - 7) == 1.0
    assert clustering_accuracy(y, np.array(list("abcde"))[perm[y]]) == 1.0


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("n_classes", "n_clusters"), [(3, 3), (5, 5), (3, 5), (4, 2)])
def test_accuracy_equals_brute_force(seed, n_classes, n_clusters):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, size=40)
    labels = np.where(rng.random(40) < 0.5, y % n_clusters, rng.integers(0, n_clusters, size=40))
    assert clustering_accuracy(y, labels) == pytest.approx(accuracy_by_brute_force(y, labels))


def test_accuracy_known_values():
    assert clustering_accuracy([0, 0, 1, 1], [5, 5, 5, 5]) == 0.5
    # Each point its own cluster: only one point per class can be matched.
    assert clustering_accuracy([0, 0, 0, 1, 1, 2], np.arange(6)) == 0.5
    with pytest.raises(ValueError, match="labels"):
        clustering_accuracy([0, 1], [0, 1, 1])


# --- NMI, ARI, evaluate -----------------------------------------------------------------------


def test_nmi_ari_wrap_sklearn_and_evaluate():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, size=60)
    labels = rng.integers(0, 4, size=60)
    assert nmi(y, labels) == normalized_mutual_info_score(y, labels, average_method="arithmetic")
    assert nmi(y, labels, average_method="max") == normalized_mutual_info_score(
        y, labels, average_method="max"
    )
    assert ari(y, labels) == adjusted_rand_score(y, labels)
    assert nmi(y, y + 1) == pytest.approx(1.0) and ari(y, y + 1) == pytest.approx(1.0)
    A = rng.normal(size=(60, 4))
    out = evaluate(A, y, labels)
    assert out == {
        "objective": kmeans_objective(A, labels),
        "accuracy": clustering_accuracy(y, labels),
        "nmi": nmi(y, labels),
        "ari": ari(y, labels),
    }
    assert np.isnan(evaluate(A, None, labels)["accuracy"])


def _labelings(seed: int, count: int):
    """Pairs (true labels, clusters) of every kind: random, close to the classes, one class,
    one cluster, one point, a perfect match under another numbering, values with gaps."""
    rng = np.random.default_rng(seed)
    yield np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    yield np.zeros(50, dtype=np.int64), rng.integers(0, 4, 50)
    yield rng.integers(0, 4, 50), np.zeros(50, dtype=np.int64)
    y = rng.integers(0, 5, 200)
    yield y, (y * 7 + 3) % 11  # the same partition, numbered otherwise
    for _ in range(count):
        n = int(rng.integers(2, 3000))
        y = rng.integers(0, int(rng.integers(1, 9)), n)
        labels = rng.integers(0, int(rng.integers(1, 12)), n)
        near = rng.random(n) < rng.random()
        labels[near] = y[near] * 2  # partly the classes, with gaps in the cluster ids
        yield y, labels


@pytest.mark.parametrize("average_method", ["arithmetic", "geometric", "min", "max"])
def test_the_scores_of_a_contingency_table_are_those_of_the_labels_to_the_last_bit(average_method):
    """contingency_scores on the class x cluster table (with empty rows and columns added)
    equals accuracy, NMI and ARI of the labels exactly: the chunked path scores a partition so,
    and its cells must equal the in-memory ones."""
    for y, labels in _labelings(0, 300):
        table = contingency_matrix(y, labels)
        padded = np.zeros((y.max() + 2, labels.max() + 3), dtype=np.int64)
        padded[np.ix_(np.unique(y), np.unique(labels))] = table
        got = contingency_scores(padded, average_method=average_method)
        assert got["accuracy"] == clustering_accuracy(y, labels)
        assert got["nmi"] == normalized_mutual_info_score(y, labels, average_method=average_method)
        assert got["ari"] == adjusted_rand_score(y, labels)


def test_contingency_tables_of_row_blocks_add_up():
    """A partition held in row blocks: the sum of the blocks' tables scores it as a whole."""
    rng = np.random.default_rng(3)
    y, labels = rng.integers(0, 6, 100_000), rng.integers(0, 9, 100_000)
    total = np.zeros((6, 9), dtype=np.int64)
    for lo, hi in [(0, 1), (1, 40_000), (40_000, 99_999), (99_999, 100_000)]:
        total += np.bincount(y[lo:hi] * 9 + labels[lo:hi], minlength=54).reshape(6, 9)
    got = contingency_scores(total)
    assert got == {
        "accuracy": clustering_accuracy(y, labels),
        "nmi": nmi(y, labels),
        "ari": ari(y, labels),
    }


@pytest.mark.parametrize(
    "table",
    [
        np.ones(3, dtype=np.int64),
        np.array([[1.5, 2.0]]),
        np.array([[-1, 2]]),
        np.zeros((2, 2), dtype=np.int64),
    ],
)
def test_a_table_that_is_not_counts_is_refused(table):
    with pytest.raises(ValueError, match="contingency table"):
        contingency_scores(table)
