"""What a kind of cells gives the sweep, declared once: :class:`CellKind`, and the :class:`Job`
every computation receives.

The sweep (:class:`kmdr.engine.sweep.Sweep`) owns everything a run of cells shares, whatever
the cells compute: the plan's resume (a valid row of ``cells.csv`` is never computed again),
grouping into jobs, the workers and backends (loky, multiprocessing, dask, Ray), the time limit,
the run record and the store. A kind of cells says only what is its own, by composition, in four
parts:

- ``plan(ctx)``: the experiment's cells (:class:`kmdr.results.cells.Cell`), each with its
  identity and id; ``columns``: the metric columns its cells add to those every cell has;
- ``shared_data(ctx)``: the data its jobs read, as named values (``{"X": ..., "y": ...}``),
  which the sweep sends to the workers once where the backend can (loky memory-maps them, dask
  scatters them, Ray puts them in its object store);
- ``compute(state, job, **data)``: a job's cells computed in whatever process runs it, with the
  process's :class:`~kmdr.engine.worker.ProcessState` and the named data; it returns
  ``(pairs, report)``: ``[(cell, metrics or the one line saying why it is not written), ...]``
  and the shared work it computed (``(ident, seconds)``) or None;
- optionally ``compute_chunked(cell, blocks, client, n_clusters, sketches, progress)``: a cell
  from row blocks (``block_rows``); a kind without it refuses row blocks in one line, and
  ``check_against_data(spec, n, d, k, sparse=False)``: data it cannot run on, refused before the
  run writes anything.

A job is handed over by name (:class:`Job`, and the data as keyword arguments), never as a
tuple whose positions the engine would have to know.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, runtime_checkable

__all__ = ["CellKind", "Job", "Watch"]


class Watch(NamedTuple):
    """What a job says when it starts and ends under a time limit
    (:func:`kmdr.engine.deadlines.watched`): its run's channel, its round and its index."""

    channel: object
    round: int
    index: int


@dataclass(frozen=True)
class Job:
    """One job of a sweep: the cells it computes together and what they share besides the data.

    Attributes
    ----------
    cells : tuple of Cell
        Cells of one group (:attr:`kmdr.results.cells.Cell.group_key`): one reduction.
    n_clusters : int
        k.
    shared_seed : int or None
        The seed of the cells' shared work (:attr:`kmdr.results.cells.Cell.shared_seed`).
    token : str
        The run's id: names its shared works in a worker's memo.
    parent_pid : int
        The run's process, which a worker process watches (it exits when that one dies).
    watch : Watch or None
        Under ``cell_time_limit``, what the job says when it starts and ends; else None.
    """

    cells: tuple
    n_clusters: int
    shared_seed: int | None
    token: str
    parent_pid: int
    watch: Watch | None = None


@runtime_checkable
class CellKind(Protocol):
    """A kind of cells, run by the sweep (see the module docstring)."""

    name: str
    #: The :class:`~kmdr.config.schema.Experiment` settings it reads (an override of another
    #: warns that it changes nothing).
    reads: tuple[str, ...]
    #: The metric columns its cells add to every cell's (:data:`kmdr.results.records.CSV_COLUMNS`).
    columns: tuple[str, ...]

    def plan(self, ctx) -> list: ...

    def shared_data(self, ctx) -> dict[str, Any]: ...

    def compute(self, state, job: Job, **data) -> tuple[list, Any]: ...
