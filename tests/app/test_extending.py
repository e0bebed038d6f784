"""The user guide's "Extending" page, done as a user would, with the files it shows: a reducer as
ONE module and a dataset as ONE module of their own package (plugged in through entry points),
with no config file (kmdr generates their options), swept through the ``kmdr`` command and found
in the sweep's cells, in the legend of the figure the run draws and in REPORT.md; and a preset of
theirs in their own config folder. Nothing in kmdr is edited.

The commands run in this process (their ``main``, the package installed here as a command that
starts finds it); a plug-in that does not import is the one run in a process of its own: what a
command prints as it starts with it installed is the point."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from _command import exit_status, installed, run_kmdr

tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")

GUIDE = Path(__file__).parents[2] / "docs" / "guide" / "extending.md"
#: A file of the guide's "Extending" page: "`path`:" on its own line, then a fenced block.
_FILE = re.compile(r"^`([\w/.]+)`:\n\n```\w*\n(.*?)^```", re.M | re.S)


def readme_files() -> dict[str, str]:
    """The files the guide's "Extending" page shows, by path, and its entry points."""
    section = GUIDE.read_text()
    files = dict(_FILE.findall(section))
    (toml,) = re.findall(r"```toml\n(.*?)```", section, re.S)
    files["pyproject.toml"] = toml
    # pyproject.toml's entry points as the entry_points.txt an installed distribution has
    groups = tomllib.loads(toml)["project"]["entry-points"]
    files["entry_points.txt"] = "".join(
        f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in points.items())
        for group, points in groups.items()
    )
    return files


def guide_sweep() -> list[str]:
    """The sweep command the guide gives, as its words (``kmdr`` first)."""
    (command,) = re.findall(r"`(kmdr -m [^`]+)`", GUIDE.read_text())
    return shlex.split(command)


def test_the_readme_shows_one_module_per_reducer_and_dataset_and_no_config_for_them():
    files = readme_files()
    assert sorted(p for p in files if p.startswith("my_package/")) == [
        "my_package/topvar.py",
        "my_package/toyblobs.py",
    ]
    assert sorted(p for p in files if p.startswith("my_conf/")) == [
        "my_conf/experiment/toy_study.yaml"
    ]
    assert "override /dataset: toyblobs" in files["my_conf/experiment/toy_study.yaml"]
    assert "-cd" not in guide_sweep()  # an installed plug-in needs no config folder


