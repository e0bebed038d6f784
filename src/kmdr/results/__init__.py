"""The results store and its readers: cell files, ``cells.csv``, run records, summaries.

The layer every reader (figures, report, papers) goes through; its layout is described in
``docs/results-layout.md``.
"""
