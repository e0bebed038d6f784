"""Generated datasets (always described as SYNTHETIC): the parameters of bzmd14's Gaussian
mixture, of the sparse stand-in for RCV1 (:mod:`._sparse_text`, so the sparse-embedding
experiments run offline) and of the imbalanced Gaussian mixture (:mod:`._mixture`, coresets
against k-means on all rows), and bzmd14's Gaussian mixture's generator.

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
    # 0: the noise is one random stream over the whole matrix, row after row (bzmd14's data; a
    # block of rows is drawn after drawing, and discarding, the rows before it). T >= 1: each
    # tile of T consecutive rows draws its noise from its own stream, so any block of rows is
    # drawn on its own (other numbers than tile_rows=0, from the same distribution).
    tile_rows: int = 0

    def _check(self) -> None:
        _check_sizes(self)
        self.side = float_param("side", self.side, 0.0)
        self.std = float_param("std", self.std, 0.0, open_low=False)
        self.seed = int_param("seed", self.seed, minimum=0)
        self.tile_rows = int_param("tile_rows", self.tile_rows, minimum=0)


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


@dataclass
class MixtureParams(GeneratorParams):
    """The parameters of ``mixture`` (:func:`~kmdr.datasets._mixture.make_mixture`) and their
    defaults: 1,000,000 x 100, 20 clusters whose sizes fall geometrically."""

    n_samples: int = 1_000_000
    n_features: int = 100
    n_clusters: int = 20
    ratio: float = 0.8  # in (0, 1]: cluster i's size is about proportional to ratio**i
    spread: float = 10.0  # > 0: the centers are N(0, spread^2 I)
    std: float = 1.0  # >= 0: the standard deviation of the points around their center
    seed: int = 0

    def _check(self) -> None:
        _check_sizes(self)
        self.ratio = float_param("ratio", self.ratio, 0.0, 1.0)
        self.spread = float_param("spread", self.spread, 0.0)
        self.std = float_param("std", self.std, 0.0, open_low=False)
        self.seed = int_param("seed", self.seed, minimum=0)


#: Every parameter and its default (read-only), as the dataset declarations list them.
SYNTH_DEFAULTS = MappingProxyType(SynthParams.defaults())
SPARSE_TEXT_DEFAULTS = MappingProxyType(SparseTextParams.defaults())
MIXTURE_DEFAULTS = MappingProxyType(MixtureParams.defaults())


def _split_sizes(n: int, k: int) -> np.ndarray:
    """``n`` split into ``k`` sizes that differ by at most one."""
    return np.full(k, n // k) + (np.arange(k) < n % k)


def make_synth(**params) -> Dataset:
    """bzmd14 §7.3: ``n_clusters`` centers uniform in ``[0, side]^n_features``, and around each
    ``n_samples / n_clusters`` points from an isotropic Gaussian of standard deviation ``std``.

    Defaults: 1000 x 2000, k = 5, side 2000, std 1 (200 points per center), seed 0. The centers are
    not among the points. Rows are grouped by cluster (labels 0..k-1 in order). Any block of rows
    can be drawn alone (:func:`synth_rows`); with ``tile_rows`` >= 1 without drawing the rows
    before it.
    """
    p = SynthParams.checked(params)
    n, d, k, side, std, seed = p.n_samples, p.n_features, p.n_clusters, p.side, p.std, p.seed
    X = synth_rows(p, 0, n)
    tiles = f", noise in tiles of {p.tile_rows} rows" if p.tile_rows else ""
    return Dataset(
        name="synth",
        X=X,
        y=synth_labels(p),
        n_clusters=k,
        feature_names=None,
        description=(
            f"SYNTHETIC Gaussian mixture (bzmd14 §7.3): {n} x {d}, {k} centers uniform in "
            f"[0, {side:g}]^{d}, std {std:g}, seed {seed}{tiles}"
        ),
    )


#: Normal values drawn at a time when rows are skipped or drawn in pieces (8 MiB of float64).
_DRAW_VALUES = 1 << 20


def synth_cluster_sizes(p: SynthParams) -> np.ndarray:
    """Each cluster's number of rows (sizes one apart)."""
    return _split_sizes(p.n_samples, p.n_clusters)


def synth_labels(p: SynthParams) -> np.ndarray:
    """Every row's cluster (int64, rows grouped by cluster, :func:`synth_cluster_sizes`)."""
    return np.repeat(np.arange(p.n_clusters, dtype=np.int64), synth_cluster_sizes(p))


def _skip_normals(rng: np.random.Generator, count: int) -> None:
    """Draw and discard ``count`` normal values (a normal takes a variable number of the bit
    generator's outputs, so the stream cannot jump over them)."""
    while count > 0:
        rng.standard_normal(min(count, _DRAW_VALUES))
        count -= _DRAW_VALUES


def synth_rows(p: SynthParams, lo: int, hi: int) -> np.ndarray:
    """Rows ``lo:hi`` of :func:`make_synth`'s matrix, bit for bit whatever the other blocks.

    The centers come first from the seed's stream; then the noise, row after row: with
    ``tile_rows == 0`` from that same stream (rows before ``lo`` are drawn and discarded, a few
    rows at a time), else tile ``t`` (rows ``t*T .. (t+1)*T``) from its own stream
    (``SeedSequence(seed, spawn_key=(t,))``), so only the tiles holding ``lo:hi`` are drawn.
    Memory: the block and a few rows of noise.
    """
    n, d, k, std, T = p.n_samples, p.n_features, p.n_clusters, p.std, p.tile_rows
    rng = np.random.default_rng(p.seed)
    centers = rng.uniform(0.0, p.side, size=(k, d))
    ends = np.cumsum(_split_sizes(n, k))
    y = np.searchsorted(ends, np.arange(lo, hi), side="right")
    X = np.empty((hi - lo, d))
    step = max(1, _DRAW_VALUES // d)  # rows drawn at a time
    if T == 0:
        pieces = [(rng, lo, hi, 0)]  # (stream, first row, end row, the stream's first row)
    else:
        pieces = []
        for t in range(lo // T, (hi - 1) // T + 1):
            stream = np.random.default_rng(np.random.SeedSequence(p.seed, spawn_key=(t,)))
            pieces.append((stream, max(lo, t * T), min(hi, (t + 1) * T), t * T))
    for stream, a, b, first in pieces:
        _skip_normals(stream, (a - first) * d)
        for r in range(a, b, step):
            e = min(b, r + step)
            X[r - lo : e - lo] = centers[y[r - lo : e - lo]] + stream.normal(0.0, std, (e - r, d))
    return X
