"""Run every paper experiment whose data is available, in sequence, into one results folder.

    python scripts/reproduce.py --results results            # the full protocols (make reproduce)
    python scripts/reproduce.py --quick --results results-quick   # reduced grids, a few minutes
    python scripts/reproduce.py --only bzmd14_orl lst17_coil20    # a subset

Installs nothing (the Makefile's targets do). The experiments are the Hydra presets
``conf/experiment/<name>.yaml`` whose ``preset.reproduce`` is ``paper`` (then those marked
``diagnostic``), in their ``preset.order``; each is composed, checked and run as
``kmdr experiment=<name>`` is (:func:`kmdr.app.compose.compose_job`, then
:func:`kmdr.app.task.execute`); finished cells are kept, so an interrupted
reproduction resumes where it stopped. An experiment whose data cannot be obtained is skipped
with the loader's reason, printed and listed in ``<results>/SKIPPED.md``. Per-experiment wall
times are printed at the end and written to ``<results>/reproduce_times.csv``; an experiment
that computed nothing (every cell reused, or skipped as before) keeps the row recorded there, so
the file keeps the times the cells took to compute. No written file names a path of this
machine (:func:`_portable`), so a reproduction that reuses every cell leaves a committed results
folder as it was.

It ends by comparing what it computed with the results it replaced, one line per experiment
(:mod:`kmdr.results.compare`). A committed cell whose identity matches is reused, not computed
again, so "replaced" means: each cell this run computed is compared with the row of the same cell
id that ``<results>/<experiment>/cells.csv`` held before the run (read before the experiment
starts; the run never removes it), or with ``--compare-with FOLDER``'s row of that id (``make
reproduce RESULTS=/tmp/check`` compares with ``results/``); reused cells are counted as reused,
and a computed cell with no row of its id there is counted as new. The comparison informs, it
does not change the exit status; ``kmdr-compare OLD NEW`` is the check that fails.

All experiments run in this one process and share one pool of worker processes, started (and its
workers' imports done) while the first experiment is being prepared (one
:class:`kmdr.engine.session.Session` for the loop). Each experiment's summaries and figures are
written once (``make reproduce`` does not redraw them; nor those of an experiment that computed
nothing and is drawn already: :func:`kmdr.app.drawing.drawn_already`) by one background process at
low CPU priority, while the next experiment computes: drawing takes 1-2 s per experiment, which the
workers would otherwise sit out. The script returns when every figure is written; a figure that
fails to draw is reported and never costs a CSV (``kmdr-figures`` redraws it). The wall time
recorded per experiment is that of its cells, without the drawing.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
import time
import warnings
from pathlib import Path
from typing import NoReturn

from kmdr._errors import CommandParser, exit_error
from kmdr.engine.signals import STOP_SIGNALS  # standard library only: no numpy yet

#: The stop signals, blocked in the main thread from here until the drawing process has started
#: (:meth:`Drawer.start`): native threads started meanwhile (BLAS's, when numpy is imported)
#: inherit the block, so a Ctrl-C can never land on one of them while :func:`_signals_held` has
#: it ignored (it would be discarded: a lost Ctrl-C and exit 0). The signal waits, not lost.
_MASK_AT_START = (
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    if __name__ == "__main__" and hasattr(signal, "pthread_sigmask")
    else None
)

#: The project's folder (this script's parent's): paths inside it are written relative to it.
PROJECT = Path(__file__).resolve().parents[1]

#: What ``preset.reproduce`` values this script runs, in this order (then by ``preset.order``).
REPRODUCE = ("paper", "diagnostic")


def composed(results: str = "results", quick: bool = False, extra=()) -> dict:
    """Every preset of ``conf/experiment``, composed and checked as ``kmdr experiment=<name>``
    would be (:func:`kmdr.app.compose.compose_job`, with ``results_dir``, ``quick`` and the
    extra overrides): its :class:`~kmdr.config.schema.Configured`, by name. All are composed before
    any runs, so a bad override stops the script before any work."""
    from kmdr.app.compose import group_options, initialized

    fixed = [f"results_dir={results}", f"quick={str(quick).lower()}", *extra]
    with initialized():
        names = group_options("experiment")
    return {name: _composed_one(name, fixed, extra) for name in names}


def _composed_one(name: str, fixed: list[str], extra) -> object:
    """Preset ``name`` composed with ``fixed``, leaving out (with a line) what applies to the
    other presets only: an extra override its kind does not read (``--override repeats=1`` is
    every sweep's, not bmd09_fig1's, whose leverage scores have no repetitions), and ``--quick``
    for a preset without a reduced grid (its full protocol runs)."""
    from kmdr.app.compose import compose_job
    from kmdr.config.errors import ConfigError
    from kmdr.config.overrides import UnreadSetting

    overrides = [f"experiment={name}", *fixed]
    while True:
        try:
            with warnings.catch_warnings():  # an override it does not read: left out here
                warnings.simplefilter("error", UnreadSetting)
                job = compose_job(overrides)
            if "quick=true" in fixed and "quick=true" not in overrides:
                print(f"[reproduce] {name}: no reduced grid; its full protocol runs", flush=True)
            return job
        except ConfigError:
            # quick=true is refused for a preset without a reduced grid (a typo in one fails
            # without quick too): composed again without it, or its other error raised
            if "quick=true" not in overrides:
                raise
            overrides.remove("quick=true")
        except UnreadSetting as err:
            if err.override not in extra:
                raise
            print(
                f"[reproduce] {name}: --override {err.override} left out ({err.setting} {err.why})",
                flush=True,
            )
            overrides.remove(err.override)


def in_order(configs: dict) -> list[str]:
    """The presets to reproduce: paper ones, then diagnostic ones, each in ``preset.order``."""
    chosen = [
        (name, job.experiment.preset)
        for name, job in configs.items()
        if job.experiment.preset.reproduce in REPRODUCE
    ]
    chosen.sort(key=lambda p: (REPRODUCE.index(p[1].reproduce), p[1].order, p[0]))
    return [name for name, _ in chosen]


def experiments() -> list[str]:
    """The names :func:`main` runs, in its order."""
    return in_order(composed())


@contextlib.contextmanager
def _signals_held():
    """Ctrl-C (and the other stop signals) held back meanwhile, not lost, and ignored by a
    process started meanwhile, so Ctrl-C stops this script, not its drawing process halfway
    through an import with a traceback of its own (the script then shuts that process down).

    The stop signals are blocked in this thread and ignored; on Linux a blocked signal stays
    pending even when ignored, and every other thread blocks them too (the drawer starts before
    any other Python thread, and native ones inherit the block set at the script's start: see
    :data:`_MASK_AT_START`), so a Ctrl-C meanwhile is delivered when the block ends. A no-op
    outside the main thread."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)  # a held signal is handled now


