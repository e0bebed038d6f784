"""The coreset guides as a new user reads them: the Python API guide's coreset recipe is the
gallery's example and runs, printing its own run's numbers; the coresets guide's command on one's
own file runs as written; and every setting of the coresets kind is in the guide's table."""

from __future__ import annotations

import re
import runpy
import shlex
import sys
from pathlib import Path

import pytest

import kmdr

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide"
EXAMPLE = ROOT / "examples" / "plot_coreset_recipe.py"


def _block_after(text: str, marker: str) -> str:
    """The fenced block that follows ``marker`` in a guide, without its fences."""
    after = text.split(marker, 1)[1]
    return re.search(r"```[a-z]*\n(.*?)```", after, re.S).group(1)


def test_the_guides_recipe_is_the_gallerys_example():
    guide = (GUIDE / "python-api.md").read_text(encoding="utf-8")
    shown = _block_after(guide, "<!-- coreset-recipe: examples/plot_coreset_recipe.py -->")
    example = EXAMPLE.read_text(encoding="utf-8")
    ran = example.split("# coreset-recipe: start\n")[1].split("# coreset-recipe: end\n")[0]
    assert shown == ran
    for name in ("make_coreset", "composition_ @ X", "sample_weight", "threadpool_limits"):
        assert name in shown


def test_the_recipe_prints_its_own_runs_numbers(capsys):
    """Each number printed is the run's: recomputed here from what it left, and its centers
    score within a few percent of k-means on all rows (the construction's promise)."""
    run = runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out.splitlines()
    X, coreset, solved, full = run["X"], run["coreset"], run["solved"], run["full"]
    cost = -solved.score(X)
    assert cost == run["coreset_cost"]
    assert out[0] == (
        f"coreset: {len(coreset.weights_)} points, {run['coreset_seconds']:.2f} s, cost {cost:.6g}"
    )
    assert out[1] == f"all {len(X)} rows: {run['full_seconds']:.2f} s, cost {full.inertia_:.6g}"
    assert out[2] == f"the coreset's centers cost {100 * (cost / full.inertia_ - 1):+.2f}% more"
    assert abs(cost / full.inertia_ - 1) < 0.05
    # m sampled rows and at most the rough solution's 2k centers that keep some weight
    assert len(run["labels"]) == len(X) and len(coreset.weights_) <= 2000 + 2 * 10


@pytest.mark.slow  # a run of the coresets kind on its workers
def test_the_own_data_command_runs_as_written(tmp_path, monkeypatch):
    """The guide's command, as written, on the wine CSV of the running guide."""
    from sklearn.datasets import load_wine

    guide = (GUIDE / "ss22.md").read_text(encoding="utf-8")
    command = _block_after(guide, "<!-- ss22-own-data -->").strip()
    assert command.startswith("$ kmdr ")
    monkeypatch.chdir(tmp_path)
    X, y = load_wine(return_X_y=True, as_frame=True)
    X.assign(cultivar=y).to_csv("wine.csv", index=False)
    cells = kmdr.run(shlex.split(command)[2:])
    # the reducers' section's five reducers, none at r = d (13), the others at r = 2, 5, 10;
    # three constructions, three repetitions
    assert len(cells) == (1 + 4 * 3) * 3 * 3
    assert (tmp_path / "my_results" / "wine_coresets" / "cells.csv").is_file()
    assert cells["distortion"].between(1.0, 2.0).all()


def test_every_setting_of_the_coresets_kind_is_in_the_guide():
    from kmdr.config.kinds import get_kind

    kind = get_kind("coresets")
    settings = set(getattr(kind, "settings_doc", {}))
    if not settings:  # before the kind declares its settings' documentation
        settings = set(getattr(sys.modules[type(kind).__module__], "KIND_PARAMS", {}))
    guide = (GUIDE / "ss22.md").read_text(encoding="utf-8")
    section = guide.split("## Coresets on your own data", 1)[1]
    assert settings
    assert {s for s in settings if f"`kind_params.{s}`" not in section} == set()
    for name in kmdr.coresets.available_coresets():
        assert f"`{name}`" in section
