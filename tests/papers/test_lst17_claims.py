"""lst17's claims per dataset: the rankings of the slow baselines (SVD, LLE, LS) are checked on
every dataset whose preset runs them, the stand-in's claims say it is one, and a method run on a
sub-grid of r (SVD, PD and LLE on sparse_text) is compared on the r it has."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kmdr.papers.lst17.claims import LST17_DATASETS, WITH_SLOW_BASELINES, lst17_claims
from kmdr.report import claims as C

RANKINGS = ("lst17-lle-lapscores-trail", "lst17-svd-lle-slowest")
GRID = [10, 50, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]


def _ids(dataset: str) -> list[str]:
    return [c.id for c in lst17_claims() if c.dataset == dataset]


def test_rankings_apply_where_the_slow_baselines_run():
    datasets = {ds for ds, _ in LST17_DATASETS.values()}
    for ds in datasets:
        has = all(f"{claim}-{ds}" in _ids(ds) for claim in RANKINGS)
        assert has == (ds in WITH_SLOW_BASELINES), ds
    assert "sparse_text" in WITH_SLOW_BASELINES and "rcv1" not in WITH_SLOW_BASELINES


def test_every_sparse_text_claim_says_it_is_a_stand_in():
    claims = [c for c in lst17_claims() if c.dataset == "sparse_text"]
    assert len(claims) == len([c for c in lst17_claims() if c.dataset == "coil20"])
    for claim in claims:
        assert "stand-in" in claim.note and "NOT a reproduction" in claim.note
        assert claim.statement.startswith("On sparse_text (RCV1 stand-in),")


def test_coil20_statements_name_coil20():
    by_id = {c.id: c for c in lst17_claims()}
    for claim in RANKINGS:
        assert by_id[f"{claim}-coil20"].statement.startswith("On COIL20, ")
        assert by_id[f"{claim}-coil20"].note == ""


def _summary(curves: dict[str, tuple[list[int], float]], metric: str) -> pd.DataFrame:
    """Cells of the stand-in: ``curves[method] = (r grid, value)``, 5 repetitions per point
    spread by 1% of the value around it."""
    spread = np.linspace(-1, 1, 5) / np.std(np.linspace(-1, 1, 5), ddof=1)
    rows = []
    for k, (method, (grid, value)) in enumerate(curves.items()):
        for i, r in enumerate(grid):
            v = value * (1 + 0.001 * i)
            for rep in range(5):
                noise = spread[(rep + i + k) % 5]  # not in step across r or methods
                rows.append({"dataset": "sparse_text", "reducer_name": method.lower(),
                             "method": method, "r": r, "repetition": rep,
                             metric: v * (1 + 0.01 * noise)})  # fmt: skip
    return pd.DataFrame(rows)


def _run(claim_id: str, df: pd.DataFrame) -> C.Verdict:
    claim = next(c for c in lst17_claims() if c.id == claim_id)
    return C.evaluate(claim, {claim.experiment: df})


@pytest.mark.slow
def test_sub_grid_methods_are_ranked_on_their_own_r_and_lle_is_listed_not_run():
    svd, pd_ = [r for r in GRID if r <= 300], [r for r in GRID if r <= 200]
    slow = {"SE": (GRID, 0.02), "RP": (GRID, 1.0), "SVD": (svd, 40.0), "PD": (pd_, 5.0)}
    times = _summary({**slow, C.LAPSCORES: (GRID, 0.01)}, "reduce_seconds")
    verdict = _run("lst17-svd-lle-slowest-sparse_text", times)
    assert verdict.verdict == C.HOLDS
    assert "LLE was not run" in verdict.evidence
    # SVD faster than LS over their common grid: against the claim
    quick = _summary({**slow, "SVD": (svd, 0.001), C.LAPSCORES: (GRID, 0.5)}, "reduce_seconds")
    assert _run("lst17-svd-lle-slowest-sparse_text", quick).verdict == C.FAILS


@pytest.mark.slow
def test_lle_on_its_sub_grid_counts_in_both_rankings():
    lle, sub = [r for r in GRID if r <= 100], [r for r in GRID if r <= 200]
    times = {"SE": (GRID, 0.02), "RP": (GRID, 1.0), "SVD": (sub, 40.0), "PD": (sub, 5.0)}
    times = _summary({**times, "LLE": (lle, 60.0), C.LAPSCORES: (GRID, 0.01)}, "reduce_seconds")
    verdict = _run("lst17-svd-lle-slowest-sparse_text", times)
    assert verdict.verdict == C.HOLDS and "LLE was not run" not in verdict.evidence
    # LLE faster than RP on their common r: the ranking fails
    quick = times.assign(reduce_seconds=times.reduce_seconds.where(
        times.method != "LLE", times.reduce_seconds / 60000))  # fmt: skip
    assert _run("lst17-svd-lle-slowest-sparse_text", quick).verdict == C.FAILS
    scores = {"SE": (GRID, 0.8), "RP": (GRID, 0.8), "SVD": (sub, 0.8), "PD": (sub, 0.8)}
    low = _summary({**scores, "LLE": (lle, 0.3), C.LAPSCORES: (GRID, 0.3)}, "accuracy")
    trails = _run("lst17-lle-lapscores-trail-sparse_text", low)
    assert trails.verdict == C.HOLDS and "LLE was not run" not in trails.evidence
