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
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from sklearn.base import BaseEstimator, TransformerMixin


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


class BaseReducer(TransformerMixin, BaseEstimator):
    """Base class of kmdr reducers (see the module docstring for the shared-work contract).

    Subclasses implement ``fit`` and ``transform``. Those with r-independent work also override
    :meth:`shared_key` and :meth:`compute_shared`, and call :meth:`_resolve_shared` in ``fit``.
    """

    def shared_key(self, X) -> tuple[Hashable, ...] | None:
        """Key of the r-independent work ``fit`` would do on ``X``, or None if there is none.

        The key never depends on ``n_components``. It does not identify the data: a caller that
        caches by key keeps one cache per data matrix. Randomized work (an approximate SVD) is
        keyed by its parameters only; the caller decides which seed it runs with.
        """
        return None

    def compute_shared(self, X, random_state=None) -> SharedWork:
        """Do the r-independent work on ``X`` and time it.

        ``random_state`` seeds randomized shared work (default: the estimator's own
        ``random_state``); deterministic work ignores it.
        """
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
            shared = self.compute_shared(X)
        elif shared.key != key:
            raise ValueError(
                f"shared: it was computed for {shared.key!r} but this {type(self).__name__} needs "
                f"{key!r}; compute it with this reducer's compute_shared(X)"
            )
        self.shared_seconds_ = float(shared.seconds)
        return shared
