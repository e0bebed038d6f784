"""ss22's report sections rendered on experiments built here (cells of known truth): the
verdict each row must show, the authors' rows kmdr does not run, and what a reader is told
when nothing ran."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from test_ss22_report_claims import _authors_cells, _reducer_cells

from kmdr.papers.ss22 import sections as R
from kmdr.report import claims as C
from kmdr.report.sections import ReportContext

RESULTS = Path(__file__).resolve().parents[3] / "results"


class _Exp:
    """What a section reads of an experiment (:class:`kmdr.report.experiments.Experiment`)."""

    def __init__(self, name: str, cells: pd.DataFrame, title: str = "a title"):
        self.name, self.cells = name, cells
        self.preset = {"title": title, "paper": "ss22", "figure": "ss22_reducers"}
        self.skipped: list[str] = []
        self.dir = RESULTS / "no such folder" / name  # its cells are the ones given

    @property
    def has_cells(self) -> bool:
        return len(self.cells) > 0

    def status(self) -> str:
        return f"complete ({len(self.cells)} cells)" if self.has_cells else "not run"

    def figures(self) -> list[Path]:
        return []


def _row(text: str, *cells: str) -> str:
    """The one table line of ``text`` holding every one of ``cells``."""
    lines = [line for line in text.splitlines() if all(c in line for c in cells)]
    assert len(lines) == 1, (cells, lines)
    return lines[0]


def _context(exp: _Exp, claims) -> ReportContext:
    cells = {exp.name: C.replicates(exp.cells)}
    return ReportContext({exp.name: C.evaluate_all(cells, claims, RESULTS)})


def test_beside_the_authors_marks_each_cell():
    same = _authors_cells("Sensitivity Sampling", 1.0)
    worse = _authors_cells("Group Sampling", 1.25)
    own = _authors_cells("Sensitivity Sampling", 1.0).assign(dataset="usps")
    exp = _Exp("ss22_benchmark", pd.concat([same, worse, own], ignore_index=True))
    claims = [R.S.authors_claim(exp.name, c) for c in R.S.AUTHORS_CONSTRUCTIONS]
    text = R.render_authors(RESULTS, [exp], _context(exp, claims))
    assert "equivalent ✓" in _row(text, "| Sensitivity Sampling", "benchmark", "| 10 ")
    assert "kmdr higher, beyond the margin ✗" in _row(
        text, "| Group Sampling", "benchmark", "| 20 "
    )
    assert "tie =" not in text and "⚖" not in text  # no cell, no verdict is a tie
    assert "×1.2" in _row(text, "| Group Sampling", "benchmark", "| 10 ")
    # the authors' other constructions on the same dataset, labelled, and why
    head = _row(text, "| dataset ", "BICO: authors' median [range] (n), not run here")
    assert "Ray Maker: authors'" in head
    # StreamKM++ is not in these cells: listed with the authors' numbers too
    assert "StreamKM++: authors'" in head
    line = _row(text, "| Benchmark ", "| 20 ", "| 500 ")
    assert "2.358 [2.302–2.465] (10)" in line  # BICO's, from the committed table
    assert line.split("|")[4].strip() == "—"  # no StreamKM++ at m = 500 in their runs
    # at the k of these cells only (10 and 20), not every k the authors ran
    assert not [x for x in text.splitlines() if x.startswith("| Benchmark ") and "| 40 " in x]
    assert "**Ray Maker**: " in text and "**BICO**: " in text
    # a dataset the authors did not run: kmdr's medians alone
    assert "datasets the authors did not run" in text and _row(text, "| usps ", "| 20 ", "| 100 ")
    # the claims' verdicts follow, one per construction the authors ran
    assert "❌ fails" in _row(text, "ss22-group-sampling-as-authors")
    assert "✅ holds" in _row(text, "ss22-sensitivity-sampling-as-authors")


def test_beside_the_authors_renders_without_the_reports_claims():
    exp = _Exp("ss22_benchmark", _authors_cells("Group Sampling", 1.25))
    text = R.render_authors(RESULTS, [exp], ReportContext())
    assert "kmdr higher, beyond the margin ✗" in _row(
        text, "| Group Sampling", "benchmark", "| 20 "
    )


@pytest.mark.parametrize("members", [[], [_Exp("ss22_benchmark", pd.DataFrame())]])
def test_beside_the_authors_with_nothing_run_says_so(members, tmp_path):
    text = R.render_authors(tmp_path, members, ReportContext())
    assert "**No published table**" in text and "**No data**" in text


def test_beside_the_authors_shows_the_tie_breaking_diagnostic_when_its_file_is_there(tmp_path):
    assert "StreamKM++ on the Benchmark by how its seeding" not in R.render_authors(
        tmp_path, [], ReportContext()
    )
    (tmp_path / R.TIES).parent.mkdir(parents=True)
    pd.DataFrame(
        {"k": 10, "m": 500, "seed": [0, 1, 0, 1], "distortion": [1.07, 1.06, 1.02, 1.03],
         "starved_clusters": [4, 4, 3, 5], "seeding": ["authors_arithmetic"] * 2 + ["kmdr"] * 2}
    ).to_csv(tmp_path / R.TIES, index=False)  # fmt: skip
    text = R.render_authors(tmp_path, [], ReportContext())
    assert "| 1.065 [1.06–1.07] " in _row(text, "| authors_arithmetic ", "| 500 ", "| 4, 4 ")
    assert "| 1.025 [1.02–1.03] " in _row(text, "| kmdr ", "| 3, 5 ")


def test_reducers_before_coresets_says_where_it_is_free_costly_and_faster():
    cells = _reducer_cells({5: 1.10, 20: 1.0, 80: 1.0}, {5: 0.5, 20: 0.6, 80: 1.0})
    exp = _Exp("ss22_reducers_usps", cells)
    claims = R.S.reducer_claims(exp.name, "Sensitivity Sampling")
    text = R.render_reducers(RESULTS, [exp], _context(exp, claims))
    line = _row(text, "| Sensitivity Sampling", "| rp ", "5, 20, 80")
    assert "| 20 " in line  # equivalent from r = 20
    assert "free from r = 20" in line and "costs accuracy at r = 5" in line
    assert "saves time at r = 5, 20" in line
    assert "beyond the margin ✗" in _row(text, "| rp ", "| 5 ", "| usps ")
    assert "equivalent ✓" in _row(text, "| rp ", "| 80 ", "| usps ")
    within = _row(text, "| rp ", "| 80 ", "| usps ").split("|")[8].strip()
    assert within.startswith("±") and float(within[1:-1]) < 1  # inside the ±1% margin
    assert float(_row(text, "| rp ", "| 5 ", "| usps ").split("|")[8].strip()[1:-1]) > 9
    assert "no difference shown = (could detect ×" in _row(text, "| rp ", "| 80 ", "| usps ")
    assert "❌ fails" in _row(text, "ss22_reducers_usps-sensitivity-sampling-reducer-free")


def test_reducers_before_coresets_says_where_it_lowers_the_distortion_and_is_slower():
    cells = _reducer_cells({5: 0.9, 20: 1.0, 80: 1.0}, {5: 2.0, 20: 1.0, 80: 1.0})
    exp = _Exp("e", cells)
    text = R.render_reducers(
        RESULTS, [exp], _context(exp, R.S.reducer_claims("e", "Sensitivity Sampling"))
    )
    line = _row(text, "| Sensitivity Sampling", "| rp ", "5, 20, 80")
    assert "free from r = 20; lower distortion at r = 5; slower at r = 5" in line
    assert "costs accuracy" not in line and "saves time" not in line


def test_reducers_before_coresets_without_a_baseline_says_so():
    cells = _reducer_cells({5: 1.0}, {5: 1.0})
    exp = _Exp("e", cells[cells["reducer"] != "none"])
    text = R.render_reducers(RESULTS, [exp], ReportContext())
    assert "No reduced run beside a run of the same construction without reducer." in text


def test_reducers_figure_draws_a_line_per_construction_and_the_band_without_reducer():
    from kmdr.papers.ss22.figures import reducers_figure

    one = _reducer_cells({5: 1.10, 20: 1.0, 80: 1.0}, {5: 0.5, 20: 0.6, 80: 1.0})
    two = one.assign(construction="Group Sampling", distortion=one["distortion"] * 1.01)
    fig = reducers_figure(pd.concat([one, two], ignore_index=True), "a title")
    try:
        axes = fig.axes
        assert len(axes) == 2  # one line (usps, k, m, rp) x (distortion, time)
        for ax in axes:
            assert [len(line.get_xdata()) for line in ax.lines if line.get_marker() == "o"] == [
                3,
                3,
            ]
            assert len(ax.patches) == 2  # each construction's band without reducer
        assert axes[0].get_xscale() == "log" and axes[1].get_yscale() == "log"
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
    assert reducers_figure(one[one["reducer"] == "none"], "t") is None
