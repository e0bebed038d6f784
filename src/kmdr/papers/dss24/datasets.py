"""The datasets of Draganov, Saulpic and Schwiegelshohn (SIGMOD 2024) as datasets of kmdr's.

Synthetic (:mod:`.generators`, each seeded; the text's n = 50,000 and d = 50 and k = 100 are
the defaults): ``dss24_c_outlier``, ``dss24_geometric``, ``dss24_gaussian_mixture`` (its
imbalance ``gamma``; the code's 5 is the default, the class-imbalance table's 0, 1, 3, 5 are
``dataset.params.gamma``) and ``dss24_benchmark``, the authors' variant of Schwiegelshohn and
Sheikh-Omar's Benchmark (three Benchmarks of k_1, k_2, k_3 with k_1 + k_2 + k_3 = k, offset
and stacked: not the instance ``ss22_benchmark`` is, whose k**alpha rows are one Benchmark).
Each takes ``k``, the k of its clustering: the text's k = 100 for every synthetic dataset, as
the dataset's ``n_clusters``. The mixture is labelled by its Gaussian clusters, the geometric
instance by its vertices and the Benchmark by its first block's digit (k classes); the
c-outlier instance has no classes (UNLABELED: only the k-means objective is scored).

Real: the text's Table of real datasets at the text's k (100 for Adult and MNIST, 500 for
Song, Cover Type and Census), each read from the files kmdr already pins for another paper or
pinned in kmdr's data registry, never a second copy:

- ``dss24_mnist``: MNIST's training set (60,000 x 784, the text's size; the authors' loader reads
  ``load_training``), labelled by digit, k = 100; read from pb17's dataset ``mnist`` (its four IDX
  files, pinned by their md5 sums), whose first 60,000 rows are the training set;
- ``dss24_covertype``: Cover Type (581,012 x 54), unlabeled, k = 500; read from ss22's dataset
  ``ss22_covertype`` (UCI's file, pinned by scikit-learn's sha256). The authors' loader cannot
  read it (it puts the 53 values of columns 1 to 53 into rows of 54);
- ``dss24_census``: USCensus1990 (2,458,285 x 68), unlabeled, k = 500; read from ss22's
  ``ss22_census``, whose file has no public checksum: refused in one line until a user pins it;
- ``dss24_adult`` (UCI's ``adult.data``) and ``dss24_song`` (UCI's YearPredictionMSD): no
  public checksum of either file, so kmdr refuses them in one line, as it does Census.

The authors' loaders change the real data in ways the text does not say: Adult's and Census's
(``load_categorical_dataset``) replace every column by the rank of its value and add uniform
noise of 1e-5, and read Adult's strings into one-character cells (every category cut to its
first letter); Song's drops duplicate rows and rescales each column to [0, 1]. The text only
says uniform noise of at most 0.001 is added "in all real and artificial datasets". kmdr reads
the files' values as they are (Adult's categories as their codes in sorted order, not cut) and
adds no noise to real data: the noise only makes points distinct for the authors' tree
embedding, and MNIST's own loader adds none.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from kmdr.datasets import Dataset, DatasetEntry, DatasetUnavailable, fetch, load_dataset
from kmdr.datasets._base import UNLABELED
from kmdr.datasets._params import GeneratorParams, float_param, int_param
from kmdr.papers.dss24 import generators

__all__ = [
    "ADULT",
    "BENCHMARK",
    "CENSUS",
    "COVERTYPE",
    "C_OUTLIER",
    "GAUSSIAN_MIXTURE",
    "GEOMETRIC",
    "MNIST",
    "REAL",
    "SONG",
    "SYNTHETIC",
    "BenchmarkParams",
    "COutlierParams",
    "GaussianMixtureParams",
    "GeometricParams",
    "read_adult",
    "read_song",
]

#: The text's k: 100 for the artificial datasets, Adult and MNIST; 500 for the larger ones.
SMALL_K, LARGE_K = 100, 500
ADULT_FILE = "adult/adult.data"
SONG_FILE = "song/YearPredictionMSD.txt.zip"
#: The registry files of the datasets read through another paper's declaration (their files).
MNIST_FILES = (
    "mnist/train-images-idx3-ubyte.gz",
    "mnist/train-labels-idx1-ubyte.gz",
    "mnist/t10k-images-idx3-ubyte.gz",
    "mnist/t10k-labels-idx1-ubyte.gz",
)
COVERTYPE_FILE = "covertype/covtype.data.gz"
CENSUS_FILE = "census/USCensus1990.data.txt"
MNIST_TRAIN = 60_000


def _k(value) -> int:
    k = int_param("k", value, minimum=2)
    return k


@dataclasses.dataclass
class COutlierParams(GeneratorParams):
    """``dss24_c_outlier``: :func:`~.generators.c_outlier`'s parameters and the k."""

    n_samples: int = 50_000
    n_features: int = 50
    n_outliers: int = 5
    distance: float = 1000.0
    noise: float = 0.001
    k: int = SMALL_K
    seed: int = 0

    def _check(self) -> None:
        self.n_samples = int_param("n_samples", self.n_samples, minimum=2)
        self.n_features = int_param("n_features", self.n_features)
        self.n_outliers = int_param("n_outliers", self.n_outliers)
        self.distance = float_param("distance", self.distance, 0.0)
        self.noise = float_param("noise", self.noise, 0.0, open_low=False)
        self.k = _k(self.k)
        self.seed = int_param("seed", self.seed, minimum=0)


