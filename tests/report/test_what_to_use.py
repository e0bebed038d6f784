"""The report's "What to use" section: each experiment's points (method, r) with their intervals
over the repetitions, their Pareto fronts against time, the short table, the figure and CSV."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kmdr.report import what_to_use as W
from kmdr.report.build import build_report
from kmdr.report.site import Site, render_page


def _cells(spec: dict[tuple[str, int], tuple[list, list, list]], base=None) -> pd.DataFrame:
    """Cells from {(method, r): (accuracies, objectives, times)}, one cell per repetition."""
    rows = []
    for (method, r), (acc, obj, sec) in spec.items():
        for rep, (a, o, t) in enumerate(zip(acc, obj, sec, strict=True)):
            name = "none" if method == base else method.lower()
            rows.append({"method": method, "reducer_name": name, "r": r, "repetition": rep,
                         "seed": 100 * rep + r, "accuracy": a, "objective": o,
                         "total_seconds": t, "dataset": "d"})  # fmt: skip
    return pd.DataFrame(rows)


# (points as {(method, r): (mean accuracy, mean F, mean time)}, the accuracy front, the F front)
FRONTS = [
    pytest.param(
        {("A", 5): (0.5, 0.3, 1.0), ("A", 10): (0.7, 0.2, 2.0), ("B", 5): (0.6, 0.25, 3.0)},
        {("A", 5), ("A", 10)},
        {("A", 5), ("A", 10)},
        id="a slower, less accurate point is off both fronts",
    ),
    pytest.param(
        {("A", 5): (0.5, 0.3, 1.0), ("B", 5): (0.9, 0.1, 5.0), ("C", 5): (0.6, 0.35, 2.0)},
        {("A", 5), ("B", 5), ("C", 5)},
        {("A", 5), ("B", 5)},
        id="more accurate but a worse F: on one front only",
    ),
    pytest.param(
        {("A", 5): (0.5, 0.3, 1.0), ("B", 5): (0.5, 0.3, 1.0)},
        {("A", 5)},
        {("A", 5)},
        id="an exact tie keeps one point",
    ),
]


@pytest.mark.parametrize(("means", "acc_front", "f_front"), FRONTS)
def test_the_fronts(means, acc_front, f_front):
    spec = {key: ([a, a], [f, f], [t, t]) for key, (a, f, t) in means.items()}
    pts = W.fronts(W.points(_cells(spec)))
    on = {name: set(zip(pts.loc[pts[f"front_{name}"], "method"], pts.loc[pts[f"front_{name}"], "r"],
                       strict=True)) for name in ("accuracy", "F")}  # fmt: skip
    assert on == {"accuracy": acc_front, "F": f_front}


def test_a_point_is_the_means_with_t_intervals_over_the_repetitions():
    acc = [0.5, 0.6, 0.7, 0.6]
    pts = W.points(_cells({("A", 5): (acc, [0.2] * 4, [1.0, 2.0, 3.0, 2.0])}))
    (row,) = pts.to_dict("records")
    from scipy import stats

    half = stats.t.ppf(0.975, 3) * np.std(acc, ddof=1) / 2
    assert row["n"] == 4 and row["accuracy"] == pytest.approx(0.6)
    assert (row["accuracy_low"], row["accuracy_high"]) == pytest.approx((0.6 - half, 0.6 + half))
    assert row["objective_low"] == row["objective_high"] == pytest.approx(0.2)  # no spread
    assert row["total_seconds"] == pytest.approx(2.0)


def test_the_table_fastest_within_the_margin_and_within_budgets():
    rng = np.random.default_rng(0)
    n = 8
    spec = {
        ("Full", 100): (0.812 + rng.normal(0, 0.002, n), [0.1] * n, [4.0] * n),
        ("Slow", 50): (0.82 + rng.normal(0, 0.002, n), [0.1] * n, [8.0] * n),
        ("Quick", 10): (0.805 + rng.normal(0, 0.002, n), [0.12] * n, [0.5] * n),
        ("Poor", 5): (0.60 + rng.normal(0, 0.002, n), [0.3] * n, [0.1] * n),
    }
    cells = _cells(spec, base="Full")
    rows = W.choices(cells, W.points(cells))
    table = {row[0].split(" (")[0]: row for row in rows}
    assert table["most accurate"][1] == "Slow at r = 50"
    fast = table[f"fastest within {W.MARGIN:g} of the most accurate"]
    assert fast[1] == "Quick at r = 10" and "16× faster; within 0.02 of it (p = " in fast[4]
    assert table["most accurate within 0.25× the time of k-means on all features"][1] == (
        "Quick at r = 10"
    )
    assert table["most accurate within 1× the time of k-means on all features"][1] == "Full"


@pytest.mark.parametrize(
    ("n", "said"),
    [
        # every repetition equal on both sides: the exact sign test, whose p weighs n
        (5, "within 0.02 of it (p = 0.031, one-sided, n = 5, no spread: exact sign test)"),
        (2, "not shown within 0.02 of it (p = 0.25, one-sided, n = 2, no spread: exact sign"),
    ],
)
def test_no_spread_is_still_a_test_whose_p_weighs_n(n, said):
    spec = {
        ("Best", 50): ([1.0] * n, [0.1] * n, [8.0] * n),
        ("Quick", 10): ([0.99] * n, [0.1] * n, [1.0] * n),
    }
    cells = _cells(spec)
    fast = W.choices(cells, W.points(cells))[1]
    assert fast[1] == "Quick at r = 10" and said in fast[4]


@pytest.mark.slow
def test_the_committed_results_have_a_figure_and_csv_per_experiment():
    """Every committed experiment with cells has its figure and CSV, and the CSV is what
    :func:`kmdr.report.what_to_use.fronts` gives on its cells (the files are not stale)."""
    from pathlib import Path

    from kmdr.report.experiments import load_all

    root = Path(__file__).resolve().parents[2] / "results"
    exps = {n: e for n, e in load_all(root).items() if e.has_cells}
    assert exps
    for name, exp in exps.items():
        assert (root / W.FOLDER / f"{name}_pareto" / f"{name}.png").is_file()
        csv = pd.read_csv(root / W.FOLDER / f"{name}_pareto" / f"{name}_front.csv")
        fresh = W.fronts(W.points(exp.cells))
        assert list(csv.columns) == list(fresh.columns)
        assert csv[["method", "r", "front_accuracy", "front_F"]].equals(
            fresh[["method", "r", "front_accuracy", "front_F"]].reset_index(drop=True)
        ), name
        assert np.allclose(csv["accuracy"], fresh["accuracy"], rtol=1e-5, equal_nan=True)


#: Committed experiments of three papers: the report of a folder holding them links their section.
LINKED = ("bzmd14_orl", "lst17_coil20", "pb17_digits")


@pytest.mark.slow
def test_the_report_and_its_page_link_the_section(tmp_path):
    """The report and page of a copy of three committed experiments with their 'What to use'
    files (the whole committed folder's report is built in test_site_browser)."""
    import shutil
    from pathlib import Path

    source = Path(__file__).resolve().parents[2] / "results"
    root = tmp_path / "results"
    for name in LINKED:
        shutil.copytree(source / name, root / name)
        where = f"{W.FOLDER}/{name}_pareto"
        shutil.copytree(source / where, root / where)
    text = build_report(root)
    assert f"\n## {W.HEADING}\n" in text
    assert "- [What to use](#what-to-use)" in text  # in the contents
    for name in LINKED:
        where = f"what_to_use/{name}_pareto"
        assert f"![What to use: {name}]({where}/{name}.png)" in text
        assert f"[{where}/{name}_front.csv]({where}/{name}_front.csv)" in text
    page = render_page(root, text, Site(tmp_path / "index.html", no_plots="test"))
    nav = page[page.index('<nav class="page"') : page.index("</nav>")]
    assert '<a href="#what-to-use">What to use</a>' in nav
    assert 'id="what-to-use"' in page


@pytest.mark.slow
def test_the_command_writes_one_folder_per_experiment(tmp_path, capsys):
    """``python -m kmdr.report.what_to_use RESULTS`` on a results folder holding one committed
    experiment: its figure and CSV in ``what_to_use/<experiment>_pareto/``, the CSV its fronts."""
    import shutil
    from pathlib import Path

    from kmdr.report.experiments import load_all

    source = Path(__file__).resolve().parents[2] / "results" / "bzmd14_synth"
    shutil.copytree(source, tmp_path / "bzmd14_synth")
    assert W.main([str(tmp_path)]) == 0
    assert "wrote 2 files" in capsys.readouterr().out
    folder = tmp_path / W.FOLDER / "bzmd14_synth_pareto"
    assert sorted(p.name for p in folder.iterdir()) == [
        "bzmd14_synth.png",
        "bzmd14_synth_front.csv",
    ]
    assert (folder / "bzmd14_synth.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    csv = pd.read_csv(folder / "bzmd14_synth_front.csv")
    fresh = W.fronts(W.points(load_all(tmp_path)["bzmd14_synth"].cells))
    assert csv["front_accuracy"].tolist() == fresh["front_accuracy"].tolist()
    assert csv["front_F"].any() and csv["front_accuracy"].any()
