"""What ``kmdr`` does after a job and after a multirun, as Hydra callbacks.

``conf/config.yaml`` registers them under ``hydra.callbacks``, so Hydra calls them for every job,
whichever launcher runs it (in the process that ran the job) and whichever sweeper chose it:

- :class:`DrawCallback`: after a job that ran (its task returned a
  :class:`~kmdr.app.task.JobResult`), the experiment's summaries and figures when the config asks
  for them (``figures=true``), then the line that says what the run did. In a multirun the jobs
  often write into one experiment folder (``kmdr -m dataset=orl,coil20 reducer=sign,svd``: every
  job adds cells to ``custom``), and a drawing reads the whole folder, so each folder is drawn
  once, when the multirun ends, instead of after each of its jobs (six drawings of the same
  figure were two thirds of such a multirun's wall time). A job that fails ends the multirun (the
  task exits with its error line): it first draws what the jobs before it ran
  (:func:`kmdr.app.drawing.draw_before_stop`).
- :class:`MultirunSummary`: at the end of a multirun, one line: how many jobs ran, were skipped,
  were only planned (a dry run) or failed, and where the results went. A job's outcome is left in
  its Hydra job folder (``hydra.runtime.output_dir``, under the sweep folder) by the process that
  ran it, so the line is the same for the basic, joblib and submitit launchers. A dry run writes
  nothing: the sweep folder Hydra made for it is removed at the end, unless the command chose it
  (``hydra.sweep.dir=...``).

A sweeper that stops at a failed job (Hydra's basic sweeper) ends the multirun with that job's
error line: no summary follows it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback

from kmdr._log import console, logging_for, say
from kmdr.app import drawing

_SWEEP_DIR = "hydra.sweep.dir"


def conclude(result) -> None:
    """After a job that ran: draw its experiment when ``result.figures`` says so, then say its
    summary line (``result``: a :class:`~kmdr.app.task.JobResult`)."""
    if result.figures:
        drawing.draw_folders([result.experiment_dir])
    if result.summary:
        say(result.summary)


def _ran(job_return) -> Any:
    """The job's JobResult, or None (it failed, or ran nothing: a dry run, a skipped run)."""
    from hydra.core.utils import JobStatus

    from kmdr.app.task import JobResult

    if job_return is None or job_return.status != JobStatus.COMPLETED:
        return None
    value = job_return.return_value
    return value if isinstance(value, JobResult) else None


def _multirun(config) -> bool:
    """Whether ``config`` (a job's config) is of a multirun."""
    from hydra.types import RunMode

    return config.hydra.mode == RunMode.MULTIRUN


class DrawCallback(Callback):
    """Draws an experiment's summaries and figures after its job, or after a multirun each folder
    its jobs wrote once (see the module docstring)."""

    def on_job_end(self, config, job_return, **kwargs: Any) -> None:
        result = _ran(job_return)
        if result is None:
            return
        # The job's lines at its verbosity: a launcher's worker process (joblib's) has no
        # Hydra logging of its own that lets INFO through once the task has returned.
        with logging_for(config.get("verbosity", "normal")):
            if not _multirun(config):
                conclude(result)
            elif result.summary:
                say(result.summary)

    def on_multirun_end(self, config, **kwargs: Any) -> None:
        drawing.draw_folders(drawing.ran_to_draw(config.hydra.sweep.dir))


def _outcome(config, job_return) -> dict:
    """What a job of a multirun leaves for the drawing and the summary."""
    from hydra.core.utils import JobStatus

    result = _ran(job_return)
    if result is not None:
        return {
            "status": "ran",
            "experiment_dir": str(result.experiment_dir),
            "figures": bool(result.figures),
        }
    from kmdr.app.task import JobFailed

    if job_return is not None and job_return.status == JobStatus.FAILED:
        return {"status": "failed", "job": f"[job {config.hydra.job.num}]"}
    if job_return is not None and isinstance(job_return.return_value, JobFailed):
        return {"status": "failed", "job": str(job_return.return_value)}
    return {"status": "planned" if config.get("dry_run") else "skipped"}


