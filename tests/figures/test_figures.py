"""Figures and ``kmdr-figures`` from hand-made experiment folders."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

import numpy as np
import pandas as pd
from matplotlib import pyplot as plt

from _results_factory import make_cells, preset, write_experiment
from kmdr.figures import appearance
from kmdr.figures import draw as figures
from kmdr.papers.published import BMD09_FIG1_TERMS

GRID = {"leverage": [5, 10, 15], "sign": [5, 10, 15], "svd": [5, 10, 15], "none": [64]}
LST17 = {"preset": preset("lst17 Figures 1-3 (a): COIL20", figure="lst17", paper="lst17")}


def _all_text(fig) -> str:
    texts = [t.get_text() for t in fig.findobj(matplotlib.text.Text)]
    return "\n".join(texts)


def _assert_files(paths: list[Path], exp_dir: Path) -> None:
    names = sorted(p.name for p in paths)
    assert names == sorted([f"{exp_dir.name}.pdf", f"{exp_dir.name}.png"])
    for p in paths:
        assert p.parent == exp_dir / "figures"
        assert p.stat().st_size > 1000
    assert (exp_dir / "figures" / f"{exp_dir.name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (exp_dir / "figures" / f"{exp_dir.name}.pdf").read_bytes()[:5] == b"%PDF-"


@pytest.mark.slow
def test_bzmd14_style_complete(tmp_path):
    exp = write_experiment(tmp_path, "bzmd14_orl", make_cells("bzmd14_orl", GRID, reps=2))
    assert figures.figure_style(exp) == "bzmd14"
    fig = figures.make_figure(exp)
    text = _all_text(fig)
    axes = fig.get_axes()
    assert len(axes) == 3
    assert "ORL - Running time" in text and "ORL - Objective" in text
    assert "incomplete" not in text.lower()
    for label in ("Sampl/SVD", "RP", "SVD", "kMeans"):
        assert label in text
    # kMeans is a horizontal line (constant y over the x range) on every panel
    for ax in axes:
        flat = [ln for ln in ax.get_lines() if len(set(np.asarray(ln.get_ydata(), float))) == 1
                and ln.get_linestyle() == "--"]  # fmt: skip
        assert flat, ax.get_title()
    plt.close(fig)
    _assert_files(figures.draw_experiment(exp), exp)


@pytest.mark.slow
def test_incomplete_sweep_is_flagged_in_figure(tmp_path):
    full = make_cells("bzmd14_orl", GRID, reps=2)
    cut = full.drop(index=full.index[[0, 3]])  # two cells of leverage missing
    exp = write_experiment(tmp_path, "bzmd14_orl", cut, expected=full)
    fig = figures.make_figure(exp)
    text = _all_text(fig)
    assert f"incomplete: {len(cut)}/{len(full)} cells".upper() in text
    assert "hollow: fewer cells than expected" in text
    hollow = [
        ln
        for ax in fig.get_axes()
        for ln in ax.get_lines()
        if ln.get_marker() not in ("None", "", None) and ln.get_markerfacecolor() == "white"
    ]
    assert hollow
    plt.close(fig)
    _assert_files(figures.draw_experiment(exp), exp)


@pytest.mark.slow
def test_lst17_style(tmp_path):
    grid = {"sign": [10, 20, 40], "svd": [10, 20, 40], "none": [64]}
    cells = make_cells("lst17_coil20", grid, 2, "coil20")
    exp = write_experiment(tmp_path, "lst17_coil20", cells, config=LST17)
    assert figures.figure_style(exp) == "lst17"
    fig = figures.make_figure(exp)
    _assert_lst17(fig)
    text = _all_text(fig)
    assert "k-means" in text and "not drawn" in text
    assert "lst17 Figures 1-3 (a): COIL20 (lst17_coil20" in text  # the preset's title
    plt.close(fig)
    _assert_files(figures.draw_experiment(exp), exp)


_NOTE = " (r = entries kept per row)"


@pytest.mark.parametrize(
    ("style", "method", "reducer_name", "params", "shown"),
    [
        # lst17's PD runs kmdr's rules (the default, or said): named as kmdr's variant, though
        # its cells keep the label PD
        ("lst17", "PD", "sparsified", "{}", "PD, kmdr's variant" + _NOTE),
        ("lst17", "PD", "sparsified", '{"rules": "kmdr"}', "PD, kmdr's variant" + _NOTE),
        # the authors' rules are the authors' PD
        ("lst17", "PD", "sparsified", '{"rules": "authors"}', "PD" + _NOTE),
        # a PD line a preset labels itself is still kmdr's variant, and says so
        ("lst17", "PD-m", "sparsified", "{}", "PD-m, kmdr's variant"),
        ("lst17", "SVD", "svd", "{}", "SVD"),
        # a method the paper names otherwise: the report's name, then the paper's
        ("lst17", "kMeans", "none", "{}", "kMeans (the paper's k-means)"),
        ("lst17", "LS", "laplacian", "{}", "LapScores (the paper's LS)"),
        ("lst17", "LapScores", "laplacian", "{}", "LapScores (the paper's LS)"),
        # bzmd14 draws the lines as labelled, with the note on PD's r
        ("bzmd14", "PD", "sparsified", "{}", "PD" + _NOTE),
    ],
)
def test_a_styles_legend_names_each_method_as_the_report_does(
    style, method, reducer_name, params, shown
):
    from kmdr.figures.style import figure_style
    from kmdr.report.claims.labels import shown_names

    row = pd.Series({"method": method, "reducer_name": reducer_name, "reducer_params": params})
    assert figure_style(style).line_label(row) == shown
    # where the report renames the method, lst17's legend gives the report's own name
    report = shown_names(row.to_frame().T).get(method)
    assert report is None or (style == "lst17") == shown.startswith(report)


def _assert_lst17(fig) -> None:
    acc, red, clu = fig.get_axes()
    assert "%" in acc.get_ylabel()
    assert red.get_yscale() == "log" and clu.get_yscale() == "log"
    assert acc.get_yscale() == "linear"
    assert max(max(ln.get_ydata()) for ln in acc.get_lines()) > 1  # P drawn in percent
    dashed = [ln for ln in red.get_lines() if ln.get_linestyle() == "--"]
    assert not dashed  # no k-means line where its reduction time is 0


@pytest.mark.slow
def test_bmd09_fig1_style(tmp_path):
    fig1 = preset("bmd09 Figure 1", figure="bmd09_fig1", section="fig1", paper="bmd09")
    exp = write_experiment(tmp_path, "bmd09_fig1", None, config={"preset": fig1})
    rng = np.random.default_rng(1)
    terms = [f"t{i}" for i in range(300)]
    score = rng.uniform(0, 1, 300)
    for i, t in enumerate(BMD09_FIG1_TERMS):
        terms[20 * i + 7] = t
        score[20 * i + 7] = 5 + i
    score /= score.sum()
    drawn = np.zeros(300, int)
    drawn[[7, 27, 100]] = [3, 1, 1]
    pd.DataFrame({"term": terms, "score": score, "times_drawn": drawn}).to_csv(
        exp / "leverage_scores.csv", index=False
    )
    assert figures.figure_style(exp) == "bmd09_fig1"
    fig = figures.make_figure(exp)
    text = _all_text(fig)
    for t in BMD09_FIG1_TERMS:
        assert t in text
    assert "11/11" in text and "r = 5" in text
    plt.close(fig)
    _assert_files(figures.draw_experiment(exp), exp)


@pytest.mark.slow
def test_bmd09_table1_figure(tmp_path):
    cells = make_cells("bmd09_table1", {"leverage": [15, 30, 60], "none": [200]}, 2, "nips",
                       shape=(40, 200, 3), labels={"none": "All"})  # fmt: skip
    table1 = preset("bmd09 Table 1", figure="bmd09_table1", section="table1", paper="bmd09")
    config = {"aggregation": "best", "preset": table1}
    exp = write_experiment(tmp_path, "bmd09_table1", cells, config=config)
    fig = figures.make_figure(exp)
    assert "ours, All (all features)" in _all_text(fig)  # the baseline's own label
    plt.close(fig)
    _assert_files(figures.draw_experiment(exp), exp)


def test_main_reports_skip_and_exits_zero(tmp_path, capsys):
    write_experiment(tmp_path, "lst17_rcv1", None, skipped="rcv1 data not available")
    assert figures.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "skip lst17_rcv1: no cells (rcv1 data not available)" in out
    assert not (tmp_path / "lst17_rcv1" / "figures").exists()


@pytest.mark.slow
def test_main_redraws_and_reports_incomplete(tmp_path, capsys):
    full = make_cells("custom", {"sign": [5, 10], "none": [64]}, 2)
    write_experiment(tmp_path, "custom", full.iloc[1:], expected=full)
    write_experiment(tmp_path, "lst17_rcv1", None, skipped="no data")
    assert figures.main([str(tmp_path), "custom"]) == 0
    out = capsys.readouterr().out
    assert "INCOMPLETE" in out and "custom" in out and "lst17_rcv1" not in out
    assert (tmp_path / "custom" / "summary.csv").exists()
    assert (tmp_path / "custom" / "figures" / "custom.png").exists()
    assert figures.main([str(tmp_path), "nope"]) == 2  # a name it does not hold: nothing drawn


def test_method_styles_come_from_the_reducer_declarations():
    from kmdr.figures.style import figure_style
    from kmdr.reducers import REDUCERS, reducer_entry

    lst17 = dict(figure_style("lst17").names)
    # a row is its reducer's declaration by reducer_name and its declared label, or the name the
    # figure style gives it; never by the spelling of the label alone
    assert (
        appearance.style_of("none", "k-means", lst17)
        == appearance.baseline_style()
        == reducer_entry("none").style
    )
    assert appearance.style_of("laplacian", "LS", lst17) == reducer_entry("laplacian").style
    assert appearance.declared_label("laplacian", "LS", lst17) == "LapScores"
    assert appearance.declared_label("laplacian", "LS") is None  # bzmd14 does not call it LS
    assert appearance.declared_label("svd", "Sampl/SVD") is None  # another reducer's label
    assert figure_style("lst17").display("kMeans", "none") == "kMeans (the paper's k-means)"
    assert appearance.style_of("svd", "my-variant") == appearance.style_of("svd", "my-variant")
    styled = [n for n in REDUCERS if reducer_entry(n).style is not None]
    colors = {reducer_entry(n).style.color for n in styled}
    assert len(colors) == len(styled)
    # legend order: the declaration order, then the others by label
    keys = [appearance.sort_key(n, reducer_entry(n).label) for n in styled]
    assert keys == sorted(keys) and appearance.sort_key("svd", "zz")[0] == len(styled)
    # a variant gets a color no declared method of its figure has
    both = appearance.styles_for([("svd", "SVD"), ("svd", "A V_r (SVD)")])
    assert both[("svd", "SVD")].color != both[("svd", "A V_r (SVD)")].color


def _titles(fig) -> list[str]:
    return [ax.get_title() for ax in fig.get_axes()]


@pytest.mark.slow
def test_two_settings_draw_two_rows_of_panels(tmp_path):
    one = make_cells("mine", GRID, 2, seed=1, kmeans_n_init=1)
    three = make_cells("mine", GRID, 2, seed=3, kmeans_n_init=3)
    exp = write_experiment(tmp_path, "mine", pd.concat([one, three]))
    fig = figures.make_figure(exp)
    axes = fig.get_axes()
    assert len(axes) == 6
    titles = _titles(fig)
    assert all("kmeans_n_init=1" in t for t in titles[:3])
    assert all("kmeans_n_init=3" in t for t in titles[3:])
    # each row draws its own setting's means: the objective panel's RP curve is that setting's
    for row, cells in ((0, one), (1, three)):
        ax = axes[3 * row + 1]
        expect = cells[cells["reducer"] == "sign"].groupby("r")["objective"].mean().to_numpy()
        ys = [
            np.asarray(ln.get_ydata(), float) for ln in ax.get_lines() if len(ln.get_ydata()) == 3
        ]
        assert any(np.allclose(y, expect) for y in ys)
    plt.close(fig)


def test_a_custom_preset_is_drawn_in_its_style(tmp_path):
    grid = {"sign": [10, 20, 40], "svd": [10, 20, 40], "none": [64]}
    config = {"preset": preset("My sweep", figure="lst17", section="custom", paper=None)}
    exp = write_experiment(tmp_path, "zz_custom", make_cells("zz_custom", grid, 2), config=config)
    assert figures.figure_style(exp) == "lst17"
    fig = figures.make_figure(exp)
    _assert_lst17(fig)
    assert "My sweep (zz_custom" in _all_text(fig)
    plt.close(fig)


def test_the_baseline_is_found_by_registry_name(tmp_path):
    # the baseline labelled "full data"; a reducer labelled "kMeans" is an ordinary curve
    labels = {"none": "full data", "sign": "kMeans"}
    exp = write_experiment(tmp_path, "b", make_cells("b", GRID, 2, labels=labels))
    fig = figures.make_figure(exp)
    for ax in fig.get_axes():
        drawn = [ln for ln in ax.get_lines() if ln.get_linestyle() not in ("None", "none", "")]
        # axhline: two points in axes coordinates, one y; a curve: one point per r
        flat = [ln for ln in drawn if len(ln.get_xdata()) == 2
                and len(set(np.asarray(ln.get_ydata(), float))) == 1]  # fmt: skip
        assert len(flat) == 1, ax.get_title()
        curves = [ln for ln in drawn if len(ln.get_xdata()) == 3]
        assert len(curves) == 3  # leverage, "kMeans" (sign) and svd: one line each
    assert "full data (no reduction, all d features)" in _all_text(fig)
    plt.close(fig)


def test_main_reports_a_killed_run_as_incomplete(tmp_path, capsys):
    expected = make_cells("killed", {"sign": [5, 10]}, 2)
    write_experiment(tmp_path, "killed", None, expected=expected, status="running")
    assert figures.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "killed: INCOMPLETE: 0 of 4 cells" in out and "skip killed" not in out


def test_reducer_params_are_separate_lines(tmp_path):
    dense = make_cells("p", {"sign": [5, 10, 15]}, 2, seed=1, reducer_params='{"density": 1.0}')
    sparse = make_cells("p", {"sign": [5, 10, 15]}, 2, seed=2, reducer_params='{"density": 0.1}')
    exp = write_experiment(tmp_path, "p", pd.concat([dense, sparse]))
    fig = figures.make_figure(exp)
    ax = fig.get_axes()[1]  # objective
    curves = [ln for ln in ax.get_lines() if ln.get_linestyle() not in ("None", "none", "")]
    assert len(curves) == 2 and len({ln.get_linestyle() for ln in curves}) == 2
    for cells in (dense, sparse):
        expect = cells.groupby("r")["objective"].mean().to_numpy()
        assert any(np.allclose(ln.get_ydata(), expect) for ln in curves)
    text = _all_text(fig)
    assert 'RP ({"density": 0.1})' in text and 'RP ({"density": 1.0})' in text
    plt.close(fig)


def test_a_presets_note_is_in_the_legend_and_extra_methods_get_distinct_colors(tmp_path):
    grid = {"sign": [10, 20], "gaussian": [10, 20], "achlioptas": [10, 20], "none": [64]}
    cells = make_cells("mine", grid, 2)
    # labels the papers do not use: each must still get a color of its own
    cells["method"] = cells["reducer"].map(
        {"sign": "A R (sign)", "gaussian": "My Gaussian", "achlioptas": "My sparse", "none": "A"}
    )
    config = {"preset": {**preset("Mine"), "note": "k-means starts from given centers"}}
    exp = write_experiment(tmp_path, "mine", cells, config=config)
    fig = figures.make_figure(exp)
    assert "k-means starts from given centers" in _all_text(fig)
    legend = fig.legends[0]
    colors = {
        text.get_text(): handle.get_color()
        for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True)
        if text.get_text() in ("A R (sign)", "My Gaussian", "My sparse")
    }
    assert len(colors) == 3 and len(set(colors.values())) == 3
    plt.close(fig)


# --------------------------------------------------------------------------------------------
# what a figure says it leaves out is what it leaves out

RESULTS = Path(__file__).resolve().parents[2] / "results"


def _named_not_drawn(text: str) -> set[str]:
    """The methods a figure's text names after "not drawn:" (up to the reason in parentheses)."""
    named = set()
    for match in re.finditer(r"not drawn: ([^(;\n]+)", text):
        named.update(m.strip() for m in match.group(1).split(",") if m.strip())
    return named


