"""The Benchmark instance: the authors' generator, its structure and its sizes."""

import numpy as np
import pytest

from kmdr.papers.ss22.benchmark import AUTHORS_ALPHA, make_benchmark


def _authors_loop(k, alpha, beta):
    """The authors' gen_benchmark (sheikhomar/eval-k-means-coresets), transcribed loop for loop."""
    n, d = k**alpha, alpha * k
    data = np.zeros((n, d))
    for i in range(n):
        for j in range(k):
            data[i, j] = (k - 1) / k if i % k == j else -1 / k
    for j in range(k, d):
        for i in range(n):
            data[i, j] = data[i // k, j - k]
    if beta > 1:
        for b in range(alpha):
            data[:, b * k : b * k + k] *= np.power(beta, float(-b))
    return data


@pytest.mark.parametrize(("k", "alpha", "beta"), [(2, 5, 1.0), (3, 3, 1.5), (4, 2, 2.0), (5, 3, 1)])
def test_equals_the_authors_generator(k, alpha, beta):
    X, labels = make_benchmark(k, alpha, beta)
    np.testing.assert_array_equal(X, _authors_loop(k, alpha, beta))
    np.testing.assert_array_equal(labels, np.arange(k**alpha) % k)


@pytest.mark.parametrize(("k", "alpha"), [(3, 4), (4, 3)])
def test_every_row_is_a_distinct_point_of_the_same_norm(k, alpha):
    X, _ = make_benchmark(k, alpha)
    assert np.unique(X, axis=0).shape[0] == k**alpha
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), np.sqrt(alpha * (k - 1) / k))
    # each block is centred: its columns sum to zero over the data
    np.testing.assert_allclose(X.sum(axis=0), 0, atol=1e-9)


def test_the_authors_sizes():
    assert {k: (k**a, a * k) for k, a in AUTHORS_ALPHA.items()}[10] == (1_000_000, 60)


@pytest.mark.parametrize(("k", "alpha"), [(1, 3), (3, 0)])
def test_a_size_that_makes_no_instance_is_one_line(k, alpha):
    with pytest.raises(ValueError, match="needs k >= 2 and alpha >= 1"):
        make_benchmark(k, alpha)


@pytest.mark.parametrize(("k", "alpha"), [(3, 3), (10, 2), (30, 2)])
def test_the_exact_ties_diagnostic_is_the_instance_times_k_in_integers(k, alpha):
    """kmdr's diagnostic (not the authors'): scale = k gives integer coordinates, so that the
    instance's ties are exact; it is the authors' instance times k up to their rounding."""
    exact, labels = make_benchmark(k, alpha, scale=k)
    assert set(np.unique(exact)) == {-1.0, k - 1.0}
    np.testing.assert_allclose(exact, k * _authors_loop(k, alpha, 1.0), rtol=1e-14, atol=1e-14)
    np.testing.assert_array_equal(labels, np.arange(k**alpha) % k)
    # every pair of points differs by exactly 2 k^2 per block of different digits
    sq = ((exact[:, None, :] - exact[None, :10, :]) ** 2).sum(axis=2)
    assert np.array_equal(sq, np.round(sq)) and set(np.unique(sq / (2 * k * k))) <= set(
        range(alpha + 1)
    )
