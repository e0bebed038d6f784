"""Session-wide test settings shared by every test module."""

import matplotlib

# Figures are drawn to files; no display is needed or wanted.
matplotlib.use("Agg")

# Real data is found as kmdr finds it (the data cache, KMDR_DATA_MIRROR, a download): see
# tests/_data.py. No path to a data folder is assumed here.
