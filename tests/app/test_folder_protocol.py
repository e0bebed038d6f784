"""A folder holds one experiment's protocol (:mod:`kmdr.app.protocol`), in-process.

The folder's record is a committed run record copied into a temporary results folder, or, where
the folder records nothing yet, the preset of the folder's name. Dry runs: the rule is applied
before any work, and a run it accepts goes on to its dry run.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path

import pytest

import kmdr
from _cases import case
from kmdr.config.schema import DatasetConfig

ROOT = Path(__file__).resolve().parents[2]
ORL = ["experiment=bzmd14_orl", "r_grid=[5]", "repeats=1", "dry_run=true"]

CAUSE = (
    "an experiment's folder stands for one protocol (a preset's folder for its dataset and "
    "reducers; any folder for its kind and how repetitions combine): this run's rows would sit "
    "beside the folder's as if they were the same experiment's"
)
FIX = "give the run a folder of its own: add name=<a new name>, or results_dir=<another folder>"
#: A run differing from a preset's dataset or reducer definitions: the preset's name keeps the
#: preset's protocol under any results folder, so only a name of its own helps.
PRESET_CAUSE = (
    "a folder named after a preset holds the preset's dataset and reducer definitions, under any "
    "results folder: a run on another dataset (a file of one's own), or with another reducer's "
    "definition, is another experiment"
)
NAME_FIX = (
    "give the run a name of its own: add name=<a new name> (results_dir= alone keeps the "
    "preset's name, and its protocol)"
)
NAME_ONLY = "give this run a name of its own: name=..."


@pytest.fixture
def recorded(tmp_path):
    """A results folder holding bzmd14_orl's committed run record (no cells), in the preset's
    folder and in a folder of one's own (``mine``)."""
    for name in ("bzmd14_orl", "mine"):
        shutil.copytree(ROOT / "results" / "bzmd14_orl" / "runs", tmp_path / "r" / name / "runs")
    return tmp_path / "r"


def _refused(results, overrides, says):
    before = sorted(p.relative_to(results) for p in results.rglob("*"))
    with pytest.raises(kmdr.ConfigError, match=re.escape(says)) as err:
        kmdr.run([*ORL, *overrides], results_dir=results)
    assert "\n" not in str(err.value) and "a folder holds one experiment's protocol" in str(
        err.value
    )
    assert sorted(p.relative_to(results) for p in results.rglob("*")) == before


@pytest.mark.parametrize(
    ("overrides", "says"),
    [
        case(["dataset=coil20"], says="(dataset.name=orl there, coil20 here)", doing="run",
             cause=PRESET_CAUSE, fix=NAME_FIX, id="dataset"),
        case(["aggregation=best"], says="(aggregation=mean there, best here)", doing="run",
             cause=CAUSE, fix=FIX, id="aggregation"),
        case(["name=mine", "aggregation=best"], says="(aggregation=mean there, best here)",
             doing="run", cause=CAUSE, fix=FIX, id="own-folder-aggregation"),
        case(["reducers.leverage_approx.params.eps=0.5"],
             says="reducers.leverage_approx.params.eps=0.3333333333333333 there, 0.5 here",
             doing="run", cause=PRESET_CAUSE, fix=NAME_FIX, id="reducer-params"),
    ],
)  # fmt: skip
def test_a_run_of_another_protocol_is_refused(recorded, overrides, says):
    _refused(recorded, overrides, says)


@pytest.mark.parametrize(
    ("overrides", "name_only"),
    [
        pytest.param(["dataset=coil20"], True, id="preset-dataset"),
        pytest.param(["reducers.leverage_approx.params.eps=0.5"], True, id="preset-reducer"),
        pytest.param(["aggregation=best"], False, id="preset-aggregation"),
        pytest.param(["name=mine", "aggregation=best"], False, id="own-folder"),
    ],
)
def test_the_refusal_names_the_setting_that_helps(recorded, overrides, name_only):
    """A preset's dataset or reducers follow its name into any results folder: name=... alone
    helps then, and the line says results_dir=... would not; otherwise either does."""
    with pytest.raises(kmdr.ConfigError) as err:
        kmdr.run([*ORL, *overrides], results_dir=recorded)
    said = str(err.value)
    assert "what a folder holds" not in said and "its kind, aggregation and leverage" in said
    assert (NAME_ONLY in said) == name_only
    assert ("(name=... or results_dir=...)" in said) == (not name_only)


