"""pb17's claims on small synthetic results frames: each holds where the paper's picture holds,
fails where its direction is reversed, is a tie stating what it could detect where the methods
do not differ, and the large-N claim reads its bench file (no data without it)."""

import numpy as np
import pandas as pd
import pytest

from kmdr.papers.pb17 import PAPER
from kmdr.papers.pb17.claims import (
    BENCH_COLUMNS,
    BENCH_CSV,
    check_large_n,
    check_large_n_memory,
    pb17_claims,
)
from kmdr.report import claims as C

GRID = [1, 2, 3, 6, 13, 19]
REPS = 12


def _frame(curves: dict[str, callable], base: float = 0.82, noise: float = 0.01, seed=0):
    """Cells of pb17_digits: ``curves[label](r)`` the mean accuracy of each method, k-means at
    ``base``, each repetition's value spread around it by ``noise``."""
    rng = np.random.default_rng(seed)
    names = {"PD": "sparsified", "PD (no precond.)": "sparsified_raw",
             "PD 2-pass": "sparsified_two_pass"}  # fmt: skip
    rows = []
    for label, f in curves.items():
        for r in GRID:
            for rep in range(REPS):
                rows.append({"dataset": "digits", "reducer_name": names[label], "method": label,
                             "r": r, "repetition": rep,
                             "accuracy": f(r) + noise * rng.standard_normal()})  # fmt: skip
    for rep in range(REPS):
        value = base + noise * rng.standard_normal()
        rows.append({"dataset": "digits", "reducer_name": "none", "method": "kMeans", "r": 64,
                     "repetition": rep, "accuracy": value})  # fmt: skip
    return pd.DataFrame(rows)


def _paper_like():
    return {
        "PD": lambda r: 0.82 - 0.45 * np.exp(-r / 5),
        "PD (no precond.)": lambda r: 0.80 - 0.45 * np.exp(-r / 8),
        "PD 2-pass": lambda r: 0.83 - 0.3 * np.exp(-r / 3),
    }


def _verdict(claim_id: str, df: pd.DataFrame) -> C.Verdict:
    claim = next(c for c in pb17_claims() if c.id == claim_id)
    return C.evaluate(claim, {claim.experiment: df})


def test_claims_are_registered_and_the_stand_in_says_so():
    assert [c.id for c in C.CLAIM_SETS.get("pb17")] == [c.id for c in pb17_claims()]
    digits = [c for c in pb17_claims() if c.dataset == "digits"]
    assert len(digits) == 4
    for claim in digits:
        assert "Stand-in for MNIST" in claim.note and "NOT MNIST" in claim.note
        assert "(MNIST stand-in)" in claim.statement
    note = PAPER.notes["pb17_digits"]
    assert "stand-in" in note and "NOT a reproduction" in note
    assert "pb17_mnist" in PAPER.no_data


def test_the_papers_picture_holds_every_claim():
    df = _frame(_paper_like())
    for claim in ("accuracy-grows", "approaches-kmeans", "preconditioning-helps", "two-pass-helps"):
        verdict = _verdict(f"pb17-{claim}-digits", df)
        assert verdict.verdict == C.HOLDS, (claim, verdict.evidence)


def test_reversed_directions_fail():
    curves = _paper_like()
    swapped = {"PD": curves["PD (no precond.)"], "PD (no precond.)": curves["PD"],
               "PD 2-pass": lambda r: curves["PD (no precond.)"](r) - 0.05}  # fmt: skip
    df = _frame(swapped)
    assert _verdict("pb17-preconditioning-helps-digits", df).verdict == C.FAILS
    assert _verdict("pb17-two-pass-helps-digits", df).verdict == C.FAILS
    # far below k-means at the largest m: not approaching it
    low = _frame({**curves, "PD": lambda r: 0.5, "PD 2-pass": lambda r: 0.5})
    assert _verdict("pb17-approaches-kmeans-digits", low).verdict == C.FAILS
    flat = _frame({k: (lambda r: 0.6) for k in curves})
    assert _verdict("pb17-accuracy-grows-digits", flat).verdict != C.HOLDS


def test_no_difference_is_a_tie_that_states_what_it_could_detect():
    same = _paper_like()["PD"]
    df = _frame({"PD": same, "PD (no precond.)": same, "PD 2-pass": same}, noise=0.02, seed=3)
    verdict = _verdict("pb17-preconditioning-helps-digits", df)
    assert verdict.verdict == C.TIE
    assert "could detect |Δ| ≥" in verdict.evidence and "power 0.8" in verdict.evidence


