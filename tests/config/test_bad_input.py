# ruff: noqa: E501  (one bad-input case per line reads best)
"""Bad input a user's hands produce, through the real entry points: ``kmdr`` (in this process, and
as the installed command where its exact stderr matters), ``kmdr-figures`` and ``kmdr-report``.
Each case gets a correct result or ONE line naming the problem and the fix, before any work,
with nothing written; never a traceback. Also: a preset run that changes what the preset fixes
never lands in the preset's folder."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pandas as pd
import pytest

import _command as command
from _overrides import overridden, refusal
from kmdr.config import presets
from kmdr.figures import draw as figures
from kmdr.report import build

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
KMDR = [sys.executable, "-c", "import sys; from kmdr.app import main; sys.exit(main())"]


def fails_with(argv, capsys) -> str:
    """``kmdr argv`` in this process, refused before any work: its message on one line."""
    with pytest.raises(SystemExit) as exc:
        command.kmdr(argv)
    out = capsys.readouterr()
    return refusal(exc.value.code, out.err, out.out)


def case(args, expected, what, gets="exit 2 before any work, one line naming it and the fix"):
    """One row: the overrides, the text asserted, and the case and its outcome as the test's id."""
    return pytest.param(args, expected, id=f"{what}: {gets}")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        case(["results_dir="], "results_dir is empty", "an empty results_dir= (would have written into the committed results/)"),
        case(["name=a/b"], "name must be one folder name", "a name with a path separator (name=a/b)"),
        case(["name=.."], "got '..'", "name=.. (a folder outside results_dir)"),
        case(['name="ü"'], "got 'ü'", "a name with characters outside ASCII"),
        case(["results_dir=résultats"], "LexerNoViableAltException: results_dir=résultats", "a non-ASCII value left unquoted (results_dir=résultats)", gets="exit 2, one line giving the quoted override to type"),
        case(["r_grid=[1,2"], "no viable alternative at input '[1,2'", "an override with an unclosed bracket"),
        case(["kmeans.n_init"], "Error parsing override 'kmeans.n_init' missing EQUAL", "an override without = and a value"),
        case(["seed=a==b"], "mismatched input '=' expecting <EOF>", "an override with a doubled ="),
        case(["seed=1 repeats=2"], "mismatched input '=' expecting <EOF>", "several overrides in one argument ('seed=1 repeats=2'), or in one string given to kmdr.run", gets="exit 2 (kmdr.ConfigError), one line listing them to give one by one"),
        case(["seed=9223372036854775808"], "The 'seed' parameter of Experiment must be an int in the range [0, 9223372036854775807]", "a seed too large for the cells' 64-bit column"),
        case(["r_grid=[2.5]"], "Value '2.5' of type 'float' could not be converted to Integer full_key: r_grid[0]", "a fractional r in the r-grid"),
        case(["-m", "r_grid=10,20"], "Error merging override r_grid=10 Invalid value assigned: int is not a ListConfig", "a sweep of numbers where each job's r-grid is a list (-m r_grid=10,20)"),
        case(["kind=foo"], "unknown kind 'foo'; valid kinds: cells", "an unknown experiment kind"),
        case(["reducers=[]"], "reducers must be a non-empty list", "an empty reducer list"),
        case(["reducers=[{name:sign},{name:sign}]"], "reducer ids must be unique", "two reducers with the same id"),
        case(["reducers=[{name:sign},{name:svd,seed_from:nosuch}]"], "reducers.svd.seed_from='nosuch' must be the id of another reducer of this experiment, one of: sign", "a reducer taking its seeds from an id the experiment does not have"),
        case(["reducers=[{name:sign,seed_from:svd},{name:svd,seed_from:sign}]"], "reducers.sign.seed_from='svd' names a reducer that takes its seeds from 'sign'", "two reducers taking their seeds from each other"),
        case(["+dataset.params.foo=1"], "unknown parameters ['foo']", "a dataset parameter its loader does not take"),
        case(["preset.section=nowhere"], "preset.section: report section 'nowhere' is unknown; valid report sections:", "an unknown report section in the preset metadata"),
        case(["reducer=svd_approx", "+reducers.0.params.eps=abc"], "The 'eps' parameter of SVDFeatures must be a float", "a reducer parameter of the wrong type (eps=abc)"),
        case(["reducer=lle", "+reducers.0.params.n_neighbors=0"], "'n_neighbors' parameter of LocallyLinearReducer must be an int in the range [1, inf)", "a reducer parameter out of its range (n_neighbors=0)"),
        case(["reducer=sign", "+reducers.0.params.nosuch=1"], "params ['nosuch'] are invalid for reducer 'sign'", "a parameter the reducer does not take"),
        case(["reducer=sign", "+reducers.0.params.random_state=3"], "reducers.sign.params.random_state: kmdr sets it for each cell from the cell's seed", "a reducer's random_state given as its parameter (each cell's comes from seed=)", gets="exit 2 before any work, one line naming where it comes from (once each cell failed in its worker)"),
        case(["reducer=sign", "+reducers.0.params.n_components=3"], "reducers.sign.params.n_components: kmdr sets it for each cell from the r of r_grid", "a reducer's n_components given as its parameter (each cell's is its r)", gets="exit 2 before any work, one line naming where it comes from"),
        case(["reducer=svd", "+reducers.0.params.eps=0.5"], "reducers.svd.params.eps=0.5 would not be read: reducer 'svd' reads eps with svd=approximate only (reducer=svd_approx)", "a parameter the reducer would not read with the others (eps for the exact SVD of svd, leverage or ridge_leverage)", gets="exit 2 before any work, one line naming the reducer that reads it (once it made new cells with the same numbers)"),
        case(["reducer=sign", "reducer.params.eps=1"], "Could not override 'reducer.params.eps'. To append to your config use +reducer.params.eps=1 Key 'reducer' not in 'RunConfig'", "a reducer's parameter set under the reducer= option (reducer.params.eps=1), as a dataset's is", gets="exit 2 before any work, one line saying how a reducer's parameter is set"),
        case(["experiment=bzmd14_synth", "experiment.repeats=5"], "Could not override 'experiment.repeats'", "a preset's key set under the experiment= option (experiment.repeats=5)", gets="exit 2 before any work, one line saying to give it without the prefix"),
        case(["experiment=bmd09_table1", "reducer=gaussian"], "reducer=gaussian is not part of this experiment", "a reducer that is not part of the chosen preset"),
        case(["-m", "seed=interval(0,1)"], "BasicSweeper does not support sweep type : INTERVAL_SWEEP", "an interval sweep without a sweeper plugin"),
        case(["--cfg", "job", "r_grid=[1"], "no viable alternative at input '[1'", "--cfg job with an override that does not parse"),
        case(["repeats=-1"], "The 'repeats' parameter of Experiment must be an int in the range [1, inf). Got -1", "a negative number of repetitions"),
        case(["kmeans.max_iter=0"], "The 'max_iter' parameter of kmeans must be an int in the range [1, inf). Got 0", "zero k-means iterations (kmeans.max_iter=0)"),
        case(["leverage.r=0"], "The 'r' parameter of leverage must be an int in the range [1, inf). Got 0", "zero columns for the leverage-score figure (leverage.r=0)"),
        case(["dataset.params.n_samples=1.5"], "Value '1.5' of type 'float' could not be converted to Integer full_key: dataset.params.n_samples", "a fraction for a generator's typed parameter (synth n_samples=1.5)", gets="Hydra's error naming the key, exit 1, before any work"),
        case(["dataset.params.n_samples=many"], "Value 'many' of type 'str' could not be converted to Integer full_key: dataset.params.n_samples", "a word for a generator's typed parameter (synth n_samples=many)", gets="Hydra's error naming the key, exit 1, before any work"),
        case(["kmeans.tol=abc"], "Value 'abc' of type 'str' could not be converted to Float full_key: kmeans.tol", "a word for the k-means tolerance"),
        case(["name="], "got ''", "an empty experiment name (name=)"),
        case(["experiment=bzmd14_orl", "reducer=nosuch"], "Could not find 'reducer/nosuch' Available options in 'reducer':", "an unknown reducer chosen inside a preset"),
        case(["blas_threads=-1"], "The 'blas_threads' parameter of Experiment must be an int in the range [1, inf). Got -1", "a negative number of BLAS threads"),
        case(["backend=threading", "n_jobs=2", "blas_threads=2"], "blas_threads=2 with backend=threading and n_jobs=2", "more than one BLAS thread per worker thread of the threading backend (they share one count)"),
        case(["n_jobs=abc"], "Value 'abc' of type 'str' could not be converted to Integer full_key: n_jobs", "a word for the number of workers"),
        case(["-cn", "nosuch"], "Cannot find primary config 'nosuch'", "a primary config name that does not exist (-cn nosuch)"),
        case(["hydra/launcher=nosuch"], "Could not find 'hydra/launcher/nosuch'", "an unknown Hydra launcher", gets="exit 2 before any work, one line listing the available launchers"),
        case(["dataset="], "Could not find 'dataset/' Available options in 'dataset':", "an empty dataset choice (dataset=)"),
        case(["experiment=null"], "ValueError: Config group override must be a string or a list. Got NoneType", "a config group set to null on the command line (experiment=null, as the primary config's defaults list writes no preset)", gets="exit 2 before any work, one line naming how to choose an option or none (once Hydra's ValueError with exit status 1)"),
        case(["dataset=synth", "dataset.name=orl"], "dataset.name is 'orl' but the dataset option chosen is 'synth', whose params it keeps; choose the dataset with dataset=orl", "a dataset chosen by its name key (dataset.name=orl) rather than its option", gets="exit 2 before any work, one line naming the option to give (once the synth option's params were read as orl's, or the run ran a dataset its record's choices did not name)"),
        case(["dataset=1"], "ValueError: Config group override must be a string or a list. Got int", "a config group given a number (dataset=1)", gets="exit 2 before any work, one line naming how to choose an option (once Hydra's ValueError with exit status 1)"),
        case(["-m", "reducer=null,sign"], "ValueError: Config group override must be a string or a list. Got NoneType", "a config group's sweep with a null among its values (-m reducer=null,sign)"),
        case(["~dataset"], "no dataset is set; choose one with dataset=<name>", "the dataset deleted from the config (~dataset)"),
        case(["leverage.reducer=svd"], "Invalid value 'svd', expected one of [leverage, leverage_approx] full_key: leverage.reducer", "a sampler the leverage-score figure does not have"),
        case(["reducer=lle", "+reducers.0.params.n_neighbors=500"], "n_neighbors=500 is invalid for X with n_samples=60", "more neighbours than the data has rows for lle (n_neighbors=500 on 60 rows)", gets="exit 2 before any work, one line naming it and the range (once the run's first cell failed)"),
        case(["reducer=laplacian", "+reducers.0.params.n_neighbors=60"], "n_neighbors=60 is invalid for X with n_samples=60", "more neighbours than the data has rows for laplacian (n_neighbors=60 on 60 rows)", gets="exit 2 before any work, one line naming it and the range (once the run's first cell failed)"),
        case(["+preset.foo=1"], "Key 'foo' not in 'PresetConfig' full_key: preset.foo", "an unknown preset metadata key added with +"),
        case(["experiment=bzmd14_synth", "+preset.foo=1"], "Key 'foo' not in 'PresetConfig' full_key: preset.foo", "an unknown preset metadata key added to a preset's (once a TypeError under Hydra's own error line)"),
        case(["preset.order=1.5"], "Value '1.5' of type 'float' could not be converted to Integer full_key: preset.order", "a fractional preset order"),
        case(["-m", "dataset=orl,nosuch"], "Could not find 'dataset/nosuch'", "an unknown dataset among the values of a sweep (dataset=orl,nosuch)", gets="exit 2 before any job runs (Hydra's sweeper composes every job first), one line"),
        case(["dataset=orl,nosuch"], "To sweep over it, add --multirun", "a sweep without -m (dataset=orl,nosuch)", gets="exit 2 before any work, one line saying how to write a list, a string or a sweep"),
        case(["-cd", "/nonexistent/kmdr_conf"], "Additional config directory '/nonexistent/kmdr_conf' not found", "-cd to a folder that does not exist"),
    ],
)  # fmt: skip
@pytest.mark.slow
def test_bad_command_line_is_one_line_before_any_work(args, expected, tmp_path, capsys):
    # flags (and their values) first, then the overrides
    n_flags = {"-cd": 2, "-cn": 2, "--cfg": 2, "-m": 1}.get(args[0], 0)
    head, rest = args[:n_flags], args[n_flags:]
    argv = [*head, *overridden([*TINY, f"results_dir={tmp_path / 'results'}"], *rest)]
    line = fails_with(argv, capsys)
    assert expected in line
    assert not (tmp_path / "results").exists() and not Path("résultats").exists()


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (["kind=sampling_lemma", "r_grid=[2]"], "the sampling lemma"),
        (["kind=leverage_scores"], "leverage scores"),
    ],
)
@pytest.mark.slow
def test_a_kind_checks_the_data_it_runs_on(args, what, tmp_path, capsys):
    data = ["dataset=synth", "+dataset.params={n_samples:60,n_features:4,n_clusters:5}"]
    line = fails_with([*overridden(data, *args), f"results_dir={tmp_path / 'r'}"], capsys)
    assert line.endswith(f"k=5 is too large for {what} on synth (n=60, d=4, k=5)"), line
    assert not (tmp_path / "r").exists()