def test_a_reducer_the_last_run_did_not_run_keeps_the_presets_definition(recorded):
    """A record holds the reducers its run ran (``reducer=sign``'s: that entry alone, as the
    run's objects hold it); the preset still defines the others in its folder."""
    for path in (recorded / "bzmd14_orl" / "runs").glob("*.json"):
        record = json.loads(path.read_text())
        config = record["config"]
        config["reducers"] = [r for r in config["reducers"] if r["name"] == "sign"]
        path.write_text(json.dumps(record))
    _refused(
        recorded,
        ["reducers.leverage_approx.params.eps=0.5"],
        "eps=0.3333333333333333 there, 0.5 here",
    )
    assert kmdr.run([*ORL, "reducer=svd"], results_dir=recorded).empty  # its dry run


def test_a_preset_folder_not_written_yet_has_the_presets_protocol(tmp_path):
    """No record yet: the preset of the folder's name decides, so its run with another dataset
    never writes into the preset's folder; the same from an Experiment built in Python."""
    unwritten = "bzmd14_orl is a preset, and this run is outside its protocol"
    _refused(
        tmp_path, ["dataset=coil20"], f"{unwritten} (dataset.name=orl in the preset, coil20 here)"
    )
    _refused(tmp_path, ["name=bzmd14_synth"], "(dataset.name=synth in the preset, orl here")
    preset = kmdr.compose("experiment=bzmd14_synth", "r_grid=[5]", "repeats=1")
    other = dataclasses.replace(preset, dataset=DatasetConfig("orl"))
    with pytest.raises(kmdr.ConfigError) as err:
        kmdr.run(other, output=kmdr.Output(results_dir=str(tmp_path), dry_run=True))
    assert "dataset.name=synth in the preset, orl here" in str(err.value)
    # the folder that does not exist is never named; the setting that helps is
    assert str(tmp_path) not in str(err.value) and NAME_ONLY in str(err.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "overrides",
    [
        pytest.param(["reducer=sign"], id="one-of-its-reducers"),
        pytest.param(["r_grid=[5,7]", "repeats=9"], id="a-larger-grid"),
        pytest.param(["seed=3", "kmeans.n_init=1"], id="a-setting-drawn-apart"),
        pytest.param(["name=mine", "dataset=coil20", "reducer=sign"], id="own-folder-dataset"),
    ],
)
def test_a_part_of_the_grid_or_a_folder_of_its_own_runs(recorded, overrides):
    assert kmdr.run([*ORL, *overrides], results_dir=recorded).empty  # its dry run


def test_a_subset_of_a_presets_reducers_reuses_its_committed_cells(capsys):
    """``experiment=pb17_digits reducer=sparsified_two_pass`` runs into the committed folder
    (it brings the entry it takes its seeds from along) and computes nothing."""
    results = ROOT / "results"
    kmdr.run("experiment=pb17_digits", "reducer=sparsified_two_pass", "dry_run=true",
             results_dir=results)  # fmt: skip
    assert "total: 0 of 600 cells to compute (600 reused)" in capsys.readouterr().err


# -- the committed record holds the presets' own cells only (default_folder) ----------------------

#: A part of bzmd14_synth's protocol (one of its cells), cheap to compute, run in this process.
SYNTH = ["experiment=bzmd14_synth", "r_grid=[5]", "repeats=1", "n_jobs=1", "figures=false",
         "progress=false"]  # fmt: skip
SIGN = "reducer=sign"

#: Each column of a cell's identity (and its label) with a setting that changes it, run against
#: the committed preset: (identity column, the settings, whether the folder protocol then refuses
#: the run, which a preset's dataset or reducer definitions make another experiment).
IDENTITY_SETTINGS = [
    ("base_seed", [SIGN, "seed=7"], False),
    ("r", [SIGN, "r_grid=[6]"], False),
    ("repetition", [SIGN, "repeats=6"], False),
    ("kmeans_init", [SIGN, "kmeans.init=k-means++"], False),
    ("kmeans_n_init", [SIGN, "kmeans.n_init=1"], False),
    ("kmeans_max_iter", [SIGN, "kmeans.max_iter=7"], False),
    ("kmeans_tol", [SIGN, "kmeans.tol=0.001"], False),
    ("kmeans_online_phase", [SIGN, "kmeans.online_phase=true"], False),
    ("blas_threads", [SIGN, "blas_threads=2"], False),
    ("method", [SIGN, "reducers.sign.label=Mine"], False),
    ("seed_from", ["reducer=[sign,svd]", "reducers.svd.seed_from=sign"], False),
    ("reducer", ["~reducers", "+reducers={mine:{name:sign}}"], False),
    ("reducer_name", [SIGN, "reducers.sign.name=gaussian"], True),
    (
        "reducer_params",
        ["reducer=leverage_approx", "reducers.leverage_approx.params.eps=0.5"],
        True,
    ),
    ("dataset", [SIGN, "dataset=orl"], True),
    ("dataset_params", [SIGN, "dataset.params.n_samples=500"], False),
]
#: Identity columns no setting of this cells preset changes on its own: the data's fingerprint
#: follows from the dataset and its parameters, the code's tag from the code that runs, and the
#: steps after the reducer (a rows step, its solve and evaluation) are a coresets experiment's
#: (kind_params), which a cells preset's folder never holds.
NOT_SETTINGS = {"data_fingerprint", "code_tag", "coreset", "solve", "evaluation"}


