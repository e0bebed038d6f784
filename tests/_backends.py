"""Skip marks of the tests that need an optional backend's package, each reason written once."""

from __future__ import annotations

import importlib.util

import pytest

needs_dask = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None,
    reason="dask.distributed is not installed (pip install 'kmdr[dask]')",
)
needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None,
    reason="ray is not installed (pip install 'kmdr[ray]')",
)
