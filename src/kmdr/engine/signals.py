"""How a kmdr command stops on a signal: SIGTERM and SIGHUP end a run exactly like Ctrl-C.

``kmdr`` and ``scripts/reproduce.py`` run inside :func:`stop_on_signals`. While it is active,
SIGINT (Ctrl-C), SIGTERM (``kill``, a batch system's cancel) and SIGHUP (the terminal closed)
raise :func:`interrupt`, a :class:`KeyboardInterrupt` naming the signal, in the main thread, so
every path that handles Ctrl-C handles all three: joblib stops the workers, finished cells stay
on disk, the run's sidecar says ``interrupted``, the command prints one line and exits with the
shell's convention for a process ended by that signal, 128 + its number (130 for SIGINT, 143 for
SIGTERM, 129 for SIGHUP), so a script or a scheduler still sees which signal ended it.

Only the first signal counts: a second Ctrl-C (or a SIGTERM) while the command is stopping, or
exiting (:func:`exit_stopped`), is ignored, so the stop itself (the sidecar, ``cells.csv``) is
never cut short and the exit status is always the first signal's. A signal whose
:func:`interrupt` Python could not raise (the main thread was inside a garbage-collector
callback or a finalizer, where an exception is only printed as "Exception ignored") is not
printed: the run's next checkpoint (:func:`raise_if_received`, before each job and each cell
written) raises it again. A signal that
arrives inside :func:`deferred` (the last write of a run's sidecar and ``cells.csv``) takes effect
when that block ends, so a run's record is never left saying ``running`` by a signal.

The run's workers leave the stop to the run's process, which closes them: they are spawned with
SIGINT blocked (:func:`sigint_blocked`) and ignore it once they take a job (:func:`ignore_sigint`).

A cell's time limit is not a signal: the run's process ends the worker computing it
(:mod:`kmdr.engine.deadlines`).
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from multiprocessing import resource_tracker
from typing import NoReturn

#: The signals that stop a run like Ctrl-C.
STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def interrupt(signum: int) -> KeyboardInterrupt:
    """What a stop signal raises: a KeyboardInterrupt whose one argument is the signal's name."""
    return KeyboardInterrupt(signal.Signals(signum).name)


def signal_of(err: BaseException) -> int | None:
    """The stop signal ``err`` was raised for (:func:`interrupt`), else None."""
    name = err.args[0] if isinstance(err, KeyboardInterrupt) and len(err.args) == 1 else None
    return next((sig for sig in STOP_SIGNALS if sig.name == name), None)


class _Stop:
    """One :func:`stop_on_signals` block's state. Its :meth:`handle` is the installed handler,
    so the process's signal table is where the active one is found (:func:`_active`): no module
    keeps it."""

    def __init__(self) -> None:
        self.received: int | None = None  # the first stop signal
        self.raised = False  # interrupt() has been raised for it
        self.deferring = 0  # depth of deferred() blocks
        self.exiting = False  # the command ends for the signal (exit_stopped)

    def handle(self, signum, frame) -> None:
        if self.received is not None:  # already stopping: let the stop finish its writes
            return
        self.received = signum
        if self.deferring:  # raised when the deferred block ends
            return
        self.raised = True
        raise interrupt(signum)


def _active() -> _Stop | None:
    """The active :func:`stop_on_signals` block's state, from the installed handlers."""
    for sig in STOP_SIGNALS:
        handler = signal.getsignal(sig)
        owner = getattr(handler, "__self__", None)
        if isinstance(owner, _Stop):
            return owner
    return None


def received() -> int | None:
    """The stop signal this process has received under :func:`stop_on_signals`, if any."""
    stop = _active()
    return None if stop is None else stop.received


def raise_if_received() -> None:
    """Raise :func:`interrupt` again if a stop signal has arrived: a checkpoint on the paths a
    stopping command must not go on along (the next cell, the next experiment). Library code
    between the signal and its handling can lose the exception: OmegaConf, interrupted while
    building a node, turns the half-built node's AttributeError into a config error, which a
    caller may take for a config that does not validate. Never call it on a path the stop
    itself runs (a ``finally`` block, a ``deferred`` write)."""
    stop = _active()
    if stop is not None and stop.received is not None and not stop.deferring:
        stop.raised = True
        raise interrupt(stop.received)


