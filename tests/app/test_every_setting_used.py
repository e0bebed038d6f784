"""Every setting given is used or refused, on every route: the cases a typed object, a setting
given two ways, an Experiment under a preset's name, ``--cfg``, a multirun, an empty sweep and a
results folder that cannot be written once let through (ignored, misapplied, or a traceback).
Each is run for real: ``kmdr`` and ``kmdr-report`` in a process of their own, ``kmdr.run`` and
the objects in this process; each asserts the one line and that nothing was written."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import re
import subprocess
import sys

import pytest
from test_cli import TINY, run_kmdr
from test_silent_cases import files_under, refused

import kmdr
from _overrides import overridden
from _results_factory import make_cells, write_experiment
from kmdr.config.schema import (
    DaskConfig,
    Execution,
    Experiment,
    KMeansConfig,
    Output,
    RayConfig,
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
            "The 'repeats' parameter of Experiment must be an int in the range [1, inf). Got 0",
            marks=pytest.mark.fault(
                "an Experiment changed in Python to repeats=0 (dataclasses.replace)",
                gets=BEFORE_ANY_WORK,
            ),
            id="repeats",
        ),
        pytest.param(
            lambda: dataclasses.replace(_experiment(), r_grid=(0, 5)),
            "The 'r_grid[0]' parameter of Experiment must be an int in the range [1, inf). Got 0",
            marks=pytest.mark.fault("an Experiment given an r of 0", gets=BEFORE_ANY_WORK),
            id="r0",
        ),
        pytest.param(
            lambda: dataclasses.replace(_experiment(), r_grid=5),
            "The 'r_grid' parameter of Experiment must be an instance of 'list' or an",
            marks=pytest.mark.fault(
                "an Experiment given one r, or one reducer, not in a list (r_grid=5, "
                "reducers=ReducerConfig(...) or 5)",
                gets=BEFORE_ANY_WORK + " (once a TypeError: 'int' object is not iterable)",
            ),
            id="r-not-a-list",
        ),
        pytest.param(
            lambda: dataclasses.replace(_experiment(), reducers=5),
            "The 'reducers' parameter of Experiment must be an instance of 'list' or an instance",
            id="reducers-not-a-list",
        ),
        pytest.param(
            lambda: dataclasses.replace(_experiment(), r_grid=(5, 10, 5)),
            "r_grid lists 5 more than once ([5, 10, 5]): a cell is computed once per r",
            marks=pytest.mark.fault(
                "an r given twice in r_grid (a typo for another r)", gets=BEFORE_ANY_WORK
            ),
            id="r-twice",
        ),
        pytest.param(
            lambda: dataclasses.replace(_experiment(), seed="7"),
            "The 'seed' parameter of Experiment must be an int in the range [0, 92",
            id="seed-str",
        ),
        pytest.param(
            lambda: Output(results_dir=""),
            "results_dir is empty",
            marks=pytest.mark.fault('Output(results_dir="")', gets=BEFORE_ANY_WORK),
            id="results_dir",
        ),
        pytest.param(
            lambda: Execution(n_jobs="4"),
            "'n_jobs' parameter of Execution must be an int in the range [1, inf) or an int",
            marks=pytest.mark.fault(
                'an Execution whose n_jobs is a string (Execution(n_jobs="4"))',
                gets="kmdr.ConfigError, one line (once a traceback)",
            ),
            id="n_jobs",
        ),
        pytest.param(
            lambda: Output(verbosity="loud"),
            "The 'verbosity' parameter of Output must be a str among",
            marks=pytest.mark.fault(
                'an Output with an unknown verbosity (Output(verbosity="loud"))',
                gets="kmdr.ConfigError, one line (once a traceback)",
            ),
            id="verbosity",
        ),
        pytest.param(
            lambda: Execution(dask=DaskConfig(scheduler="tcp://10.0.0.5:8786")),
            "dask.scheduler=tcp://10.0.0.5:8786 is read by backend=dask only, and this run's "
            "backend is loky; add backend=dask, or drop dask.scheduler",
            marks=pytest.mark.fault(
                "a dask scheduler's address (or a Ray cluster's) given to a run of another "
                "backend (dask.scheduler=... without backend=dask)",
                gets=BEFORE_ANY_WORK + " (once the run went on with loky, unsaid)",
            ),
            id="scheduler",
        ),
        pytest.param(
            lambda: Execution(backend="dask", ray=RayConfig(address="auto")),
            "ray.address=auto is read by backend=ray only, and this run's backend is dask",
            id="ray-address",
        ),
        pytest.param(
            lambda: Execution(cell_time_limit=float("inf")),
            "The 'cell_time_limit' parameter of Execution must be a float in the range (0.0, "
            "inf) or None. Got inf instead.",
            marks=pytest.mark.fault(
                "an infinite cell_time_limit (no limit is null)",
                gets=BEFORE_ANY_WORK + " (once a reducer's failure in the first cell)",
            ),
            id="time-limit-inf",
        ),
        pytest.param(
            lambda: KMeansConfig(tol=float("nan")),
            "The 'tol' parameter of kmeans must be a float in the range [0.0, inf). Got nan",
            marks=pytest.mark.fault(
                "a NaN or infinite kmeans.tol",
                gets=BEFORE_ANY_WORK + " (once k-means failed in every cell)",
            ),
            id="tol-nan",
        ),
        pytest.param(
            lambda: KMeansConfig(tol=float("inf")),
            "The 'tol' parameter of kmeans must be a float in the range [0.0, inf). Got inf",
            id="tol-inf",
        ),
        pytest.param(
            lambda: dataclasses.replace(
                _experiment(), reducers=({"name": "sign", "params": {"random_state": 3}},)
            ),
            "reducers.sign.params.random_state: kmdr sets it for each cell from the cell's seed",
            marks=pytest.mark.fault(
                "a stray random_state in a reducer's params of an Experiment built in Python",
                gets=BEFORE_ANY_WORK + " (once a reducer's failure in every cell)",
            ),
            id="random_state",
        ),
        pytest.param(
            lambda: Output(progress=False, progress_every=5),
            "progress_every=5 spaces the progress lines of a run whose progress is null "
            "(written where stderr is no terminal), and progress=false shows no progress, so it "
            "would not be read; drop progress_every, or progress",
            marks=pytest.mark.fault(
                "progress_every given with progress=true or false (its lines are written only "
                "when progress is null)",
                gets=BEFORE_ANY_WORK + " (once no line came, unsaid)",
            ),
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
            marks=pytest.mark.fault(
                "a joblib keyword that changes or is ignored beside the named backend "
                "(backend_params.require=sharedmem or prefer=threads)",
                gets=BEFORE_ANY_WORK + " (once require ran the cells on threads while the "
                "record said loky, unsaid)",
            ),
            id="require",
        ),
        pytest.param(
            lambda: Execution(backend="threading", backend_params={"inner_max_num_threads": 2}),
            "backend_params.inner_max_num_threads is read by backend=loky only",
            marks=pytest.mark.fault(
                "a joblib keyword the chosen backend does not read (inner_max_num_threads with "
                "backend=threading, a memory-map setting with backend=dask)",
                gets=BEFORE_ANY_WORK + " (once the run failed as it started, with a record)",
            ),
            id="inner_max_num_threads",
        ),
        pytest.param(
            lambda: Execution(backend="lokyy"),
            "The 'backend' parameter of Execution must be a str among",
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


@pytest.mark.fault(
    "any field of a typed object (Experiment and its parts, Execution, Output) given a value "
    "of another kind from Python (dataclasses.replace)",
    gets="kmdr.ConfigError (a ValueError), one line, or the value taken; never another "
    "exception (once a TypeError for r_grid=5 or reducers=5)",
)
@pytest.mark.fault(
    "a restart count asked of the deterministic first_of_class start (kmeans.n_init=5)",
    gets="a RuntimeWarning, and one start is run, as scikit-learn does for an explicit init "
    "(once refused)",
)
def test_a_harmless_combination_warns():
    with pytest.warns(RuntimeWarning, match="performing one init instead of kmeans.n_init=5"):
        kmeans = KMeansConfig(init="first_of_class", n_init=5)
    assert kmeans == KMeansConfig(init="first_of_class", n_init=1)


@pytest.mark.fault(
    "a checked object changed after its check (an attribute assigned, a params mapping "
    "changed in place)",
    gets="refused where it is changed; the object stays as checked (once the cells ran in "
    "threads while the record said loky)",
)
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


@pytest.mark.fault(
    "any key of the schema given a value of another kind as an override (null, a list, a "
    "mapping, a word, a negative, a fraction, an empty string, 0, true, 1e400), through "
    "kmdr.compose",
    gets="kmdr.ConfigError, one line, Hydra's or OmegaConf's own error, or the value taken; "
    "Hydra's own ValueError or TypeError for a group given a number (dataset=1, dataset=[1])",
)
def test_every_key_given_a_value_of_another_kind_is_one_line():
    from hydra.errors import HydraException
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    from kmdr.config.schema import RunConfig

    def leaves(node, prefix=""):
        for name in node:
            value = node._get_node(name)
            if OmegaConf.is_dict(value) and name != "dataset":
                yield from leaves(value, f"{prefix}{name}.")
            else:
                yield f"{prefix}{name}"

    texts = ("null", "[1]", "{a:1}", "abc", "-1", "1.5", "''", "0", "true", "1e400")
    keys = [*leaves(OmegaConf.structured(RunConfig)), "reducer", "experiment"]
    for key in keys:
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


@pytest.mark.parametrize(
    ("args", "kwargs", "says"),
    [
        pytest.param(
            ("n_jobs=2",),
            {"execution": Execution(n_jobs=1)},
            "n_jobs is given both as an override and in kmdr.run's execution= (Execution)",
            marks=pytest.mark.fault(
                "kmdr.run given n_jobs as an override and an execution= object",
                gets=BEFORE_ANY_WORK + " (once the object won without a word)",
            ),
            id="execution",
        ),
        pytest.param(
            ("figures=false",),
            {"output": Output(results_dir="x")},
            "figures, progress are given both as overrides and in kmdr.run's output= (Output)",
            marks=pytest.mark.fault(
                "kmdr.run given figures as an override and an output= object",
                gets=BEFORE_ANY_WORK,
            ),
            id="output",
        ),
        pytest.param(
            (),
            {"output": Output(results_dir="a"), "results_dir": "b"},
            "results_dir is given twice (output=Output(results_dir='a') and results_dir='b')",
            marks=pytest.mark.fault(
                "kmdr.run given results_dir both in output= and as the keyword",
                gets=BEFORE_ANY_WORK + " (once the keyword won without a word)",
            ),
            id="results_dir",
        ),
    ],
)
def test_a_setting_given_two_ways_is_refused(args, kwargs, says, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(kmdr.ConfigError) as err:
        kmdr.run(*overridden(TINY, *args), **kwargs)
    assert says in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(kmdr.ConfigError, match="results_dir is given twice"):
        kmdr.run(_experiment(), **{"output": Output(results_dir="a"), "results_dir": "b"})
    assert files_under(tmp_path) == []


@pytest.mark.parametrize(
    ("args", "says"),
    [
        pytest.param(
            ["experiment=bmd09_fig1", "dataset=synth", "reducer=sign"],
            "reducer=sign sets reducers, which kind=leverage_scores does not read (it reads "
            "blas_threads, dataset, leverage, seed)",
            marks=pytest.mark.fault(
                "an override of a setting the experiment's kind does not read (reducer=, "
                "repeats=, kmeans.* for bmd09_fig1's leverage scores)",
                gets="exit 2 before any work, one line naming what the kind reads (once "
                "accepted and unused)",
            ),
            id="leverage_scores",
        ),
        pytest.param(
            [*TINY, "leverage.r=50"],
            "leverage.r=50 sets leverage, which kind=cells does not read",
            marks=pytest.mark.fault(
                "leverage.* (bmd09 Figure 1's sample) given to a sweep of cells",
                gets="exit 2 before any work, one line",
            ),
            id="cells",
        ),
        pytest.param(
            ["kind=sampling_lemma", "dataset=synth", "r_grid=[2]", "seed=3"],
            "seed=3 sets seed, which kind=sampling_lemma does not read",
            id="sampling_lemma",
        ),
    ],
)
def test_a_setting_the_kind_does_not_read_is_refused(args, says, tmp_path):
    line = refused(run_kmdr(args, tmp_path), says)
    assert line.endswith("drop the override")
    assert files_under(tmp_path) == []


@pytest.mark.fault(
    "an Experiment built in Python whose kind does not read a setting it changes "
    "(dataclasses.replace(bmd09_fig1, repeats=9), kmeans, r_grid, reducers)",
    gets=BEFORE_ANY_WORK + " (once the value was kept, or the list emptied, unsaid)",
)
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
def test_a_setting_the_kind_does_not_read_is_refused_in_python(change, says, tmp_path):
    fig1 = kmdr.compose("experiment=bmd09_fig1", "dataset=synth")
    with pytest.raises(kmdr.ConfigError, match=re.escape(says)) as err:
        kmdr.run(dataclasses.replace(fig1, **change), results_dir=str(tmp_path))
    assert str(err.value).endswith("(it reads blas_threads, dataset, leverage, seed): leave "
                                   f"{next(iter(change))} at its default")  # fmt: skip
    assert files_under(tmp_path) == []
    # what it reads is taken, and so is a setting it does not read given at its default
    assert dataclasses.replace(fig1, seed=4, repeats=3, kmeans={"n_init": 5}).seed == 4


def test_a_sweep_of_cells_refuses_the_leverage_setting_in_python():
    """A sweep of cells reads every setting but ``leverage`` (bmd09 Figure 1's sample)."""
    cells = _experiment()
    with pytest.raises(kmdr.ConfigError, match=r"^leverage is not read by kind=cells \(it reads"):
        dataclasses.replace(cells, leverage={"r": 50})
    assert dataclasses.replace(cells, leverage={"r": 30}).leverage.r == 30  # its default


@pytest.mark.fault(
    "quick=true for an experiment without a reduced grid (no quick_grid: an ad-hoc run, "
    "bmd09_fig1)",
    gets="exit 2 before any work, one line (once the full protocol ran, unsaid); `make "
    "reproduce-quick` runs such a preset's full protocol, with a line",
)
def test_quick_without_a_reduced_grid_is_refused(tmp_path):
    line = refused(run_kmdr([*TINY, "quick=true"], tmp_path), "and custom has none")
    assert line.endswith("drop quick=true, or give the experiment a quick_grid")
    assert files_under(tmp_path) == []


@pytest.mark.parametrize(
    ("override", "says"),
    [
        pytest.param(
            "r_grid=[5]",
            "r_grid=[5] sets r_grid, which quick=true replaces with the experiment's reduced "
            "grid (r_grid=[5, 20, 50, 100]); drop the override, or quick=true",
            marks=pytest.mark.fault(
                "an override of a key the quick grid sets, with quick=true "
                "(experiment=bzmd14_orl quick=true r_grid=[5])",
                gets="exit 2 before any work, one line naming both values (once the reduced "
                "grid's value won, unsaid)",
            ),
            id="r_grid",
        ),
        pytest.param("kmeans.n_init=5", "(kmeans.n_init=2)", id="nested"),
    ],
)
def test_an_override_the_quick_grid_replaces_is_refused(override, says, tmp_path):
    args = ["experiment=bzmd14_orl", "quick=true", override, "dry_run=true"]
    refused(run_kmdr(args, tmp_path), says)
    assert files_under(tmp_path) == []
    # a key the quick grid leaves alone is applied as given
    kept = run_kmdr([*args[:2], "kmeans.max_iter=5", "dry_run=true"], tmp_path)
    assert kept.returncode == 0, kept.stderr


@pytest.mark.fault(
    "MATLAB's online phase asked of a reducer that clusters with its own k-means "
    "(kmeans.online_phase=true with sparsified)",
    gets="exit 2 before any work, one line (once each cell failed in its worker)",
)
def test_the_online_phase_of_a_reducers_own_kmeans_is_refused(tmp_path):
    args = ["dataset=synth", "reducer=sparsified", "r_grid=[2]", "repeats=1"]
    line = refused(run_kmdr([*args, "kmeans.online_phase=true"], tmp_path), "online_phase")
    assert "reducer 'sparsified' clusters with its own k-means" in line
    assert files_under(tmp_path) == []


@pytest.mark.parametrize("override", ["hydra/launcher=joblib", "hydra.job.chdir=true"])
@pytest.mark.fault(
    "a setting of Hydra's own run given to kmdr.run or kmdr.compose (hydra/launcher=joblib, "
    "hydra.job.chdir=true), which start no Hydra run",
    gets="kmdr.ConfigError, one line naming it, before any work (once ignored, unsaid); "
    "hydra.searchpath, which adds config folders, is read",
)
def test_kmdr_run_refuses_a_setting_of_hydras_own_run(override, tmp_path):
    args = ("dataset=synth", "reducer=sign", "r_grid=[2]", "repeats=1", override)
    with pytest.raises(kmdr.ConfigError, match=f"'{re.escape(override)}' sets Hydra's own run"):
        kmdr.run(*args, results_dir=str(tmp_path))
    with pytest.raises(kmdr.ConfigError, match=r"kmdr\.compose composes the run's config only"):
        kmdr.compose(*args)
    assert files_under(tmp_path) == []
    assert kmdr.compose(*args[:-1], f"hydra.searchpath=[file://{tmp_path}]").r_grid == (2,)


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="ray is installed here")
@pytest.mark.fault(
    "backend=ray where ray is not installed",
    gets="exit 2 before any work, one line naming the extra to install (once a failed run "
    "record, and a line saying finished cells were kept)",
)
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
        (["reducer=sign", "+reducers.0.params.nosuch=1"], "params ['nosuch'] are invalid"),
        (["reducer=svd_approx", "+reducers.0.params.eps=abc"], "'eps' parameter of SVDFeatures"),
        (["reducer=sparsified", "kmeans.online_phase=true"], "clusters with its own k-means"),
    ],
    ids=["unknown", "type", "online_phase"],
)
@pytest.mark.fault(
    "a dry run of a run that would be refused for a reducer's parameter (an unknown one, a wrong "
    "type, the online phase of a reducer's own k-means)",
    gets="exit 2, the run's own line (once it planned the cells as if the run would go)",
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
            marks=pytest.mark.fault(
                "a multirun whose glob matches no option (-m dataset=glob(nosuch*))",
                gets="exit 2, one line naming the sweep (once exit 0 having done nothing)",
            ),
            id="glob",
        ),
        pytest.param(
            "repeats=range(1,1)",
            marks=pytest.mark.fault(
                "a multirun over an empty range (-m repeats=range(1,1))",
                gets="exit 2, one line naming the sweep; no sweep folder left behind",
            ),
            id="range",
        ),
    ],
)
def test_a_sweep_with_no_job_is_an_error(sweep, tmp_path):
    line = refused(run_kmdr(["-m", *overridden(TINY, sweep)], tmp_path), "the sweep has no job")
    assert sweep in line
    assert files_under(tmp_path) == []


@pytest.mark.fault(
    "kmdr-report on a results folder where REPORT.md cannot be written (a folder in its place)",
    gets="exit 2, one line naming the path (once a traceback); the CSVs untouched",
)
def test_a_report_that_cannot_be_written_is_one_line(tmp_path):
    write_experiment(tmp_path, "custom", make_cells("custom", {"sign": [5, 10]}, 2))
    (tmp_path / "REPORT.md").mkdir()
    before = (tmp_path / "custom" / "cells.csv").read_bytes()
    proc = subprocess.run(
        [sys.executable, "-m", "kmdr.report.build", str(tmp_path)],
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
