"""The BLAS/OpenMP threads a cell is computed with: exactly its ``blas_threads``, wherever it runs.

A reduction's matrix products and decompositions (OpenBLAS) and scikit-learn's k-means (OpenMP)
add their sums in an order that depends on their number of threads, so the same cell computed with
1 and with 2 threads differs in the last bits, and a k-means partition or an eigenvector basis can
follow (measured on ORL, COIL20 and sparse_text: SVD, leverage scores, LLE, the projections at
large r, sparse k-means). ``blas_threads`` is therefore part of a cell's identity, and every job
pins it (:func:`pin_threads`) in whatever computes it:

* a worker process (loky, multiprocessing, dask, Ray): its libraries, for good;
* the run's own process (``n_jobs=1``, the threading backend, a run's single job, the driver of
  a chunked cell, a kind that computes there): for the run, restored after it (:func:`run_threads`,
  which the runner holds around the run).

Three traps make a once-per-process ``threadpool_limits`` call not enough. threadpoolctl limits only
the libraries already loaded: a library loaded later (scipy's OpenBLAS, scikit-learn's OpenMP
runtime, imported lazily by the first cell that needs them) starts with its own default, all the
cores; so the modules that load them (:data:`THREAD_POOL_MODULES`) are imported first, and the
libraries are scanned again whenever an import may have loaded another. And OpenMP's thread count
is a per-thread setting: the threading backend's worker threads do not see the one made in the
run's main thread, so every job sets it in its own thread; while OpenBLAS's, the process's, keeps
what the main thread set, so for that backend the run's thread pins it first (:func:`run_threads`).
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import threading
from collections.abc import Iterator

__all__ = ["THREAD_POOL_MODULES", "ThreadPools", "pin_threads", "run_threads"]

#: The modules that load the native thread pools cells compute with: numpy's and scipy's
#: OpenBLAS and scikit-learn's OpenMP runtime.
THREAD_POOL_MODULES = ("numpy", "scipy.linalg", "sklearn.cluster")


class ThreadPools:
    """A process's thread pools (a threadpoolctl controller), scanned again only when the
    modules loaded changed; in a run's own process, the limiters that restore them after it.
    One per process (:class:`kmdr.engine.session.ProcessState` holds it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.modules = -1
        self.controller = None
        self.seen: set[str] = set()
        self.undo: list | None = None  # inside run_threads: what to restore at its end

    def scan(self, threads: int):
        """The controller of every pool loaded now (caller holds ``lock``). Pools first seen
        inside :func:`run_threads` are limited here and restored at its end."""
        if len(sys.modules) != self.modules:  # an import may have loaded another library
            from threadpoolctl import ThreadpoolController

            for name in THREAD_POOL_MODULES:
                importlib.import_module(name)
            self.controller = ThreadpoolController()
            self.modules = len(sys.modules)
        controller = self.controller
        new = [lib.filepath for lib in controller.lib_controllers if lib.filepath not in self.seen]
        if new and self.undo is not None:
            self.undo.append(controller.select(filepath=new).limit(limits=threads))
        self.seen.update(new)
        return controller

    def info(self) -> list[dict]:
        """threadpoolctl's description of the pools loaded now (library, version, kernels,
        threads: what a run records), read from the last scan when nothing was imported since
        (a new look at the process's libraries takes milliseconds; it imports nothing)."""
        with self.lock:
            if self.controller is not None and len(sys.modules) == self.modules:
                return self.controller.info()
        from threadpoolctl import threadpool_info

        return threadpool_info()


def pin_threads(pools: ThreadPools, threads: int) -> None:
    """Compute with ``threads`` BLAS/OpenMP threads from now on in the calling thread (BLAS's
    count is the process's, OpenMP's the thread's): every job calls it before its cells. Costs
    microseconds unless a new import makes the libraries be scanned again (milliseconds).
    ``pools``: the process's :class:`ThreadPools`."""
    with pools.lock:
        controller = pools.scan(threads)
    controller.limit(limits=threads)


@contextlib.contextmanager
def run_threads(pools: ThreadPools, threads: int | None = None) -> Iterator[None]:
    """Give this process's BLAS/OpenMP libraries their thread counts back after a run: every
    limit :func:`pin_threads` sets inside the block (a job the run computes in this process, a
    kind that computes here) is undone at its end, also on a library first loaded during the run
    (``pools``: the process's :class:`ThreadPools`).

    With ``threads``, the block starts by pinning them from the calling thread: for a run that
    computes in this process (one worker, a single job, the threading backend: OpenBLAS keeps the
    count its main thread set and ignores one set from another thread after that, measured with
    OpenBLAS 0.3.30 and 0.3.31; the objective evaluator its workers score with).
    """
    with pools.lock:
        pools.seen.clear()  # every library the next pin limits is one to give back
        previous, pools.undo = pools.undo, []
        undo = pools.undo
    try:
        if threads is not None:
            pin_threads(pools, threads)
        yield
    finally:
        with pools.lock:
            pools.undo = previous
        for limiter in reversed(undo):
            limiter.restore_original_limits()
