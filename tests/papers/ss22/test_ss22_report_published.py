"""The authors' table: derived from their raw runs exactly as committed, and the derivation's
checks (the file's pin, what a row holds) on frames built here."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kmdr.papers.ss22 import published as P

ROOT = Path(__file__).resolve().parents[3]
COMMITTED = ROOT / "results" / P.TABLE


def test_committed_table_is_the_derivation_of_the_authors_file():
    source = P.local_source()
    if source is None:
        pytest.skip(
            f"the authors' {P.RAW_PATH} is in neither data cache nor mirror ({P.LOCAL_PATH})"
        )
    derived = P.derive(P.raw_runs(source))
    committed = pd.read_csv(COMMITTED)
    pd.testing.assert_frame_equal(committed, derived, check_exact=False, rtol=1e-9)
    assert (COMMITTED.parent / "README.md").read_text(encoding="utf-8") == P.readme(derived)


def test_committed_table_names_its_source_and_covers_the_grid():
    table = pd.read_csv(COMMITTED)
    readme = (COMMITTED.parent / "README.md").read_text(encoding="utf-8")
    for fact in (P.REPOSITORY, P.COMMIT, P.RAW_PATH, P.RAW_SHA256):
        assert fact in readme
    assert list(table.columns) == list(P.COLUMNS)
    assert int(table["n_runs"].sum()) == 9310 and len(table) == 931
    assert not table.duplicated(list(P.KEYS)).any()
    bench = table[table["dataset"] == "Benchmark"]
    assert sorted(bench["k"].unique()) == [10, 20, 30, 40]
    order = table[["distortion_min", "distortion_q1", "distortion_median", "distortion_q3",
                   "distortion_max"]].to_numpy()  # fmt: skip
    assert (np.diff(order, axis=1) >= 0).all()


def _runs(values, algorithm="Group Sampling", k=10, factor=50):
    n = len(values)
    return pd.DataFrame(
        {"dataset": ["Benchmark"] * n, "algorithm": [algorithm] * n, "k": [k] * n,
         "coreset_size": [k * factor] * n, "coreset_size_factor": [factor] * n,
         "running_time": np.arange(n, dtype=float) + 1, "distortion": values}
    )  # fmt: skip


@pytest.mark.parametrize(
    "values, median, q1, q3",
    [
        ([1.0, 2.0, 3.0, 4.0], 2.5, 1.75, 3.25),
        ([1.1, 1.0, 1.3], 1.1, 1.05, 1.2),
        ([5.0], 5.0, 5.0, 5.0),
    ],
)
def test_derive_summarizes_each_cell(values, median, q1, q3):
    runs = pd.concat([_runs(values), _runs([9.0, 9.0], algorithm="BICO")])
    table = P.derive(runs).set_index("algorithm")
    row = table.loc["Group Sampling"]
    assert row["n_runs"] == len(values)
    assert row["distortion_median"] == pytest.approx(median)
    assert (row["distortion_q1"], row["distortion_q3"]) == pytest.approx((q1, q3))
    assert row["distortion_max"] == max(values) and row["distortion_min"] == min(values)
    assert row["distortion_log_mean"] == pytest.approx(np.mean(np.log(values)))
    assert table.loc["BICO", "distortion_median"] == 9.0 and table.loc["BICO", "n_runs"] == 2


def test_another_file_is_refused(tmp_path):
    other = tmp_path / "results-raw.csv"
    _runs([1.0, 2.0]).to_csv(other, index=False)
    with pytest.raises(ValueError, match="another version of the file"):
        P.raw_runs(other)
    with pytest.raises(ValueError, match="neither the authors' CSV nor a clone"):
        P.raw_runs(tmp_path / "absent")
