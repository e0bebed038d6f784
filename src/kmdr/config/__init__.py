"""Configuration: the typed schema of a run, the presets, experiment kinds and seeds.

The lowest layer of the harness above the algorithms: it knows nothing of how cells are run or
stored. Everything above it (run, results, figures, report, papers) reads a checked config.
"""