def _drawn_labels(fig) -> set[str]:
    """The legend's method labels (a label up to its first parenthesis: "PD (r = ...)" is PD)."""
    labels = set()
    for legend in fig.legends:
        for text in legend.get_texts():
            labels.add(text.get_text().split(" (")[0].strip())
    return labels


def _preset_folder(tmp_path: Path, name: str, config: dict) -> Path:
    """The preset's committed results copied, else small cells of every configured reducer."""
    committed = RESULTS / name
    if (committed / "cells.csv").exists():
        target = tmp_path / name
        shutil.copytree(committed, target, ignore=shutil.ignore_patterns("figures"))
        return target
    grid = {}
    for reducer in config["reducers"]:
        rs = [r for r in config["r_grid"] if reducer.get("max_r") is None or r <= reducer["max_r"]]
        grid[reducer["id"]] = [64] if reducer["name"] == "none" else rs[:2]
    labels = {r["id"]: r.get("label") or r["name"] for r in config["reducers"]}
    cells = make_cells(name, grid, 1, labels=labels)
    cells["reducer_name"] = cells["reducer"].map({r["id"]: r["name"] for r in config["reducers"]})
    return write_experiment(tmp_path, name, cells, config=config)


@pytest.mark.slow
def test_no_preset_names_as_not_drawn_a_method_it_draws(tmp_path):
    """Every preset drawn in the curves style (from its committed results, else from small
    cells of its configured reducers): no method its figure names "not drawn" has a line, and a
    configured reducer without a cell is named."""
    from kmdr.app.compose import composed_presets
    from kmdr.config.schema import to_container
    from kmdr.figures.style import figure_style

    checked = []
    for name, cfg in composed_presets():
        config = to_container(cfg)
        # a run record's shape: the reducer entries as a list, each with its id
        config["reducers"] = [{**red, "id": rid} for rid, red in config["reducers"].items()]
        if config.get("kind") != "cells" or figure_style(config["preset"]["figure"]).draw:
            continue
        exp = _preset_folder(tmp_path, name, config)
        fig = figures.make_figure(exp)
        assert fig is not None, name
        named, drawn = _named_not_drawn(_all_text(fig)), _drawn_labels(fig)
        assert not named & drawn, f"{name}: named not drawn but drawn: {named & drawn}"
        plt.close(fig)
        checked.append(name)
    assert "lst17_sparse_text" in checked and "lst17_rcv1" in checked


