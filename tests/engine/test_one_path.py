"""One way through a run: the command line and ``kmdr.run`` each check the config, start the
workers, choose where the data live (in memory or row blocks), load them and execute once.
Counted for real: the run is profiled (cProfile counts every call of every function) in a process
of its own, and each step's function must have been called exactly once."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

#: A small run: 60 x 12 generated points, one reducer, four cells; the reducer is given a
#: parameter other than its declared default, so that its parameters are checked.
TINY = [
    "dataset=synth",
    "+dataset.params={n_samples:60,n_features:12,n_clusters:3}",
    "reducer=svd_approx",
    "+reducers.0.params.eps=0.5",
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
    ("kmdr/config/overrides.py", "check_kind_reads"),
    ("kmdr/config/overrides.py", "check_quick_overrides"),
    ("kmdr/app/protocol.py", "check_folder"),
    ("kmdr/engine/resume_check.py", "check_resume"),
    ("kmdr/engine/session.py", "run"),
    ("kmdr/engine/session.py", "load"),
    ("kmdr/engine/data_path.py", "data_path"),
    ("kmdr/engine/data_path.py", "load_data"),
    ("kmdr/engine/data_path.py", "data_facts"),
    ("kmdr/engine/session.py", "_execute"),
]

PROFILED = """
import cProfile, json, pstats, sys
route, results = sys.argv[1], sys.argv[2]
args = json.loads(sys.argv[3])
profile = cProfile.Profile()
if route == "cli":
    from kmdr.app.entry import main
    sys.argv = ["kmdr", *args, f"results_dir={results}"]
    try:
        profile.runcall(main)
    except SystemExit as stop:
        assert not stop.code, stop.code
else:
    import kmdr
    profile.runcall(kmdr.run, *args, results_dir=results)
calls = {}
for (path, _line, name), (_cc, nc, *_rest) in pstats.Stats(profile).stats.items():
    key = "/".join(path.split("/")[-3:]) + ":" + name
    calls[key] = calls.get(key, 0) + nc
print(json.dumps(calls))
"""


@pytest.mark.parametrize("route", ["cli", "api"])
def test_each_step_of_a_run_happens_once(route, tmp_path):
    args = [*TINY, "n_jobs=2"]
    proc = subprocess.run(
        [sys.executable, "-c", PROFILED, route, str(tmp_path / "r"), json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    calls = json.loads(proc.stdout.strip().splitlines()[-1])
    counted = {f"{path}:{name}": calls.get(f"{path}:{name}", 0) for path, name in ONCE}
    assert counted == {key: 1 for key in counted}
    assert (tmp_path / "r" / "custom" / "cells.csv").is_file()
