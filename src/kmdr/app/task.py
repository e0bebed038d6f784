"""The task Hydra runs for each job of ``kmdr``: check the composed config once, run it, report.

:func:`run` receives the config Hydra composed against the typed schema. It turns the config
into the run's three objects once (:func:`kmdr.app.compose.checked`), refuses a run whose
protocol is not its folder's (:func:`kmdr.app.protocol.check_folder`),
and runs the experiment with :func:`execute`, the one function the command line, ``kmdr.run``
and ``make reproduce`` all run an experiment with, in this process's
session (:func:`kmdr.engine.session.default_session`: a multirun's jobs share its warm workers
and loaded data; the session callback closes it).

It returns a :class:`JobResult`: the run's mean accuracy (the mean of the ``accuracy`` column over
the run's cells, computed or reused), so an optimising sweeper (``hydra/sweeper=optuna``) can tune
any key, carrying what the Hydra callbacks of :mod:`kmdr.app.callbacks` need to draw the
experiment's figures and say what the run did; None for a dry run or a skipped run. A problem with
the config is one line and exit status 2 before any work, naming the job (its overrides) in a
multirun.
"""

from __future__ import annotations

import sys
from pathlib import Path

from kmdr._errors import exit_error, tell
from kmdr.config.errors import ConfigError
from kmdr.engine import signals

PROGRAM = "kmdr"


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


def launcher_n_jobs(hc) -> int:
    """The ``n_jobs`` of the Hydra launcher running this job (jobs it runs at once share the
    cores: :func:`kmdr.engine.backends.resolve_parallelism` resolves it); 1 unless it is the
    joblib launcher of a multirun."""
    from hydra.types import RunMode

    launcher = hc.launcher
    if hc.mode != RunMode.MULTIRUN or "JoblibLauncher" not in str(launcher.get("_target_", "")):
        return 1
    return int(launcher.get("n_jobs") or -1)


class RunError(RuntimeError):
    """A run that started and could not finish (a cell failed, the backend failed), or whose
    dataset cannot be obtained; one line. The cells it finished are kept."""


class JobFailed(str):
    """What a multirun's job returns when its run failed or a cell hit its time limit: the job's
    name (``[job N: overrides]``). The sweep goes on with the other jobs, and its closing line
    names every job that returned one (:class:`kmdr.app.callbacks.MultirunSummary`)."""


def kept_line(experiment, output) -> str:
    """Where a run's finished cells are kept (said when it stops or fails part-way)."""
    return f"finished cells are kept under {Path(output.results_dir) / experiment.name}"


def execute(objects, launcher_jobs: int = 1, config_files=None):
    """Run the checked job ``objects`` (a :class:`kmdr.config.schema.Configured`) in this
    process's session (:meth:`kmdr.engine.session.Session.run`: the one way every route runs an
    experiment); ``(outcome, experiment, output)``. ``config_files``: the options a user's
    config folder supplied, by file, for the run record (:func:`kmdr.app.compose.users_files`).

    Raises :class:`~kmdr.config.errors.ConfigError` before any work for a problem with the
    config, :class:`RunError` for a run that fails, and KeyboardInterrupt when stopped (the
    session's ``last`` run tells whether cells may have been computed); a run whose dataset
    cannot be obtained returns, its outcome saying why (:func:`skipped_line`).
    An error raised after a stop signal is the signal's: library code between the signal and its
    handling can turn the KeyboardInterrupt into another error (an import cut short fails as an
    ImportError, a half-built config node as a config error), which must not be reported as the
    user's mistake."""
    from kmdr.app.protocol import check_folder
    from kmdr.engine.backends import RunFailed
    from kmdr.engine.session import default_session

    experiment, execution, output = objects
    session = default_session(execution, launcher_jobs)
    try:
        check_folder(experiment, output)
        outcome = session.run(experiment, output, config_files=config_files)
    except KeyboardInterrupt:
        raise
    except Exception as err:  # a failure inside a cell: one line, the run record has it too
        signals.raise_if_received()
        if isinstance(err, ConfigError):
            raise
        last = session.last
        started = bool(last and last.started)
        if isinstance(err, OSError) and not started and _under(err.filename, output.results_dir):
            # the first write into results_dir fails before any cell: a folder to fix, one line
            # (a disk that fails mid-run is the run's failure, with the cells it kept)
            raise ConfigError(
                f"results_dir={output.results_dir} cannot be written ({err.strerror}: "
                f"{err.filename}); give a folder you can write to"
            ) from None
        kept = f"; {kept_line(experiment, output)}" if started else ""
        if last and last.log:
            kept += f"; its traceback: {last.log}"
        if isinstance(err, RunFailed):  # its message says it whole
            raise RunError(f"{err}{kept}") from err
        raise RunError(f"{experiment.name} failed ({type(err).__name__}: {err}){kept}") from err
    return outcome, experiment, output


