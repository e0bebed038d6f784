"""How a run's data reaches the workers that compute its cells. The rule, stated once:

* **loky, threading, multiprocessing, sequential** (this process or workers it starts on this
  machine): every job carries the data itself, ``X``, ``y`` and the run's
  :class:`~kmdr.metrics.ObjectiveEvaluator` (:class:`InlineData`); loky memory-maps the arrays
  above 1 MB, so each worker maps the same file instead of receiving a copy.
* **dask, ray** (cluster backends, whose workers may be other machines): a job carries a
  :class:`WorkerData` of a few hundred bytes, never the data. Each worker process obtains the data
  once per run and keeps it, with the objective evaluator it makes from it, in a per-process cache
  keyed by the data's fingerprint (:func:`resolve`):

  - data the dataset catalog *generates* from its parameters (kind ``synthetic``, and the run's
    fingerprint is the one those parameters declare) is generated on the worker from the same
    parameters, so none of it travels. The worker checks that what it generated has the content
    hash of the run's data (a worker with other numpy or scipy versions could generate other
    numbers) and fails in one line if not;
  - any other data (read from files, bundled, or handed to the run by its caller) is sent by the
    run's process once to every worker: dask ``Client.scatter(..., broadcast=True)``, Ray's
    object store (``ray.put``), which each worker process reads once.

Whichever way, a worker computes on the same ``X`` bit for bit, so a cell's numbers do not depend
on the backend. A job that joblib runs in the run's own process (a cluster of one worker thread,
which joblib does not use) takes the run's data from memory (:attr:`DataCache.here`).

The cache is a process's own: :class:`DataCache`, held by
:class:`kmdr.engine.session.ProcessState` and handed to each job by the worker's entry function.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field

from kmdr._errors import one_line

__all__ = [
    "CLUSTER_BACKENDS",
    "DataCache",
    "InlineData",
    "WorkerData",
    "WorkerDataError",
    "prepare_data",
    "shipped",
]

#: The backends whose jobs carry a :class:`WorkerData` instead of the data.
CLUSTER_BACKENDS = ("dask", "ray")
#: How many datasets a worker process keeps (a worker of a long-lived cluster may serve two runs
#: at once); the least recently used goes first.
CACHE_SIZE = 2


class WorkerDataError(RuntimeError):
    """A worker could not obtain the run's data, or obtained other data; one line."""


def prepare_data(X):
    """X as float64 (CSR when sparse), once, so workers do not each convert it.

    The memory order of dense data is kept: BLAS products on a re-ordered copy can round
    differently, and a cell's numbers must not depend on the runner.
    """
    import numpy as np
    import scipy.sparse as sp

    if sp.issparse(X):
        X = sp.csr_matrix(X)
        return X if X.dtype == np.float64 else X.astype(np.float64)
    X = np.asarray(X)
    return X if X.dtype == np.float64 else X.astype(np.float64)


@dataclass(frozen=True)
class InlineData:
    """The data itself, carried by every job (local backends)."""

    X: object
    y: object
    objective: object

    def resolve(self, payload=None, cache=None) -> tuple:
        return self.X, self.y, self.objective


@dataclass(frozen=True)
class WorkerData:
    """What a job of a cluster backend carries instead of the data: the key of the worker's
    cache, and how a worker obtains the data the first time (see the module docstring).

    ``source`` is ``generate`` (``dataset`` with ``params``, checked against ``content``),
    ``scattered`` (the job's payload is the data, resolved by dask) or ``object_store`` (the
    job's payload is a Ray object reference)."""

    fingerprint: str
    source: str
    content: str | None = None
    dataset: str | None = None
    params: dict = field(default_factory=dict)
    data_dir: str | None = None

    def resolve(self, payload, cache: DataCache) -> tuple:
        return cache.get(self, payload)


class DataCache:
    """A process's data: the run's own, by fingerprint, while :func:`shipped` lasts (``here``:
    the run's process), and what a worker obtained, the :data:`CACHE_SIZE` most recent."""

    def __init__(self) -> None:
        self.here: dict[str, tuple] = {}
        self._cache: OrderedDict[str, tuple] = OrderedDict()
        self._lock = threading.Lock()
        self._key_locks: dict[str, threading.Lock] = {}

    def get(self, ref: WorkerData, payload) -> tuple:
        """``(X, y, objective)`` of ``ref`` from this cache, obtained the first time."""
        with self._lock:
            lock = self._key_locks.setdefault(ref.fingerprint, threading.Lock())
        with lock:  # threads of one worker needing the same data wait for the one obtaining it
            with self._lock:
                hit = self._cache.get(ref.fingerprint)
                if hit is not None:
                    self._cache.move_to_end(ref.fingerprint)
                    return hit
            X, y = self.here.get(ref.fingerprint) or _obtain(ref, payload)
            from kmdr.metrics import ObjectiveEvaluator

            entry = (X, y, ObjectiveEvaluator(X))
            with self._lock:
                self._cache[ref.fingerprint] = entry
                while len(self._cache) > CACHE_SIZE:
                    self._key_locks.pop(self._cache.popitem(last=False)[0], None)
            return entry

    def forget(self, fingerprint: str) -> None:
        """Drop the data ``fingerprint`` (a worker, after the run that used it)."""
        with self._lock:
            self._cache.pop(fingerprint, None)
            self._key_locks.pop(fingerprint, None)


