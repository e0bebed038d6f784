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
  (:func:`draw_before_stop`).
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
import sys
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback

from kmdr._log import say

__all__ = ["DrawCallback", "MultirunSummary", "conclude", "draw_before_stop"]

#: The file a job of a multirun leaves in its Hydra job folder for :class:`MultirunSummary`.
OUTCOME_FILE = "kmdr_job.json"
_SWEEP_DIR = "hydra.sweep.dir"


def conclude(result) -> None:
    """After a job that ran: draw its experiment when ``result.figures`` says so, then say its
    summary line (``result``: a :class:`~kmdr.app.task.JobResult`)."""
    if result.figures:
        _draw_folders([result.experiment_dir])
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
    """Whether ``config`` (a job's config, or its ``hydra`` node) is of a multirun."""
    from hydra.types import RunMode

    mode = config.hydra.mode if "hydra" in config else config.mode
    return mode == RunMode.MULTIRUN


def _draw_folders(folders) -> None:
    """Draw each experiment folder of ``folders`` once, in order; a Ctrl-C while drawing ends
    the command with one line saying how to draw them later (the cells are kept)."""
    from kmdr.app.drawing import draw

    for folder in dict.fromkeys(Path(f) for f in folders):
        try:
            draw(folder, say)
        except KeyboardInterrupt as err:  # the cells are safe: say how to draw them later
            from kmdr.engine import signals

            say(
                f"kmdr: {signals.describe(err)} while drawing; the cells are kept under "
                f"{folder}: draw them with `kmdr-figures {folder.parent}`"
            )
            sys.exit(signals.exit_status(err))


def _ran_to_draw(sweep_dir) -> list[str]:
    """The experiment folders the multirun's jobs so far ran with ``figures=true``, in the order
    of their jobs (read from the outcome files they left, so every launcher's jobs count)."""
    return [o["experiment_dir"] for o in _outcomes(sweep_dir) if o.get("figures")]


def draw_before_stop(hydra_config) -> None:
    """In a job of a multirun that is about to end the command with an error: draw the folders
    the jobs before it ran (``hydra_config``: the job's HydraConfig), as the multirun's end would
    have. Nothing outside a multirun."""
    if _multirun(hydra_config):
        _draw_folders(_ran_to_draw(hydra_config.sweep.dir))


class DrawCallback(Callback):
    """Draws an experiment's summaries and figures after its job, or after a multirun each folder
    its jobs wrote once (see the module docstring)."""

    def on_job_end(self, config, job_return, **kwargs: Any) -> None:
        result = _ran(job_return)
        if not _multirun(config):
            if result is not None:
                conclude(result)
            return
        if result is not None and result.summary:
            say(result.summary)

    def on_multirun_end(self, config, **kwargs: Any) -> None:
        _draw_folders(_ran_to_draw(config.hydra.sweep.dir))


def _failed(job_return) -> bool:
    from hydra.core.utils import JobStatus

    return job_return is not None and job_return.status == JobStatus.FAILED


def _outcome(config, job_return) -> dict:
    """What a job of a multirun leaves for the drawing and the summary."""
    result = _ran(job_return)
    if result is not None:
        return {
            "status": "ran",
            "experiment_dir": str(result.experiment_dir),
            "figures": bool(result.figures),
        }
    if _failed(job_return):
        return {"status": "failed"}
    return {"status": "planned" if config.get("dry_run") else "skipped"}


def _outcome_files(sweep_dir) -> list[Path]:
    sweep_dir = Path(sweep_dir)
    return sorted(sweep_dir.glob(f"*/{OUTCOME_FILE}"), key=_job_order) if sweep_dir.is_dir() else []


def _job_order(path: Path) -> tuple:
    """Hydra names job folders by their number (0, 1, ..., 10): in that order, not the text's."""
    name = path.parent.name
    return (0, int(name), "") if name.isdigit() else (1, 0, name)


def _outcomes(sweep_dir) -> list[dict]:
    """The outcomes the multirun's jobs left so far in ``sweep_dir``, in job order."""
    out = []
    for path in _outcome_files(sweep_dir):
        try:
            out.append(json.loads(path.read_text()))
        except (OSError, ValueError):  # a job that did not finish writing it
            out.append({"status": "failed"})
    return out


def _chose_sweep_dir(config) -> bool:
    return any(
        str(o).lstrip("+~").partition("=")[0] == _SWEEP_DIR for o in config.hydra.overrides.hydra
    )


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
        (folder / OUTCOME_FILE).write_text(json.dumps(_outcome(config, job_return)))

    def on_multirun_end(self, config, **kwargs: Any) -> None:
        sweep_dir = Path(config.hydra.sweep.dir)
        files = _outcome_files(sweep_dir)
        outcomes = _outcomes(sweep_dir)
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
        from kmdr._log import quiet

        if quiet() or config.get("verbosity") == "quiet":
            return
        if counts["planned"] == len(outcomes):
            say(f"[kmdr] multirun: {len(outcomes)} jobs planned (dry run), nothing written")
            return
        said = ", ".join(f"{counts[s]} {s}" for s in _WORDS if counts[s])
        where = sorted({o["experiment_dir"] for o in outcomes if "experiment_dir" in o})
        line = f"[kmdr] multirun: {len(outcomes)} jobs: {said}"
        if where:
            line += f"; results in {', '.join(where)}"
        say(line)


#: The outcomes of a job the summary counts, in the order its line names them.
_WORDS = ("ran", "skipped", "planned", "failed")
