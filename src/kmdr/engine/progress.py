"""What a run shows of its progress: a bar where one can be redrawn, lines where it cannot.

- On a terminal, a tqdm bar on stderr.
- In a Jupyter notebook, tqdm's widget when ``ipywidgets`` is installed (the ``notebook``
  extra), else tqdm's text bar; either ends in its final state in the saved notebook.
- Anywhere else (stderr to a log file, a batch job's output): :class:`LogProgress`, lines of the
  ``kmdr`` logger a person can follow in a file: a start line when the cells start, then one line
  every ``progress_every`` seconds (cells done out of all, time elapsed, an estimate of the time
  left), never a carriage return. The run's closing line says how it ended.

``progress=false`` shows neither, ``progress=true`` forces the bar, and a quiet run shows
neither unless ``progress=true`` (:func:`kmdr._log.show_progress`).

The lines come at a steady interval even while no cell finishes (a 6-minute cell): the run's
:class:`~kmdr.engine.session.Session` asks :meth:`LogProgress.tick` every second from its own
thread (:class:`Ticking`), and a line is written when ``progress_every``
seconds have passed.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

from kmdr._log import say


def duration_text(seconds: float) -> str:
    """``42 s``, ``3 min 5 s``, ``2 h 07 min``: how every line of a run says a duration."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class LogProgress:
    """Progress as lines of a log (the tqdm methods a run uses: :meth:`update`, :meth:`close`).

    Parameters
    ----------
    total : the number of cells of the run.
    initial : how many are done already (reused).
    desc : what is counted, e.g. ``"bzmd14_orl: cells"``.
    unit : the unit's name (``"cell"``).
    every : seconds between two progress lines.
    start : the start line's text after ``desc`` (what runs, where results go); None: only the
        counts.
    """

    def __init__(
        self,
        total: int,
        initial: int,
        desc: str,
        unit: str,
        every: float,
        start: str | None = None,
    ):
        self.total, self.n, self.initial = int(total), int(initial), int(initial)
        self.desc, self.unit, self.every = desc, unit, float(every)
        self._lock = threading.Lock()
        self._started = self._said = time.monotonic()
        self._closed = False
        self._postfix = ""
        todo = self.total - self.initial
        counts = f"{todo} of {self.total} {unit}s to compute ({self.initial} reused)"
        say(f"[kmdr] {desc}: start, {counts}" + (f"; {start}" if start else ""))

    def line(self) -> str:
        """The progress line: done out of all, elapsed, and the time left at the rate so far."""
        elapsed = time.monotonic() - self._started
        done = self.n - self.initial
        text = f"[kmdr] {self.desc}: {self.n}/{self.total} {self.unit}s done"
        text += f" ({done} computed), {duration_text(elapsed)} elapsed"
        left = self.total - self.n
        if done > 0 and left > 0:
            text += f", about {duration_text(elapsed / done * left)} left"
        return text + (f"; {self._postfix}" if self._postfix else "")

    def tick(self) -> None:
        """Write the progress line if ``every`` seconds have passed since the last line."""
        with self._lock:
            if self._closed or time.monotonic() - self._said < self.every:
                return
            self._said = time.monotonic()
        say(self.line())

    def update(self, n: int = 1) -> None:
        with self._lock:
            self.n += n
        self.tick()

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        """What the cell in progress is doing (a long cell's k-means: its iteration and
        inertia), at the end of the next progress line."""
        self._postfix = str(text)

    def close(self) -> None:
        with self._lock:
            self._closed = True


def progress_bar(enabled: bool | None, every: float) -> Callable:
    """A factory ``make(total, initial, desc, unit, start=None)`` of the run's progress display
    (see the module docstring): a tqdm bar when :func:`kmdr._log.show_progress` says so, else
    :class:`LogProgress` lines (the ``kmdr`` logger's) every ``every`` seconds unless the run is
    quiet or ``enabled`` is false, else a disabled bar."""
    from kmdr._log import in_notebook, quiet, show_progress

    shown = show_progress(enabled)
    lines = not shown and enabled is None and not quiet()

    def make(total, initial, desc, unit, start=None):
        if lines:
            return LogProgress(total, initial, desc, unit, every, start)
        options = {}
        if shown and in_notebook():
            try:
                import ipywidgets  # noqa: F401
                from tqdm.notebook import tqdm  # a widget
            except ImportError:  # tqdm.auto would warn and draw a widget frozen at 0
                from tqdm.std import tqdm

                options["file"] = sys.stdout  # a notebook paints stderr red
        else:
            from tqdm.std import tqdm

        return tqdm(
            **options,
            mininterval=0.5,
            total=total,
            initial=initial,
            desc=desc,
            unit=unit,
            disable=not shown,
            dynamic_ncols=True,
            smoothing=0.1,
        )

    return make


#: Seconds between two looks of a logged run's progress at the clock (:class:`Ticking`).
TICK = 1.0


class Ticking:
    """``with Ticking(progress):`` calls ``progress.tick()`` every :data:`TICK` seconds from a
    thread while the block runs, when ``progress`` has a ``tick`` (a :class:`LogProgress`: its
    lines then come while no cell finishes; a tqdm bar redraws itself); the thread is joined
    when the block ends."""

    def __init__(self, progress) -> None:
        self.tick = getattr(progress, "tick", None)
        self.stop = threading.Event()
        self.thread = None

    def __enter__(self) -> Ticking:
        if self.tick is not None:
            self.thread = threading.Thread(target=self._repeat, name="kmdr-progress", daemon=True)
            self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join()

    def _repeat(self) -> None:
        while not self.stop.wait(TICK):
            self.tick()
