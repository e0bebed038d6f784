"""The rough solution of sensitivity and group sampling, against the authors' code
(sheikhomar/eval-k-means-coresets, ``ClusterAssignmentList::assignAll``): explicit differences,
the seeds in row order, a strict ``<`` (a tie to the seed of the lowest row index), the distance
stored; and the constructions' use of the distance where kmdr's variants use its square."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs

from kmdr.coresets import make_coreset
from kmdr.coresets._bicriteria import bicriteria, nearest_seed
from kmdr.coresets._ray_maker import _nearest_ray
from kmdr.coresets._seeding import seeding_loop
from kmdr.papers.ss22.benchmark import make_benchmark


def assign_all(X, seed_rows):
    """A transcription of the authors' loop: seeds copied in increasing row order, each row's
    Euclidean distance by explicit differences, the first strictly smaller kept."""
    centers = X[sorted(seed_rows)]
    labels, distances = [], []
    for p in range(X.shape[0]):
        best, best_c = np.finfo(float).max, 0
        for c in range(centers.shape[0]):
            distance = math.sqrt(sum((a - b) ** 2 for a, b in zip(X[p], centers[c], strict=True)))
            if distance < best:
                best, best_c = distance, c
        labels.append(best_c)
        distances.append(best)
    return np.array(labels), np.array(distances)


def _benchmark(k, alpha):
    return make_benchmark(k, alpha)[0]


def _grid(seed):
    # small integers: many rows equidistant from several seeds, every distance exact
    return np.random.default_rng(seed).integers(0, 3, size=(300, 4)).astype(float)


def _blobs(seed):
    return make_blobs(300, 5, centers=4, random_state=seed)[0]


#: (data, seed rows, whether the data has exact ties): the Benchmark (equidistant points, with
#: the authors' coordinates (k - 1)/k and -1/k), an integer grid, and blobs (no ties)
CASES = [
    ("benchmark k=4", _benchmark(4, 3), [50, 3, 17, 40, 9, 33], True),
    ("benchmark k=5", _benchmark(5, 2), [24, 0, 7, 12], True),
    ("grid", _grid(0), [290, 5, 120, 64, 7, 200], True),
    ("blobs", _blobs(0), [299, 3, 150, 42], False),
]


@pytest.mark.parametrize("name,X,seeds,ties", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("sparse", [False, True])
def test_the_assignment_is_the_authors_loop(name, X, seeds, ties, sparse):
    expected_labels, expected = assign_all(X, seeds)
    centers = X[sorted(seeds)]
    labels, sq_dist = nearest_seed(sp.csr_array(X) if sparse else X, centers)
    np.testing.assert_array_equal(labels, expected_labels)
    np.testing.assert_allclose(np.sqrt(sq_dist), expected, rtol=1e-12, atol=1e-12)
    if ties:  # the data do tie: the rule decided something
        d2 = ((X[:, None, :] - centers[None]) ** 2).sum(-1)
        assert ((d2 == d2.min(1, keepdims=True)).sum(1) > 1).any()
    # a seed is at distance exactly 0 from itself
    assert (sq_dist[sorted(seeds)] == 0).all()


def test_the_rough_solution_numbers_clusters_by_the_seeds_row_order():
    X = _blobs(1)
    labels, dist = bicriteria(X, np.ones(len(X)), 6, np.random.RandomState(0))
    expected_labels, expected = assign_all(X, np.unique([i for i in range(len(X)) if dist[i] == 0]))
    np.testing.assert_array_equal(labels, expected_labels)
    np.testing.assert_allclose(dist, expected, rtol=1e-12, atol=1e-12)
    _, sq = bicriteria(X, np.ones(len(X)), 6, np.random.RandomState(0), squared=True)
    np.testing.assert_allclose(sq, dist**2, rtol=1e-12, atol=1e-12)


#: (construction, whether its costs are squared distances)
SENSITIVITY = [("sensitivity", False), ("sensitivity_squared", True)]


@pytest.mark.parametrize("name,squared", SENSITIVITY)
def test_sensitivity_draws_in_proportion_to_its_cost(name, squared):
    # a drawn row weighs cost(A) / (m cost(p, A)) per draw: weight * cost * m / cost(A) counts
    # its draws, a whole number, for the cost the construction uses and not for the other
    X = _blobs(2)
    n, k, m = X.shape[0], 4, 60
    cs = make_coreset(name, n_clusters=k, coreset_size=m, random_state=5).fit(X)
    _, dist = bicriteria(X, np.ones(n), 2 * k, np.random.RandomState(5))
    sampled = cs.indices_ >= 0
    for cost, used in ((dist**2, squared), (dist, not squared)):
        draws = cs.weights_[sampled] * cost[cs.indices_[sampled]] * m / cost.sum()
        assert np.allclose(draws, np.round(draws), rtol=1e-9) == used
        if used:
            assert np.round(draws).sum() == m


@pytest.mark.parametrize("name", ["group", "sensitivity"])
def test_the_squared_variant_shares_the_rough_solution_and_differs_after_it(name):
    X = _blobs(3)
    a = make_coreset(name, n_clusters=4, coreset_size=80, random_state=1).fit(X)
    b = make_coreset(f"{name}_squared", n_clusters=4, coreset_size=80, random_state=1).fit(X)
    # the centers are means of the clusters of one rough solution
    labels, _ = bicriteria(X, np.ones(len(X)), 8, np.random.RandomState(1))
    means = np.array([X[labels == c].mean(axis=0) for c in range(labels.max() + 1)])
    for cs in (a, b):
        for center in cs.points_[cs.indices_ < 0]:
            assert np.isclose(means, center).all(axis=1).any()
    assert a.compat_version == b.compat_version == 2
    assert not (np.array_equal(a.indices_, b.indices_) and np.allclose(a.weights_, b.weights_))


def seeding_owners(X, seeds):
    """A transcription of the authors' seeding loop's updates, given the seeds it picked: the
    squared distance ``(|x|^2 + |c|^2) - 2 x.c`` with every sum column by column (zero terms
    skipped), 0 for a row and itself, a row moving to a seed only when strictly nearer."""
    n, d = X.shape
    sq = [sum(v * v for v in X[p] if v != 0.0) for p in range(n)]
    smallest, owner = [np.finfo(float).max] * n, [-1] * n
    for center in seeds:
        for p in range(n):
            dot = 0.0
            for j in range(d):
                if X[p, j] != 0.0 and X[center, j] != 0.0:
                    dot += X[p, j] * X[center, j]
            distance = 0.0 if p == center else sq[p] + sq[center] - 2 * dot
            if distance < smallest[p]:
                smallest[p], owner[p] = distance, center
    return np.array(owner)


#: (data, seeds): the Benchmark (its rounding decides its ties), an integer grid, blobs
LOOPS = [
    ("benchmark k=4", _benchmark(4, 3), 8),
    ("benchmark k=5", _benchmark(5, 2), 6),
    ("grid", _grid(1), 7),
    ("blobs", _blobs(4), 5),
]


@pytest.mark.parametrize("name,X,n_seeds", LOOPS, ids=[c[0] for c in LOOPS])
@pytest.mark.parametrize("sparse", [False, True])
def test_the_seeding_loop_assigns_as_the_authors_loop(name, X, n_seeds, sparse):
    data = sp.csr_array(X) if sparse else X
    seeds, owner = seeding_loop(data, np.ones(len(X)), n_seeds, np.random.RandomState(2))
    assert len(seeds) == n_seeds and len(set(seeds.tolist())) == n_seeds
    np.testing.assert_array_equal(owner, seeding_owners(X, seeds))


@pytest.mark.parametrize("name,X,n_seeds", LOOPS, ids=[c[0] for c in LOOPS])
def test_streamkm_weighs_each_seed_by_the_rows_its_loop_left_it(name, X, n_seeds):
    cs = make_coreset("streamkm", n_clusters=2, coreset_size=n_seeds, random_state=3).fit(X)
    _, owner = seeding_loop(X, np.ones(len(X)), n_seeds, np.random.RandomState(3))
    rows, counts = np.unique(owner, return_counts=True)
    np.testing.assert_array_equal(cs.indices_, rows)
    np.testing.assert_array_equal(cs.weights_, counts)


def nearest_ray(offsets, directions):
    """A transcription of the authors' ``createRays`` loop: each row's position along each line,
    its distance by explicit differences, the first line strictly nearest."""
    out, positions = [], []
    for x in offsets:
        best, best_r, best_len = np.finfo(float).max, 0, np.finfo(float).max
        for r, u in enumerate(directions):
            length = sum(a * b for a, b in zip(x, u, strict=True)) / sum(b * b for b in u)
            distance = math.sqrt(sum((length * b - a) ** 2 for a, b in zip(x, u, strict=True)))
            if distance < best:
                best, best_r, best_len = distance, r, length
        out.append(best_r)
        positions.append(best_len)
    return np.array(out), np.array(positions)


#: (offsets, directions): rows at the seed (every line at distance 0), rows on a line, rows
#: symmetric about two lines (equidistant), and random rows
RAYS = [
    ("at the seed", np.zeros((4, 3)), np.eye(3)[[1, 0, 2]]),
    ("on lines", np.array([[0.0, 2, 0], [3, 0, 0], [0, 0, -1]]), np.eye(3)),
    ("symmetric", np.array([[1.0, 1, 0], [2, 2, 0], [1, 1, 1]]), np.eye(3)),
    ("random", np.random.default_rng(0).standard_normal((50, 4)),
     np.random.default_rng(1).standard_normal((5, 4))),
]  # fmt: skip


@pytest.mark.parametrize("name,offsets,directions", RAYS, ids=[c[0] for c in RAYS])
def test_ray_maker_picks_the_nearest_line_as_the_authors_loop(name, offsets, directions):
    directions = directions / np.linalg.norm(directions, axis=1, keepdims=True)
    nearest, lengths = _nearest_ray(offsets, directions)
    expected, expected_lengths = nearest_ray(offsets, directions)
    np.testing.assert_array_equal(nearest, expected)
    np.testing.assert_allclose(lengths, expected_lengths, rtol=1e-12, atol=1e-12)