def test_a_configured_reducer_without_cells_is_named_not_drawn(tmp_path):
    """The note comes from the cells drawn: remove LLE's cells and the figure names it (and no
    other)."""
    config = {
        "preset": {**preset("lst17 test", figure="lst17", paper="lst17")},
        "reducers": [
            {"id": "sign", "name": "sign", "params": {}},
            {"id": "lle", "name": "lle", "params": {}},
            {"id": "none", "name": "none", "label": "k-means", "params": {}},
        ],
    }
    cells = make_cells("lst17_custom", {"sign": [10, 20], "none": [64]}, 2)
    exp = write_experiment(tmp_path, "lst17_custom", cells, config=config)
    fig = figures.make_figure(exp)
    text = _all_text(fig)
    assert _named_not_drawn(text) == {"LLE"}
    assert "RP" in _drawn_labels(fig)
    plt.close(fig)


@pytest.mark.parametrize(
    "reducers",
    [
        {"sign": {"name": "sign"}, "svd": {"name": "svd"}},  # ids: the names
        {"pd": {"name": "pd"}, "sign": {"name": "sign", "label": "My RP"}},  # an alias; a label
        {"fast": {"name": "svd_approx"}, "sign": {"name": "sign"}},  # an id of its own
    ],
)
def test_every_way_of_listing_reducers_draws_a_true_legend(reducers, tmp_path):
    """A real run of each listing, drawn: what the legend leaves out is what has no line."""
    from kmdr import run

    listing = "{" + ",".join(
        rid + ":{" + ",".join(f"{k}:{v!r}".replace("'", '"') for k, v in r.items()) + "}"
        for rid, r in reducers.items()
    ) + "}"  # fmt: skip
    run(
        ["~reducer", f"+reducers={listing}", "dataset=synth", "dataset.params.n_samples=120",
         "dataset.params.n_features=40", "r_grid=[3,5]", "repeats=1", "kmeans.n_init=1",
         "n_jobs=1", "figures=false", "progress=false", f"results_dir={tmp_path}"],
    )  # fmt: skip
    fig = figures.make_figure(tmp_path / "custom")
    text = _all_text(fig)
    assert "not drawn" not in text, text
    assert len(_drawn_labels(fig) - {"line: mean; shaded: min-max over 1 repetitions"}) >= 2
    plt.close(fig)


