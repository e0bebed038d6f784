"""What the process tests share: start ``kmdr`` as a real process in its own session, wait for a
STATE (a file, a sidecar's status, a line on stderr), find its workers, and a user's plugin
reducer that misbehaves on demand (sleeps, exits, dies) in the cell a test chooses."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

#: Generous bound of every wait: a wait ends on its state, this only stops a hang.
TIMEOUT = 240.0

PLUGIN = '''
"""A dataset that never loads, and a reducer that misbehaves as $KMDR_TEST_MISBEHAVE says
("<action>:<r>") in its cells of that r, and is a plain random projection otherwise
("import_sigint:0" and "gc_hold:0" act when the module is imported, see below)."""

import os
import sys
import time

import numpy as np

from kmdr.reducers import BaseReducer, ReducerEntry

if os.environ.get("KMDR_TEST_MISBEHAVE", "").startswith("import_sigint"):
    # A library that loses a Ctrl-C met while it is imported: the signal arrives, and the
    # KeyboardInterrupt it raises comes out as an ImportError, raised while handling it
    # ("import_sigint:0") or after, which leaves no trace of it ("import_sigint_lost:0").
    import signal

    lost = None
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
    except BaseException as err:
        if "_lost" not in os.environ["KMDR_TEST_MISBEHAVE"]:
            raise ImportError(f"import cut short ({type(err).__name__})") from None
        lost = type(err).__name__
    if lost:
        raise ImportError(f"import cut short ({lost})")

if os.environ.get("KMDR_TEST_MISBEHAVE", "").startswith("gc_hold:"):
    # A garbage-collector callback (as distributed registers one) that holds the run's process
    # once, until the signal the test sends: Python can only print an exception raised there.
    import gc

    def _hold(phase, info):
        if phase != "start" or os.path.exists(os.environ["KMDR_TEST_RELEASE"]):
            return
        open(os.environ["KMDR_TEST_RELEASE"], "w").close()
        time.sleep(30)

    gc.callbacks.append(_hold)


class Misbehave(BaseReducer):
    def __init__(self, n_components=2, random_state=None):
        self.n_components = n_components
        self.random_state = random_state

    def _fit(self, X, shared_value):
        action, _, r = os.environ.get("KMDR_TEST_MISBEHAVE", "none:0").partition(":")
        if int(r) in (0, self.n_components_):
            if action == "sleep":
                time.sleep(3600)
            if action.startswith("svd"):  # one LAPACK call: an exact SVD of an n x n matrix
                n = int(action[3:])
                if os.environ.get("KMDR_TEST_RELEASE"):  # the process computing it: its pid
                    with open(os.environ["KMDR_TEST_RELEASE"], "a") as out:
                        out.write(f"{os.getpid()}\\n")
                np.linalg.svd(np.random.default_rng(0).standard_normal((n, n)))
            if action == "stuck":  # as a C call that never returns: no signal gets through
                import signal

                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
                time.sleep(3600)
            if action == "hold":  # until the test creates $KMDR_TEST_RELEASE
                while not os.path.exists(os.environ["KMDR_TEST_RELEASE"]):
                    time.sleep(0.05)
            if action == "exit":
                sys.exit(0)
            if action == "os_exit":
                os._exit(3)
            if action == "keyboard":
                raise KeyboardInterrupt
            if action == "pid":  # which process computes the cell: its pid, one line per fit
                with open(os.environ["KMDR_TEST_RELEASE"], "a") as out:
                    out.write(f"{os.getpid()}\\n")
            if action == "stderr":  # what a library prints in the worker that computes
                print("a worker's own line on stderr", file=sys.stderr, flush=True)
            if action == "raise":  # an ordinary error deep in a reducer
                raise ZeroDivisionError("the reducer divided by zero")
            if action == "base":
                class Abort(BaseException):
                    pass
                raise Abort("the reducer gave up")
        rng = np.random.default_rng(self.random_state)
        self.components_ = rng.standard_normal((X.shape[1], self.n_components_))

    def _transform(self, X):
        return X @ self.components_


MISBEHAVE = ReducerEntry(Misbehave, "Misbehave", paper="a test's plugin")


def load_blocking(n_samples=100):
    """A dataset whose loading never ends (a stuck download), once $KMDR_TEST_LOADING exists."""
    open(os.environ["KMDR_TEST_LOADING"], "w").close()
    while True:
        time.sleep(0.05)
'''

EXPERIMENT = """
# @package _global_
defaults:
  - override /dataset: synth
  - override /reducer: null
name: faulty
dataset:
  name: synth
  params: {n_samples: 150, n_features: 30, n_clusters: 3}
reducers:
  sign: {name: sign, params: {}}
  misbehave: {name: misbehave, params: {}}
r_grid: [2, 4, 6]
repeats: 1
kmeans: {n_init: 1, max_iter: 50, init: k-means++, tol: 0.0}
figures: false
progress: false
blas_threads: 1
"""


#: Imported at start-up by every Python process of a run that sees the plugin: a worker process
#: (loky's or a dask LocalCluster's) that starts while $KMDR_TEST_WORKER_START names a folder
#: writes its pid there and takes seconds more to start, as a worker importing the scientific
#: stack on a loaded machine does: the window where a Ctrl-C meets a worker still importing.
SITECUSTOMIZE = """
import os
import sys
import time

