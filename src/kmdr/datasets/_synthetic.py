"""Generated datasets (always described as SYNTHETIC): bzmd14's Gaussian mixture and a sparse
stand-in for RCV1 so the sparse-embedding experiments run offline.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._base import Dataset

SYNTH_DEFAULTS = {
    "n_samples": 1000,
    "n_features": 2000,
    "n_clusters": 5,
    "side": 2000.0,
    "std": 1.0,
    "seed": 0,
}
SPARSE_TEXT_DEFAULTS = {
    "n_samples": 15564,  # RCV1 multiclass training split
    "n_features": 47236,
    "n_clusters": 53,
    "nnz_per_row": 76.0,  # RCV1: ~0.16% of 47236 terms
    "topic_weight": 0.2,
    "topic_terms": 400,
    "seed": 0,
}


def _int_param(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"parameter {name!r} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _float_param(name: str, value, low: float, high: float = np.inf, *, open_low=True) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(value)
    ok = ok and (value > low if open_low else value >= low) and value <= high
    if not ok:
        bound = f"> {low}" if open_low else f">= {low}"
        raise ValueError(
            f"parameter {name!r} must be a number {bound} and <= {high}, got {value!r}"
        )
    return float(value)


def _check_names(dataset: str, params: dict, defaults: dict) -> dict:
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise ValueError(f"{dataset}: unknown parameters {unknown}; valid: {sorted(defaults)}")
    return {**defaults, **params}


def _split_sizes(n: int, k: int) -> np.ndarray:
    """``n`` split into ``k`` sizes that differ by at most one."""
    return np.full(k, n // k) + (np.arange(k) < n % k)


def make_synth(**params) -> Dataset:
    """bzmd14 §7.3: ``n_clusters`` centers uniform in ``[0, side]^n_features``, and around each
    ``n_samples / n_clusters`` points from an isotropic Gaussian of standard deviation ``std``.

    Defaults: 1000 x 2000, k = 5, side 2000, std 1 (200 points per center), seed 0. The centers are
    not among the points. Rows are grouped by cluster (labels 0..k-1 in order).
    """
    p = _check_names("synth", params, SYNTH_DEFAULTS)
    n = _int_param("n_samples", p["n_samples"])
    d = _int_param("n_features", p["n_features"])
    k = _int_param("n_clusters", p["n_clusters"])
    if k > n:
        raise ValueError(f"parameter 'n_clusters' ({k}) must be <= 'n_samples' ({n})")
    side = _float_param("side", p["side"], 0.0)
    std = _float_param("std", p["std"], 0.0, open_low=False)
    seed = _int_param("seed", p["seed"], minimum=0)

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


def _zipf(m: int, exponent: float) -> np.ndarray:
    w = np.arange(1, m + 1, dtype=np.float64) ** -exponent
    return w / w.sum()


def _tokens_for_unique(q: np.ndarray, target: float) -> float:
    """The number of i.i.d. draws from ``q`` whose expected number of distinct values is
    ``target`` (bisection on ``sum_j 1 - (1 - q_j)^L``)."""
    lo, hi = target, 100.0 * target
    log1m = np.log1p(-q)
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        if np.sum(-np.expm1(mid * log1m)) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def make_sparse_text(**params) -> Dataset:
    """A SYNTHETIC sparse document-term matrix with RCV1's shape and density and planted topics.

    Model (vectorized; about a second at the defaults):

    - topic sizes are skewed, proportional to ``rank^-0.7`` (RCV1's classes are unequal too);
    - a background term distribution is Zipf (exponent 1.07) over a random order of the terms;
    - each topic has ``topic_terms`` terms drawn at random from the vocabulary, with Zipf weights;
    - a document draws lognormal-many tokens, each from its topic with probability
      ``topic_weight`` and from the background otherwise; the token count is set so that a
      document has about ``nnz_per_row`` distinct terms (RCV1: ~76, i.e. density ~0.16%);
    - values are tf-idf, ``(1 + log tf) * (log((1 + n) / (1 + df)) + 1)``, with each row scaled
      to unit Euclidean norm (the form of LIBSVM's RCV1 files).

    Returns CSR float64; rows are grouped by topic (labels 0..k-1 in order); no vocabulary.
    """
    import scipy.sparse as sp

    p = _check_names("sparse_text", params, SPARSE_TEXT_DEFAULTS)
    n = _int_param("n_samples", p["n_samples"])
    V = _int_param("n_features", p["n_features"])
    k = _int_param("n_clusters", p["n_clusters"])
    if k > n:
        raise ValueError(f"parameter 'n_clusters' ({k}) must be <= 'n_samples' ({n})")
    m = _int_param("topic_terms", p["topic_terms"])
    if m > V:
        raise ValueError(f"parameter 'topic_terms' ({m}) must be <= 'n_features' ({V})")
    nnz_row = _float_param("nnz_per_row", p["nnz_per_row"], 0.0, V / 2)
    mix = _float_param("topic_weight", p["topic_weight"], 0.0, 1.0, open_low=False)
    seed = _int_param("seed", p["seed"], minimum=0)
    rng = np.random.default_rng(seed)

    # Topic sizes: skewed, at least one document each.
    share = _zipf(k, 0.7)
    sizes = 1 + np.floor(share * (n - k)).astype(np.int64)
    sizes[: n - sizes.sum()] += 1
    y = np.repeat(np.arange(k, dtype=np.int64), sizes)

    # Term distributions.
    order = rng.permutation(V)
    background = np.empty(V)
    background[order] = _zipf(V, 1.07)
    topic_vocab = rng.integers(0, V, size=(k, m))
    topic_weights = _zipf(m, 1.0)

    # Tokens per document, calibrated on one topic's mixture to give ~nnz_row distinct terms.
    q = (1.0 - mix) * background
    np.add.at(q, topic_vocab[0], mix * topic_weights)
    mean_tokens = _tokens_for_unique(np.clip(q, 0.0, 1.0 - 1e-12), nnz_row)
    sigma = 0.4
    lengths = rng.lognormal(np.log(mean_tokens) - sigma**2 / 2, sigma, size=n)
    lengths = np.maximum(1, np.rint(lengths)).astype(np.int64)

    doc = np.repeat(np.arange(n), lengths)
    from_topic = rng.random(doc.size) < mix
    term = order[
        np.minimum(np.searchsorted(np.cumsum(_zipf(V, 1.07)), rng.random(doc.size)), V - 1)
    ]
    rank = np.minimum(np.searchsorted(np.cumsum(topic_weights), rng.random(doc.size)), m - 1)
    term = np.where(from_topic, topic_vocab[y[doc], rank], term)

    tf = sp.csr_matrix((np.ones(doc.size), (doc, term)), shape=(n, V))
    tf.sum_duplicates()
    df = np.bincount(tf.indices, minlength=V)
    idf = np.log((1.0 + n) / (1.0 + df)) + 1.0
    X = tf.copy()
    X.data = (1.0 + np.log(X.data)) * idf[X.indices]
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sp.csr_matrix(sp.diags(1.0 / np.maximum(norms, 1e-300)) @ X)
    X.sort_indices()
    return Dataset(
        name="sparse_text",
        X=X,
        y=y,
        n_clusters=k,
        feature_names=None,
        description=(
            f"SYNTHETIC sparse text stand-in for RCV1: {n} x {V}, {k} planted topics, "
            f"density {X.nnz / (n * V):.3%}, Zipf term frequencies, tf-idf rows of unit norm, "
            f"seed {seed}"
        ),
    )
