"""Every setting given is used or refused, on every route: the cases a typed object, a setting
given two ways, an Experiment under a preset's name, ``--cfg``, a multirun, an empty sweep and a
results folder that cannot be written once let through (ignored, misapplied, or a traceback).
Each is run for real: ``kmdr-report`` in a process of its own, ``kmdr`` (its ``sys.argv``, exit
status and output), ``kmdr.run`` and the objects in this process; each asserts the one line and
that nothing was written."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import TINY, run_kmdr
from test_silent_cases import files_under, refused

import kmdr
from _cases import case
from _overrides import overridden
from _results_factory import make_cells, write_experiment
from kmdr.app.compose import compose_job
from kmdr.config.overrides import UnreadSetting
from kmdr.config.schema import (
    DaskConfig,
    Execution,
    Experiment,
    KMeansConfig,
    LeverageConfig,
    Output,
    RayConfig,
    spec_of,
)

pytestmark = pytest.mark.slow

BEFORE_ANY_WORK = "kmdr.ConfigError (a ValueError), one line, before any work; nothing written"


def _experiment() -> Experiment:
    return kmdr.compose("dataset=synth", "reducer=sign", "r_grid=[2]")


@pytest.mark.parametrize(
    ("build", "says"),
    [
        pytest.param(
            lambda: dataclasses.replace(_experiment(), repeats=0),
            "'repeats' must be >= 1: 0",
            id="repeats",
        ),
        pytest.param(
            lambda: dataclasses.replace(_experiment(), r_grid=(0, 5)),
            "'r_grid' must be >= 1: 0",
            id="r0",
        ),
        pytest.param(
            lambda: dataclasses.replace(_experiment(), r_grid=5),
            "'r_grid' must be (<class 'list'>, <class 'tuple'>) (got 5 that is a <class 'int'>).",
            id="r-not-a-list",
        ),
        pytest.param(
            lambda: dataclasses.replace(_experiment(), reducers=5),
            "'reducers' must be (<class 'collections.abc.Mapping'>, <class 'list'>, <class "
            "'tuple'>) (got 5 that is a <class 'int'>).",
            id="reducers-not-a-mapping",
        ),
        pytest.param(
            lambda: dataclasses.replace(_experiment(), r_grid=(5, 10, 5)),
            "r_grid lists 5 more than once ([5, 10, 5]): a cell is computed once per r",
            id="r-twice",
        ),
        pytest.param(
            lambda: dataclasses.replace(_experiment(), seed="7"),
            "'seed' must be <class 'numbers.Integral'> (got '7' that is a <class 'str'>).",
            id="seed-str",
        ),
        pytest.param(
            lambda: Output(results_dir=""),
            "results_dir is empty",
            id="results_dir",
        ),
        pytest.param(
            lambda: Execution(n_jobs="4"),
            "'n_jobs' must be <class 'numbers.Integral'> (got '4' that is a <class 'str'>).",
            id="n_jobs",
        ),
        pytest.param(
            lambda: Output(verbosity="loud"),
            "'verbosity' must be in ('quiet', 'normal', 'verbose') (got 'loud')",
            id="verbosity",
        ),
        pytest.param(
            lambda: Execution(dask=DaskConfig(scheduler="tcp://10.0.0.5:8786")),
            "dask.scheduler=tcp://10.0.0.5:8786 is read by backend=dask only, and this run's "
            "backend is loky; add backend=dask, or drop dask.scheduler",
            id="scheduler",
        ),
        pytest.param(
            lambda: Execution(backend="dask", ray=RayConfig(address="auto")),
            "ray.address=auto is read by backend=ray only, and this run's backend is dask",
            id="ray-address",
        ),
        pytest.param(
            lambda: Execution(cell_time_limit=float("inf")),
            "'cell_time_limit' must be < inf: inf",
            id="time-limit-inf",
        ),
        pytest.param(
            lambda: KMeansConfig(tol=float("nan")),
            "'kmeans.tol' must be >= 0: nan",
            id="tol-nan",
        ),
        pytest.param(
            lambda: KMeansConfig(tol=float("inf")),
            "'kmeans.tol' must be < inf: inf",
            id="tol-inf",
        ),
        pytest.param(
            lambda: dataclasses.replace(
                _experiment(), reducers=({"name": "sign", "params": {"random_state": 3}},)
            ),
            "reducers.sign.params.random_state: kmdr sets it for each cell from the cell's seed",
            id="random_state",
        ),
        pytest.param(
            lambda: Output(progress=False, progress_every=5),
            "progress_every=5 spaces the progress lines of a run whose progress is null "
            "(written where stderr is no terminal), and progress=false shows no progress, so it "
            "would not be read; drop progress_every, or progress",
            id="progress_every",
        ),
        pytest.param(
            lambda: Output(progress=True, progress_every=5),
            "and progress=true forces the bar, so it would not be read",
            id="progress_every-bar",
        ),
        pytest.param(
            lambda: Execution(backend_params={"require": "sharedmem"}),
            "backend_params.require: joblib swaps the named backend for its threading one, and "
            "kmdr always names it (backend=loky)",
            id="require",
        ),
        pytest.param(
            lambda: Execution(backend="threading", backend_params={"inner_max_num_threads": 2}),
            "backend_params.inner_max_num_threads is read by backend=loky only",
            id="inner_max_num_threads",
        ),
        pytest.param(
            lambda: Execution(backend="lokyy"),
            "'backend' must be in ('loky', 'threading', 'multiprocessing', 'dask', 'ray', "
            "'sequential')",
            id="backend",
        ),
    ],
)
def test_a_typed_object_checks_itself_when_built(build, says):
    with pytest.raises(kmdr.ConfigError) as err:
        build()
    assert says in str(err.value) and "\n" not in str(err.value)


#: Values of every kind a field may be given by mistake from Python.
_WRONG = (5, -1, 0, 2.5, "x", "", None, True, [], [1], {}, {"a": 1}, object())


def test_a_harmless_combination_warns():
    with pytest.warns(RuntimeWarning, match="performing one init instead of kmeans.n_init=5"):
        kmeans = KMeansConfig(init="first_of_class", n_init=5)
    assert kmeans == KMeansConfig(init="first_of_class", n_init=1)


def test_a_checked_object_cannot_change():
    experiment, execution = _experiment(), Execution(backend="loky")
    with pytest.raises(dataclasses.FrozenInstanceError):
        execution.backend = "threading"
    with pytest.raises(TypeError, match="cannot be changed"):
        execution.backend_params["prefer"] = "threads"
    with pytest.raises(TypeError, match="cannot be changed"):
        experiment.reducers[0].params.update(random_state=3)
    with pytest.raises(TypeError, match="cannot be changed"):
        experiment.dataset.params["n_samples"] = 5
    assert not execution.backend_params and not experiment.reducers[0].params


def test_every_field_of_a_typed_object_is_checked_in_one_line():
    experiment, execution = _experiment(), Execution()
    objects = [experiment, experiment.kmeans, execution, execution.dask, execution.ray, Output()]
    objects += [experiment.leverage, experiment.preset]
    entries = [
        {"name": "sign", name: v} for name in ("id", "label", "max_r", "params") for v in _WRONG
    ]
    cases = [(obj, {f.name: v}) for obj in objects for f in dataclasses.fields(obj) for v in _WRONG]
    cases += [(experiment, {"reducers": [entry]}) for entry in entries]
    cases += [(experiment, {"dataset": {"name": "synth", "params": v}}) for v in _WRONG]
    for obj, change in cases:
        try:
            dataclasses.replace(obj, **change)
        except kmdr.ConfigError as err:
            assert "\n" not in str(err), (type(obj).__name__, change, str(err))


def _keys() -> list[str]:
    """Every key of the schema (a nested block's leaves), and the config groups."""
    from omegaconf import OmegaConf

    from kmdr.config.schema import RunConfig

    def leaves(node, prefix=""):
        for name in node:
            value = node._get_node(name)
            if OmegaConf.is_dict(value) and name != "dataset":
                yield from leaves(value, f"{prefix}{name}.")
            else:
                yield f"{prefix}{name}"

    return [*leaves(OmegaConf.structured(RunConfig)), "reducer", "experiment"]


@pytest.mark.parametrize("key", _keys())  # one test a key: each composes ten times
def test_every_key_given_a_value_of_another_kind_is_one_line(key):
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    texts = ("null", "[1]", "{a:1}", "abc", "-1", "1.5", "''", "0", "true", "1e400")
    for text in texts:
        try:
            kmdr.compose(f"{key}={text}")
        except kmdr.ConfigError as err:
            assert "\n" not in str(err), (key, text, str(err))
        except (HydraException, OmegaConfBaseException, ValueError, TypeError):  # Hydra's
            pass


def test_a_typed_object_keeps_the_command_lines_normal_form():
    exp = dataclasses.replace(_experiment(), r_grid=[10, 5])
    assert exp.r_grid == (5, 10)
    assert Execution(data_dir="").data_dir is None
    # a relative data_dir is the folder it names where the run was set up, wherever the data
    # is read from later (a worker started in another folder, a notebook that changed folder)
    assert Execution(data_dir="cache").data_dir == os.path.join(os.getcwd(), "cache")
    assert Execution(data_dir="~/cache").data_dir == os.path.expanduser("~/cache")


OBJECTS = ("execution", "output", "results_dir")


@pytest.mark.parametrize(
    ("args", "kwargs", "used", "says"),
    [
        case(
            ("n_jobs=2",),
            {"execution": Execution(n_jobs=1)},
            ("execution", "n_jobs", 1),
            says="n_jobs=2 changes nothing: kmdr.run's execution= wins; drop it",
            doing="configure",
            cause="kmdr.run was given a setting both as an override and in the object it takes "
            "(execution=, output=): the object is the run's",
            fix="give each setting once: in the object, or as an override without the object",
            warning=True,
            id="execution",
        ),
        pytest.param(
            ("figures=false",),
            {"output": Output(results_dir="x", dry_run=True)},
            ("output", "figures", True),
            "figures=false changes nothing: kmdr.run's output= wins; drop it",
            id="output",
        ),
        case(
            (),
            {"output": Output(results_dir="a", dry_run=True), "results_dir": "b"},
            ("output", "results_dir", "b"),
            says="output=Output(results_dir='a') changes nothing: kmdr.run's results_dir='b' "
            "wins; drop it",
            doing="configure",
            cause="kmdr.run was given results_dir= beside an output= that names another folder",
            fix="give the folder once: results_dir=, or the Output's",
            warning=True,
            id="results_dir",
        ),
    ],
)
def test_a_setting_given_two_ways_warns_and_the_object_wins(
    args, kwargs, used, says, tmp_path, monkeypatch
):
    from kmdr.app.api import _objects

    monkeypatch.chdir(tmp_path)
    with pytest.warns(UserWarning, match=re.escape(says)):
        objects, _ = _objects(list(overridden(TINY, *args)), (), *map(kwargs.get, OBJECTS))
    part, name, value = used
    assert getattr(getattr(objects, part), name) == value
    assert files_under(tmp_path) == []


@pytest.mark.parametrize(
    ("args", "default", "says"),
    [
        case(
            ["experiment=bmd09_fig1", "dataset=synth", "reducer=sign"],
            ("reducers", ()),
            says="reducer=sign sets reducers, which kind=leverage_scores does not read (it reads "
            "blas_threads, dataset, leverage, seed), so it changes nothing; drop the override",
            doing="configure",
            cause="the experiment's kind (here bmd09's leverage scores) computes something other "
            "than a sweep of cells and never reads this setting; the run goes on without it",
            fix="leave the override out; change one of the settings the message says it reads",
            warning=True,
            id="leverage_scores",
        ),
        case(
            [*TINY, "leverage.r=50"],
            ("leverage", LeverageConfig()),
            says="leverage.r=50 sets leverage, which kind=cells does not read",
            doing="configure",
            cause="leverage.* sets bmd09 Figure 1's sample (kind=leverage_scores); a sweep of "
            "cells never reads it",
            fix="leave leverage.* out, or run experiment=bmd09_fig1",
            warning=True,
            id="cells",
        ),
        case(
            ["kind=sampling_lemma", "dataset=synth", "r_grid=[2]", "seed=3"],
            ("seed", 0),
            says="seed=3 sets seed, which kind=sampling_lemma does not read",
            doing="configure",
            cause="bzmd14's sampling lemma draws no random numbers from seed=",
            fix="leave seed= out for this kind",
            warning=True,
            id="sampling_lemma",
        ),
    ],
)
def test_a_setting_the_kind_does_not_read_warns(args, default, says):
    with pytest.warns(UnreadSetting, match=re.escape(says)):
        composed = compose_job(args)
    setting, value = default
    assert getattr(composed.experiment, setting) == value  # the run is the one without it
    # the run's record (its objects) is the one without the override too: the same protocol
    without = compose_job(args[:-1]).experiment
    assert spec_of(composed.experiment)[setting] == spec_of(without)[setting]


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"repeats": 9}, "repeats=9 is not read by kind=leverage_scores"),
        ({"kmeans": {"n_init": 7}}, "kmeans is not read by kind=leverage_scores"),
        ({"r_grid": [5]}, "r_grid=(5,) is not read by kind=leverage_scores"),
        ({"reducers": [{"name": "sign"}]}, "reducers=({'name': 'sign'},) is not read by kind"),
        ({"aggregation": "best"}, "aggregation='best' is not read by kind=leverage_scores"),
    ],
)
def test_a_setting_the_kind_does_not_read_warns_in_python(change, says):
    """An Experiment built in Python passes the command line's check: a setting its kind does not
    read warns that it changes nothing, and the object keeps the default, as the command line's
    run does."""
    fig1 = kmdr.compose("experiment=bmd09_fig1", "dataset=synth")
    with pytest.warns(UserWarning, match=re.escape(says)) as caught:
        changed = dataclasses.replace(fig1, **change)
    assert str(caught[0].message).endswith("(it reads blas_threads, dataset, leverage, seed), "
                                           f"so it changes nothing; leave {next(iter(change))} "
                                           "at its default")  # fmt: skip
    assert changed == fig1  # the run is the one without it
    # what it reads is taken, and so is a setting it does not read given at its default
    assert dataclasses.replace(fig1, seed=4, repeats=3, kmeans={"n_init": 5}).seed == 4


