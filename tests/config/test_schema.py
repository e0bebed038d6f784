"""The typed config schema: a typo, a wrong type or a value out of range, on the command line or in
a preset, stops ``kmdr`` before anything runs with exit status 2 and ONE line naming the key."""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict

import pytest
from hydra import compose

import _command as command
import kmdr
from _cases import case
from _overrides import overridden, refusal
from kmdr.app import compose as configs
from kmdr.config import presets
from kmdr.config.schema import Backend, ConfigError, RunConfig, from_config, to_container

TINY = [
    "dataset=synth",
    "+dataset.params={n_samples:60,n_features:12,n_clusters:3}",
    "r_grid=[2,4]",
    "repeats=1",
    "kmeans.n_init=1",
    "n_jobs=1",
    "figures=false",
    "progress=false",
]


def bad(args, expected, case):
    """One bad-input case of a parametrized test: its args, the text the line must hold, and
    the case as a user would say it (its fault marker)."""
    return pytest.param(
        args,
        expected,
    )


def fails_with(argv, capsys) -> str:
    """``kmdr argv`` in this process, refused before any work: its message on one line."""
    with pytest.raises(SystemExit) as exc:
        command.kmdr(argv)
    out = capsys.readouterr()
    return refusal(exc.value.code, out.err, out.out)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # unknown or misspelt keys, with the valid keys of their node
        bad(
            ["kmeans.n_inti=3"],
            "Could not override 'kmeans.n_inti'. To append to your config use +kmeans.n_inti=3",
            "a misspelt key of a config group on the command line (kmeans.n_inti=3)",
        ),
        bad(
            ["+repaets=7"],
            "Key 'repaets' not in 'RunConfig' full_key: repaets",
            "an unknown top-level key added with + (+repaets=7)",
        ),
        bad(
            ["+kmeans.restarts=2"],
            "Key 'restarts' not in 'KMeansConfig' full_key: kmeans.restarts",
            "an unknown key added to a group with + (+kmeans.restarts=2)",
        ),
        bad(
            ["preset.titel=x"],
            "Key 'titel' not in 'PresetConfig' full_key: preset.titel",
            "a misspelt preset metadata key (preset.titel=x)",
        ),
        bad(
            ["dask.adress=x"],
            "Key 'adress' not in 'DaskConfig' full_key: dask.adress",
            "a misspelt backend option key (dask.adress=x)",
        ),
        # wrong types
        bad(
            ["kmeans.n_init=abc"],
            "Value 'abc' of type 'str' could not be converted to Integer full_key: kmeans.n_init",
            "a word where an integer is expected (kmeans.n_init=abc)",
        ),
        bad(
            ["repeats=2.5"],
            "Value '2.5' of type 'float' could not be converted to Integer full_key: repeats",
            "a float where an integer is expected (repeats=2.5)",
        ),
        bad(
            ["figures=maybe"],
            "Value 'maybe' is not a valid bool (type str) full_key: figures",
            "a word where a boolean is expected (figures=maybe)",
        ),
        bad(
            ["r_grid=5"],
            "Invalid value assigned: int is not a ListConfig, list or tuple. full_key: r_grid",
            "a number where the r-grid list is expected (r_grid=5)",
        ),
        bad(
            ["r_grid=[5,x]"],
            "Value 'x' of type 'str' could not be converted to Integer full_key: r_grid[1]",
            "a word inside the r-grid (r_grid=[5,x])",
        ),
        # values outside an enumeration, with the choices
        bad(
            ["backend=spark"],
            "Invalid value 'spark', expected one of [loky, threading,",
            "an unknown parallel backend (backend=spark)",
        ),
        bad(
            ["aggregation=median"],
            "expected one of [mean, best]",
            "an unknown aggregation (aggregation=median)",
        ),
        bad(
            ["preset.reproduce=always"],
            "Invalid value 'always', expected one of [paper, diagnostic, none]",
            "a preset metadata value outside its choices (preset.reproduce=always)",
        ),
        bad(
            ["preset.figure=pie"],
            "is unknown; valid figure styles: bmd09_fig1, bmd09_table1, bzmd14, lst17",
            "an unknown figure style (preset.figure=pie)",
        ),
        bad(
            ["kmeans.init=plus"],
            "'kmeans.init' must be in ('k-means++', 'random', 'sample', 'first_of_class') (got",
            "an unknown k-means start (kmeans.init=plus)",
        ),
        # out of range
        bad(
            ["kmeans.n_init=0"],
            "'kmeans.n_init' must be >= 1: 0",
            "zero k-means restarts (kmeans.n_init=0)",
        ),
        bad(
            ["kmeans.max_iter=-5"],
            "'kmeans.max_iter' must be >= 1: -5",
            "a negative iteration cap (kmeans.max_iter=-5)",
        ),
        bad(
            ["kmeans.tol=-1"],
            "'kmeans.tol' must be >= 0: -1.0",
            "a negative k-means tolerance (kmeans.tol=-1)",
        ),
        bad(
            ["repeats=0"],
            "'repeats' must be >= 1: 0",
            "zero repetitions (repeats=0)",
        ),
        bad(
            ["seed=-1"],
            "'seed' must be >= 0: -1",
            "a negative seed (seed=-1)",
        ),
        bad(
            ["n_jobs=0"],
            "'n_jobs' must not be 0 (-1: every core)",
            "zero workers (n_jobs=0)",
        ),
        bad(
            ["blas_threads=0"],
            "'blas_threads' must be >= 1: 0",
            "zero BLAS threads (blas_threads=0)",
        ),
        # joblib.parallel_config's keywords, checked up front
        bad(
            ["+backend_params.foo=1"],
            "unknown backend_params key 'foo'; valid keys",
            "an unknown joblib backend parameter (+backend_params.foo=1)",
        ),
        bad(
            ["+backend_params.n_jobs=2"],
            "backend_params.n_jobs: set it with n_jobs=<value>",
            "n_jobs given as a backend parameter (+backend_params.n_jobs=2)",
        ),
    ],
)
@pytest.mark.slow
def test_bad_command_line_exits_2_with_one_line(args, expected, tmp_path, capsys):
    line = fails_with(overridden([*TINY, f"results_dir={tmp_path / 'results'}"], *args), capsys)
    assert expected in line
    assert not (tmp_path / "results").exists()