class Drawer:
    """Draws finished experiments in one background process, in the order they finished."""

    def __init__(self) -> None:
        self._pool = None
        self._pending: list[tuple[Path, object]] = []

    def start(self) -> None:
        """Start the drawing process now, before this script starts any thread or worker (see
        :func:`_signals_held`); it imports what drawing needs at its first figure. Then the stop
        signals blocked since the script started (:data:`_MASK_AT_START`) are let through: one
        held meanwhile is handled now."""
        try:
            self._start()
        finally:
            if _MASK_AT_START is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, _MASK_AT_START)

    def _start(self) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        from multiprocessing import resource_tracker

        nice = getattr(os, "nice", None)  # the drawing yields the cores to the workers
        # multiprocessing's resource tracker starts with the first spawned process, and its start
        # unblocks SIGINT and SIGTERM in this thread: start it before the stop signals are held,
        # or a Ctrl-C in the window would find them unblocked and ignored, and be lost.
        resource_tracker.ensure_running()
        try:
            with _signals_held():  # inherited by the process it starts: Ctrl-C is ours
                self._pool = ProcessPoolExecutor(
                    max_workers=1,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=nice,
                    initargs=(10,) if nice else (),
                )
                self._pool.submit(os.getpid)  # the process starts (here) on a first task
        except Exception:  # no background process here: draw in this one
            self._pool = None

    def submit(self, experiment_dir: Path) -> None:
        from concurrent.futures import Future

        from kmdr.app.drawing import draw

        try:
            if self._pool is None:
                raise RuntimeError("no drawing process")
            future = self._pool.submit(draw, experiment_dir)
        except Exception:  # no background process here: draw in this one
            future = Future()
            future.set_result(draw(experiment_dir))
        self._pending.append((experiment_dir, future))

    def finish(self, results: Path) -> None:
        """Wait for every figure; print what failed to draw (the CSVs are intact)."""
        for experiment_dir, future in self._pending:
            try:
                messages = future.result()
            except Exception as err:  # the drawing process died
                messages = [
                    f"[reproduce] warning: the figures of {experiment_dir.name} were not drawn "
                    f"({type(err).__name__}: {' '.join(str(err).split())}); the CSVs are intact, "
                    f"draw them with `kmdr-figures {results}`"
                ]
            for msg in messages:
                print(msg, file=sys.stderr, flush=True)
        self._pending = []
        self.close(wait=True)

    def close(self, wait: bool) -> None:
        """Stop the drawing process; ``wait=False`` leaves a drawing still running behind (the
        figures can be redrawn from the CSVs)."""
        if self._pool is not None:
            # An idle process is always waited for, which takes a moment: an executor left
            # shutting down while the script exits races its own exit handler, which then writes
            # to a pipe the executor has just closed (an OSError traceback after the one line).
            busy = any(not future.done() for _, future in self._pending)
            self._pool.shutdown(wait=wait or not busy, cancel_futures=not wait)
            self._pool = None


