"""The size of every graph dask sends, as dask itself measures it: what the tests that check no
data travels inside a task graph read (the classic backend's and the chunked path's)."""

from __future__ import annotations

import contextlib
import warnings

#: The start of dask's large-graph warning, followed by the graph's size.
LARGE_GRAPH = "Sending large graph of size "


@contextlib.contextmanager
def graph_sizes():
    """The size in bytes of every graph dask sends while the block runs, as dask measures it:
    its large-graph warning threshold set to 0, so that it reports each graph it sends."""
    import dask
    import distributed  # noqa: F401  (its config defaults, before the block sets one)
    from dask.utils import parse_bytes

    sizes: list[int] = []
    with (
        dask.config.set({"distributed.admin.large-graph-warning-threshold": "0B"}),
        warnings.catch_warnings(record=True) as caught,
    ):
        warnings.simplefilter("always")
        yield sizes
    for w in caught:
        text = str(w.message)
        if text.startswith(LARGE_GRAPH):
            sizes.append(parse_bytes(text[len(LARGE_GRAPH) :].split(".\n")[0]))
