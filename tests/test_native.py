"""kmdr asks OpenBLAS for the same kernels on every x86-64 machine (kmdr._native), so committed
cells re-run bit for bit on a CPU of another generation; numpy's own SIMD loops, which kmdr
leaves alone, do not reach the summaries or the report.

A test of the switch starts a fresh Python: OpenBLAS reads its kernel switch once, when numpy
loads it, and this test process (whose conftest imported kmdr) already has the switch set, so the
environment the children get is built without it. Committed cells are computed again in this
process, whose kernels are those kmdr asks for."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import kmdr
from _data import real_dataset
from _lock import at_the_lock
from kmdr import _native
from kmdr._io import read_csv
from kmdr.results.records import RESULT_COLUMNS

pytestmark = pytest.mark.slow  # most tests here start Python afresh

RESULTS = Path(__file__).resolve().parents[1] / "results"
X86_AVX2 = _native._cpu_has(_native._NEEDS)
needs_avx2 = pytest.mark.skipif(
    not X86_AVX2, reason="kmdr pins OpenBLAS's kernels on x86-64 Linux with AVX2 and FMA only"
)


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != _native.ENV}
    return {**env, **extra}


def _python(code: str, *args: str, **extra: str) -> subprocess.CompletedProcess:
    """Run ``code`` with ``args`` in a fresh Python, environment variables ``extra`` added."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True, text=True, env=_env(**extra), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done


LOADED = (
    "import os, sys, numpy, scipy.linalg\n"
    "from kmdr import _native\n"
    "print(os.environ.get(_native.ENV), ','.join(_native.loaded()))\n"
)


@needs_avx2
def test_import_kmdr_asks_every_openblas_for_the_avx2_kernels():
    out = _python("import kmdr\n" + LOADED).stdout.split()
    assert out == ["Haswell", "Haswell"]  # numpy's OpenBLAS and scipy's alike


@needs_avx2
def test_kernels_the_user_chose_are_kept():
    out = _python("import kmdr\n" + LOADED, OPENBLAS_CORETYPE="Sandybridge").stdout.split()
    assert out == ["Sandybridge", "Sandybridge"]


@needs_avx2
def test_a_run_whose_openblas_was_loaded_first_says_so_in_one_line(tmp_path, capsys):
    # OpenBLAS loaded with other kernels than those kmdr asks for (as when a notebook imported
    # numpy before kmdr): the run computes and its one warning line names the fix.
    code = (
        "import os, numpy\n"
        "os.environ['OPENBLAS_CORETYPE'] = 'Haswell'\n"
        "import kmdr\n"
        f"kmdr.run('dataset=synth', 'r_grid=[5]', 'repeats=1', 'n_jobs=1', 'progress=false', "
        f"'figures=false', results_dir={str(tmp_path)!r})\n"
    )
    err = _python(code, OPENBLAS_CORETYPE="Sandybridge").stderr
    (line,) = [x for x in err.splitlines() if "OpenBLAS" in x]
    assert line.startswith("[kmdr] warning: OpenBLAS in this process runs Sandybridge kernels")
    assert "import kmdr first" in line
    # and none when the kernels are the ones asked for: this process's (kmdr imported first)
    capsys.readouterr()
    kmdr.run(
        "dataset=synth", "r_grid=[5]", "repeats=1", "n_jobs=1", "progress=false", "figures=false",
        results_dir=str(tmp_path / "here"),
    )  # fmt: skip
    assert "OpenBLAS" not in capsys.readouterr().err


def _committed(name: str) -> pd.DataFrame:
    return read_csv(RESULTS / name / "cells.csv").set_index("cell_id")