@pytest.mark.slow
# packaging 24.2: setuptools 77 builds the wheel with it
@pytest.mark.floors
def test_the_guides_project_builds_as_written(tmp_path):
    """The guide's pyproject.toml, its package and its config folder, laid out as the guide says,
    build a wheel that holds the package and its entry points (a flat layout with two top-level
    folders fails unless the package is named)."""
    import zipfile

    for rel, text in readme_files().items():
        if rel != "entry_points.txt":
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / rel).write_text(text)
    (tmp_path / "my_package" / "__init__.py").write_text("")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (wheel,) = (tmp_path / "dist").glob("my_package-0.1-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "my_package/topvar.py" in names and "my_package/toyblobs.py" in names
    assert not any(n.startswith("my_conf/") for n in names)
    (points,) = [n for n in names if n.endswith("entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(points).decode()
    assert "top_variance = my_package.topvar:TOP_VARIANCE" in text


@pytest.fixture
def user_project(tmp_path) -> Path:
    """The guide's package installed (as a distribution's metadata) in a folder put on the
    path, and its config folder, as the guide writes them."""
    site = tmp_path / "site"
    info = site / "my_package-0.1.dist-info"
    info.mkdir(parents=True)
    (site / "my_package").mkdir()
    (site / "my_package" / "__init__.py").write_text("")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-package\nVersion: 0.1\n")
    for rel, text in readme_files().items():
        if rel == "pyproject.toml":
            continue  # the metadata it declares is written above, as pip would
        if rel == "entry_points.txt":
            path = info / rel
        elif rel.startswith("my_package/"):
            path = site / rel
        else:
            path = tmp_path / "conf" / rel.removeprefix("my_conf/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


@pytest.fixture
def plugged_in(user_project, monkeypatch):
    """The user's package installed in this process (:func:`_command.installed`), and the
    environment a command of theirs starts in: their project's folder, one BLAS thread,
    Hydra's own error printing."""
    monkeypatch.chdir(user_project)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.delenv("HYDRA_FULL_ERROR", raising=False)
    with installed(user_project / "site"):
        yield user_project


def _here(main, argv: list[str], capsys) -> tuple[int, str, str]:
    """``main`` of a console script run in this process, as the script runs it: its exit
    status, stdout and stderr."""
    status = exit_status(main, argv)
    out, err = capsys.readouterr()
    return status, out, err


def _kmdr(tool: str, *args: str, project: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(project / "site"), *sys.path])}
    env["OMP_NUM_THREADS"] = "1"
    env.pop("HYDRA_FULL_ERROR", None)
    code = f"import sys; from {tool} import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
def test_a_users_reducer_and_dataset_are_swept_drawn_and_reported(plugged_in, capsys):
    from kmdr.app.listing import main as kmdr_list
    from kmdr.report.build import main as kmdr_report

    project = plugged_in
    results = project / "results"
    # The guide's command as written (no config folder), plus what only this test environment
    # needs: one worker, no bar, a results folder of its own.
    sweep = [*guide_sweep()[1:], "n_jobs=1", "progress=false", f"results_dir={results}"]
    run = run_kmdr(sweep, project)
    assert run.returncode == 0, run.stderr
    (cells_csv,) = results.glob("*/cells.csv")
    cells = pd.read_csv(cells_csv)
    assert set(cells["reducer"]) == {"top_variance", "none"}
    assert len(cells) == 3 * 2 + 2 and set(cells["dataset"]) == {"toyblobs"}
    top = cells[cells["reducer"] == "top_variance"]
    assert set(top["method"]) == {"TopVar"}
    # Four well-separated blobs: the user's selection finds them from a few features.
    assert top.loc[top["r"] == 10, "accuracy"].min() == 1.0

    # The legend of the figure the run draws.
    from kmdr.figures.draw import make_figure

    assert list((cells_csv.parent / "figures").glob("*.png"))
    fig = make_figure(cells_csv.parent)
    try:
        labels = [label for ax in fig.axes for label in ax.get_legend_handles_labels()[1]]
        labels += [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
    assert "TopVar" in labels

    status, _, err = _here(kmdr_report, [str(results)], capsys)
    assert status == 0, err
    text = (results / "REPORT.md").read_text()
    assert "TopVar" in text
    # The timing table reads what the declaration says its time includes.
    assert re.search(r"`top_variance` \| the variance of every feature and a sort of them", text)

    status, out, err = _here(kmdr_list, ["reducers", "datasets"], capsys)
    assert status == 0, err
    assert "top_variance" in out and "toyblobs" in out


@pytest.mark.slow
def test_a_users_preset_runs_and_is_reported_as_theirs(plugged_in, capsys):
    from kmdr.report.build import main as kmdr_report

    project = plugged_in
    results = project / "results"
    run = [*("-cd", str(project / "conf"), "experiment=toy_study", f"results_dir={results}"),
           *("n_jobs=1", "progress=false", "figures=false")]  # fmt: skip
    proc = run_kmdr(run, project)
    assert proc.returncode == 0, proc.stderr
    cells = pd.read_csv(results / "toy_study" / "cells.csv")
    assert len(cells) == 2 * 3 * 2 + 2 and set(cells["method"]) == {"TopVar", "RP", "kMeans"}
    status, _, err = _here(kmdr_report, [str(results)], capsys)
    assert status == 0, err
    text = (results / "REPORT.md").read_text()
    assert "Toy study: top-variance features against RP" in text


@pytest.mark.slow
def test_a_typo_in_the_users_preset_is_hydras_error(plugged_in):
    conf = plugged_in / "conf" / "experiment" / "toy_study.yaml"
    conf.write_text(conf.read_text().replace("repeats: 2", "repaets: 2"))
    run = ["-cd", str(plugged_in / "conf"), "experiment=toy_study",
           f"results_dir={plugged_in / 'results'}"]  # fmt: skip
    proc = run_kmdr(run, plugged_in)
    assert proc.returncode == 1, proc.stderr  # Hydra's error, as Hydra prints it
    assert "Key 'repaets' not in 'RunConfig'" in proc.stderr and "toy_study" in proc.stderr


@pytest.mark.slow
def test_a_users_reducer_that_does_not_import_is_one_line(user_project):
    module = user_project / "site" / "my_package" / "topvar.py"
    module.write_text("import my_missing_dependency\n" + module.read_text())
    results = user_project / "results"
    run = _kmdr(
        "kmdr.app",
        *("-cd", str(user_project / "conf"), "dataset=toyblobs", "reducer=top_variance"),
        f"results_dir={results}",
        project=user_project,
    )
    assert run.returncode == 2, run.stderr
    warning, error = run.stderr.splitlines()
    assert warning.startswith("kmdr.reducers:0: UserWarning: reducer plug-in entry point")
    assert error.startswith("kmdr: error: reducer plug-in entry point top_variance = ")
    assert "my-package 0.1" in error and "No module named 'my_missing_dependency'" in error
    assert "fix or reinstall" in error and not results.exists()
