"""kmdr: a reproducible benchmark harness for dimensionality reduction before k-means.

The Python API, for scripts and notebooks::

    import kmdr
    cells = kmdr.run(["experiment=bzmd14_orl", "r_grid=[5,10]", "repeats=2"])
    cells = kmdr.run(kmdr.compose("experiment=bzmd14_orl", "repeats=1"))
    everything = kmdr.read_results("results")

- :func:`run` (:func:`kmdr.app.api.run`): one run of ``kmdr``, of an :class:`Experiment` or of
  the command line's overrides; returns the run's cells as a pandas DataFrame.
- :func:`compose` (:func:`kmdr.app.api.compose`): the :class:`Experiment` the command line would
  run with some overrides (a paper's preset with settings of your own, say).
- :class:`Experiment`, :class:`Execution`, :class:`Output` (:mod:`kmdr.config.schema`): what a
  run computes, how it executes, what it writes.
- :func:`read_results` (:func:`kmdr.results.summary.read_results`): every cell of a results folder
  or of one experiment folder.
- :class:`ConfigError` (a ValueError): bad input, one line, raised before any work;
  :class:`RunError` (a RuntimeError): a run that started and failed; :class:`ResultsError` (a
  ValueError): a results folder that cannot be read as it is.
- ``__version__``: the installed distribution's version.

The library underneath: :mod:`kmdr.reducers` (the papers' reducers as scikit-learn transformers),
:mod:`kmdr.kmeans.lloyd` (Lloyd k-means with restarts), :mod:`kmdr.metrics` (the normalized
objective F
on the original data, accuracy P, NMI, ARI), :mod:`kmdr.datasets` (the papers' data, downloaded and
verified).

The package root is the lowest layer: the names above are imported on first use by the module's
``__getattr__`` (PEP 562), so ``import kmdr`` loads nothing else and no module of kmdr depends on
them through the root. It does one thing first: it asks OpenBLAS for the kernels every x86-64
machine computes alike (:mod:`kmdr._native`), which works only before numpy is imported.
"""

from __future__ import annotations

from kmdr import _native

# Before anything imports numpy: the same OpenBLAS kernels on every x86-64 machine (kmdr._native).
_native.pin()

__all__ = [
    "ConfigError",
    "Execution",
    "Experiment",
    "Output",
    "ResultsError",
    "RunError",
    "__version__",
    "compose",
    "read_results",
    "run",
]

_DISTRIBUTION = "kmdr"


def __getattr__(name: str):
    """The public facade, imported on first use (see the module docstring)."""
    if name in ("run", "compose"):
        from kmdr.app import api

        return getattr(api, name)
    if name in ("Experiment", "Execution", "Output"):
        from kmdr.config import schema

        return getattr(schema, name)
    if name == "read_results":
        from kmdr.results.summary import read_results

        return read_results
    if name == "ConfigError":
        from kmdr.config.errors import ConfigError

        return ConfigError
    if name == "RunError":
        from kmdr.app.task import RunError

        return RunError
    if name == "ResultsError":
        from kmdr.results.reading import ResultsError

        return ResultsError
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version(_DISTRIBUTION)
        except PackageNotFoundError:  # run from a source tree that is not installed
            return "0+unknown"
    raise AttributeError(f"module 'kmdr' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