@dataclasses.dataclass
class GeometricParams(GeneratorParams):
    """``dss24_geometric``: :func:`~.generators.geometric`'s parameters (its k is the
    clustering's too)."""

    c: int = 100
    k: int = SMALL_K
    r: int = 2
    n_features: int = 0
    noise: float = 0.001
    seed: int = 0

    def _check(self) -> None:
        self.c = int_param("c", self.c)
        self.k = _k(self.k)
        self.r = int_param("r", self.r, minimum=2)
        self.n_features = int_param("n_features", self.n_features, minimum=0)
        self.noise = float_param("noise", self.noise, 0.0, open_low=False)
        self.seed = int_param("seed", self.seed, minimum=0)


@dataclasses.dataclass
class GaussianMixtureParams(GeneratorParams):
    """``dss24_gaussian_mixture``: :func:`~.generators.gaussian_mixture`'s parameters and the
    k."""

    n_samples: int = 50_000
    n_features: int = 50
    n_centers: int = 50
    gamma: float = 5.0
    scale: float = 1000.0
    variance: float = 500.0
    noise: float = 0.001
    k: int = SMALL_K
    seed: int = 0

    def _check(self) -> None:
        self.n_samples = int_param("n_samples", self.n_samples, minimum=2)
        self.n_features = int_param("n_features", self.n_features)
        self.n_centers = int_param("n_centers", self.n_centers)
        self.gamma = float_param("gamma", self.gamma, 0.0, open_low=False)
        self.scale = float_param("scale", self.scale, 0.0)
        self.variance = float_param("variance", self.variance, 0.0, open_low=False)
        self.noise = float_param("noise", self.noise, 0.0, open_low=False)
        self.k = _k(self.k)
        self.seed = int_param("seed", self.seed, minimum=0)


@dataclasses.dataclass
class BenchmarkParams(GeneratorParams):
    """``dss24_benchmark``: :func:`~.generators.benchmark`'s parameters (its k is the
    clustering's too)."""

    k: int = SMALL_K
    alpha: int = 3
    c1: float = 5.0
    c2: float = 3.0
    noise: float = 0.001
    seed: int = 0

    def _check(self) -> None:
        self.k = _k(self.k)
        self.alpha = int_param("alpha", self.alpha)
        self.c1 = float_param("c1", self.c1, 0.0)
        self.c2 = float_param("c2", self.c2, 0.0)
        self.noise = float_param("noise", self.noise, 0.0, open_low=False)
        self.seed = int_param("seed", self.seed, minimum=0)


def _synthetic(name, X, labels, k, what, params) -> Dataset:
    shown = ", ".join(f"{key}={value!r}" for key, value in dataclasses.asdict(params).items())
    return Dataset(
        name=name,
        X=X,
        y=labels,
        n_clusters=k,
        feature_names=None,
        description=f"SYNTHETIC: {what} of Draganov, Saulpic and Schwiegelshohn, {shown}",
        k_chosen=True,  # the k of the clustering, not the generator's number of classes
    )


def load_c_outlier(**params) -> Dataset:
    """The c-outlier instance (:func:`~.generators.c_outlier`), UNLABELED, at k."""
    p = COutlierParams.checked(params)
    X, _ = generators.c_outlier(
        p.n_samples, p.n_features, p.n_outliers, p.distance, p.noise, p.seed
    )
    y = np.full(X.shape[0], UNLABELED, dtype=np.int64)
    return _synthetic("dss24_c_outlier", X, y, p.k, "c-outlier instance", p)


def load_geometric(**params) -> Dataset:
    """The geometric instance (:func:`~.generators.geometric`), labelled by vertex, at k."""
    p = GeometricParams.checked(params)
    X, vertex = generators.geometric(p.c, p.k, p.r, p.n_features, p.noise, p.seed)
    return _synthetic("dss24_geometric", X, vertex, p.k, "geometric instance", p)


