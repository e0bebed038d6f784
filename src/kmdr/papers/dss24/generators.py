"""The synthetic datasets of Draganov, Saulpic and Schwiegelshohn (SIGMOD 2024, Section 5.1,
"Datasets" and "Data Parameters"), generated from a seed.

Each generator follows the paper's text; the authors' code (the repository
Andrew-Draganov/Fast-Coreset-Generation, ``experiment_utils/get_data.py``) is named where it
differs, and a parameter reproduces its choice where the text leaves one open. Every draw is
NumPy's from ``numpy.random.default_rng(seed)`` (never the global state), in a fixed order, so
one seed is one dataset. As the text's "Data Parameters" say, every dataset gets uniform noise
``eta`` with ``0 <= eta_i <= noise`` (0.001) in each coordinate, so that all points are distinct.

- :func:`c_outlier` (``get_artificial_dataset``): n - c points at one location, c points far
  away. The text puts the n - c points "in a single location"; the code spreads them over the
  unit cube ``[1, 2]^d`` (noise 1, not 0.001): ``noise=1`` gives the code's cube. The text does
  not say where the outliers lie; they are the code's, ``-distance * U[0, 1)^d`` (``distance``
  1000), and c = 5 is the code's (the text names no c).
- :func:`geometric` (``get_geometric_dataset``): ``floor(c k / r^i)`` points at the i-th unit
  vector for the ``floor(log_r(c k)) + 1`` rounds that hold a point (c = 100, r = 2), in as many
  dimensions. The code runs k rounds in k dimensions, the rounds past the last point empty, so its
  points have ``k - rounds`` more coordinates of noise alone: ``n_features=k`` gives its layout.
- :func:`gaussian_mixture` (``get_blobs_dataset`` with ``get_imbalanced_partition``): kappa
  Gaussian clusters whose sizes follow the text's sequence (:func:`imbalanced_sizes`), the
  imbalance growing with gamma. The text says no more about the clusters than "scattered" and
  "of varying density"; the code's are placed here: centers ``N(0, I_d)``, the data centred and
  scaled by 1000, then isotropic Gaussian noise of variance 500 on every point (one variance
  for every cluster: the code's densities vary with the cluster sizes only). The code adds no
  uniform noise to this dataset; kmdr adds the text's (0.001 against a standard deviation of 22:
  nothing measurable). The code's last cluster is drawn like the others and capped at the rows
  left, so its data has fewer than n rows when gamma > 0; kmdr's last cluster holds the rows
  left, so that there are n.
- :func:`benchmark` (``load_coreset_benchmark``): the Benchmark of Schwiegelshohn and
  Sheikh-Omar (ESA 2022) three times, for ``k_1 = floor(k / c_1)``, ``k_2 = floor((k - k_1) /
  c_2)`` and ``k_3 = k - k_1 - k_2`` (the code's c_1 = 5 and c_2 = 3; the text leaves them
  open), each with alpha = 3 blocks (``k_i^3`` rows of ``3 k_i`` columns: row j's block b is
  the centred unit vector of j's b-th base-``k_i`` digit, as ss22's ``make_benchmark``), offset,
  padded with zero columns to the widest and stacked. The text's offsets are "random"; the
  code's are ``sin(k_i) k_i^2`` added to every coordinate of the instance (not to its padding),
  which are used here. The code returns float32; kmdr float64.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "benchmark",
    "benchmark_sizes",
    "c_outlier",
    "gaussian_mixture",
    "geometric",
    "geometric_sizes",
    "imbalanced_sizes",
]


def _with_noise(X: np.ndarray, noise: float, rng: np.random.Generator) -> np.ndarray:
    """``X`` plus uniform noise in ``[0, noise)`` in each coordinate (in place)."""
    if noise > 0:
        X += noise * rng.random(X.shape)
    return X


def c_outlier(
    n_samples: int = 50_000,
    n_features: int = 50,
    n_outliers: int = 5,
    distance: float = 1000.0,
    noise: float = 0.001,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """The c-outlier instance: ``n_samples - n_outliers`` points at ``(1, ..., 1)`` and
    ``n_outliers`` points at ``-distance * U[0, 1)^d``, the first rows; every coordinate plus
    uniform noise in ``[0, noise)``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    outlier : ndarray of bool, shape (n_samples,)
        Whether each row is one of the outliers.
    """
    if not 1 <= n_outliers < n_samples:
        raise ValueError(
            f"parameter 'n_outliers' must be at least 1 and below n_samples = {n_samples}, "
            f"got {n_outliers}"
        )
    rng = np.random.default_rng(seed)
    X = np.ones((n_samples, n_features))
    X[:n_outliers] = -distance * rng.random((n_outliers, n_features))
    outlier = np.zeros(n_samples, dtype=bool)
    outlier[:n_outliers] = True
    return _with_noise(X, noise, rng), outlier


def geometric_sizes(c: int = 100, k: int = 100, r: int = 2) -> np.ndarray:
    """The number of points at each vertex: ``floor(c k / r^i)`` for every round i that holds
    one, ``i = 0 .. floor(log_r(c k))``, computed in integers."""
    if r < 2:
        raise ValueError(f"parameter 'r' must be an integer >= 2, got {r}")
    sizes, size = [], c * k
    while size >= 1:
        sizes.append(size)
        size //= r  # floor(floor(ck / r^i) / r) = floor(ck / r^(i+1))
    return np.array(sizes, dtype=np.int64)


def geometric(
    c: int = 100,
    k: int = 100,
    r: int = 2,
    n_features: int = 0,
    noise: float = 0.001,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """The geometric instance: :func:`geometric_sizes` points at each unit vector ``e_i`` (a
    simplex with weights halving, for r = 2), plus uniform noise in ``[0, noise)``.

    ``n_features`` 0 gives one dimension per round (the text's); a larger one adds zero
    columns (with their noise), as the code's k dimensions.

    Returns
    -------
    X : ndarray of shape (sum of the sizes, rounds or n_features)
    vertex : ndarray of int64
        The round (vertex) of each row: 0 for the largest.
    """
    sizes = geometric_sizes(c, k, r)
    rounds = sizes.size
    d = n_features or rounds
    if d < rounds:
        raise ValueError(
            f"parameter 'n_features' must be 0 (one per round) or at least the {rounds} rounds, "
            f"got {n_features}"
        )
    rng = np.random.default_rng(seed)
    vertex = np.repeat(np.arange(rounds, dtype=np.int64), sizes)
    X = np.zeros((vertex.size, d))
    X[np.arange(vertex.size), vertex] = 1.0
    return _with_noise(X, noise, rng), vertex


def imbalanced_sizes(
    n_samples: int, n_centers: int, gamma: float, rng: np.random.Generator
) -> np.ndarray:
    """The text's cluster sizes: ``|c_1| = n / kappa * exp(gamma rho_0)`` and ``|c_{i+1}| = (n -
    sum_i |c_i|) / (kappa - i) * exp(gamma rho_{i+1})`` with ``rho_i`` uniform in ``[-0.5,
    0.5]``, each floored and capped at the rows left (as the code's); the last cluster holds the
    rows left (the code draws it too, so its sizes may sum to fewer than n). gamma = 0 gives
    ``n / kappa`` each, up to rounding; a cluster may be empty at a large gamma, once the rows run
    out. Draws ``n_centers - 1`` uniforms from ``rng``.
    """
    sizes = np.zeros(n_centers, dtype=np.int64)
    rho = rng.random(n_centers - 1) - 0.5
    left = n_samples
    for i in range(n_centers - 1):
        size = left / (n_centers - i) * np.exp(gamma * rho[i])
        sizes[i] = min(int(size), left)
        left -= sizes[i]
    sizes[-1] = left
    return sizes


def gaussian_mixture(
    n_samples: int = 50_000,
    n_features: int = 50,
    n_centers: int = 50,
    gamma: float = 5.0,
    scale: float = 1000.0,
    variance: float = 500.0,
    noise: float = 0.001,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """The Gaussian mixture with imbalance gamma: sizes from :func:`imbalanced_sizes`, centers
    ``N(0, I_d)``, the data (each point at its center) centred and times ``scale``, then
    ``N(0, variance I_d)`` noise on every point, then uniform noise in ``[0, noise)``. Rows are
    grouped by cluster, in the order the sizes were drawn.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    cluster : ndarray of int64
        Each row's cluster, 0 .. n_centers - 1 (a cluster left empty has no row).
    """
    if not 1 <= n_centers <= n_samples:
        raise ValueError(
            f"parameter 'n_centers' must be at least 1 and at most n_samples = {n_samples}, "
            f"got {n_centers}"
        )
    rng = np.random.default_rng(seed)
    sizes = imbalanced_sizes(n_samples, n_centers, gamma, rng)
    cluster = np.repeat(np.arange(n_centers, dtype=np.int64), sizes)
    centers = rng.standard_normal((n_centers, n_features))
    X = centers[cluster]
    X -= X.mean(axis=0, keepdims=True)  # the code's zero-mean step, before the scaling
    X *= scale
    X += np.sqrt(variance) * rng.standard_normal(X.shape)
    return _with_noise(X, noise, rng), cluster


def benchmark_sizes(k: int = 100, c1: float = 5.0, c2: float = 3.0) -> tuple[int, int, int]:
    """The three Benchmarks' k: ``k_1 = floor(k / c_1)``, ``k_2 = floor((k - k_1) / c_2)``,
    ``k_3 = k - k_1 - k_2``; each must be at least 2."""
    k1 = int(k / c1)
    k2 = int((k - k1) / c2)
    ks = (k1, k2, k - k1 - k2)
    if min(ks) < 2:
        raise ValueError(
            f"parameters 'k', 'c1', 'c2' give Benchmarks of k = {ks}; each needs k >= 2 (the "
            f"text's k / c1 and (k - k1) / c2)"
        )
    return ks


def _one_benchmark(k: int, alpha: int) -> np.ndarray:
    """Schwiegelshohn and Sheikh-Omar's Benchmark: ``k**alpha`` rows, block b of row j the
    centred unit vector ``e_digit - 1/k`` of j's b-th base-k digit."""
    rows = np.arange(k**alpha)
    unit = np.eye(k) - 1.0 / k
    return np.hstack([unit[(rows // k**b) % k] for b in range(alpha)])


def benchmark(
    k: int = 100,
    alpha: int = 3,
    c1: float = 5.0,
    c2: float = 3.0,
    noise: float = 0.001,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """The authors' Benchmark variant (see the module docstring): three Benchmarks of
    :func:`benchmark_sizes`' k each offset by ``sin(k_i) k_i^2``, padded with zero columns to
    ``alpha * k_3`` and stacked, plus uniform noise in ``[0, noise)``.

    Returns
    -------
    X : ndarray of shape (k_1**alpha + k_2**alpha + k_3**alpha, alpha * max k_i)
    label : ndarray of int64
        The first block's digit of each row, offset by the k of the Benchmarks before it:
        k classes in all.
    """
    ks = benchmark_sizes(k, c1, c2)
    width = alpha * max(ks)
    X = np.zeros((sum(ki**alpha for ki in ks), width))
    label = np.empty(X.shape[0], dtype=np.int64)
    start = first_label = 0
    for ki in ks:
        part = _one_benchmark(ki, alpha)
        stop = start + part.shape[0]
        X[start:stop, : part.shape[1]] = part + np.sin(ki) * ki**2
        label[start:stop] = first_label + np.arange(part.shape[0]) % ki
        start, first_label = stop, first_label + ki
    return _with_noise(X, noise, np.random.default_rng(seed)), label