def main(argv: list[str] | None = None) -> int:
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from kmdr.config.errors import ConfigError, config_line

    parser = CommandParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="results", help="results folder (default: results)")
    parser.add_argument("--quick", action="store_true", help="the reduced grids (quick_grid)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these experiments")
    parser.add_argument(
        "--override",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="extra Hydra overrides for every experiment (e.g. n_jobs=4)",
    )
    parser.add_argument(
        "--compare-with",
        type=Path,
        metavar="FOLDER",
        help="compare the computed cells with this results folder's (default: with what the "
        "results folder held before the run)",
    )
    args = parser.parse_args(argv)
    if args.compare_with is not None and not args.compare_with.is_dir():
        what = "is a file" if args.compare_with.exists() else "does not exist"
        # before any work: each computed cell would be "new" against nothing, without a word
        parser.error(
            f"--compare-with {args.compare_with} {what}; give the results folder to compare "
            "the computed cells with (e.g. results)"
        )
    try:
        configs = composed(args.results, args.quick, args.override)
        all_names = in_order(configs)
    except (ConfigError, HydraException, OmegaConfBaseException) as err:
        exit_error(parser.prog, config_line(err))
    unknown = [name for name in args.only or () if name not in all_names]
    if unknown:
        parser.error(
            f"--only {' '.join(unknown)}: not an experiment make reproduce runs; choose from "
            f"{', '.join(all_names)}"
        )

    from kmdr.engine.signals import interrupt, received, stop_on_signals

    results = Path(args.results)
    names = args.only or all_names
    mode = "quick (reduced grids)" if args.quick else "full protocols"
    print(f"[reproduce] {len(names)} experiments, {mode}, into {results}/", flush=True)
    # SIGTERM and SIGHUP stop the script as Ctrl-C does (kmdr.engine.signals).
    with stop_on_signals():
        try:
            reference = args.compare_with or results
            return _reproduce(configs, names, all_names, results, mode, reference)
        except KeyboardInterrupt as err:
            _interrupted(err, results)
        except Exception as err:  # a run that failed (a cell, the backend, a claim): one line
            if received() is not None:  # an interrupt library code turned into this error
                _interrupted(interrupt(received()), results)
            from kmdr.app.task import RunError

            what = str(err) if isinstance(err, RunError) else f"{type(err).__name__}: {err}"
            print(
                f"[reproduce] failed ({' '.join(what.split())}); finished cells are kept under "
                f"{results}: run the same command to resume",
                file=sys.stderr,
                flush=True,
            )
            return 1