# -- the large-N bench -------------------------------------------------------------------------


def _bench(path, kmeans_per_iter=2.0, sparse_per_iter=0.1, sizes=(20_000, 100_000), only=None,
           peaks=(100.0, 100.0), peak_noise=0.01):  # fmt: skip
    rng = np.random.default_rng(0)
    peak_rng = np.random.default_rng(1)  # a peak varies by a few MB between repetitions
    rows = []
    for n in sizes:
        for method, t in (("kmeans", kmeans_per_iter), ("sparsified", sparse_per_iter)):
            if only and method != only:
                continue
            for rep in range(4):
                per_iter = t * n / 1e5 * np.exp(0.05 * rng.standard_normal())
                rows.append({"n": n, "p": 784, "k": 3, "gamma": 0.05,
                             "m": 39 if method == "sparsified" else 784, "method": method,
                             "repetition": rep, "block_rows": 16384, "pass_seconds": 1.0,
                             "cluster_seconds": 3 * per_iter, "n_iter": 3,
                             "seconds_per_iter": per_iter, "total_seconds": 1 + 3 * per_iter,
                             "peak_mb": peaks[method == "sparsified"]
                             * np.exp(peak_noise * peak_rng.standard_normal()),
                             "accuracy": 1.0})  # fmt: skip
    frame = pd.DataFrame(rows, columns=list(BENCH_COLUMNS))
    frame.to_csv(path, index=False)
    return path


def test_large_n_claim_reads_its_bench_file(tmp_path):
    missing = check_large_n(pd.DataFrame(), tmp_path / "pb17_large_n.csv")
    assert missing.verdict == C.NO_DATA and "no data" in missing.evidence
    alone = check_large_n(pd.DataFrame(), _bench(tmp_path / "c.csv", only="sparsified"))
    assert alone.verdict == C.NO_DATA and "both methods" in alone.evidence
    slower = C.decide(check_large_n(pd.DataFrame(), _bench(tmp_path / "b.csv", 0.1, 2.0)))
    assert slower.verdict == C.FAILS


def test_large_n_claim_judges_the_papers_size_not_only_the_direction(tmp_path):
    # 20 times faster per iteration: the direction holds, the paper's ×40.1 does not
    twenty = C.decide(check_large_n(pd.DataFrame(), _bench(tmp_path / "a.csv", 2.0, 0.1)))
    assert twenty.verdict == C.PARTLY and "n = 100,000" in twenty.evidence
    assert "times faster per iteration, the paper's 40.1" in twenty.evidence
    # the whole clustering's and the whole run's ratios beside it, not counted
    assert "whole clustering ×" in twenty.evidence and "whole run" in twenty.evidence
    assert "1 of 1 comparisons" not in twenty.evidence and "0 of 1" in twenty.evidence
    fifty = C.decide(check_large_n(pd.DataFrame(), _bench(tmp_path / "f.csv", 5.0, 0.1)))
    assert fifty.verdict == C.HOLDS
    (speedup,) = (c for c in pb17_claims() if c.id == "pb17-large-n-speedup")
    assert "×40.1" in speedup.statement and "overall" not in speedup.statement


def test_large_n_claim_times_lloyds_iterations_apart_from_the_start(tmp_path):
    """A bench file with the start timed apart: the claim tests the Lloyd iterations alone (the
    paper's assignment-plus-update time); without it, it says the start is included. Both
    methods' accuracy is in the evidence either way."""
    old = C.decide(check_large_n(pd.DataFrame(), _bench(tmp_path / "o.csv", 5.0, 0.1)))
    assert "per iteration, start included" in old.evidence and "predates" in old.evidence
    frame = pd.read_csv(_bench(tmp_path / "s.csv", 5.0, 0.1))
    # the start is half of each clustering: its Lloyd iterations take the other half
    frame["start_seconds"] = frame["cluster_seconds"] / 2
    frame["lloyd_seconds_per_iter"] = frame["seconds_per_iter"] / 2
    frame.loc[frame["method"] == "sparsified", "accuracy"] = 0.947
    path = tmp_path / "start.csv"
    frame.to_csv(path, index=False)
    apart = C.decide(check_large_n(pd.DataFrame(), path))
    assert "per Lloyd iteration: PD" in apart.evidence and "start included" not in apart.evidence
    assert "(the start: 50% of PD's clustering, 50% of kMeans'; PD's ×0.0" in apart.evidence
    assert "accuracy PD 0.947, kMeans 1.000" in apart.evidence