def test_the_table_covers_every_column_of_a_cells_identity():
    """A column that joins the identity later needs its row here (the routing itself reads the
    identity, whatever its columns)."""
    from kmdr.results.records import IDENTITY_COLUMNS

    covered = {column for column, _, _ in IDENTITY_SETTINGS}
    assert covered | NOT_SETTINGS == {*IDENTITY_COLUMNS, "method"}


def _files(results: Path) -> dict:
    """What ``git status`` would see of the files under a copy of ``results/``: each file's
    bytes, by path, those git ignores (the claims' locks, cell files, run logs) left out, as the
    checkout's own .gitignore says."""
    import subprocess

    files = {f"results/{p.relative_to(results).as_posix()}": p for p in results.rglob("*")}
    files = {name: p for name, p in files.items() if p.is_file()}
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"], input="\n".join(files), cwd=ROOT,
        capture_output=True, text=True, check=False,
    ).stdout.split()  # fmt: skip
    return {name: p.read_bytes() for name, p in files.items() if name not in ignored}


@pytest.fixture
def committed(tmp_path, monkeypatch):
    """A start folder whose results/ holds a copy of bzmd14_synth's committed record (its cells
    and run records), the folder a run that names none resolves ``results`` from."""
    folder = tmp_path / "results" / "bzmd14_synth"
    shutil.copytree(ROOT / "results" / "bzmd14_synth" / "runs", folder / "runs")
    shutil.copy2(ROOT / "results" / "bzmd14_synth" / "cells.csv", folder / "cells.csv")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize(
    ("column", "settings", "refused"), [pytest.param(*row, id=row[0]) for row in IDENTITY_SETTINGS]
)
def test_a_setting_of_the_cells_identity_never_writes_into_the_committed_record(
    committed, column, settings, refused, capsys
):
    """The run names no results folder, as ``kmdr experiment=bzmd14_synth seed=7`` does: the
    committed record is left byte for byte as it was, and the run's cells go to my_results/
    (said in one line naming the column), or the folder's protocol refuses it there."""
    before = _files(committed / "results")
    if refused:
        with pytest.raises(kmdr.ConfigError, match="a folder holds one experiment's protocol"):
            kmdr.run([*SYNTH, *settings])
    else:
        cells = kmdr.run([*SYNTH, *settings])
        assert len(cells) and (committed / "my_results" / "bzmd14_synth" / "cells.csv").is_file()
        said = capsys.readouterr().err
        assert f"{column}=" in said and "this run goes to my_results/bzmd14_synth/" in said, said
    assert _files(committed / "results") == before


@pytest.mark.slow
def test_a_part_of_the_protocol_reuses_the_committed_cells_and_changes_nothing(committed):
    before = _files(committed / "results")
    cells = kmdr.run([*SYNTH, "reducer=[sign,svd]"])  # the committed record holds both
    assert set(cells["reducer"]) == {"sign", "svd"} and not (committed / "my_results").exists()
    assert _files(committed / "results") == before


def test_the_issues_command_goes_to_my_results(committed):
    """``kmdr experiment=bzmd14_orl reducer=sign 'r_grid=[5]' repeats=1 seed=7``, planned: its
    folder is my_results, and without the seed the committed one."""
    from kmdr.app.api import _objects

    run = ["experiment=bzmd14_orl", "reducer=sign", "r_grid=[5]", "repeats=1"]
    assert _objects([*run, "seed=7"], (), None, None, None)[0].output.results_dir == "my_results"
    assert _objects(run, (), None, None, None)[0].output.results_dir == "results"
    # an Experiment built in Python takes the same route
    experiment = dataclasses.replace(kmdr.compose(*run), seed=7)
    assert _objects(experiment, (), None, None, None)[0].output.results_dir == "my_results"


# -- a user's -cd folder comes first ----------------------------------------------------------