@needs_avx2
@at_the_lock("numpy", "scipy", "scikit-learn")
@pytest.mark.parametrize(
    ("preset", "dataset", "overrides"),
    # LLE's eigenvectors: with AVX-512 kernels their k-means partitions differ from the record.
    [("lst17_coil20", "coil20", ["reducer=lle", "r_grid=[10,100]", "repeats=2"])],
)
def test_committed_cells_are_computed_again_bit_for_bit(tmp_path, preset, dataset, overrides):
    real_dataset(dataset)  # skips with kmdr's reason when the data cannot be had
    if not (RESULTS / preset / "cells.csv").is_file():
        pytest.skip(f"results/{preset} holds no committed cells")
    # in this process, whose OpenBLAS kmdr set up (conftest imports it first), and its workers
    kmdr.run(
        f"experiment={preset}", *overrides, "n_jobs=2", "figures=false", "progress=false",
        results_dir=str(tmp_path),
    )  # fmt: skip
    new = read_csv(tmp_path / preset / "cells.csv").set_index("cell_id")
    old = _committed(preset).loc[new.index]
    assert len(new) >= 2
    pd.testing.assert_frame_equal(new[list(RESULT_COLUMNS)], old[list(RESULT_COLUMNS)])


# numpy picks its own SIMD loops at run time (OPENBLAS_CORETYPE does not govern them), and its
# AVX-512 exp and log give other last bits than its AVX2 ones (its float64 sums agree). The
# summaries and the report are rebuilt from the committed cells with numpy's loops as they are
# here, and with its AVX-512 loops disabled, as on a machine without them: both must be the same,
# byte for byte.
REBUILD = (
    "import sys\n"
    "from pathlib import Path\n"
    "import kmdr\n"
    "from numpy.lib.introspect import opt_func_info\n"
    "from kmdr.report.build import main\n"
    "from kmdr.results.summary import write_summaries\n"
    "root = Path(sys.argv[1])\n"
    "for exp in sorted(p for p in root.iterdir() if (p / 'cells.csv').is_file()):\n"
    "    write_summaries(exp)\n"
    "main([str(root)])\n"
    "targets = {t.get('current') for f in opt_func_info().values() for t in f.values()\n"
    "           if isinstance(t, dict)}\n"
    "print(' '.join(sorted(str(t) for t in targets)))\n"
)


def _wide_simd_targets() -> list[str]:
    """numpy's dispatched targets wider than AVX2 (their names vary between numpy versions)."""
    from numpy.lib.introspect import opt_func_info

    names = {
        name
        for per_func in opt_func_info().values()
        for target in per_func.values()
        if isinstance(target, dict)
        for name in str(target.get("available", "")).split()
    }
    return sorted(n for n in names if "AVX512" in n or n == "X86_V4")


@pytest.mark.skipif(
    not _native._cpu_has(frozenset({"avx512f"})), reason="this CPU has no AVX-512 loops"
)
@pytest.mark.longhaul  # every committed summary and the report rebuilt twice: a minute and more
def test_summaries_and_report_do_not_depend_on_numpys_simd_loops(tmp_path):
    wide = _wide_simd_targets()
    if not wide:
        pytest.skip("this numpy dispatches no loop wider than AVX2")
    runs = {}
    for name, extra in (("here", {}), ("avx2", {"NPY_DISABLE_CPU_FEATURES": " ".join(wide)})):
        root = tmp_path / name / "results"
        shutil.copytree(RESULTS, root)
        done = _python(REBUILD, str(root), **extra)
        runs[name] = (root, done.stdout.split("\n")[-2].split())
    assert any(t in wide for t in runs["here"][1])  # the wide loops ran here...
    assert not any(t in wide for t in runs["avx2"][1])  # ...and not there
    here, avx2 = runs["here"][0], runs["avx2"][0]
    summaries = sorted(p.relative_to(here) for p in here.rglob("summary*.csv"))
    assert summaries
    for rel in summaries:
        assert (here / rel).read_bytes() == (avx2 / rel).read_bytes(), rel
        assert (here / rel).read_bytes() == (RESULTS / rel).read_bytes(), rel  # the committed

    def body(path: Path) -> list[str]:  # the header names the folder and the time
        return [line for line in path.read_text().splitlines() if "Report written" not in line]

    assert body(here / "REPORT.md") == body(avx2 / "REPORT.md")


def test_the_thread_limits_have_one_owner():
    # threadpoolctl's limits and its controller are asked in kmdr._native alone: every job,
    # row-block task, script and bench goes through limited_threads
    root = Path(__file__).resolve().parents[1]
    asked = [
        f"{path.relative_to(root)}:{n}"
        for folder in ("src", "scripts")
        for path in sorted((root / folder).rglob("*.py"))
        if path.name != "_native.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if "threadpool_limits" in line or "ThreadpoolController" in line
    ]
    assert asked == []
