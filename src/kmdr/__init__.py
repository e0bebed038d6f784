"""kmdr: a reproducible benchmark harness for dimensionality reduction before k-means.

Subpackages: :mod:`kmdr.reducers` (the papers' reducers as scikit-learn transformers),
:mod:`kmdr.cluster` (Lloyd k-means with restarts), :mod:`kmdr.metrics` (the normalized objective F
on the original data, accuracy P, NMI, ARI), :mod:`kmdr.datasets` (the papers' data, downloaded and
verified), :mod:`kmdr.experiments` (Hydra configs, the resumable runner, tidy CSVs and figures) and
:mod:`kmdr.report` (the papers' claims checked against our results).
"""

__version__ = "0.1.0"
