"""A bzmd14 ORL reproduction written the way a typical public reproduction is (benchmark baseline).

    python scripts/bench/_typical_reproduction.py OUT.csv

Run as a subprocess by ``scripts/bench/bench_reproduction.py``; it deliberately does not use kmdr's
reducers, runner or metrics (only ``kmdr.datasets.load_dataset`` for the data). For every r it
recomputes every reduction from scratch with numpy/scipy/scikit-learn, clusters it with
scikit-learn's ``KMeans(n_clusters=k, n_init=5, max_iter=500)`` (k-means++, default threads) and
also recomputes the full-space k-means, then scores each partition on the original A:
P = accuracy after Hungarian matching, F = ||A - X X^T A||_F^2 / ||A||_F^2. Writes one CSV row per
grid point (method, r, P, F).
"""

from __future__ import annotations

import csv
import sys

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.cluster import KMeans
from sklearn.metrics import confusion_matrix
from sklearn.neighbors import kneighbors_graph

from kmdr.datasets import load_dataset

EPS = 1.0 / 3.0
R_GRID = range(5, 101, 5)


def accuracy(y, labels):
    cm = confusion_matrix(y, labels)
    rows, cols = linear_sum_assignment(-cm)
    return cm[rows, cols].sum() / len(y)


def f_ratio(A, labels, k):
    # The normalized cluster indicator X (n x k), as in the paper's definition of F.
    X = np.zeros((A.shape[0], k))
    X[np.arange(A.shape[0]), labels] = 1.0
    X /= np.sqrt(np.maximum(X.sum(axis=0), 1.0))
    return np.linalg.norm(A - X @ (X.T @ A)) ** 2 / np.linalg.norm(A) ** 2


def approx_right_vectors(A, rank, rng):
    # Randomized SVD: Gaussian sketch with l = rank + ceil(rank / eps + 1) columns.
    ell = rank + int(np.ceil(rank / EPS + 1))
    Q, _ = np.linalg.qr(A @ rng.standard_normal((A.shape[1], ell)))
    _, _, Vt = np.linalg.svd(Q.T @ A, full_matrices=False)
    return Vt[:rank].T


def leverage_sample(A, Z, r, rng):
    p = (Z**2).sum(axis=1) / Z.shape[1]
    p /= p.sum()
    idx = rng.choice(A.shape[1], size=r, replace=True, p=p)
    return A[:, idx] / np.sqrt(r * p[idx])


def laplacian_scores(A, n_neighbors=5):
    G = kneighbors_graph(A, n_neighbors, mode="distance")
    G = G.maximum(G.T).tocsr()
    t = G.data.mean()
    W = G.copy()
    W.data = np.exp(-(W.data**2) / (2 * t**2))
    dvec = np.asarray(W.sum(axis=1)).ravel()
    F = A - (dvec @ A / dvec.sum())
    num = (F * (dvec[:, None] * F)).sum(axis=0) - (F * (W @ F)).sum(axis=0)
    den = (F * (dvec[:, None] * F)).sum(axis=0)
    return num / np.maximum(den, 1e-300)


def main(out):
    ds = load_dataset("orl")
    A, y, k = np.asarray(ds.X, dtype=float), ds.y, ds.n_clusters
    rng = np.random.default_rng()
    rows = []
    for r in R_GRID:
        # Recomputed for every r, as a per-figure-point script does.
        full = KMeans(n_clusters=k, n_init=5, max_iter=500).fit(A)
        _, _, Vt = np.linalg.svd(A, full_matrices=False)
        reductions = {
            "Sampl/SVD": leverage_sample(A, Vt[:k].T, r, rng),
            "Sampl/ApproxSVD": leverage_sample(A, approx_right_vectors(A, k, rng), r, rng),
            "RP": A @ (rng.choice([-1.0, 1.0], size=(A.shape[1], r)) / np.sqrt(r)),
            "SVD": A @ Vt[:r].T,
            "ApprSVD": A @ approx_right_vectors(A, r, rng),
            "LapScores": A[:, np.argsort(laplacian_scores(A))[:r]],
        }
        for method, C in reductions.items():
            labels = KMeans(n_clusters=k, n_init=5, max_iter=500).fit(C).labels_
            rows.append((method, r, accuracy(y, labels), f_ratio(A, labels, k)))
        rows.append(("kMeans", r, accuracy(y, full.labels_), f_ratio(A, full.labels_, k)))
    with open(out, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["method", "r", "P", "F"])
        writer.writerows(rows)


if __name__ == "__main__":
    main(sys.argv[1])
