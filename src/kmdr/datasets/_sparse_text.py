"""``sparse_text``: a SYNTHETIC sparse stand-in for RCV1, built in chunks of rows.

The matrix is generated chunk by chunk (about :data:`CHUNK_TOKENS` tokens at a time), so memory
stays at about the size of the result: no array holds every token, and nothing is n x d or dense.
A chunk's rows are computed exactly as for the whole matrix at once (every step is row by row,
the random numbers are the same numbers, see :func:`_token_streams`), so the matrix does not
depend on the chunk size, bit for bit.

Any block of rows is drawn the same way on its own (:func:`sparse_text_rows`, the chunked path's
:class:`~kmdr.datasets.blocks.SparseTextBlocks`): the token streams jump to the block's first
token, and the idf comes from the document frequencies of the whole matrix, drawn once in a pass
over every token (:func:`document_frequencies`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._base import Dataset
from ._synthetic import SparseTextParams

__all__ = [
    "CHUNK_TOKENS",
    "document_frequencies",
    "make_sparse_text",
    "sparse_text_labels",
    "sparse_text_rows",
    "sparse_text_topic_sizes",
]

#: Tokens generated at a time: about 2^20 (a chunk's temporaries take some 60 MiB).
CHUNK_TOKENS = 1 << 20


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


def _token_streams(rng: np.random.Generator, count: int, length: int, skip: int = 0) -> list:
    """``count`` Generators that draw, chunk by chunk, what ``count`` successive
    ``rng.random(length)`` calls would draw, from their ``skip``-th value on.

    A uniform double is one 64-bit output of the bit generator, so stream i starts where
    ``rng``'s state is advanced by ``i * length + skip`` outputs (``PCG64.advance``): any row's
    tokens are drawn without drawing those before them.
    """
    streams = []
    for i in range(count):
        bit_generator = type(rng.bit_generator)(0)
        bit_generator.state = rng.bit_generator.state
        bit_generator.advance(i * length + skip)
        streams.append(np.random.Generator(bit_generator))
    return streams


def _row_chunks(lengths: np.ndarray, tokens: int):
    """(first row, end row) of consecutive rows holding about ``tokens`` tokens each."""
    ends = np.cumsum(lengths)
    lo = 0
    while lo < lengths.size:
        before = ends[lo - 1] if lo else 0
        hi = max(lo + 1, int(np.searchsorted(ends, before + tokens, side="right")))
        yield lo, hi
        lo = hi


def sparse_text_topic_sizes(p: SparseTextParams) -> np.ndarray:
    """Each topic's number of documents: skewed sizes, at least one each."""
    n, k = p.n_samples, p.n_clusters
    share = _zipf(k, 0.7)
    sizes = 1 + np.floor(share * (n - k)).astype(np.int64)
    sizes[: n - sizes.sum()] += 1
    return sizes


def sparse_text_labels(p: SparseTextParams) -> np.ndarray:
    """Every document's topic (int64, rows grouped by topic, :func:`sparse_text_topic_sizes`)."""
    return np.repeat(np.arange(p.n_clusters, dtype=np.int64), sparse_text_topic_sizes(p))


