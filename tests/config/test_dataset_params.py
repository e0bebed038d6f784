"""A generated dataset's parameters are typed keys of the config (no ``+``), declared once with the
generator, checked before any work, and recorded in the cells as they always were."""

from __future__ import annotations

import warnings

import pytest
from hydra import compose
from omegaconf import OmegaConf

from kmdr.app import compose as configs
from kmdr.config.schema import ConfigError, from_config
from kmdr.datasets._builtins import PARAM_SCHEMAS


def composed(*overrides: str):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. Hydra's automatic schema matching warning
        with configs.initialized():
            return compose(config_name="config", overrides=list(overrides))


@pytest.mark.parametrize("dataset", sorted(PARAM_SCHEMAS))
def test_every_generator_option_has_its_typed_params(dataset):
    cfg = composed(f"dataset={dataset}")
    schema = PARAM_SCHEMAS[dataset]
    assert OmegaConf.get_type(cfg.dataset.params) is schema
    # the defaults are the declaration's, shown in full by --cfg job
    assert OmegaConf.to_container(cfg.dataset.params) == schema.defaults()


def test_the_size_is_a_typed_key():
    cfg = composed("dataset=sparse_text", "dataset.params.n_samples=804414")
    spec = from_config(cfg)
    assert spec.experiment.dataset.params == {"n_samples": 804414, "seed": 0}


@pytest.mark.parametrize("dataset", sorted(PARAM_SCHEMAS))
def test_defaults_record_what_the_committed_cells_record(dataset):
    # the committed synth and sparse_text cells have dataset_params {"seed": 0}
    assert from_config(composed(f"dataset={dataset}")).experiment.dataset.params == {"seed": 0}
    spelled_out = [f"dataset.params.{k}={v}" for k, v in PARAM_SCHEMAS[dataset].defaults().items()]
    assert from_config(composed(f"dataset={dataset}", *spelled_out)).experiment.dataset.params == {
        "seed": 0
    }


def plain(dataset: str, params) -> dict:
    return {"dataset": {"name": dataset, "params": params}, "reducers": [{"name": "sign"}]}


def test_a_plain_mapping_is_checked_the_same():
    with pytest.raises(ConfigError, match="'n_samples' must be an integer >= 1, got 0"):
        from_config(plain("sparse_text", {"n_samples": 0}))
    assert from_config(plain("synth", {"std": 2})).experiment.dataset.params == {
        "std": 2.0,
        "seed": 0,
    }


@pytest.mark.parametrize("dataset", ["orl", "coil20"])
def test_other_datasets_keep_free_params(dataset):
    cfg = composed(f"dataset={dataset}")
    assert OmegaConf.to_container(cfg.dataset.params) == {}
    assert from_config(cfg).experiment.dataset.params == {}
