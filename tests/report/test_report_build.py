"""The report builds from a results folder alone, without running any experiment."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _markdown import unpadded
from _results_factory import cells_text, make_cells, preset, write_experiment
from kmdr.figures import draw as figures
from kmdr.report import build

ROOT = Path(__file__).resolve().parents[2]

METHODS = {
    "leverage": "Sampl/SVD",
    "leverage_approx": "Sampl/ApproxSVD",
    "sign": "RP",
    "svd": "SVD",
    "svd_approx": "ApprSVD",
    "laplacian": "LapScores",
    "none": "kMeans",
}


def _cells(experiment: str, dataset: str, k: int, rs, reps: int, seed: int = 0) -> pd.DataFrame:
    """Plausible cells: F falls towards kMeans' with r, P rises, reduced runs are faster."""
    rng = np.random.default_rng(seed)
    rows = []
    for reducer, method in METHODS.items():
        for r in [100] if reducer == "none" else rs:
            for rep in range(reps):
                base = 0.5 if reducer == "none" else 0.5 + 0.3 / r + 0.002 * rng.random()
                if reducer == "laplacian":
                    base += 0.05
                acc = 0.9 if reducer == "none" else 0.9 - 2.0 / r - 0.1 * (reducer == "laplacian")
                # every time is a measurement of its own: it varies between repetitions
                reduce_s = 0.01 * r / 100 * (1 + 0.1 * rng.random())
                cluster_s = (0.1 if reducer != "none" else 1.0) * (1 + 0.05 * rng.random())
                rows.append(
                    {
                        "experiment": experiment,
                        "dataset": dataset,
                        "dataset_params": "{}",
                        "reducer": reducer,
                        "reducer_name": reducer,
                        "reducer_params": "{}",
                        "base_seed": 0,
                        "kmeans_init": "random",
                        "kmeans_n_init": 5,
                        "kmeans_max_iter": 500,
                        "kmeans_tol": 0.0,
                        "method": method,
                        "r": r,
                        "repetition": rep,
                        "seed": rep,
                        "n_samples": 200,
                        "n_features": 100,
                        "n_clusters": k,
                        "objective": base,
                        "objective_reduced": base,
                        "accuracy": acc,
                        "reduce_seconds": reduce_s,
                        # full k-means clusters all features: its clustering time is its total
                        "cluster_seconds": cluster_s,
                        "total_seconds": reduce_s + cluster_s if reducer != "none" else cluster_s,
                    }
                )
    return pd.DataFrame(rows)


#: The presets' metadata as conf/experiment/*.yaml give it (interfaces §3).
PRESETS = {
    "bmd09_table1": preset("bmd09 Table 1", "bmd09_table1", "table1", 10, "bmd09"),
    "bzmd14_synth": preset("bzmd14 Figure 1 (a, c, e): Synth", "bzmd14", "curves", 30),
    "bzmd14_orl": preset("bzmd14 Figure 3 (b, d, f): ORL", "bzmd14", "curves", 70),
    "lst17_coil20": preset("lst17 Figures 1-3 (a): COIL20", "lst17", "curves", 80, "lst17"),
    "lst17_rcv1": preset("lst17 Figures 1-3 (c): RCV1", "lst17", "curves", 90, "lst17"),
}


def _write(root: Path, name: str, cells: pd.DataFrame | None, skipped: str = "", **sidecar) -> None:
    kmeans = {"n_init": 5, "max_iter": 500, "init": "random", "tol": 0.0}
    config = {"kmeans": kmeans, "preset": PRESETS[name]} if name in PRESETS else {}
    write_experiment(
        root,
        name,
        cells,
        config=config,
        skipped={"reason": skipped} if skipped else None,
        **{
            "git": {"revision": "abc1234def", "dirty": False},
            "started_at": "2024-01-01T00:00:00+00:00",
            "finished_at": "2024-01-01T01:00:00+00:00",
            **sidecar,
        },
    )


