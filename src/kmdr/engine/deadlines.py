"""``cell_time_limit``: the run's process ends a job that runs past its deadline, from outside.

A job says in its worker when it starts and ends (:func:`watched`, entered by
:func:`kmdr.engine.worker.run_job`); the run's process watches the jobs it started
(:class:`Deadlines`, a thread looking every :data:`POLL` seconds) and ends one that has run past
its budget (the limit times its cells), whatever it computes, Python or one C call that never
returns (an exact SVD in LAPACK):

* on this machine (a worker process: a run of one worker computes in one under a limit, loky,
  multiprocessing), the worker gets SIGKILL. Its pool breaks, which ends the round of jobs; the
  cells that were running beside it were never written and are computed again in the next round;
* on dask, the job's task is cancelled (the run gets its result no more), then its worker is
  restarted through its nanny, which kills a worker whose thread does not stop. The jobs go to
  the cluster as futures of their own (:meth:`Deadlines.on_dask`), not through joblib's dask
  backend: a cancelled future ends only its own job, and dask gives the jobs the restarted
  worker held to the workers it has, so the round goes on. Joblib instead ends the whole call
  at the first cancelled batch, and a call run again while a worker restarts sizes itself on
  the cores the cluster shows then (one: joblib then computes the jobs in the run's own
  process) while the jobs of the ended call still hold the other worker's thread;
* on Ray, the job's task is cancelled with ``force=True``, which kills the worker process
  running it; Ray starts another for the jobs queued. The jobs go to the cluster as Ray tasks
  of their own (:meth:`Deadlines.on_ray`), not through Ray's joblib backend: that one runs them
  on actors, whose running tasks Ray cannot end. A job says when it starts to a small actor of
  the run's (:class:`_Starts`, no CPU of its own), which the run's process reads at each look.

The job is ended within :data:`POLL` seconds of its deadline; the run states a grace of
:func:`grace` (twice the limit for a limit below :data:`GRACE` seconds, the limit plus
:data:`GRACE` above), which covers a loaded machine's late look. Ending jobs from the run's
process rather than in the worker (an alarm, faulthandler's watchdog exiting it): the run then
knows which job it ended and for how long that job had run (the record keeps it), an alarm
never reaches a C call, and a worker exiting by itself on dask is restarted and given the same
task again by the scheduler. Each job's clock starts when it starts on its worker, not when it
is queued, and its own messages (the start and end) carry no clock of the worker's: a dask
worker's clock need not agree with this one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from kmdr.engine.cell_kinds import Watch

#: Seconds between two looks of the run's process at its jobs' deadlines.
POLL = 0.1
#: The most seconds a job may run past its budget before it is ended (a limit below this gets
#: twice itself).
GRACE = 5.0
#: The prefix of a channel that is a dask event topic (else a folder on this machine, or on Ray
#: the run's :class:`_Starts` actor).
_DASK = "kmdr-job-"


def _index(call) -> int:
    """The index of the job a joblib ``delayed`` call of :func:`~kmdr.engine.worker.run_job`
    computes: its :class:`~kmdr.engine.cell_kinds.Job`'s watch."""
    _, _, kwargs = call
    return kwargs["job"].watch.index


def _sent(kwargs: dict, instead: dict) -> dict:
    """A job's keyword arguments with each shared object replaced by what stands for it on the
    cluster (``instead``, by the object's id: a dask future, a Ray object reference)."""
    return {name: instead.get(id(value), value) for name, value in kwargs.items()}


def grace(limit: float) -> float:
    """The seconds past ``limit`` within which a job is ended (see the module docstring)."""
    return min(float(limit), GRACE)


@contextlib.contextmanager
def watched(watch: Watch | None) -> Iterator[None]:
    """In a worker: the job ``watch`` names (its run's channel, its round and its index) starts,
    runs the block, then ends; None: the run has no limit."""
    if watch is None:
        yield
        return
    channel, round_, index = watch.channel, watch.round, watch.index
    if not isinstance(channel, str):  # Ray: its end is its task's result, which the run awaits
        channel.started.remote(round_, index)
        yield
        return
    if channel.startswith(_DASK):
        from distributed import get_worker

        worker = get_worker()
        worker.log_event(channel, (round_, index, worker.get_current_task(), worker.address))
        try:
            yield
        finally:
            worker.log_event(channel, (round_, index, None, None))
        return
    path = Path(channel) / f"{round_}-{index}"
    part = path.with_suffix(".part")
    part.write_text(str(os.getpid()))
    os.replace(part, path)  # the run's process reads a whole pid or nothing
    try:
        yield
    finally:
        path.unlink(missing_ok=True)


