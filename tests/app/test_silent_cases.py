"""Every setting given is used, refused in one line, or warned about when it changes nothing: the
settings kmdr once accepted and then ignored with exit 0 (a key given twice, a user's config named
like a built-in, an override of a reducer the run filters out, a resume that changes what a
reducer id holds, an empty ``results_dir`` given to ``kmdr.run``). Each is run for real, in this
process: the ``kmdr`` command (its ``sys.argv``, exit status and output) where the case is the
command line's, ``kmdr.run`` where it is the API's; each asserts the one line and that nothing
was written."""

from __future__ import annotations

import re

import pytest
from test_cli import TINY

import kmdr
from _cases import case
from _command import run_kmdr

pytestmark = pytest.mark.slow

ONE_LINE = "exit 2 before any work, one line naming it and both values, nothing written"


def refused(proc, *expected: str) -> str:
    """The command's one error line (exit 2, no traceback), holding every ``expected`` text."""
    assert proc.returncode == 2, proc.stderr + proc.stdout
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("kmdr: error: "), proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    line = proc.stderr.strip()
    for text in expected:
        assert text in line, line
    return line


def files_under(folder) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize(
    ("args", "setting", "value"),
    [
        (["dataset=synth", "repeats=1", "repeats=3"], "repeats", 3),
        (["dataset=synth", "reducer=sign", "reducer=svd"], "reducers", ("svd",)),
        (["experiment=bzmd14_synth", "experiment=bzmd14_orl"], "name", "bzmd14_orl"),
    ],
)
def test_a_key_given_twice_keeps_the_last_value(args, setting, value):
    experiment = kmdr.compose(*args)
    got = getattr(experiment, setting)
    assert (tuple(r.name for r in got) if setting == "reducers" else got) == value


def test_results_dir_as_override_and_keyword_warns_and_the_keyword_wins(tmp_path, monkeypatch):
    from kmdr.app.api import _objects

    monkeypatch.chdir(tmp_path)
    with pytest.warns(UserWarning, match=re.escape("results_dir=a changes nothing")):
        objects = _objects([*TINY, "results_dir=a"], (), None, None, "b")[0]
    assert objects.output.results_dir == "b"
    assert files_under(tmp_path) == []


def test_an_output_given_wins_over_every_output_override(tmp_path, monkeypatch):
    from kmdr.app.api import _objects

    monkeypatch.chdir(tmp_path)
    with pytest.warns(UserWarning, match=re.escape("results_dir=a changes nothing: kmdr.run's "
                                                   "output= wins; drop it")):  # fmt: skip
        objects, _ = _objects([*TINY, "results_dir=a"], (), None, kmdr.Output(dry_run=True), None)
    assert objects.output.results_dir == "my_results" and objects.output.dry_run
    assert files_under(tmp_path) == []


def test_an_empty_results_dir_keyword_is_the_commands_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = refused(run_kmdr([*TINY, "results_dir="], tmp_path), "results_dir is empty")
    with pytest.raises(kmdr.ConfigError) as err:
        kmdr.run(*TINY, results_dir="")
    assert str(err.value) == line.removeprefix("kmdr: error: ")
    assert files_under(tmp_path) == []


def _user_folder(tmp_path, rel: str, text: str):
    conf = tmp_path / "my_conf"
    (conf / rel).parent.mkdir(parents=True, exist_ok=True)
    (conf / rel).write_text(text)
    return conf


@pytest.mark.parametrize(
    ("rel", "text", "args"),
    [
        pytest.param(
            "dataset/synth.yaml",
            "name: synth\nparams: {n_samples: 90, n_features: 7, n_clusters: 3}\n",
            ["dataset=synth", "reducer=sign", "r_grid=[2]", "dry_run=true"],
            id="dataset",
        ),
        pytest.param(
            "experiment/bzmd14_synth.yaml",
            "# @package _global_\ndefaults:\n  - override /dataset: synth\n"
            "name: bzmd14_synth\nreducers: {sign: {name: sign}}\nr_grid: [2]\nrepeats: 7\n",
            ["experiment=bzmd14_synth", "dry_run=true"],
            id="experiment",
        ),
        pytest.param(
            "config.yaml",
            "defaults:\n  - kmdr_schema\n  - _self_\n  - dataset: synth\n  - reducer: sign\n"
            "repeats: 9\n",
            ["dry_run=true"],
            id="config",
        ),
    ],
)
def test_a_users_own_config_is_the_one_composed(rel, text, args, tmp_path):
    """Hydra takes a config from the first folder of its search path that holds it, kmdr's own
    first: a user's ``-cd`` folder names its configs apart (``my_<name>``) and chooses them."""
    group, _, name = rel.removesuffix(".yaml").rpartition("/")
    conf = _user_folder(tmp_path, rel.replace(name, f"my_{name}"), text)
    chosen = f"{group}=my_{name}" if group else f"--config-name my_{name}"
    flags = ["--config-name", f"my_{name}"] if not group else []
    overrides = [a for a in args if not a.startswith(f"{group}=")] if group else args
    overrides = [*overrides, chosen] if group else overrides
    proc = run_kmdr(["-cd", str(conf), "--cfg", "job", *flags, *overrides], tmp_path)
    assert proc.returncode == 0, proc.stderr
    wanted = {"dataset": "n_samples: 90", "experiment": "repeats: 7", "": "repeats: 9"}[group]
    assert wanted in proc.stdout, proc.stdout


