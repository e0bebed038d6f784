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
from _cases import case
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


@pytest.mark.parametrize(
    ("args", "says"),
    [
        case(['results_dir='], says='results_dir is empty', doing="configure", cause='results_dir= was given no folder; an empty value is refused rather than read as the committed results/', fix='give the folder the results go to: results_dir=my_results', id='an empty results_dir= (would have written into the committed results/)'),
        case(['name=a/b'], says='name must be one folder name', doing="configure", cause="an experiment's name is its folder under results_dir, and a path separator would put it elsewhere", fix='give one folder name: letters, digits and _ . + = -, e.g. name=my_run', id='a name with a path separator (name=a/b)'),
        case(['name=..'], says="got '..'", doing="configure", cause='name=.. would name a folder outside results_dir', fix='give one folder name: letters, digits and _ . + = -, e.g. name=my_run', id='name=.. (a folder outside results_dir)'),
        case(['name="ü"'], says="got 'ü'", doing="configure", cause="an experiment's name is a folder name of letters, digits and _ . + = -, in ASCII", fix='rename it with those characters, e.g. name=u_run', id='a name with characters outside ASCII'),
        case(['results_dir=résultats'], says='LexerNoViableAltException: results_dir=résultats', doing="configure", cause="Hydra's override grammar reads an unquoted value in ASCII only", fix='quote the value: \'results_dir="résultats"\'', id='a non-ASCII value left unquoted (results_dir=résultats)'),
        case(['r_grid=[1,2'], says="no viable alternative at input '[1,2'", doing="configure", cause="Hydra's override grammar could not read the value: a bracket or quote is left open", fix="close it: 'r_grid=[1,2]' (quote the whole override in the shell)", id='an override with an unclosed bracket'),
        case(['kmeans.n_init'], says="Error parsing override 'kmeans.n_init' missing EQUAL", doing="configure", cause="an override is key=value; Hydra's grammar found a key with no = and no value", fix='give the value: kmeans.n_init=5', id='an override without = and a value'),
        case(['seed=a==b'], says="mismatched input '=' expecting <EOF>", doing="configure", cause="Hydra's grammar reads one key=value per argument: a second = (or a second override in one argument, or in one string given to kmdr.run) does not parse", fix='give each override as its own argument: seed=1 repeats=2 (in kmdr.run, one string each)', id='an override with a doubled ='),
        case(['seed=1 repeats=2'], says="mismatched input '=' expecting <EOF>", doing="configure", cause='the same grammar error, for several overrides written in one argument', fix='give each override as its own argument (in kmdr.run, one string each)', id="several overrides in one argument ('seed=1 repeats=2'), or in one string given to kmdr.run"),
        case(['seed=9223372036854775808'], says="'seed' must be <= 9223372036854775807: 9223372036854775808", doing="configure", cause='the seed is kept in a signed 64-bit column of cells.csv', fix='give a seed between 0 and 9223372036854775807', id="a seed too large for the cells' 64-bit column"),
        case(['r_grid=[2.5]'], says="Value '2.5' of type 'float' could not be converted to Integer full_key: r_grid[0]", doing="configure", cause="r_grid's values are numbers of features, whole numbers; the schema types them as integers", fix="give whole numbers: 'r_grid=[2,3]'", id='a fractional r in the r-grid'),
        case(['-m', 'r_grid=10,20'], says='Error merging override r_grid=10 Invalid value assigned: int is not a ListConfig', doing="configure", cause='-m r_grid=10,20 sweeps single numbers, and r_grid is a list in each job', fix="sweep lists: -m 'r_grid=[10],[20]', or give one list: 'r_grid=[10,20]'", id="a sweep of numbers where each job's r-grid is a list (-m r_grid=10,20)"),
        case(['kind=foo'], says="unknown kind 'foo'; valid kinds: cells", doing="configure", cause="kind= names what a run computes, and only the declared kinds exist (cells, and the papers' own)", fix='leave kind at cells, or choose a preset that sets it: experiment=bmd09_fig1', id='an unknown experiment kind'),
        case(['~reducer'], says='reducers must not be empty', doing="configure", cause='a run needs at least one reducer, and ~reducer leaves none', fix="choose one: reducer=sign, or several: 'reducer=[sign,svd]'", id='no reducer'),
        case(['reducers.sign.id=sign2'], says="reducers.sign.id='sign2': an entry's id is its key in reducers", doing="configure", cause="a reducer entry's id is its key in the reducers mapping, which names its cells in cells.csv", fix="key the entry by the id: '+reducers={sign2:{name:sign}}'", id="a reducer entry whose id is not its key"),
        case(['reducer=[sign,svd]', '+reducers.svd.seed_from=nosuch'], says="reducers.svd.seed_from='nosuch' must be the id of another reducer of this experiment, one of: sign", doing="configure", cause="a reducer's seed_from names the id of another reducer of the run, and no entry has that id", fix='name one of the ids the message lists, or drop seed_from', id='a reducer taking its seeds from an id the experiment does not have'),
        case(['reducer=[sign,svd]', '+reducers.sign.seed_from=svd', '+reducers.svd.seed_from=sign'], says="reducers.sign.seed_from='svd' names a reducer that takes its seeds from 'sign'", doing="configure", cause='two reducers take their seeds from each other, so neither has seeds of its own', fix='let one of them take its own seeds: drop its seed_from', id='two reducers taking their seeds from each other'),
        case(['+dataset.params.foo=1'], says="unknown parameters ['foo']", doing="configure", cause="the dataset's loader does not take a parameter of that name", fix="drop it; kmdr-list datasets lists each dataset's parameters", id='a dataset parameter its loader does not take'),
        case(['preset.section=nowhere'], says="preset.section: report section 'nowhere' is unknown; valid report sections:", doing="configure", cause='preset.section names a report section, and no section of that name is declared', fix='choose one of the sections the message lists', id='an unknown report section in the preset metadata'),
        case(['reducer=svd_approx', '+reducers.svd_approx.params.eps=abc'], says="The 'eps' parameter of SVDFeatures must be a float", doing="configure", cause="a reducer's parameter was given a value of the wrong type (its constraints are the reducer's own)", fix='give the type the message names: +reducers.svd_approx.params.eps=0.5', id='a reducer parameter of the wrong type (eps=abc)'),
        case(['reducer=lle', '+reducers.lle.params.n_neighbors=0'], says="'n_neighbors' parameter of LocallyLinearReducer must be an int in the range [1, inf)", doing="configure", cause="a reducer's parameter was given a value outside its range", fix='give a value inside the range the message names', id='a reducer parameter out of its range (n_neighbors=0)'),
        case(['reducer=sign', '+reducers.sign.params.nosuch=1'], says="params ['nosuch'] are invalid for reducer 'sign'", doing="configure", cause="the reducer's constructor has no parameter of that name", fix="drop it; the reducer's docstring lists its parameters", id='a parameter the reducer does not take'),
        case(['reducer=sign', '+reducers.sign.params.random_state=3'], says="reducers.sign.params.random_state: kmdr sets it for each cell from the cell's seed", doing="configure", cause="random_state is set for each cell from seed= (each repetition its own); a reducer's own would repeat one draw", fix='drop it; change seed= to draw other numbers', id="a reducer's random_state given as its parameter (each cell's comes from seed=)"),
        case(['reducer=sign', '+reducers.sign.params.n_components=3'], says='reducers.sign.params.n_components: kmdr sets it for each cell from the r of r_grid', doing="configure", cause='n_components is set for each cell from its r in r_grid', fix='drop it; give the r values with r_grid=[...]', id="a reducer's n_components given as its parameter (each cell's is its r)"),
        case(['reducer=svd', '+reducers.svd.params.eps=0.5'], says="reducers.svd.params.eps=0.5 would not be read: reducer 'svd' reads eps with svd=approximate only (reducer=svd_approx)", doing="configure", cause='the reducer reads that parameter only in another mode (eps only for the approximate SVD), so it would change nothing while its cells would look new', fix='drop it, or choose the reducer that reads it (reducer=svd_approx)', id='a parameter the reducer would not read with the others (eps for the exact SVD of svd, leverage or ridge_leverage)'),
        case(['reducer=sign', 'reducer.params.eps=1'], says="Could not override 'reducer.params.eps'. To append to your config use +reducer.params.eps=1 Key 'reducer' not in 'RunConfig'", doing="configure", cause="reducer= chooses an option of the reducer group; the run's reducers are the mapping reducers, so reducer.params does not exist", fix="set the parameter in the run's entry: +reducers.sign.params.eps=1", id="a reducer's parameter set under the reducer= option (reducer.params.eps=1), as a dataset's is"),
        case(['experiment=bzmd14_synth', 'experiment.repeats=5'], says="Could not override 'experiment.repeats'", doing="configure", cause="experiment= chooses a preset; the preset's keys are the run's own keys, not under experiment.", fix='give the key without the prefix: experiment=bzmd14_synth repeats=5', id="a preset's key set under the experiment= option (experiment.repeats=5)"),
        case(['experiment=bmd09_table1', 'reducer=gaussian'], says='reducer=gaussian is not part of this experiment', doing="configure", cause="with a preset, reducer= keeps that preset's entries of the reducer, and the preset has none of it", fix='choose one of the reducers the message lists, or drop experiment= to run that reducer on its own', id='a reducer that is not part of the chosen preset'),
        case(['-m', 'seed=interval(0,1)'], says='BasicSweeper does not support sweep type : INTERVAL_SWEEP', doing="configure", cause="Hydra's basic sweeper sweeps lists, ranges and globs, not intervals (an optimising sweeper, such as Optuna's, samples them)", fix='sweep a list or range(...), or choose the Optuna sweeper: hydra/sweeper=optuna', id='an interval sweep without a sweeper plugin'),
        case(['--cfg', 'job', 'r_grid=[1'], says="no viable alternative at input '[1'", doing="configure", cause='--cfg job prints the config Hydra composes, and an override that does not parse stops it', fix="fix the override: 'r_grid=[1]'", id='--cfg job with an override that does not parse'),
        case(['repeats=-1'], says="'repeats' must be >= 1: -1", doing="configure", cause='repeats is the number of repetitions of each cell: at least 1', fix='give repeats=1 or more', id='a negative number of repetitions'),
        case(['kmeans.max_iter=0'], says="'kmeans.max_iter' must be >= 1: 0", doing="configure", cause='kmeans.max_iter is the number of Lloyd iterations per start: at least 1', fix='give kmeans.max_iter=1 or more (500 is the default)', id='zero k-means iterations (kmeans.max_iter=0)'),
        case(['leverage.r=0'], says="'leverage.r' must be >= 1: 0", doing="configure", cause="leverage.r is the number of columns bmd09 Figure 1's sample draws: at least 1", fix='give leverage.r=1 or more (30 is the default)', id='zero columns for the leverage-score figure (leverage.r=0)'),
        case(['dataset.params.n_samples=1.5'], says="Value '1.5' of type 'float' could not be converted to Integer full_key: dataset.params.n_samples", doing="configure", cause="a generated dataset's parameters are typed; n_samples is a whole number of rows", fix='give a whole number: dataset.params.n_samples=150', id="a fraction for a generator's typed parameter (synth n_samples=1.5)"),
        case(['dataset.params.n_samples=many'], says="Value 'many' of type 'str' could not be converted to Integer full_key: dataset.params.n_samples", doing="configure", cause="a generated dataset's parameters are typed; n_samples is a number of rows", fix='give a number: dataset.params.n_samples=150', id="a word for a generator's typed parameter (synth n_samples=many)"),
        case(['kmeans.tol=abc'], says="Value 'abc' of type 'str' could not be converted to Float full_key: kmeans.tol", doing="configure", cause='kmeans.tol is a number (0: stop when no label changes)', fix='give a number: kmeans.tol=1e-4', id='a word for the k-means tolerance'),
        case(['name='], says="got ''", doing="configure", cause="an experiment's name is its folder under results_dir, and name= gives none", fix='give a name: name=my_run (or leave name out: custom)', id='an empty experiment name (name=)'),
        case(['experiment=bzmd14_orl', 'reducer=nosuch'], says="Could not find 'reducer/nosuch' Available options in 'reducer':", doing="configure", cause='the reducer option chosen beside the preset is not a declared reducer', fix='choose a reducer the message lists; kmdr-list reducers describes them', id='an unknown reducer chosen inside a preset'),
        case(['blas_threads=-1'], says="'blas_threads' must be >= 1: -1", doing="configure", cause='blas_threads is the BLAS/OpenMP threads of each worker: at least 1', fix='give blas_threads=1 or more', id='a negative number of BLAS threads'),
        case(['backend=threading', 'n_jobs=2', 'blas_threads=2'], says='blas_threads=2 with backend=threading and n_jobs=2', doing="configure", cause="the threading backend's workers are threads of one process that share one BLAS thread count, so a cell's numbers would depend on the other threads", fix='use blas_threads=1, n_jobs=1, or backend=loky', id='more than one BLAS thread per worker thread of the threading backend (they share one count)'),
        case(['n_jobs=abc'], says="Value 'abc' of type 'str' could not be converted to Integer full_key: n_jobs", doing="configure", cause='n_jobs is a number of workers (-1: as many as the cores hold)', fix='give a whole number: n_jobs=4 or n_jobs=-1', id='a word for the number of workers'),
        case(['-cn', 'nosuch'], says="Cannot find primary config 'nosuch'", doing="configure", cause="-cn names the primary config, and no config of that name is in kmdr's or the -cd folder", fix="leave -cn out (kmdr's config), or name a config of your -cd folder", id='a primary config name that does not exist (-cn nosuch)'),
        case(['hydra/launcher=nosuch'], says="Could not find 'hydra/launcher/nosuch'", doing="configure", cause="hydra/launcher= chooses one of Hydra's installed launchers, and none has that name", fix="choose one the message lists, or install its plug-in (pip install 'kmdr[joblib-launcher]')", id='an unknown Hydra launcher'),
        case(['dataset='], says="Could not find 'dataset/' Available options in 'dataset':", doing="configure", cause='dataset= was given no option', fix='choose a dataset the message lists: dataset=orl', id='an empty dataset choice (dataset=)'),
        case(['experiment=null'], says='ValueError: Config group override must be a string or a list. Got NoneType', doing="configure", cause="Hydra's grammar reads experiment=null as a null value, which a config group does not take", fix='leave experiment= out to run no preset, or choose one: experiment=bzmd14_orl', id="a config group set to null on the command line (experiment=null, as the primary config's defaults list writes no preset)"),
        case(['dataset=synth', 'dataset.name=orl'], says="dataset.name is 'orl' but the dataset option chosen is 'synth', whose params it keeps; choose the dataset with dataset=orl", doing="configure", cause="dataset.name renames the dataset option chosen and keeps its params, which would be read as the other dataset's", fix='choose the dataset with its option: dataset=orl', id='a dataset chosen by its name key (dataset.name=orl) rather than its option'),
        case(['dataset=1'], says='ValueError: Config group override must be a string or a list. Got int', doing="configure", cause="a config group takes an option's name, and a number is read as a number", fix='choose a dataset by name: dataset=orl (kmdr-list datasets)', id='a config group given a number (dataset=1)'),
        case(['-m', 'reducer=null,sign'], says='ValueError: Config group override must be a string or a list. Got NoneType', doing="configure", cause="a sweep over a config group lists options' names, and null is none", fix='list options only: -m reducer=sign,svd', id="a config group's sweep with a null among its values (-m reducer=null,sign)"),
        case(['~dataset'], says='no dataset is set; choose one with dataset=<name>', doing="configure", cause='~dataset deletes the dataset, and a run needs one', fix='choose one: dataset=orl', id='the dataset deleted from the config (~dataset)'),
        case(['leverage.reducer=svd'], says="Invalid value 'svd', expected one of [leverage, leverage_approx] full_key: leverage.reducer", doing="configure", cause='leverage.reducer is the sampler of bmd09 Figure 1: leverage or leverage_approx', fix='give one of the two: leverage.reducer=leverage_approx', id='a sampler the leverage-score figure does not have'),
        case(['reducer=lle', '+reducers.lle.params.n_neighbors=500'], says='n_neighbors=500 is invalid for X with n_samples=60', doing="configure", cause='lle takes at most as many neighbours as the data has rows (less one)', fix='give fewer neighbours: +reducers.lle.params.n_neighbors=10', id='more neighbours than the data has rows for lle (n_neighbors=500 on 60 rows)'),
        case(['reducer=laplacian', '+reducers.laplacian.params.n_neighbors=60'], says='n_neighbors=60 is invalid for X with n_samples=60', doing="configure", cause='laplacian takes fewer neighbours than the data has rows', fix='give fewer neighbours: +reducers.laplacian.params.n_neighbors=10', id='more neighbours than the data has rows for laplacian (n_neighbors=60 on 60 rows)'),
        case(['+preset.foo=1'], says="Key 'foo' not in 'PresetConfig' full_key: preset.foo", doing="configure", cause='the preset block has a fixed set of keys (paper, title, figure, section, order, reproduce, note)', fix="set one of those keys: preset.title='My run'", id='an unknown preset metadata key added with +'),
        case(['experiment=bzmd14_synth', '+preset.foo=1'], says="Key 'foo' not in 'PresetConfig' full_key: preset.foo", doing="configure", cause="the preset block has a fixed set of keys, in a preset's block as in your own", fix="set one of those keys: preset.title='My run'", id="an unknown preset metadata key added to a preset's (once a TypeError under Hydra's own error line)"),
        case(['preset.order=1.5'], says="Value '1.5' of type 'float' could not be converted to Integer full_key: preset.order", doing="configure", cause="preset.order is a whole number (the preset's place in make reproduce and the report)", fix='give a whole number: preset.order=30', id='a fractional preset order'),
        case(['-m', 'dataset=orl,nosuch'], says="Could not find 'dataset/nosuch'", doing="configure", cause='a sweep composes every job before any runs, and one of its values names no option', fix='fix the value: kmdr-list datasets lists the datasets', id='an unknown dataset among the values of a sweep (dataset=orl,nosuch)'),
        case(['dataset=orl,nosuch'], says='To sweep over it, add --multirun', doing="configure", cause='a comma-separated value is a sweep, which only a multirun runs', fix="add -m to run one job per value: -m dataset=orl,nosuch (a run takes one dataset)", id='a sweep without -m (dataset=orl,nosuch)'),
        case(['-cd', '/nonexistent/kmdr_conf'], says="Additional config directory '/nonexistent/kmdr_conf' not found", doing="configure", cause='-cd names a folder of your own configs, and that folder does not exist', fix='give the path of an existing folder, e.g. -cd my_conf', id='-cd to a folder that does not exist'),
    ],
)  # fmt: skip
@pytest.mark.slow
def test_bad_command_line_is_one_line_before_any_work(args, says, tmp_path, capsys):
    # flags (and their values) first, then the overrides
    n_flags = {"-cd": 2, "-cn": 2, "--cfg": 2, "-m": 1}.get(args[0], 0)
    head, rest = args[:n_flags], args[n_flags:]
    argv = [*head, *overridden([*TINY, f"results_dir={tmp_path / 'results'}"], *rest)]
    line = fails_with(argv, capsys)
    assert says in line
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
    assert f"results_dir={target} cannot be written (" in line, line  # the first write's error
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
    assert "cannot be written (Permission denied" in line, line


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
    status = command.exit_status(command.kmdr, argv)
    err = capsys.readouterr().err
    assert status == 0, err
    return err


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
