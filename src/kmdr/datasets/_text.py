"""Sparse text datasets: the bmd09 NIPS matrix and LIBSVM's RCV1 multiclass training split.

Both source files are pinned in the data registry: NIPS's ``nips_1-17.mat`` by the git blob id
of the copy committed to a public repository, RCV1's LIBSVM file by its published sha256. Their
content is validated as well: the NIPS selection must give 184 documents, 50/68/66 per section,
and agree with the hashed ``nips17.labels`` metadata; RCV1 must be 15564 x 47236 with labels among
LIBSVM's 53 classes (the training split holds 51 of them). The builders take the expected values
as arguments so tests can run them on small files of the same format.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # scipy.sparse loads where sparse data is handled
    import scipy.sparse as sp

from ._base import Dataset, consecutive_labels
from ._registry import fetch, registry

NIPS_SECTIONS = ("CN", "LT", "NS")  # Control & RL, Learning Theory, Neuroscience (NIPS 2001-03)
NIPS_SECTION_SIZES = {"CN": 50, "LT": 68, "NS": 66}  # bmd09: 184 documents
NIPS_N_TERMS = 6314  # bmd09's reported number of terms occurring in the 184 documents
NIPS_FILE = "nips/nips_1-17.mat"
NIPS_LABELS_FILE = "nips_metadata/nips17.labels"  # hashed: checks the document selection
NIPS_METADATA_FILES = (NIPS_LABELS_FILE,)
RCV1_FILE = "rcv1/rcv1_train.multiclass.bz2"
RCV1_SHAPE = (15564, 47236)
RCV1_N_CLASSES = 53  # LIBSVM's labels 1..53; the training split holds 51 of them


def _cellstr(a: np.ndarray) -> list[str]:
    """A MATLAB cell array of strings (or a char matrix) as a flat list of Python str."""
    a = np.asarray(a)
    if a.dtype.kind == "U":  # char matrix: one string per row
        return [str(s).rstrip() for s in a.ravel()]
    out = []
    for cell in a.ravel():
        cell = np.asarray(cell)
        out.append(str(cell.ravel()[0]).rstrip() if cell.size else "")
    return out


def build_nips(
    path: str | Path,
    *,
    sections: Sequence[str] = NIPS_SECTIONS,
    expected_sizes: dict[str, int] | None = NIPS_SECTION_SIZES,
    reference_labels: Sequence[str] | None = None,
) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """Build the NIPS document-term matrix from a file laid out like Chechik's ``nips_1-17.mat``.

    The file holds ``counts`` (sparse, words x docs), ``words`` and ``docs_names`` (cell arrays
    of strings, in row and column order). Rule (bmd09): keep the documents whose name
    contains one of ``sections`` (e.g. ``2001/CN01``), transpose to docs x words, then drop the
    terms that do not occur in the kept documents. Values stay raw counts.

    ``expected_sizes`` (per section) is checked when given; ``reference_labels`` (one section code
    per document of the file, e.g. the lines of ``nips17.labels``) must then select the same
    documents with the same sections.

    Returns ``(X, y, terms)``: CSR float64 counts, int64 labels (index in ``sections``) and the
    kept terms.
    """
    import scipy.io as sio
    import scipy.sparse as sp

    path = Path(path)
    m = sio.loadmat(path, variable_names=("counts", "words", "docs_names"))
    for var in ("counts", "words", "docs_names"):
        if var not in m:
            raise ValueError(f"{path}: variable {var!r} not found (not a nips_1-17.mat layout)")
    counts = sp.csc_matrix(m["counts"], dtype=np.float64)
    words = np.array(_cellstr(m["words"]), dtype=str)
    names = _cellstr(m["docs_names"])
    if counts.shape != (words.size, len(names)):
        raise ValueError(
            f"{path}: counts is {counts.shape}, expected words x docs = {words.size} x {len(names)}"
        )

    doc_section = []
    for name in names:
        hits = [s for s in sections if s in name]
        if len(hits) > 1:
            raise ValueError(f"{path}: document name {name!r} matches several sections {hits}")
        doc_section.append(hits[0] if hits else None)
    selected = np.array([i for i, s in enumerate(doc_section) if s is not None], dtype=np.int64)
    y = np.array([sections.index(doc_section[i]) for i in selected], dtype=np.int64)

    if reference_labels is not None:
        ref = [str(s).strip() for s in reference_labels]
        ref_selected = [i for i, s in enumerate(ref) if s in sections]
        if len(ref) != len(names) or ref_selected != selected.tolist():
            raise ValueError(
                f"{path}: the documents selected by name ({selected.size}) differ from those "
                f"labelled {'/'.join(sections)} in the reference labels ({len(ref_selected)})"
            )
        if any(ref[i] != doc_section[i] for i in selected):
            raise ValueError(f"{path}: document sections disagree with the reference labels")

    if expected_sizes is not None:
        sizes = {s: int(np.sum(y == j)) for j, s in enumerate(sections)}
        if sizes != dict(expected_sizes):
            raise ValueError(
                f"{path}: selected {selected.size} documents with section sizes {sizes}, "
                f"expected {sum(expected_sizes.values())} with {dict(expected_sizes)}"
            )

    X = counts[:, selected].T.tocsr()
    X.eliminate_zeros()
    keep = np.flatnonzero(np.bincount(X.indices, minlength=X.shape[1]) > 0)
    X = X[:, keep]
    X.sort_indices()
    return X, y, words[keep]


def load_nips(*, data_dir=None, mirror=None) -> Dataset:
    """bmd09's NIPS matrix: 184 documents (CN 50, LT 68, NS 66) x the terms occurring in them."""
    path = fetch(NIPS_FILE, dataset="nips", data_dir=data_dir, mirror=mirror)
    labels_file = fetch(NIPS_LABELS_FILE, dataset="nips", data_dir=data_dir, mirror=mirror)
    reference = labels_file.read_text(encoding="utf-8").splitlines()
    X, y, terms = build_nips(path, reference_labels=reference)
    if X.shape[1] != NIPS_N_TERMS:
        warnings.warn(
            f"nips: {X.shape[1]} terms occur in the 184 documents; bmd09 reports {NIPS_N_TERMS}",
            stacklevel=2,
        )
    return Dataset(
        name="nips",
        X=X,
        y=y,
        n_clusters=len(NIPS_SECTIONS),
        feature_names=terms,
        description=(
            f"NIPS 2001-2003 papers of sections CN/LT/NS, raw word counts, {X.shape[0]} docs x "
            f"{X.shape[1]} terms, built from {registry()[NIPS_FILE].url} (pinned by its "
            "git blob id; 184 docs = 50/68/66, selection matches nips17.labels)"
        ),
    )


