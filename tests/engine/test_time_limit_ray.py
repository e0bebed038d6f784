"""``cell_time_limit`` on Ray: the ``kmdr`` command on a local Ray of 2 CPUs, with the plug-in
whose cells of one r are one LAPACK call (an exact SVD) far longer than the limit. The run's
process cancels the tasks computing them (``ray.cancel(force=True)``, which kills their worker)
within the limit and its stated grace, the other cells are written, the stopped ones named in
the run record, and a second run with a larger limit computes only them; no process of the
local Ray outlives a run. One case: a local Ray takes seconds to start."""

from __future__ import annotations

from pathlib import Path

import pytest

from _backends import needs_ray
from _procs import make_plugin, wait_for
from _time_limit import (
    LIMIT,
    LONG_LIMIT,
    LONG_SVD,
    SVD,
    check_resumed,
    check_two_timed_out,
    run,
)

pytestmark = [
    pytest.mark.slow,
    needs_ray,
]

RAY = ("n_jobs=2", "backend=ray")


def in_session(sid: int) -> list[str]:
    """The processes of the session ``sid`` (a run's: it started in one of its own), by name."""
    names = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # ended since the listing
            continue
        name, rest = text.split(" (", 1)[1].rsplit(") ", 1)
        if int(rest.split()[3]) == sid and rest.split()[0] != "Z":
            names.append(name)
    return names


def test_cells_past_the_limit_are_cancelled_and_a_resume_computes_them(tmp_path):
    project = make_plugin(tmp_path / "plugin")
    results = tmp_path / "results"
    results.mkdir()
    proc, code = run(project, results, SVD, *RAY, f"cell_time_limit={LIMIT}")
    check_two_timed_out(proc, code, results, LIMIT)
    wait_for(lambda: not in_session(proc.pid), "the end of the local Ray's processes", timeout=10)
    proc, code = run(project, results, "none:0", *RAY, "cell_time_limit=60")
    check_resumed(results, proc, code)
    wait_for(lambda: not in_session(proc.pid), "the end of the local Ray's processes", timeout=10)


@pytest.mark.longhaul
def test_an_svd_of_35_seconds_is_stopped_at_a_limit_of_3(tmp_path):
    """The full size: an exact SVD of 4000 x 4000 (about 35 s on one thread here)."""
    project = make_plugin(tmp_path / "plugin")
    proc, code = run(project, tmp_path, LONG_SVD, *RAY, f"cell_time_limit={LONG_LIMIT}")
    check_two_timed_out(proc, code, tmp_path, LONG_LIMIT)
    wait_for(lambda: not in_session(proc.pid), "the end of the local Ray's processes", timeout=10)
