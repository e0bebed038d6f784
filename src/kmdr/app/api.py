"""The Python API's :func:`run`: one run of ``kmdr``, from a script or a notebook.

    import kmdr
    cells = kmdr.run(["experiment=bzmd14_orl", "r_grid=[5,10]", "repeats=2"])
    exp = kmdr.Experiment.preset("bzmd14_orl", "repeats=1")
    cells = kmdr.run(exp, execution=kmdr.Execution(n_jobs=2), output=kmdr.Output(results_dir="r"))

``experiment`` is an :class:`~kmdr.config.objects.Experiment` or the command line's overrides
(a str or a list of str), composed by Hydra's Compose API against the same primary config and
typed schema, and checked as the command line checks them (:func:`kmdr.config.compose.checked`):
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
    """The run's :class:`~kmdr.config.compose.Composed`, from an Experiment or overrides."""
    from dataclasses import replace

    from kmdr.config.checks import check_results_dir
    from kmdr.config.compose import Composed, compose_overrides
    from kmdr.config.errors import ConfigError
    from kmdr.config.objects import Execution, Experiment, Output, flat_dict

    if isinstance(experiment, Experiment):
        if more:
            raise ConfigError(
                "kmdr.run takes an Experiment or override strings, not both; apply overrides "
                "with kmdr.Experiment.preset(name, *overrides) or .from_overrides([...])"
            )
        execution = execution if execution is not None else Execution()
        output = output if output is not None else Output()
        if results_dir is not None:
            output = replace(output, results_dir=check_results_dir(str(results_dir)))
        record = flat_dict(experiment, execution, output)
        return Composed(experiment, execution, output, record=record)
    overrides = _check_overrides(experiment, more)
    if results_dir is not None:
        given = [o for o in overrides if isinstance(o, str) and o.startswith("results_dir=")]
        if given:
            raise ConfigError(
                f"results_dir is given twice ({given[0]!r} and results_dir={str(results_dir)!r}); "
                "give it once"
            )
        check_results_dir(str(results_dir))
        overrides.append(f"results_dir={_quoted(results_dir)}")
    composed = compose_overrides(overrides)
    if execution is not None:
        composed = replace(composed, execution=execution)
    if output is not None:
        composed = replace(composed, output=output)
    return composed


def _check_overrides(experiment, more: tuple) -> list[str]:
    """The overrides as a list; one ConfigError line for what is not one job's override."""
    from kmdr.config.errors import ConfigError

    first = [experiment] if isinstance(experiment, str) else experiment
    if not isinstance(first, list | tuple):
        first = [first]
    items = [*first, *more]
    for text in items:
        if not isinstance(text, str):
            raise ConfigError(
                f"kmdr.run takes an Experiment or override strings such as 'repeats=2', not "
                f"{text!r} ({type(text).__name__})"
            )
        if text.startswith("-"):
            raise ConfigError(
                f"kmdr.run takes overrides (key=value), not the command-line flag {text!r}; "
                "run one job per call (a sweep: call it once per value)"
            )
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    parser = OverridesParser.create()
    for text in items:
        try:
            (override,) = parser.parse_overrides([text])
        except HydraException:
            continue  # composing it gives the command line's own line
        if override.is_sweep_override():
            raise ConfigError(
                f"kmdr.run runs one job, and {text!r} is a sweep; call kmdr.run once per value "
                "(or write a list as key=[a,b])"
            )
    return items


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
            return _cells_of(None, None)
        conclude(finish(outcome, experiment, output))  # figures, as the command's callback draws
    return _cells_of(outcome.experiment_dir, outcome.run_id)


def _quoted(path: str | os.PathLike) -> str:
    """A path as an override's value, quoted so that Hydra's grammar reads it as it is."""
    text = os.fspath(path)  # "" stays "" (Path("") would be "."), and is refused as such
    return "'" + text.replace("'", "\\'") + "'"


def _cells_of(experiment_dir: Path | None, run_id: str | None):
    """The cells the run ``run_id`` expected, as ``kmdr.read_results`` reads them (its
    ``excluded`` column left out: they are all current), in cells.csv's order."""
    import pandas as pd

    from kmdr.results.reading import EXCLUDED, empty_columns, load_runs, read_experiment

    if experiment_dir is None:
        return pd.DataFrame(columns=empty_columns())
    record = next((r for r in load_runs(experiment_dir) if r.get("run_id") == run_id), {})
    wanted = [c["cell_id"] for c in record.get("expected_cells") or ()]
    cells = read_experiment(experiment_dir).drop(columns=EXCLUDED)
    return cells[cells["cell_id"].isin(wanted)].reset_index(drop=True)