def load_gaussian_mixture(**params) -> Dataset:
    """The Gaussian mixture (:func:`~.generators.gaussian_mixture`), labelled by its clusters
    (renumbered 0.. over the non-empty ones), at k."""
    p = GaussianMixtureParams.checked(params)
    X, cluster = generators.gaussian_mixture(
        p.n_samples, p.n_features, p.n_centers, p.gamma, p.scale, p.variance, p.noise, p.seed
    )
    y = np.unique(cluster, return_inverse=True)[1].astype(np.int64)
    return _synthetic("dss24_gaussian_mixture", X, y, p.k, "Gaussian mixture", p)


def load_benchmark(**params) -> Dataset:
    """The authors' Benchmark variant (:func:`~.generators.benchmark`), labelled by first block
    digit (k classes)."""
    p = BenchmarkParams.checked(params)
    X, label = generators.benchmark(p.k, p.alpha, p.c1, p.c2, p.noise, p.seed)
    return _synthetic("dss24_benchmark", X, label, p.k, "Benchmark variant", p)


def read_adult(path: str | Path) -> np.ndarray:
    """UCI's ``adult.data``: 15 comma-separated fields a row, the last the income class; the
    14 attributes as float64, each text attribute as its category's code in sorted order (the
    categories whole, where the authors' loader keeps their first letter)."""
    import pandas as pd

    frame = pd.read_csv(path, header=None, skipinitialspace=True)
    if frame.shape[1] != 15:
        raise ValueError(f"{path}: {frame.shape[1]} columns, expected 15 (14 attributes, class)")
    frame = frame.iloc[:, :14]
    for column in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[column]):
            frame[column] = frame[column].astype("category").cat.codes
    return np.ascontiguousarray(frame.to_numpy(dtype=np.float64))


def read_song(path: str | Path) -> np.ndarray:
    """UCI's YearPredictionMSD (``.txt`` or its ``.zip``): 91 comma-separated numbers a row, the
    year first; the 90 audio features as float64, as the file holds them."""
    import pandas as pd

    frame = pd.read_csv(path, header=None, dtype=np.float64)
    if frame.shape[1] != 91:
        raise ValueError(f"{path}: {frame.shape[1]} columns, expected 91 (the year, 90 features)")
    return np.ascontiguousarray(frame.to_numpy()[:, 1:])


def _real(name: str, X, y, k: int, what: str) -> Dataset:
    return Dataset(
        name=name,
        X=X,
        y=y,
        n_clusters=k,
        feature_names=None,
        description=f"{what}, {X.shape[0]} x {X.shape[1]}, k = {k} (Draganov, Saulpic and "
        "Schwiegelshohn's k)",
        k_chosen=True,
    )


def _unlabeled(X) -> np.ndarray:
    return np.full(X.shape[0], UNLABELED, dtype=np.int64)


def _read(own: str, other: str, data_dir, mirror) -> Dataset:
    """Another paper's dataset ``other`` whose files ``own`` reads; a file that cannot be
    obtained is said under ``own``'s name (the line ``kmdr-data`` prints for it)."""
    try:
        return load_dataset(other, data_dir=data_dir, mirror=mirror)
    except DatasetUnavailable as err:
        why = str(err).removeprefix(f"{other}: ")
        raise DatasetUnavailable(f"{own}: reads {other}'s files: {why}") from None


def load_mnist(*, data_dir=None, mirror=None, k: int = SMALL_K) -> Dataset:
    """MNIST's training set (the first 60,000 rows of pb17's ``mnist``), by digit, at k."""
    whole = _read("dss24_mnist", "mnist", data_dir, mirror)
    X, y = whole.X[:MNIST_TRAIN].copy(), whole.y[:MNIST_TRAIN].copy()  # not a view of all 70,000
    return _real("dss24_mnist", X, y, _k(k), "MNIST's training set, pixels 0..255, by digit")


def load_covertype(*, data_dir=None, mirror=None, k: int = LARGE_K) -> Dataset:
    """Cover Type's 54 attributes (ss22's ``ss22_covertype``), unlabeled, at k."""
    X = _read("dss24_covertype", "ss22_covertype", data_dir, mirror).X
    return _real("dss24_covertype", X, _unlabeled(X), _k(k), "Cover Type (UCI), 54 attributes")


def load_census(*, data_dir=None, mirror=None, k: int = LARGE_K) -> Dataset:
    """USCensus1990's 68 attributes (ss22's ``ss22_census``), unlabeled, at k."""
    X = _read("dss24_census", "ss22_census", data_dir, mirror).X
    return _real("dss24_census", X, _unlabeled(X), _k(k), "USCensus1990 (UCI) without caseid")


