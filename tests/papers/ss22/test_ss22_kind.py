"""The coresets kind end to end, in this process: cells with a cell's identity in cells.csv, the
distortion on the original data, resume, and its one-line refusals."""

import pandas as pd
import pytest

import kmdr
from kmdr.config.errors import ConfigError
from kmdr.plugins import RegistryError

#: The Benchmark at k = 3, alpha = 4 (81 x 12), two constructions, m = 4k and 8k, 2 repetitions.
SMALL = (
    "experiment=ss22_benchmark",
    "name=ss22_small",
    "dataset.params.k=3",
    "dataset.params.alpha=4",
    "repeats=2",
    "kind_params.constructions=[sensitivity,uniform]",
    "kind_params.size_factors=[4,8]",
)


def _cells(results):
    return pd.read_csv(results / "ss22_small" / "cells.csv")


def test_a_run_writes_coreset_cells_and_a_rerun_reuses_them(tmp_path):
    first = kmdr.run(list(SMALL), results_dir=tmp_path)
    cells = _cells(tmp_path)
    assert len(cells) == len(first) == 2 * 2 * 2
    assert set(cells["construction"]) == {"sensitivity", "uniform"}
    assert set(cells["coreset_size"]) == {12, 24}
    assert (cells["distortion"] >= 1).all()
    # the first solution's distortion is its costs' larger ratio; the cell's, the largest of
    # the solutions'
    ratio = cells["real_cost"] / cells["coreset_cost"]
    pd.testing.assert_series_equal(
        cells["distortion_first"], ratio.where(ratio >= 1, 1 / ratio), check_names=False
    )
    assert (cells["distortion"] >= cells["distortion_first"]).all()
    # a cell is read as any other: F is the real cost over ||A||^2 (81 rows of norm^2 4 * 2/3)
    expected = cells["real_cost"] / (81 * 8 / 3)
    assert cells["objective"].tolist() == pytest.approx(expected.tolist())
    assert cells["cell_id"].is_unique
    runs = sorted((tmp_path / "ss22_small" / "runs").iterdir())
    again = kmdr.run(list(SMALL), results_dir=tmp_path)
    assert len(again) == len(first)
    assert sorted((tmp_path / "ss22_small" / "runs").iterdir()) == runs  # nothing computed
    pd.testing.assert_frame_equal(_cells(tmp_path), cells)


def test_another_size_is_another_cell_and_the_others_are_kept(tmp_path):
    kmdr.run(list(SMALL), results_dir=tmp_path)
    before = set(_cells(tmp_path)["cell_id"])
    kmdr.run([*SMALL[:-1], "kind_params.size_factors=[4,6]"], results_dir=tmp_path)
    after = _cells(tmp_path)
    assert before < set(after["cell_id"])
    assert set(after["coreset_size"]) == {12, 18, 24}


@pytest.mark.parametrize(
    ("override", "error", "message"),
    [
        ("kind_params.size_factors=[40]", ConfigError, "120 is larger than the data's 81 rows"),
        ("kind_params.constructions=[no_such]", RegistryError, "no_such"),
    ],
)
def test_a_grid_the_data_cannot_take_is_one_line(tmp_path, override, error, message):
    overrides = [o for o in SMALL if not o.startswith(override.split("=")[0])]
    with pytest.raises(Exception, match=message) as caught:
        kmdr.run([*overrides, override], results_dir=tmp_path)
    assert "\n" not in str(caught.value)
