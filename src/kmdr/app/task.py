"""The task Hydra runs for each job of ``kmdr``: check the composed config once, run it, report.

:func:`run` receives the config Hydra composed against the typed schema. It checks the folders
of the config search path, gives a run of a preset that changes what the preset fixes its own
folder (:func:`own_folder`), builds the checked spec (:func:`kmdr.config.spec.spec_from_config`),
loads the data once per process and runs the experiment (:func:`kmdr.engine.runner.run_experiment`).

It returns a :class:`JobResult`: the run's mean accuracy (the mean of the ``accuracy`` column over
the run's cells, computed or reused), so an optimising sweeper (``hydra/sweeper=optuna``) can tune
any key, carrying what the Hydra callbacks of :mod:`kmdr.app.callbacks` need to draw the
experiment's figures and say what the run did; None for a dry run or a skipped run. A problem with
the config is one line and exit status 2 before any work, naming the job (its overrides) in a
multirun.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kmdr._errors import exit_error
from kmdr.config.errors import ConfigError
from kmdr.engine import signals

__all__ = [
    "JobResult",
    "RunError",
    "Skipped",
    "UsageError",
    "execute",
    "finish",
    "load_for",
    "only_reducer",
    "own_folder",
    "run",
]

PROGRAM = "kmdr"

# Datasets loaded in this process, reused by later jobs of a multirun.
_DATA_CACHE: dict[str, object] = {}


class UsageError(ConfigError):
    """A one-line error for the user (exit status 2) about the config or its data."""


class JobResult(float):
    """What a job that ran returns to Hydra: its value is the run's mean accuracy (NaN for a kind
    without cells), read by an optimising sweeper; the attributes are for the callbacks.

    Attributes
    ----------
    experiment_dir : Path
        The experiment's folder.
    figures : bool
        Whether its summaries and figures are to be drawn after the job.
    summary : str
        The line saying what the run did (empty for a quiet run).
    """

    experiment_dir: Path
    figures: bool
    summary: str

    def __new__(cls, value: float, experiment_dir: Path, figures: bool, summary: str):
        result = super().__new__(cls, value)
        result.experiment_dir = Path(experiment_dir)
        result.figures = bool(figures)
        result.summary = summary
        return result

    def __reduce__(self):  # a joblib or submitit launcher sends it back to the main process
        return (type(self), (float(self), self.experiment_dir, self.figures, self.summary))


def only_reducer(choices) -> str | None:
    """With both an experiment preset and a reducer option, run only that reducer's entries."""
    if choices.get("experiment") and choices.get("reducer"):
        return str(choices["reducer"])
    return None


def load_for(spec):
    """The spec's dataset, loaded once per process (the DatasetUnavailable error when it cannot
    be obtained). A dry run gets the data's declared facts instead when its declaration tells
    them (:func:`kmdr.datasets.declared_data`): it plans without reading the data."""
    from kmdr.datasets import DatasetUnavailable, declared_data, load_dataset

    if getattr(spec, "dry_run", False):
        declared = declared_data(spec.dataset, data_dir=spec.data_dir, **spec.dataset_params)
        if declared is not None:
            return declared
    key = json.dumps([spec.dataset, spec.dataset_params, spec.data_dir], sort_keys=True)
    if key not in _DATA_CACHE:
        try:
            _DATA_CACHE[key] = load_dataset(
                spec.dataset, data_dir=spec.data_dir, **spec.dataset_params
            )
        except DatasetUnavailable as err:
            _DATA_CACHE[key] = err  # the runner records the reason and skips
        except (TypeError, ValueError) as err:
            message = str(err)  # a DatasetError already names the dataset
            if not message.startswith(f"dataset {spec.dataset!r}"):
                message = f"dataset {spec.dataset!r}: {message}"
            raise UsageError(message) from None
    return _DATA_CACHE[key]


def _check_search_path(hc) -> None:
    """Every config folder the command added (``-cd DIR``, ``hydra.searchpath``) exists: Hydra
    would warn and compose without it."""
    for source in hc.runtime.config_sources:
        if source.schema != "file" or source.provider in ("main", "hydra", "schema"):
            continue
        folder = Path(source.path)
        if not folder.is_dir():
            flag = "-cd" if source.provider == "command-line" else "hydra.searchpath"
            what = "is a file, not a folder" if folder.exists() else "does not exist"
            raise UsageError(
                f"{flag} {source.path}: the config folder {what}; give the folder that holds "
                "your dataset/, reducer/ and experiment/ configs"
            )