_WORKER = ("popen_loky_posix", "spawn_main")
if os.environ.get("KMDR_TEST_WORKER_START") and any(
    w in arg for arg in sys.orig_argv for w in _WORKER
):
    open(os.path.join(os.environ["KMDR_TEST_WORKER_START"], str(os.getpid())), "w").close()
    time.sleep(4)
"""


def make_plugin(root: Path) -> Path:
    """Write the plugin package (an entry point on a folder) and a config folder with the
    ``faulty`` preset under ``root`` (the plug-in's reducer and dataset need no config file);
    return ``root``."""
    site = root / "site"
    site.mkdir(parents=True, exist_ok=True)
    (site / "kmdr_misbehave.py").write_text(textwrap.dedent(PLUGIN))
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE.lstrip())
    info = site / "kmdr_misbehave-0.1.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kmdr-misbehave\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[kmdr.reducers]\nmisbehave = kmdr_misbehave:MISBEHAVE\n\n"
        "[kmdr.datasets]\nblocking = kmdr_misbehave:load_blocking\n"
    )
    conf = root / "conf" / "experiment"
    conf.mkdir(parents=True, exist_ok=True)
    (conf / "faulty.yaml").write_text(textwrap.dedent(EXPERIMENT).lstrip())
    return root


def _default_stop_signals() -> None:
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


class Proc:
    """A command running in its own session, its stderr collected by a thread."""

    def __init__(self, args: list[str], env: dict | None = None, cwd=None):
        full_env = {**os.environ, "OMP_NUM_THREADS": "1", **(env or {})}
        self.popen = subprocess.Popen(
            args,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=full_env,
            cwd=cwd,
            start_new_session=True,
            # Default dispositions of the stop signals, whatever this suite inherited: a suite
            # started with nohup or as a background job of a script ignores SIGHUP or SIGINT,
            # and kmdr, rightly, keeps a signal its parent chose to ignore.
            preexec_fn=_default_stop_signals,
        )
        self.pid = self.popen.pid
        self._lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.popen.stderr:
            self._lines.append(line)

    @property
    def stderr(self) -> str:
        return "".join(self._lines)

    def signal(self, signum: int, group: bool = False) -> None:
        if group:
            os.killpg(self.pid, signum)
        else:
            os.kill(self.pid, signum)

    def wait(self, timeout: float = TIMEOUT) -> int:
        code = self.popen.wait(timeout=timeout)
        self._reader.join(timeout=10)
        return code

    def kill(self) -> None:
        """End the whole session (cleanup: a stopped process is continued first)."""
        try:
            os.killpg(self.pid, signal.SIGCONT)
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.popen.wait(timeout=30)


def kmdr(*args: str, env: dict | None = None, cwd=None) -> Proc:
    return Proc([sys.executable, "-m", "kmdr.app", *args], env=env, cwd=cwd)


def plugin_env(root: Path, action: str = "none:0", release: Path | None = None) -> dict:
    """The environment of a run that sees the plugin and misbehaves as ``action`` says
    (``hold`` holds until the file ``release`` exists)."""
    path = os.pathsep.join([str(root / "site"), *sys.path])
    env = {"PYTHONPATH": path, "KMDR_TEST_MISBEHAVE": action}
    if release is not None:
        env["KMDR_TEST_RELEASE"] = str(release)
    return env


def wait_for(state: Callable[[], object], what: str, proc: Proc | None = None, timeout=TIMEOUT):
    """Wait until ``state()`` is truthy (return it); fail if ``proc`` ends first or on timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = state()
        if value:
            return value
        if proc is not None and proc.popen.poll() is not None:
            raise AssertionError(f"the process ended before {what}:\n{proc.stderr[-3000:]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def cells_done(exp_dir: Path) -> list[str]:
    """The ids of the cells whose rows cells.csv holds whole (what the next run reuses)."""
    from kmdr.results.store import CellStore

    return sorted(CellStore(exp_dir, log=lambda _: None, read_only=True).done_ids())


def sidecars(exp_dir: Path) -> list[dict]:
    out = []
    for path in sorted((exp_dir / "runs").glob("*.json")):
        try:
            out.append(json.loads(path.read_text()))
        except ValueError:  # being replaced: atomic, so only while we race the rename
            continue
    return out


def statuses(exp_dir: Path) -> list[str]:
    return [s.get("status") for s in sidecars(exp_dir)]


def children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (from /proc)."""
    kids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            kids.append(int(entry.name))
    return kids


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def one_line(stderr: str) -> str:
    """The only non-empty line of ``stderr`` that is not a progress message (``[kmdr] ...``)."""
    lines = [ln for ln in stderr.splitlines() if ln.strip() and not ln.startswith("[kmdr]")]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr, stderr
    return lines[0]


#: The ``faulty`` preset as overrides of ``kmdr.run`` in the test's process.
FAULTY = [
    "dataset=synth",
    "dataset.params={n_samples: 150, n_features: 30, n_clusters: 3}",
    "+reducers={sign: {name: sign, params: {}}, misbehave: {name: misbehave, params: {}}}",
    "name=faulty",
    "r_grid=[2,4,6]",
    "repeats=1",
    "kmeans={n_init: 1, max_iter: 50, init: k-means++, tol: 0.0}",
    "figures=false",
    "progress=false",
    "blas_threads=1",
]