def _token_model(p: SparseTextParams, first_row: int = 0) -> _TokenModel:
    """What the documents draw their tokens from, with the token streams at the first token of
    row ``first_row`` (every draw before the tokens is made again: the term distributions and
    the documents' lengths, a few vectors of ``n_samples`` or ``n_features`` values)."""
    V, m = p.n_features, p.topic_terms
    rng = np.random.default_rng(p.seed)
    y = sparse_text_labels(p)

    # Term distributions.
    order = rng.permutation(V)
    background = np.empty(V)
    background[order] = _zipf(V, 1.07)
    topic_vocab = rng.integers(0, V, size=(p.n_clusters, m))
    topic_weights = _zipf(m, 1.0)

    # Tokens per document, calibrated on one topic's mixture to give ~nnz_per_row distinct terms.
    q = (1.0 - p.topic_weight) * background
    np.add.at(q, topic_vocab[0], p.topic_weight * topic_weights)
    mean_tokens = _tokens_for_unique(np.clip(q, 0.0, 1.0 - 1e-12), p.nnz_per_row)
    sigma = 0.4
    lengths = rng.lognormal(np.log(mean_tokens) - sigma**2 / 2, sigma, size=p.n_samples)
    lengths = np.maximum(1, np.rint(lengths)).astype(np.int64)

    # Every token draws three uniforms, one stream each: whether it comes from the topic, its
    # background term, its topic term.
    before = int(lengths[:first_row].sum())
    streams = _token_streams(rng, 3, int(lengths.sum()), before)
    return _TokenModel(
        lengths, y, streams, p.topic_weight, order, np.cumsum(_zipf(V, 1.07)), topic_vocab,
        np.cumsum(topic_weights),
    )  # fmt: skip


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
    Memory: about the result's size (12 bytes a nonzero), see the module docstring.
    """
    p = SparseTextParams.checked(params)
    n, V, k = p.n_samples, p.n_features, p.n_clusters
    draw = _token_model(p)
    lengths, y = draw.lengths, draw.y
    X = _tf_idf(draw, list(_row_chunks(lengths, CHUNK_TOKENS)), n, V)
    return Dataset(
        name="sparse_text",
        X=X,
        y=y,
        n_clusters=k,
        feature_names=None,
        description=(
            f"SYNTHETIC sparse text stand-in for RCV1: {n} x {V}, {k} planted topics, "
            f"density {X.nnz / (n * V):.3%}, Zipf term frequencies, tf-idf rows of unit norm, "
            f"seed {p.seed}"
        ),
    )


@dataclass(frozen=True)
class _TokenModel:
    """What a chunk of documents draws its tokens from."""

    lengths: np.ndarray  # tokens of each document
    y: np.ndarray  # topic of each document
    streams: list  # the three uniform streams (_token_streams)
    mix: float  # topic_weight
    order: np.ndarray  # background rank -> term
    background_cdf: np.ndarray  # cumulative Zipf weights of the background ranks
    topic_vocab: np.ndarray  # topic x rank -> term
    topic_cdf: np.ndarray  # cumulative Zipf weights of a topic's ranks

    def term_counts(self, lo: int, hi: int):
        """The term counts of rows lo:hi, a canonical CSR matrix (sorted terms, summed counts)."""
        import scipy.sparse as sp

        V, m = self.order.size, self.topic_cdf.size
        doc = np.repeat(np.arange(lo, hi), self.lengths[lo:hi])
        from_topic = self.streams[0].random(doc.size) < self.mix
        rank = np.searchsorted(self.background_cdf, self.streams[1].random(doc.size))
        term = self.order[np.minimum(rank, V - 1)]
        rank = np.minimum(np.searchsorted(self.topic_cdf, self.streams[2].random(doc.size)), m - 1)
        term = np.where(from_topic, self.topic_vocab[self.y[doc], rank], term)
        doc -= lo
        tf = sp.csr_matrix((np.ones(doc.size), (doc, term)), shape=(hi - lo, V))
        tf.sum_duplicates()
        return tf


def _tf_idf(draw: _TokenModel, chunks: list, n: int, V: int):
    """The tf-idf matrix, rows scaled to unit norm, drawn chunk by chunk of rows.

    First every chunk's term counts go into one array of counts and one of terms (sized for
    every token, of which only the nonzeros' part is ever written), with the document
    frequencies; then each chunk's values are computed from its counts and the idf.
    """
    import scipy.sparse as sp

    tokens = int(draw.lengths.sum())
    index = _index_dtype(tokens, n, V)
    terms = np.empty(tokens, dtype=index)
    counts = np.empty(tokens, dtype=np.min_scalar_type(int(draw.lengths.max())))
    indptr = np.zeros(n + 1, dtype=index)
    df = np.zeros(V, dtype=np.int64)
    for lo, hi in chunks:
        tf = draw.term_counts(lo, hi)
        at = indptr[lo]
        terms[at : at + tf.nnz] = tf.indices
        counts[at : at + tf.nnz] = tf.data
        indptr[lo + 1 : hi + 1] = tf.indptr[1:] + at
        df += np.bincount(tf.indices, minlength=V)
    del tf
    nnz = int(indptr[-1])
    indices = terms[:nnz].copy()  # the untouched rest of terms was never resident
    del terms
    idf = _idf(df, n)
    data = np.empty(nnz)
    for lo, hi in chunks:
        start, end = indptr[lo], indptr[hi]
        X = sp.csr_matrix(
            (counts[start:end].astype(np.float64), indices[start:end], indptr[lo : hi + 1] - start),
            shape=(hi - lo, V),
        )
        data[start:end] = _weigh(X, idf).data
    X = sp.csr_matrix((data, indices, indptr), shape=(n, V))
    X.sort_indices()  # sorted already (term counts are canonical): checked and flagged
    return X


def _index_dtype(tokens: int, n: int, V: int):
    """The integer type of the whole matrix's indices and row pointers."""
    return np.int32 if max(tokens, n, V) < np.iinfo(np.int32).max else np.int64


