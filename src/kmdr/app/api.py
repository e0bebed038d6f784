"""The Python API's :func:`run`: one run of ``kmdr``, from a script or a notebook.

    import kmdr
    cells = kmdr.run("experiment=bzmd14_orl", "r_grid=[5,10]", "repeats=2")

The overrides are the command line's, composed by Hydra's Compose API against the same primary
config and typed schema, checked and run by the same task (:func:`kmdr.app.task.execute`): the
same cells, the same store, the same record. What differs is how it ends: the run's cells come
back as a DataFrame, and a problem is an exception rather than an exit status:

- :class:`~kmdr.config.errors.ConfigError` (a ValueError): bad input, before any work, with the
  one line the command prints after ``kmdr: error:``;
- :class:`~kmdr.app.task.RunError` (a RuntimeError): a run that started and failed, or whose
  dataset cannot be obtained; the cells it finished are kept;
- KeyboardInterrupt: the run was stopped; the cells it finished are kept.

Progress: a bar when stderr is a terminal, a widget in a notebook (``tqdm.auto``), nothing in a
log file (``progress`` and ``verbosity`` decide otherwise, as on the command line).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["run"]

_CONFIG = "config"


def _check_overrides(overrides: tuple) -> list[str]:
    """The overrides as a list; one ConfigError line for what is not one job's override."""
    from kmdr.app.argv import parsed_overrides
    from kmdr.config.errors import ConfigError

    for text in overrides:
        if not isinstance(text, str):
            raise ConfigError(
                f"kmdr.run takes override strings such as 'repeats=2', not {text!r} "
                f"({type(text).__name__})"
            )
        if text.startswith("-"):
            raise ConfigError(
                f"kmdr.run takes overrides (key=value), not the command-line flag {text!r}; "
                "run one job per call (a sweep: call it once per value)"
            )
    for override in parsed_overrides(list(overrides)):
        if override.is_sweep_override():
            raise ConfigError(
                f"kmdr.run runs one job, and {override.input_line!r} is a sweep; call kmdr.run "
                "once per value (or write a list as key=[a,b])"
            )
    return list(overrides)


def _compose(overrides: list[str]):
    """The job's config, composed by Hydra as the command line composes it, with its Hydra
    config set (what the task reads); a composition error becomes one ConfigError line."""
    from hydra import compose
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import open_dict, read_write

    from kmdr.app.entry import config_problem
    from kmdr.config import schema  # noqa: F401  (registers the schema in the ConfigStore)
    from kmdr.config.errors import ConfigError

    try:
        cfg = compose(_CONFIG, overrides=overrides, return_hydra_config=True)
    except Exception as err:
        problem = config_problem(err)
        if problem is None:
            raise
        raise ConfigError(problem) from None
    HydraConfig.instance().set_config(cfg)
    with read_write(cfg), open_dict(cfg):  # the task sees the job's config, as under hydra.main
        del cfg["hydra"]
    return cfg, HydraConfig.get()


def run(*overrides: str, results_dir: str | os.PathLike | None = None):
    """Run (or resume) one job of ``kmdr`` with these overrides and return its cells.

    ``overrides``: the command line's strings (``"experiment=bzmd14_orl"``, ``"r_grid=[5,10]"``,
    ``"repeats=2"``); one job per call, no flags. ``results_dir``: where the results go (default:
    the config's ``results_dir``, ``results`` under the current folder, as on the command line).

    Returns a pandas DataFrame with one row per cell the run asked for, computed now or reused,
    with the columns of ``cells.csv``; empty for a dry run or a kind without cells. Raises
    :class:`kmdr.ConfigError`, :class:`kmdr.RunError` or KeyboardInterrupt (see the module
    docstring)."""
    from hydra import initialize_config_dir

    from kmdr._log import logging_for
    from kmdr.app.callbacks import conclude
    from kmdr.app.task import execute, finish
    from kmdr.config.checks import check_repeated_keys
    from kmdr.config.presets import conf_dir

    args = _check_overrides(overrides)
    if results_dir is not None:
        args = [*args, f"results_dir={_quoted(results_dir)}"]
    check_repeated_keys(args)  # results_dir= among the overrides and as the keyword
    with initialize_config_dir(config_dir=str(conf_dir()), version_base=None, job_name="kmdr"):
        cfg, hc = _compose(args)
        with logging_for(cfg.verbosity):
            outcome, spec = execute(cfg, hc)
            if outcome.status == "dry_run":
                return _cells_of(None, None)
            conclude(finish(outcome, spec))  # the figures, as the command's callback draws them
    return _cells_of(outcome.experiment_dir, outcome.run_id)


def _quoted(path: str | os.PathLike) -> str:
    """A path as an override's value, quoted so that Hydra's grammar reads it as it is."""
    text = os.fspath(path)  # not Path(path): Path("") is "." and an empty value must stay empty
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
