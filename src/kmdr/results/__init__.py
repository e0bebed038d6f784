"""The results store and its readers: cell files, ``cells.csv``, run records, summaries.

The layer every reader (figures, report, papers) goes through; its layout is described in
``docs/results-layout.md``. One concept a module:

- :mod:`~kmdr.results.cells`: what a cell is (its identity, seed and row) and an experiment's plan;
- :mod:`~kmdr.results.records`: a row's record (its columns, its text in cells.csv and in a cell
  file, its checks);
- :mod:`~kmdr.results.locks`: the one lock of an experiment folder, held by the run writing it;
- :mod:`~kmdr.results.store`: :class:`~kmdr.results.store.CellStore`, the files of one
  experiment folder shared by several processes;
- :mod:`~kmdr.results.reading`: what a reader sees (keys, current rows, run sidecars, one
  DataFrame);
- :mod:`~kmdr.results.summary`: the tables aggregated from the current cells;
- :mod:`~kmdr.results.compare` and :mod:`~kmdr.results.prune`: the ``kmdr-compare`` and
  ``kmdr-prune`` commands;
- :mod:`~kmdr.results.provenance`: where a run's numbers came from.

Nothing here keeps process-wide state or starts a thread: a reader that wants each report said
once holds a :class:`~kmdr.results.reading.Once`.
"""
