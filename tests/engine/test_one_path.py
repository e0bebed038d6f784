"""One way through a run: the command line and ``kmdr.run`` each check the config, start the
workers, choose where the data live (in memory or row blocks), load them and execute once.
Counted for real: the run is profiled (cProfile counts every call of every function) in this
process, with no session left open by an earlier run (the workers start in the run profiled), and
each step's function must have been called exactly once."""

from __future__ import annotations

import cProfile
import pstats

import pytest

import _command
import kmdr
from kmdr.engine.session import close_default_session

pytestmark = pytest.mark.slow

#: A small run: 60 x 12 generated points, one reducer, four cells; the reducer is given a
#: parameter other than its declared default, so that its parameters are checked.
TINY = [
    "dataset=synth",
    "+dataset.params={n_samples:60,n_features:12,n_clusters:3}",
    "reducer=svd_approx",
    "+reducers.svd_approx.params.eps=0.5",
    "r_grid=[2,4]",
    "repeats=2",
    "kmeans.n_init=1",
    "figures=false",
    "progress=false",
]

#: (module file, function) of each step a run takes once, whatever its route.
ONCE = [
    ("kmdr/app/compose.py", "checked"),
    ("kmdr/config/schema.py", "from_config"),
    ("kmdr/config/schema.py", "check_together"),
    ("kmdr/config/checks.py", "check_block_rows"),
    ("kmdr/config/checks.py", "check_results_dir"),
    ("kmdr/config/checks.py", "declared_valid"),
    ("kmdr/config/checks.py", "check_reducer_params"),
    ("kmdr/config/checks.py", "check_against_data"),
    ("kmdr/config/overrides.py", "check_unread"),
    ("kmdr/app/protocol.py", "check_folder"),
    ("kmdr/engine/session.py", "run"),
    ("kmdr/engine/session.py", "load"),
    ("kmdr/engine/data_path.py", "data_path"),
    ("kmdr/engine/data_path.py", "load_data"),
    ("kmdr/engine/data_path.py", "data_facts"),
    ("kmdr/engine/session.py", "_execute"),
]


def _profiled(route: str, args: list[str], results) -> dict[str, int]:
    """The calls of each function (``<last 3 path parts>:<name>``) in one run by ``route``:
    ``kmdr``'s main (the console script's) or ``kmdr.run``."""
    close_default_session()  # the run starts its own workers, as in a fresh process
    profile = cProfile.Profile()
    try:
        if route == "cli":
            profile.runcall(_command.kmdr, [*args, f"results_dir={results}"])
        else:
            profile.runcall(kmdr.run, *args, results_dir=results)
    finally:
        close_default_session()
    calls = {}
    for (path, _line, name), (_cc, nc, *_rest) in pstats.Stats(profile).stats.items():
        key = "/".join(path.split("/")[-3:]) + ":" + name
        calls[key] = calls.get(key, 0) + nc
    return calls


@pytest.mark.parametrize("route", ["cli", "api"])
def test_each_step_of_a_run_happens_once(route, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    calls = _profiled(route, [*TINY, "n_jobs=2"], tmp_path / "r")
    counted = {f"{path}:{name}": calls.get(f"{path}:{name}", 0) for path, name in ONCE}
    assert counted == {key: 1 for key in counted}
    assert (tmp_path / "r" / "custom" / "cells.csv").is_file()