def load_adult(*, data_dir=None, mirror=None, k: int = SMALL_K) -> Dataset:
    """Adult's 14 attributes (UCI's ``adult.data``), unlabeled, at k."""
    X = read_adult(fetch(ADULT_FILE, dataset="dss24_adult", data_dir=data_dir, mirror=mirror))
    return _real("dss24_adult", X, _unlabeled(X), _k(k), "Adult (UCI adult.data), 14 attributes")


def load_song(*, data_dir=None, mirror=None, k: int = LARGE_K) -> Dataset:
    """YearPredictionMSD's 90 features (UCI), unlabeled, at k."""
    X = read_song(fetch(SONG_FILE, dataset="dss24_song", data_dir=data_dir, mirror=mirror))
    return _real("dss24_song", X, _unlabeled(X), _k(k), "Song (UCI YearPredictionMSD)")


_DESCRIPTION = "SYNTHETIC: {} of Draganov, Saulpic and Schwiegelshohn (SIGMOD 2024)"

C_OUTLIER = DatasetEntry(
    "dss24_c_outlier", load_c_outlier, "synthetic", "c-outlier",
    n_samples=50_000, n_features=50, n_clusters=SMALL_K, sparse=False,
    params=COutlierParams.defaults(),
    description=_DESCRIPTION.format("n - c points at one place, c far outliers"),
)  # fmt: skip
GEOMETRIC = DatasetEntry(
    "dss24_geometric", load_geometric, "synthetic", "Geometric",
    n_samples=int(generators.geometric_sizes().sum()),
    n_features=generators.geometric_sizes().size, n_clusters=SMALL_K, sparse=False,
    params=GeometricParams.defaults(),
    description=_DESCRIPTION.format("a simplex whose vertices' weights halve"),
)  # fmt: skip
GAUSSIAN_MIXTURE = DatasetEntry(
    "dss24_gaussian_mixture", load_gaussian_mixture, "synthetic", "Gaussian Mix.",
    n_samples=50_000, n_features=50, n_clusters=SMALL_K, sparse=False,
    params=GaussianMixtureParams.defaults(),
    description=_DESCRIPTION.format("Gaussian mixture with imbalance gamma"),
)  # fmt: skip
BENCHMARK = DatasetEntry(
    "dss24_benchmark", load_benchmark, "synthetic", "Benchmark variant",
    n_samples=sum(ki**3 for ki in generators.benchmark_sizes()),
    n_features=3 * max(generators.benchmark_sizes()), n_clusters=SMALL_K, sparse=False,
    params=BenchmarkParams.defaults(),
    description=_DESCRIPTION.format("three offset Benchmarks of ss22's kind"),
)  # fmt: skip
MNIST = DatasetEntry(
    "dss24_mnist", load_mnist, "file", "MNIST training set", MNIST_FILES[:2], MNIST_FILES[2:],
    n_samples=MNIST_TRAIN, n_features=784, n_clusters=SMALL_K, sparse=False,
    params={"k": SMALL_K},
    description="MNIST's training set (pb17's files), by digit, k = 100 (dss24)",
)  # fmt: skip
COVERTYPE = DatasetEntry(
    "dss24_covertype", load_covertype, "file", "Cover-Type", (COVERTYPE_FILE,),
    n_samples=581_012, n_features=54, n_clusters=LARGE_K, sparse=False,
    params={"k": LARGE_K},
    description="Cover Type (UCI; ss22's file), unlabeled, k = 500 (dss24)",
)  # fmt: skip
CENSUS = DatasetEntry(
    "dss24_census", load_census, "file", "Census, k = 500", (CENSUS_FILE,),
    n_samples=2_458_285, n_features=68, n_clusters=LARGE_K, sparse=False,
    params={"k": LARGE_K},
    description="USCensus1990 (UCI; ss22's file), unlabeled, k = 500 (dss24)",
)  # fmt: skip
ADULT = DatasetEntry(
    "dss24_adult", load_adult, "file", "Adult", (ADULT_FILE,),
    n_samples=32_561, n_features=14, n_clusters=SMALL_K, sparse=False,
    params={"k": SMALL_K},
    description="Adult (UCI adult.data), 14 attributes, unlabeled, k = 100 (dss24)",
)  # fmt: skip
SONG = DatasetEntry(
    "dss24_song", load_song, "file", "Song", (SONG_FILE,),
    n_samples=515_345, n_features=90, n_clusters=LARGE_K, sparse=False,
    params={"k": LARGE_K},
    description="Song (UCI YearPredictionMSD), 90 features, unlabeled, k = 500 (dss24)",
)  # fmt: skip

#: The synthetic datasets by name.
SYNTHETIC = {e.name: e for e in (C_OUTLIER, GEOMETRIC, GAUSSIAN_MIXTURE, BENCHMARK)}
#: The real datasets by name.
REAL = {e.name: e for e in (MNIST, COVERTYPE, CENSUS, ADULT, SONG)}
