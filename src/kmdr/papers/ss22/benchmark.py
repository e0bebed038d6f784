"""The hard instance of Schwiegelshohn and Sheikh-Omar (ESA 2022, Section 4.2): the Benchmark.

It is generated as the authors' ``gen_benchmark`` does (the authors' repository
sheikhomar/eval-k-means-coresets, ``xrun/data/gen_benchmark.py``): the first block of columns is
the centred k x k identity, ``(k - 1)/k`` on the diagonal and ``-1/k`` elsewhere, repeated down
the ``n = k**alpha`` rows (row ``i`` is the ``i mod k``-th unit vector, centred); each further
block of k columns is the block before it read at row ``i // k``, so that the ``alpha`` blocks
spell the base-k digits of ``i``. Every point is then one of ``k**alpha`` distinct points of
equal norm, and any k centers leave most of the cost on the blocks they cannot fit: sampling
that ignores this structure misses whole digits. Block ``b`` (0-based) is scaled by ``beta**-b``
when ``beta > 1`` (the authors ran beta = 1, 1.5 and 2).

The instance is deterministic: there is no seed to take. The authors' sizes are k = 10 with
alpha = 6 (1,000,000 x 60), k = 20 with alpha = 5, and k = 30, 40, 50 with alpha = 4
(:data:`AUTHORS_ALPHA`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["AUTHORS_ALPHA", "make_benchmark"]

#: The alpha the authors generated for each k (``xrun/go.py``'s BenchmarkDataset).
AUTHORS_ALPHA = {10: 6, 20: 5, 30: 4, 40: 4, 50: 4}


def make_benchmark(
    k: int, alpha: int, beta: float = 1.0, scale: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """The Benchmark instance of ``k**alpha`` points in ``alpha * k`` dimensions.

    Parameters
    ----------
    k : int
        The size of the first block (a centred k x k identity), and the k of its clustering.
    alpha : int
        The number of column blocks.
    beta : float, default=1.0
        Block ``b`` is scaled by ``beta**-b`` when ``beta > 1``; ``beta <= 1`` scales nothing, as
        in the authors' generator.
    scale : float, default=1.0
        Every coordinate times ``scale`` (not the authors': kmdr's diagnostic). ``scale=k`` with
        ``beta=1`` makes the coordinates the integers ``k - 1`` and ``-1``, so that every
        distance is computed exactly and the instance's ties (its points are equidistant block
        by block) stay ties, which a nearest-center search then breaks for the first center,
        as the authors' seeding loop does. At ``scale=1`` the rounding of ``(k - 1)/k`` and
        ``-1/k`` breaks them instead. Distortions are ratios of costs: the scale does not
        change them.

    Returns
    -------
    X : ndarray of shape (k**alpha, alpha * k)
    labels : ndarray of shape (k**alpha,)
        The first block's digit ``i mod k`` of each row: the partition that the first block, the
        one with most of the cost when beta > 1, induces.
    """
    if k < 2 or alpha < 1:
        raise ValueError(f"the Benchmark needs k >= 2 and alpha >= 1, got k={k}, alpha={alpha}")
    n = k**alpha
    rows = np.arange(n)
    block = np.full((k, k), -1.0 / k)
    np.fill_diagonal(block, (k - 1) / k)
    if scale != 1:  # from the integers, so that scale = k gives them exactly
        block = (np.eye(k) * k - 1) * (scale / k)
    X = np.empty((n, alpha * k))
    for b in range(alpha):
        # block b of row i is block 0 of row i // k**b: the b-th base-k digit of i
        digit = (rows // k**b) % k
        X[:, b * k : (b + 1) * k] = block[digit]
        if beta > 1:
            X[:, b * k : (b + 1) * k] *= beta ** (-float(b))
    return X, rows % k
