"""The authors' evaluation of a coreset (:mod:`kmdr.coresets.evaluation`): the Benchmark's own
solutions, checked against a brute-force reading of their ``eval_benchmark.py``, and the synthetic
solutions' geometry."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import pairwise_distances_argmin

from kmdr.coresets.evaluation import convex, meb
from kmdr.papers.ss22.benchmark import BENCHMARK_EPSILONS, BenchmarkSolutions, make_benchmark


@pytest.mark.parametrize(("k", "alpha", "beta"), [(3, 4, 1.0), (4, 3, 2.0), (5, 2, 1.5)])
def test_snapping_is_the_nearest_point_of_the_instance(k, alpha, beta):
    A, _ = make_benchmark(k, alpha, beta)
    solutions = BenchmarkSolutions(A, k)
    points = np.random.default_rng(0).normal(size=(50, A.shape[1]))
    points = np.vstack([points, A[::7]])  # the instance's own rows snap to themselves
    nearest = pairwise_distances_argmin(points, A)  # the authors' snap: the nearest row
    for block in range(alpha):
        assert (solutions.snap(points, block) == (nearest // k**block) % k).all()


def _brute_force(A, k, alpha, points, weights):
    """The authors' loop of eval_benchmark.py, written out: the distortion of each (block, eps)."""
    nearest = pairwise_distances_argmin(points, A)
    out = []
    for a in range(alpha):
        labels = (np.arange(A.shape[0]) // k**a) % k
        for eps in BENCHMARK_EPSILONS:
            means = [
                A[labels == i].mean(axis=0)
                for i in range(k)
                if weights[np.isin(nearest, np.flatnonzero(labels == i))].sum()
                >= (labels == i).sum() * (1 - eps)
            ]
            if not means:
                out.append(0.0)
                continue
            C = np.array(means)
            real = ((A[:, None, :] - C) ** 2).sum(axis=2).min(axis=1).sum()
            core = weights @ ((points[:, None, :] - C) ** 2).sum(axis=2).min(axis=1)
            out.append(max(real / core, core / real))
    return out


@pytest.mark.parametrize(
    "coreset",
    [
        "the whole data",  # every solution costs the same: distortion 1
        "cluster 0 of block 0 left out",  # starved at every eps; the other blocks at eps < 1/3
        "a weighted sample",
        "constructed points",  # means of rows, snapped as the authors snap them
    ],
)
def test_the_benchmark_solutions_are_the_authors(coreset):
    k, alpha = 3, 4
    A, _ = make_benchmark(k, alpha, 1.5)
    rng = np.random.default_rng(1)
    n = A.shape[0]
    if coreset == "the whole data":
        points, weights = A, np.ones(n)
    elif coreset == "cluster 0 of block 0 left out":
        points = A[np.arange(n) % k != 0]
        weights = np.ones(points.shape[0])
    elif coreset == "a weighted sample":
        rows = rng.choice(n, 20, replace=False)
        points, weights = A[rows], rng.uniform(2, 6, 20)
    else:
        groups = rng.integers(0, 15, n)
        points = np.array([A[groups == g].mean(axis=0) for g in range(15)])
        weights = np.bincount(groups, minlength=15).astype(float)
    got = BenchmarkSolutions(A, k).distortions(points, weights)
    expected = _brute_force(A, k, alpha, points, weights)
    assert [g["distortion"] for g in got] == pytest.approx(expected, rel=1e-12)
    if coreset == "the whole data":
        assert [g["distortion"] for g in got] == pytest.approx([1.0] * len(got))
    if coreset == "cluster 0 of block 0 left out":
        n_centers = [g["n_centers"] for g in got]
        assert n_centers[: len(BENCHMARK_EPSILONS)] == [k - 1] * len(BENCHMARK_EPSILONS)
        # the other blocks hold 2/3 of each cluster: kept at eps = 0.5 only
        assert n_centers[len(BENCHMARK_EPSILONS) :] == [0, 0, 0, 0, k] * (alpha - 1)


def test_a_convex_solution_is_on_segments_between_the_seeding_centers():
    rng = np.random.RandomState(0)
    centers = rng.normal(size=(4, 6))
    for point in convex(centers, 10, rng):
        # some pair (i, j) and t in [0, 1] with point = t c_i + (1 - t) c_j
        on_a_segment = False
        for i in range(4):
            for j in range(4):
                d = centers[i] - centers[j]
                t = 1.0 if not d.any() else float((point - centers[j]) @ d / (d @ d))
                on = np.allclose(point, t * centers[i] + (1 - t) * centers[j])
                on_a_segment |= on and -1e-12 <= t <= 1 + 1e-12
        assert on_a_segment


def test_meb_points_are_drawn_as_the_authors_draw_them_for_dense_and_sparse_points():
    rng = np.random.default_rng(2)
    points = rng.normal(size=(40, 8)) + 10.0
    dense = meb(points, 6, np.random.RandomState(3))
    sparse = meb(sp.csr_matrix(points), 6, np.random.RandomState(3))
    np.testing.assert_allclose(sparse, dense, rtol=1e-12)
    # their points are length * u / ||u||: within the radius of the origin, whatever the center
    diameter = np.sqrt(((points[:, None] - points) ** 2).sum(axis=2).max())
    assert (np.linalg.norm(dense, axis=1) <= diameter).all()