def _obtain(ref: WorkerData, payload) -> tuple:
    """``(X, y)`` as the run's process has them: generated here, or the payload's."""
    import numpy as np

    if ref.source == "scattered":
        return payload
    if ref.source == "object_store":
        import ray

        return ray.get(payload)
    from kmdr.datasets import load_dataset
    from kmdr.datasets._fingerprint import content_fingerprint

    try:
        data = load_dataset(ref.dataset, data_dir=ref.data_dir, **ref.params)
    except Exception as err:
        raise WorkerDataError(
            f"a worker could not generate dataset {ref.dataset!r}: {one_line(err)}"
        ) from None
    X, y = prepare_data(data.X), np.asarray(data.y)
    got = content_fingerprint(X, y)
    if got != ref.content:
        raise WorkerDataError(
            f"a worker generated dataset {ref.dataset!r} with other content ({got}) than the "
            f"run's process ({ref.content}): its numpy, scipy or kmdr differ from this "
            "machine's; install the same versions on the workers (requirements/lock.txt)"
        )
    return X, y


def _generated_on_workers(experiment, fingerprint: str) -> bool:
    """Whether the run's data is what the catalog generates from the run's parameters."""
    from kmdr.datasets import dataset_info
    from kmdr.datasets._fingerprint import declared_fingerprint

    try:
        entry = dataset_info(experiment.dataset.name)
    except Exception:  # data handed to the run under a name the catalog does not know
        return False
    if entry.kind != "synthetic":
        return False
    return declared_fingerprint(entry, dict(experiment.dataset.params)) == fingerprint


@contextlib.contextmanager
def shipped(
    experiment, execution, X, y, fingerprint: str, cache: DataCache, forget_on_workers
) -> Iterator[tuple]:
    """``(data, payload)``, the two arguments every job of the run carries for its data (see the
    module docstring), for the backend active now; whatever was sent is released after.
    ``cache``: this process's :class:`DataCache`; ``forget_on_workers(fingerprint)``: the
    function a dask worker runs to drop the run's data from its own cache after the run."""
    if execution.backend not in CLUSTER_BACKENDS:
        from kmdr.metrics import ObjectiveEvaluator

        yield InlineData(X, y, ObjectiveEvaluator(X)), None
        return
    cache.here[fingerprint] = (X, y)
    try:
        with _sent(experiment, execution, X, y, fingerprint, forget_on_workers) as data:
            yield data
    finally:
        cache.here.pop(fingerprint, None)
        cache.forget(fingerprint)


@contextlib.contextmanager
def _sent(experiment, execution, X, y, fingerprint: str, forget) -> Iterator[tuple]:
    """:func:`shipped` for a cluster backend."""
    if _generated_on_workers(experiment, fingerprint):
        from kmdr.datasets._fingerprint import content_fingerprint

        ref = WorkerData(
            fingerprint,
            "generate",
            content=content_fingerprint(X, y),
            dataset=experiment.dataset.name,
            params=dict(experiment.dataset.params),
            data_dir=execution.data_dir,
        )
        with _forgotten_after(execution, fingerprint, forget):
            yield ref, None
        return
    if execution.backend == "dask":
        from distributed import get_client

        client = get_client()  # the run's client (kmdr.engine.backends), as joblib's
        [future] = client.scatter([(X, y)], broadcast=True, hash=False)
        try:
            with _forgotten_after(execution, fingerprint, forget):
                yield WorkerData(fingerprint, "scattered"), future
        finally:
            future.release()
        return
    import ray

    yield WorkerData(fingerprint, "object_store"), ray.put((X, y))


@contextlib.contextmanager
def _forgotten_after(execution, fingerprint: str, forget) -> Iterator[None]:
    """On a dask cluster, have every worker drop the run's data once the run is done (a worker
    of a long-lived scheduler would otherwise hold it until two other datasets replace it)."""
    try:
        yield
    finally:
        if execution.backend == "dask":
            from distributed import get_client

            with contextlib.suppress(Exception):  # a cluster that is gone holds nothing
                get_client().run(forget, fingerprint)
