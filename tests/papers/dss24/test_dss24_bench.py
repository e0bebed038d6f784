"""dss24's speed bench (python -m kmdr.papers.dss24.bench_growth) at a tiny size, in this
process: its CSVs have their columns, and every ratio and growth in them is computed from the
timings of its runs; the target's verdict and the authors' log Δ instance from tables of cases."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from kmdr.papers.dss24 import PAPER
from kmdr.papers.dss24 import bench_growth as bench

TINY = ["--n", "3000", "--d", "8", "--ks", "4", "8", "--repeats", "2",
        "--log-delta-sizes", "500", "--log-delta-repeats", "3"]  # fmt: skip


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    assert bench.main([*TINY, "--out", str(out)]) == 0
    return out


@pytest.mark.slow
def test_growth_csv_is_computed_from_its_runs(tiny):
    runs = pd.read_csv(tiny / "dss24_growth_runs.csv")
    table = pd.read_csv(tiny / "dss24_growth.csv")
    assert list(table.columns) == bench.GROWTH_COLUMNS
    assert len(runs) == 2 * 2 * len(bench.METHODS) and len(table) == 2 * len(bench.METHODS)
    med = runs.groupby(["method", "k"])[["seconds", "cpu_seconds", "distortion"]].median()
    for row in table.itertuples():
        own, first = med.loc[(row.method, row.k)], med.loc[(row.method, 4)]
        sens = med.loc[("sensitivity", row.k)]
        assert row.seconds == pytest.approx(own.seconds, rel=1e-5)
        assert row.growth == pytest.approx(own.seconds / first.seconds, rel=1e-5)
        assert row.speedup == pytest.approx(sens.seconds / own.seconds, rel=1e-5)
        assert row.cpu_speedup == pytest.approx(sens.cpu_seconds / own.cpu_seconds, rel=1e-5)
        paired = (
            runs[(runs.method == "sensitivity") & (runs.k == row.k)].cpu_seconds.to_numpy()
            / runs[(runs.method == row.method) & (runs.k == row.k)].cpu_seconds.to_numpy()
        )
        assert (row.cpu_speedup_low, row.cpu_speedup_high) == pytest.approx(
            (paired.min(), paired.max()), rel=1e-5
        )
        assert (row.growth_if_linear, row.growth_if_log) == pytest.approx(
            (row.k / 4, math.log(row.k) / math.log(4))
        )
        if row.method == "fast_kmeanspp":  # a seeding, not a coreset: no distortion
            assert math.isnan(row.distortion) and math.isnan(row.distortion_ratio)
        else:
            assert row.distortion >= 1
            assert row.distortion_ratio == pytest.approx(own.distortion / sens.distortion, 1e-5)
    # the target is read at the largest k only, on the Fast-Coreset
    judged = table[table.target.notna()]
    assert list(zip(judged.method, judged.k, strict=True)) == [("fast_coreset", 8)]
    assert judged.holds.iloc[0] == (
        judged.cpu_speedup.iloc[0] >= bench.TARGET_SPEEDUP
        and judged.distortion_ratio.iloc[0] <= bench.TARGET_DISTORTION
    )
    assert "| Fast-Coreset " in bench.table(tiny)


@pytest.mark.slow
def test_breakdown_splits_each_fit(tiny):
    stages = pd.read_csv(tiny / "dss24_growth_breakdown.csv")
    for method, own in stages.groupby("method"):
        assert list(own.stage) == [*bench.STAGES[method], "other", "whole"]
        whole = own.set_index("stage").seconds["whole"]
        assert whole > 0 and own[own.stage != "whole"].seconds.sum() == pytest.approx(
            whole, rel=1e-4
        )
        assert (own.seconds >= 0).all()


@pytest.mark.slow
def test_log_delta_csv_is_fitted_on_its_runs_beside_the_authors(tiny):
    runs = pd.read_csv(tiny / "dss24_log_delta_runs.csv")
    table = pd.read_csv(tiny / "dss24_log_delta.csv")
    assert list(table.columns) == bench.LOG_DELTA_COLUMNS
    ours = table[table.source == "kmdr"]
    assert set(ours.clock) == {"CPU"}  # one thread's work, as the target's
    fit = stats.linregress(runs.r, runs.cpu_seconds)
    half = stats.t.ppf(0.975, len(runs) - 2) * fit.stderr
    assert ours.slope.iloc[0] == pytest.approx(fit.slope, rel=1e-4, abs=1e-12)
    assert ours.slope_high.iloc[0] - ours.slope_low.iloc[0] == pytest.approx(2 * half, rel=1e-4)
    med = runs.groupby("r").cpu_seconds.median()
    assert ours.growth.to_numpy() == pytest.approx((med / med.loc[20]).to_numpy(), rel=1e-5)
    theirs = table[table.source == "authors"].set_index("r")
    assert theirs.growth.loc[50] == pytest.approx(16.2 / 13.5)
    published = stats.linregress([20, 30, 40, 50], [13.5, 14.2, 15.5, 16.2])
    assert theirs.slope.iloc[0] == pytest.approx(published.slope)
    assert "| authors " in bench.log_delta_table(tiny)


def _runs(fast_seconds, fast_distortion, repeats=3):
    """Runs at k = 50 and 400: sensitivity sampling 1 s and 8 s of CPU at distortion 1.01, the
    Fast-Coreset at ``fast_seconds`` (k = 400; 1 s at 50) and ``fast_distortion``, each of its
    repetitions 1% above the one before (so that the paired ratios spread)."""
    rows = []
    for rep in range(repeats):
        jitter = 1 + 0.01 * rep
        for k, sens, fast in ((50, 1.0, 1.0), (400, 8.0, fast_seconds)):
            for method, s, dist in (
                ("fast_kmeanspp", fast * jitter / 2, np.nan),
                ("fast_coreset", fast * jitter, fast_distortion * jitter),
                ("sensitivity", sens, 1.01),
            ):
                rows.append({"repetition": rep, "method": method, "n": 100, "d": 5, "k": k,
                             "m": 40 * k, "seconds": 2 * s, "cpu_seconds": s,
                             "distortion": dist, "load": 0.0})  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("fast_seconds", "fast_distortion", "speedup", "holds"),
    [
        (1.0, 1.05, 8.0, True),  # 8x at a distortion 4% above: the target holds
        (2.0, 1.05, 4.0, False),  # only 4x
        (1.0, 1.20, 8.0, False),  # 8x, but the distortion 19% above
    ],
)
def test_target_verdict(fast_seconds, fast_distortion, speedup, holds):
    table = bench.summarize_growth(_runs(fast_seconds, fast_distortion)).set_index(["method", "k"])
    row = table.loc[("fast_coreset", 400)]
    assert row.cpu_speedup == pytest.approx(speedup / 1.01) and row.holds is holds
    assert row.speedup == row.cpu_speedup  # wall time: twice the CPU time here
    assert table.loc[("sensitivity", 400)].cpu_growth == pytest.approx(8.0)
    assert table.loc[("fast_coreset", 400)].cpu_growth == pytest.approx(fast_seconds)
    # the paired ratios lie within 2% of the speed-up: far above 5 (or below) for a t-test of 3
    assert bool(row.p_speedup < 0.01) is (speedup > bench.TARGET_SPEEDUP)


@pytest.mark.parametrize("r", [20, 50])
def test_log_delta_points_are_the_authors_instance(r):
    n, n_sequence = 5000, 3000
    points = bench.log_delta_points(n, r, n_sequence)
    copies = n_sequence // r
    assert points.shape == (n, 2)
    sequence, rest = points[: copies * r], points[copies * r :]
    assert np.array_equal(np.unique(sequence[:, 0]), np.sort(0.5 ** np.arange(r)))
    assert np.unique(sequence[:, 1]).size == copies
    np.random.seed(123)  # noqa: NPY002 - their script's stream, as it draws it
    first = np.random.uniform(-1, 1, (n, 2))[: n - copies * r]  # noqa: NPY002
    assert np.array_equal(rest, first)


@pytest.mark.parametrize(
    "argv",
    [["--repeats", "0"], ["--ks", "1", "4"], ["--n", "100", "--ks", "4"],
     ["--log-delta-sizes", "50"], ["--log-delta-repeats", "0"]],
)  # fmt: skip
def test_bench_refuses_bad_arguments_in_one_line(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        bench.main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_paper_declares_the_bench_and_its_tables():
    assert "kmdr.papers.dss24.bench_growth" in PAPER.benches
    assert set(PAPER.bench_tables) == {"dss24_growth", "dss24_log_delta"}