def _interrupted(err: BaseException, results: Path) -> NoReturn:
    from kmdr.engine.signals import describe, exit_stopped

    print(
        f"[reproduce] {describe(err)}; finished cells are kept under {results}: run the same "
        "command to resume",
        file=sys.stderr,
        flush=True,
    )
    exit_stopped(err)


def _reproduce(
    configs: dict,
    names: list[str],
    all_names: list[str],
    results: Path,
    mode: str,
    reference: Path,
):
    """Run ``names`` (see :func:`main`), comparing each one's computed cells with
    ``reference``'s; 0, or 2 on a configuration error."""
    import pandas as pd

    from kmdr._io import atomic_write_text
    from kmdr.app.drawing import drawn_already
    from kmdr.app.task import execute
    from kmdr.config.errors import ConfigError
    from kmdr.engine.session import close_default_session
    from kmdr.engine.signals import raise_if_received
    from kmdr.results.compare import replaced_line, snapshot

    rows, compared = [], []
    start_all = time.perf_counter()
    drawer = Drawer()
    drawer.start()  # first: before any other thread (see _signals_held)
    try:
        for name in names:
            raise_if_received()  # a stop some library code swallowed never starts the next one
            print(f"[reproduce] {name} ...", flush=True)
            start = time.perf_counter()
            job = configs[name]
            before = snapshot(reference / name)  # the rows this run's cells replace
            try:
                # The one way a run goes (kmdr.app.task.execute, as the command line and
                # kmdr.run), in the process's one session: later experiments reuse its warm
                # workers. It draws nothing: the drawer draws it while the next one runs.
                outcome, _, output = execute(job)  # a skipped one's outcome says why
            except ConfigError as err:
                raise_if_received()  # an interrupt a parser or reader turned into an error
                print(f"[reproduce] {name}: {err}", file=sys.stderr)
                return 2
            wall = time.perf_counter() - start
            _forget_if_unchanged(outcome)
            if (
                output.figures
                and not outcome.skipped
                and not drawn_already(outcome, job.experiment.kind)
            ):
                drawer.submit(outcome.experiment_dir)
            rows.append(_row(name, outcome, wall))
            compared.append(replaced_line(name, outcome, before))
        drawer.finish(results)
    finally:
        close_default_session()
        drawer.close(wait=False)  # interrupted or failed: the figures can be redrawn from CSVs
    total = time.perf_counter() - start_all

    table = pd.DataFrame(rows)
    results.mkdir(parents=True, exist_ok=True)
    # A partial run (--only) updates its experiments' rows and keeps the others', so the times
    # file and SKIPPED.md always describe the whole results folder.
    times_path = results / "reproduce_times.csv"
    recorded = _recorded_times(times_path)
    if not recorded.empty:
        recorded = recorded[~recorded["experiment"].isin(_replacing(table, recorded))]
        table_new = table[~table["experiment"].isin(recorded["experiment"])]
    else:
        table_new = table
    merged = pd.concat([recorded, table_new], ignore_index=True) if len(recorded) else table
    order = {name: i for i, name in enumerate(all_names)}
    merged = merged.sort_values("experiment", key=lambda s: s.map(order).fillna(len(order)))
    buf = io.StringIO()
    merged.to_csv(buf, index=False)
    atomic_write_text(times_path, buf.getvalue())
    skipped = merged[merged["status"] == "skipped"]
    lines = ["# Experiments skipped by `scripts/reproduce.py`", ""]
    if skipped.empty:
        lines.append("None: every experiment's data was available.")
    else:
        lines.append("Their data could not be obtained here; the reason is the loader's message.")
        lines.append("")
        lines += [f"- `{r.experiment}`: {r.reason}" for r in skipped.itertuples()]
    atomic_write_text(results / "SKIPPED.md", "\n".join(lines) + "\n")

    print(f"\n[reproduce] wall time per experiment ({mode}):")
    print("| experiment | status | cells | computed | wall (s) |")
    print("|---|---|---:|---:|---:|")
    for r in table.itertuples():
        print(f"| {r.experiment} | {r.status} | {r.cells} | {r.computed} | {r.wall_seconds:.1f} |")
    print(f"| total | | {int(table.cells.sum())} | {int(table.computed.sum())} | {total:.1f} |")
    if not skipped.empty:
        print(
            f"[reproduce] {len(skipped)} skipped (reasons in {results / 'SKIPPED.md'}): "
            f"{', '.join(skipped.experiment)}"
        )
    print(
        f"\n[reproduce] the cells computed now against the rows of the same cell id in "
        f"{reference}/ before the run (reused cells were not computed again):"
    )
    for line in compared:
        print(line)
    return 0