def test_backend_params_lists_parallel_config_keywords(capsys, tmp_path):
    line = fails_with([*TINY, f"results_dir={tmp_path}", "+backend_params.foo=1"], capsys)
    assert "inner_max_num_threads" in line and "temp_folder" in line


@pytest.mark.slow
def test_multirun_names_the_bad_job(tmp_path, capsys):
    argv = ["-m", *overridden(TINY, "kmeans.n_init=1,0", "seed=0,1")]
    argv.append(f"results_dir={tmp_path / 'results'}")
    with pytest.raises(SystemExit) as exc:
        command.kmdr(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert "Traceback" not in err
    # the job named by its overrides (Hydra's override_dirname: sorted by key)
    assert last.startswith("kmdr: error: [job 2: ") and " kmeans.n_init=0 " in last
    assert " seed=0] 'kmeans.n_init' must be" in last
    # Hydra's sweeper runs the jobs in order: the two valid ones ran, the bad one wrote nothing.
    cells = (tmp_path / "results" / "custom" / "cells.csv").read_text()
    assert "kmeans_n_init" in cells and len(cells.strip().splitlines()) == 1 + 2 * 2


@pytest.fixture
def conf_copy(tmp_path, monkeypatch):
    """A copy of the shipped configs that the CLI reads through $KMDR_CONF_DIR."""
    conf = tmp_path / "conf"
    shutil.copytree(presets.conf_dir(), conf)
    monkeypatch.setenv(presets.CONF_ENV, str(conf))
    return conf


def preset(conf, name, body):
    text = f"# @package _global_\ndefaults:\n  - override /reducer: sign\nname: {name}\n{body}"
    (conf / "experiment" / f"{name}.yaml").write_text(text)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        bad(
            "repaets: 7\n",
            "In 'experiment/typo': ConfigKeyError raised while composing config: Key 'repaets'",
            "a misspelt key in a preset file (repaets: 7)",
        ),
        bad(
            "kmeans: {n_init: five}\n",
            "Value 'five' of type 'str' could not be converted to Integer full_key: kmeans.n_init",
            "a word for a number in a preset file (n_init: five)",
        ),
        bad(
            "reducers:\n  sign: {name: sign, lable: RP}\n",
            "In 'experiment/typo': ConfigKeyError raised while composing config: Key 'lable'",
            "a misspelt key in a reducer entry of a preset (lable: RP)",
        ),
        bad(
            "preset: {paper: nature}\n",
            "preset.paper: paper 'nature' is unknown; valid papers: bmd09, bzmd14, dss24, lst17",
            "an unknown paper in a preset's metadata (paper: nature)",
        ),
        bad(
            "preset: {order: first}\n",
            "Value 'first' of type 'str' could not be converted to Integer full_key: preset.order",
            "a word for the preset's order (order: first)",
        ),
        # the reduced grid of --quick is checked even when --quick is not asked for
        bad(
            "quick_grid: {repaets: 2}\n",
            "Key 'repaets' not in 'RunConfig' full_key: repaets",
            "a misspelt key in a preset's quick grid",
        ),
        bad(
            "quick_grid: {kmeans: {n_init: 0}}\nquick: true\n",
            "'kmeans.n_init' must be >= 1: 0",
            "an out-of-range value in a preset's quick grid",
        ),
    ],
)
@pytest.mark.slow
def test_bad_preset_exits_2_with_one_line(body, expected, conf_copy, tmp_path, capsys):
    preset(conf_copy, "typo", body)
    line = fails_with(["experiment=typo", *TINY[1:], f"results_dir={tmp_path / 'r'}"], capsys)
    assert expected in line
    assert not (tmp_path / "r").exists()


