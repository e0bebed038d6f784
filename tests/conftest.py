"""Session-wide test settings shared by every test module."""

# isort: off
# kmdr first: it picks OpenBLAS's kernels (kmdr._kernels), which works only before numpy loads
# OpenBLAS, so that what a test computes in this process matches what kmdr's commands compute.
import kmdr  # noqa: F401
import matplotlib

# isort: on
import importlib.metadata
import os
import signal
import threading
import warnings

import pytest


def _installed_plugins() -> list[str]:
    """The installed distributions, other than kmdr, that declare kmdr entry points (a user's
    plug-ins): read before kmdr scans its entry points, and ignored by every process of the suite
    (``KMDR_IGNORE_PLUGINS``), so that the suite tests kmdr alone whatever is installed beside
    it. The plug-ins tests make for themselves (in temporary folders) are not installed here."""
    names = set()
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"] or ""
        if name.lower() != "kmdr" and any(ep.group.startswith("kmdr.") for ep in dist.entry_points):
            names.add(name)
    return sorted(names)


os.environ["KMDR_IGNORE_PLUGINS"] = ",".join(_installed_plugins())


# Figures are drawn to files; no display is needed or wanted.
matplotlib.use("Agg")

# Real data is found as kmdr finds it (the data cache, KMDR_DATA_MIRROR, a download): see
# tests/_data.py. No path to a data folder is assumed here.


# The stop signals' handlers and the main thread's signal mask are process state: a test that
# runs kmdr in this process (kmdr.run, a Session, the app's main) installs and restores them, and
# one that ends while a library still holds them (a cluster's start, a signal test cut short)
# must not leave the next test of this worker with Ctrl-C ignored, blocked or handled by a stop
# block that is over. Each test starts from the state the worker had before it.
_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGALRM")
    if hasattr(signal, name)
)  # fmt: skip


@pytest.fixture(autouse=True)
def _signal_state(request):
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handlers = {sig: signal.getsignal(sig) for sig in _SIGNALS}
    masked = hasattr(signal, "pthread_sigmask")
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, ()) if masked else None
    yield
    left = []
    for sig, handler in handlers.items():
        if handler is not None and signal.getsignal(sig) is not handler:
            left.append(f"{signal.Signals(sig).name} handled by {signal.getsignal(sig)!r}")
            signal.signal(sig, handler)
    if masked and signal.pthread_sigmask(signal.SIG_SETMASK, mask) != mask:
        left.append("another signal mask")
    if left:  # said, so that the test that leaks it can be found; the next test is not hit
        warnings.warn(f"{request.node.nodeid} left {'; '.join(left)}", stacklevel=1)
