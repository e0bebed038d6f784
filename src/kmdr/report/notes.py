"""Text about one specific experiment, by its name: why it has no data, what to know before
reading its figure. The papers declare it (``no_data`` and ``notes`` of their
:class:`kmdr.plugins.Paper`); these are read-only views of every paper's. Prose only: nothing in
the report decides anything by an experiment's name."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from kmdr.plugins import papers

__all__ = ["FIGURE_NOTES", "NO_DATA_WHY", "TIME_INTRO"]


class _PapersProse(Mapping[str, str]):
    """One field of every paper's declaration (a mapping by experiment name), read when asked:
    the papers are found on first use, not when this module is imported."""

    def __init__(self, field: str) -> None:
        self._field = field

    def _merged(self) -> dict[str, str]:
        return {k: v for paper in papers() for k, v in getattr(paper, self._field).items()}

    def __getitem__(self, name: str) -> str:
        return self._merged()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._merged())

    def __len__(self) -> int:
        return len(self._merged())


#: Why an experiment of the papers has no data here (shown when it did not run).
NO_DATA_WHY: Mapping[str, str] = _PapersProse("no_data")

#: What a reader must know before reading a figure's claims.
FIGURE_NOTES: Mapping[str, str] = _PapersProse("notes")


#: How a cell's time is charged, said once before the per-method list (what each reducer's own
#: time covers is its declaration's ``time_includes``: :func:`kmdr.reducers.reducer_entry`).
TIME_INTRO = (
    "A cell's time = reduction time + clustering time, both wall-clock (`blas_threads` in "
    "cells.csv says how many BLAS threads). Work that several cells share (one factorisation "
    "serving every r; `shared_key` in cells.csv) is computed once per repetition but its time "
    "is charged *in full* to every cell of that repetition that uses it, so each cell costs "
    "what it would alone. Work that draws nothing (an exact SVD, Laplacian scores, a "
    "deterministic embedding) gives the same result in every repetition: it is computed once "
    "for the clustering, and run again in every further repetition only to be timed, so every "
    "repetition's time is a measurement of its own (`reduce_timing` in cells.csv) and the "
    "spread across repetitions is real. "
    "Clustering time is Lloyd's k-means on C with all its restarts (`kmeans.n_init`), unless "
    "the method brings its own clustering."
)
