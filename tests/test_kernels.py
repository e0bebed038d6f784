"""kmdr asks OpenBLAS for the same kernels on every x86-64 machine (kmdr._kernels), so committed
cells re-run bit for bit on a CPU of another generation.

Each test starts a fresh Python: OpenBLAS reads its kernel switch once, when numpy loads it, and
this test process (whose conftest imported kmdr) already has the switch set, so the environment
the children get is built without it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from _data import real_dataset
from kmdr import _kernels
from kmdr._io import read_csv
from kmdr.results.columns import RESULT_COLUMNS

pytestmark = pytest.mark.slow  # every test here starts Python afresh

RESULTS = Path(__file__).resolve().parents[1] / "results"
X86_AVX2 = _kernels._cpu_has(_kernels._NEEDS)
needs_avx2 = pytest.mark.skipif(
    not X86_AVX2, reason="kmdr pins OpenBLAS's kernels on x86-64 Linux with AVX2 and FMA only"
)


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != _kernels.ENV}
    return {**env, **extra}


def _python(code: str, **extra: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=_env(**extra), timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done


LOADED = (
    "import os, sys, numpy, scipy.linalg\n"
    "from kmdr import _kernels\n"
    "print(os.environ.get(_kernels.ENV), ','.join(_kernels.loaded()))\n"
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
def test_a_run_whose_openblas_was_loaded_first_says_so_in_one_line(tmp_path):
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
    # and none when the kernels are the ones asked for
    ok = _python(code.replace("import os, numpy\n", "import os\n")).stderr
    assert "OpenBLAS" not in ok


def _committed(name: str) -> pd.DataFrame:
    return read_csv(RESULTS / name / "cells.csv").set_index("cell_id")


@needs_avx2
@pytest.mark.parametrize(
    ("preset", "dataset", "overrides"),
    # LLE's eigenvectors: with AVX-512 kernels their k-means partitions differ from the record.
    [("lst17_coil20", "coil20", ["reducer=lle", "r_grid=[10,100]", "repeats=2"])],
)
def test_committed_cells_are_computed_again_bit_for_bit(tmp_path, preset, dataset, overrides):
    real_dataset(dataset)  # skips with kmdr's reason when the data cannot be had
    if not (RESULTS / preset / "cells.csv").is_file():
        pytest.skip(f"results/{preset} holds no committed cells")
    command = [sys.executable, "-m", "kmdr", f"experiment={preset}", *overrides]
    command += ["n_jobs=2", "figures=false", "progress=false", f"results_dir={tmp_path}"]
    done = subprocess.run(command, capture_output=True, text=True, env=_env(), timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    new = read_csv(tmp_path / preset / "cells.csv").set_index("cell_id")
    old = _committed(preset).loc[new.index]
    assert len(new) >= 2
    pd.testing.assert_frame_equal(new[list(RESULT_COLUMNS)], old[list(RESULT_COLUMNS)])
