"""kmdr-list: the datasets, reducers and presets, as text and as JSON, on the real catalog,
registry and configs (subset checks: others add entries) and on a hand-made config folder."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

import kmdr.datasets as kd
from kmdr.app import listing
from kmdr.config.checks import reducer_grid
from kmdr.config.presets import conf_dir
from kmdr.reducers import REDUCERS


def _json(capsys, *argv) -> dict:
    assert listing.main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_text_lists_known_entries(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv(kd.DATA_DIR_ENV, str(tmp_path))
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    assert listing.main([]) == 0
    out = capsys.readouterr().out
    for header in ("datasets (", "reducers (", "presets ("):
        assert header in out
    lines = out.splitlines()
    coil20 = next(line.split() for line in lines if line.split()[:1] == ["coil20"])
    assert coil20[:6] == ["coil20", "COIL20", "download", "1440", "1024", "20"]
    sign = next(line.split() for line in lines if line.split()[:1] == ["sign"])
    assert sign[1] == "RP"
    assert any(line.split()[:1] == ["bzmd14_orl"] for line in lines)


@pytest.mark.slow
def test_json_shape_and_sections(capsys):
    out = _json(capsys)
    assert list(out) == list(listing.SECTIONS)
    dataset_keys = {"name", "display_name", "kind", "status", "reason", "params"}
    dataset_keys |= {"n_samples", "n_features", "n_clusters", "sparse", "source"}
    for row in out["datasets"]:
        assert set(row) == dataset_keys and row["status"] in kd.STATUSES
    for row in out["reducers"]:
        assert set(row) == {"name", "label", "paper", "class", "params", "pinned", "error"}
        assert isinstance(row["params"], dict) and isinstance(row["pinned"], dict)
    for row in out["coresets"]:
        assert set(row) == {"what", "name", "class", "description"}
    for row in out["presets"]:
        assert {"name", "paper", "title", "figure", "section", "order", "cells"} <= set(row)
    # the sections in a fixed order, whatever the command line's (two that read no preset file)
    assert list(_json(capsys, "reducers", "datasets")) == ["datasets", "reducers"]


def test_unknown_section_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        listing.main(["models"])
    assert exc.value.code == 2 and "unknown section(s) ['models']" in capsys.readouterr().err


def test_datasets_status_follow_the_cache_and_mirror(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv(kd.DATA_DIR_ENV, str(tmp_path / "cache"))
    rel = "coil20/COIL20.mat"
    (tmp_path / "mirror" / rel).parent.mkdir(parents=True)
    (tmp_path / "mirror" / rel).write_bytes(b"only its presence is looked at")
    rows = {
        r["name"]: r
        for r in _json(capsys, "datasets", "--mirror", str(tmp_path / "mirror"))["datasets"]
    }
    assert rows["coil20"]["status"] == "mirror" and rows["usps"]["status"] == "download"
    assert rows["synth"]["status"] == "synthetic" and rows["synth"]["display_name"] == "Synth"
    assert (rows["rcv1"]["n_samples"], rows["rcv1"]["sparse"]) == (15564, True)
    assert rows["synth"]["params"]["seed"] == 0 and rows["coil20"]["params"] == {}


def test_datasets_say_where_each_file_would_come_from(capsys, monkeypatch, tmp_path):
    """Every registry file's URL, an unavailable dataset's included (the file one downloads and
    pins by hand), and the mirror folder for a machine without internet."""
    monkeypatch.setenv(kd.DATA_DIR_ENV, str(tmp_path))
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    rows = {r["name"]: r for r in _json(capsys, "datasets")["datasets"]}
    census = kd.registry()["census/USCensus1990.data.txt"]
    assert rows["ss22_census"]["status"] == "unavailable"
    assert rows["ss22_census"]["source"] == census.url
    assert rows["synth"]["source"] is None and rows["file"]["source"] is None
    assert listing.main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert f"ss22_census: from {census.url}" in out and "KMDR_DATA_MIRROR" in out


def test_coresets_lists_the_constructions_and_the_kinds_settings(capsys):
    from kmdr.config.kinds import get_kind
    from kmdr.coresets import available_coresets

    rows = _json(capsys, "coresets")["coresets"]
    built = [r["name"] for r in rows if r["what"] == "construction"]
    assert built == available_coresets() and all(r["description"] for r in rows)
    settings = [r["name"] for r in rows if r["what"] == "setting"]
    kind = get_kind("coresets")
    documented = getattr(kind, "settings_doc", None) or {}
    expected = documented or {"constructions": 0, "size_factors": 0, "solutions": 0}
    assert settings == [f"kind_params.{name}" for name in expected]
    assert listing.main(["coresets"]) == 0
    out = capsys.readouterr().out
    assert "sensitivity" in out and "kind_params.size_factors: " in out


@pytest.mark.slow  # composes every preset
def test_the_coresets_presets_cells_are_their_runs(capsys):
    """A kind that plans its own grid is counted by it: each committed ss22 preset's count is
    the number of cells its last run expected."""
    import json as _json_module

    root = Path(__file__).resolve().parents[2] / "results"
    rows = {r["name"]: r for r in _json(capsys, "presets")["presets"]}
    ss22 = [n for n, r in rows.items() if r["kind"] == "coresets" and (root / n / "runs").is_dir()]
    assert len(ss22) >= 8
    for name in ss22:
        record = sorted((root / name / "runs").glob("*.json"))[-1]
        expected = _json_module.loads(record.read_text())["expected_cells"]
        assert rows[name]["cells"] == len(expected), name
    assert rows["ss22_usps_reducers"]["figure"] == "ss22_reducers"


def test_reducers_settable_params_without_the_pinned_ones(capsys):
    rows = {r["name"]: r for r in _json(capsys, "reducers")["reducers"]}
    assert set(rows) == set(REDUCERS)
    approx = rows["leverage_approx"]
    assert approx["label"] == REDUCERS["leverage_approx"].label
    assert approx["pinned"] == {"svd": "approximate"}
    # eps is the one a config sets; svd is pinned; r, k and the seed come from the runner
    assert "eps" in approx["params"] and "svd" not in approx["params"]
    assert not set(approx["params"]) & set(listing.RUNNER_SET)
    defaults = REDUCERS["laplacian"].cls().get_params()
    assert rows["laplacian"]["params"]["n_neighbors"] == defaults["n_neighbors"]
    for name, row in rows.items():
        assert row["paper"] == getattr(REDUCERS[name], "paper", None) and row["error"] is None


def test_a_reducer_that_cannot_be_built_is_one_line(capsys, monkeypatch):
    from dataclasses import replace

    import kmdr.reducers as kr

    class NeedsArgument(REDUCERS["sign"].cls):
        def __init__(self, required):
            self.required = required

    broken = replace(REDUCERS["sign"], cls=NeedsArgument)
    monkeypatch.setattr(kr, "REDUCERS", {**REDUCERS, "sign": broken})
    rows = {r["name"]: r for r in _json(capsys, "reducers")["reducers"]}
    assert "TypeError" in rows["sign"]["error"] and rows["svd"]["error"] is None
    assert listing.main(["reducers"]) == 0
    assert "  sign: TypeError" in capsys.readouterr().out


def _compose(name: str):
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(conf_dir()), version_base=None):
        return compose("config", overrides=[f"experiment={name}"])


@pytest.mark.slow
def test_presets_read_as_hydra_composes_them():
    """What the listing reads with OmegaConf alone is what Hydra composes for each preset."""
    presets = listing.list_presets()
    assert {"bzmd14_orl", "lst17_coil20", "bmd09_table1"} <= {p["name"] for p in presets}
    assert [(p["order"], p["name"]) for p in presets] == sorted(
        (p["order"], p["name"]) for p in presets
    )
    for p in (SimpleNamespace(**p) for p in presets):
        cfg = _compose(p.name)
        names = tuple(r.name for r in cfg.reducers.values())
        assert (p.dataset, p.reducers, p.kind) == (cfg.dataset.name, names, cfg.kind), p.name
        assert (p.r_grid, p.repeats) == (len(cfg.r_grid), cfg.repeats), p.name
        if p.kind == "cells":
            # a reducer with max_r runs the grid up to that r
            per_rep = sum(
                1 if r.name == "none" else len(reducer_grid(cfg.r_grid, r.get("max_r")))
                for r in cfg.reducers.values()
            )
            assert p.cells == per_rep * cfg.repeats
        preset = cfg.get("preset") or {}
        assert p.title == preset.get("title", cfg.name) and p.paper == preset.get("paper")


CONFIG = """
defaults:
  - kmdr_schema
  - _self_
  - dataset: toy
  - reducer: sign
  - experiment: null