def _results(root: Path) -> Path:
    """Hand-made results in ``root``: a complete sweep, a partial one, two skipped experiments
    and the sampling lemma's theory file."""
    _write(root, "bzmd14_synth", _cells("bzmd14_synth", "synth", 5, range(5, 105, 5), 2))
    partial = _cells("bzmd14_orl", "orl", 40, range(5, 105, 5), 2)
    _write(root, "bzmd14_orl", partial)
    # drop half of the cells after the sidecar recorded them as expected: a partial sweep
    (root / "bzmd14_orl" / "cells.csv").write_text(cells_text(partial.iloc[: len(partial) // 2]))
    _write(root, "bmd09_table1", None, skipped="DatasetUnavailable: nips")
    _write(root, "lst17_rcv1", None, skipped="DatasetUnavailable: rcv1")
    theory = root / "theory"
    theory.mkdir()
    pd.DataFrame(
        {
            "dataset": ["synth"] * 2,
            "n_samples": 1000,
            "n_features": 2000,
            "k": 5,
            "r": [50, 1000],
            "seed": 0,
            "sampler": "reference",
            "sigma_min": [0.8, 0.97],
            "sigma_max": [1.2, 1.03],
            "sigma2_min": [0.64, 0.94],
            "sigma2_max": [1.44, 1.06],
            "delta": 0.1,
            "eps_lemma6": [1.36, 0.30],
            "lemma6_applies": [False, True],
            "within_bound": [True, True],
        }
    ).to_csv(theory / "sampling_lemma.csv", index=False)
    return root


@pytest.fixture
def results(tmp_path) -> Path:
    """The hand-made results, for a test that changes them."""
    return _results(tmp_path / "results")


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> str:
    """The report ``write_report`` writes of the hand-made results, unchanged, written once for
    the tests that only read it."""
    return build.write_report(_results(tmp_path_factory.mktemp("written") / "results")).read_text()


@pytest.mark.slow
def test_report_builds_from_hand_made_results(written):
    text = written
    # header: what ran, what was skipped and why, the partial sweep flagged
    assert "bzmd14_synth" in text and "complete (" in text
    assert "**incomplete (121 of 242 cells)**" in text and "bzmd14_orl" in text
    assert "DatasetUnavailable: nips" in text
    assert "abc1234def" in text and "2024-01-01T01:00:00" in text
    # Table 1: the published numbers are shown with a no-data verdict
    assert "0.847" in text and "0.758" in text and "no data" in text
    # a claim computed from the synthetic sweep holds, with its numbers
    line = next(ln for ln in text.splitlines() if ln.startswith("| `bzmd14-F-decreases-synth`"))
    assert "holds" in line and "ρ =" in line
    # claims on the partial sweep are provisional; RCV1's are no data
    line = next(ln for ln in text.splitlines() if ln.startswith("| `bzmd14-F-decreases-orl`"))
    assert "provisional" in line
    line = next(ln for ln in text.splitlines() if "`lst17-rp-time-grows-rcv1`" in ln)
    assert "no data" in line
    # theory: ratios and the lemma
    assert "Empirical approximation ratio" in text and "bzmd14-thm12" in text
    assert "where the lemma applies" in text
    # the stand-in is never presented as RCV1
    assert "NOT a reproduction" in text


def test_report_builds_from_an_empty_folder(tmp_path):
    text = unpadded(build.build_report(tmp_path / "nothing"))
    assert "no data" in text and "Deviations" in text


def test_a_folder_of_ones_own_experiments_is_not_buried_under_the_papers_no_data(tmp_path):
    """``kmdr-report my_results``: the papers' sections and their claims about experiments the
    folder does not hold are left out (each would say *no data*), and one line says why."""
    grid = {"sign": [10, 20], "svd": [10, 20], "none": [64]}
    mine = preset("custom", figure="bzmd14", section="custom", order=1000, paper=None)
    write_experiment(tmp_path, "custom", make_cells("custom", grid, 2), config={"preset": mine})
    text = unpadded(build.build_report(tmp_path))
    assert "**Claims checked: 0** (none of the papers' " in text
    assert "`kmdr-report results` checks them" in text
    for gone in ("## bmd09 Table 1", "## bmd09 Figure 1", "## Curve-only", "not in this results"):
        assert gone not in text, gone
    assert "## Your experiments" in text and "`custom` (your own experiment" in text
    assert "## Theory" in text and "## Deviations" in text
    # beside a paper's experiment, the papers' sections are all there, as in results/
    paper = preset("bzmd14 Figure 1 (a, c, e)", order=10)
    write_experiment(tmp_path, "bzmd14_orl", make_cells("bzmd14_orl", grid, 2),
                     config={"preset": paper})  # fmt: skip
    text = unpadded(build.build_report(tmp_path))
    assert "## bmd09 Table 1" in text and "not in this results folder" in text


def _committed_preset(name: str) -> dict:
    """The preset block the committed run records of preset ``name`` hold."""
    import json

    record = sorted((ROOT / "results" / name / "runs").glob("*.json"))[-1]
    return json.loads(record.read_text())["config"]["preset"]


@pytest.mark.parametrize(
    ("folder", "users"),
    [
        pytest.param("wine_coresets", True, id="started-from-the-preset"),
        pytest.param("ss22_usps_reducers", False, id="the-presets-own-run"),
    ],
)
def test_a_users_run_started_from_a_preset_is_the_users(tmp_path, folder, users):
    """``kmdr experiment=ss22_usps_reducers name=wine_coresets dataset=file ...``: its record
    holds the preset's block, yet the run is the user's: titled by its name, in "Your
    experiments", of no paper (no paper section says *no data* for it), drawn in the preset's
    figure style. Under the preset's own name, the preset's own run stays the paper's."""
    from kmdr.results.runs import preset_of

    block = _committed_preset("ss22_usps_reducers")
    grid = {"sign": [2, 5], "none": [13]}
    write_experiment(tmp_path, folder, make_cells(folder, grid, 2), config={"preset": block})
    got = preset_of(tmp_path / folder)
    assert got["figure"] == "ss22_reducers"
    if not users:
        assert got["title"] == block["title"] and got["paper"] == "ss22"
        return
    assert got["title"] == "wine_coresets" and not got["paper"] and got["section"] == "custom"
    assert "started from the preset ss22_usps_reducers" in got["note"]
    text = unpadded(build.build_report(tmp_path))
    assert block["title"].split(":")[0] not in text
    assert "## Your experiments" in text and "### wine_coresets" in text
    assert "**Claims checked: 0**" in text and "## Reducers before coresets" not in text


@pytest.mark.slow
def test_lst17_labels_are_the_same_methods(tmp_path):
    # lst17 presets label Laplacian scores "LS" and full k-means "k-means"; the claims must still
    # find them (and not report them as not run).
    cells = _cells("lst17_coil20", "coil20", 20, [10, 100, 500, 1000], 2)
    cells["method"] = cells["method"].replace({"LapScores": "LS", "kMeans": "k-means"})
    _write(tmp_path, "lst17_coil20", cells)
    text = unpadded(build.build_report(tmp_path))
    for claim in ("lst17-faster-than-full-coil20", "lst17-lle-lapscores-trail-coil20"):
        line = next(ln for ln in text.splitlines() if f"`{claim}`" in ln)
        assert "no data" not in line and "LapScores" not in line.split("not run")[-1], line
    line = next(ln for ln in text.splitlines() if "`lst17-faster-than-full-coil20`" in ln)
    assert "cluster_seconds of kMeans 1.0" in line
    assert any(p.startswith("LapScores: mean over r") and p.endswith("✓") for p in line.split("; "))


def _section(text: str, heading: str) -> str:
    """The text of the ``## heading...`` section, up to the next ``## ``."""
    return text[text.index(f"## {heading}") :].split("\n## ", 1)[0]


@pytest.mark.slow
def test_sections_and_their_order_come_from_the_presets(results):
    # a user's own preset named zz_custom, drawn lst17-style, in the custom section
    grid = {"sign": [10, 20, 40], "svd": [10, 20, 40], "none": [64]}
    mine = preset("My sparse sweep", figure="lst17", section="custom", order=500, paper=None)
    exp = write_experiment(results, "zz_custom", make_cells("zz_custom", grid, 2),
                           config={"preset": mine})  # fmt: skip
    figures.draw_experiment(exp)
    # a new paper preset placed before Synth by its order, whatever its name
    first = preset("bzmd14 Figure 0: a new panel", order=5)
    write_experiment(results, "zzz_new_panel", make_cells("zzz_new_panel", grid, 2),
                     config={"preset": first})  # fmt: skip
    text = unpadded(build.build_report(results))
    custom = _section(text, "Your experiments")
    assert "### My sparse sweep" in custom
    assert "`zz_custom` (your own experiment, figure style lst17): complete (14 cells)" in custom
    assert "![zz_custom: zz_custom](zz_custom/figures/zz_custom.png)" in custom
    curves = _section(text, "Curve-only figures")
    assert "zz_custom" not in curves
    order = [curves.index(t) for t in ("### bzmd14 Figure 0", "### bzmd14 Figure 1 (a, c, e)",
                                       "### bzmd14 Figure 3 (b, d, f)")]  # fmt: skip
    assert order == sorted(order)
    # sections in the order of their smallest preset order: Table 1 (10), curves (5), custom
    heads = [text.index(f"## {h}") for h in ("Curve-only", "bmd09 Table 1", "Your experiments")]
    assert heads == sorted(heads)
    # nothing of one's own, no such section
    assert "Your experiments" not in build.build_report(results / "nothing")


@pytest.mark.slow
def test_a_killed_run_is_incomplete_not_not_run(results):
    # a first run killed with -9 before its first cell: sidecar "running", expected cells set,
    # no cells.csv
    shutil.rmtree(results / "bzmd14_orl")
    expected = _cells("bzmd14_orl", "orl", 40, range(5, 105, 5), 1)
    config = {"preset": PRESETS["bzmd14_orl"]}
    write_experiment(
        results, "bzmd14_orl", None, expected=expected, status="running", config=config
    )
    text = unpadded(build.build_report(results))
    row = next(ln for ln in text.splitlines() if ln.startswith("| `bzmd14_orl` |"))
    assert f"**incomplete (0 of {len(expected)} cells)**" in row and "running" in row
    assert "bzmd14_orl" not in _section(text, "What was run").split("### Skipped")[1]
    block = _section(text, "Curve-only")
    block = block[block.index("### bzmd14 Figure 3 (b, d, f)") :].split("\n### ", 1)[0]
    assert "No cell finished yet" in block and "not run" not in block


@pytest.mark.slow
def test_a_claim_whose_experiment_is_absent_is_still_listed(written):
    text = unpadded(written)
    line = next(ln for ln in text.splitlines() if "`bzmd14-F-decreases-usps`" in ln)
    assert "no data" in line
    absent = next(ln for ln in text.splitlines() if ln.startswith("No folder for "))
    assert "`bzmd14_usps`" in absent and "`bzmd14_synth`" not in absent


@pytest.mark.slow
def test_claims_are_checked_per_setting(results):
    # a multirun over kmeans.n_init into bzmd14_synth: F falls with r under n_init=5, rises under 1
    cells = pd.read_csv(results / "bzmd14_synth" / "cells.csv")
    other = cells.assign(kmeans_n_init=1, objective=1.0 - cells["objective"])
    both = pd.concat([cells, other], ignore_index=True)
    _write(results, "bzmd14_synth", both)
    text = unpadded(build.build_report(results))
    lines = [ln for ln in text.splitlines() if "`bzmd14-F-decreases-synth`" in ln]
    assert len(lines) == 2
    by_setting = {("n_init=1]" in ln): ln for ln in lines}
    assert "[kmeans_n_init=1]" in by_setting[True] and "fails" in by_setting[True]
    assert "[kmeans_n_init=5]" in by_setting[False] and "holds" in by_setting[False]
    assert (
        "Settings, drawn as one row of panels each: `kmeans_n_init=1`, `kmeans_n_init=5`." in text
    )


@pytest.mark.slow
def test_report_has_contents_one_skip_list_and_no_machine_paths(results, monkeypatch):
    mirror = "/srv/mirror/data"
    monkeypatch.setenv("KMDR_DATA_MIRROR", mirror)
    reason = (
        "nips: cannot obtain nips/nips_1-17.mat: download of http://x.org/~g/nips_1-17.mat "
        "failed; /old/build/host/datasets/nips/nips_1-17.mat not found; see "
        f"{mirror}/README and {results.resolve()}/bmd09_table1/runs/x.json"
    )
    _write(results, "bmd09_table1", None, skipped=reason)
    (results / "SKIPPED.md").write_text(
        "# Skipped\n\n- `bmd09_table1`: " + reason + "\n- `bmd09_gone`: no folder, listed only\n"
    )
    text = build.write_report(results).read_text()
    # no absolute path of any machine; URLs and the mirror variable stay readable
    for path in ("/old/build", mirror, str(results.resolve()), str(results)):
        assert path not in text
    assert "$KMDR_DATA_MIRROR/nips/nips_1-17.mat not found" in text
    assert "http://x.org/~g/nips_1-17.mat" in text and "$KMDR_DATA_MIRROR/README" in text
    # one list of skipped experiments, each reason printed once
    assert text.count("cannot obtain nips/nips_1-17.mat") == 1
    assert text.count("DatasetUnavailable: rcv1") == 1
    skipped = _section(text, "What was run").split("### Skipped experiments", 1)[1]
    assert "- `bmd09_table1`: nips: cannot obtain" in skipped
    assert "- `lst17_rcv1`: DatasetUnavailable: rcv1" in skipped
    assert "- `bmd09_gone`: no folder, listed only" in skipped
    assert "(#skipped-experiments)" in _section(text, "Curve-only")  # RCV1's block points there
    # a table of contents before the first section, linking every section by GitHub's anchors
    contents = _section(text, "Contents")
    assert text.index("## Contents") < text.index("## What was run")
    for link in ("[What was run](#what-was-run)", "[Theory](#theory)",
                 "  - [Skipped experiments](#skipped-experiments)",
                 "[Empirical approximation ratio](#empirical-approximation-ratio)",
                 "(#deviations-from-the-papers-data-and-setup)"):  # fmt: skip
        assert link in contents, link
    headings = [ln for ln in text.splitlines() if ln.startswith(("## ", "### "))]
    assert contents.count("](#") == len(headings) - 1  # every heading but Contents itself


def test_anchors_follow_github_and_number_repeats():
    seen: dict[str, int] = {}
    assert build._anchor("bzmd14 Figure 1 (a, c, e): Synth", seen) == "bzmd14-figure-1-a-c-e-synth"
    assert build._anchor("Deviations from the papers' data", seen) == (
        "deviations-from-the-papers-data"
    )
    assert build._anchor("Skipped experiments", seen) == "skipped-experiments"
    assert build._anchor("Skipped experiments", seen) == "skipped-experiments-1"


@pytest.mark.slow
def test_report_states_what_each_method_time_includes(written):
    text = unpadded(written)
    block = text[text.index("### What each method's time includes") :].split("\n#", 1)[0]
    assert "charged *in full* to every cell" in block
    # one row per reducer present in the results, with its own rule
    svd = next(ln for ln in block.splitlines() if "| `svd` |" in ln)
    assert "own exact rank-r SVD" in svd and "computed once per r" in svd
    # deterministic work is computed once and re-run per repetition only to be timed
    assert "a measurement of its own" in block and "re-run in each further" in svd
    lev = next(ln for ln in block.splitlines() if "| `leverage` |" in ln)
    assert "shared across r" in lev
    assert "| `sparsified` |" not in block  # PD did not run here


def test_cells_of_a_dirty_run_are_named_and_reruns_change_nothing(tmp_path):
    """The header names, per experiment, the cells a run marked dirty computed (how many, which
    methods and r); a later run that computed nothing (reused or skipped) changes no line of
    the report, and a skip reason reworded by a later run is given once, the latest."""
    root = tmp_path / "results"
    cells = _cells("bzmd14_synth", "synth", 5, [5, 10], 2)
    dirty = cells["reducer"] == "svd"
    cells.loc[dirty, "run_id"] = "run1"
    _write(root, "bzmd14_synth", cells, run_id="run0")
    _write(root, "bzmd14_synth", cells, run_id="run1", git={"revision": "feed1234", "dirty": True})
    _write(root, "bmd09_table1", None, skipped="nips: cannot obtain it (old words)")
    _write(root, "bmd09_table1", None, skipped="nips: cannot obtain it", run_id="run1")
    text = build.build_report(root)
    line = next(ln for ln in text.splitlines() if "uncommitted changes" in ln)
    assert f"`bzmd14_synth`: {int(dirty.sum())} cells, SVD (r = 5, 10); run `run1`" in line
    assert "old words" not in text and text.count("nips: cannot obtain it") == 1
    # a run that reused every cell, at another revision and date, and a skip in the same words
    _write(root, "bzmd14_synth", cells, run_id="run2", git={"revision": "0ther", "dirty": True},
           started_at="2030-01-01T00:00:00+00:00")  # fmt: skip
    _write(root, "bmd09_table1", None, skipped="nips: cannot obtain it", run_id="run3")
    assert build.build_report(root) == text


@pytest.mark.parametrize(
    ("folder", "preset_name", "started"),
    [
        pytest.param("wine_coresets", "ss22_usps_reducers", "ss22_usps_reducers", id="renamed"),
        pytest.param("ss22_usps_reducers", "ss22_usps_reducers", None, id="its-own-name"),
        # ss22_real names each job after its dataset: those folders are the preset's own
        pytest.param("ss22_covertype", "${dataset.name}", None, id="a-name-from-the-dataset"),
    ],
)
def test_a_run_started_from_a_preset_is_told_by_the_presets_files(folder, preset_name, started):
    from kmdr.config.presets import preset_names_by_title
    from kmdr.results.runs import started_from

    # ss22's preset of that name (dss24's real-data presets name their jobs so too)
    (title,) = [t for t, names in preset_names_by_title().items()
                if preset_name in names and not t.startswith("dss24")]  # fmt: skip
    assert started_from(folder, {"paper": "ss22", "title": title}) == started
    assert started_from(folder, {"paper": None, "title": title}) is None  # a run of no paper
    assert started_from(folder, {"paper": "ss22", "title": "a preset of yours"}) is None
