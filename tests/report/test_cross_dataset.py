"""The "Across datasets" section: its ranks recompute from the experiments' cells.csv alone, here
with pandas and nothing of the report's code (the budget r, the means over the repetitions, the
ranks within each dataset, the mean ranks of its tables); and ``kmdr-report`` writes it for a
user's own runs over several datasets, an unlabeled one left out of the accuracy ranking."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _command import exit_status, run_kmdr

REPO = Path(__file__).resolve().parents[2]
MEASURES = {"accuracy": False, "objective": True, "total_seconds": True}  # ascending: lower best
HEADINGS = {"accuracy": "accuracy", "objective": "F", "total_seconds": "time"}


def recomputed(cells_csv: Path, share: float = 0.1) -> pd.DataFrame:
    """One experiment's ranks at its budget r (its grid's nearest to ``share`` of d), from its
    cells.csv (written without kmdr)."""
    cells = pd.read_csv(cells_csv)
    cells = cells[cells["reducer"] != "none"]
    d = int(cells["n_features"].iloc[0])
    below = sorted(int(r) for r in cells["r"].unique() if r < d)
    r = min(below, key=lambda x: (abs(x - d * share), x))
    at = cells[cells["r"] == r]
    means = at.groupby(["reducer", "repetition"])[list(MEASURES)].mean().groupby("reducer").mean()
    for measure, ascending in MEASURES.items():
        # the section's rule: means equal to 12 significant digits tie
        tied = means[measure].map(lambda v: float(f"{v:.12g}"))
        means[f"{measure}_rank"] = tied.rank(ascending=ascending, method="average")
    return means.assign(r=r, d=d)


def mean_ranks_in_report(text: str, heading: str) -> dict[str, float]:
    """The mean-rank table under ``### Across datasets: <heading>``."""
    section = text.split(f"### Across datasets: {heading}\n", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` +\| ([0-9.]+) ", section, flags=re.M)
    return {name: float(value) for name, value in rows}


def check_against_cells(root: Path) -> None:
    """The section's ranks.csv and its tables in REPORT.md, against the cells of ``root``."""
    written = pd.read_csv(root / "cross_dataset" / "ranks.csv")
    assert written["dataset"].nunique() >= 2
    per_dataset = []
    for experiment, part in written.groupby("experiment"):
        expected = recomputed(root / experiment / "cells.csv")
        part = part.set_index("reducer").sort_index()
        assert sorted(part.index) == sorted(expected.index), experiment
        assert (part["r"] == expected["r"]).all() and (part["d"] == expected["d"]).all()
        for measure in MEASURES:
            np.testing.assert_allclose(part[measure], expected[measure], rtol=1e-9)
            np.testing.assert_array_equal(part[f"{measure}_rank"], expected[f"{measure}_rank"])
        per_dataset.append(expected)
    text = (root / "REPORT.md").read_text(encoding="utf-8")
    for measure, heading in HEADINGS.items():
        ranks = pd.concat([e[f"{measure}_rank"] for e in per_dataset], axis=1).dropna(axis=1)
        if ranks.shape[1] < 2:
            assert f"Not ranked: {heading}" in text
            continue
        shown = mean_ranks_in_report(text, heading)
        expected = ranks.mean(axis=1).round(2)
        assert shown == pytest.approx(expected.to_dict(), abs=0.006), heading


def test_committed_section_recomputes_from_the_cells():
    root = REPO / "results"
    if not (root / "cross_dataset" / "ranks.csv").is_file():
        pytest.fail("results/cross_dataset/ranks.csv is missing: run kmdr-report results")
    check_against_cells(root)
    text = (root / "REPORT.md").read_text(encoding="utf-8")
    assert text.index("\n## What to use\n") < text.index("\n## Across datasets\n")


def test_committed_sensitivity_line_says_the_share_each_grid_reaches():
    """Each share of d the ranking is repeated at is labelled with the r/d the datasets' grids
    reach (a grid that stops short of the share stays at its largest r), and the deciding p
    names how it was computed (a Monte Carlo estimate, its draws stated)."""
    from kmdr.report.cross_dataset import SENSITIVITY

    root = REPO / "results"
    experiments = pd.read_csv(root / "cross_dataset" / "ranks.csv")["experiment"].unique()
    text = (root / "REPORT.md").read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith("Sensitivity over r"))
    for share in SENSITIVITY:
        reached = [
            float(e["r"].iloc[0] / e["d"].iloc[0])
            for e in (recomputed(root / x / "cells.csv", share) for x in experiments)
        ]
        assert f"r/d ≈ {share:.3g} (reached {min(reached):.1%}–{max(reached):.1%})" in line
    assert "Monte Carlo permutation p = " in text and "20,000 random permutations" in text
    assert "exact at small N" not in text


def _write(path: Path, seed: int, labeled: bool) -> None:
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(4.0 * i, 1.0, (10, 20)) for i in range(3)])
    if labeled:
        frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(20)])
        frame["kind"] = np.repeat(["a", "b", "c"], 10)
        frame.to_csv(path, index=False)
    else:
        np.save(path, X)


@pytest.mark.slow  # runs kmdr three times, then kmdr-report
def test_kmdr_report_ranks_a_users_runs_over_datasets(tmp_path):
    from kmdr.report.build import main

    runs = [("one", "one.csv", True), ("two", "two.csv", True), ("three", "three.npy", False)]
    for seed, (name, file, labeled) in enumerate(runs):
        _write(tmp_path / file, seed, labeled)
        label = "dataset.params.label=kind" if labeled else "dataset.params.n_clusters=3"
        proc = run_kmdr([f"name={name}", "dataset=file", f"dataset.params.path={file}", label,
                         "reducer=[sign,svd,gaussian]", "r_grid=[2,4]", "repeats=2", "n_jobs=1",
                         "progress=false", "figures=false", "results_dir=my_results"],
                        tmp_path)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
    root = tmp_path / "my_results"
    assert exit_status(main, [str(root)]) == 0
    text = (root / "REPORT.md").read_text(encoding="utf-8")
    assert "## Across datasets" in text and "(file:three.npy: no labels, left out)" in text
    assert (root / "cross_dataset" / "ranks.png").is_file()
    assert "Across datasets" in (root / "index.html").read_text(encoding="utf-8")
    check_against_cells(root)


# A process is the point: string hashing, and so a set's order, is drawn per process.
_DRAW = """
import sys
from pathlib import Path
import pandas as pd
from kmdr.report.cross_dataset import _draw
names = ["sign", "svd", "svd_approx", "leverage", "laplacian"]
mean = pd.Series([1.5, 2.0, 2.5, 4.0, 5.0], index=names)
apart = [("sign", "laplacian"), ("svd", "laplacian")]
_draw(Path(sys.argv[1]), [("accuracy", mean, {"cd": 2.0, "nemenyi": apart})])
"""


def test_the_diagram_has_the_same_bytes_under_any_string_hashing(tmp_path):
    import os
    import subprocess
    import sys

    drawn = []
    for seed in ("1", "2"):
        path = tmp_path / f"ranks_{seed}.png"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-c", _DRAW, str(path)], env=env, check=True)
        drawn.append(path.read_bytes())
    assert drawn[0] == drawn[1]
