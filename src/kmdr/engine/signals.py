"""How a kmdr command stops on a signal: SIGTERM and SIGHUP end a run exactly like Ctrl-C.

``kmdr`` and ``scripts/reproduce.py`` run inside :func:`stop_on_signals`. While it is active,
SIGINT (Ctrl-C), SIGTERM (``kill``, a batch system's cancel) and SIGHUP (the terminal closed)
raise :class:`Interrupted`, a :class:`KeyboardInterrupt`, in the main thread, so every path that
handles Ctrl-C handles all three: joblib stops the workers, finished cells stay on disk, the run's
sidecar says ``interrupted``, the command prints one line and exits with the shell's convention
for a process ended by that signal, 128 + its number (130 for SIGINT, 143 for SIGTERM, 129 for
SIGHUP), so a script or a scheduler still sees which signal ended it.

Only the first signal counts: a second Ctrl-C (or a SIGTERM) while the command is stopping is
ignored, so the stop itself (the sidecar, ``cells.csv``) is never cut short. A signal whose
:class:`Interrupted` Python could not raise (the main thread was inside a garbage-collector
callback or a finalizer, where an exception is only printed as "Exception ignored") is not
printed but delivered again a moment later, so it stops the command as any other. A signal that
arrives inside :func:`deferred` (the last write of a run's sidecar and ``cells.csv``) takes effect
when that block ends, so a run's record is never left saying ``running`` by a signal.

The run's workers leave the stop to the run's process, which closes them: they are spawned with
SIGINT blocked (:func:`sigint_blocked`) and ignore it once started (:func:`ignore_sigint`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from multiprocessing import resource_tracker

__all__ = [
    "STOP_SIGNALS",
    "Interrupted",
    "deferred",
    "exit_status",
    "ignore_sigint",
    "raise_if_received",
    "received",
    "sigint_blocked",
    "start_resource_tracker",
    "stop_on_signals",
]

#: The signals that stop a run like Ctrl-C.
STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Interrupted(KeyboardInterrupt):
    """A stop signal arrived; ``signum`` says which."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


class _State:
    def __init__(self) -> None:
        self.active = False  # our handlers are installed
        self.received: int | None = None  # the first stop signal
        self.raised = False  # Interrupted has been raised for it
        self.deferring = 0  # depth of deferred() blocks
        self.lost = False  # Interrupted was raised where Python could only print it


_STATE = _State()


def _handler(signum, frame) -> None:
    if _STATE.lost:  # the signal lost in a callback, delivered again
        _STATE.lost = False
        signum = _STATE.received
    elif _STATE.received is not None:  # already stopping: let the stop finish its writes
        return
    _STATE.received = signum
    if _STATE.deferring:  # raised when the deferred block ends
        return
    _STATE.raised = True
    raise Interrupted(signum)


def received() -> int | None:
    """The stop signal this process has received under :func:`stop_on_signals`, if any."""
    return _STATE.received


def raise_if_received() -> None:
    """Raise :class:`Interrupted` again if a stop signal has arrived: a checkpoint on the paths a
    stopping command must not go on along (the next cell, the next experiment). Library code
    between the signal and its handling can lose the exception: OmegaConf, interrupted while
    building a node, turns the half-built node's AttributeError into a config error, which a
    caller may take for a config that does not validate. Never call it on a path the stop
    itself runs (a ``finally`` block, a ``deferred`` write)."""
    if _STATE.active and _STATE.received is not None and not _STATE.deferring:
        _STATE.raised = True
        raise Interrupted(_STATE.received)


def handling() -> bool:
    """Whether :func:`stop_on_signals` is active (every real Ctrl-C is then an
    :class:`Interrupted`, so a bare KeyboardInterrupt was raised by code, not by a user)."""
    return _STATE.active


def exit_status(err: BaseException) -> int:
    """The exit status for a command ended by ``err`` (a KeyboardInterrupt): 128 + signal."""
    signum = getattr(err, "signum", signal.SIGINT)
    return 128 + int(signum)


def describe(err: BaseException) -> str:
    """``"interrupted"``, or ``"interrupted (SIGTERM)"`` for a signal other than Ctrl-C's."""
    signum = getattr(err, "signum", signal.SIGINT)
    return (
        "interrupted" if signum == signal.SIGINT else f"interrupted ({signal.Signals(signum).name})"
    )


def _unraisable_hook(previous):
    """A :data:`sys.unraisablehook` that takes an :class:`Interrupted` Python could not raise
    (inside a garbage-collector callback or a finalizer) as lost: not printed, but the signal
    delivered again from another thread a moment later, once the callback has returned."""

    def hook(unraisable) -> None:
        err = unraisable.exc_value
        if not (isinstance(err, Interrupted) and _STATE.active and _STATE.raised):
            previous(unraisable)
            return
        _STATE.lost, _STATE.raised = True, False
        again = threading.Timer(0.05, os.kill, (os.getpid(), err.signum))
        again.daemon = True
        again.start()

    return hook


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Handle :data:`STOP_SIGNALS` as described in the module docstring, then restore the
    previous handlers. A signal ignored on entry (``nohup``) stays ignored. A no-op outside the
    main thread (only it can handle signals)."""
    if threading.current_thread() is not threading.main_thread() or _STATE.active:
        yield
        return
    # A signal the caller ignores stays ignored: ``nohup kmdr ...`` must survive the terminal
    # closing, and a shell starts background jobs with Ctrl-C ignored.
    previous = {
        sig: signal.signal(sig, _handler)
        for sig in STOP_SIGNALS
        if signal.getsignal(sig) is not signal.SIG_IGN
    }
    _STATE.__init__()
    _STATE.active = True
    unraisable = sys.unraisablehook
    sys.unraisablehook = _unraisable_hook(unraisable)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sys.unraisablehook = unraisable
        _STATE.__init__()


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """A block a stop signal does not cut short: a signal that arrives inside it raises
    :class:`Interrupted` when the block ends (unless the block is already ending with one)."""
    _STATE.deferring += 1
    try:
        yield
    finally:
        _STATE.deferring -= 1
    if _STATE.deferring == 0 and _STATE.received is not None and not _STATE.raised:
        _STATE.raised = True
        raise Interrupted(_STATE.received)


@contextlib.contextmanager
def sigint_blocked() -> Iterator[None]:
    """SIGINT blocked in the calling thread for the block, and so in the threads started in it
    and in the worker processes they spawn, which inherit the mask. The terminal sends Ctrl-C to
    the whole process group: a worker hit while it imports (its first seconds) prints pages of
    tracebacks, or dies and leaves its pool or cluster half started. A worker so spawned holds
    the signal until it ignores it for good (:func:`ignore_sigint`); the run's process handles
    Ctrl-C in its main thread, which is never inside this block for long."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no process group gets the signal
        yield
        return
    start_resource_tracker()  # a no-op once started (see there)
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def start_resource_tracker() -> None:
    """Start Python's resource tracker (which loky and distributed both use) in the calling
    thread, if it is not running: call it in the main thread before a background thread spawns
    workers under :func:`sigint_blocked`. Its first start unblocks SIGINT in the thread that
    starts it, and loads C modules: loaded first in a background thread while the main thread
    walks the loaded libraries (threadpoolctl, for the run record), the two threads deadlock on
    the dynamic loader's lock and the GIL."""
    if hasattr(signal, "pthread_sigmask"):
        resource_tracker.ensure_running()


def ignore_sigint() -> None:
    """In a worker's main thread: ignore SIGINT from now on, and discard one that arrived while
    it was blocked (:func:`sigint_blocked`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