def handling() -> bool:
    """Whether :func:`stop_on_signals` is active (every real Ctrl-C is then an
    :func:`interrupt`, so a bare KeyboardInterrupt was raised by code, not by a user)."""
    return _active() is not None


def exit_status(err: BaseException) -> int:
    """The exit status for a command ended by ``err`` (a KeyboardInterrupt): 128 + signal."""
    return 128 + int(signal_of(err) or signal.SIGINT)


def exit_stopped(err: BaseException) -> NoReturn:
    """End a command stopped by ``err`` (a KeyboardInterrupt) with :func:`exit_status`, ignoring
    the stop signals from now on: only the first counts, and one still pending (held by a thread
    that blocked it) or sent again while the interpreter exits would otherwise meet Python's
    default action once its handlers are gone, and end the process by the signal instead of with
    the status a script or scheduler reads."""
    stop = _active()
    if stop is not None:  # its block, ending with the exit, leaves them ignored
        stop.exiting = True
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    sys.exit(exit_status(err))


def describe(err: BaseException) -> str:
    """``"interrupted"``, or ``"interrupted (SIGTERM)"`` for a signal other than Ctrl-C's."""
    signum = signal_of(err) or signal.SIGINT
    return "interrupted" if signum == signal.SIGINT else f"interrupted ({signum.name})"


def _unraisable_hook(previous, stop: _Stop):
    """A :data:`sys.unraisablehook` that does not print an :func:`interrupt` Python could not
    raise (inside a garbage-collector callback or a finalizer): the next checkpoint raises it."""

    def hook(unraisable) -> None:
        if signal_of(unraisable.exc_value) is not None and stop.received is not None:
            stop.raised = False
            return
        previous(unraisable)

    return hook


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Handle :data:`STOP_SIGNALS` as described in the module docstring, then restore the
    previous handlers. A signal ignored on entry (``nohup``) stays ignored. A no-op outside the
    main thread (only it can handle signals) and inside an active block."""
    if threading.current_thread() is not threading.main_thread() or _active() is not None:
        yield
        return
    stop = _Stop()
    # A signal the caller ignores stays ignored: ``nohup kmdr ...`` must survive the terminal
    # closing, and a shell starts background jobs with Ctrl-C ignored.
    previous = {
        sig: signal.signal(sig, stop.handle)
        for sig in STOP_SIGNALS
        if signal.getsignal(sig) is not signal.SIG_IGN
    }
    unraisable = sys.unraisablehook
    sys.unraisablehook = _unraisable_hook(unraisable, stop)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, signal.SIG_IGN if stop.exiting else handler)
        sys.unraisablehook = unraisable


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """A block a stop signal does not cut short: a signal that arrives inside it raises
    :func:`interrupt` when the block ends (unless the block is already ending with one)."""
    stop = _active()
    if stop is None:
        yield
        return
    stop.deferring += 1
    try:
        yield
    finally:
        stop.deferring -= 1
    if stop.deferring == 0 and stop.received is not None and not stop.raised:
        stop.raised = True
        raise interrupt(stop.received)


@contextlib.contextmanager
def sigint_blocked() -> Iterator[None]:
    """SIGINT blocked in the calling thread for the block, and so in the worker processes
    spawned in it, which inherit the mask: the terminal sends Ctrl-C to the whole process group,
    and a worker hit while it imports prints pages of tracebacks. Such a worker holds the signal
    until it ignores it for good (:func:`ignore_sigint`); the run's process gets a Ctrl-C that
    came meanwhile when the block ends."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no process group gets the signal
        yield
        return
    # Python's resource tracker (which loky and distributed use) unblocks SIGINT in the thread
    # that first starts it: started first, outside the block.
    resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def ignore_sigint() -> None:
    """In a worker's main thread: ignore SIGINT from now on, and discard one that arrived while
    it was blocked (:func:`sigint_blocked`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