def _users_folder(root: Path, experiment: bool, dataset: bool) -> Path:
    """A config folder of one's own: an edited copy of bzmd14_synth (two cells of sign) and a
    synth of 200 points, as a user makes them by copying kmdr's."""
    my = root / "my"
    if experiment:
        text = (ROOT / "conf" / "experiment" / "bzmd14_synth.yaml").read_text()
        text = re.sub(r"(?m)^r_grid: .*$", "r_grid: [5, 10]", text)
        text = re.sub(r"(?m)^repeats: .*$", "repeats: 1", text)
        (my / "experiment").mkdir(parents=True)
        (my / "experiment" / "bzmd14_synth.yaml").write_text(text)
    if dataset:
        text = (ROOT / "conf" / "dataset" / "synth.yaml").read_text()
        text += "params:\n  n_samples: 200\n"
        (my / "dataset").mkdir(parents=True)
        (my / "dataset" / "synth.yaml").write_text(text)
    return my


@pytest.mark.slow
@pytest.mark.parametrize(
    ("experiment", "dataset", "says", "files"),
    [
        pytest.param(True, True, "the preset run is your own",
                     {"experiment": "experiment/bzmd14_synth.yaml",
                      "dataset": "dataset/synth.yaml"},
                     id="an-edited-preset"),
        pytest.param(False, True, 'dataset_params={"n_samples": 200',
                     {"dataset": "dataset/synth.yaml"}, id="a-dataset-option"),
    ],
)  # fmt: skip
def test_a_users_folder_comes_first_and_writes_to_my_results(
    committed, experiment, dataset, says, files
):
    """``kmdr -cd my experiment=bzmd14_synth`` runs the copy in my/ (its grid, its data), not
    kmdr's preset of that name, and writes to my_results/, never into the committed record;
    the run record names each file of my/ the run took an option from."""
    from _command import run_kmdr

    _users_folder(committed, experiment, dataset)
    before = _files(committed / "results")
    grid = [] if experiment else ["r_grid=[5,10]", "repeats=1"]
    run = run_kmdr(["-cd", "my", "experiment=bzmd14_synth", "reducer=sign", *grid, "n_jobs=1",
                    "figures=false", "progress=false"], committed)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert says in run.stderr and "goes to my_results/bzmd14_synth/" in run.stderr, run.stderr
    cells = kmdr.read_results(committed / "my_results")
    assert sorted(cells["r"]) == [5, 10] and set(cells["n_samples"]) == {200}
    (record,) = (committed / "my_results" / "bzmd14_synth" / "runs").glob("*.json")
    named = json.loads(record.read_text())["config_files"]
    assert {k: Path(v).resolve() for k, v in named.items()} == {
        k: (committed / "my" / v).resolve() for k, v in files.items()
    }
    assert _files(committed / "results") == before


def test_kmdr_run_names_the_file_of_an_option_a_folder_of_its_own_supplied(tmp_path):
    """``kmdr.run`` takes a config folder as ``hydra.searchpath`` (the Compose API's -cd): its
    record names the file of each option it supplied, as the command line's does."""
    mine = tmp_path / "my" / "experiment" / "mine.yaml"
    mine.parent.mkdir(parents=True)
    mine.write_text("# @package _global_\nname: mine\nr_grid: [2]\nrepeats: 1\n")
    args = ["+dataset.params={n_samples:60,n_features:12,n_clusters:3}", "kmeans.n_init=1"]
    kmdr.run(
        f"hydra.searchpath=[file://{tmp_path / 'my'}]",
        "experiment=mine",
        *args,
        output=kmdr.Output(results_dir=str(tmp_path / "r"), figures=False, progress=False),
    )
    (record,) = (tmp_path / "r" / "mine" / "runs").glob("*.json")
    assert json.loads(record.read_text())["config_files"] == {"experiment": str(mine)}
    kmdr.run(*args, "r_grid=[2]", "repeats=1", results_dir=tmp_path / "r")  # kmdr's options only
    assert all(
        json.loads(r.read_text())["config_files"] == {}
        for r in (tmp_path / "r" / "custom" / "runs").glob("*.json")
    )


def test_kmdr_list_marks_the_users_options(tmp_path, capsys):
    """``kmdr-list -cd my`` lists the copy's grid (15 cells, not the preset's 705) and marks it
    and the dataset option as the user's, by file in --json."""
    from kmdr.app.listing import main

    my = _users_folder(tmp_path, experiment=True, dataset=True)
    assert main(["-cd", str(my), "presets", "datasets"]) == 0
    lines = capsys.readouterr().out.splitlines()
    (preset,) = [ln for ln in lines if ln.split()[:1] == ["bzmd14_synth"]]
    assert "(yours)" in preset and " 15 " in preset
    assert any(ln.split()[:2] == ["synth", "(yours)"] for ln in lines)
    assert main(["-cd", str(my), "presets", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["presets"]}
    assert rows["bzmd14_synth"]["yours"] == str(my / "experiment" / "bzmd14_synth.yaml")
    assert rows["bzmd14_orl"]["yours"] is None