def _forget_if_unchanged(outcome) -> None:
    """Remove the run record of a skip for the reason the folder's latest record already gives.
    The record would only say that nothing happened, and a reproduction that changes nothing must
    leave the results folder as it was (no new file for git to show); a run that only reused
    cells removes its own record (:meth:`kmdr.engine.session.Session.run`). The folder is the
    run's own, which a preset that names its jobs after their dataset does not share with the
    preset's name."""
    from kmdr.results.runs import load_runs, skip_reasons

    record = outcome.experiment_dir / "runs" / f"{outcome.run_id}.json"
    if not record.is_file() or not outcome.skipped:
        return
    runs = load_runs(outcome.experiment_dir)
    this = [r for r in runs if r.get("run_id") == outcome.run_id]
    before = [r for r in runs if r.get("run_id") != outcome.run_id]
    prior = skip_reasons(outcome.experiment_dir, before)[-1:]
    # compared as committed (without the paths of the clone that ran each skip)
    now = [_portable(t) for t in skip_reasons(outcome.experiment_dir, this)]
    if prior and now == [_portable(t) for t in prior]:
        record.unlink()


def _row(name: str, outcome, wall: float) -> dict:
    """Print how the experiment ended; its row of ``reproduce_times.csv``."""
    if outcome.skipped:
        status, reason = "skipped", _portable(outcome.skipped)
        print(f"[reproduce] {name}: SKIPPED: {reason}", flush=True)
    else:
        status, reason = "done", ""
        print(
            f"[reproduce] {name}: {outcome.n_expected} cells ({outcome.n_computed} "
            f"computed, {outcome.n_reused} reused) in {wall:.1f} s",
            flush=True,
        )
    return {
        "experiment": name,
        "status": status,
        "wall_seconds": round(wall, 2),
        "cells": outcome.n_expected,
        "computed": outcome.n_computed,
        "reused": outcome.n_reused,
        "reason": reason,
    }


def _replacing(table, recorded) -> list[str]:
    """The experiments whose row of ``table`` (this run's) replaces the recorded one: those
    that computed cells, changed status, or were skipped for another reason. A run that reused
    every cell, or was skipped as before, keeps the recorded row: its time says how long the
    cells took to compute, not how long finding them took."""
    before = {r.experiment: r for r in recorded.itertuples()}
    out = []
    for row in table.itertuples():
        old = before.get(row.experiment)
        same = (
            old is not None
            and int(row.computed) == 0
            and str(old.status) == str(row.status)
            and (row.status != "skipped" or _portable(str(old.reason)) == str(row.reason))
        )
        if not same:
            out.append(row.experiment)
    return out


def _portable(text: str) -> str:
    """``text`` without this machine's absolute paths (the files are committed and read
    elsewhere): a path inside the project is written relative to it, the data mirror as
    ``$KMDR_DATA_MIRROR``, any other as its file name (:func:`kmdr.report.experiments.
    public_text`)."""
    from kmdr.report.experiments import public_text

    mirror = os.environ.get("KMDR_DATA_MIRROR", "").rstrip("/")
    if mirror.startswith("/"):
        text = text.replace(mirror + "/", "$KMDR_DATA_MIRROR/")
    for root in dict.fromkeys([PROJECT, Path.cwd().resolve()]):
        text = text.replace(f"{root}/", "")
    return public_text(text)


def _recorded_times(path: Path):
    """Rows an earlier run wrote, one per experiment (empty if none or unreadable)."""
    import pandas as pd

    try:
        return pd.read_csv(path, keep_default_na=False)
    except (OSError, ValueError):
        return pd.DataFrame()


if __name__ == "__main__":
    sys.exit(main())
