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
             cause=CAUSE, fix=FIX, id="dataset"),
        case(["aggregation=best"], says="(aggregation=mean there, best here)", doing="run",
             cause=CAUSE, fix=FIX, id="aggregation"),
        case(["name=mine", "aggregation=best"], says="(aggregation=mean there, best here)",
             doing="run", cause=CAUSE, fix=FIX, id="own-folder-aggregation"),
        case(["reducers.1.params.eps=0.5"],
             says="reducers.leverage_approx.params.eps=0.3333333333333333 there, 0.5 here",
             doing="run", cause=CAUSE, fix=FIX, id="reducer-params"),
    ],
)  # fmt: skip
def test_a_run_of_another_protocol_is_refused(recorded, overrides, says):
    _refused(recorded, overrides, says)


def test_a_reducer_the_last_run_did_not_run_keeps_the_presets_definition(recorded):
    """A record holds the reducers its run ran (``reducer=sign``'s: that entry alone, as the
    run's objects hold it); the preset still defines the others in its folder."""
    for path in (recorded / "bzmd14_orl" / "runs").glob("*.json"):
        record = json.loads(path.read_text())
        config = record["config"]
        config["reducers"] = [r for r in config["reducers"] if r["name"] == "sign"]
        path.write_text(json.dumps(record))
    _refused(recorded, ["reducers.1.params.eps=0.5"], "eps=0.3333333333333333 there, 0.5 here")
    assert kmdr.run([*ORL, "reducer=svd"], results_dir=recorded).empty  # its dry run


def test_a_preset_folder_not_written_yet_has_the_presets_protocol(tmp_path):
    """No record yet: the preset of the folder's name decides, so its run with another dataset
    never writes into the preset's folder; the same from an Experiment built in Python."""
    _refused(tmp_path, ["dataset=coil20"], "(dataset.name=orl there, coil20 here)")
    _refused(tmp_path, ["name=bzmd14_synth"], "(dataset.name=synth there, orl here")
    preset = kmdr.compose("experiment=bzmd14_synth", "r_grid=[5]", "repeats=1")
    other = dataclasses.replace(preset, dataset=DatasetConfig("orl"))
    with pytest.raises(kmdr.ConfigError, match=re.escape("dataset.name=synth there, orl here")):
        kmdr.run(other, output=kmdr.Output(results_dir=str(tmp_path), dry_run=True))
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