r_grid: [1, 2, 3]
repeats: 2
kind: cells
"""
PRESET = """
# @package _global_
defaults:
  - override /dataset: toy
  - override /reducer: null
name: mine
reducers:
  a: {name: sign, label: A, params: {}}
  b: {name: gaussian, label: B, params: {}}
  c: {name: none, label: C, params: {}}
r_grid: [5, 10, 20, 40]
repeats: 3
preset: {paper: lst17, title: "A test preset", figure: lst17, order: 5}
"""


@pytest.fixture
def conf(tmp_path):
    for rel, text in {
        "config.yaml": CONFIG,
        "dataset/toy.yaml": "name: toy\nparams: {}\n",
        # the kmdr datasets the papers' packaged presets run on (ss22's on usps, coil20, orl
        # and pie)
        **{
            f"dataset/{name}.yaml": f"name: {name}\nparams: {{}}\n"
            for name in ("usps", "coil20", "orl", "pie")
        },
        "experiment/mine.yaml": PRESET,
        "experiment/bare.yaml": "# @package _global_\nname: bare_run\n",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(textwrap.dedent(text))
    return tmp_path


def test_preset_block_and_cell_count(conf):
    # order 5 before the default 1000
    mine, bare = (SimpleNamespace(**p) for p in listing.list_presets(conf))
    assert (mine.name, mine.paper, mine.title, mine.figure, mine.order) == (
        "mine", "lst17", "A test preset", "lst17", 5,
    )  # fmt: skip
    assert mine.section == "custom" and mine.reproduce == "none"  # defaults for missing keys
    assert mine.cells == (4 + 4 + 1) * 3  # the none reducer: one cell per repetition
    # no preset block, no reducers: the schema's preset defaults and config.yaml's sign reducer
    assert (bare.name, bare.paper, bare.title, bare.figure, bare.order) == (
        "bare", None, "bare_run", "bzmd14", 1000,
    )  # fmt: skip
    assert (bare.dataset, bare.reducers, bare.cells) == ("toy", ("sign",), 3 * 2)


def test_presets_text_and_missing_config_folder(conf, capsys, monkeypatch):
    monkeypatch.setenv("KMDR_CONF_DIR", str(conf))
    assert listing.main(["presets"]) == 0
    out = capsys.readouterr().out
    # the folder's two, and the presets kmdr's papers hold in their own packages
    from importlib.resources import files

    from kmdr.plugins import papers

    held = sum(
        1 for p in papers() if p.configs
        for f in files(p.configs).joinpath("experiment").iterdir() if f.name.endswith(".yaml")
    )  # fmt: skip
    assert held >= 12 and f"presets ({2 + held})" in out
    assert "A test preset" in out and "pb17_digits" in out and "dss24_lloyd" in out
    monkeypatch.setenv("KMDR_CONF_DIR", str(conf / "nowhere"))
    assert listing.main(["presets"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("kmdr-list: error: presets:") and err.count("\n") == 1


def test_a_broken_dataset_plugin_is_listed_with_its_reason(tmp_path, monkeypatch, capsys):
    info = tmp_path / "badplugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: badplugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[kmdr.datasets]\nbad = badplugin_nowhere:ENTRY\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    kd.reload_plugins()
    try:
        assert listing.main(["datasets"]) == 0
        out = capsys.readouterr().out
        rows = {r["name"]: r for r in _json(capsys, "datasets")["datasets"]}
    finally:
        monkeypatch.undo()
        kd.reload_plugins()
    assert any(line.split()[:3] == ["bad", "bad", "unavailable"] for line in out.splitlines())
    reasons = [line for line in out.splitlines() if "badplugin_nowhere" in line]
    assert len(reasons) == 1 and "ModuleNotFoundError" in reasons[0]
    assert rows["bad"]["kind"] is None and rows["coil20"]["status"] != "unavailable"


@pytest.mark.slow
def test_a_closed_pipe_is_not_an_error(tmp_path):
    import subprocess
    import sys

    # `kmdr-list | head -1`: the reader closes the pipe early; no traceback, exit 0. The
    # installed console script, the one run of it in a process of its own.
    proc = subprocess.Popen(
        [str(Path(sys.executable).with_name("kmdr-list"))],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    proc.stdout.close()  # before the listing is written: every write hits a closed pipe
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0
    assert "Traceback" not in err and "BrokenPipe" not in err