def test_a_sweep_of_cells_warns_for_the_leverage_setting_in_python():
    """A sweep of cells reads every setting but ``leverage`` (bmd09 Figure 1's sample)."""
    cells = _experiment()
    with pytest.warns(UserWarning, match=r"^leverage is not read by kind=cells \(it reads"):
        changed = dataclasses.replace(cells, leverage={"r": 50})
    assert changed.leverage == cells.leverage  # its default
    assert dataclasses.replace(cells, leverage={"r": 30}).leverage.r == 30  # its default


@pytest.mark.parametrize(
    ("override", "says"),
    [
        case(
            "r_grid=[5]",
            says="r_grid=[5] sets r_grid, which quick=true replaces with the experiment's reduced "
            "grid (r_grid=[5, 20, 50, 100]), so it changes nothing; drop the override",
            doing="configure",
            cause="quick=true runs the preset's reduced grid (its quick_grid), which sets this "
            "key itself; the run goes on with the reduced grid's value",
            fix="drop the override to run the reduced grid, or drop quick=true to run yours",
            warning=True,
            id="r_grid",
        ),
        case(
            "kmeans.n_init=5",
            says="(kmeans.n_init=2)",
            doing="configure",
            cause="quick=true runs the preset's reduced grid, which sets kmeans.n_init itself",
            fix="drop the override, or quick=true",
            warning=True,
            id="nested",
        ),
    ],
)
def test_an_override_the_quick_grid_replaces_warns(override, says):
    args = ["experiment=bzmd14_orl", "quick=true"]
    with pytest.warns(UserWarning, match=re.escape(says)):
        warned = kmdr.compose(*args, override)
    assert warned == kmdr.compose(*args)  # the run is the reduced grid's
    # a key the quick grid leaves alone is applied as given
    assert kmdr.compose(*args, "kmeans.max_iter=5").kmeans.max_iter == 5


