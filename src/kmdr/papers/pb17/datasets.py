"""Handwritten digits: MNIST read from its IDX files, and scikit-learn's bundled 8x8 digits as a
small stand-in for it.

Pourkamali-Anaraki and Becker (IEEE Trans. Inf. Theory 63(5), 2017) cluster the MNIST digits 0,
3 and 9 (21,002 images of 28x28: the training and test sets together). MNIST's files are read
as published (gzip), pinned by their md5 sums, downloaded or taken from the data cache or the
mirror; where they cannot be obtained,
scikit-learn's digits (1,797 images of 8x8, UCI's optical recognition set) restricted to the
same digits stand in: the same task on far smaller, coarser images, NOT MNIST.

Both loaders take ``digits``, the digits kept (labels 0..k-1 in increasing digit order), and
return pixels as float64 in the source's own scale (0..16 for scikit-learn's, 0..255 for MNIST).
Their declarations (:data:`MNIST`, :data:`DIGITS`) are the datasets of pb17's :class:`Paper`,
which the dataset registry lists beside kmdr's own.
"""

from __future__ import annotations

import gzip
import numbers
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kmdr.datasets import Dataset, DatasetEntry, fetch

__all__ = [
    "ALL_DIGITS",
    "DIGITS",
    "MNIST",
    "MNIST_FILES",
    "PB17_DIGITS",
    "check_digits",
    "load_digits_subset",
    "load_mnist",
    "read_idx",
]

#: The digits Pourkamali-Anaraki and Becker cluster (their MNIST experiments).
PB17_DIGITS = (0, 3, 9)
ALL_DIGITS = tuple(range(10))
#: MNIST's four IDX files as published (gzip), training set first: their images, then their
#: labels; each pinned by its published md5 in the data registry.
MNIST_FILES = (
    "mnist/train-images-idx3-ubyte.gz",
    "mnist/train-labels-idx1-ubyte.gz",
    "mnist/t10k-images-idx3-ubyte.gz",
    "mnist/t10k-labels-idx1-ubyte.gz",
)
#: IDX type codes this reader accepts: unsigned bytes only (MNIST's images and labels).
_IDX_UBYTE = 0x08


def check_digits(digits) -> tuple[int, ...]:
    """``digits`` as a sorted tuple of at least two distinct digits 0..9; a one-line ValueError
    otherwise."""
    if isinstance(digits, str | bytes) or not isinstance(digits, Sequence | np.ndarray):
        try:
            digits = list(digits)
        except TypeError:
            raise ValueError(
                f"parameter 'digits' must be a list of digits 0..9, got {digits!r}"
            ) from None
    values = list(digits)
    ok = all(
        isinstance(d, numbers.Integral) and not isinstance(d, bool) and 0 <= d <= 9 for d in values
    )
    if not ok or len(set(values)) != len(values) or len(values) < 2:
        raise ValueError(
            "parameter 'digits' must list at least two distinct digits 0..9 (e.g. [0, 3, 9]), "
            f"got {list(values)!r}"
        )
    return tuple(sorted(int(d) for d in values))


def _restrict(X: np.ndarray, labels: np.ndarray, digits: tuple[int, ...]):
    """The rows of the kept digits, in their order in the file, labelled 0..k-1."""
    keep = np.isin(labels, digits)
    y = np.searchsorted(np.asarray(digits), labels[keep]).astype(np.int64)
    return X[keep], y


def load_digits_subset(digits=PB17_DIGITS) -> Dataset:
    """scikit-learn's bundled handwritten digits (8x8, pixels 0..16) of ``digits`` only.

    A stand-in for MNIST (28x28) in pb17's experiments: 541 images for the digits 0, 3 and 9
    (178, 183 and 180), against MNIST's 21,002.
    """
    from sklearn.datasets import load_digits

    digits = check_digits(digits)
    bunch = load_digits()
    X, y = _restrict(np.asarray(bunch.data, dtype=np.float64), np.asarray(bunch.target), digits)
    shown = ", ".join(map(str, digits))
    return Dataset(
        name="digits",
        X=X,
        y=y,
        n_clusters=len(digits),
        feature_names=None,
        description=(
            f"scikit-learn's bundled 8x8 handwritten digits (UCI), digits {shown}; a stand-in "
            "for MNIST, NOT MNIST; pixels 0..16"
        ),
        image_shape=(8, 8),
        image_order="C",
    )


