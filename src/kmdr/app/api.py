"""The Python API's :func:`run`: one run of ``kmdr``, from a script or a notebook.

    import kmdr
    cells = kmdr.run(["experiment=bzmd14_orl", "r_grid=[5,10]", "repeats=2"])
    exp = kmdr.compose("experiment=bzmd14_orl", "repeats=1")
    cells = kmdr.run(exp, execution=kmdr.Execution(backend="loky"), results_dir="r")

``experiment`` is an :class:`~kmdr.config.schema.Experiment` or the command line's overrides
(a str or a list of str), composed by Hydra's Compose API against the same primary config and
typed schema, and checked as the command line checks them (:func:`kmdr.app.compose.checked`):
the same cells, the same store, the same record. Successive calls in one process run in one
session (:func:`kmdr.engine.session.default_session`), so the second call pays no start-up. What
differs from the command line is how it ends: the run's cells come back as a DataFrame, and a
problem is an exception rather than an exit status:

- :class:`~kmdr.config.errors.ConfigError` (a ValueError): bad input, before any work, with the
  one line the command prints after ``kmdr: error:``;
- :class:`~kmdr.app.task.RunError` (a RuntimeError): a run that started and failed, or whose
  dataset cannot be obtained; the cells it finished are kept;
- KeyboardInterrupt: the run was stopped; the cells it finished are kept.

Progress: a bar when stderr is a terminal; in a notebook a widget with ``ipywidgets`` (the
``notebook`` extra), else a text bar, and the run's lines go to stdout; elsewhere (a log file) a
start line and a progress line every ``progress_every`` seconds (:mod:`kmdr.engine.progress`;
``progress`` and ``verbosity`` decide otherwise, as on the command line). The run's lines are
records of the ``kmdr`` logger (:mod:`kmdr._log`): shown on stderr unless that logger has a
handler of the caller's (``logging.getLogger("kmdr").addHandler(...)`` sends them elsewhere).
"""

from __future__ import annotations

import os
from pathlib import Path


def _objects(experiment, more: tuple, execution, output, results_dir):
    """The run's :class:`~kmdr.config.schema.Configured`, from an Experiment or overrides, and
    the files a config folder the overrides add supplied (:func:`kmdr.app.compose.composed_job`).

    The objects given win: ``execution=`` gives every Execution setting, ``output=`` every
    Output setting, and ``results_dir=`` the folder, over the Output's and an override's. A
    setting they replace (an override, or the Output's own folder beside ``results_dir=``)
    changes nothing, and warns in one line. A run that names no folder goes where the command
    line's would (:func:`kmdr.app.protocol.default_folder`)."""
    from dataclasses import fields, replace

    from kmdr.app.compose import composed_job
    from kmdr.app.protocol import default_folder
    from kmdr.config.errors import ConfigError, warn_unused
    from kmdr.config.overrides import key, parse
    from kmdr.config.schema import Configured, Execution, Experiment, Output

    for value, cls in ((execution, Execution), (output, Output)):
        if value is not None and not isinstance(value, cls):
            raise ConfigError(
                f"kmdr.run's {cls.__name__.lower()}= takes a kmdr.{cls.__name__}, not "
                f"{value!r} ({type(value).__name__})"
            )
    if isinstance(experiment, Experiment):
        if more:
            raise ConfigError(
                "kmdr.run takes an Experiment or override strings, not both; apply overrides "
                "with kmdr.compose(*overrides)"
            )
        objects, given, files = Configured(experiment, Execution(), Output()), [], {}
    else:
        overrides = [*([experiment] if isinstance(experiment, str) else experiment), *more]
        given = parse(overrides)
        if results_dir is not None and output is None:  # composed once, as the last override
            overrides.append("results_dir='" + os.fspath(results_dir).replace("'", "\\'") + "'")
        objects, files = composed_job(overrides, "kmdr.run")
    wins = {f.name: "execution=" for f in fields(Execution) if execution is not None}
    wins |= {f.name: "output=" for f in fields(Output) if output is not None}
    folder = None if results_dir is None else os.fspath(results_dir)
    if folder is not None:
        wins["results_dir"] = f"results_dir={folder!r}"
    mine = Output.results_dir if output is None else output.results_dir
    replaced = [(o.input_line, wins[k]) for o in given if (k := key(o).split(".")[0]) in wins]
    if folder is not None and mine not in (Output.results_dir, folder):
        replaced.append((f"output=Output(results_dir={mine!r})", wins["results_dir"]))
    for line, what in replaced:
        warn_unused(f"{line} changes nothing: kmdr.run's {what} wins; drop it")
    if folder is None and mine != Output.results_dir:
        folder = mine
    elif folder is None and output is None and "results_dir" in map(key, given):
        folder = objects.output.results_dir
    elif folder is None:  # results/ holds the presets' cells only
        folder = default_folder(objects.experiment)
    output = output or objects.output
    if output.results_dir != folder:
        output = replace(output, results_dir=folder)
    return Configured(objects.experiment, execution or objects.execution, output), files


