"""Session-wide test settings shared by every test module."""

# isort: off
# kmdr first: it picks OpenBLAS's kernels (kmdr._kernels), which works only before numpy loads
# OpenBLAS, so that what a test computes in this process matches what kmdr's commands compute.
import kmdr  # noqa: F401
import matplotlib

# isort: on

# Figures are drawn to files; no display is needed or wanted.
matplotlib.use("Agg")

# Real data is found as kmdr finds it (the data cache, KMDR_DATA_MIRROR, a download): see
# tests/_data.py. No path to a data folder is assumed here.
