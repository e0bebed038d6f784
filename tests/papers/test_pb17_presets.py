"""pb17's presets compose as the command line composes them: the paper's four methods, its 50
trials, and its γ grid turned into m = max(1, round(γ p)) entries kept per row."""

import pytest

import kmdr
from kmdr.app.listing import list_presets as presets

#: γ as read off the paper's figure (accuracy vs γ on MNIST).
GAMMAS = (0.005, 0.008, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3)
METHODS = ("sparsified", "sparsified_raw", "sparsified_two_pass", "none")
#: The preset's reducer ids: the paper's methods by its authors' rules, and (digits) kmdr's rules
#: on the same sketches, under labels of their own.
IDS = {
    "pb17_digits": (
        "sparsified", "sparsified_raw", "sparsified_two_pass", "sparsified_kmdr",
        "sparsified_raw_kmdr", "sparsified_two_pass_kmdr", "none",
    ),
    "pb17_mnist": METHODS,
}  # fmt: skip
#: Whose seeds a reducer of the preset takes (the same sketch and start as that one).
SEED_FROM = {
    "sparsified_two_pass": "sparsified",
    "sparsified_kmdr": "sparsified",
    "sparsified_raw_kmdr": "sparsified_raw",
    "sparsified_two_pass_kmdr": "sparsified",
}


def _m(gamma: float, p: int) -> int:
    return max(1, round(gamma * p))  # the authors' code's rounding


@pytest.mark.parametrize(
    ("name", "dataset", "p", "params", "trials"),
    [
        ("pb17_digits", "digits", 64, {}, 50),  # the paper's 50 trials
        ("pb17_mnist", "mnist", 784, {"digits": [0, 3, 9]}, 20),  # 50 would take 10 minutes
    ],
)
def test_preset_composes_with_the_papers_design(name, dataset, p, params, trials):
    exp = kmdr.compose(f"experiment={name}")
    assert exp.name == name and exp.dataset.name == dataset and exp.dataset.params == params
    assert tuple(r.id for r in exp.reducers) == IDS[name]
    assert {r.name for r in exp.reducers} == set(METHODS)
    for r in exp.reducers:
        if r.name != "none":  # the paper's names by its authors' rules, kmdr's labelled apart
            kmdr_rules = r.id.endswith("_kmdr")
            assert r.params["rules"] == ("kmdr" if kmdr_rules else "authors"), r.id
            assert (r.label is not None and "kmdr's variant" in r.label) == kmdr_rules, r.id
    assert exp.r_grid == tuple(sorted({_m(g, p) for g in GAMMAS}))
    assert exp.repeats == trials
    assert exp.kmeans.init == "k-means++" and exp.kmeans.max_iter == 100
    assert exp.preset.paper == "pb17" and exp.preset.figure == "pb17"


@pytest.mark.parametrize("name", ["pb17_digits", "pb17_mnist"])
def test_two_pass_takes_pds_seeds_so_the_two_pair(name):
    """PD 2-pass continues PD's run (the same sketch and start, then its second pass), as the
    authors' two-pass algorithm continues their one-pass run: its cells draw PD's seeds."""
    from kmdr.results.cells import make_cell

    exp = kmdr.compose(f"experiment={name}")
    by_id = {r.id: r for r in exp.reducers}
    assert {i: r.seed_from for i, r in by_id.items() if r.seed_from} == {
        i: s for i, s in SEED_FROM.items() if i in by_id
    }
    pd_, two = (make_cell(exp, by_id[i], 6, 3, data_fingerprint="x")
                for i in ("sparsified", "sparsified_two_pass"))  # fmt: skip
    assert pd_.seed == two.seed and pd_.cell_id != two.cell_id
    assert two.identity()["seed_from"] == "sparsified" and "seed_from" not in pd_.identity()


@pytest.mark.parametrize(
    ("name", "reducer"), [(name, rid) for name, ids in IDS.items() for rid in ids]
)
def test_each_method_runs_alone_from_its_preset(name, reducer):
    """``kmdr experiment=<preset> reducer=<id>`` keeps that entry alone, with the entry whose
    seeds it takes (so its cells are the preset's, reused), each as the preset defines it."""
    whole = {r.id: r for r in kmdr.compose(f"experiment={name}").reducers}
    alone = kmdr.compose(f"experiment={name}", f"reducer={reducer}").reducers
    expected = [rid for rid in IDS[name] if rid in {reducer, SEED_FROM.get(reducer)}]
    assert [r.id for r in alone] == expected
    assert all(r == whole[r.id] for r in alone)


@pytest.mark.parametrize("variant", [rid for rid in IDS["pb17_digits"] if rid.endswith("_kmdr")])
def test_kmdrs_variant_as_an_option_is_the_presets_entry(variant):
    """Without a preset, ``reducer=<variant>`` runs kmdr's variant as pb17_digits defines it, with
    seeds of its own: the option's entry and the preset's differ in nothing else."""
    from dataclasses import replace

    (own,) = kmdr.compose("dataset=digits", f"reducer={variant}").reducers
    preset = {r.id: r for r in kmdr.compose("experiment=pb17_digits").reducers}[variant]
    assert own.seed_from is None
    assert own == replace(preset, seed_from=None)


def test_stand_in_says_so_in_its_title_and_note():
    exp = kmdr.compose("experiment=pb17_digits")
    assert "stand-in" in exp.preset.title
    assert "NOT MNIST" in exp.preset.title
    assert "stand-in for MNIST" in exp.preset.note


@pytest.mark.slow
def test_pb17_runs_after_lst17_and_before_the_course_report():
    listed = [p for p in presets() if p["reproduce"] == "paper"]
    names = [p["name"] for p in listed]
    assert names.index("lst17_sparse_text") < names.index("pb17_mnist")
    assert names.index("pb17_mnist") < names.index("pb17_digits")
    assert names.index("pb17_digits") < names.index("report_orl_projections")


def test_the_dry_run_keeps_long_ids_in_one_column(tmp_path, capfd):
    """pb17_digits' ids run past 20 characters (``sparsified_two_pass_kmdr``): the dry run's
    counts still start in one column."""
    kmdr.run("experiment=pb17_digits", "dry_run=true", f"results_dir={tmp_path}")
    out = capfd.readouterr()
    rows = [ln for ln in (out.out + out.err).splitlines() if " to compute, " in ln]
    assert len(rows) == len(IDS["pb17_digits"])
    assert len({ln.index(" to compute, ") for ln in rows}) == 1
