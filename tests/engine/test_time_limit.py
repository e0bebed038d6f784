"""``cell_time_limit``: a sweep whose cells run past their limit ends by itself, on every backend
that can end a process (this machine's; dask and Ray in test_time_limit_dask.py and
test_time_limit_ray.py). Real processes: the ``kmdr`` command with a plug-in reducer whose cells
of one r are one LAPACK call (an exact SVD) far longer than the limit, or a sleep that never
ends; the run's process ends the worker computing them within the limit and its stated grace,
the other cells are kept, the stopped ones named in the run record with the seconds they ran,
and a second run with a larger limit computes only them. A limit that cannot hold is refused
before any work, in this process."""

from __future__ import annotations

import re

import pytest

import kmdr as api
from _cases import case
from _procs import make_plugin
from _time_limit import LIMIT, LONG_LIMIT, LONG_SVD, SVD, check_resumed, check_two_timed_out, run


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return make_plugin(tmp_path_factory.mktemp("plugin"))


BACKENDS = [
    pytest.param(("n_jobs=1",), SVD, id="one-worker-svd"),
    pytest.param(("n_jobs=2", "backend=loky"), SVD, id="loky-svd"),
    # a sleep that never ends, in Python: as stopped (a minute each on 2 loaded cores)
    pytest.param(
        ("n_jobs=2", "backend=multiprocessing"),
        "sleep:4",
        id="multiprocessing-sleep",
        marks=pytest.mark.longhaul,
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(("backend", "action"), BACKENDS)
def test_cells_past_the_limit_are_stopped_and_a_resume_computes_them(
    project, tmp_path, backend, action
):
    proc, code = run(project, tmp_path, action, *backend, f"cell_time_limit={LIMIT}")
    check_two_timed_out(proc, code, tmp_path, LIMIT)
    if "backend=loky" not in backend:
        return  # the resume is the same after any: once is enough
    # The same sweep with a larger limit (the reducer now returns): only the 2 are computed (in
    # one process: which cells a run computes is the store's answer, whatever the backend).
    proc, code = run(project, tmp_path, "none:0", "n_jobs=1", "cell_time_limit=60")
    check_resumed(tmp_path, proc, code)


@pytest.mark.longhaul
@pytest.mark.parametrize("backend", [("n_jobs=1",), ("n_jobs=2", "backend=loky")])
def test_an_svd_of_35_seconds_is_stopped_at_a_limit_of_3(project, tmp_path, backend):
    """The full size: an exact SVD of 4000 x 4000 (about 35 s on one thread here)."""
    proc, code = run(project, tmp_path, LONG_SVD, *backend, f"cell_time_limit={LONG_LIMIT}")
    check_two_timed_out(proc, code, tmp_path, LONG_LIMIT)


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        case(
            ("cell_time_limit=0",),
            says="'cell_time_limit' must be > 0",
            doing="configure",
            cause="cell_time_limit is the seconds a cell may take: 0 or a negative number allows "
            "none",
            fix="give a number of seconds above 0 (cell_time_limit=600), or null for no limit",
        ),
        case(
            ("cell_time_limit=5", "backend=threading", "n_jobs=2"),
            says="a cell running in a thread cannot be stopped; use backend=loky",
            doing="configure",
            cause="the threading backend computes cells in threads, which the run cannot end",
            fix="use backend=loky (or n_jobs=1) with cell_time_limit",
        ),
    ],
)
def test_a_limit_that_cannot_hold_is_refused_before_any_work(tmp_path, extra, says):
    with pytest.raises(api.ConfigError, match=re.escape(says)):
        api.run("dataset=synth", *extra, f"results_dir={tmp_path}")
    assert not any(tmp_path.iterdir())
