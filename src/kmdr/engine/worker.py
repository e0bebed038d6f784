"""What a worker process keeps across the jobs it computes, and the entry of every job.

Every job of a run enters through :func:`run_job`, in whatever process computes it (a loky or
multiprocessing worker, a dask or Ray worker, or the run's own process for a job computed here).
:class:`ProcessState` (this module's :data:`_PROCESS`, the only mutable module state of the run
path) holds what one process keeps across those jobs: its BLAS/OpenMP thread counts
(:meth:`ProcessState.threads`), the memo of shared reductions, the
watch on the parent process, and the session successive ``kmdr.run`` calls and a multirun's jobs
share (:func:`kmdr.engine.session.default_session`).
"""

from __future__ import annotations

import gc
import importlib
import os
import threading
import time

from kmdr import _native
from kmdr.engine import signals
from kmdr.engine.backends import WORKER_MODULES, RunFailed, cell_failed
from kmdr.engine.deadlines import watched
from kmdr.engine.work import SharedWorkMemo, describe_cells

#: Seconds between two looks of a worker at its parent (see :meth:`ProcessState.watch_parent`).
WATCH_EVERY = 0.5


class ProcessState:
    """What one process keeps across the jobs it computes (see the module docstring)."""

    def __init__(self) -> None:
        self.memo = SharedWorkMemo()
        #: The session successive ``kmdr.run`` calls and a multirun's jobs share.
        self.default = None  # a kmdr.engine.session.Session
        self._watched: set[int] = set()
        self._warm = False
        self.lock = threading.RLock()

    def thread_pools(self):
        """threadpoolctl's controller of the pools loaded now (:func:`kmdr._native.thread_pools`,
        the thread limits' one owner)."""
        return _native.thread_pools()

    def threads(self, threads: int, load: bool = True):
        """Compute with ``threads`` BLAS/OpenMP threads in the block, every job's limit (with the
        run's process's own around the run): :func:`kmdr._native.limited_threads`."""
        return _native.limited_threads(threads, load)

    def watch_parent(self, parent_pid: int) -> None:
        """In a worker process started by ``parent_pid`` (the process running the run): make
        this worker exit within :data:`WATCH_EVERY` seconds of that process's death, whatever it
        is computing (a worker killed with its parent would otherwise finish its cell, minutes
        of CPU nobody will read). In any worker (a dask or Ray worker too), import what cells
        need and freeze the libraries' objects first, so that neither a cell's timings nor its
        limit hold the import, and the collector no longer walks them. Idempotent.

        Such a worker also ignores Ctrl-C from then on: the terminal sends SIGINT to the whole
        process group, and the run's process, which receives it too, stops the workers itself."""
        if os.getpid() == parent_pid:
            return
        with self.lock:
            warm, self._warm = self._warm, True
            watch = os.getppid() == parent_pid and parent_pid not in self._watched
            self._watched.add(parent_pid)
        if watch:
            if threading.current_thread() is threading.main_thread():  # loky runs jobs there
                signals.ignore_sigint()
            threading.Thread(
                target=_watch, args=(parent_pid,), name="kmdr-watch-parent", daemon=True
            ).start()
        if not warm:
            for module in WORKER_MODULES:
                importlib.import_module(module)
            gc.freeze()


def _watch(parent_pid: int) -> None:
    while os.getppid() == parent_pid:  # re-parented (to init or a subreaper) once it dies
        time.sleep(WATCH_EVERY)
    os._exit(1)


#: This process's state: a worker's caches, and the run's process's own for the jobs it runs.
_PROCESS = ProcessState()


def process_state() -> ProcessState:
    """This process's :class:`ProcessState`."""
    return _PROCESS


def run_job(compute, *, job, **data):
    """The entry of every job of a run, in whatever process computes it: watch the run's
    process, then compute ``job`` (a :class:`~kmdr.engine.cell_kinds.Job`) with the kind's
    ``compute(state, job, **data)`` and this process's state, ``data`` being the kind's named
    shared data. A ``sys.exit`` or any other non-error BaseException in the job becomes a
    one-line :class:`~kmdr.engine.backends.RunFailed` naming the reducer and cells, instead of
    ending the run silently or taking the worker down; a real Ctrl-C of the run's own process
    stays an interrupt. The job's ``watch`` says when it starts and ends, so that the run's
    process can end it past its time limit (:func:`kmdr.engine.deadlines.watched`), or is None.
    Returns ``compute``'s ``(pairs, report)`` and its seconds."""
    parent_pid = job.parent_pid
    _PROCESS.watch_parent(parent_pid)
    cells = job.cells
    what = describe_cells(cells)
    try:
        # the thread pools' libraries loaded and scanned before the clock: not the job's time
        with _PROCESS.threads(cells[0].blas_threads):  # a job's cells share their threads
            start = time.perf_counter()
            with watched(job.watch):
                pairs, report = compute(_PROCESS, job, **data)
            return pairs, report, time.perf_counter() - start
    except Exception as err:
        raise cell_failed(what, err) from err
    except BaseException as err:
        own_signal = signals.signal_of(err) is not None or not signals.handling()
        if os.getpid() == parent_pid and isinstance(err, KeyboardInterrupt) and own_signal:
            raise  # a signal to this process, not the cell's doing
        detail = " ".join(str(err).split())
        raise RunFailed(
            f"{what} raised {type(err).__name__}{f'({detail})' if detail else ''}, which ends "
            "a process, not a cell; a reducer must raise an exception"
        ) from None
