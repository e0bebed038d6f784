"""dss24's datasets: the synthetic generators' shapes, seeding and the properties the paper's
text gives each, the authors' Benchmark variant block by block against ss22's Benchmark, the
datasets kmdr declares for them (labels, k, one-line errors, row blocks), and the real datasets'
readers and refusals offline."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import kmdr.datasets as kd
from _data import pin
from kmdr.datasets._base import UNLABELED
from kmdr.datasets._validate import check_dataset
from kmdr.datasets.blocks import load_blocks
from kmdr.papers.dss24 import datasets as D
from kmdr.papers.dss24 import generators as G

#: Each generator at a small size, and the shape it must have.
SHAPES = [
    (G.c_outlier, {"n_samples": 300, "n_features": 7, "n_outliers": 3}, (300, 7)),
    (G.geometric, {"c": 10, "k": 10, "r": 2}, (197, 7)),  # 100+50+25+12+6+3+1: 7 rounds
    (G.geometric, {"c": 10, "k": 10, "r": 3}, (148, 5)),  # 100, 33, 11, 3, 1
    (G.geometric, {"c": 10, "k": 10, "n_features": 10}, (197, 10)),  # the code's k columns
    (G.gaussian_mixture, {"n_samples": 500, "n_features": 4, "n_centers": 6}, (500, 4)),
    (G.benchmark, {"k": 10}, (2**3 + 2**3 + 6**3, 18)),  # k = 2, 2, 6 (10/5, 8/3, the rest)
    (G.benchmark, {"k": 20, "alpha": 2}, (4**2 + 5**2 + 11**2, 22)),
]


@pytest.mark.parametrize(("make", "params", "shape"), SHAPES)
def test_each_generator_has_its_shape(make, params, shape):
    X, labels = make(**params)
    assert X.shape == shape and X.dtype == np.float64 and labels.shape == (shape[0],)


@pytest.mark.parametrize(("make", "params", "shape"), SHAPES)
def test_one_seed_is_one_dataset_and_another_seed_another(make, params, shape):
    first, again, other = (make(**params, seed=s)[0] for s in (3, 3, 4))
    assert np.array_equal(first, again)
    assert not np.allclose(first, other)


@pytest.mark.parametrize(("make", "params", "shape"), SHAPES)
def test_no_generator_touches_numpys_global_state(make, params, shape):
    np.random.seed(0)  # noqa: NPY002 (the legacy global state is what is checked)
    before = np.random.get_state()[1].copy()  # noqa: NPY002
    make(**params)
    assert np.array_equal(np.random.get_state()[1], before)  # noqa: NPY002


@pytest.mark.parametrize(
    ("noise", "low", "high"),
    [(0.001, 1.0, 1.001), (1.0, 1.0, 2.0)],  # the text's single location; the code's cube
)
def test_c_outlier_puts_all_but_c_points_in_one_place_and_c_far_away(noise, low, high):
    X, outlier = G.c_outlier(1000, 5, n_outliers=4, distance=1000.0, noise=noise, seed=1)
    assert outlier.sum() == 4 and outlier[:4].all()
    inliers = X[~outlier]
    assert inliers.min() >= low and inliers.max() < high
    # every outlier lies beyond 1000 U[0,1)^5's least norm reached by any of 4 draws here
    gaps = np.linalg.norm(X[outlier] - 1.0, axis=1)
    assert gaps.min() > 100 * np.sqrt(5) * (high - low)


@pytest.mark.parametrize(
    ("c", "k", "r", "sizes"),
    [
        (100, 100, 2, [10000, 5000, 2500, 1250, 625, 312, 156, 78, 39, 19, 9, 4, 2, 1]),
        (10, 10, 2, [100, 50, 25, 12, 6, 3, 1]),
        (10, 10, 3, [100, 33, 11, 3, 1]),
        (1, 5, 2, [5, 2, 1]),
    ],
)
def test_geometric_sizes_fall_by_r_each_round_down_to_one_point(c, k, r, sizes):
    assert G.geometric_sizes(c, k, r).tolist() == sizes
    X, vertex = G.geometric(c, k, r, noise=0.001, seed=0)
    assert np.bincount(vertex).tolist() == sizes
    # each point is its vertex's unit vector, up to the noise
    assert np.abs(X - np.eye(len(sizes))[vertex]).max() < 0.001


def test_geometric_at_the_papers_defaults_matches_the_authors_sizes():
    """c = 100, r = 2, k = 100: 14 non-empty rounds of 10,000 halving to 1 (19,995 points), what
    the authors' code's 100 rounds hold too (its later rounds are empty)."""
    sizes = G.geometric_sizes()
    assert sizes.size == 14 and sizes.sum() == 19_995
    assert all(a // 2 == b for a, b in itertools.pairwise(sizes))


@pytest.mark.parametrize("gamma", [0.0, 0.5, 3.0, 5.0, 10.0])
@pytest.mark.parametrize(("n", "kappa"), [(50_000, 50), (1000, 7), (10, 10)])
def test_imbalanced_sizes_sum_to_n(gamma, n, kappa):
    sizes = G.imbalanced_sizes(n, kappa, gamma, np.random.default_rng(0))
    assert sizes.sum() == n and (sizes >= 0).all() and sizes.size == kappa


@pytest.mark.parametrize(("n", "kappa"), [(50_000, 50), (1000, 10), (999, 10)])
def test_gamma_zero_gives_clusters_of_n_over_kappa(n, kappa):
    """The text: every cluster has n / kappa points when gamma = 0 (up to the floor)."""
    sizes = G.imbalanced_sizes(n, kappa, 0.0, np.random.default_rng(0))
    assert sizes.max() - sizes.min() <= 1


def test_the_mixtures_imbalance_grows_with_gamma():
    """The text: as gamma grows the cluster sizes diverge. The spread of the log sizes (the
    clusters that hold a point), averaged over 20 seeds, grows at each of the class-imbalance
    table's gammas."""

    def spread(gamma):
        logs = []
        for seed in range(20):
            sizes = G.imbalanced_sizes(50_000, 50, gamma, np.random.default_rng(seed))
            logs.append(np.std(np.log(sizes[sizes > 0])))
        return np.mean(logs)

    spreads = [spread(g) for g in (0.0, 1.0, 3.0, 5.0)]
    assert spreads[0] < 0.01
    assert all(a < b for a, b in itertools.pairwise(spreads)), spreads


