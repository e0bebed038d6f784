"""A figure style added by a plug-in package: ONE module declaring it and the plug-in's
:class:`kmdr.plugins.Paper` naming it, registered as an entry point of ``kmdr.papers``; an
experiment whose preset names it is drawn with it (its panels, x label and paper reference) and
placed by the report, with the paper's note and deviation, without kmdr knowing the name."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest

from _results_factory import make_cells, preset, write_experiment

STYLE_MODULE = """
from kmdr.figures.style import FigureStyle, Panel
from kmdr.plugins import Deviation, Paper

PAPER = Paper(
    key="toy",
    title="Toy, A. (2024). A toy paper",
    figure_styles={"toystyle": "kmdr_toystyle:STYLE"},
    deviations=(Deviation(35, lambda res: "**Toy data**: ours" + res.shape("toyexp", "orl")),),
    notes={"toyexp": "The toy note a reader needs before the toy figure."},
)

STYLE = FigureStyle(
    panels=(
        Panel("accuracy", "Toy accuracy", "toy P"),
        Panel("objective", "Toy objective", "toy F"),
    ),
    xlabel="toy number of kept columns",
    reference="the toy paper, Fig. 9",
    names={"sign": "ToySign"},
)
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """A folder holding the plug-in: its module and its distribution's entry points."""
    site = tmp_path_factory.mktemp("styleplug")
    (site / "kmdr_toystyle.py").write_text(STYLE_MODULE)
    info = site / "kmdr_toystyle-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kmdr-toystyle\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        textwrap.dedent("""\
            [kmdr.papers]
            toy = kmdr_toystyle:PAPER
        """)
    )
    return site


@pytest.fixture
def plugged(site, monkeypatch):
    """The plug-in importable in this process, the papers and figure styles reloaded (and again
    after)."""
    from kmdr.config.presentation import FIGURE_STYLES

    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    FIGURE_STYLES.reload()
    yield FIGURE_STYLES
    monkeypatch.undo()
    FIGURE_STYLES.reload()
    sys.modules.pop("kmdr_toystyle", None)


@pytest.mark.slow
def test_a_plugin_figure_style_draws_and_the_report_places_it(plugged, tmp_path):
    from kmdr.figures.draw import draw_experiment, make_figure
    from kmdr.report.build import build_report

    assert "toystyle" in plugged and "toystyle" in plugged.names()
    assert not plugged.is_own("toystyle") and "paper toy" in plugged.origin("toystyle")
    cells = make_cells("toyexp", {"sign": [2, 4], "none": [8]}, 2)
    toy = preset("Toy experiment", figure="toystyle", section="custom", order=500, paper=None)
    exp = write_experiment(tmp_path, "toyexp", cells, config={"preset": toy})

    fig = make_figure(exp)
    try:
        axes = fig.get_axes()
        assert len(axes) == 2  # the style's two panels, one dataset
        assert {ax.get_xlabel() for ax in axes} == {"toy number of kept columns"}
        titles = [ax.get_title().rsplit(" - ", 1)[1] for ax in axes]
        assert titles == ["Toy accuracy", "Toy objective"]
        assert "the toy paper, Fig. 9" in fig._suptitle.get_text()
        legend = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
        # the report's name, then the style's own name for the sign projection
        assert "RP (the paper's ToySign)" in legend
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
    assert [p.suffix for p in draw_experiment(exp)] == [".png", ".pdf"]

    report = build_report(tmp_path)
    block = report.split("### Toy experiment", 1)[1]
    assert "figure style toystyle" in block
    assert "![toyexp: toyexp](toyexp/figures/toyexp.png)" in block
    assert "The toy note a reader needs before the toy figure." in block.split("![", 1)[0]
    assert report.index("## Your experiments") < report.index("### Toy experiment")
    deviations = report.split("## Deviations from the papers' data and setup", 1)[1]
    items = [line for line in deviations.split("\n## ")[0].splitlines() if line.startswith("- ")]
    # placed by its order: after lst17's data sets (30s), before the setup (40 on)
    toy = next(i for i, line in enumerate(items) if line.startswith("- **Toy data**"))
    assert items[toy] == "- **Toy data**: ours (ours: 40 × 64)"  # the shape of its cells
    assert items[toy - 1].startswith("- **sparse_text**") and items[toy + 1].startswith("- **SVD")


@pytest.mark.slow
def test_a_run_with_a_plugin_figure_style_draws_it(plugged, tmp_path):
    """``kmdr.run(... preset.figure=toystyle)`` runs, draws with the plug-in's style, and
    ``kmdr-report``'s main places the experiment (in this process: the plug-in's discovery in a
    fresh process is tested with the datasets' plug-ins)."""
    import kmdr
    from kmdr.report.build import main as report_main

    kmdr.run(
        [
            "dataset=synth",
            "+dataset.params={n_samples:60,n_features:12,n_clusters:3}",
            "reducer=sign",
            "r_grid=[3]",
            "repeats=1",
            "kmeans.n_init=1",
            "n_jobs=1",
            "backend=sequential",
            "progress=false",
            "name=toyrun",
            f"results_dir={tmp_path}",
            "preset.figure=toystyle",
            "preset.title=Toy run",
        ]
    )
    assert (tmp_path / "toyrun" / "figures" / "toyrun.png").exists()
    assert report_main([str(tmp_path)]) == 0
    report = (tmp_path / "REPORT.md").read_text()
    assert "figure style toystyle" in report.split("### Toy run", 1)[1]
