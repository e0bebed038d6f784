"""Experiments: Hydra configs (``conf/``), the resumable runner, tidy CSVs, summaries, figures.

* :mod:`~kmdr.experiments.spec`: the checked configuration (:func:`spec_from_config`).
* :mod:`~kmdr.experiments.runner`: :func:`run_experiment`, the joblib sweep over cells.
* :mod:`~kmdr.experiments.store`: cell files, ``cells.csv`` and run sidecars
  (``docs/results-layout.md``).
* :mod:`~kmdr.experiments.seeds`: per-cell seeds from one base seed.
* :mod:`~kmdr.experiments.cli`: the ``kmdr`` command.
"""
