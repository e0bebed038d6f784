"""Stand-in ``nips_1-17.mat`` files for tests: the real file's variables and layout, written here.

The real NIPS count matrix (pinned by its git blob id) needs the network, but its metadata can be
had (``nips_metadata/`` of the data registry: the 2484 document names, their section labels and the
14036-term vocabulary, all hashed; found as kmdr finds data, see ``_data.py``). A file written by
:func:`write_nips_mirror` with the real document names therefore passes the loader's content
validation (184 documents = CN 50, LT 68, NS 66, the same selection as ``nips17.labels``), so
``kmdr.datasets.load_dataset("nips")`` runs its real code path on it (the test pins the written
file): mirror copy, parse, select, validate, term filter. Only the counts are made up.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import scipy.io as sio
import scipy.sparse as sp

from _data import mirror_of, real_file
from kmdr.datasets import _registry

#: The registered NIPS metadata files (``nips_metadata/...``).
NIPS_METADATA_FILES = tuple(p for p in _registry.registry() if p.startswith("nips_metadata/"))
SECTIONS = ("CN", "LT", "NS")


def matlab_cell(strings: Sequence[str]) -> np.ndarray:
    """A MATLAB cell column of strings, as savemat writes an object array."""
    out = np.empty((len(strings), 1), dtype=object)
    for i, s in enumerate(strings):
        out[i, 0] = s
    return out


def write_nips_mat(path: Path, counts_words_x_docs, words, docs_names) -> Path:
    """A file with nips_1-17.mat's variables and layout (counts: sparse words x docs)."""
    sio.savemat(
        path,
        {
            "counts": sp.csc_matrix(counts_words_x_docs),
            "words": matlab_cell(words),
            "docs_names": matlab_cell(docs_names),
        },
    )
    return path


def _lines(name: str) -> list[str]:
    """The lines of ``nips_metadata/<name>`` (the test skips, with kmdr's reason, when it cannot
    be had)."""
    path = real_file(f"nips_metadata/{name}", "nips")
    return path.read_text(encoding="utf-8").splitlines()


def real_docnames() -> list[str]:
    """The 2484 document names of nips_1-17.mat (``nips17.docnames``), in the file's order."""
    return _lines("nips17.docnames")


def real_labels() -> list[str]:
    """One section code per document (``nips17.labels``: CN, LT, NS or ``--``)."""
    return [s.strip() for s in _lines("nips17.labels")]


def real_vocab() -> list[str]:
    """The 14036 terms of nips_1-17.mat (``nips17.vocab``)."""
    return _lines("nips17.vocab")


def write_nips_mirror(mirror: Path, counts_words_x_docs, words) -> Path:
    """A mirror folder holding ``nips/nips_1-17.mat`` (the given counts and words, the real 2484
    document names) and a copy of the real ``nips_metadata/``; returns ``mirror``."""
    (mirror / "nips").mkdir(parents=True, exist_ok=True)
    write_nips_mat(mirror / "nips" / "nips_1-17.mat", counts_words_x_docs, words, real_docnames())
    if not (mirror / "nips_metadata").exists():
        mirror_of(mirror, *NIPS_METADATA_FILES, dataset="nips")
    return mirror


def random_counts(n_words: int, n_docs: int, *, density: float = 0.02, seed: int = 0):
    """Unstructured sparse counts (words x docs), values in 1..5."""
    rng = np.random.default_rng(seed)
    counts = sp.random(n_words, n_docs, density=density, random_state=rng, format="csc")
    counts.data = np.ceil(counts.data * 5)
    return counts


def sectioned_counts(
    n_terms: int = 300,
    *,
    strong_terms: Sequence[str] = (),
    topic_terms_per_section: int = 25,
    seed: int = 0,
) -> tuple[sp.csc_matrix, list[str]]:
    """Counts (words x 2484 docs) and ``n_terms`` real NIPS terms with section structure.

    The words are ``strong_terms`` plus terms drawn from the real vocabulary, in vocabulary
    (alphabetical) order. In the 184 documents of sections CN/LT/NS every term has a Poisson
    background count; each section has its own ``topic_terms_per_section`` terms with a higher
    rate, so the three sections are separable but not trivially; the ``strong_terms`` (split
    across the sections) get much higher rates, which makes them the highest-leverage terms.
    Every term occurs in the selected documents (none is dropped by the loader). The other
    documents get sparse noise.
    """
    rng = np.random.default_rng(seed)
    vocab = real_vocab()
    strong = list(dict.fromkeys(strong_terms))
    missing = [t for t in strong if t not in vocab]
    if missing:
        raise ValueError(f"not in nips17.vocab: {missing}")
    pool = np.array(sorted(set(vocab) - set(strong)))
    n_other = n_terms - len(strong)
    if n_other < 3 * topic_terms_per_section:
        raise ValueError("n_terms is too small for the topic terms")
    others = list(rng.choice(pool, size=n_other, replace=False))
    words = sorted(strong + others)
    index = {w: i for i, w in enumerate(words)}

    labels = real_labels()
    n_docs = len(labels)
    section = np.array([SECTIONS.index(s) if s in SECTIONS else -1 for s in labels])
    rates = np.full((n_terms, len(SECTIONS)), 0.15)
    topics = rng.permutation([index[w] for w in others])
    for s in range(len(SECTIONS)):
        own = topics[s * topic_terms_per_section : (s + 1) * topic_terms_per_section]
        rates[own, s] = 0.7
    for j, term in enumerate(strong):
        rates[index[term]] = 3.0
        rates[index[term], j % len(SECTIONS)] = 4.0

    dense = np.zeros((n_terms, n_docs))
    selected = np.flatnonzero(section >= 0)
    dense[:, selected] = rng.poisson(rates[:, section[selected]])
    # every term occurs at least once in the selected documents
    absent = np.flatnonzero(dense[:, selected].sum(axis=1) == 0)
    dense[absent, rng.choice(selected, size=absent.size)] = 1
    others_docs = np.flatnonzero(section < 0)
    dense[:, others_docs] = random_counts(
        n_terms, others_docs.size, density=0.01, seed=seed + 1
    ).toarray()
    return sp.csc_matrix(dense), words
