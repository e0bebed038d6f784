"""What follows a job and a multirun are Hydra callbacks (kmdr.app.callbacks, registered under
``hydra.callbacks`` in conf/config.yaml): the experiment's figures are drawn by the callback, when
``figures`` asks for them, and a multirun ends with one line counting its jobs. The task returns a
JobResult: the run's mean accuracy, as a float an optimising sweeper reads."""

from __future__ import annotations

import math
import pickle
from pathlib import Path

import pandas as pd
import pytest
from test_cli import TINY, run_kmdr, run_process

from _overrides import overridden
from kmdr.app.task import JobResult

#: TINY, drawing left to the test.
RUN = [a for a in TINY if not a.startswith("figures=")]


def _figures(results: Path) -> list[str]:
    folder = results / "custom" / "figures"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_figures_true_draws_through_the_callback_and_false_draws_nothing(tmp_path):
    results = tmp_path / "r"
    quiet = run_kmdr([*RUN, f"results_dir={results}", "figures=false"], tmp_path)
    assert quiet.returncode == 0, quiet.stderr
    assert (results / "custom" / "cells.csv").is_file()
    assert _figures(results) == [] and not (results / "custom" / "summary.csv").exists()
    assert "[kmdr] custom: 4 cells (4 computed, 0 reused)" in quiet.stderr

    # Without kmdr's callback, figures=true draws nothing: the drawing is the callback's.
    bare = run_kmdr([*RUN, f"results_dir={results}", "~hydra.callbacks.draw"], tmp_path)
    assert bare.returncode == 0, bare.stderr
    assert _figures(results) == [] and "[kmdr] custom: 4 cells" not in bare.stderr

    drawn = run_kmdr([*RUN, f"results_dir={results}", "figures=true"], tmp_path)
    assert drawn.returncode == 0, drawn.stderr
    assert "custom.png" in _figures(results) and (results / "custom" / "summary.csv").is_file()
    assert "[kmdr] custom: 4 cells (0 computed, 4 reused)" in drawn.stderr


def test_a_run_that_computes_nothing_leaves_what_is_drawn_and_draws_what_is_missing(tmp_path):
    results = tmp_path / "r"
    first = run_kmdr([*RUN, f"results_dir={results}"], tmp_path)
    assert first.returncode == 0, first.stderr
    folder = results / "custom"
    drawn = [folder / "summary.csv", folder / "figures" / "custom.png"]
    stamps = [p.stat().st_mtime_ns for p in drawn]

    again = run_kmdr([*RUN, f"results_dir={results}"], tmp_path)
    assert again.returncode == 0 and "(0 computed, 4 reused)" in again.stderr, again.stderr
    assert [p.stat().st_mtime_ns for p in drawn] == stamps  # the same files, not drawn again

    drawn[1].unlink()
    missing = run_kmdr([*RUN, f"results_dir={results}"], tmp_path)
    assert missing.returncode == 0, missing.stderr
    assert drawn[1].is_file()  # a folder without its figure is drawn