def test_preset_choosing_a_missing_dataset_lists_the_datasets(conf_copy, tmp_path, capsys):
    text = "# @package _global_\ndefaults:\n  - override /dataset: nosuch\nname: typo\n"
    (conf_copy / "experiment" / "typo.yaml").write_text(text)
    line = fails_with(["experiment=typo", f"results_dir={tmp_path}"], capsys)
    assert "Could not find 'dataset/nosuch' Available options in 'dataset': coil20 digits" in line


def test_new_keys_reach_the_spec_as_plain_values():
    overrides = [
        "backend=dask",
        "dask.scheduler=tcp://10.0.0.1:8786",
        "dry_run=true",
        "kmeans.init=first_of_class",
        "kmeans.n_init=1",
        "+backend_params.verbose=1",
    ]
    with configs.initialized():
        cfg = compose("config", overrides=overrides)
    spec = from_config(cfg)
    assert spec.execution.backend == "dask" and type(spec.execution.backend) is str
    assert spec.execution.dask.scheduler == "tcp://10.0.0.1:8786"
    with configs.initialized():
        ray = from_config(compose("config", overrides=["backend=ray", "ray.address=auto"]))
    assert ray.execution.ray.address == "auto"
    assert spec.output.dry_run is True and spec.experiment.kmeans.init == "first_of_class"
    assert spec.execution.backend_params == {"verbose": 1}
    # An ad-hoc run gets the default preset block, titled by its name (null).
    assert asdict(spec.experiment.preset) == {
        "paper": None,
        "title": None,
        "figure": "bzmd14",
        "section": "custom",
        "order": 1000,
        "reproduce": "none",
        "note": "",
    }
    # The sidecar's config is plain JSON (enums as their names).
    assert json.loads(json.dumps(to_container(cfg)))["backend"] == "dask"


@pytest.mark.slow
def test_every_backend_choice_is_accepted():
    with configs.initialized():
        for backend in Backend:
            spec = from_config(compose("config", overrides=[f"backend={backend.name}"]))
            assert spec.execution.backend == backend.value


def test_a_plain_mapping_gets_the_same_checks_as_a_composed_config():
    base = {"dataset": {"name": "synth"}, "reducers": [{"name": "sign"}]}
    assert from_config(base).experiment.repeats == RunConfig().repeats
    with pytest.raises(ConfigError, match=r"Key 'repaets' not in 'RunConfig'"):
        from_config({**base, "repaets": 3})
    with pytest.raises(
        ConfigError,
        match=r"Value 'x' of type 'str' could not be converted to Integer full_key: kmeans.n_init",
    ):
        from_config({**base, "kmeans": {"n_init": "x"}})
    with pytest.raises(ConfigError, match=r"Key 'lable' not in 'ReducerConfig'"):
        from_config({**base, "reducers": [{"name": "sign", "lable": "RP"}]})
    with pytest.raises(ConfigError, match=r"Invalid value 'spark'"):
        from_config({**base, "backend": "spark"})


