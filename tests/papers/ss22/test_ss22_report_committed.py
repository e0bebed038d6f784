"""The committed report's ss22 statistics, recomputed from the committed files (results/): each
cell beside the authors an equivalence test with its margin, one Holm family per construction in
which each of the authors' samples is the control once, uniform sampling's distortion with a
reducer identical by construction (untested), no claim that could never have data; and the
guide's and the published table's README sentences held to the table they describe. Nothing here
is a number typed in: each is computed from the cells, so the tests hold after the cells are
computed again (and the report regenerated)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from kmdr._io import read_csv
from kmdr.papers.ss22 import claims as S
from kmdr.papers.ss22 import published as P
from kmdr.report import claims as C
from kmdr.report._text import VERDICT_MARK
from kmdr.report.claims.verdicts import AGAINST, FOR, NOT_SIGNIFICANT

RESULTS = Path(__file__).resolve().parents[3] / "results"
REPORT = RESULTS / "REPORT.md"
WORDS = {FOR: "equivalent ✓", NOT_SIGNIFICANT: "undecided =", AGAINST: "beyond the margin ✗"}


def _report() -> str:
    return REPORT.read_text(encoding="utf-8")


def _cells(experiment: str) -> pd.DataFrame:
    return C.replicates(read_csv(RESULTS / experiment / "cells.csv"))


def _authors_verdicts() -> list[tuple[C.Claim, C.Verdict]]:
    claims = [c for c in S.ss22_claims() if c.experiments]
    names = {e for c in claims for e in c.experiments if (RESULTS / e / "cells.csv").is_file()}
    cells = {e: _cells(e) for e in names}
    return [(c, C.evaluate(c, cells, RESULTS)) for c in claims]


def _claim_row(text: str, claim_id: str) -> str:
    rows = [line for line in text.splitlines() if line.startswith(f"| `{claim_id}` ")]
    assert len(rows) == 1, claim_id
    return rows[0]


def test_each_cell_beside_the_authors_is_an_equivalence_test_as_the_report_prints_it():
    text = _report()
    section = text.split("## Beside the authors", 1)[1].split("\n## ", 1)[0]
    assert "tie =" not in section and "⚖" not in section
    verdicts = _authors_verdicts()
    assert verdicts
    for claim, verdict in verdicts:
        assert verdict.verdict in (C.HOLDS, C.PARTLY, C.FAILS, C.TIE), (claim.id, verdict)
        assert VERDICT_MARK[verdict.verdict] in _claim_row(text, claim.id)
        assert f"×(1 ± {S.MARGIN:g})" in claim.statement
        construction = claim.id.split("ss22-")[1].split("-as-authors")[0]
        for label, outcome, _p, adjusted in verdict.outcomes:
            _experiment, rest = label.split(": ", 1)
            dataset, k, m = re.fullmatch(r"(\S+), k = (\d+), m = (\d+)", rest).groups()
            lines = [line for line in section.splitlines()
                     if f"| {dataset} " in line and f"| {k} " in line and f"| {m} " in line
                     and S._slug(line.split("|")[1]).startswith(construction)]  # fmt: skip
            assert len(lines) == 1, label
            assert C.p_text(adjusted, "p_Holm") in lines[0] and WORDS[outcome] in lines[0], label


def test_each_of_the_authors_samples_is_the_control_once_in_a_family():
    exact = []
    for claim, verdict in _authors_verdicts():
        controls = [(S.key(label.split(": ")[1].split(",")[0]), *label.split(",")[1:])
                    for label, *_ in verdict.outcomes]  # fmt: skip
        assert len(controls) == len(set(controls)), claim.id
        assert claim.id.endswith("-exact-ties") == all(
            S.is_diagnostic(label.split(": ")[1].split(",")[0]) for label, *_ in verdict.outcomes
        )
        if claim.id.endswith("-exact-ties"):
            exact += controls
    # the exact-ties diagnostic is set beside a sample of the authors' that a family of the
    # instance itself holds too: the reason it is a family of its own
    plain = [c for claim, v in _authors_verdicts() if not claim.id.endswith("-exact-ties")
             for c in [(S.key(lab.split(": ")[1].split(",")[0]), *lab.split(",")[1:])
                       for lab, *_ in v.outcomes]]  # fmt: skip
    assert exact and set(exact) <= set(plain)


def test_no_ss22_claim_is_one_that_could_never_have_data():
    text = _report()
    rows = [line for line in text.splitlines() if line.startswith("| `ss22")]
    assert rows and not [r for r in rows if VERDICT_MARK[C.NO_DATA] in r]
    # a construction kmdr has no port of makes no claim; BICO is ported and run, so it has one
    ids = {c.id for c in S.ss22_claims()}
    assert not [n for n in S.NOT_RUN if f"ss22-{n.lower().replace(' ', '-')}-as-authors" in ids]
    assert "ss22-bico-as-authors" in ids


def test_uniform_sampling_with_a_reducer_is_identical_by_construction():
    experiment = "ss22_usps_reducers"
    raw = _cells(experiment)
    df = S.canonical(raw)
    uniform = df[df["construction"] == "Uniform Sampling"]
    alone = uniform[uniform["reducer"] == ""].set_index("repetition")["distortion"]
    reduced = uniform[uniform["reducer"] != ""]
    assert len(reduced) and (reduced["distortion"].to_numpy()
                             == alone.loc[reduced["repetition"]].to_numpy()).all()  # fmt: skip
    assert S.identical_by_construction(S.reducer_rows(df, "Uniform Sampling"), "Uniform Sampling")
    claim = next(
        c for c in S.ss22_claims() if c.id == f"{experiment}-uniform-sampling-reducer-free"
    )
    verdict = C.evaluate(claim, {experiment: raw})
    assert verdict.verdict == C.NOT_TESTABLE and "identical by construction" in verdict.evidence
    row = _claim_row(_report(), claim.id)
    assert "identical by construction, untested" in row and VERDICT_MARK[C.NOT_TESTABLE] in row
    # the other constructions draw from the data: tested as before
    assert not S.identical_by_construction(
        S.reducer_rows(df, "Sensitivity Sampling"), "Sensitivity Sampling"
    )


def test_the_guides_bico_sentence_says_the_two_are_measured_differently():
    # its numbers are held to the table by test_ss22_report_guide
    guide = (RESULTS.parent / "docs" / "guide" / "ss22.md").read_text(encoding="utf-8")
    assert "‖A‖²_F − ‖B‖²_F" in guide and "`xrun/calc_costs.py`" in guide
    assert "changes the verdict" not in guide


def test_the_published_readme_says_what_the_authors_distortion_is():
    readme = (RESULTS / P.TABLE).parent.joinpath("README.md").read_text(encoding="utf-8")
    assert readme == P.readme(read_csv(RESULTS / P.TABLE))
    assert "on the Benchmark the largest over the Benchmark's own solutions" in readme
    assert "`xrun/eval_benchmark.py`" in readme and "`xrun/calc_costs.py`" in readme


@pytest.mark.parametrize("claim_id", ["bzmd14-synth_kmeanspp-accurate-r20"])
def test_an_untestable_claims_smallest_p_is_the_one_its_rows_print(claim_id):
    row = _claim_row(_report(), claim_id)
    smallest = re.search(r"smallest possible p \(([0-9.]+)", row).group(1)
    printed = set(re.findall(r"exact sign test on \d+ repetitions, p = ([0-9.]+)", row))
    assert printed == {smallest}, (smallest, printed)