def own_folder(cfg, choices, config_name: str, overrides: list[str], task: list[str]) -> str | None:
    """A run of a preset that changes what the preset fixes gets a folder of its own
    (:func:`kmdr.config.presets.own_folder`; ``cfg`` is changed in place). The preset is
    composed alone, with the command's config search path (``overrides``: Hydra's), to compare,
    unless no override of the job (``task``) touches a key the preset fixes; returns the line
    that announces the change, or None."""
    from hydra import compose

    from kmdr.config.presets import PRESET_FIXES
    from kmdr.config.presets import own_folder as _own

    preset = choices.get("experiment")
    if not preset:
        return None
    touched = {o.lstrip("+~").partition("=")[0].split(".")[0].strip("/") for o in task}
    if not touched & {*PRESET_FIXES, "reducer"}:
        return None
    search = [o for o in overrides if o.lstrip("+~").startswith("hydra.searchpath")]
    return _own(cfg, compose(config_name, [f"experiment={preset}", *search]))


def _launcher_jobs(hc) -> int:
    """How many jobs the Hydra launcher runs at once on this machine (1 unless it is the joblib
    launcher, whose ``n_jobs`` jobs share the cores)."""
    from hydra.types import RunMode

    launcher = hc.launcher
    if hc.mode != RunMode.MULTIRUN or "JoblibLauncher" not in str(launcher.get("_target_", "")):
        return 1
    import joblib

    n_jobs = launcher.get("n_jobs") or -1
    return n_jobs if n_jobs > 0 else max(1, joblib.cpu_count() + 1 + n_jobs)