def compose(*overrides: str):
    """The :class:`~kmdr.config.schema.Experiment` the command line would run with
    ``overrides`` (``kmdr.compose("experiment=bzmd14_orl", "repeats=1")``: a preset with some
    of its settings changed; ``kmdr.compose("dataset=orl", "reducer=sign")``: an experiment of
    your own), composed by Hydra's Compose API and checked as the command line checks it (a
    :class:`~kmdr.config.errors.ConfigError` of one line otherwise). It returns the Experiment
    alone, so an override of an :class:`~kmdr.config.schema.Execution` or
    :class:`~kmdr.config.schema.Output` setting (``backend=loky``) is refused: give those to
    :func:`run` as objects."""
    from dataclasses import fields

    from kmdr.app.compose import compose_job
    from kmdr.config.errors import ConfigError
    from kmdr.config.overrides import key, parse
    from kmdr.config.schema import Execution, Output

    objects = compose_job(list(overrides), "kmdr.compose")  # overrides checked as one job's
    owner = {f.name: cls.__name__ for cls in (Execution, Output) for f in fields(cls)}
    for override in parse(overrides):
        name = owner.get(key(override).split(".")[0])
        if name is not None:
            raise ConfigError(
                f"{override.input_line} sets the run's {name}, and kmdr.compose returns the "
                f"Experiment alone; give it to kmdr.run as {name.lower()}=kmdr.{name}(...)"
            )
    return objects.experiment


def run(
    experiment,
    *overrides: str,
    execution=None,
    output=None,
    results_dir: str | os.PathLike | None = None,
):
    """Run (or resume) one job of ``kmdr`` and return its cells.

    ``experiment``: an :class:`~kmdr.config.schema.Experiment`, or the command line's overrides
    (``"experiment=bzmd14_orl"`` or ``["experiment=bzmd14_orl", "repeats=2"]``; more may follow
    as further arguments); one job per call, no flags. ``execution``/``output``: the
    :class:`~kmdr.config.schema.Execution` and :class:`~kmdr.config.schema.Output` (default:
    those the overrides give, else the defaults). ``results_dir``: where the results go (an empty
    string is refused, as on the command line). Left unset, here and in ``output``, a run outside
    the paper presets goes to ``my_results/``, as on the command line, never into the committed
    ``results/``.

    Returns a pandas DataFrame with one row per cell the run asked for, computed now or reused,
    with the columns of ``cells.csv``; empty for a dry run or a kind without cells. Raises
    :class:`kmdr.ConfigError`, :class:`kmdr.RunError` or KeyboardInterrupt (see the module
    docstring)."""
    from kmdr._log import console, logging_for
    from kmdr.app.callbacks import conclude
    from kmdr.app.task import RunError, execute, finish, skipped_line

    objects, files = _objects(experiment, overrides, execution, output, results_dir)
    with console(), logging_for(objects.output.verbosity):
        outcome, experiment, output = execute(objects, config_files=files)
        if skipped_line(outcome, experiment):
            raise RunError(skipped_line(outcome, experiment))
        if outcome.status == "dry_run":
            return _cells_of(None)
        conclude(finish(outcome, experiment, output))  # figures, as the command's callback draws
    return _cells_of(outcome.experiment_dir, outcome.cell_ids)


def _cells_of(experiment_dir: Path | None, cell_ids=()):
    """The cells ``cell_ids`` (those a run expected), as ``kmdr.read_results`` reads them (its
    ``excluded`` column left out: they are all current), in cells.csv's order."""
    import pandas as pd

    from kmdr.results.reading import EXCLUDED, empty_columns
    from kmdr.results.summary import read_results

    if experiment_dir is None:
        return pd.DataFrame(columns=empty_columns())
    cells = read_results(experiment_dir).drop(columns=EXCLUDED)
    return cells[cells["cell_id"].isin(list(cell_ids))].reset_index(drop=True)
