"""sparse_text is built chunk by chunk of rows, and gives the matrix of the all-at-once model to
the last bit, whatever the chunk size; the generators' parameters are one typed declaration."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
import scipy.sparse as sp

import kmdr.datasets as kd
from _bad_data import PARAM_CLUSTERS_ROWS, PARAM_RANGE, PARAM_UNKNOWN
from _cases import case
from kmdr.datasets import _sparse_text
from kmdr.datasets._sparse_text import _tokens_for_unique, _zipf
from kmdr.datasets._synthetic import SparseTextParams, SynthParams


def all_at_once(n, n_features, n_clusters, nnz_per_row, topic_weight, topic_terms, seed):
    """The model drawn with every token in memory at once: the generator before it was built in
    chunks (kept here, and only here, as the reference the chunked one must equal bit for bit)."""
    V, k, m, mix = n_features, n_clusters, topic_terms, topic_weight
    rng = np.random.default_rng(seed)
    share = _zipf(k, 0.7)
    sizes = 1 + np.floor(share * (n - k)).astype(np.int64)
    sizes[: n - sizes.sum()] += 1
    y = np.repeat(np.arange(k, dtype=np.int64), sizes)
    order = rng.permutation(V)
    background = np.empty(V)
    background[order] = _zipf(V, 1.07)
    topic_vocab = rng.integers(0, V, size=(k, m))
    topic_weights = _zipf(m, 1.0)
    q = (1.0 - mix) * background
    np.add.at(q, topic_vocab[0], mix * topic_weights)
    mean_tokens = _tokens_for_unique(np.clip(q, 0.0, 1.0 - 1e-12), nnz_per_row)
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
    return X, y


def digest(X, y) -> str:
    h = hashlib.sha256()
    for a in (X.indptr, X.indices, X.data, y):
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:24]


def assert_identical(X, y, X_ref, y_ref):
    assert isinstance(X, sp.csr_matrix) and X.has_sorted_indices
    for part in ("indptr", "indices", "data"):
        got, want = getattr(X, part), getattr(X_ref, part)
        assert got.dtype == want.dtype and np.array_equal(got, want), part
    assert y.dtype == y_ref.dtype and np.array_equal(y, y_ref)


SETTINGS = [
    {"n_samples": 500, "n_features": 3000, "n_clusters": 7, "seed": 3},
    {"n_samples": 2000, "n_features": 1000, "n_clusters": 5, "nnz_per_row": 20.0,
     "topic_weight": 0.5, "topic_terms": 50, "seed": 11},
    # every token from the topic; one document per topic
    {"n_samples": 300, "n_features": 800, "n_clusters": 300, "topic_weight": 1.0,
     "topic_terms": 800, "seed": 1},
    # no token from the topic; documents of one or two tokens
    {"n_samples": 1000, "n_features": 5000, "n_clusters": 3, "topic_weight": 0.0,
     "nnz_per_row": 2.0, "seed": 2},
]  # fmt: skip


@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize("chunk_tokens", [1, 997, 1 << 20])
def test_chunked_equals_all_at_once_bit_for_bit(settings, chunk_tokens, monkeypatch):
    # chunks of one document each, chunks that split nothing evenly, and one chunk
    monkeypatch.setattr(_sparse_text, "CHUNK_TOKENS", chunk_tokens)
    full = {**SparseTextParams.defaults(), **settings}
    X_ref, y_ref = all_at_once(*(full[k] for k in SparseTextParams.defaults()))
    ds = kd.load_dataset("sparse_text", **settings)
    assert_identical(ds.X, ds.y, X_ref, y_ref)


#: sha256 (24 digits) of (indptr, indices, data, y) as the all-at-once generator gave them; the
#: default parameters are the data of the committed lst17_sparse_text cells.
STORED = [
    ({}, "1e9cbc6f8315c0f52c775a87"),
    ({"n_samples": 100000}, "f565ece7806bc594dbfa9b16"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("params", "expected"), STORED)
def test_same_data_as_the_committed_cells(params, expected):
    ds = kd.load_dataset("sparse_text", **params)
    assert digest(ds.X, ds.y) == expected


def test_memory_is_about_the_result(monkeypatch):
    """No array of every token: the largest array the generator allocates holds one value per
    token at most 4 bytes wide (the terms, before they are trimmed to the nonzeros)."""
    import tracemalloc

    settings = {"n_samples": 3000, "n_features": 4000, "n_clusters": 5, "nnz_per_row": 60.0}
    monkeypatch.setattr(_sparse_text, "CHUNK_TOKENS", 4096)
    tracemalloc.start()
    try:
        ds = kd.load_dataset("sparse_text", **settings)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    result = ds.X.data.nbytes + ds.X.indices.nbytes + ds.X.indptr.nbytes
    # the all-at-once model needs over 5x the result (tokens drawn three times as float64,
    # and int64 documents, terms and ranks, then the COO triplets)
    assert peak < 1.8 * result


# --- the parameters: one typed declaration ----------------------------------------------------


@pytest.mark.parametrize("schema", [SynthParams, SparseTextParams])
def test_declaration_is_the_catalog_default(schema):
    name = {SynthParams: "synth", SparseTextParams: "sparse_text"}[schema]
    entry = kd.dataset_info(name)
    assert dict(entry.params) == schema.defaults()
    assert (entry.n_samples, entry.n_features, entry.n_clusters) == (
        schema.n_samples,
        schema.n_features,
        schema.n_clusters,
    )


def test_recorded_params_keep_the_cell_identity():
    # the committed cells record {"seed": 0}: spelling out the defaults records the same
    assert kd.recorded_params("sparse_text", {"seed": 0}) == {"seed": 0}
    assert kd.recorded_params("sparse_text", SparseTextParams.defaults()) == {"seed": 0}
    assert kd.recorded_params("sparse_text", {}) == {"seed": 0}
    # a changed value is recorded, normalized to its declared type
    assert kd.recorded_params("sparse_text", {"n_samples": 100000, "nnz_per_row": 50}) == {
        "n_samples": 100000,
        "nnz_per_row": 50.0,
        "seed": 0,
    }
    assert isinstance(kd.recorded_params("synth", {"std": 2})["std"], float)
    # a dataset without a declared schema keeps what it is given
    assert kd.recorded_params("orl", {}) == {}


@pytest.mark.parametrize(
    ("params", "words"),
    [
        case({"n_samples": 0}, says="parameter 'n_samples' must be an integer >= 1",
             **PARAM_RANGE),
        case({"n_clusters": 60, "n_samples": 50}, **PARAM_CLUSTERS_ROWS),
        case({"topic_terms": 50000}, says="must be <= 'n_features'", doing="configure",
             cause="sparse_text was asked for more topic terms (dataset.params.topic_terms) "
             "than it has features (dataset.params.n_features)",
             fix="lower dataset.params.topic_terms or raise dataset.params.n_features"),
        case({"topic_weight": -0.5},
             says="parameter 'topic_weight' must be a number >= 0.0 and <= 1.0", **PARAM_RANGE),
        case({"nnz_per_row": 30000.0}, says="parameter 'nnz_per_row' must be a number > 0.0",
             **PARAM_RANGE),
        case({"n_samples": 2.5}, says="parameter 'n_samples' must be an integer >= 1",
             **PARAM_RANGE),
        case({"n_sampels": 5}, **PARAM_UNKNOWN),
    ],
)  # fmt: skip
def test_bad_params_are_one_line_before_any_work(params, words):
    with pytest.raises(kd.DatasetError) as err:
        kd.recorded_params("sparse_text", params)
    message = str(err.value)
    assert words in message and "\n" not in message
    for key, value in params.items():  # the parameter named, with the value given
        assert f"'{key}'" in message
        assert f"({value})" in message or f"got {value}" in message or "unknown" in message
    assert message.startswith("dataset 'sparse_text': ") and "defaults: n_samples=15564" in message
