"""The ``kmdr`` command: one-line errors for bad overrides, a real run, a multirun, Hydra's own
flags. (Schema errors: test_schema.py; the installed wheel: test_install.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import _command as command
from _cases import case
from _command import run_kmdr
from _overrides import overridden, refusal
from kmdr.app import compose as configs
from kmdr.app.listing import list_presets
from kmdr.config import presets

KMDR = [sys.executable, "-c", "from kmdr.app import main; main()"]
TINY = [
    "dataset=synth",
    "+dataset.params={n_samples:60,n_features:12,n_clusters:3}",
    "r_grid=[2,4]",
    "repeats=2",
    "kmeans.n_init=1",
    "n_jobs=1",
    "figures=false",
    "progress=false",
]


def _env():
    env = dict(os.environ)
    env.pop("HYDRA_FULL_ERROR", None)
    return env


def run_process(args, cwd):
    """``kmdr args`` in a process of its own, in folder ``cwd``: where a process is the point (a
    launcher's workers, a cell's time limit, which stops it with a signal)."""
    return subprocess.run(
        KMDR + args, cwd=cwd, capture_output=True, text=True, env=_env(), timeout=120
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        case(
            ["dataset=nosuch"],
            says="Could not find 'dataset/nosuch' Available options in 'dataset': coil20 digits",
            doing="configure",
            cause="dataset= names no dataset option here (Hydra's message lists the options)",
            fix="choose one the message lists; kmdr-list datasets describes them",
            id="an unknown dataset on the command line (dataset=nosuch)",
        ),
        case(
            ["reducer=nosuch"],
            says="Could not find 'reducer/nosuch' Available options in 'reducer': achlioptas",
            doing="configure",
            cause="reducer= names no declared reducer or alias (Hydra's message lists them)",
            fix="choose one the message lists; kmdr-list reducers describes them",
            id="an unknown reducer on the command line (reducer=nosuch)",
        ),
        case(
            ["experiment=nosuch"],
            says="Could not find 'experiment/nosuch' Available options in 'experiment': bmd09_fig1",
            doing="configure",
            cause="experiment= names no preset of conf/experiment/ (or of a -cd folder)",
            fix="choose one the message lists; kmdr-list experiments describes them",
            id="an unknown experiment preset (experiment=nosuch)",
        ),
        case(
            ["dataset=orl,nosuch"],
            says="Ambiguous value for argument 'dataset=orl,nosuch'",
            doing="configure",
            cause="a comma-separated value is a sweep, which only a multirun runs",
            fix="add -m to run one job per value, or give one value",
            id="a sweep without -m (dataset=orl,nosuch): Hydra's one line on how to write it",
        ),
        case(
            ["r_grid=[]"],
            says="r_grid must be a non-empty list of positive integers",
            doing="configure",
            cause="an empty r-grid leaves no cell to run",
            fix="give at least one r: 'r_grid=[10]'",
            id="an empty r-grid (r_grid=[])",
        ),
        case(
            ["r_grid=[0,3]"],
            says="'r_grid' must be >= 1: 0",
            doing="configure",
            cause="each r of r_grid is a number of features, at least 1",
            fix="give positive whole numbers: 'r_grid=[1,3]'",
            id="r = 0 in the r-grid",
        ),
        case(
            ["r_grid=[-2]"],
            says="'r_grid' must be >= 1: -2",
            doing="configure",
            cause="each r of r_grid is a number of features, at least 1",
            fix="give positive whole numbers: 'r_grid=[2]'",
            id="a negative r in the r-grid",
        ),
        case(
            ["reducer=svd", "r_grid=[5,100]"],
            says="r = 100 is too large for reducer 'svd' on synth",
            doing="configure",
            cause="the reducer builds at most as many features as the data allows (for an SVD, "
            "min(n, d)); the data's shape is known once it loads, before any cell runs",
            fix="keep r within the range the message gives, or give the reducer a max_r",
            id="an r larger than the data allows for SVD (r > min(n, d))",
        ),
        case(
            ["reducer=laplacian", "r_grid=[13]"],
            says="valid r for it: 1..12",
            doing="configure",
            cause="a feature selection keeps at most the data's d features",
            fix="keep r within the range the message gives",
            id="an r larger than d for a feature selection (laplacian, r = 13 > d = 12)",
        ),
        case(
            ["kmeans.init=plus"],
            says="'kmeans.init' must be in ('k-means++', 'random', 'sample', 'first_of_class')",
            doing="configure",
            cause="kmeans.init is one of k-means++, random, sample or first_of_class",
            fix="give one of those: kmeans.init=k-means++",
            id="an unknown k-means start (kmeans.init=plus)",
        ),
        case(
            ["nosuchkey=1"],
            says="Could not override 'nosuchkey'. To append to your config use +nosuchkey=1",
            doing="configure",
            cause="the key is not in kmdr's schema (a typo?); Hydra refuses a key it does not know",
            fix="check the key's spelling with kmdr --cfg job; + adds a key only where the "
            "schema has room for one (a reducer's params)",
            id="an unknown top-level key without + (nosuchkey=1)",
        ),
    ],
)
@pytest.mark.slow
def test_bad_override_fails_at_once_with_one_line(args, says, tmp_path, capsys):
    argv = overridden([*TINY, f"results_dir={tmp_path / 'results'}"], *args)
    with pytest.raises(SystemExit) as exc:
        command.kmdr(argv)
    out = capsys.readouterr()
    assert says in refusal(exc.value.code, out.err, out.out)
    assert not (tmp_path / "results").exists()


@pytest.mark.slow
def test_multirun_names_the_job_the_data_cannot_run(tmp_path, capsys):
    argv = ["-m", *overridden(TINY, "reducer=sign,svd", "r_grid=[2,20]")]
    argv.append(f"results_dir={tmp_path / 'results'}")
    with pytest.raises(SystemExit) as exc:
        command.kmdr(argv)
    assert exc.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    # the job named by its overrides (Hydra's override_dirname)
    assert last.startswith("kmdr: error: [job 1: ") and " reducer=svd " in last
    assert "] r = 20 is too large for reducer" in last
    cells = pd.read_csv(tmp_path / "results" / "custom" / "cells.csv")
    assert set(cells.reducer) == {"sign"}  # the job before it ran; the bad one wrote nothing


@pytest.mark.slow
def test_run_and_multirun_write_one_experiment_folder(tmp_path):
    results = tmp_path / "results"
    proc = run_kmdr([*TINY, f"results_dir={results}", "reducer=sign"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert len(pd.read_csv(results / "custom" / "cells.csv")) == 4
    assert list(tmp_path.iterdir()) == [results]  # Hydra left nothing in the working directory

    proc = run_kmdr(["-m", *TINY, f"results_dir={results}", "reducer=sign,none"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    df = pd.read_csv(results / "custom" / "cells.csv")
    assert sorted(df.reducer.unique()) == ["none", "sign"]
    assert len(df) == 4 + 2 and not df.duplicated(["reducer", "r", "repetition"]).any()
    # the first run's and the 'none' job's: the 'sign' job only reused, and left no record
    assert len(list((results / "custom" / "runs").glob("*.json"))) == 2


@pytest.mark.slow
def test_experiment_with_a_reducer_keeps_only_that_reducer(tmp_path):
    from hydra import compose

    from kmdr.app.compose import only_reducers
    from kmdr.config.schema import from_config

    with configs.initialized():
        cfg = compose(
            "config", overrides=["experiment=bzmd14_orl", "reducer=sign"], return_hydra_config=True
        )
        full = compose("config", overrides=["experiment=bzmd14_orl"])
    choices = dict(cfg.hydra.runtime.choices)
    spec = from_config(full, only_reducers=only_reducers(choices, {}))
    assert [r.id for r in spec.experiment.reducers] == ["sign"] and spec.experiment.repeats == 5
    several = from_config(full, only_reducers=only_reducers(choices, {"reducer": ["svd", "sign"]}))
    assert [r.id for r in several.experiment.reducers] == ["sign", "svd"]  # the preset's order
    alias = from_config(full, only_reducers=only_reducers(choices, {"reducer": ["rp"]}))
    assert [r.id for r in alias.experiment.reducers] == ["sign"]  # rp: an alias of sign
    assert len(from_config(full).experiment.reducers) == 8


#: The presets a multirun sweeps over datasets, one job and folder per dataset (ss22's and
#: dss24's real datasets, for a user with internet): each job's folder by its dataset's name, and
#: whether make reproduce runs the preset's first dataset alone (dss24's MNIST) or none.
BY_DATASET = {
    "ss22_real": ("{}", "none"),
    "dss24_real": ("{}", "paper"),
    "dss24_lloyd_real": ("{}_lloyd", "paper"),
}


@pytest.mark.slow
def test_every_preset_composes_and_states_its_protocol():
    from importlib.resources import files

    from hydra import compose

    from kmdr.config.errors import ConfigError
    from kmdr.config.schema import from_config
    from kmdr.plugins import papers
    from kmdr.reducers import reducer_label

    def configs_of(paper):
        return Path(str(files(paper.configs)))

    conf = presets.conf_dir()
    with configs.initialized():
        names = configs.group_options("experiment")
        assert {
            "bmd09_table1",
            "bmd09_fig1",
            "bzmd14_orl",
            "lst17_sparse_text",
            "report_orl_projections",
        } <= set(names)
        for name in names:
            cfg = compose("config", overrides=[f"experiment={name}"])
            spec = from_config(cfg)
            # The reduced grid of --quick is a valid config too; a preset without one refuses
            # quick=true (make reproduce-quick runs its full protocol).
            quick = compose("config", [f"experiment={name}", "quick=true"])
            if cfg.quick_grid:
                assert from_config(quick)
            else:
                with pytest.raises(ConfigError, match=f"and {name} has none"):
                    from_config(quick)
            # named after itself, but a sweep over datasets: each job's folder is its dataset's
            folder = BY_DATASET[name][0].format(cfg.dataset.name) if name in BY_DATASET else name
            assert spec.experiment.name == folder
            # in kmdr's own configs, or in the package of the paper that holds it
            folders = [conf, *(configs_of(p) for p in papers() if p.configs)]
            (path,) = [f / "experiment" / f"{name}.yaml" for f in folders
                       if (f / "experiment" / f"{name}.yaml").is_file()]  # fmt: skip
            text = path.read_text()
            assert text.startswith("# @package _global_") and text.count("\n#") >= 4
            # Every preset says what it reproduces, none keeps the defaults.
            assert "\npreset:\n" in text and cfg.preset.paper is not None
            assert cfg.preset.title != name
            if name in BY_DATASET:  # for a user with internet
                assert cfg.preset.reproduce == BY_DATASET[name][1]
            else:
                assert cfg.preset.reproduce in ("paper", "diagnostic")
            # A label is written only where the preset deliberately differs from the registry.
            for entry in cfg.reducers.values():
                assert entry.label is None or entry.label != reducer_label(entry.name), (
                    name,
                    entry,
                )
            if name.startswith("bzmd14"):
                # bzmd14's grid; the online-phase ORL diagnostic states its sub-grid (its
                # k-means is slower by two orders of magnitude)
                grid = spec.experiment.r_grid
                assert set(grid) <= set(range(5, 101, 5)) and spec.experiment.repeats == 5
                assert grid == tuple(range(5, 101, 5)) or name == "bzmd14_online_phase_orl"
                assert (spec.experiment.kmeans.n_init, spec.experiment.kmeans.max_iter) == (5, 500)
                # the paper's seven methods, and one later method marked as not in the paper
                assert [r.label for r in spec.experiment.reducers] == [
                    "Sampl/SVD",
                    "Sampl/ApproxSVD",
                    "RidgeLev (CMM17, not in the paper)",
                    "RP",
                    "SVD",
                    "ApprSVD",
                    "LapScores",
                    "kMeans",
                ]


@pytest.mark.slow
def test_presets_order_make_reproduce_in_the_papers_order():
    listed = list_presets()
    orders = [p["order"] for p in listed]
    assert len(set(orders)) == len(orders)  # no two presets share a place
    papers = [p["name"] for p in listed if p["reproduce"] == "paper"]
    # bmd09's table and figure, then bzmd14's figures, lst17's, the course report's
    assert papers[:2] == ["bmd09_table1", "bmd09_fig1"]
    assert [p for p in papers if p.startswith("lst17")] == [
        "lst17_coil20",
        "lst17_rcv1",
        "lst17_sparse_text",
    ]
    assert papers[-1] == "report_orl_projections"
    diagnostics = [p["name"] for p in listed if p["reproduce"] == "diagnostic"]
    assert set(diagnostics) >= {"bzmd14_synth_kmeanspp", "report_orl_projections_kmeanspp"}
    # every diagnostic runs after every paper experiment
    assert max(p["order"] for p in listed if p["reproduce"] == "paper") < min(
        p["order"] for p in listed if p["reproduce"] == "diagnostic"
    )


def test_conf_dir_without_config_is_a_clear_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv(presets.CONF_ENV, str(tmp_path))
    with pytest.raises(SystemExit) as exc:
        command.kmdr(["dataset=synth"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{presets.CONF_ENV}={tmp_path} holds no config.yaml" in err


def test_conf_dir_env_points_hydra_at_another_conf_folder(monkeypatch, tmp_path):
    import shutil

    shutil.copytree(presets.conf_dir(), tmp_path / "conf")
    (tmp_path / "conf" / "dataset" / "mine.yaml").write_text("name: synth\nparams: {seed: 3}\n")
    monkeypatch.setenv(presets.CONF_ENV, str(tmp_path / "conf"))
    assert presets.conf_dir() == (tmp_path / "conf").resolve()
    with configs.initialized():
        assert "mine" in configs.group_options("dataset")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["-sc", "install=bash"], "hydra_bash_completion"),
        (["--help"], "kmdr-figures"),  # kmdr's own help: test_help.py
        (["--hydra-help"], "Hydra ("),
        (["--info", "searchpath"], "pkg://kmdr.conf"),  # or $KMDR_CONF_DIR when it is set
        (["--cfg", "job", "experiment=bzmd14_orl"], "bzmd14 Figure 3 (b, d, f): ORL"),
    ],
)
@pytest.mark.slow
def test_hydra_own_flags_are_not_taken_for_overrides(args, expected, tmp_path):
    proc = run_kmdr(args, tmp_path)
    assert proc.returncode == 0, proc.stderr
    if expected.startswith("pkg://") and os.environ.get(presets.CONF_ENV):
        expected = f"file://{presets.conf_dir()}"
    assert expected in proc.stdout
    assert list(tmp_path.iterdir()) == []  # nothing ran


def test_cfg_job_still_checks_the_config(capsys):
    with pytest.raises(SystemExit) as exc:
        command.kmdr(["--cfg", "job", "kmeans.n_inti=3"])
    out = capsys.readouterr()
    assert "Could not override 'kmeans.n_inti'" in refusal(exc.value.code, out.err, out.out)
    assert out.out == ""


@pytest.mark.slow
def test_unavailable_data_is_one_skip_line_and_exit_1(tmp_path, monkeypatch, capsys):
    import kmdr.datasets as datasets

    calls = []

    def unavailable(name, **kwargs):
        calls.append(name)
        raise datasets.DatasetUnavailable(f"{name}: cannot obtain the file (test)")

    from kmdr.engine.session import close_default_session

    close_default_session()  # an earlier test's session holds the data it loaded
    monkeypatch.setattr(datasets, "load_dataset", unavailable)
    monkeypatch.setattr(sys, "argv", ["kmdr"])
    with pytest.raises(SystemExit) as exc:
        command.kmdr([*TINY, f"results_dir={tmp_path}", "reducer=sign"])
    assert exc.value.code == 1
    assert "custom skipped: synth: cannot obtain the file (test)" in capsys.readouterr().err
    assert calls == ["synth"]  # tried once, not again by the runner
    (side,) = (tmp_path / "custom" / "runs").glob("*.json")
    assert '"status": "skipped"' in side.read_text()
    assert '"config_files": {}' in side.read_text()  # no option of a folder of one's own