def _idf(df: np.ndarray, n: int) -> np.ndarray:
    return np.log((1.0 + n) / (1.0 + df)) + 1.0


def _weigh(X, idf: np.ndarray):
    """Term counts ``X`` (CSR float64, canonical) as tf-idf rows of unit norm, in place. Every
    step is row by row, so a row's values do not depend on the rows computed with it."""
    X.data = (1.0 + np.log(X.data)) * idf[X.indices]
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    # each value times its row's scale: the product diag(scale) @ X computes, value by value
    X.data *= np.repeat(1.0 / np.maximum(norms, 1e-300), np.diff(X.indptr))
    return X


def document_frequencies(p: SparseTextParams) -> np.ndarray:
    """The number of documents holding each term (int64, length ``n_features``): the idf needs
    every row's terms, so this draws every token once, chunk by chunk (memory: one chunk; time:
    about that of the whole matrix)."""
    draw = _token_model(p)
    df = np.zeros(p.n_features, dtype=np.int64)
    for lo, hi in _row_chunks(draw.lengths, CHUNK_TOKENS):
        df += np.bincount(draw.term_counts(lo, hi).indices, minlength=p.n_features)
    return df


def sparse_text_rows(p: SparseTextParams, lo: int, hi: int, df: np.ndarray):
    """Rows ``lo:hi`` of :func:`make_sparse_text`'s matrix, bit for bit, drawn on their own:
    the token streams jump to row ``lo``'s first token (:func:`_token_streams`) and ``df``
    (:func:`document_frequencies`) gives the idf. Memory: the block and one chunk of tokens."""
    import scipy.sparse as sp

    draw = _token_model(p, lo)
    idf = _idf(df, p.n_samples)
    index = _index_dtype(int(draw.lengths.sum()), p.n_samples, p.n_features)
    data, indices, indptr = [], [], [np.zeros(1, dtype=index)]
    for a, b in _row_chunks(draw.lengths[lo:hi], CHUNK_TOKENS):
        X = _weigh(draw.term_counts(lo + a, lo + b), idf)
        data.append(X.data)
        indices.append(X.indices.astype(index, copy=False))
        indptr.append((X.indptr[1:] + indptr[-1][-1]).astype(index, copy=False))
        del X
    X = sp.csr_matrix(
        (np.concatenate(data), np.concatenate(indices), np.concatenate(indptr)),
        shape=(hi - lo, p.n_features),
    )
    X.sort_indices()  # sorted already (term counts are canonical): checked and flagged
    return X