def test_large_n_memory_claim(tmp_path):
    bench = _bench(tmp_path / "m.csv", peaks=(12000.0, 1300.0))
    less = C.decide(check_large_n_memory(pd.DataFrame(), bench))
    assert less.verdict == C.HOLDS and "×0.108" in less.evidence
    path = _bench(tmp_path / "n.csv", peaks=(1000.0, 1000.0))
    assert C.decide(check_large_n_memory(pd.DataFrame(), path)).verdict != C.HOLDS
    # the ratio with its interval, not Hedges' g (which only says how small the noise is)
    assert "95% CI ×" in less.evidence and "g = " not in less.evidence
    # the same peak in each of 4 repetitions: the sign test, whose p accounts for n, cannot
    # reach α with 4 (its smallest p, two-sided, is 0.125): untestable at n = 4, not a tie
    same = _bench(tmp_path / "s.csv", peaks=(12000.0, 1300.0), peak_noise=0.0)
    tie = C.decide(check_large_n_memory(pd.DataFrame(), same))
    assert (
        tie.verdict == C.NOT_TESTABLE
        and "exact sign test on 4 repetitions, p = 0.12" in tie.evidence
    )
    assert "untestable at n = 4" in tie.evidence


def test_the_bench_claims_read_the_results_folder_they_are_given(tmp_path, monkeypatch):
    root = tmp_path / "some_results"
    (root / "bench").mkdir(parents=True)
    _bench(root / BENCH_CSV, 5.0, 0.1, peaks=(12000.0, 1300.0))
    cells = {"pb17_digits": _frame({"PD": lambda r: 0.5}, seed=1)}
    for claim in (c for c in pb17_claims() if c.reads == BENCH_CSV):
        here = C.evaluate(claim, cells, root)
        assert here.verdict == C.HOLDS, here.evidence
        # the same folder from another working folder: the same verdict
        monkeypatch.chdir(tmp_path)
        again = C.evaluate(claim, cells, root)
        assert (again.verdict, again.evidence) == (here.verdict, here.evidence)
        elsewhere = C.evaluate(claim, cells, tmp_path / "empty")
        assert elsewhere.verdict == C.NO_DATA and BENCH_CSV in elsewhere.evidence


def test_large_n_compares_at_the_largest_n_both_ran(tmp_path):
    path = _bench(tmp_path / "d.csv", sizes=(20_000, 100_000))
    frame = pd.read_csv(path)
    extra = frame[(frame.n == 100_000) & (frame.method == "sparsified")].assign(n=10_000_000)
    pd.concat([frame, extra]).to_csv(path, index=False)
    verdict = C.decide(check_large_n(pd.DataFrame(), path))
    assert "bench at n = 100,000" in verdict.evidence
    assert "alone up to n = 10,000,000" in verdict.evidence


@pytest.mark.parametrize("column", ["seconds_per_iter", "method"])
def test_bench_file_without_a_column_is_no_data(tmp_path, column):
    path = _bench(tmp_path / "e.csv")
    pd.read_csv(path).drop(columns=[column]).to_csv(path, index=False)
    verdict = check_large_n(pd.DataFrame(), path)
    assert verdict.verdict == C.NO_DATA and column in verdict.evidence


@pytest.mark.parametrize(
    ("shift", "outcome"),
    [
        pytest.param(0.0, "✓", id="the same accuracy: shown within the margin"),
        pytest.param(0.2, "=", id="0.2 apart: not shown within it"),
    ],
)
def test_the_authors_code_is_a_tost_on_the_presets_own_cells(tmp_path, shift, outcome):
    from kmdr.papers.pb17.claims import check_matches_authors_code

    rng = np.random.default_rng(0)
    rows = [{"method": "PD", "r": 6, "repetition": i, "accuracy": 0.6 + rng.normal(0, 0.02),
             "is_baseline": False} for i in range(20)]  # fmt: skip
    bench = tmp_path / "octave.csv"
    bench.write_text(
        "implementation,preconditioner,m,passes,trials,accuracy_mean,accuracy_sd\n"
        f"authors' code (Octave),hadamard,6,1,30,{0.6 + shift},0.02\n"
        "authors' code (Octave),none,6,2,30,0.5,0.02\n"
    )
    got = C.decide(check_matches_authors_code(pd.DataFrame(rows), bench))
    assert "TOST at ±0.05" in got.evidence and got.evidence.count(outcome) >= 1
    assert "none, m = 6, 2 pass(es) (not in the preset)" in got.evidence
