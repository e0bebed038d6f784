"""The authors' code's constructions (Draganov, Saulpic, Schwiegelshohn, SIGMOD 2024; the
repository Andrew-Draganov/Fast-Coreset-Generation): Fast-kmeans++'s tree distances as their
``set_all_dists`` and ``hst_dist`` give them, against a brute-force replay on explicit cells;
the wrong-depth effect; and the code variants' contract, from tables."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils._param_validation import InvalidParameterError

from kmdr.coresets import make_coreset
from kmdr.coresets._fast_coreset_code import (
    FastCoresetCode,
    WelterweightCoresetCode,
    code_sensitivities,
)
from kmdr.coresets._fast_kmeanspp import N_LEVELS, fast_kmeanspp
from kmdr.papers.dss24.code_vs_text import exact_tree_costs

CODE_NAMES = ["fast_coreset_code", "welterweight_code"]


def _cells(X, trees, t, depth):
    """Each row's cell at ``depth`` in tree t, as a hashable key."""
    u = (X - trees.low + trees.shifts[t]) / trees.width
    grid = np.minimum(np.floor(u * 2.0**N_LEVELS), 2.0**N_LEVELS - 1).astype(np.int64)
    return [tuple(row) for row in grid >> (N_LEVELS - depth)]


def authors_replay(X, trees, centers, mode):
    """The authors' multi-tree seeding replayed for the given centers on explicit, uncompressed
    cells (each tree split down to cells of one row). For each tree and center: mark the
    center's cells up from its own to the highest without an earlier center (depth ``top``);
    every row in that cell gets, if smaller than its cost, the distance ``tree_dist(depth)``
    (``4 D (2^-depth - 2^-max_depth)``, squared) at the depth the mode reads:

    - "set_all_dists": the walk down from the top cell counts depth from 0 there, and the last
      step on the row's way down whose cell at that count is the center's sets the distance;
    - "hst_dist": one below the rows' lowest common cell;
    - "right_depth": the lowest common cell's own depth (set_all_dists' formula, right depth).
    """
    n, d = X.shape
    cost, labels = np.full(n, np.inf), np.full(n, -1)
    trees_cells = []
    for t in range(trees.shifts.shape[0]):
        cells = [_cells(X, trees, t, depth) for depth in range(N_LEVELS + 1)]
        alone = [min(depth for depth in range(N_LEVELS + 1)
                     if sum(cells[depth][j] == cells[depth][i] for j in range(n)) == 1)
                 for i in range(n)]  # fmt: skip
        trees_cells.append((cells, np.array(alone), set()))
    for index, c in enumerate(centers):
        for cells, leaf_depth, marked in trees_cells:

            def same(r, depth, cells=cells, c=c):
                return cells[depth][r] == cells[depth][c]

            def tree_dist(depth, leaf_depth=leaf_depth):
                return (4 * np.sqrt(d) * trees.width * (0.5**depth - 0.5 ** leaf_depth.max())) ** 2

            top = leaf_depth[c]
            while top >= 0 and (top, cells[top][c]) not in marked:
                marked.add((top, cells[top][c]))
                top -= 1
            top += 1
            for r in range(n):
                if not same(r, top):
                    continue
                lca = max(depth for depth in range(N_LEVELS + 1) if same(r, depth))
                if r == c:
                    dist = 0.0
                elif mode == "hst_dist":
                    dist = tree_dist(lca + 1)
                elif mode == "right_depth":
                    dist = tree_dist(lca)
                else:
                    dist = 0.0
                    for step in range(leaf_depth[r] - top):
                        if step < leaf_depth[c] and same(r, step):
                            dist = tree_dist(step)
                if dist < cost[r]:
                    cost[r], labels[r] = dist, index
    return cost, labels


def _instance(n, d, seed):
    rng = np.random.RandomState(seed)
    return rng.uniform(size=(n, d)) * rng.uniform(0.5, 3, size=d)


@pytest.mark.parametrize(
    ("n", "d", "n_centers", "seed", "distances"),
    [(25, 2, 6, 0, "set_all_dists"), (30, 3, 8, 1, "set_all_dists"), (20, 1, 5, 2, "set_all_dists"),
     (25, 2, 6, 0, "hst_dist"), (30, 3, 8, 1, "hst_dist"), (16, 4, 1, 3, "set_all_dists")],
)  # fmt: skip
def test_tree_distances_equal_the_authors_walk_replayed_on_explicit_cells(
    n, d, n_centers, seed, distances
):
    X = _instance(n, d, seed)
    seeding = fast_kmeanspp(X, n_centers, random_state=seed, distances=distances)
    cost, labels = authors_replay(X, seeding.trees, seeding.centers, distances)
    np.testing.assert_allclose(seeding.sq_distances, cost, rtol=1e-12)
    np.testing.assert_array_equal(seeding.labels, labels)