def test_the_mixtures_points_lie_about_their_clusters_centers():
    X, cluster = G.gaussian_mixture(5000, 20, 5, gamma=1.0, seed=2)
    assert np.allclose(X.mean(axis=0), 0.0, atol=2.0)  # centred (then noise of sd 22)
    means = np.array([X[cluster == c].mean(axis=0) for c in np.unique(cluster)])
    within = np.mean([X[cluster == c].var(axis=0).mean() for c in np.unique(cluster)])
    assert within == pytest.approx(500, rel=0.1)  # the code's variance
    # the centers N(0, I) times 1000: far apart against the noise's sd of 22
    gaps = np.linalg.norm(means[:, None] - means[None], axis=2)[np.triu_indices(len(means), 1)]
    assert gaps.min() > 20 * np.sqrt(500)


@pytest.mark.parametrize(("k", "c1", "c2", "ks"), [
    (100, 5, 3, (20, 26, 54)), (50, 5, 3, (10, 13, 27)), (10, 5, 3, (2, 2, 6)),
    (30, 3, 2, (10, 10, 10)),
])  # fmt: skip
def test_benchmark_sizes_follow_the_texts_k1_k2_k3(k, c1, c2, ks):
    assert G.benchmark_sizes(k, c1, c2) == ks and sum(ks) == k


@pytest.mark.parametrize("k", [4, 6])
def test_benchmark_sizes_refuse_a_benchmark_of_k_below_two(k):
    with pytest.raises(ValueError, match="each needs k >= 2"):
        G.benchmark_sizes(k)


