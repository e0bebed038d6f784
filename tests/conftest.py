"""Session-wide test settings shared by every test module."""

import os
from pathlib import Path

import matplotlib

# Figures are drawn to files; no display is needed or wanted.
matplotlib.use("Agg")

# Tests read the real data through the mirror the workplace keeps beside the repository, unless the
# caller already pointed KMDR_DATA_MIRROR elsewhere (CI and the Makefile export it too).
_SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
if "KMDR_DATA_MIRROR" not in os.environ and _SHARED.is_dir():
    os.environ["KMDR_DATA_MIRROR"] = str(_SHARED)