@pytest.mark.parametrize(("n", "d", "n_centers", "seed"), [(40, 2, 8, 4), (30, 1, 6, 5)])
def test_set_all_dists_overestimates_after_the_first_center_only(n, d, n_centers, seed):
    X = _instance(n, d, seed)
    seeding = fast_kmeanspp(X, n_centers, random_state=seed, distances="set_all_dists")
    right, _ = authors_replay(X, seeding.trees, seeding.centers, "right_depth")
    first, _ = authors_replay(X, seeding.trees, seeding.centers[:1], "set_all_dists")
    first_right, _ = authors_replay(X, seeding.trees, seeding.centers[:1], "right_depth")
    np.testing.assert_allclose(first, first_right, rtol=1e-12)  # one center: the right depth
    assert np.all(seeding.sq_distances >= right * (1 - 1e-12))
    assert seeding.sq_distances.sum() > 1.05 * right.sum()
    # the script's brute force over the cells gives the replay's right-depth distances
    np.testing.assert_allclose(exact_tree_costs(X, seeding, "set_all_dists"), right, rtol=1e-12)


@pytest.mark.parametrize(
    ("labels", "costs", "alpha", "expected"),
    [([0, 0, 1], [1.0, 3.0, 0.0], 10.0, [3.0, 8.0, 1.0]),  # 10 * share + 1 / |C|
     ([0, 0, 1], [1.0, 3.0, 0.0], 1.0, [0.75, 1.25, 1.0]),
     ([1, 1, 1, 0], [0.0, 0.0, 0.0, 2.0], 10.0, [1 / 3, 1 / 3, 1 / 3, 11.0])],  # cost 0: 1/|C|
)  # fmt: skip
def test_code_sensitivities_are_bound_sensitivities(labels, costs, alpha, expected):
    got = code_sensitivities(np.array(labels), np.array(costs), alpha)
    np.testing.assert_allclose(got, np.array(expected) / np.sum(expected))


def _blobs(sparse, weighted):
    rng = np.random.RandomState(0)
    X = np.vstack([rng.normal(loc, 1.0, size=(100, 6)) for loc in (-8, 0, 8)])
    X[:, 3:] = np.where(rng.uniform(size=(300, 3)) < 0.5, 0.0, X[:, 3:])  # sparse enough
    weight = rng.uniform(0.5, 2, size=300) if weighted else None
    return (sp.csr_matrix(X) if sparse else X), X, weight


@pytest.mark.parametrize("name", CODE_NAMES)
@pytest.mark.parametrize(("sparse", "weighted"), [(False, False), (True, False), (False, True)])
def test_code_variants_draw_m_rows_without_replacement_weighing_the_data(name, sparse, weighted):
    data, dense, weight = _blobs(sparse, weighted)
    coreset = make_coreset(name, n_clusters=3, coreset_size=60, random_state=1)
    coreset.fit(data, sample_weight=weight)
    assert coreset.points_.shape == (60, 6) and np.unique(coreset.indices_).size == 60
    total = 300.0 if weight is None else weight.sum()
    assert coreset.weights_.sum() == pytest.approx(total)
    points = coreset.composition_ @ dense
    np.testing.assert_allclose(points, dense[coreset.indices_])
    same = make_coreset(name, n_clusters=3, coreset_size=60, random_state=1)
    other = same.fit(dense if sparse else sp.csr_matrix(dense), sample_weight=weight)
    np.testing.assert_array_equal(other.indices_, coreset.indices_)  # dense and sparse alike


@pytest.mark.parametrize(
    ("params", "n_centers"),
    [({}, 6), ({"seeds_per_cluster": 1}, 3), ({"tree_distances": "hst_dist"}, 6),
     ({"tree_distances": "cells", "n_trees": 1}, 6)],
)  # fmt: skip
def test_fast_coreset_code_opens_its_centers(params, n_centers):
    _, X, _ = _blobs(False, False)
    coreset = FastCoresetCode(n_clusters=3, coreset_size=50, random_state=0, **params).fit(X)
    assert coreset.centers_.size == n_centers and coreset.tree_cost_ > 0


@pytest.mark.parametrize(
    ("j", "k", "j_", "n_seeds"),
    [(2, 10, 2, 5), ("log", 20, 2, 5), ("sqrt", 20, 4, 9), (1, 3, 1, 3)],
)
def test_welterweight_code_seeds_2j_plus_1(j, k, j_, n_seeds):
    _, X, _ = _blobs(False, False)
    coreset = WelterweightCoresetCode(n_clusters=k, coreset_size=60, j=j, random_state=0).fit(X)
    assert coreset.j_ == j_ and coreset.seeds_.size == n_seeds


@pytest.mark.parametrize(
    ("cls", "params"),
    [(FastCoresetCode, {"tree_distances": "exact"}), (FastCoresetCode, {"alpha": -1.0}),
     (WelterweightCoresetCode, {"j": 0}), (WelterweightCoresetCode, {"j": "half"})],
)  # fmt: skip
def test_code_variants_refuse_bad_parameters(cls, params):
    _, X, _ = _blobs(False, False)
    with pytest.raises(InvalidParameterError):
        cls(n_clusters=3, coreset_size=50, **params).fit(X)


def test_tree_distance_modes_draw_the_same_first_center_and_refuse_unknown_ones():
    X = _instance(50, 2, 7)
    first = {m: fast_kmeanspp(X, 3, random_state=0, distances=m).centers[0]
             for m in ("cells", "hst_dist", "set_all_dists")}  # fmt: skip
    assert len(set(first.values())) == 1
    with pytest.raises(ValueError, match="distances="):
        fast_kmeanspp(X, 3, random_state=0, distances="exact")