@pytest.mark.parametrize(("k", "alpha"), [(10, 3), (20, 3), (20, 2)])
def test_each_third_of_the_variant_is_ss22s_benchmark_offset(k, alpha):
    """The authors' variant stacks Schwiegelshohn and Sheikh-Omar's Benchmark (ss22's
    make_benchmark) at k_1, k_2, k_3, each plus sin(k_i) k_i^2, padded with zeros."""
    from kmdr.papers.ss22.benchmark import make_benchmark

    X, label = G.benchmark(k, alpha, noise=0.0)
    start, first = 0, 0
    for ki in G.benchmark_sizes(k):
        part, digit = make_benchmark(ki, alpha)
        rows = slice(start, start + part.shape[0])
        np.testing.assert_allclose(X[rows, : part.shape[1]], part + np.sin(ki) * ki**2)
        assert not X[rows, part.shape[1] :].any()
        assert np.array_equal(label[rows], first + digit)
        start, first = rows.stop, first + ki
    assert start == X.shape[0] and np.array_equal(np.unique(label), np.arange(k))


@pytest.mark.parametrize(
    ("name", "params", "shape", "k", "labels"),
    [
        ("dss24_c_outlier", {"n_samples": 400, "n_features": 3}, (400, 3), 100, 0),
        ("dss24_geometric", {"c": 10, "k": 10}, (197, 7), 10, 7),
        (
            "dss24_gaussian_mixture",
            {"n_samples": 600, "n_centers": 6, "gamma": 1.0, "k": 12},
            (600, 50),
            12,
            6,
        ),
        ("dss24_benchmark", {"k": 10}, (232, 18), 10, 10),
    ],
)
def test_each_synthetic_dataset_loads_with_its_k_and_labels(name, params, shape, k, labels):
    ds = kd.load_dataset(name, **params)
    assert ds.X.shape == shape and ds.n_clusters == k and ds.description.startswith("SYNTHETIC")
    if labels:
        assert ds.labeled and len(np.unique(ds.y)) == labels
    else:
        assert (ds.y == UNLABELED).all()


@pytest.mark.parametrize("name", sorted(D.SYNTHETIC))
def test_the_defaults_are_the_declared_facts(name):
    entry = kd.dataset_info(name)
    ds = kd.load_dataset(name) if name != "dss24_benchmark" else None  # 237 MB: facts only
    if ds is not None:
        assert (ds.n_samples, ds.n_features, ds.n_clusters) == (
            entry.n_samples, entry.n_features, entry.n_clusters,
        )  # fmt: skip
    assert entry.n_clusters == 100  # the text's k for every artificial dataset