def read_rcv1(
    path: str | Path,
    *,
    n_features: int = RCV1_SHAPE[1],
    expected_n_samples: int | None = RCV1_SHAPE[0],
    expected_n_classes: int | None = RCV1_N_CLASSES,
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Read a LIBSVM multiclass file (plain, .gz or .bz2) as CSR float64 and 0-based labels.

    ``expected_n_samples`` is checked when given; ``expected_n_classes`` bounds the classes
    present (labels 1..n): a split may lack a few classes of its dataset, as RCV1's training
    split lacks 2 of LIBSVM's 53.
    """
    import scipy.sparse as sp

    path = Path(path)
    # scikit-learn's import costs a second or more (scipy.stats): only when RCV1 is read.
    from sklearn.datasets import load_svmlight_file

    X, labels = load_svmlight_file(str(path), n_features=n_features, dtype=np.float64)
    X = sp.csr_matrix(X)
    y = consecutive_labels(labels)
    n_classes = int(y.max()) + 1 if y.size else 0
    if expected_n_samples is not None and X.shape[0] != expected_n_samples:
        raise ValueError(f"{path}: {X.shape[0]} samples, expected {expected_n_samples}")
    if expected_n_classes is not None and not (
        n_classes > 1 and labels.min() >= 1 and labels.max() <= expected_n_classes
    ):
        raise ValueError(
            f"{path}: {n_classes} classes labelled {labels.min():g}..{labels.max():g}, "
            f"expected labels among 1..{expected_n_classes}"
        )
    return X, y


def load_rcv1(*, data_dir=None, mirror=None) -> Dataset:
    """LIBSVM's RCV1 multiclass training split: 15564 x 47236 sparse tf-idf; k is the number of
    classes present in the file (51 of LIBSVM's 53 labels, by the catalogue that publishes its
    sha256)."""
    path = fetch(RCV1_FILE, dataset="rcv1", data_dir=data_dir, mirror=mirror)
    X, y = read_rcv1(path)
    return Dataset(
        name="rcv1",
        X=X,
        y=y,
        n_clusters=int(y.max()) + 1,
        feature_names=None,
        description=(
            f"RCV1 multiclass training split, LIBSVM ({registry()[RCV1_FILE].url}), sparse "
            f"tf-idf, {X.shape[0]} x {X.shape[1]}, {int(y.max()) + 1} of LIBSVM's 53 classes "
            "present (pinned by its published sha256)"
        ),
    )
