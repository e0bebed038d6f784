"""The Python API: ``kmdr.run`` runs what the command line runs and returns the run's cells;
bad input is the command's one line as an exception, never SystemExit; ``import kmdr`` is light."""

from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import sys

import pandas as pd
import pytest
from hydra.errors import (
    ConfigCompositionException,
    MissingConfigException,
    OverrideParseException,
)
from test_cli import TINY, run_kmdr

import kmdr
from _overrides import overridden
from kmdr._io import read_csv

#: TINY's Experiment settings: kmdr.compose returns the Experiment alone, and refuses the others.
TINY_EXPERIMENT = [o for o in TINY if o.split("=")[0] not in ("n_jobs", "figures", "progress")]

METRICS = ["objective", "objective_reduced", "accuracy", "nmi", "ari", "n_iter", "seed"]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default results_dir is relative, as on the command line


@pytest.mark.slow
def test_run_returns_every_cell_it_asked_for_as_cells_csv_holds_it(tmp_path):
    cells = kmdr.run(*TINY, results_dir=tmp_path / "r")
    csv = read_csv(tmp_path / "r" / "custom" / "cells.csv")  # floats exact at pandas 2 too
    assert list(cells.columns) == list(csv.columns)
    assert len(cells) == 4 and sorted(cells["r"]) == [2, 2, 4, 4]
    pd.testing.assert_frame_equal(cells, csv, check_exact=True)
    # a narrower run into the same folder returns its own cells only, reused
    again = kmdr.run(*TINY[:2], "r_grid=[4]", *TINY[3:], results_dir=tmp_path / "r")
    assert len(again) == 2 and set(again["r"]) == {4}
    mine = csv[csv["r"] == 4].reset_index(drop=True)
    pd.testing.assert_frame_equal(again, mine, check_exact=True)
    assert kmdr.read_results(tmp_path / "r")["cell_id"].tolist() == csv["cell_id"].tolist()


@pytest.mark.slow
def test_run_computes_what_the_command_computes(tmp_path):
    proc = run_kmdr([*TINY, f"results_dir={tmp_path / 'cli'}"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    api = kmdr.run(*TINY, results_dir=tmp_path / "api")
    cli = kmdr.read_results(tmp_path / "cli")
    assert api["cell_id"].tolist() == cli["cell_id"].tolist()
    assert api[METRICS].equals(cli[METRICS])


@pytest.mark.slow
def test_the_default_results_dir_is_the_commands(tmp_path):
    cells = kmdr.run(*TINY)
    assert len(cells) == 4 and (tmp_path / "my_results" / "custom" / "cells.csv").is_file()
    experiment = kmdr.compose(*TINY_EXPERIMENT, "name=objects")
    assert len(kmdr.run(experiment)) == 4
    assert (tmp_path / "my_results" / "objects" / "cells.csv").is_file()
    assert not (tmp_path / "results").exists()
    cells = kmdr.run(["experiment=bzmd14_orl", "reducer=sign", "r_grid=[5]", "repeats=1"])
    assert len(cells) == 1 and (tmp_path / "results" / "bzmd14_orl" / "cells.csv").is_file()


@pytest.mark.slow
def test_an_output_object_keeps_the_default_results_dir_rule(tmp_path):
    from kmdr import Output

    tiny = [o for o in TINY if o.split("=")[0] not in ("figures", "progress")]
    quiet = Output(progress=False, figures=False)
    assert len(kmdr.run(*tiny, output=quiet)) == 4
    assert (tmp_path / "my_results" / "custom" / "cells.csv").is_file()
    assert len(kmdr.run(kmdr.compose(*TINY_EXPERIMENT, "name=objects"), output=quiet)) == 4
    assert (tmp_path / "my_results" / "objects" / "cells.csv").is_file()
    assert not (tmp_path / "results").exists()
    named = Output(results_dir=str(tmp_path / "mine"), progress=False, figures=False)
    assert len(kmdr.run(*tiny, output=named)) == 4
    assert (tmp_path / "mine" / "custom" / "cells.csv").is_file()
    # results_dir named as the keyword beside the object: that folder, even the default's
    experiment = kmdr.compose(*TINY_EXPERIMENT, "name=told")
    assert len(kmdr.run(experiment, output=quiet, results_dir="results")) == 4
    assert (tmp_path / "results" / "told" / "cells.csv").is_file()
    with pytest.raises(kmdr.ConfigError, match="results_dir is empty"):
        kmdr.run(experiment, results_dir="")  # refused, as with overrides and on the CLI


@pytest.mark.slow
def test_a_dry_run_returns_no_cells_and_writes_nothing(tmp_path):
    cells = kmdr.run(*TINY, "dry_run=true", results_dir=tmp_path / "r")
    assert len(cells) == 0 and "accuracy" in cells.columns
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "error", "says"),
    [
        (["repaets=3"], ConfigCompositionException, "Could not override 'repaets'"),
        (["dataset=nosuch"], MissingConfigException, "Could not find 'dataset/nosuch'"),
        (["repeats=0"], kmdr.ConfigError, "'repeats' must be >= 1: 0"),
        (["kmeans.n_init=x"], ConfigCompositionException, "Error merging override kmeans"),
        (["r_grid=[1"], OverrideParseException, "no viable alternative at input '[1'"),
        (["seed=1 kmeans.n_init=2"], OverrideParseException, "mismatched input '='"),
        (["verbosity=loud"], ConfigCompositionException, "Error merging override verbosity"),
        (["-m"], OverrideParseException, "LexerNoViableAltException: -m"),
        (["dataset=synth,orl"], ConfigCompositionException, "To sweep over it, add --multirun"),
    ],
)
def test_bad_input_raises_hydras_error_or_a_config_error(args, error, says, tmp_path):
    with pytest.raises(error, match=re.escape(says)):
        kmdr.run(*overridden(TINY, *args), results_dir=tmp_path / "r")
    assert not (tmp_path / "r").exists() and not (tmp_path / "results").exists()


