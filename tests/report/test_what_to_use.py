"""The report's "What to use" section: each experiment's points (method, r) with their intervals
over the repetitions, their Pareto fronts against time, the short table, the figure and CSV."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kmdr.report import what_to_use as W
from kmdr.report.build import build_report
from kmdr.report.site import Site, render_page


def _cells(
    spec: dict[tuple[str, int], tuple[list, list, list]], base=None, init="random"
) -> pd.DataFrame:
    """Cells from {(method, r): (accuracies, objectives, times)}, one cell per repetition
    (``objective_reduced``: the objective, as a reduction that draws nothing would give)."""
    rows = []
    for (method, r), (acc, obj, sec) in spec.items():
        for rep, (a, o, t) in enumerate(zip(acc, obj, sec, strict=True)):
            name = "none" if method == base else method.lower()
            rows.append({"method": method, "reducer_name": name, "r": r, "repetition": rep,
                         "seed": 100 * rep + r, "accuracy": a, "objective": o,
                         "objective_reduced": o, "kmeans_init": init,
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
    assert fast[1] == "Quick at r = 10" and "×16 (95% CI ×16–×16) faster; within 0.02" in fast[4]
    assert "Holm over the 2 faster front point(s)" in fast[4] and "bootstrap" in fast[4]
    assert table["most accurate within 0.25× the time of k-means on all features"][1] == (
        "Quick at r = 10"
    )
    assert table["most accurate within 1× the time of k-means on all features"][1] == "Full"


#: (points {(method, r): (accuracies, times)}, the question, the point the table names, words
#: of its note)
PICKS = [
    pytest.param(
        {("Slow", 30): ([1.0] * 5, [8.0] * 5), ("Quick", 20): ([1.0] * 5, [1.0] * 5)},
        "most accurate",
        "Quick at r = 20",
        "the rule by the means alone (untested) picks it in",
        id="a tie in accuracy goes to the cheaper point",
    ),
    pytest.param(
        {
            ("Best", 50): ([0.70, 0.74, 0.78, 0.72, 0.76], [8.0] * 5),
            ("Quick", 10): ([0.60, 0.75, 0.85, 0.65, 0.80], [1.0] * 5),
        },
        "fastest within 0.02 of the most accurate",
        "none shown",
        "no faster point is shown within 0.02 of the most accurate at n = 5 (closest: Quick",
        id="a pick that fails its own test is not named; the row says what n could show",
    ),
    pytest.param(
        {
            ("Best", 50): ([0.80] * 5, [8.0] * 5),
            ("Quick", 10): ([0.79, 0.80, 0.79, 0.80, 0.79], [1.0, 1.1, 0.9, 1.0, 1.05]),
        },
        "fastest within 0.02 of the most accurate",
        "Quick at r = 10",
        "within 0.02 of it (p = ",
        id="a pick that passes its test is named with it",
    ),
]


@pytest.mark.parametrize(("spec", "question", "named", "said"), PICKS)
def test_each_pick_is_the_cheaper_of_a_tie_and_named_only_when_its_test_passes(
    spec, question, named, said
):
    cells = _cells({k: (acc, [0.1] * len(acc), t) for k, (acc, t) in spec.items()})
    rows = {row[0]: row for row in W.choices(cells, W.points(cells))}
    assert rows[question][1] == named and said in rows[question][4]


@pytest.mark.parametrize("n", [5, 10])
def test_a_deterministic_clustering_repeated_n_times_prints_no_p(n):
    """The label-informed start after a reduction that draws nothing: every repetition is the
    same computation, one observation: no p for accuracy, F or time."""
    spec = {
        ("SVD", 80): ([0.793] * n, [0.2] * n, list(np.linspace(0.137, 0.139, n))),
        ("SVD", 20): ([0.777] * n, [0.21] * n, list(np.linspace(0.101, 0.103, n))),
    }
    cells = _cells(spec, init="first_of_class")
    rows = {row[0]: row for row in W.choices(cells, W.points(cells))}
    fast = rows["fastest within 0.02 of the most accurate"]
    assert fast[1] == "SVD at r = 20" and fast[2] == "0.777 (one computation)"
    assert "one computation, no test" in fast[4] and "p =" not in fast[4]
    assert "p_Holm" not in fast[4] and f"n = {n}" not in fast[4]
    # the same cells with a random start are n observations that agree: a sign test
    random = _cells(spec)
    rows = {row[0]: row for row in W.choices(random, W.points(random))}
    assert "p = " in rows["fastest within 0.02 of the most accurate"][4]


def test_the_stability_is_a_seeded_bootstrap_over_repetitions():
    rng = np.random.default_rng(1)
    spec = {("A", 5): (0.5 + rng.normal(0, 0.01, 6), [0.3] * 6, [1.0] * 6),
            ("B", 5): (0.9 + rng.normal(0, 0.01, 6), [0.1] * 6, [2.0] * 6),
            ("C", 5): (0.89 + rng.normal(0, 0.05, 6), [0.1] * 6, [1.9] * 6)}  # fmt: skip
    cells = _cells(spec)
    shares, picks = W.stability(cells)
    again, picks_again = W.stability(cells)
    assert shares.equals(again) and picks == picks_again
    by = shares.set_index("method")["stable_accuracy"]
    # C is faster than B and always above A: on the front in every resample; B only where it
    # beats C's mean in that resample
    assert by["A"] == 1.0 and by["C"] == 1.0 and 0 < by["B"] < 1
    assert sum(picks["best"].values()) == pytest.approx(1.0)


@pytest.mark.slow
def test_no_row_names_a_dominated_point_or_one_that_fails_its_rule():
    """Over every committed experiment: each named point is on the accuracy front of its
    experiment (no point at least as fast and more accurate), within its budget on the means,
    and a "within" pick carries a significant Holm-adjusted p or is one computation."""
    import re
    from pathlib import Path

    from kmdr.report.experiments import load_all

    root = Path(__file__).resolve().parents[2] / "results"
    for name, exp in load_all(root).items():
        if not exp.has_cells:
            continue
        cells = W.named(exp.cells)
        pts = W.fronts(W.points(cells))
        front = {W._point_text(r) for _, r in pts[pts["front_accuracy"]].iterrows()}
        for question, point, _, _, note in W.choices(cells, pts):
            if point in ("none", "none shown"):
                continue
            if question.startswith("fastest pipeline"):  # its own rule: cost on all rows, tested
                adjusted = re.search(r"p_Holm = ([0-9.e-]+)", note)
                assert float(adjusted[1]) < 0.05, (name, question, point)
                continue
            assert point in front, (name, question, point)
            if question.startswith("fastest within") and "itself" not in note:
                adjusted = re.search(r"p_Holm = ([0-9.e-]+)", note)
                assert "one computation, no test" in note or float(adjusted[1]) < 0.05
            if "the time of" in question:
                budget = float(re.search(r"\(([0-9.e-]+) s\)", question)[1])
                row = pts[[W._point_text(r) == point for _, r in pts.iterrows()]].iloc[0]
                assert row[W.TIME] <= budget * 1.005, (name, question)  # printed to 3 digits


@pytest.mark.parametrize(
    ("n", "named", "said"),
    [
        # every repetition equal on both sides: the exact sign test, whose p weighs n
        (5, "Quick at r = 10", "within 0.02 of it (p = 0.031, p_Holm = 0.031, one-sided, n = 5, "
         "no spread: exact sign test"),
        (2, "none shown", "(closest: Quick at r = 10, p = 0.25, one-sided, no spread: exact "
         "sign test; a sign test on 2 repetitions has smallest p 0.25"),
    ],
)  # fmt: skip
def test_no_spread_is_still_a_test_whose_p_weighs_n(n, named, said):
    spec = {
        ("Best", 50): ([1.0] * n, [0.1] * n, [8.0] * n),
        ("Quick", 10): ([0.99] * n, [0.1] * n, [1.0] * n),
    }
    cells = _cells(spec)
    fast = W.choices(cells, W.points(cells))[1]
    assert fast[1] == named and said in fast[4]


@pytest.mark.slow
def test_unlabeled_data_draw_their_f_and_say_no_accuracy():
    # data without labels (a coreset study's c-outlier instance) score no accuracy: the figure
    # draws F against time and says why its accuracy panel is empty
    nan = [float("nan")] * 3
    spec = {("A", 5): (nan, [0.2, 0.3, 0.25], [1.0, 1.2, 1.1]),
            ("B", 5): (nan, [0.1, 0.15, 0.12], [2.0, 2.1, 2.2])}  # fmt: skip
    fig = W.draw(W.annotated(W.named(_cells(spec))), "unlabeled")
    accuracy, f = fig.axes[:2]
    assert not accuracy.axison and "no accuracy" in accuracy.texts[0].get_text()
    assert f.axison and f.get_xscale() == "log"


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
        fresh = W.annotated(W.named(exp.cells))
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
    fresh = W.fronts(W.points(W.named(load_all(tmp_path)["bzmd14_synth"].cells)))
    assert csv["front_accuracy"].tolist() == fresh["front_accuracy"].tolist()
    assert csv["front_F"].any() and csv["front_accuracy"].any()
