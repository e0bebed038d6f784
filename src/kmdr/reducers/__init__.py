"""The papers' dimensionality reducers as scikit-learn transformers.

Each maps an n x d matrix A (numpy or scipy.sparse, points are rows) to an n x r matrix C,
r = ``n_components``; the r-independent part of the work (an SVD, scores) can be computed once and
shared across r and repetitions (see :mod:`kmdr.reducers._base`). Configs name reducers through
the registry: :func:`make_reducer`, :data:`REDUCERS`, :func:`reducer_label`,
:func:`max_components`.
"""

from kmdr.reducers._base import BaseReducer, SharedWork, timed_shared
from kmdr.reducers._registry import (
    REDUCERS,
    ReducerEntry,
    available_reducers,
    make_reducer,
    max_components,
    reducer_label,
)
from kmdr.reducers._svd import SVDResult, fast_frobenius_svd, sparse_svd, thin_svd
from kmdr.reducers.identity import IdentityReducer
from kmdr.reducers.laplacian import LaplacianScoreSelector
from kmdr.reducers.leverage import LeverageScoreSampler
from kmdr.reducers.lle import LocallyLinearReducer
from kmdr.reducers.projections import AchlioptasProjection, GaussianProjection, SignRandomProjection
from kmdr.reducers.ridge_leverage import RidgeLeverageSampler
from kmdr.reducers.sparse_embedding import SparseEmbedding
from kmdr.reducers.sparsified import PreconditionedSparsification
from kmdr.reducers.srht import SRHTProjection
from kmdr.reducers.svd import SVDFeatures

__all__ = [
    "REDUCERS",
    "AchlioptasProjection",
    "BaseReducer",
    "GaussianProjection",
    "IdentityReducer",
    "LaplacianScoreSelector",
    "LeverageScoreSampler",
    "LocallyLinearReducer",
    "PreconditionedSparsification",
    "ReducerEntry",
    "RidgeLeverageSampler",
    "SRHTProjection",
    "SVDFeatures",
    "SVDResult",
    "SharedWork",
    "SignRandomProjection",
    "SparseEmbedding",
    "available_reducers",
    "fast_frobenius_svd",
    "make_reducer",
    "max_components",
    "reducer_label",
    "sparse_svd",
    "thin_svd",
    "timed_shared",
]
