"""The native math libraries' settings, owned here alone: which OpenBLAS kernels compute kmdr's
numbers (the same ones on every x86-64 machine), and how many threads every BLAS and OpenMP pool
computes with (:func:`limited_threads`, the one place threadpoolctl is asked).

Kernels
-------

OpenBLAS picks its kernels for the CPU it runs on when it is loaded, and the kernels for CPUs with
AVX-512 (``SkylakeX``) add the terms of a matrix product in another order than those for AVX2
(``Haswell``, also what it runs on AMD Zen). The results differ in their last bits: the bzmd14
ORL cells by about 1e-15 relative, and LLE's eigenvectors on COIL20 enough to change the k-means
partition. So the same cell computed on two x86-64 machines of two CPU generations would differ,
with the same code, libraries and thread count.

kmdr therefore asks OpenBLAS for the AVX2 kernels on every x86-64 Linux machine that has AVX2 and
FMA (every Intel CPU since 2013, every AMD Zen): :func:`pin` sets ``OPENBLAS_CORETYPE=Haswell``
before numpy loads OpenBLAS (``import kmdr`` calls it, and the processes a run starts inherit the
variable). A value the user set is kept; elsewhere (another CPU, another OS, Apple's Accelerate)
nothing is set and the library's own choice stands. The kernels a process ended up with are
recorded in each run's record (:func:`loaded`), and a run whose process loaded OpenBLAS before
kmdr could pin it (numpy imported first, in a notebook) says so in one line (:func:`mismatch`).

Threads
-------
A cell's ``blas_threads`` is part of its identity (the libraries add their sums in an order that
depends on their thread count), so every job, every row-block task and every script computes
inside :func:`limited_threads`. threadpoolctl's controller is kept (:func:`thread_pools`) and
scanned again only when an import may have loaded another library: a scan takes about 4.4 ms, a
limit through the kept controller 0.04 ms.

This module imports nothing but the standard library when it is imported: it must run before
numpy (threadpoolctl is imported when a limit is first asked for).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import platform
import sys
from collections.abc import Iterator

__all__ = [
    "CORETYPE",
    "ENV",
    "THREAD_POOL_MODULES",
    "limited_threads",
    "loaded",
    "mismatch",
    "pin",
    "thread_pools",
]

#: OpenBLAS's switch for its kernels (read once, when the library loads).
ENV = "OPENBLAS_CORETYPE"
#: The kernels kmdr asks for: those of AVX2 with FMA.
CORETYPE = "Haswell"
#: The CPU flags (as Linux names them in /proc/cpuinfo) the kernels need.
_NEEDS = frozenset({"avx2", "fma"})


def _cpu_has(flags: frozenset[str]) -> bool:
    """Whether this x86-64 Linux machine's CPU has every flag of ``flags`` (False elsewhere, or
    when /proc/cpuinfo cannot be read: kmdr never forces kernels a CPU might not run)."""
    if sys.platform != "linux" or platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
            for line in info:
                if line.startswith("flags"):
                    return flags <= set(line.partition(":")[2].split())
    except OSError:
        pass
    return False


def pin() -> str | None:
    """Ask OpenBLAS for :data:`CORETYPE` kernels where the CPU runs them and the user has not
    chosen; return the value in effect (None: OpenBLAS picks for itself)."""
    if ENV not in os.environ and _cpu_has(_NEEDS):
        os.environ[ENV] = CORETYPE
    return os.environ.get(ENV)


def loaded(libraries: list[dict] | None = None) -> list[str]:
    """The kernels of every OpenBLAS this process has loaded (threadpoolctl's "architecture").
    ``libraries``: threadpoolctl's ``threadpool_info()`` when the caller has read it already
    (reading it scans the process's loaded libraries: milliseconds)."""
    if libraries is None:
        from threadpoolctl import threadpool_info

        libraries = threadpool_info()
    return sorted(
        {str(i.get("architecture")) for i in libraries if i.get("internal_api") == "openblas"}
    )


def mismatch(libraries: list[dict] | None = None) -> str | None:
    """One line when this process's OpenBLAS runs other kernels than the ones asked for (it was
    loaded before ``import kmdr`` set the variable), else None. ``libraries``: as for
    :func:`loaded`."""
    wanted = os.environ.get(ENV)
    if wanted is None:
        return None
    other = [arch for arch in loaded(libraries) if arch.lower() != wanted.lower()]
    if not other:
        return None
    return (
        f"[kmdr] warning: OpenBLAS in this process runs {', '.join(other)} kernels, not "
        f"{ENV}={wanted} (numpy was imported before kmdr): cells computed here can differ in "
        f"their last bits from the record; import kmdr first, or set {ENV}={wanted} before "
        "Python starts"
    )


#: The modules that load the native thread pools cells compute with: numpy's and scipy's
#: OpenBLAS and scikit-learn's OpenMP runtime.
THREAD_POOL_MODULES = ("numpy", "scipy.linalg", "sklearn.cluster")


@functools.lru_cache(maxsize=1)
def _controller(n_modules: int):
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def thread_pools():
    """threadpoolctl's controller of the BLAS/OpenMP pools loaded now (what a run records, and
    what :func:`limited_threads` limits), scanned again only when an import may have loaded
    another (the number of imported modules keys the one kept)."""
    return _controller(len(sys.modules))


@contextlib.contextmanager
def limited_threads(
    threads: int | None, load: bool = True, user_api: str | None = None
) -> Iterator[None]:
    """Compute with ``threads`` BLAS/OpenMP threads in the block (``user_api``: ``"blas"`` or
    ``"openmp"`` alone), and give every library its count back after it.

    BLAS's count is the process's, OpenMP's the thread's (so a threading-backend job sets it in
    its own thread); OpenBLAS keeps the count its main thread set and ignores one set from another
    thread after that (OpenBLAS 0.3.30 and 0.3.31), so a run's process enters it from its main
    thread. threadpoolctl limits only the libraries loaded: the modules that load them
    (:data:`THREAD_POOL_MODULES`) are imported first (``load`` false: the libraries loaded now
    only; a block entered inside another limits, and gives back, those loaded since)."""
    for name in THREAD_POOL_MODULES if load else ():
        importlib.import_module(name)
    limits = None if threads is None else int(threads)  # None: the libraries' own counts
    limiter = thread_pools().limit(limits=limits, user_api=user_api)
    try:
        yield
    finally:
        limiter.restore_original_limits()
