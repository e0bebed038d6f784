"""dss24's presets compose as the command line composes them: the paper's tables (the static
distortion table, the class-imbalance table, the cost after Lloyd) at the sizes their comments
state, on the datasets and parameters they name."""

from __future__ import annotations

from pathlib import Path

import pytest
from omegaconf import OmegaConf

import kmdr
from kmdr.engine.coresets import coreset_settings
from kmdr.papers.dss24 import datasets as D

CONF = Path(D.__file__).parent / "conf" / "experiment"
#: The static distortion table's constructions (welterweight at the paper's three j).
TABLE = [
    ("uniform", {}), ("lightweight", {}), ("welterweight", {"j": 2}),
    ("welterweight", {"j": "log"}), ("welterweight", {"j": "sqrt"}), ("fast_coreset", {}),
    ("fast_coreset_code", {}), ("sensitivity", {}), ("fast_streamkm", {}), ("bico", {}),
]  # fmt: skip
WITHOUT_SENSITIVITY = [c for c in TABLE if c[0] != "sensitivity"]
#: The class-imbalance table's rows.
IMBALANCE = [
    ("lightweight", {}), ("welterweight", {"j": 2}), ("welterweight", {"j": "log"}),
    ("welterweight", {"j": "sqrt"}), ("fast_coreset", {}), ("fast_coreset_code", {}),
]  # fmt: skip
#: The composition table's: each accelerated construction static and by merge-and-reduce.
STATIC = [("uniform", {}), ("lightweight", {}), ("welterweight", {"j": "log"}),
          ("fast_coreset", {})]  # fmt: skip
COMPOSITION = [
    *STATIC,
    *(("merge_reduce", {"construction": name, **({"params": p} if p else {}), "n_blocks": 16,
                        "shuffle": True}) for name, p in STATIC),
]  # fmt: skip
LLOYD = [("uniform", {}), ("lightweight", {}), ("welterweight", {"j": "log"}),
         ("fast_coreset", {})]  # fmt: skip

#: name -> (dataset, the dataset's params the preset sets, constructions, size_factors, sizes,
#: solve, repetitions, reproduce)
PRESETS = {
    "dss24_distortion_c_outlier": ("dss24_c_outlier", {}, WITHOUT_SENSITIVITY, [40, 80], [],
                                   ["seedings"], 5, "paper"),
    "dss24_distortion_geometric": ("dss24_geometric", {}, TABLE, [40, 80], [], ["seedings"], 5,
                                   "paper"),
    "dss24_distortion_gaussian_mixture": ("dss24_gaussian_mixture", {}, TABLE, [40, 80], [],
                                          ["seedings"], 5, "paper"),
    "dss24_distortion_benchmark": ("dss24_benchmark", {"k": 50}, TABLE, [40, 80], [],
                                   ["seedings"], 5, "paper"),
    **{
        f"dss24_class_imbalance_gamma{g}": ("dss24_gaussian_mixture", {"gamma": float(g)},
                                            IMBALANCE, [], [4000], ["seedings"], 5, "paper")
        for g in (0, 1, 3, 5)
    },
    **{
        f"dss24_composition_{name}": (f"dss24_{name}", {}, COMPOSITION, [20], [], ["seedings"],
                                      5, "paper")
        for name in ("c_outlier", "geometric", "gaussian_mixture")
    },
    "dss24_lloyd": ("dss24_gaussian_mixture", {"gamma": 1.0}, LLOYD, [40], [], ["lloyd"], 5,
                    "paper"),
    "dss24_lloyd_real": ("dss24_mnist", {}, LLOYD, [40], [], ["lloyd"], 5, "paper"),
    "dss24_real": ("dss24_mnist", {}, TABLE, [40, 80], [], ["seedings"], 5, "paper"),
}  # fmt: skip


def test_every_preset_of_the_paper_is_tested():
    assert sorted(p.stem for p in CONF.glob("*.yaml")) == sorted(PRESETS)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_preset_composes_with_the_papers_design(name):
    dataset, params, constructions, factors, sizes, solve, repeats, reproduce = PRESETS[name]
    exp = kmdr.compose(f"experiment={name}")
    assert exp.dataset.name == dataset
    defaults = dict({**D.SYNTHETIC, **D.REAL}[dataset].params)
    assert dict(exp.dataset.params) == {**defaults, **params}
    settings = coreset_settings(exp)
    assert settings["constructions"] == constructions
    assert (settings["size_factors"], settings["sizes"]) == (factors, sizes)
    assert list(settings["solve"]) == solve and exp.repeats == repeats
    assert [r.name for r in exp.reducers] == ["none"]
    assert exp.preset.paper == "dss24" and exp.preset.section == "dss24_authors"
    assert exp.preset.reproduce == reproduce and exp.preset.order >= 120


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_each_preset_has_its_own_order(name):
    orders = [OmegaConf.load(p).preset.order for p in CONF.glob("*.yaml")]
    assert orders.count(OmegaConf.load(CONF / f"{name}.yaml").preset.order) == 1


@pytest.mark.parametrize("name", ["dss24_real", "dss24_lloyd_real"])
def test_the_real_presets_sweep_the_papers_five_real_datasets(name):
    cfg = OmegaConf.load(CONF / f"{name}.yaml")
    assert sorted(cfg.hydra.sweeper.params.dataset.split(",")) == sorted(D.REAL)


@pytest.mark.parametrize(
    ("name", "dataset", "folder"),
    [("dss24_real", "dss24_covertype", "dss24_covertype"),
     ("dss24_lloyd_real", "dss24_covertype", "dss24_covertype_lloyd")],
)  # fmt: skip
def test_each_real_dataset_runs_into_its_own_folder_at_its_k(name, dataset, folder):
    exp = kmdr.compose(f"experiment={name}", f"dataset={dataset}")
    assert exp.name == folder and exp.dataset.params == {"k": D.LARGE_K}