def test_a_copy_of_a_builtin_config_in_the_users_folder_is_accepted(tmp_path):
    """A folder holding kmdr's own file unchanged (a copied conf/) hides nothing."""
    from kmdr.config.presets import conf_dir

    text = (conf_dir() / "dataset" / "synth.yaml").read_text()
    conf = _user_folder(tmp_path, "dataset/synth.yaml", text)
    proc = run_kmdr(["-cd", str(conf), *TINY, "dry_run=true"], tmp_path)
    assert proc.returncode == 0, proc.stderr


FILTERED = ["experiment=bzmd14_synth", "reducer=sign", "r_grid=[2]", "repeats=1"]


@pytest.mark.parametrize(
    ("override", "says"),
    [
        case(
            "reducers.leverage_approx.params.eps=0.5",
            says="reducers.leverage_approx.params.eps=0.5 sets reducers.leverage_approx, which is "
            "not among the reducers run (sign), so it changes nothing; drop the override",
            doing="configure",
            cause="reducer=<name> with a preset runs that reducer's entries only, and the "
            "override changes another entry of the preset, which does not run",
            fix="drop the override, or drop reducer=<name> to run every entry of the preset",
            warning=True,
        ),
        case(
            "+reducers={mine: {name: svd}}",
            says="+reducers={mine: {name: svd}} sets reducers.mine, which is not among the "
            "reducers run (sign), so it changes nothing; drop the override",
            doing="configure",
            cause="reducer=<name> with a preset runs that reducer's entries only, and the "
            "override adds an entry of another id, which does not run",
            fix="drop the override, or drop reducer=<name> to run the entry beside the preset's",
            warning=True,
        ),
    ],
)
def test_an_override_that_changes_no_cell_warns(override, says):
    with pytest.warns(UserWarning, match=re.escape(says)):
        experiment = kmdr.compose(*FILTERED, override)
    # the run (and its record) is the one without it: the filtered entry is not there
    assert experiment == kmdr.compose(*FILTERED)
    assert [r.id for r in experiment.reducers] == ["sign"]
    # the entry the filter keeps may be changed: that changes its cells
    assert kmdr.compose(*FILTERED, "reducers.sign.max_r=2").reducers[0].max_r == 2


def _first_run(tmp_path):
    results = tmp_path / "r"
    first = run_kmdr([*TINY, "reducer=sign", f"results_dir={results}"], tmp_path)
    assert first.returncode == 0, first.stderr
    folder = results / "custom"
    return folder, files_under(folder), (folder / "cells.csv").read_bytes()


def test_a_resume_with_another_label_is_refused(tmp_path):
    folder, files, csv = _first_run(tmp_path)
    proc = run_kmdr(
        [*TINY, "reducer=sign", "reducers.sign.label=Gauss", f"results_dir={folder.parent}"],
        tmp_path,
    )
    refused(
        proc,
        f"{folder} holds another protocol than this run's (reducers.sign.label=RP there, Gauss "
        "here)",
        "name=...",
    )
    assert files_under(folder) == files and (folder / "cells.csv").read_bytes() == csv


def test_a_resume_with_another_reducer_under_the_id_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder, files, csv = _first_run(tmp_path)
    with pytest.raises(kmdr.ConfigError) as err:
        kmdr.run(*TINY, "reducers.sign.name=gaussian", results_dir=folder.parent)
    assert "\n" not in str(err.value)
    assert (
        f"{folder} holds another protocol than this run's (reducers.sign.name=sign there, "
        "gaussian here, reducers.sign.label=RP there, Gaussian RP here)"
    ) in str(err.value)
    assert files_under(folder) == files and (folder / "cells.csv").read_bytes() == csv
    # under an id of its own it runs, beside the first reducer's cells
    cells = kmdr.run(
        *TINY, "~reducer", "+reducers={gauss: {name: gaussian}}", results_dir=folder.parent
    )
    assert set(cells["reducer"]) == {"gauss"} and len(cells) == 4


