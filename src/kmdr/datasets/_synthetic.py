"""Generated datasets (always described as SYNTHETIC): the parameters of bzmd14's Gaussian
mixture and of the sparse stand-in for RCV1 (:mod:`._sparse_text`, so the sparse-embedding
experiments run offline), and the Gaussian mixture's generator.

Each generator's parameters are one :class:`~._params.GeneratorParams` dataclass: names, types,
defaults and checks (the config's schema of ``dataset.params`` too).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ._base import Dataset
from ._params import GeneratorParams, float_param, int_param


def _check_sizes(params) -> None:
    """The sizes every generator has (n_samples, n_features, n_clusters), as ints, in place; at
    least one point per cluster."""
    params.n_samples = int_param("n_samples", params.n_samples)
    params.n_features = int_param("n_features", params.n_features)
    params.n_clusters = int_param("n_clusters", params.n_clusters)
    if params.n_clusters > params.n_samples:
        raise ValueError(
            f"parameter 'n_clusters' ({params.n_clusters}) must be <= 'n_samples' "
            f"({params.n_samples})"
        )


@dataclass
class SynthParams(GeneratorParams):
    """The parameters of ``synth`` (:func:`make_synth`) and their defaults."""

    n_samples: int = 1000
    n_features: int = 2000
    n_clusters: int = 5
    side: float = 2000.0  # the centers are uniform in [0, side]^n_features
    std: float = 1.0  # the standard deviation of the points around their center
    seed: int = 0

    def _check(self) -> None:
        _check_sizes(self)
        self.side = float_param("side", self.side, 0.0)
        self.std = float_param("std", self.std, 0.0, open_low=False)
        self.seed = int_param("seed", self.seed, minimum=0)


@dataclass
class SparseTextParams(GeneratorParams):
    """The parameters of ``sparse_text`` (:func:`~kmdr.datasets._sparse_text.make_sparse_text`)
    and their defaults: RCV1's multiclass training split."""

    n_samples: int = 15564
    n_features: int = 47236
    n_clusters: int = 53
    nnz_per_row: float = 76.0  # distinct terms per document (RCV1: ~0.16% of 47236 terms)
    topic_weight: float = 0.2  # the probability that a token comes from the document's topic
    topic_terms: int = 400  # the terms of each topic's vocabulary
    seed: int = 0

    def _check(self) -> None:
        _check_sizes(self)
        self.topic_terms = int_param("topic_terms", self.topic_terms)
        if self.topic_terms > self.n_features:
            raise ValueError(
                f"parameter 'topic_terms' ({self.topic_terms}) must be <= 'n_features' "
                f"({self.n_features})"
            )
        self.nnz_per_row = float_param("nnz_per_row", self.nnz_per_row, 0.0, self.n_features / 2)
        self.topic_weight = float_param("topic_weight", self.topic_weight, 0.0, 1.0, open_low=False)
        self.seed = int_param("seed", self.seed, minimum=0)


#: Every parameter and its default (read-only), as the dataset declarations list them.
SYNTH_DEFAULTS = MappingProxyType(SynthParams.defaults())
SPARSE_TEXT_DEFAULTS = MappingProxyType(SparseTextParams.defaults())


def _split_sizes(n: int, k: int) -> np.ndarray:
    """``n`` split into ``k`` sizes that differ by at most one."""
    return np.full(k, n // k) + (np.arange(k) < n % k)


def make_synth(**params) -> Dataset:
    """bzmd14 §7.3: ``n_clusters`` centers uniform in ``[0, side]^n_features``, and around each
    ``n_samples / n_clusters`` points from an isotropic Gaussian of standard deviation ``std``.

    Defaults: 1000 x 2000, k = 5, side 2000, std 1 (200 points per center), seed 0. The centers are
    not among the points. Rows are grouped by cluster (labels 0..k-1 in order).
    """
    p = SynthParams.checked(params)
    n, d, k, side, std, seed = p.n_samples, p.n_features, p.n_clusters, p.side, p.std, p.seed
    rng = np.random.default_rng(seed)
    centers = rng.uniform(0.0, side, size=(k, d))
    y = np.repeat(np.arange(k, dtype=np.int64), _split_sizes(n, k))
    X = centers[y] + rng.normal(0.0, std, size=(n, d))
    return Dataset(
        name="synth",
        X=X,
        y=y,
        n_clusters=k,
        feature_names=None,
        description=(
            f"SYNTHETIC Gaussian mixture (bzmd14 §7.3): {n} x {d}, {k} centers uniform in "
            f"[0, {side:g}]^{d}, std {std:g}, seed {seed}"
        ),
    )
