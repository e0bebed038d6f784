"""The authors' rules for sparsified k-means, written out here a second time and compared.

A literal reading of SparsifiedKMeans 2.1 (``kmeans_sparsified.m`` with its defaults and its
``private/`` helpers: randsample_fixedNumberEntries, Arthur_initialization,
findClusterAssignments), on dense arrays with NaN where their MATLAB sparse matrix stores nothing,
one center at a time as their fallback loop computes it. It shares no code with
:func:`kmdr.kmeans.sparsified.authors_sparsified_kmeans`, only the random draws (the same calls on
the same generator, so that the two can be compared for one seed). The data have exact zeros
(scikit-learn's digits: most pixels of the border are 0), which their storage drops.
"""

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import load_digits

from kmdr.metrics import clustering_accuracy
from kmdr.reducers import PreconditionedSparsification

K = 3


@pytest.fixture(scope="module")
def digits():
    data = load_digits()
    keep = np.isin(data.target, [0, 3, 9])
    return data.data[keep].astype(np.float64), data.target[keep]


def literal_sketch(Y: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Their X after sampling: the sampled values over small_p / p at the sampled positions,
    NaN elsewhere, and NaN where the sampled value is 0 (MATLAB's sparse() stores no zero)."""
    n, p = Y.shape
    m = positions.shape[1]
    S = np.full((n, p), np.nan)
    for i in range(n):
        for l in positions[i]:
            if Y[i, l] != 0:
                S[i, l] = Y[i, l] / (m / p)
    return S


def literal_distances(S, centers, gamma, sparse_centers):
    """findClusterAssignments with gamma, one center at a time: k x n distances."""
    stored = ~np.isnan(S)
    X = np.where(stored, S, 0.0)
    out = np.zeros((len(centers), len(S)))
    for k, c in enumerate(centers):
        if sparse_centers:
            ind = c != 0  # find(centers(:, ki))
            gamma_c = ind.sum() / S.shape[1]
            if gamma_c == 0:
                continue  # X(ind, :) is empty: every distance 0
            both = stored & ind
            diff = np.where(both, X / gamma_c - c / gamma, 0.0)
        else:
            diff = np.where(stored, X - c / gamma, 0.0)
        out[k] = np.sqrt(np.cumsum(diff**2, axis=1)[:, -1])  # in coordinate order, as theirs
    return out


def literal_arthur(S, gamma, rng):
    """Arthur_initialization(X, K, gamma): the seeds held dense (full(ref)), distances to the
    nearest, the next seed drawn with weights dist.^2, a seed already chosen drawn again."""
    n = len(S)
    rows = np.where(np.isnan(S), 0.0, S)
    chosen = [int(rng.randint(n))]
    for _ in range(K - 1):
        dist = literal_distances(S, rows[chosen], gamma, sparse_centers=False).min(axis=0)
        w = dist**2
        p = w / w.sum() if np.linalg.norm(dist) > 0 else None
        i = int(rng.choice(n, p=p))
        for _ in range(399):
            if i not in chosen:
                break
            i = int(rng.choice(n, p=p))
        chosen.append(i)
    return rows[chosen].copy()


def literal_kmeans(S, gamma, rng, max_iter=100, tol=1e-6):
    """The main loop of kmeans_sparsified.m (Replicates 1, EmptyAction 'singleton')."""
    centers = literal_arthur(S, gamma, rng)
    first = centers.copy()
    sparse_centers = True
    stored = ~np.isnan(S)
    X = np.where(stored, S, 0.0)
    for _ in range(max_iter):
        D = literal_distances(S, centers, gamma, sparse_centers)
        assignments = np.argmin(D, axis=0)
        distances = D.min(axis=0)
        old = centers.copy()
        for k in range(K):
            ind = assignments == k
            if not ind.any():
                centers[k] = X[np.argmax(distances)]
            else:
                total = np.cumsum(X[ind], axis=0)[-1]  # in point order, as theirs
                count = stored[ind].sum(axis=0)
                centers[k] = gamma * total / (count + 1e-16)
        if sparse_centers and np.count_nonzero(centers) / centers.size > 0.99:
            sparse_centers = False
        if np.linalg.norm(old - centers) < tol:
            break
    return assignments, first


def _sketches(X, m, preconditioner, seed):
    """kmdr's two sketches of X for one seed: the authors' (stored entries) and kmdr's (every
    kept position, zeros included: the positions both drew), and the preconditioned Y."""
    authors = PreconditionedSparsification(
        m, preconditioner=preconditioner, rules="authors", random_state=seed
    )
    kept = PreconditionedSparsification(
        m, preconditioner=preconditioner, rules="kmdr", random_state=seed
    )
    W, V = authors.fit_transform(X), kept.fit_transform(X)
    positions = V.indices.reshape(len(X), m)
    Y = np.zeros((len(X), V.shape[1]))
    np.put_along_axis(Y, positions, V.data.reshape(len(X), m), axis=1)
    return authors, W, Y, positions


@pytest.mark.parametrize(("preconditioner", "m"), [("none", 1), ("none", 6), ("hadamard", 6)])
def test_the_same_entries_are_stored(digits, preconditioner, m):
    X, _ = digits
    _, W, Y, positions = _sketches(X, m, preconditioner, seed=3)
    S = literal_sketch(Y, positions)
    stored = ~np.isnan(S)
    assert stored.sum() < positions.size  # the data's exact zeros were sampled, and dropped
    np.testing.assert_array_equal(W.toarray() != 0, stored)
    np.testing.assert_allclose(W.toarray()[stored] * (W.shape[1] / m), S[stored], rtol=1e-12)


@pytest.mark.parametrize(("preconditioner", "m"), [("none", 1), ("none", 13), ("hadamard", 6)])
@pytest.mark.parametrize("seed", [0, 7])
def test_the_same_first_centers_and_labels_for_a_seed(digits, preconditioner, m, seed):
    X, _ = digits
    reducer, W, Y, positions = _sketches(X, m, preconditioner, seed=seed)
    S = literal_sketch(Y, positions)
    labels, first = literal_kmeans(S, m / X.shape[1], np.random.RandomState(seed))
    # one iteration from the same seed: the first centers' assignment and their update
    one = reducer.cluster(W, K, n_init=1, max_iter=1, tol=1e-6, random_state=seed)
    first_labels = np.argmin(literal_distances(S, first, m / X.shape[1], True), axis=0)
    np.testing.assert_array_equal(one.labels, first_labels)
    full = reducer.cluster(W, K, n_init=1, max_iter=100, tol=1e-6, random_state=seed)
    np.testing.assert_array_equal(full.labels, labels)


@pytest.mark.parametrize(("preconditioner", "m"), [("none", 6), ("hadamard", 6)])
def test_accuracy_over_30_trials_is_the_same_within_noise(digits, preconditioner, m):
    """Independent trials (other seeds for each side): the mean accuracies differ by less than
    Welch's test can tell apart (p > 0.05), and the authors' rules without preconditioning stay
    far below kmdr's variant (their stored entries and overlap distances, not noise)."""
    X, y = digits
    ours, literal, variant = [], [], []
    for t in range(30):
        reducer, W, _, _ = _sketches(X, m, preconditioner, seed=t)
        run = reducer.cluster(W, K, n_init=1, max_iter=100, tol=1e-6, random_state=t)
        ours.append(clustering_accuracy(y, run.labels))
        _, _, Y2, pos2 = _sketches(X, m, preconditioner, seed=1000 + t)
        lab, _ = literal_kmeans(literal_sketch(Y2, pos2), m / X.shape[1], np.random.RandomState(t))
        literal.append(clustering_accuracy(y, lab))
        kmdr_rules = PreconditionedSparsification(m, preconditioner=preconditioner, random_state=t)
        C = kmdr_rules.fit_transform(X)
        run = kmdr_rules.cluster(C, K, n_init=1, max_iter=100, random_state=t)
        variant.append(clustering_accuracy(y, run.labels))
    assert stats.ttest_ind(ours, literal, equal_var=False).pvalue > 0.05
    assert abs(np.mean(ours) - np.mean(literal)) < 0.05
    if preconditioner == "none":
        assert np.mean(variant) > np.mean(ours) + 0.05