def read_idx(path: str | Path) -> np.ndarray:
    """An IDX file of unsigned bytes (MNIST's format) as a uint8 array of its declared shape.

    The header is two zero bytes, the type code (0x08: unsigned byte), the number of dimensions,
    then each dimension as a big-endian 32-bit integer; the values follow. A file of another
    type, or whose length is not exactly that of its header and values (a truncated download),
    is a one-line ValueError naming the file. A ``.gz`` file (MNIST as published) is read through
    gzip.
    """
    path = Path(path)
    if path.suffix == ".gz":
        try:
            raw = gzip.decompress(path.read_bytes())
        except (OSError, EOFError) as err:
            raise ValueError(f"{path}: not a readable gzip file ({err})") from None
    else:
        raw = path.read_bytes()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise ValueError(f"{path}: not an IDX file (it does not start with two zero bytes)")
    if raw[2] != _IDX_UBYTE:
        raise ValueError(f"{path}: IDX type code 0x{raw[2]:02x}, expected 0x08 (unsigned bytes)")
    ndim = raw[3]
    header = 4 + 4 * ndim
    if ndim < 1 or len(raw) < header:
        raise ValueError(f"{path}: truncated IDX header ({len(raw)} bytes for {ndim} dimensions)")
    shape = tuple(int(v) for v in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    expected = header + int(np.prod(shape, dtype=np.int64))
    if len(raw) != expected:
        state = "truncated" if len(raw) < expected else "longer than its header says"
        raise ValueError(
            f"{path}: {state}: {len(raw)} bytes, expected {expected} for shape {shape}"
        )
    return np.frombuffer(raw, dtype=np.uint8, offset=header).reshape(shape)


def load_mnist(*, data_dir=None, mirror=None, digits=ALL_DIGITS) -> Dataset:
    """MNIST (LeCun, Cortes, Burges), its training and test sets together (70,000 x 784, pixels
    0..255), restricted to ``digits``; pb17's 0, 3, 9 give 21,002 images."""
    digits = check_digits(digits)
    paths = [fetch(p, dataset="mnist", data_dir=data_dir, mirror=mirror) for p in MNIST_FILES]
    parts_X, parts_y = [], []
    for images_path, labels_path in ((paths[0], paths[1]), (paths[2], paths[3])):
        images, labels = read_idx(images_path), read_idx(labels_path)
        if images.ndim != 3 or images.shape[1:] != (28, 28):
            raise ValueError(f"{images_path}: images of shape {images.shape}, expected (n, 28, 28)")
        if labels.ndim != 1 or labels.shape[0] != images.shape[0]:
            raise ValueError(f"{labels_path}: {labels.shape} labels for {images.shape[0]} images")
        if labels.size and labels.max() > 9:
            raise ValueError(f"{labels_path}: label {int(labels.max())}, expected digits 0..9")
        parts_X.append(images.reshape(images.shape[0], -1))
        parts_y.append(labels)
    X, y = _restrict(np.concatenate(parts_X).astype(np.float64), np.concatenate(parts_y), digits)
    shown = ", ".join(map(str, digits))
    return Dataset(
        name="mnist",
        X=X,
        y=y,
        n_clusters=len(digits),
        feature_names=None,
        description=f"MNIST 28x28, training and test sets, digits {shown}; pixels 0..255",
        image_shape=(28, 28),
        image_order="C",
    )


#: MNIST, whole or restricted to some digits (``dataset.params.digits``).
MNIST = DatasetEntry(
    "mnist", load_mnist, "file", "MNIST", MNIST_FILES,
    n_samples=70000, n_features=784, n_clusters=10, sparse=False,
    params={"digits": ALL_DIGITS},
    description="MNIST handwritten digits 28x28, training and test sets (IDX files)",
)  # fmt: skip
#: The stand-in: scikit-learn's 8x8 digits 0, 3, 9.
DIGITS = DatasetEntry(
    "digits", load_digits_subset, "bundled", "Digits 0, 3, 9 (MNIST stand-in)",
    n_samples=541, n_features=64, n_clusters=3, sparse=False,
    params={"digits": PB17_DIGITS},
    description="scikit-learn's 8x8 digits 0, 3, 9: a small stand-in for MNIST, NOT MNIST",
)  # fmt: skip