class Deadlines:
    """The run's process's watch on its jobs' deadlines while the block runs (see the module
    docstring): ``budgets`` maps a job's index to its seconds; ``client``: the run's dask client
    (its jobs report through its events and run through :meth:`on_dask`, given ``shared``, the
    objects every job gets), else None: on Ray (``ray``) they run through :meth:`on_ray`,
    else they report through a folder of this machine.
    :attr:`stopped` maps each job it ended to the seconds that job had run, :meth:`returned`
    takes back a job whose result came in anyway. Jobs run in rounds (:meth:`new_round`): a job
    run again after a round ended is a new one, whatever the old one left behind."""

    def __init__(
        self, budgets: dict[int, float], client=None, shared: tuple = (), ray: bool = False
    ):
        self.budgets = budgets
        self.client = client
        self.ray = ray
        self.shared = shared  # on dask and Ray: the objects every job gets, sent once
        self._tasks: dict[int, object] = {}  # on Ray: index -> the job's task (ObjectRef)
        self.stopped: dict[int, float] = {}
        self._running: dict[int, tuple[object, float]] = {}  # index -> (where, since)
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._returned: set[int] = set()  # a dask job's start may come after its result
        self._restarts: list[threading.Thread] = []
        self.channel: object = ""
        self.round = 0

    def __enter__(self) -> Deadlines:
        if self.client is not None:
            self.channel = f"{_DASK}{os.getpid()}-{id(self)}"
            self.client.subscribe_topic(self.channel, self._event)
        elif self.ray:
            import ray

            self.channel = ray.remote(num_cpus=0)(_Starts).remote()
        else:
            self.channel = tempfile.mkdtemp(prefix="kmdr-jobs-")
        self._thread = threading.Thread(target=self._watch, name="kmdr-deadlines", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()
        for thread in self._restarts:  # a dask worker restarting: back before the cluster ends
            thread.join()
        if self.client is not None:
            self.client.unsubscribe_topic(self.channel)
        elif self.ray:
            import ray

            ray.kill(self.channel)
        else:
            shutil.rmtree(self.channel, ignore_errors=True)

    def new_round(self) -> None:
        """Forget the jobs of the last round: from now on only this round's are watched."""
        with self._lock:
            self.round += 1
            self._running.clear()

    def watch(self, index: int) -> Watch:
        """What the job ``index`` is given to say when it starts and ends (:func:`watched`)."""
        return Watch(self.channel, self.round, index)

    def on_dask(self, jobs: Iterable) -> Iterator:
        """The results of ``jobs`` (joblib ``delayed`` calls, each given :meth:`watch`) computed
        on the run's dask cluster, each as it comes; a job this watch stopped gives none.

        The shared objects go to every worker once, as futures the jobs take in their place.
        Scattered data has no lineage: when every worker holding it was restarted (two jobs
        stopped at once), dask forgets it and cancels the jobs waiting on it. Those jobs were
        ended by a restart, not by their cells: once the workers are back, the data is
        scattered again and they are submitted again, each at most once per restart. A job
        cancelled otherwise raises dask's error."""
        from distributed import as_completed

        client = self.client
        # index -> (func, args, kwargs), a joblib ``delayed`` call of run_job
        calls = {_index(call): call for call in jobs}
        held: list = []  # the shared objects' futures
        running: dict[str, tuple] = {}  # key -> (future, job index)
        again = dict.fromkeys(calls, 0)  # the times each job was submitted again

        def submit(index: int):
            if not held or _lost(client, held):
                held[:] = client.scatter(list(self.shared), broadcast=True, hash=False)
            instead = {id(obj): f for obj, f in zip(self.shared, held, strict=True)}
            func, args, kwargs = calls[index]
            future = client.submit(func, *args, pure=False, **_sent(kwargs, instead))
            running[future.key] = (future, index)
            return future

        pending = as_completed([submit(index) for index in calls])
        try:
            for future in pending:
                _, index = running.pop(future.key)
                if future.status != "cancelled":
                    yield future.result()
                    continue
                with self._lock:
                    if index in self.stopped:
                        continue
                    restarts = list(self._restarts)
                if again[index] >= len(restarts):  # not a restart's doing
                    future.result()  # raises what dask says
                again[index] += 1
                for restart in restarts:  # the restarted workers back before the scatter
                    restart.join()
                pending.add(submit(index))
        finally:  # a job left when the run stops or a job failed: not computed for nothing
            client.cancel([future for future, _ in running.values()], force=True)

    def on_ray(self, jobs: Iterable) -> Iterator:
        """The results of ``jobs`` (joblib ``delayed`` calls, each given :meth:`watch`) computed
        as Ray tasks of one CPU each, never retried, each as it comes; a job this watch stopped
        (its task cancelled with ``force=True``) gives none. The shared objects go to Ray's
        object store once, and the jobs take them from there. A job's own error is raised as
        it is (Ray's wrapper of it says no more)."""
        import ray
        from ray.exceptions import RayTaskError

        held = [ray.put(obj) for obj in self.shared]
        instead = {id(obj): ref for obj, ref in zip(self.shared, held, strict=True)}
        running: dict = {}  # task -> job index
        for func, args, kwargs in jobs:
            task = ray.remote(num_cpus=1, max_retries=0)(func).remote(
                *args, **_sent(kwargs, instead)
            )
            running[task] = _index((func, args, kwargs))
            with self._lock:
                self._tasks[running[task]] = task
        try:
            while running:
                ready, _ = ray.wait(list(running), num_returns=1, timeout=POLL)
                for task in ready:
                    index = running.pop(task)
                    try:
                        result = ray.get(task)
                    except Exception as err:
                        with self._lock:
                            if index in self.stopped:
                                continue
                        if isinstance(err, RayTaskError) and err.cause is not None:
                            raise err.cause from None
                        raise
                    yield result
        finally:  # a job left when the run stops or a job failed: not computed for nothing
            for task in running:
                ray.cancel(task, force=True)
            with self._lock:
                self._tasks.clear()

    def returned(self, index: int) -> None:
        """The job ``index`` came back with its result: it is not one that was stopped."""
        with self._lock:
            self.stopped.pop(index, None)
            self._running.pop(index, None)
            self._returned.add(index)

    def running_pids(self) -> list[int]:
        """The worker processes of this machine computing a job now."""
        with self._lock:
            return [w for w, _ in self._running.values() if isinstance(w, int)]

    def _event(self, event) -> None:
        """A dask job's start or end (``(round, index, task key, worker address)``; key None:
        the end), from the client's event loop."""
        round_, index, key, worker = event[1]
        with self._lock:
            if round_ != self.round:
                return
            if key is None:
                self._running.pop(index, None)
            elif index not in self.stopped and index not in self._returned:
                self._running[index] = ((key, worker), time.monotonic())

    def _look_at_starts(self) -> None:
        """The Ray jobs started since the last look, from the run's :class:`_Starts` actor."""
        import ray

        started = ray.get(self.channel.take.remote())
        now = time.monotonic()
        with self._lock:
            for round_, index in started:
                task = self._tasks.get(index)
                if round_ != self.round or task is None:
                    continue
                if index not in self.stopped and index not in self._returned:
                    self._running[index] = (task, now)

    def _look_at_folder(self) -> None:
        """The jobs started and ended since the last look, from the channel folder."""
        names = os.listdir(self.channel)
        now = time.monotonic()
        with self._lock:
            prefix = f"{self.round}-"  # a ".part" file is a start being written
            started = {
                int(n[len(prefix) :]): n
                for n in names
                if n.startswith(prefix) and n[len(prefix) :].isdigit()
            }
            for index in [i for i in self._running if i not in started]:
                del self._running[index]
            for index, name in started.items():
                if index in self._running or index in self.stopped:
                    continue
                try:
                    pid = int((Path(self.channel) / name).read_text())
                except (OSError, ValueError):  # ended since the listing
                    continue
                self._running[index] = (pid, now)

    def _watch(self) -> None:
        while not self._done.wait(POLL):
            if self.ray:
                self._look_at_starts()
            elif self.client is None:
                self._look_at_folder()
            now = time.monotonic()
            with self._lock:
                late = [
                    (index, where, now - since)
                    for index, (where, since) in self._running.items()
                    if now - since > self.budgets[index]
                ]
                for index, _, seconds in late:
                    self.stopped[index] = round(seconds, 3)
                    del self._running[index]
            for _, where, _ in late:
                self._stop(where)

    def _stop(self, where) -> None:
        if isinstance(where, int):
            with contextlib.suppress(ProcessLookupError):
                os.kill(where, signal.SIGKILL)
            return
        if self.ray:
            import ray

            ray.cancel(where, force=True)
            return
        from distributed import Future

        key, worker = where
        self.client.cancel([Future(key, self.client)], force=True)
        restart = threading.Thread(
            target=self.client.restart_workers, args=([worker],), kwargs={"raise_for_error": False},
            name="kmdr-restart-worker", daemon=True,
        )  # fmt: skip
        with self._lock:  # known before its worker goes: on_dask reads why its jobs ended
            restart.start()
            self._restarts.append(restart)


class _Starts:
    """On Ray, the run's record of its jobs' starts (a Ray actor: jobs on any node reach it):
    each job says ``started`` in its worker, the run's process takes those said since its last
    look."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, int]] = []

    def started(self, round_: int, index: int) -> None:
        self.seen.append((round_, index))

    def take(self) -> list[tuple[int, int]]:
        seen, self.seen = self.seen, []
        return seen


def _lost(client, futures) -> bool:
    """Whether some of ``futures`` (scattered data) is held by no worker any more."""
    from distributed.client import FuturesCancelledError

    if any(f.status != "finished" for f in futures):
        return True
    try:
        return not all(client.who_has(futures).values())
    except FuturesCancelledError:  # dask said so since
        return True