def test_quick_merges_the_reduced_grid():
    with configs.initialized():
        full = from_config(compose("config", overrides=["experiment=bzmd14_orl"])).experiment
        quick = from_config(
            compose("config", overrides=["experiment=bzmd14_orl", "quick=true"])
        ).experiment
    assert full.r_grid == tuple(range(5, 101, 5)) and full.kmeans.n_init == 5
    assert quick.r_grid == (5, 20, 50, 100) and quick.repeats == 2 and quick.kmeans.n_init == 2
    assert quick.kmeans.max_iter == full.kmeans.max_iter  # what quick_grid does not set stays


@pytest.mark.slow
def test_reproduce_takes_its_experiments_from_the_presets(conf_copy):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "reproduce.py"
    spec = importlib.util.spec_from_file_location("reproduce_script", path)
    reproduce = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reproduce)
    shipped = reproduce.experiments()
    assert shipped[:2] == ["bmd09_table1", "bmd09_fig1"]
    assert shipped[-1] == "report_orl_projections_kmeanspp"

    block = "preset: {{paper: null, title: Mine, order: {order}, reproduce: {reproduce}}}\n"
    preset(conf_copy, "mine_early", block.format(order=15, reproduce="paper"))
    preset(conf_copy, "mine_diag", block.format(order=1, reproduce="diagnostic"))
    preset(conf_copy, "mine_adhoc", block.format(order=5, reproduce="none"))
    names = reproduce.experiments()
    # paper presets in their order, then the diagnostic ones; never the reproduce: none ones
    assert names[:3] == ["bmd09_table1", "mine_early", "bmd09_fig1"]
    first_diag = names.index("mine_diag")  # order 1: the first diagnostic, after every paper one
    assert names[first_diag + 1 :] == [n for n in shipped if n not in names[:first_diag]]
    assert "bzmd14_synth_kmeanspp" in names[first_diag + 1 :]
    assert "mine_adhoc" not in names and len(names) == len(shipped) + 2


def test_a_reducer_run_alone_brings_its_seed_source():
    with command.said() as lines:
        experiment = kmdr.compose("experiment=pb17_digits", "reducer=sparsified_two_pass")
    ids = [red.id for red in experiment.reducers]
    assert ids == ["sparsified", "sparsified_two_pass"]
    assert experiment.reducers[1].seed_from == "sparsified"
    assert any("takes its seeds from sparsified: sparsified runs as well" in ln for ln in lines)


@pytest.mark.parametrize(
    ("preset", "reducer", "ids"),
    [
        # an entry's id names that entry alone: PD without kmdr's variants of it
        ("pb17_digits", "sparsified", ["sparsified"]),
        ("pb17_digits", "sparsified_raw", ["sparsified_raw"]),
        ("report_orl_projections", "leverage", ["leverage"]),
    ],
)
def test_a_reducer_option_keeps_the_entry_of_that_id_alone(preset, reducer, ids):
    experiment = kmdr.compose(f"experiment={preset}", f"reducer={reducer}")
    assert [red.id for red in experiment.reducers] == ids


def _replaced(**values):
    from dataclasses import replace

    return lambda: replace(kmdr.compose("dataset=synth", "reducer=sign"), **values)


@pytest.mark.parametrize(
    ("build", "says"),
    [
        case(
            lambda: kmdr.Execution(n_jobs=True),
            says="'n_jobs' must be an integer, not a bool (got True)",
            doing="configure",
            cause="a count built in Python was given a bool (True is 1 to Python, never a count "
            "to kmdr), as the command line's typed config refuses n_jobs=true",
            fix="give the number: kmdr.Execution(n_jobs=1)",
        ),
        case(
            _replaced(repeats=True),
            says="'repeats' must be an integer, not a bool (got True)",
            doing="configure",
            cause="dataclasses.replace on an Experiment gave a count a bool",
            fix="give the number: replace(experiment, repeats=1)",
        ),
        pytest.param(
            _replaced(blas_threads=False), "'blas_threads' must be an integer, not a bool"
        ),
        pytest.param(_replaced(seed=False), "'seed' must be an integer, not a bool"),
        pytest.param(_replaced(r_grid=(True, 5)), "must be an integer, not a bool"),
    ],
)
def test_a_bool_is_not_a_count(build, says):
    with pytest.raises(ConfigError) as err:
        build()
    assert says in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("n_jobs", [1, -1, 2])
def test_a_count_is_still_a_count(n_jobs):
    assert kmdr.Execution(n_jobs=n_jobs).n_jobs == n_jobs
