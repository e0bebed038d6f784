"""The Python API's :func:`run`: one run of ``kmdr``, from a script or a notebook.

    import kmdr
    cells = kmdr.run(["experiment=bzmd14_orl", "r_grid=[5,10]", "repeats=2"])
    exp = kmdr.Experiment.preset("bzmd14_orl", "repeats=1")
    cells = kmdr.run(exp, execution=kmdr.Execution(n_jobs=2), output=kmdr.Output(results_dir="r"))

``experiment`` is an :class:`~kmdr.config.objects.Experiment` or the command line's overrides
(a str or a list of str), composed by Hydra's Compose API against the same primary config and
typed schema, and checked as the command line checks them (:func:`kmdr.config.objects.checked`):
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
``progress`` and ``verbosity`` decide otherwise, as on the command line).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["run"]


def _composed(experiment, more: tuple, execution, output, results_dir):
    """The run's :class:`~kmdr.config.objects.Composed`, from an Experiment or overrides. Every
    setting given is used or refused: one given both ways (an override and the ``execution=``
    or ``output=`` object, or ``results_dir`` beside ``output=``) is one ConfigError line."""
    from dataclasses import replace

    from kmdr.config.errors import ConfigError
    from kmdr.config.objects import (
        Composed,
        Execution,
        Experiment,
        Output,
        compose_job,
        flat_dict,
    )
    from kmdr.config.overrides import key, one_job, parse
    from kmdr.config.schema import default_results_dir

    for value, kind, word in ((execution, Execution, "execution"), (output, Output, "output")):
        if value is not None and not isinstance(value, kind):
            raise ConfigError(
                f"kmdr.run's {word}= takes a kmdr.{kind.__name__}, not {value!r} "
                f"({type(value).__name__})"
            )
    if results_dir is not None:
        text = os.fspath(results_dir)  # "" stays "" (Path("") would be "."), refused as such
        if output is not None and output.results_dir != text:
            raise ConfigError(
                f"results_dir is given twice (output=Output(results_dir={output.results_dir!r}) "
                f"and results_dir={text!r}); give it once"
            )
        output = replace(output, results_dir=text) if output is not None else None
    if isinstance(experiment, Experiment):
        if more:
            raise ConfigError(
                "kmdr.run takes an Experiment or override strings, not both; apply overrides "
                "with kmdr.Experiment.preset(name, *overrides) or .from_overrides([...])"
            )
        check_preset_name(experiment)
        execution = execution if execution is not None else Execution()
        if output is None:
            reproduce = (experiment.preset_settings or {}).get("reproduce")
            output = Output(
                results_dir=text if results_dir is not None else default_results_dir(reproduce)
            )
        record = flat_dict(experiment, execution, output)
        return Composed(experiment, execution, output, record=record)
    first = [experiment] if isinstance(experiment, str) else experiment
    if not isinstance(first, list | tuple):
        first = [first]
    overrides = one_job([*first, *more], "kmdr.run")
    keys = {key(o).split(".")[0] for o in parse(overrides)}
    for value, word in ((execution, "execution"), (output, "output")):
        both = sorted(keys & _config_keys(value))
        if both:
            given = (
                "is given both as an override" if len(both) == 1 else "are given both as overrides"
            )
            raise ConfigError(
                f"{', '.join(both)} {given} and in kmdr.run's {word}= ({type(value).__name__}); "
                "give each once"
            )
    if results_dir is not None and output is None:
        given = [o for o in overrides if o.startswith("results_dir=")]
        if given:
            raise ConfigError(
                f"results_dir is given twice ({given[0]!r} and results_dir={text!r}); give it once"
            )
        overrides.append(f"results_dir={_quoted(text)}")
    composed = compose_job(overrides)
    if execution is not None:
        composed = replace(composed, execution=execution)
    if output is not None:
        composed = replace(composed, output=output)
    return composed


def _config_keys(obj) -> set[str]:
    """The top-level config keys the fields of ``obj`` (an Execution or Output, or None) hold."""
    from dataclasses import fields

    from kmdr.config.objects import CONFIG_KEYS

    if obj is None:
        return set()
    return {CONFIG_KEYS.get(f.name, f.name).split(".")[0] for f in fields(obj)}


def check_preset_name(experiment) -> None:
    """An Experiment built in Python under the name of a preset is that preset's experiment
    (another r-grid, other repetitions, seed or k-means settings, or some of its reducers), never
    another dataset's or protocol's: a preset's folder holds only the preset's cells. One
    ConfigError line otherwise, naming what differs and the fix. (The command line and
    :meth:`~kmdr.config.objects.Experiment.preset` give such a run a folder of its own.)"""
    from dataclasses import fields

    from kmdr.config.errors import ConfigError
    from kmdr.config.objects import CONFIG_KEYS, Experiment
    from kmdr.config.presets import PRESET_FIXES, group_options, initialized

    with initialized():
        if experiment.name not in group_options("experiment"):
            return
    preset = Experiment.preset(experiment.name)
    # what the preset fixes (its config keys), as the Experiment's fields; a subset of its
    # reducers is still the preset's experiment (reducer=<one of them> on the command line)
    fixed = [
        f.name
        for f in fields(Experiment)
        if CONFIG_KEYS.get(f.name, f.name).split(".")[0] in PRESET_FIXES and f.name != "reducers"
    ]
    differ = [name for name in fixed if getattr(experiment, name) != getattr(preset, name)]
    if any(reducer not in preset.reducers for reducer in experiment.reducers):
        differ.append("reducers")
    if differ:
        raise ConfigError(
            f"this Experiment has the name of the preset {experiment.name} but another "
            f"{', '.join(differ)}, and a preset's folder holds only its own experiment; give it "
            f"a name of its own (dataclasses.replace(experiment, name=...)) or build it with "
            f"kmdr.Experiment.preset({experiment.name!r}, ...), which names its folder"
        )


def run(
    experiment,
    *overrides: str,
    execution=None,
    output=None,
    results_dir: str | os.PathLike | None = None,
):
    """Run (or resume) one job of ``kmdr`` and return its cells.

    ``experiment``: an :class:`~kmdr.config.objects.Experiment`, or the command line's overrides
    (``"experiment=bzmd14_orl"`` or ``["experiment=bzmd14_orl", "repeats=2"]``; more may follow
    as further arguments); one job per call, no flags. ``execution``/``output``: the
    :class:`~kmdr.config.objects.Execution` and :class:`~kmdr.config.objects.Output` (default:
    those the overrides give, else the defaults). ``results_dir``: where the results go (an empty
    string is refused, as on the command line).

    Returns a pandas DataFrame with one row per cell the run asked for, computed now or reused,
    with the columns of ``cells.csv``; empty for a dry run or a kind without cells. Raises
    :class:`kmdr.ConfigError`, :class:`kmdr.RunError` or KeyboardInterrupt (see the module
    docstring)."""
    from kmdr._log import logging_for
    from kmdr.app.callbacks import conclude
    from kmdr.app.task import execute, finish

    composed = _composed(experiment, overrides, execution, output, results_dir)
    with logging_for(composed.output.verbosity):
        outcome, experiment, output = execute(composed)
        if outcome.status == "dry_run":
            return _cells_of(None)
        conclude(finish(outcome, experiment, output))  # figures, as the command's callback draws
    return _cells_of(outcome.experiment_dir, outcome.cell_ids)


def _quoted(path: str | os.PathLike) -> str:
    """A path as an override's value, quoted so that Hydra's grammar reads it as it is."""
    text = os.fspath(path)  # "" stays "" (Path("") would be "."), and is refused as such
    return "'" + text.replace("'", "\\'") + "'"


def _cells_of(experiment_dir: Path | None, cell_ids=()):
    """The cells ``cell_ids`` (those a run expected), as ``kmdr.read_results`` reads them (its
    ``excluded`` column left out: they are all current), in cells.csv's order."""
    import pandas as pd

    from kmdr.results.reading import EXCLUDED, empty_columns, read_experiment

    if experiment_dir is None:
        return pd.DataFrame(columns=empty_columns())
    cells = read_experiment(experiment_dir).drop(columns=EXCLUDED)
    return cells[cells["cell_id"].isin(list(cell_ids))].reset_index(drop=True)
