"""Ray Maker where its coreset would be empty: refused in one line, as the authors' code would
return nothing there; and the smallest sizes above that still give points."""

import numpy as np
import pytest

from kmdr.coresets import make_coreset

RNG = np.random.default_rng(0)
#: ORL's shape, smaller rows: 400 faces of 40 people, k = 40
FACES = RNG.normal(size=(400, 64))
#: two far pairs: k = 1 seeds 2 clusters of two rows, each line cut into two groups of one
PAIRS = np.array([[0.0], [0.1], [10.0], [10.1]])


@pytest.mark.parametrize(
    ("X", "k", "m", "message"),
    [
        (FACES, 40, 80, "needs coreset_size above its 80 clusters .* got 80"),  # m = 2k, ORL's
        (FACES, 40, 40, "needs coreset_size above its 80 clusters .* got 40"),  # m = k
        (FACES[:60], 40, 60, "above its 60 clusters .* got 60"),  # n < 2k: one seed a row
        # m / 2k = 1.05 and about ten rows to a line: a line's share of it is one group
        (FACES, 10, 21, "ray_maker's coreset is empty: every group .* holds one row"),
        (PAIRS, 1, 3, "ray_maker's coreset is empty: every group .* holds one row"),
    ],
)
def test_an_empty_coreset_is_refused_in_one_line(X, k, m, message):
    with pytest.raises(ValueError, match=message) as caught:
        make_coreset("ray_maker", n_clusters=k, coreset_size=m, random_state=0).fit(X)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("k", "m"), [(40, 81), (40, 120), (40, 200), (10, 40)])
def test_above_2k_the_coreset_has_points(k, m):
    cs = make_coreset("ray_maker", n_clusters=k, coreset_size=m, random_state=0).fit(FACES)
    assert cs.points_.shape[0] >= 1
    # rows in lines and groups too small to cut give no point: the weights add up to at most n
    assert 0 < cs.weights_.sum() <= len(FACES)


def test_a_seed_no_row_is_nearest_to_gives_no_point():
    # five distinct rows, 2k = 10 seeds: the seeds after the fifth repeat a row, and their
    # clusters are empty (this failed on an empty argmin before)
    X = np.repeat(np.arange(5.0)[:, None], 40, axis=0) @ np.ones((1, 2))
    cs = make_coreset("ray_maker", n_clusters=5, coreset_size=50, random_state=0).fit(X)
    rows = np.unique(X, axis=0)
    np.testing.assert_allclose(np.unique(cs.points_, axis=0), rows)
    assert cs.weights_.sum() == len(X)