def _swept_keys(hc) -> set[str]:
    """The keys a sweeper chooses: the command line's sweep overrides (``a,b``, ``glob(...)``,
    ``range(...)``, ``interval(...)``, read with Hydra's override parser) and the sweeper's
    ``params``."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    parser = OverridesParser.create()
    keys = {str(k) for k in (hc.sweeper.get("params") or {})}
    for text in sys.argv[1:]:
        if text.startswith("-"):
            continue
        try:
            (override,) = parser.parse_overrides([text])
        except HydraException:  # a flag's value (--cfg job), not an override
            continue
        if override.is_sweep_override():
            keys.add(override.get_key_element().lstrip("+~"))
    return keys


def _job_name(hc) -> str:
    """``[job N: overrides]`` for a job of a multirun, naming the values its sweeper chose (all
    its overrides when this process cannot tell them), else ''."""
    from hydra.types import RunMode

    if hc.mode != RunMode.MULTIRUN:
        return ""
    task = [str(o) for o in hc.overrides.task]
    keys = _swept_keys(hc)
    chosen = [o for o in task if o.partition("=")[0].lstrip("+~") in keys] or task
    return f"[job {hc.job.num}: {' '.join(chosen)}] "


class RunError(RuntimeError):
    """A run that started and could not finish (a cell failed, the backend failed), or whose
    dataset cannot be obtained; one line. The cells it finished are kept."""


class Skipped(RunError):
    """A run whose dataset cannot be obtained (its record says why); one line."""


def execute(cfg, hc, stage: dict | None = None):
    """Check the composed ``cfg`` (``hc``: its Hydra config) and run it: ``(outcome, spec)``.

    Raises :class:`UsageError` (a :class:`~kmdr.config.errors.ConfigError`) before any work
    for a problem with the config, :class:`RunError` for a run that fails or is skipped, and
    KeyboardInterrupt when stopped; once cells may have been computed, ``stage["kept"]`` says
    where the finished ones are (it stays unset before)."""
    stage = {} if stage is None else stage
    _check_search_path(hc)
    choices = dict(hc.runtime.choices)
    moved = own_folder(
        cfg, choices, hc.job.config_name, [*hc.overrides.hydra], [*hc.overrides.task]
    )
    outcome, spec = _run(cfg, hc, choices, moved, stage)
    if outcome.skipped:
        raise Skipped(f"{spec.name} skipped: {outcome.skipped}")
    return outcome, spec


def finish(outcome, spec) -> JobResult:
    """After a run that computed: its :class:`JobResult`, with the line that says what it did
    (empty when the run is quiet). Drawing is the caller's (:mod:`kmdr.app.callbacks`)."""
    from kmdr._log import quiet

    summary = ""
    if not quiet():
        where = outcome.experiment_dir / ("cells.csv" if spec.kind == "cells" else "")
        summary = (
            f"[kmdr] {spec.name}: {outcome.n_expected} cells ({outcome.n_computed} computed, "
            f"{outcome.n_reused} reused) in {outcome.wall_seconds:.1f} s -> {where}"
        )
    mean = float("nan") if outcome.mean_accuracy is None else outcome.mean_accuracy
    return JobResult(mean, outcome.experiment_dir, spec.figures, summary)


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(cfg) -> JobResult | None:
    """The Hydra task: one run of the composed ``cfg`` (see the module docstring)."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    from kmdr._log import logging_for

    hc = HydraConfig.get()
    job = _job_name(hc)
    stage: dict = {}
    with logging_for(cfg.verbosity):
        try:
            try:
                outcome, spec = execute(cfg, hc, stage)
            except (UsageError, Skipped, RunError):
                # An error raised after a stop signal is the signal's: library code between the
                # signal and its handling can turn the KeyboardInterrupt into another error (an
                # import cut short fails as an ImportError, a half-built config node as a
                # config error), which must not be reported as the user's mistake.
                signals.raise_if_received()
                raise
        except UsageError as err:
            exit_error(PROGRAM, f"{job}{err}")
        except Skipped as err:  # not an error of the command: a multirun goes on
            _stderr(f"kmdr: {err}")
            if hc.mode != RunMode.MULTIRUN:
                sys.exit(1)
            return None
        except RunError as err:
            exit_error(PROGRAM, err, status=1)
        except KeyboardInterrupt as err:
            if "kept" in stage:
                what = f"{signals.describe(err)}; {stage['kept']}: run the same command to resume"
            else:
                what = f"{signals.describe(err)} before any cell was computed"
            _stderr(f"kmdr: {what}")
            sys.exit(signals.exit_status(err))
        if outcome.status == "dry_run":
            return None
        return finish(outcome, spec)


def _run(cfg, hc, choices, moved: str | None, stage: dict):
    """Check ``cfg`` and run it: ``(outcome, spec)``; ``moved`` is said once the config is
    checked. A config problem is a UsageError; a failure once the run started is a RunError
    saying the finished cells are kept (``stage["kept"]`` says where)."""
    from kmdr.config.checks import check_given
    from kmdr.config.errors import ConfigError
    from kmdr.config.schema import to_container
    from kmdr.config.spec import spec_from_config
    from kmdr.engine.parallel import BackendError, resolve_parallelism, start_workers
    from kmdr.engine.runner import run_experiment

    try:
        check_given(hc.overrides.task, cfg.get("reducers"), only_reducer(choices))
        spec = spec_from_config(cfg, only_reducer=only_reducer(choices))
        # The run's workers start and import now, while this process loads the data (the run
        # reuses them); a dry run starts none.
        start_workers(spec, resolve_parallelism(spec, _launcher_jobs(hc)))
        if moved:
            _stderr(moved)
        config = to_container(cfg)
        config["choices"] = {k: v for k, v in choices.items() if "/" not in k}
        config["overrides"] = list(hc.overrides.task)
        data = load_for(spec)
    except ConfigError as err:
        raise UsageError(str(err)) from None
    kept = f"finished cells are kept under {Path(spec.results_dir) / spec.name}"
    stage["kept"] = kept
    try:
        outcome = run_experiment(
            spec, dataset=data, config=config, launcher_jobs=_launcher_jobs(hc)
        )
    except ConfigError as err:
        raise UsageError(str(err)) from None
    except BackendError as err:
        raise RunError(f"{err}; {kept}") from err
    except KeyboardInterrupt:
        raise
    except Exception as err:  # a failure inside a cell: one line, the run record has it too
        raise RunError(f"{spec.name} failed ({type(err).__name__}: {err}); {kept}") from err
    return outcome, spec
