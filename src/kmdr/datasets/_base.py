"""The :class:`Dataset` record every loader returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # scipy.sparse loads where sparse data is handled
    import scipy.sparse as sp


#: The label of every row of unlabeled data (:attr:`Dataset.labeled` is False).
UNLABELED = -1


@dataclass(frozen=True, eq=False)  # arrays: compare fields explicitly, not with ==
class Dataset:
    """A loaded dataset.

    Attributes
    ----------
    name : the registry name (``"orl"``, ``"nips"``, ...).
    X : ``n_samples x n_features``; a float64 :class:`numpy.ndarray`, or a float64
        :class:`scipy.sparse.csr_matrix` when the data is sparse (text). Never densified here.
    y : int64 labels, **0-based and consecutive** (``0 .. n_clusters - 1``); for data without
        labels (a user's file), :data:`UNLABELED` in every row: only F is scored then. For USPS
        the label is the digit itself; for the face and object sets it is the subject/object
        number minus one.
    n_clusters : the number of classes, ``k``.
    feature_names : terms (a numpy array of ``str``) for text with a vocabulary; None for pixels
        and for data without a vocabulary (the LIBSVM RCV1 file, synthetic data).
    description : one line: what the data is and where it comes from; "SYNTHETIC" for generated
        data.
    image_shape : ``(height, width)`` for pixel data, else None.
    image_order : how a row reshapes to an upright image: ``"C"`` (row-major) or ``"F"``
        (column-major, the MATLAB layout); see :meth:`image`.
    k_chosen : whether ``n_clusters`` was chosen by the user rather than counted from ``y`` (a
        user's file with ``n_clusters`` given): then ``y`` may hold another number of classes.
    fingerprint : a short text that changes whenever the data can (:mod:`._fingerprint`), filled
        in by :func:`~kmdr.datasets.load_dataset`; None for a Dataset built by hand (the runner
        then fingerprints its content). Part of every cell's identity.
    """

    name: str
    X: np.ndarray | sp.csr_matrix
    y: np.ndarray
    n_clusters: int
    feature_names: np.ndarray | None
    description: str
    image_shape: tuple[int, int] | None = None
    image_order: str = "C"
    fingerprint: str | None = None
    k_chosen: bool = False

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def is_sparse(self) -> bool:
        import scipy.sparse as sp

        return sp.issparse(self.X)

    @property
    def labeled(self) -> bool:
        """Whether ``y`` holds classes (else every row is :data:`UNLABELED`)."""
        return not is_unlabeled(self.y)

    @property
    def density(self) -> float:
        """The fraction of nonzero entries of ``X``."""
        nnz = self.X.nnz if self.is_sparse else np.count_nonzero(self.X)
        return nnz / (self.n_samples * self.n_features)

    def image(self, i: int) -> np.ndarray:
        """Row ``i`` as an upright 2-D image (pixel data only)."""
        if self.image_shape is None:
            raise ValueError(f"dataset {self.name!r} has no image shape")
        return np.asarray(self.X[i]).reshape(self.image_shape, order=self.image_order)

    def __repr__(self) -> str:
        kind = "sparse" if self.is_sparse else "dense"
        return (
            f"Dataset({self.name!r}, {self.n_samples} x {self.n_features} {kind}, "
            f"k={self.n_clusters})"
        )


def consecutive_labels(labels: np.ndarray) -> np.ndarray:
    """Map arbitrary labels to int64 ``0 .. k-1`` in sorted order of the original values."""
    _, y = np.unique(np.asarray(labels).ravel(), return_inverse=True)
    return y.astype(np.int64)


def is_unlabeled(y) -> bool:
    """Whether the labels ``y`` say that the data has none (every row :data:`UNLABELED`)."""
    y = np.asarray(y)
    return y.size > 0 and bool((y == UNLABELED).all())
