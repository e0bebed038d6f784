"""The papers' claims and theorems checked against the results (``results/REPORT.md``).

* :mod:`kmdr.report.claims`: claims as checkable statements, with the verdict logic (holds /
  partly / undecided / fails / no data) over the aggregated summaries, and the registry the papers'
  claim sets register into;
* :mod:`kmdr.report.sections`: what a report section declares, and the generic section listing
  its experiments; the papers register theirs (:data:`kmdr.config.presentation.SECTIONS`);
* :mod:`kmdr.report.theory`: the bounds' machinery (the r a theorem needs, the empirical
  approximation ratio) and the registry of the papers' theorems;
* :mod:`kmdr.report.build`: ``kmdr-report DIR`` writes ``DIR/REPORT.md`` from the CSVs alone.
"""