def test_a_multirun_ends_with_one_line_counting_its_jobs(tmp_path):
    results = tmp_path / "r"
    proc = run_kmdr(["-m", *RUN, f"results_dir={results}", "reducer=sign,none"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last == f"[kmdr] multirun: 2 jobs: 2 ran; results in {results / 'custom'}"

    planned = run_kmdr(
        ["-m", *RUN, f"results_dir={tmp_path / 'p'}", "reducer=sign,none", "dry_run=true"],
        tmp_path / "r",
    )
    assert planned.returncode == 0, planned.stderr
    last = planned.stderr.strip().splitlines()[-1]
    assert last == "[kmdr] multirun: 2 jobs planned (dry run), nothing written"
    assert not (tmp_path / "p").exists() and not (results / "multirun").exists()


def test_a_job_result_is_the_mean_accuracy_and_survives_a_launcher(tmp_path):
    """The value an optimising sweeper reads is the mean accuracy over the run's cells; a
    launcher running jobs in other processes sends it back whole."""
    result = JobResult(0.75, tmp_path / "custom", True, "[kmdr] custom: ...")
    back = pickle.loads(pickle.dumps(result))
    assert isinstance(back, JobResult) and float(back) == 0.75 and back == result
    assert (back.experiment_dir, back.figures, back.summary) == (
        tmp_path / "custom",
        True,
        "[kmdr] custom: ...",
    )
    assert math.isnan(JobResult(float("nan"), tmp_path, False, ""))


def test_kmdr_run_returns_what_the_callbacks_read(tmp_path, monkeypatch):
    """The task's return value under Hydra: the mean of the accuracy column of the run's cells."""
    from kmdr.app import callbacks

    results = tmp_path / "r"
    # a finished run to reuse, not drawn
    proc = run_kmdr([*RUN, f"results_dir={results}", "figures=false"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    seen = []
    monkeypatch.setattr(callbacks, "conclude", seen.append)

    import kmdr

    cells = kmdr.run(*RUN, results_dir=results)
    (result,) = seen
    assert isinstance(result, JobResult) and result.figures  # figures=true by default
    assert float(result) == pytest.approx(
        pd.read_csv(results / "custom" / "cells.csv").accuracy.mean()
    )
    assert len(cells) == 4 and result.experiment_dir == results / "custom"


def _methods(results: Path) -> set[str]:
    return set(pd.read_csv(results / "custom" / "summary.csv")["method"])


def test_a_multirun_draws_each_folder_once_after_its_last_job(tmp_path):
    # Both jobs add cells to one folder: it is drawn when the multirun ends (its summary holds
    # both jobs' methods), before the closing line, and not after each job.
    results = tmp_path / "r"
    args = ["-m", *RUN, f"results_dir={results}", "figures=true", "reducer=sign,none"]
    proc = run_kmdr(args, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "custom.png" in _figures(results) and _methods(results) == {"RP", "kMeans"}
    lines = proc.stderr.strip().splitlines()
    assert lines[-1].startswith("[kmdr] multirun: 2 jobs: 2 ran")
    summary = (results / "custom" / "summary.csv").stat().st_mtime_ns
    assert summary >= max(p.stat().st_mtime_ns for p in (results / "custom" / "runs").iterdir())


def test_a_multirun_stopped_by_a_failed_job_draws_what_ran_before_it(tmp_path):
    # svd cannot give r = 40 of 12 features: the second job ends the multirun with its one-line
    # error (exit 2); the first job's cells are drawn all the same.
    results = tmp_path / "r"
    args = [*overridden(RUN, "r_grid=[2,40]"), f"results_dir={results}", "figures=true"]
    proc = run_kmdr(["-m", *args, "reducer=sign,svd"], tmp_path)
    assert proc.returncode == 2, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]  # the job named by its overrides
    assert last.startswith("kmdr: error: [job 1: ") and " reducer=svd " in last
    assert "custom.png" in _figures(results) and _methods(results) == {"RP"}


@pytest.mark.slow
def test_a_multirun_goes_on_past_a_job_that_hit_its_time_limit_and_names_it(tmp_path):
    # The first job's cells all go past their limit: its line says so, the second job still
    # runs, and the closing line names the job that did not finish, with exit status 1.
    results = tmp_path / "r"
    args = ["-m", *RUN, f"results_dir={results}", "figures=false"]
    # a process of its own: a cell's time limit stops it with a signal (SIGALRM)
    proc = run_process([*args, "reducer=sign", "cell_time_limit=0.000001,null"], tmp_path)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert any(
        line.startswith("kmdr: [job 0: ")
        and "cell_time_limit=1e-06 " in line
        and "] custom: 4 of 4 cells went past" in line
        for line in lines
    ), proc.stderr
    assert lines[-2] == f"[kmdr] multirun: 2 jobs: 1 ran, 1 failed; results in {results / 'custom'}"
    assert lines[-1].startswith("kmdr: error: 1 of 2 jobs did not finish: [job 0: ")
    assert "cell_time_limit=1e-06 " in lines[-1]
    assert len(pd.read_csv(results / "custom" / "cells.csv")) == 4  # the second job's cells