def test_several_reducer_options_run_each_one(tmp_path):
    results = tmp_path / "r"
    proc = run_kmdr([*TINY, "reducer=[sign,none]", f"results_dir={results}"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    import pandas as pd

    cells = pd.read_csv(results / "custom" / "cells.csv")
    assert sorted(set(cells.reducer)) == ["none", "sign"] and len(cells) == 4 + 2
    listed = kmdr.compose("dataset=synth", "reducer=[sign,none]")
    assert [red.id for red in listed.reducers] == ["sign", "none"]
    preset = ["experiment=bzmd14_synth", "reducer=[svd,sign]", "repeats=1", "dry_run=true"]
    proc = run_kmdr(preset, tmp_path)
    assert proc.returncode == 0, proc.stderr
    planned = [line.split()[0] for line in proc.stderr.splitlines() if "to compute" in line]
    assert planned[:-1] == ["sign", "svd"], proc.stderr  # the preset's entries, in its order
    refused(
        run_kmdr([*preset[:1], "reducer=[sign,lle]", *preset[2:]], tmp_path),
        "reducer=lle is not part of this experiment",
    )


def test_a_list_of_options_in_a_users_defaults_is_used_or_refused(tmp_path):
    head = "defaults:\n  - config\n  - _self_\n  - override reducer: [sign, none]\n"
    conf = _user_folder(tmp_path, "mine.yaml", head)
    results = tmp_path / "r"
    args = ["-cd", str(conf), "-cn", "mine", *TINY[1:], f"results_dir={results}"]
    proc = run_kmdr(args, tmp_path)
    assert proc.returncode == 0, proc.stderr
    import pandas as pd

    cells = pd.read_csv(results / "custom" / "cells.csv")
    assert sorted(set(cells.reducer)) == ["none", "sign"] and len(cells) == 4 + 2
    (conf / "mine.yaml").write_text(head.replace("reducer: [sign, none]", "dataset: [synth, orl]"))
    line = refused(
        run_kmdr([*args, "dry_run=true"], tmp_path),
        "the config's defaults list chooses dataset: [synth, orl]: a run takes one dataset",
    )  # named where it is written, with how to choose one there
    assert "choose one there (or override it: dataset=synth)" in line


def test_a_job_run_in_its_own_folder_writes_where_the_command_started(tmp_path):
    tiny = [a for a in TINY if a != "figures=false"]
    args = ["-m", *tiny, "reducer=sign,none", "hydra.job.chdir=true", "results_dir=r"]
    proc = run_kmdr(args, tmp_path)
    assert proc.returncode == 0, proc.stderr
    stores = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("cells.csv"))
    assert [str(p) for p in stores] == ["r/custom/cells.csv"], stores
    assert (tmp_path / "r" / "custom" / "figures" / "custom.png").is_file()


def test_what_only_a_multirun_reads_is_warned_without_it(tmp_path):
    """A sweep config, a launcher or a sweeper given to a job run alone changes nothing: one
    warning, and the job runs with the config's own values; with -m each job runs."""
    text = (
        "defaults:\n  - config\n  - _self_\nhydra:\n  sweeper:\n    params:\n"
        "      reducer: sign,none\n"
    )
    conf = _user_folder(tmp_path, "sweep.yaml", text)
    args = ["-cd", str(conf), "-cn", "sweep", *TINY[1:], "dry_run=true"]
    proc = run_kmdr(args, tmp_path)
    assert proc.returncode == 0 and "hydra.sweeper.params: read by a multirun only" in proc.stderr
    proc = run_kmdr(["-m", *args], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "2 jobs planned (dry run)" in proc.stderr
    proc = run_kmdr([*args, "hydra.sweeper.params=null"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    launcher = [*TINY, "hydra/launcher=basic", "dry_run=true"]
    proc = run_kmdr(launcher, tmp_path)
    assert proc.returncode == 0 and "hydra/launcher=basic: read by a multirun only" in proc.stderr
    proc = run_kmdr(["-m", *launcher], tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_a_dataset_named_beside_its_option_is_refused(tmp_path):
    text = "defaults:\n  - config\n  - _self_\ndataset:\n  name: orl\n"
    conf = _user_folder(tmp_path, "mine.yaml", text)
    args = ["-cd", str(conf), "-cn", "mine", "dry_run=true"]
    refused(run_kmdr(args, tmp_path), "dataset.name is 'orl' but the dataset option chosen is")
    (conf / "dataset").mkdir()
    (conf / "dataset" / "tiny.yaml").write_text(
        "name: synth\nparams: {n_samples: 90, n_features: 7, n_clusters: 3}\n"
    )
    proc = run_kmdr(["-cd", str(conf), "dataset=tiny", "r_grid=[2]", "dry_run=true"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    # the same option of a primary config of the folder's own, its job printed by --cfg
    (conf / "mine.yaml").write_text(
        "defaults:\n  - config\n  - _self_\n  - override dataset: tiny\n"
    )
    proc = run_kmdr(["-cd", str(conf), "-cn", "mine", "--cfg", "job"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "name: synth" in proc.stdout


def test_an_entry_override_beside_a_list_of_reducers_sets_that_entry():
    experiment = kmdr.compose("reducer=[sign,svd_approx]", "+reducers.svd_approx.params.eps=0.5")
    assert [(r.id, dict(r.params)) for r in experiment.reducers] == [
        ("sign", {}),
        ("svd_approx", {"eps": 0.5}),
    ]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(
            ["experiment=[bzmd14_synth]", "kmeans.n_init=1", "r_grid=[2]", "repeats=1"],
            "experiment=[bzmd14_synth]: a run takes one experiment",
        ),
        pytest.param(
            [*TINY[1:], "dataset=[synth,orl]", "reducer=sign"],
            "dataset=[synth,orl]: a run takes one dataset",
        ),
    ],
)
def test_a_list_of_presets_or_datasets_is_refused(args, expected, tmp_path):
    refused(run_kmdr(args, tmp_path), expected)
    assert files_under(tmp_path) == []