def test_notes_wrap_to_the_figure_width(tmp_path):
    """A long note wraps: the figure is no wider than without it."""
    cells = make_cells("mine", {"sign": [10, 20], "none": [64]}, 2)
    widths = []
    for note in ("", "a long note, " * 60):
        config = {"preset": {**preset("Mine"), "note": note}}
        exp = write_experiment(tmp_path / str(len(note)), "mine", cells, config=config)
        figures.draw_experiment(exp)
        png = (exp / "figures" / "mine.png").read_bytes()
        widths.append(int.from_bytes(png[16:20], "big"))
    assert widths[1] <= widths[0]


def test_a_pdf_redrawn_from_the_same_cells_is_the_same_file(tmp_path):
    """No creation date: redrawing unchanged cells leaves the committed PDF byte for byte."""
    exp = write_experiment(tmp_path, "mine", make_cells("mine", {"sign": [10, 20]}, 2))
    figures.draw_experiment(exp)
    first = (exp / "figures" / "mine.pdf").read_bytes()
    assert b"CreationDate" not in first
    figures.draw_experiment(exp)
    assert (exp / "figures" / "mine.pdf").read_bytes() == first


def test_a_drawing_reads_the_folder_once_and_writes_what_it_read(tmp_path, monkeypatch):
    """``draw`` reads the store once for summary.csv, the tables and the figure: they rest on
    the same cells even when a run adds some in between (here: a third repetition written after
    the read), and the store, the slow part of drawing, is not read again for each of them."""
    from kmdr.app.drawing import draw
    from kmdr.results.store import CellStore
    from kmdr.results.summary import read_experiment, write_summaries

    exp = write_experiment(tmp_path, "bzmd14_orl", make_cells("bzmd14_orl", GRID, reps=2))
    read = read_experiment(exp)
    write_experiment(tmp_path, "bzmd14_orl", make_cells("bzmd14_orl", GRID, reps=3))
    write_summaries(read)
    fig = figures.make_figure(read)
    plt.close(fig)
    summary = pd.read_csv(exp / "summary.csv")
    assert set(summary["n_cells"]) == {2}, summary["n_cells"]

    reads = []
    table = CellStore.table
    monkeypatch.setattr(CellStore, "table", lambda self: reads.append(1) or table(self))
    assert draw(exp) == []
    assert len(reads) == 1
    assert set(pd.read_csv(exp / "summary.csv")["n_cells"]) == {3}
    _assert_files(sorted((exp / "figures").iterdir()), exp)