@pytest.mark.parametrize(
    ("args", "says"),
    [
        case(
            [*TINY, "quick=true"],
            says="quick=true runs an experiment's reduced grid (its quick_grid), and custom has "
            "none",
            doing="configure",
            cause="quick=true asks for the experiment's reduced grid, and this experiment (not a "
            "preset, or a preset without one) has none: its full protocol would run",
            fix="drop quick=true, or give the experiment a quick_grid",
        ),
    ],
)
def test_quick_without_a_reduced_grid_is_refused(args, says, tmp_path):
    with pytest.raises(kmdr.ConfigError, match=re.escape(says)):
        kmdr.run(*args, results_dir=str(tmp_path))
    assert files_under(tmp_path) == []


def test_the_online_phase_of_a_reducers_own_kmeans_is_refused(tmp_path):
    args = ["dataset=synth", "reducer=sparsified", "r_grid=[2]", "repeats=1"]
    line = refused(run_kmdr([*args, "kmeans.online_phase=true"], tmp_path), "online_phase")
    assert "reducer 'sparsified' clusters with its own k-means" in line
    assert files_under(tmp_path) == []


@pytest.mark.parametrize("override", ["hydra/launcher=joblib", "hydra.job.chdir=true"])
def test_kmdr_run_refuses_a_setting_of_hydras_own_run(override, tmp_path):
    args = ("dataset=synth", "reducer=sign", "r_grid=[2]", "repeats=1", override)
    with pytest.raises(kmdr.ConfigError, match=f"'{re.escape(override)}' sets Hydra's own run"):
        kmdr.run(*args, results_dir=str(tmp_path))
    with pytest.raises(kmdr.ConfigError, match=r"kmdr\.compose composes the run's config only"):
        kmdr.compose(*args)
    assert files_under(tmp_path) == []
    assert kmdr.compose(*args[:-1], f"hydra.searchpath=[file://{tmp_path}]").r_grid == (2,)


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="ray is installed here")
def test_a_backend_whose_package_is_missing_is_refused_before_any_work(tmp_path):
    args = ["dataset=synth", "reducer=sign", "r_grid=[2]", "repeats=1", "backend=ray"]
    refused(run_kmdr(args, tmp_path), "backend=ray needs ray, which is not installed")
    assert files_under(tmp_path) == []
    with pytest.raises(kmdr.ConfigError, match=r"pip install 'kmdr\[ray\]'"):
        kmdr.run(*args[:-1], execution=Execution(backend="ray"), results_dir=str(tmp_path))
    assert files_under(tmp_path) == []


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["reducer=sign", "+reducers.sign.params.nosuch=1"], "params ['nosuch'] are invalid"),
        (
            ["reducer=svd_approx", "+reducers.svd_approx.params.eps=abc"],
            "'eps' parameter of SVDFeatures",
        ),
        (["reducer=sparsified", "kmeans.online_phase=true"], "clusters with its own k-means"),
    ],
    ids=["unknown", "type", "online_phase"],
)
def test_a_dry_run_refuses_the_reducer_parameters_the_run_refuses(args, says, tmp_path):
    base = ["dataset=synth", "r_grid=[2]", "repeats=1", "dry_run=true"]
    refused(run_kmdr([*base, *args], tmp_path), says)
    assert files_under(tmp_path) == []


@pytest.mark.parametrize(
    "sweep",
    [
        pytest.param(
            "dataset=glob(nosuch*)",
            id="glob",
        ),
        pytest.param(
            "repeats=range(1,1)",
            id="range",
        ),
    ],
)
def test_a_sweep_with_no_job_is_an_error(sweep, tmp_path):
    line = refused(run_kmdr(["-m", *overridden(TINY, sweep)], tmp_path), "the sweep has no job")
    assert sweep in line
    assert files_under(tmp_path) == []


def test_a_report_that_cannot_be_written_is_one_line(tmp_path):
    write_experiment(tmp_path, "custom", make_cells("custom", {"sign": [5, 10]}, 2))
    (tmp_path / "REPORT.md").mkdir()
    before = (tmp_path / "custom" / "cells.csv").read_bytes()
    proc = subprocess.run(  # the installed console script: its one run in a process
        [str(Path(sys.executable).with_name("kmdr-report")), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("kmdr-report: error: cannot write ")
    # the file in the way, not the temporary file written beside it (and removed)
    assert f"cannot write {tmp_path / 'REPORT.md'} (" in proc.stderr
    assert ".tmp" not in proc.stderr
    assert (tmp_path / "custom" / "cells.csv").read_bytes() == before
