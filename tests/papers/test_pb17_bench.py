"""python -m kmdr.papers.pb17.bench_large_n at a small n: its streamed blocks are the same rows
whatever the split, its one-pass sketch is the in-memory one, and its CSV is what the claim
reads."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from kmdr.papers.pb17.claims import BENCH_COLUMNS, check_large_n
from kmdr.reducers import PreconditionedSparsification
from kmdr.report import claims as C

BENCH = [sys.executable, "-m", "kmdr.papers.pb17.bench_large_n"]


def _script():
    from kmdr.papers.pb17 import bench_large_n

    return bench_large_n


def test_streamed_blocks_are_the_same_rows_whatever_the_split():
    blobs = _script()._streamed_blobs_class()
    a = blobs(10_000, 40, 3, block_rows=10_000, seed=1, noise=0.5)
    b = blobs(10_000, 40, 3, block_rows=3_001, seed=1, noise=0.5)  # across the 4096-row chunks
    whole = a.block(0)
    np.testing.assert_array_equal(np.concatenate(list(b.blocks())), whole)
    assert a.labels().shape == (10_000,) and set(np.unique(a.labels())) == {0, 1, 2}
    # the labels are the rows' clusters: each row is nearest its own center
    nearest = np.argmin(((whole[:, None, :] - a.centers[None]) ** 2).sum(axis=2), axis=1)
    assert (nearest == a.labels()).mean() > 0.99
    # the one-pass sketch of the blocks is the in-memory sketch of the whole matrix
    red = PreconditionedSparsification(4, random_state=0).fit_rows(10_000, 40)
    parts = zip(b.bounds, b.blocks(), strict=True)
    sketch = sp.vstack([red.transform_rows(x, lo) for (lo, _), x in parts])
    full = PreconditionedSparsification(4, random_state=0).fit(whole).transform(whole)
    assert (sketch.tocsr() != full).nnz == 0


@pytest.mark.slow
def test_bench_runs_at_small_n_and_its_csv_feeds_the_claim(tmp_path):
    out = tmp_path / "pb17_large_n.csv"
    cmd = [*BENCH, "--sizes", "3000", "--p", "64", "--repeats", "2",
           "--block-rows", "700", "--max-iter", "5", "--out", str(out)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(out)
    assert list(table.columns) == [*BENCH_COLUMNS, "load"]
    assert sorted(table["method"].unique()) == ["kmeans", "sparsified"] and len(table) == 4
    assert (table.loc[table.method == "sparsified", "m"] == 3).all()  # round(0.05 * 64)
    assert (table["peak_mb"] >= 0).all() and (table["n_iter"] >= 1).all()
    verdict = check_large_n(pd.DataFrame(), out)
    verdict = C.decide(verdict) if isinstance(verdict, C.Part) else verdict
    assert verdict.verdict in C.VERDICTS and "bench at n = 3,000" in verdict.evidence


def test_bench_refuses_bad_arguments_in_one_line(capsys):
    # its main in this process (the bench's process runs in the test above)
    with pytest.raises(SystemExit) as exc:
        _script().main(["--gamma", "0", "--sizes", "10"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "0 < gamma <= 1" in err and "Traceback" not in err
