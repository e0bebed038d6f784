"""Session-wide test settings shared by every test module."""

# isort: off
import os

# One OpenMP and BLAS thread in every process of the suite (this one, its xdist workers and the
# processes tests start), unless the caller set another count: the xdist workers already fill
# the cores, and a second thread per library only spins while it waits for the other's
# (scikit-learn's k-means on a few hundred rows took 4 times the CPU with two threads on two
# busy cores, measured). Set before numpy, scipy and scikit-learn load their thread pools. A
# cell's own count is its blas_threads, which kmdr pins wherever the cell is computed.
os.environ.setdefault("OMP_NUM_THREADS", "1")

# The dask processes of the suite (the session's cluster below, and those of the runs tests start
# with backend=dask) without the diagnostics that wake them while they wait: the event loop's
# 20 ms health tick, the worker's 10 ms stack sampling and the 0.5 s system monitor. They change
# no result and no message kmdr prints; an idle LocalCluster of two workers used 2.6 CPU s every
# 30 s with them and 0.7 s without (measured), and the session's cluster idles for minutes
# between the files that use it.
os.environ.setdefault("DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL", "1s")
os.environ.setdefault("DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED", "False")
os.environ.setdefault("DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL", "5s")

# kmdr first: it picks OpenBLAS's kernels (kmdr._native), which works only before numpy loads
# OpenBLAS, so that what a test computes in this process matches what kmdr's commands compute.
import kmdr  # noqa: F401
import matplotlib

# isort: on
import importlib.metadata


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


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _signal_handlers_as_found():
    """A command run in this process and stopped by a signal leaves the stop signals ignored
    until its process ends (kmdr.engine.signals.exit_stopped): the test's process, which goes
    on, gets its own handlers back."""
    import signal

    from kmdr.engine.signals import STOP_SIGNALS

    handlers = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    yield
    for sig, handler in handlers.items():
        signal.signal(sig, handler)


@pytest.fixture(scope="session", autouse=True)
def _outside_the_checkout(tmp_path_factory):
    """Every test runs from a folder of its own, not the checkout: what a command writes
    relative to where it runs (a multirun's ``multirun/`` records, a run without
    ``results_dir``'s ``results/``) lands there, and ``make test`` leaves the checkout as it
    was. Tests reach the checkout's files through their own paths, never the working folder.

    The temporary folder of the tests and of every process they start (``TMPDIR``) is one of
    pytest's own too: what a run leaves there on purpose (a dask cluster's worker log, which its
    error line names) goes with pytest's old folders, instead of piling up in the system's.
    Ray's session folder stays in /tmp (``RAY_TMPDIR``): it holds Ray's sockets, whose paths
    under pytest's folder pass the 107 bytes a Unix socket's path may have."""
    import tempfile

    here, temp = os.getcwd(), os.environ.get("TMPDIR")
    os.chdir(tmp_path_factory.mktemp("cwd"))
    os.environ["TMPDIR"] = str(tmp_path_factory.mktemp("tmp"))
    os.environ.setdefault("RAY_TMPDIR", "/tmp")
    tempfile.tempdir = None  # read TMPDIR again
    yield
    os.chdir(here)
    if temp is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = temp
    tempfile.tempdir = None


@pytest.fixture(scope="session")
def client():
    """A client of a real dask LocalCluster of two worker processes, built once for the whole
    session (per xdist worker) by the first test that asks for it (the row-block tests)."""
    from dask.distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            # no memory limit: a worker paused at 80 % of a small one waits for memory forever
            memory_limit=None,
            dashboard_address=":0",
        ) as cluster,
        Client(cluster) as c,
    ):
        yield c


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    """One headless chromium (tests/_browser.py) for every test that opens a page, started by
    the first that asks (the results page's and the documentation site's tests)."""
    from _browser import chromium

    yield from chromium(tmp_path_factory)