@pytest.mark.parametrize(
    ("name", "params", "said"),
    [
        ("dss24_gaussian_mixture", {"gamma": -1}, "'gamma' must be a number >= 0.0"),
        ("dss24_gaussian_mixture", {"n_centers": 0}, "'n_centers' must be an integer >= 1"),
        ("dss24_c_outlier", {"k": 1}, "'k' must be an integer >= 2"),
        ("dss24_c_outlier", {"n_outliers": 50, "n_samples": 50}, "'n_outliers' must be at least"),
        ("dss24_geometric", {"r": 1}, "'r' must be an integer >= 2"),
        ("dss24_geometric", {"n_features": 3}, "at least the 14 rounds"),
        ("dss24_benchmark", {"k": 4}, "each needs k >= 2"),
        ("dss24_benchmark", {"beta": 2}, "unknown parameters ['beta']"),
    ],
)
def test_a_bad_parameter_is_one_line(name, params, said):
    with pytest.raises(kd.DatasetError) as err:
        kd.load_dataset(name, **params)
    assert said in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("name", "params", "rows"),
    [("dss24_gaussian_mixture", {"n_samples": 1000, "n_centers": 5}, 300),
     ("dss24_geometric", {"c": 10, "k": 10}, 64)],
)  # fmt: skip
def test_row_blocks_are_the_rows_of_the_whole(name, params, rows):
    """kmdr's row blocks (merge-and-reduce over blocks) cut the generated data: block i is rows
    i*rows .. of the dataset, labels included."""
    whole = kd.load_dataset(name, **params)
    blocks = load_blocks(name, rows=rows, **params)
    assert blocks.n_blocks == -(-whole.n_samples // rows)
    assert np.array_equal(np.vstack(list(blocks.blocks())), whole.X)
    labels = [blocks.block_labels(i) for i in range(blocks.n_blocks)]
    assert np.array_equal(np.concatenate(labels), whole.y)


@pytest.fixture
def offline(tmp_path, monkeypatch):
    """An empty data cache and an empty mirror: the real ones are not read."""
    (tmp_path / "mirror").mkdir()
    monkeypatch.setenv(kd.DATA_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(kd.MIRROR_ENV, str(tmp_path / "mirror"))
    return tmp_path


@pytest.mark.parametrize(
    ("name", "rel"),
    [("dss24_adult", D.ADULT_FILE), ("dss24_song", D.SONG_FILE), ("dss24_census", D.CENSUS_FILE)],
)
def test_a_file_without_a_public_checksum_is_refused_in_one_line(offline, name, rel):
    assert kd.registry()[rel].known_hash is None
    with pytest.raises(kd.DatasetUnavailable, match="has no pinned hash") as err:
        kd.load_dataset(name)
    assert rel in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(("name", "rel"), [("dss24_mnist", D.MNIST_FILES[0]),
                                           ("dss24_covertype", D.COVERTYPE_FILE)])  # fmt: skip
def test_mnist_and_cover_type_are_pinned_to_download(offline, name, rel):
    entry = kd.registry()[rel]
    assert entry.known_hash is not None
    assert kd.availability(name) == ("download", f"{name}: {rel} to download from {entry.url}")


@pytest.mark.parametrize("path", [D.MNIST_FILES, (D.COVERTYPE_FILE,), (D.CENSUS_FILE,)])
def test_real_data_reuses_the_files_pinned_for_the_other_papers(path):
    """MNIST (pb17's), Cover Type and Census (ss22's): one registry line each, no copy."""
    lines = [p for p in kd.registry() if p in path]
    assert sorted(lines) == sorted(path)


ADULT = (
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, "
    "Male, 2174, 0, 40, United-States, <=50K\n"
    "50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, "
    "White, Male, 0, 0, 13, United-States, <=50K\n"
    "38, Private, 215646, HS-grad, 9, Divorced, Handlers-cleaners, Not-in-family, White, Male, 0, "
    "0, 40, United-States, >50K\n"
)


def test_read_adult_keeps_whole_categories_as_codes(tmp_path):
    path = tmp_path / "adult.data"
    path.write_text(ADULT)
    X = D.read_adult(path)
    assert X.shape == (3, 14)
    assert X[:, 0].tolist() == [39, 50, 38] and X[:, 2].tolist() == [77516, 83311, 215646]
    # workclass: Private < Self-emp-not-inc < State-gov (sorted); the authors' one-character
    # cells would merge the two categories that start with "S"
    assert X[:, 1].tolist() == [2, 1, 0]


def test_a_pinned_adult_loads_unlabeled_at_its_k(tmp_path, monkeypatch):
    """What a user who pinned a checked copy of adult.data gets (the entry's sizes are the real
    file's, so its loader is called directly)."""
    path = tmp_path / D.ADULT_FILE
    path.parent.mkdir(parents=True)
    path.write_text(ADULT)
    pin(monkeypatch, D.ADULT_FILE, path)
    ds = kd.dataset_info("dss24_adult").loader(data_dir=tmp_path, mirror=None, k=2)
    ds = check_dataset(ds, "dss24_adult", "")
    assert ds.X.shape == (3, 14) and ds.n_clusters == 2 and not ds.labeled


def test_read_song_drops_the_year(tmp_path):
    path = tmp_path / "YearPredictionMSD.txt"
    rows = [[2001 + i, *np.arange(90) + i] for i in range(3)]
    path.write_text("".join(",".join(map(str, r)) + "\n" for r in rows))
    X = D.read_song(path)
    assert X.shape == (3, 90) and X[2, 0] == 2 and X[0, 89] == 89


@pytest.mark.parametrize(("read", "text"), [(D.read_adult, "1,2,3\n"), (D.read_song, "1,2\n")])
def test_a_file_of_another_format_is_one_line(read, text, tmp_path):
    path = tmp_path / "f.txt"
    path.write_text(text)
    with pytest.raises(ValueError, match="columns, expected"):
        read(path)
