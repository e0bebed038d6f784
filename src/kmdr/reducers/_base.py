"""The contract every kmdr reducer follows.

A reducer maps an n x d matrix A (dense or scipy.sparse, points are rows) to an n x r matrix C,
r = ``n_components``. Many reducers split into two parts:

* work that depends only on the data (and k), never on r: an SVD, leverage scores, Laplacian
  scores. A sweep over r and repetitions should do it once;
* the cheap, r-dependent rest: drawing r columns, slicing r singular vectors, projecting.

The first part is a :class:`SharedWork`. A reducer names it with :meth:`shared_key` (equal keys
mean the same computation, even across reducer classes: exact leverage sampling and exact SVD
features both read one thin SVD), computes it with :meth:`compute_shared`, and accepts it back in
``fit(X, shared=...)``. Fitting without ``shared`` computes it on the spot, so a reducer used
alone behaves like any scikit-learn transformer. Either way ``shared_seconds_`` records what the
shared part cost, so that a runner that shares it can still charge every cell its honest price.

Data held as consecutive row blocks, never whole in one process, is reduced by
:meth:`BaseReducer.fit_rows` (from the shape alone, plus what a pass over the blocks measured) and
:meth:`BaseReducer.transform_rows` (one block at a time), for the reducers whose plan says how
(:attr:`~kmdr.reducers.ReducerPlan.row_blocks`): ``"rowwise"`` ones draw the in-memory operator,
``"sketch"`` ones are fitted on a randomized SVD computed over the blocks
(:meth:`BaseReducer.sketch_request` says which).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from kmdr.reducers._plans import SKETCH, DataFacts, ReducerPlan
from kmdr.reducers._validation import SPARSE_FORMATS, check_count


@dataclass(frozen=True)
class SharedWork:
    """The r-independent part of a reduction, computed once and reused.

    Attributes
    ----------
    key : tuple
        What was computed (see :meth:`BaseReducer.shared_key`).
    value : object
        The result (arrays, a decomposition, scores).
    seconds : float
        Wall-clock seconds the computation took.
    """

    key: tuple
    value: Any
    seconds: float


def timed_shared(key: tuple, compute: Callable[[], Any]) -> SharedWork:
    """Run ``compute()`` and wrap its result, with its wall-clock cost, as a :class:`SharedWork`."""
    start = time.perf_counter()
    value = compute()
    return SharedWork(key=key, value=value, seconds=time.perf_counter() - start)


def nnz_counts(X) -> np.ndarray:
    """How many rows of ``X`` hold each number of nonzeros (entry L: the rows with L stored
    entries; a dense row counts its d): the ``nnz_counts`` :meth:`BaseReducer.fit_rows` takes.
    Row blocks' counts add up to the whole matrix's (padded with zeros to the longest)."""
    import scipy.sparse as sp

    if not sp.issparse(X):
        return np.bincount(np.full(X.shape[0], X.shape[1]))
    return np.bincount(np.diff(X.indptr) if X.format == "csr" else X.getnnz(axis=1))


class BaseReducer(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Base class of kmdr reducers (see the module docstring for the shared-work contract).

    ``fit`` and ``transform`` are written once here: they validate the parameters (scikit-learn's
    ``_parameter_constraints``) and ``X`` (dense or scipy.sparse, finite, 2-D, converted to
    float64), check ``n_components`` against :meth:`max_components`, resolve the shared work and
    call the subclass's ``_fit(X, shared)`` / ``_transform(X)``. A subclass with r-independent
    work also overrides :meth:`shared_key` and :meth:`_compute_shared_value`.

    Fitted attributes common to all reducers: ``n_features_in_`` (and ``feature_names_in_`` for
    named columns), ``n_components_`` (the r produced) and ``shared_seconds_``.
    """

    #: scikit-learn's parameter constraints. This default checks r only, so a subclass that
    #: declares none (a user's reducer) still gets r validated; subclasses replace it with their
    #: own dict (parameters without an entry are not checked).
    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
    }
    #: What planning a sweep needs from this class (:class:`~kmdr.reducers._plans.ReducerPlan`):
    #: its shared key, whether its reduction and its shared work depend on the seed, and its
    #: ``compat_version``. :meth:`shared_key`, :meth:`is_deterministic` and
    #: :meth:`shared_is_deterministic` read it, and kmdr's own registry entries declare the same
    #: object, so a dry run reads the facts without importing the class. The default: nothing
    #: shared, everything drawn from ``random_state``.
    plan: ClassVar[ReducerPlan] = ReducerPlan()
    #: The compatibility version of this reducer's code: bump it when a change to the class changes
    #: the numbers its cells produce. It is part of every cell's identity (``code_tag`` in
    #: cells.csv, with the experiments' global ``CELL_FORMAT``), so only this reducer's cells are
    #: computed again. A class that declares its own :attr:`plan` takes the plan's (set it there).
    compat_version: ClassVar[int] = 1

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "plan" in vars(cls):
            cls.compat_version = cls.plan.compat_version

    def max_components(self, n_samples: int, n_features: int) -> int | None:
        """Largest r this reducer can produce on an n_samples x n_features matrix (None: no bound).

        Projections and sampling with replacement produce any r >= 1 (r > d is legal, if
        pointless); selection without repeats needs r <= d; SVD methods need r <= min(n, d).
        Read from :attr:`plan` (a class whose plan leaves it to the class overrides this).
        """
        rule = self.plan.max_components
        return None if rule is None else rule(self._plan_params(), n_samples, n_features)

    def _plan_params(self) -> dict:
        return {**self.plan.defaults, **self.get_params(deep=False)}

    def shared_key(self, X) -> tuple[Hashable, ...] | None:
        """Key of the r-independent work ``fit`` would do on ``X``, or None if there is none.

        The key never depends on ``n_components``. It does not identify the data: a caller that
        caches by key keeps one cache per data matrix. Randomized work (an approximate SVD) is
        keyed by its parameters only; the caller decides which seed it runs with. Read from
        :attr:`plan` (a function of the parameters and of ``X``'s shape and sparsity).
        """
        return self.plan.shared_key(self._plan_params(), DataFacts.of(X))

    def is_deterministic(self, X) -> bool:
        """Whether ``fit_transform(X)`` gives the same C for every ``random_state``.

        True promises that the reduction of ``X`` depends on the data and the parameters only,
        never on ``random_state`` (nor on any global random state), so a runner may compute it
        once and reuse it for every repetition of a sweep. The default is False (the output is
        treated as random, recomputed for every repetition): a reducer's :attr:`plan` says True
        only when it is really true, possibly depending on its parameters and the shape of ``X``.
        """
        return bool(self.plan.deterministic(self._plan_params(), DataFacts.of(X)))

    def shared_is_deterministic(self, X) -> bool:
        """Whether ``compute_shared(X, random_state)`` gives the same value for every
        ``random_state``.

        True promises that the r-independent work (:meth:`shared_key`) depends on the data and
        the parameters only, so a runner may compute it once per key for all repetitions. The
        default is False (randomized work, drawn once per repetition with its own seed); read
        from :attr:`plan`.
        """
        return bool(self.plan.shared_deterministic(self._plan_params(), DataFacts.of(X)))

    def compute_shared(self, X, random_state=None) -> SharedWork:
        """Do the r-independent work on ``X`` and time it.

        ``random_state`` seeds randomized shared work (default: the estimator's own
        ``random_state``); deterministic work ignores it. Validates the parameters and ``X`` (the
        validation is not timed) but sets no attribute.
        """
        self._validate_params()
        X = check_array(X, accept_sparse=SPARSE_FORMATS, dtype=np.float64)
        return self._compute_shared_checked(X, random_state)

    def _compute_shared_checked(self, X, random_state=None) -> SharedWork:
        key = self.shared_key(X)
        if key is None:
            raise NotImplementedError(
                f"{type(self).__name__} has no r-independent work to share on this input"
            )
        self._check_data_params(X.shape)
        return timed_shared(key, lambda: self._compute_shared_value(X, random_state))

    def _compute_shared_value(self, X, random_state):
        """The r-independent result for a validated ``X`` (subclasses with shared work)."""
        raise NotImplementedError(f"{type(self).__name__} has no r-independent work to share")

    def _resolve_shared(self, X, shared: SharedWork | None) -> SharedWork | None:
        """Return the shared work to use in ``fit``: the one given, checked, or a fresh one.

        Sets ``shared_seconds_`` (0.0 when the reducer has no shared work).
        """
        key = self.shared_key(X)
        if key is None:
            if shared is not None:
                raise ValueError(
                    f"shared: {type(self).__name__} has no r-independent work, so shared must be "
                    "None"
                )
            self.shared_seconds_ = 0.0
            return None
        if shared is None:
            shared = self._compute_shared_checked(X)
        elif shared.key != key:
            raise ValueError(
                f"shared: it was computed for {shared.key!r} but this {type(self).__name__} needs "
                f"{key!r}; compute it with this reducer's compute_shared(X)"
            )
        self.shared_seconds_ = float(shared.seconds)
        return shared

    def _check_shape(self, shape: tuple[int, int]) -> int:
        """Check ``n_components`` and the other data-dependent parameters against ``X.shape``.

        Returns r (``n_components``, or d when it is None and the reducer allows that).
        """
        self._check_data_params(shape)
        if self.n_components is None:
            return shape[1]
        return check_count(self.n_components, "n_components", 1, self.max_components(*shape), shape)

    def _check_data_params(self, shape: tuple[int, int]) -> None:
        """Check r-independent parameters that depend on ``X.shape`` (``n_clusters``, ...)."""

    def fit(self, X, y=None, shared: SharedWork | None = None):
        """Fit the reducer on ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : None
            Ignored.
        shared : SharedWork, optional
            The r-independent work, computed once by :meth:`compute_shared` of any reducer with the
            same :meth:`shared_key`; computed here when None.

        Returns
        -------
        self
        """
        self._fit_validated(X, shared)
        return self

    def fit_transform(self, X, y=None, shared: SharedWork | None = None):
        """Fit on ``X`` and return its reduction; same result as ``fit(X).transform(X)``.

        ``X`` is validated once (not once per step).
        """
        return self._transform(self._fit_validated(X, shared))

    def _fit_validated(self, X, shared):
        self._validate_params()
        X = validate_data(self, X, accept_sparse=SPARSE_FORMATS, dtype=np.float64)
        self.n_components_ = self._check_shape(X.shape)
        shared = self._resolve_shared(X, shared)
        self._fit(X, None if shared is None else shared.value)
        return X

    def transform(self, X):
        """Reduce ``X`` (n_samples x n_features) to C (n_samples x ``n_components_``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        C : ndarray or sparse matrix of shape (n_samples, n_components_)
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse=SPARSE_FORMATS, dtype=np.float64, reset=False)
        return self._transform(X)

    def _fit(self, X, shared_value) -> None:
        raise NotImplementedError

    def _transform(self, X):
        raise NotImplementedError

    # -- data held as row blocks -----------------------------------------------------------------

    def row_mode(self) -> str | None:
        """How this reducer runs on row blocks: ``"rowwise"``, ``"sketch"`` or None (it needs the
        whole matrix); read from :attr:`plan` (``row_blocks``)."""
        return self.plan.row_mode(self._plan_params())

    def needs_nnz_counts(self, sparse: bool) -> bool:
        """Whether :meth:`fit_rows` needs the rows' numbers of nonzeros (``nnz_counts``) on data
        of this sparsity (a reducer whose output form depends on them); False by default."""
        return False

    def sketch_request(
        self, n_samples: int, n_features: int, random_state=None
    ) -> tuple[int, float, object]:
        """``(rank, eps, RandomState)`` of the FastFrobeniusSVD a ``"sketch"`` reducer is fitted
        on for an ``n_samples x n_features`` matrix, the RandomState being the one its in-memory
        fit draws the sketch from (``random_state``: the shared work's, as
        :meth:`compute_shared` takes it). Validates the parameters and r as :meth:`fit_rows`
        does; a reducer of another mode raises ValueError."""
        self._validate_params()
        if self.row_mode() != SKETCH:
            raise ValueError(f"{type(self).__name__} is not fitted on a sketch of row blocks")
        shape = (int(n_samples), int(n_features))
        return self._sketch_request(self._check_shape(shape), random_state)

    def _sketch_request(self, r: int, random_state) -> tuple[int, float, object]:
        raise NotImplementedError(f"{type(self).__name__} states no sketch request")

    def fit_rows(self, n_samples: int, n_features: int, *, nnz_counts=None, sketch=None, starts=()):
        """Fit for data held as row blocks of an ``n_samples x n_features`` matrix.

        Validates the parameters and r exactly as :meth:`fit` does on a matrix of that shape.
        A ``"rowwise"`` reducer then draws its operator from ``random_state`` exactly as ``fit``
        would (the same numbers: the operator depends on the shape alone); a ``"sketch"`` reducer
        is fitted on ``sketch``, the :class:`~kmdr.reducers.SVDResult` of
        :meth:`sketch_request` computed over the blocks. ``nnz_counts``: how many rows hold
        each number of nonzeros (:func:`nnz_counts` of the matrix; the blocks' counts add up),
        when :meth:`needs_nnz_counts` says so.
        ``starts``: the first row of each block to
        come, for a reducer whose draws follow the rows (PD draws each row's kept positions in
        turn from one generator: it records the generator's state at each start). A reducer that
        cannot run on row blocks raises ValueError (one line) before any work.

        Returns
        -------
        self
        """
        self._validate_params()
        mode = self.row_mode()
        name = type(self).__name__
        if mode is None:
            raise ValueError(f"{name} cannot run on row blocks: it needs the whole matrix")
        shape = (int(n_samples), int(n_features))
        if min(shape) < 1:
            raise ValueError(f"{name}.fit_rows: the matrix must have rows and columns, got {shape}")
        self.n_components_ = self._check_shape(shape)
        self.n_features_in_ = shape[1]
        self.n_samples_fit_ = shape[0]
        self.shared_seconds_ = 0.0
        if mode == SKETCH:
            if sketch is None:
                raise ValueError(f"{name}.fit_rows: a sketch reducer needs sketch= (an SVDResult)")
            self._fit_sketch(shape, sketch)
        else:
            self._fit_rows(shape, nnz_counts)
            self._follow_rows(shape[0], tuple(int(s) for s in starts))
        return self

    def _follow_rows(self, n_samples: int, starts: tuple[int, ...]) -> None:
        """Prepare for blocks starting at ``starts`` (a reducer whose draws follow the rows);
        nothing by default: a rowwise operator treats every row alike."""

    def _fit_rows(self, shape: tuple[int, int], nnz_counts) -> None:
        """Draw a rowwise operator for ``shape``: ``_fit`` on the shape's facts (a rowwise
        reducer's ``_fit`` reads ``X.shape`` only)."""
        self._fit(DataFacts(shape[0], shape[1], False), None)

    def _fit_sketch(self, shape: tuple[int, int], sketch) -> None:
        """Fit a sketch reducer on the SVD computed over the blocks (sketch reducers)."""
        raise NotImplementedError(f"{type(self).__name__} has no fit on a sketch of row blocks")

    def transform_rows(self, X_block, start: int):
        """Rows ``start`` to ``start + len(X_block) - 1`` of C, from those rows of the data.

        The result is the same rows of what :meth:`transform` gives on the whole matrix, however
        the rows are split (each reducer states whether bit for bit or within a tolerance).
        """
        check_is_fitted(self, "n_samples_fit_")
        X_block = check_array(X_block, accept_sparse=SPARSE_FORMATS, dtype=np.float64)
        rows, cols = X_block.shape
        if cols != self.n_features_in_:
            raise ValueError(
                f"{type(self).__name__}.transform_rows: the block has {cols} features, the fit "
                f"{self.n_features_in_}"
            )
        if not 0 <= int(start) <= self.n_samples_fit_ - rows:
            raise ValueError(
                f"{type(self).__name__}.transform_rows: rows {start}..{int(start) + rows} are "
                f"outside the fitted {self.n_samples_fit_} rows"
            )
        return self._transform_rows(X_block, int(start))

    def implements_rows(self) -> bool:
        """Whether this class implements :meth:`transform_rows` (``_transform_rows``), which a
        class whose plan says it runs on row blocks must."""
        return type(self)._transform_rows is not BaseReducer._transform_rows

    def _transform_rows(self, X_block, start: int):
        """One block's rows of C (a class whose plan says it runs on row blocks implements it)."""
        raise NotImplementedError(
            f"{type(self).__name__} declares it runs on row blocks but implements no "
            "_transform_rows(X_block, start)"
        )

    @property
    def _n_features_out(self):
        return self.n_components_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class RandomProjectionBase(BaseReducer):
    """A reducer whose parameters are r and a ``random_state`` only (the random projections).

    States the two parameters, their constraints and ``__init__`` once for every such reducer;
    a subclass implements ``_fit`` and ``_transform`` (and ``max_components`` if r is bounded).
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, n_components=2, *, random_state=None):
        self.n_components = n_components
        self.random_state = random_state

    def _transform_rows(self, X_block, start: int):
        """A block's rows of C: a projection maps every row on its own, so this is ``_transform``
        of the block (equal to the whole matrix's rows: bit for bit for sparse data, within
        1e-12 relative for dense data, where BLAS may pick other kernels for another number of
        rows)."""
        return self._transform(X_block)
