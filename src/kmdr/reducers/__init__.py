"""The papers' dimensionality reducers as scikit-learn transformers.

Each maps an n x d matrix A (numpy or scipy.sparse, points are rows) to an n x r matrix C,
r = ``n_components``; the r-independent part of the work (an SVD, scores) can be computed once and
shared across r and repetitions (see :mod:`kmdr.reducers._base`). Configs name reducers through
the registry: :func:`make_reducer`, :data:`REDUCERS`, :func:`reducer_label`,
:func:`reducer_paper`, :func:`max_components`; other packages add reducers through the
entry-point group ``kmdr.reducers`` (see :mod:`kmdr.reducers._registry`).
"""

from kmdr.reducers._base import BaseReducer, SharedWork, timed_shared
from kmdr.reducers._registry import (
    BUILTIN_REDUCERS,
    ENTRY_POINT_GROUP,
    REDUCERS,
    ReducerEntry,
    available_reducers,
    make_reducer,
    max_components,
    reducer_label,
    reducer_paper,
)
from kmdr.reducers._svd import (
    SVD_METHODS,
    SVDResult,
    exact_svd,
    fast_frobenius_svd,
    sparse_svd,
    thin_svd,
)
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
    "BUILTIN_REDUCERS",
    "ENTRY_POINT_GROUP",
    "REDUCERS",
    "SVD_METHODS",
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
    "exact_svd",
    "fast_frobenius_svd",
    "make_reducer",
    "max_components",
    "reducer_label",
    "reducer_paper",
    "sparse_svd",
    "thin_svd",
    "timed_shared",
]