@pytest.mark.parametrize(
    ("dataset", "setting", "params", "title"),
    [
        pytest.param("file", 'dataset_params={"label": "cultivar", "path": "/tmp/a/wine.csv"}',
                     '{"label": "cultivar", "path": "/tmp/a/wine.csv"}', "wine.csv",
                     id="a-file-by-its-name"),
        pytest.param("file", 'dataset_params={"path": "d/iris.csv"}, kmeans_n_init=3',
                     '{"path": "d/iris.csv"}', "iris.csv, kmeans_n_init=3",
                     id="a-file-and-another-setting"),
        pytest.param("synth", 'dataset_params={"n_samples": 500, "seed": null}',
                     '{"n_samples": 500, "seed": null}', "Synth, n_samples=500",
                     id="generator-parameters"),
        pytest.param("synth", "kmeans_n_init=3", "{}", "Synth, kmeans_n_init=3",
                     id="no-dataset-parameters"),
        pytest.param("coil20", None, "{}", "COIL20", id="one-setting"),
    ],
)  # fmt: skip
def test_a_rows_title_names_the_dataset_not_its_json(dataset, setting, params, title):
    """Two files run into one folder (``my_results/custom/``) are two rows of panels, each
    titled by its file's name, never by the raw JSON of its parameters."""
    points = pd.DataFrame({"dataset": [dataset], "dataset_params": [params]})
    assert appearance.row_title(dataset, setting, points) == title
