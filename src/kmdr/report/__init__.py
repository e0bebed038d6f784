"""The papers' claims and theorems checked against the results (``results/REPORT.md``).

* :mod:`kmdr.report.claims`: the papers' curve-only claims as checkable statements, with the
  verdict logic (holds / partly / tie / fails / no data) over the aggregated summaries;
* :mod:`kmdr.report.theory`: the theorems' bounds with the r they need, the empirical
  approximation ratio, and the sampling lemma (``python -m kmdr.report.theory --results DIR``
  writes ``DIR/theory/*.csv``);
* :mod:`kmdr.report.build`: ``kmdr-report DIR`` writes ``DIR/REPORT.md`` from the CSVs alone.
"""