def test_cd_to_a_file(tmp_path, capsys):
    (tmp_path / "conf.yaml").write_text("x: 1\n")
    line = fails_with(["-cd", str(tmp_path / "conf.yaml"), *TINY], capsys)
    assert f"Additional config directory '{tmp_path / 'conf.yaml'}' not found" in line


@pytest.mark.parametrize(
    "where",
    [
        pytest.param(
            "file",
        ),
        pytest.param(
            "under_file",
        ),
    ],
)
def test_results_dir_that_cannot_be_a_folder(where, tmp_path, capsys):
    blocker = tmp_path / "taken"
    blocker.write_text("not a folder\n")
    target = blocker if where == "file" else blocker / "sub"
    line = fails_with([*TINY, f"results_dir={target}"], capsys)
    assert ("is a file, not a folder" if where == "file" else f"{blocker} is a file") in line
    assert blocker.read_text() == "not a folder\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into any folder")
def test_results_dir_not_writable(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        line = fails_with([*TINY, f"results_dir={locked / 'results'}"], capsys)
    finally:
        locked.chmod(0o700)
    assert "is not writable" in line


@pytest.fixture
def conf_copy(tmp_path, monkeypatch):
    conf = tmp_path / "conf"
    shutil.copytree(presets.conf_dir(), conf)
    monkeypatch.setenv(presets.CONF_ENV, str(conf))
    return conf


@pytest.mark.parametrize(
    ("file", "text", "line_no"),
    [
        pytest.param(
            "experiment/broken.yaml",
            "# @package _global_\nname: broken\nr_grid: [5, 10\n",
            4,
        ),
        pytest.param(
            "dataset/synth.yaml",
            "name: synth\nparams: {seed: 0\n",
            3,
        ),
        pytest.param(
            "experiment/broken.yaml",
            "# @package _global_\nname: broken\nrepeats: 2\n  kind: cells\n",
            4,
        ),
    ],
)
def test_yaml_syntax_error_is_one_line(file, text, line_no, conf_copy, tmp_path, capsys):
    (conf_copy / file).write_text(text)
    args = ["experiment=broken"] if file.startswith("experiment") else []
    line = fails_with([*args, *TINY[1:], f"results_dir={tmp_path / 'r'}"], capsys)
    assert f'{file}", line {line_no}, column' in line  # YAML's error, as Hydra prints it
    assert not (tmp_path / "r").exists()


def test_yaml_error_in_users_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_conf" / "experiment").mkdir(parents=True)
    (tmp_path / "my_conf" / "experiment" / "mine.yaml").write_text("name: [mine\n")
    line = fails_with(["-cd", str(tmp_path / "my_conf"), "experiment=mine"], capsys)
    assert 'mine.yaml", line 2, column' in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my_conf"]


@pytest.mark.slow
def test_non_ascii_results_dir_quoted_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _run_in_process(
        [*TINY[:-2], "progress=false", "reducer=sign", 'results_dir="résultats ü"'], capsys
    )
    exp = tmp_path / "résultats ü" / "custom"
    assert len(pd.read_csv(exp / "cells.csv")) == 2
    assert (exp / "summary.csv").exists() and list((exp / "figures").glob("*.png"))


def _run_in_process(argv, capsys):
    try:
        command.kmdr(argv)
    except SystemExit as exc:
        assert exc.code in (None, 0), capsys.readouterr().err
    return capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# kmdr-figures and kmdr-report on bad folders


def _results_with_one_damaged(tmp_path) -> Path:
    """Two small finished experiments and a third whose cells.csv is damaged."""
    root = tmp_path / "results"
    for name in ("first", "third"):
        argv = [*TINY[:-2], "progress=false", "reducer=sign", f"name={name}", f"results_dir={root}"]
        command.kmdr(argv)
    (root / "second").mkdir()
    (root / "second" / "cells.csv").write_text('reducer,r\nsign,"5\n')
    return root


@pytest.fixture
def damaged_results(tmp_path, capsys):
    root = _results_with_one_damaged(tmp_path)
    capsys.readouterr()
    return root


@pytest.mark.slow
def test_report_names_a_damaged_folder_and_reports_the_others(damaged_results, capsys):
    assert build.main([str(damaged_results)]) == 0
    out = capsys.readouterr()
    assert "Traceback" not in out.err + out.out
    named = [ln for ln in out.err.splitlines() if "second/cells.csv" in ln]
    assert len(named) == 1 and "not read" in named[0], out.err
    text = (damaged_results / "REPORT.md").read_text()
    for name in ("first", "second", "third"):
        assert f"`{name}`" in text, name


@pytest.mark.slow
def test_figures_names_a_damaged_folder_and_draws_the_others(damaged_results, capsys):
    assert figures.main([str(damaged_results)]) == 0
    out = capsys.readouterr()
    assert "Traceback" not in out.err + out.out
    assert [ln for ln in out.err.splitlines() if "second/cells.csv" in ln], out.err
    for name in ("first", "third"):
        assert list((damaged_results / name / "figures").glob("*.png")), name
    assert not (damaged_results / "second" / "figures").exists()


@pytest.mark.slow
def test_figures_refuses_an_experiment_it_does_not_hold(damaged_results, capsys):
    for drawn in damaged_results.glob("*/figures"):
        shutil.rmtree(drawn)
    assert figures.main([str(damaged_results), "first", "thrid"]) == 2
    out = capsys.readouterr()
    assert out.err.count("\n") == 1 and "Traceback" not in out.err
    assert f"no experiment folder {damaged_results / 'thrid'}; the experiments under" in out.err
    assert "first, second, third" in out.err
    assert not list(damaged_results.glob("*/figures"))


@pytest.mark.parametrize(
    ("tool", "where"),
    [
        pytest.param(
            build.main,
            "missing",
        ),
        pytest.param(
            build.main,
            "empty",
        ),
        pytest.param(
            build.main,
            "file",
        ),
        pytest.param(
            figures.main,
            "missing",
        ),
        pytest.param(
            figures.main,
            "empty",
        ),
    ],
)
def test_report_and_figures_on_a_wrong_folder(tool, where, tmp_path, capsys):
    target = tmp_path / "resutls"
    if where == "empty":
        target.mkdir()
    elif where == "file":
        target.write_text("x\n")
    assert tool([str(target)]) == 2
    out = capsys.readouterr()
    assert out.err.count("\n") == 1 and ": error: " in out.err and "Traceback" not in out.err
    if where == "missing":
        assert not target.exists()
    elif where == "empty":
        assert list(target.iterdir()) == []
    else:
        assert target.read_text() == "x\n"