def _under(path, folder) -> bool:
    """Whether ``path`` (an OSError's file, or None) is ``folder`` or lies under it."""
    import os

    if not isinstance(path, str | os.PathLike):
        return False
    return Path(os.path.abspath(path)).is_relative_to(os.path.abspath(folder))


def skipped_line(outcome, experiment) -> str | None:
    """The line saying a run was skipped (its dataset cannot be obtained: ``outcome.skipped``
    says why, as its record does), or None for a run that was not."""
    return f"{experiment.name} skipped: {outcome.skipped}" if outcome.skipped else None


def finish(outcome, experiment, output) -> JobResult:
    """After a run that computed: its :class:`JobResult`, with the line that says what it did
    (empty when the run is quiet), and whether its experiment is to be drawn (``figures``, unless
    it is drawn already: :func:`kmdr.app.drawing.drawn_already`). Drawing is the caller's
    (:mod:`kmdr.app.callbacks`)."""
    from kmdr._log import quiet
    from kmdr.app.drawing import drawn_already

    summary = ""
    if not quiet():
        where = outcome.experiment_dir / ("cells.csv" if experiment.kind == "cells" else "")
        summary = (
            f"[kmdr] {experiment.name}: {outcome.n_expected} cells ({outcome.n_computed} "
            f"computed, {outcome.n_reused} reused) in {outcome.wall_seconds:.1f} s -> {where}"
        )
    mean = float("nan") if outcome.mean_accuracy is None else outcome.mean_accuracy
    figures = output.figures and not drawn_already(outcome, experiment.kind)
    return JobResult(mean, outcome.experiment_dir, figures, summary)


def run(cfg) -> JobResult | None:
    """The Hydra task: one run of the composed ``cfg`` (see the module docstring). A job of a
    multirun is named by its overrides (``hc.job.override_dirname``). A config error raised
    after a stop signal is the signal's (see :func:`execute`)."""
    from dataclasses import replace

    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    from kmdr._log import logging_for
    from kmdr.app.compose import checked, users_files, warn_multirun_settings
    from kmdr.app.drawing import draw_before_stop
    from kmdr.app.protocol import default_folder
    from kmdr.config.overrides import keys

    hc = HydraConfig.get()
    multirun = hc.mode == RunMode.MULTIRUN
    job = f"[job {hc.job.num}: {hc.job.override_dirname}] " if multirun else ""
    objects = None
    with logging_for(cfg.verbosity):
        try:
            warn_multirun_settings(hc)
            objects = checked(cfg, hc)
            if "results_dir" not in keys([*hc.overrides.task]):  # results/: presets' cells only
                folder = default_folder(objects.experiment)
                objects = objects._replace(output=replace(objects.output, results_dir=folder))
            files = users_files(hc.runtime.choices)
            outcome, experiment, output = execute(objects, launcher_n_jobs(hc), files)
        except ConfigError as err:
            signals.raise_if_received()
            draw_before_stop(hc)
            exit_error(PROGRAM, f"{job}{err}")
        except RunError as err:
            draw_before_stop(hc)
            if multirun:  # the sweep goes on; its last line names this job
                tell(f"kmdr: {job}{err}")
                return JobFailed(job.strip())
            exit_error(PROGRAM, err, status=1)
        except KeyboardInterrupt as err:
            from kmdr.engine.session import last_run

            if objects is not None and (last := last_run()) is not None and last.started:
                kept = kept_line(objects.experiment, objects.output)
                what = f"{signals.describe(err)}; {kept}: run the same command to resume"
            else:
                what = f"{signals.describe(err)} before any cell was computed"
            tell(f"kmdr: {what}")
            signals.exit_stopped(err)
        if skipped_line(outcome, experiment):  # not an error of the command: a multirun goes on
            tell(f"kmdr: {skipped_line(outcome, experiment)}")
            if not multirun:
                sys.exit(1)
            return None
        if outcome.status == "dry_run":
            return None
        return finish(outcome, experiment, output)
