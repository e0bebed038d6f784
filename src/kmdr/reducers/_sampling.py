"""Importance sampling of columns with replacement, rescaled (the sampler of bmd09 and bzmd14)."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state


def sample_columns(probabilities: np.ndarray, n_draws: int, random_state=None):
    """Draw ``n_draws`` column indices i.i.d. from ``probabilities``, with their rescaling factors.

    Draw t picks column i with probability ``p_i``; its factor is ``1 / sqrt(r p_i)`` with
    r = ``n_draws``, so that ``E[C C^T] = A A^T`` for ``C = A[:, idx] * scales`` (Boutsidis,
    Mahoney, Drineas, NIPS 2009, Algorithm 1; Boutsidis, Zouzias, Mahoney, Drineas 2015,
    Definition 5; the same rescaling for any sampling distribution, e.g. ridge leverage scores).

    Parameters
    ----------
    probabilities : ndarray of shape (n_columns,)
        Nonnegative, summing to 1 (``numpy.random.RandomState.choice`` checks it).
    n_draws : int
        r >= 1.
    random_state : None, int or RandomState

    Returns
    -------
    indices : ndarray of shape (n_draws,)
        The column behind each draw (repeats possible); never a column with ``p_i = 0``.
    scales : ndarray of shape (n_draws,)
        ``1 / sqrt(r p_{i_t})``.
    """
    rng = check_random_state(random_state)
    indices = rng.choice(len(probabilities), size=n_draws, p=probabilities)
    scales = 1.0 / np.sqrt(n_draws * probabilities[indices])
    return indices, scales
