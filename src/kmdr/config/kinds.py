"""Experiment kinds: what a run computes once its data is loaded and checked.

A kind is a small object with a ``name`` and ``run(ctx)`` (``ctx`` is the runner's
:class:`~kmdr.engine.session.RunContext`; a kind that computes on the run's workers calls
``ctx.start_workers()`` first, which starts the backend once, so that a run computing nothing
there starts none; one that computes in the run's process does so with the experiment's
``blas_threads``, which the runner pins before the kind runs and gives back after it,
:meth:`kmdr.engine.worker.ProcessState.threads`); ``writes_cells`` says whether it produces
cells (and so takes part in ``dry_run`` planning through ``plan(ctx)``), and ``reads`` (optional)
names the :class:`~kmdr.config.schema.Experiment` settings it reads, so that an override of
another warns that it changes nothing (:func:`kmdr.config.overrides.check_unread`;
the sweep of cells' is :data:`CELLS_READ`), and
``check_against_data(spec, n, d, k, sparse=False)`` (optional; default
:func:`kmdr.config.checks.check_against_data`, the reducers' ranges) refuses data the kind
cannot run on, in one line before the run writes anything, and
``looks_parallel(spec, experiment_dir)`` (optional) guesses, before the data loads, whether a run
has jobs for more than one worker, so that the session warms its pool only then (without it, a
kind that writes cells has the pool warmed, one that does not has not). Kinds are
looked up by the config's ``kind`` key in :data:`KINDS`, a :class:`kmdr.plugins.Registry`: the
sweep of cells is declared here; a paper declares its own kinds in its
:class:`kmdr.plugins.Paper` (bmd09's leverage scores, bzmd14's sampling lemma), and so can a
plug-in's paper. A kind is imported when an experiment of it is built (what it reads decides
which settings the experiment checks and keeps: :func:`kind_reads`) or run; no module of a kind
imports the runner.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from kmdr.config.errors import ConfigError
from kmdr.plugins import Registry, RegistryError

#: The :class:`~kmdr.config.schema.Experiment` settings every kind reads, whatever its ``reads``
#: says (``name``, ``kind`` and ``preset`` say what the experiment is, whatever it computes).
ALWAYS_READ = ("name", "kind", "preset")


@runtime_checkable
class Kind(Protocol):
    """An experiment kind, as the runner runs it (see the module docstring): a kind of cells is
    a :class:`kmdr.engine.sweep.Sweep` of a :class:`kmdr.engine.cell_kinds.CellKind` (the sweep
    of reducer cells, the coresets kind); a kind that computes something else writes its own
    files (bmd09's leverage scores, bzmd14's sampling lemma)."""

    name: str
    writes_cells: bool

    def run(self, ctx) -> None: ...


def _check(obj, name: str):
    if not callable(getattr(obj, "run", None)):
        raise TypeError(f"{type(obj).__name__} object has no run(ctx): it is not a kind")
    if not isinstance(obj, Kind):
        raise TypeError(f"{type(obj).__name__} object lacks a kind's name or writes_cells")
    return obj


#: Every experiment kind: the sweep of cells, then the papers' and plug-ins' kinds.
KINDS: Registry = Registry("experiment kind", "kmdr.papers", convert=_check, paper_field="kinds")
KINDS.declare("cells", "kmdr.engine.sweep:CELLS")
KINDS.declare("coresets", "kmdr.engine.coresets:CORESETS")


def get_kind(name: str):
    """The kind object declared as ``name`` (:class:`kmdr.plugins.RegistryError`, one line, for
    a name no declaration holds)."""
    return KINDS.get(name)


#: What kmdr's own sweep of cells reads, declared here, so that building an experiment of it
#: loads no kind (the sweep is the engine's).
CELLS_READ = ("dataset", "reducers", "r_grid", "repeats", "seed", "kmeans", "aggregation",
              "blas_threads")  # fmt: skip


def kind_reads(name: str, experiment=None) -> frozenset[str] | None:
    """The :class:`~kmdr.config.schema.Experiment` settings kind ``name`` reads: for the sweep of
    cells :data:`CELLS_READ`, for another kind its ``reads``, or None when it names none (it
    reads every one); given the ``experiment``, what that one reads where the kind says it
    depends on it (its ``reads_of(experiment)``: the coresets kind reads the k-means settings only
    with a Lloyd solve). A kind that cannot be loaded is a one-line :class:`ConfigError`."""
    if name == "cells":
        return frozenset(CELLS_READ)
    try:
        kind = get_kind(name)
    except RegistryError as err:
        raise ConfigError(str(err)) from None
    reads_of = getattr(kind, "reads_of", None)
    if experiment is not None and reads_of is not None:
        return frozenset(reads_of(experiment))
    reads = getattr(kind, "reads", None)
    return None if reads is None else frozenset(reads)