def _chose_sweep_dir(config) -> bool:
    from kmdr.config.overrides import keys

    return _SWEEP_DIR in keys(config.hydra.overrides.hydra)


def _remove_empty(folder: Path, stop: Path) -> None:
    """Remove ``folder`` and its parents below ``stop`` while they are empty."""
    folder, stop = folder.resolve(), stop.resolve()
    while folder != stop and stop in folder.parents:
        try:
            folder.rmdir()
        except OSError:  # not empty, or not ours to remove
            return
        folder = folder.parent


class MultirunSummary(Callback):
    """One line closing a multirun (see the module docstring)."""

    def on_job_end(self, config, job_return, **kwargs: Any) -> None:
        if not _multirun(config):
            return
        folder = Path(config.hydra.runtime.output_dir)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / drawing.OUTCOME_FILE).write_text(json.dumps(_outcome(config, job_return)))

    def on_multirun_end(self, config, **kwargs: Any) -> None:
        sweep_dir = Path(config.hydra.sweep.dir)
        files = drawing.outcome_files(sweep_dir)
        if not files:
            _no_job(config, sweep_dir)
        outcomes = drawing.outcomes(sweep_dir)
        counts = {s: sum(o["status"] == s for o in outcomes) for s in _WORDS}
        if outcomes and counts["planned"] == len(outcomes) and not _chose_sweep_dir(config):
            for path in files:
                path.unlink(missing_ok=True)
            (sweep_dir / "multirun.yaml").unlink(missing_ok=True)
            for job in {p.parent for p in files}:
                _remove_empty(job, Path.cwd())
            _remove_empty(sweep_dir, Path.cwd())
        if not outcomes:
            return
        if counts["planned"] == len(outcomes):
            line = f"[kmdr] multirun: {len(outcomes)} jobs planned (dry run), nothing written"
        else:
            said = ", ".join(f"{counts[s]} {s}" for s in _WORDS if counts[s])
            where = sorted({o["experiment_dir"] for o in outcomes if "experiment_dir" in o})
            line = f"[kmdr] multirun: {len(outcomes)} jobs: {said}"
            if where:
                line += f"; results in {', '.join(where)}"
        # (this process ran no job when a launcher ran them elsewhere: its lines are set here)
        with console(), logging_for(config.get("verbosity", "normal")):
            say(line)
        failed = [o.get("job", "?") for o in outcomes if o["status"] == "failed"]
        if failed:  # the sweep went on past them; the command still fails
            from kmdr._errors import exit_error

            exit_error(
                "kmdr",
                f"{len(failed)} of {len(outcomes)} jobs did not finish: {', '.join(failed)} "
                "(each one's line above says why; run the same command to resume them)",
                status=1,
            )


def _no_job(config, sweep_dir: Path) -> None:
    """A sweep that expanded to no job (a ``glob`` that matches no option, an empty ``range``)
    did nothing: one line and exit status 2, not a silent exit 0. The sweep folder Hydra made
    for it is removed unless the command chose it. A callback's exception would be a warning
    (Hydra's callbacks are guarded), hence the exit."""
    from kmdr._errors import exit_error
    from kmdr.config.overrides import parse

    if not _chose_sweep_dir(config):
        (sweep_dir / "multirun.yaml").unlink(missing_ok=True)
        _remove_empty(sweep_dir, Path.cwd())
    swept = [str(o.input_line) for o in parse(config.hydra.overrides.task) if o.is_sweep_override()]
    exit_error(
        "kmdr",
        f"the sweep has no job: {' '.join(swept) or 'its sweeper'} expands to no value (a glob "
        "that matches no option, an empty range); check the swept values",
    )


#: The outcomes of a job the summary counts, in the order its line names them.
_WORDS = ("ran", "skipped", "planned", "failed")