def test_a_config_folder_that_does_not_exist_is_hydras_warning():
    """What Hydra checks, Hydra reports: a ``hydra.searchpath`` folder that does not exist."""
    missing = "hydra.searchpath=[file:///nonexistent/kmdr_conf]"
    with pytest.warns(UserWarning, match="/nonexistent/kmdr_conf is not available"):
        kmdr.compose(*TINY_EXPERIMENT, missing)


@pytest.mark.slow
def test_import_kmdr_loads_nothing_else():
    code = (
        "import json, sys, kmdr\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('kmdr', 'hydra', 'pandas', 'numpy', 'omegaconf'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # kmdr._native: the standard library only, run before numpy can load OpenBLAS
    assert json.loads(out.stdout) == ["kmdr", "kmdr._native"]


def test_the_facade_names_the_public_api():
    assert kmdr.__version__ == importlib.metadata.version("kmdr")
    assert issubclass(kmdr.ConfigError, ValueError) and issubclass(kmdr.RunError, RuntimeError)
    assert issubclass(kmdr.ResultsError, ValueError)
    assert {"run", "read_results", "__version__"} <= set(dir(kmdr))
    with pytest.raises(AttributeError):
        _ = kmdr.nosuch


@pytest.mark.parametrize(
    ("args", "kwargs", "says"),
    [
        ((), {"results_dir": ""}, "results_dir"),
    ],
)
def test_a_results_dir_that_cannot_be_used_is_refused(tmp_path, args, kwargs, says):
    with pytest.raises(kmdr.ConfigError) as err:
        kmdr.run(*TINY, *args, **kwargs)
    assert "\n" not in str(err.value) and says in str(err.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_an_experiment_object_runs_and_successive_calls_share_one_session(tmp_path):
    from kmdr.engine.session import default_session

    exp = kmdr.compose(*TINY_EXPERIMENT)
    assert isinstance(exp, kmdr.Experiment) and exp.dataset.name == "synth"
    execution, output = kmdr.Execution(n_jobs=1), kmdr.Output(results_dir=str(tmp_path / "o"))
    first = kmdr.run(exp, execution=execution, output=output)
    session = default_session(execution)
    again = kmdr.run(exp, execution=execution, output=output)
    assert default_session(execution) is session and session.open  # no second start-up
    pd.testing.assert_frame_equal(first, again)
    by_strings = kmdr.run(list(TINY), results_dir=tmp_path / "o")
    assert sorted(by_strings["cell_id"]) == sorted(first["cell_id"])  # the same cells, reused


def test_a_preset_is_an_experiment_for_a_notebook():
    exp = kmdr.compose("experiment=bzmd14_orl", "repeats=1")
    assert exp.name == "bzmd14_orl" and exp.repeats == 1 and exp.dataset.name == "orl"
    with pytest.raises(ConfigCompositionException, match="Could not override 'repaets'"):
        kmdr.compose("experiment=bzmd14_orl", "repaets=1")


@pytest.mark.parametrize(
    ("override", "says"),
    [("n_jobs=2", "execution=kmdr.Execution(...)"), ("figures=false", "output=kmdr.Output(...)")],
)
def test_compose_refuses_a_setting_it_does_not_return(override, says):
    with pytest.raises(kmdr.ConfigError) as err:
        kmdr.compose("experiment=bzmd14_orl", override)
    assert str(err.value).startswith(f"{override} sets the run's ") and says in str(err.value)


@pytest.mark.slow
def test_a_run_after_chdir_reuses_the_workers_with_absolute_paths(tmp_path, monkeypatch):
    from kmdr.engine import session, worker

    parallel = [a for a in TINY if not a.startswith("n_jobs=")] + ["n_jobs=2"]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    session.close_default_session()  # this test's first run opens the session
    try:
        monkeypatch.chdir(tmp_path / "a")
        kmdr.run(parallel)
        first = worker._PROCESS.default
        monkeypatch.chdir(tmp_path / "b")
        assert len(kmdr.run([*parallel, "name=second"])) == 4
        assert worker._PROCESS.default is first and first.open  # its workers, reused
    finally:
        session.close_default_session()
    assert (tmp_path / "b" / "my_results" / "second" / "cells.csv").is_file()
    assert not (tmp_path / "a" / "my_results" / "second").exists()


def test_unavailable_data_is_a_run_error_of_one_line(tmp_path, monkeypatch):
    """kmdr.run raises what the command says in its skip line: the run's outcome says why."""
    import kmdr.datasets as datasets
    from kmdr.engine.session import close_default_session

    def unavailable(name, **kwargs):
        raise datasets.DatasetUnavailable(f"{name}: cannot obtain the file (test)")

    close_default_session()  # an earlier test's session holds the data it loaded
    monkeypatch.setattr(datasets, "load_dataset", unavailable)
    with pytest.raises(kmdr.RunError, match=r"^custom skipped: synth: cannot obtain the file"):
        kmdr.run([*TINY, "reducer=sign"], results_dir=tmp_path)
    close_default_session()
