"""``kmdr``: run an experiment, a preset or an ad-hoc sweep, from the Hydra configs in ``conf/``.

    kmdr experiment=bzmd14_orl
    kmdr dataset=coil20 reducer=sign 'r_grid=[10,20,40]' repeats=5 kmeans.n_init=5
    kmdr -m dataset=orl,coil20 reducer=leverage,sign,svd
    kmdr experiment=bzmd14_orl reducer=sign          # only the preset's sign entries
    kmdr --cfg job experiment=bzmd14_orl             # print the resolved config

Before Hydra runs anything, every job the command line describes (each combination of a
multirun sweep) is composed and checked, including its r-grid against the data's shape. A bad
override prints ONE line naming the valid choices and exits with status 2; nothing is written.

Configs are read from the repository's ``conf/`` folder (the package is installed editable, see
the README), or from ``$KMDR_CONF_DIR``. A non-editable install has no ``conf/`` beside it: the
command says so and exits with status 2.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

__all__ = ["conf_dir", "main"]

CONF_ENV = "KMDR_CONF_DIR"
GROUPS = {"dataset": "datasets", "reducer": "reducers", "experiment": "experiments"}
_NO_RUN_FLAGS = ("help", "hydra_help", "cfg", "info", "shell_completion")

# Datasets loaded while checking the command line, reused by the jobs (same process).
_DATA_CACHE: dict[str, object] = {}


class UsageError(Exception):
    """A one-line error for the user (exit status 2)."""


def _fail(message: str, status: int = 2):
    print(f"kmdr: error: {' '.join(str(message).split())}", file=sys.stderr, flush=True)
    sys.exit(status)


def conf_dir() -> Path:
    """The config folder: ``$KMDR_CONF_DIR``, else ``<repo>/conf`` beside an editable install."""
    env = os.environ.get(CONF_ENV)
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[3] / "conf")
    for path in candidates:
        if (path / "config.yaml").is_file():
            return path.resolve()
    raise UsageError(
        f"no Hydra configs found (looked in {', '.join(str(c) for c in candidates)}); kmdr reads "
        f"the repository's conf/ folder: install it editable from a checkout "
        f"(`pip install -e .`, as `make install` does) or set {CONF_ENV} to a conf/ folder"
    )


def group_options(conf: Path, group: str) -> list[str]:
    return sorted(p.stem for p in (conf / group).glob("*.yaml"))


def _parse_args(argv: list[str]):
    from hydra._internal.utils import get_args_parser

    parser = get_args_parser()

    def error(message):  # argparse prints a multi-line usage; one line is enough
        raise UsageError(f"{message} (options such as -m go before the overrides; see --help)")

    parser.error = error
    return parser.parse_args(argv)


def _check_groups(conf: Path, overrides: list[str]) -> list:
    """Check group choices (dataset=, reducer=, experiment=, sweeps too); return the parsed
    overrides."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except HydraException as err:
        raise UsageError(f"cannot parse the overrides: {err}") from None
    for ov in parsed:
        group = ov.key_or_group.lstrip("/")
        if group not in GROUPS or ov.is_delete():
            continue
        values = list(ov.sweep_string_iterator()) if ov.is_sweep_override() else [ov.value()]
        valid = group_options(conf, group)
        for value in values:
            if value is None or (group != "dataset" and value == "null"):
                continue
            if str(value) not in valid:
                raise UsageError(
                    f"unknown {group} {value!r}; valid {GROUPS[group]}: {', '.join(valid)}"
                )
    return parsed


def _jobs(parsed, multirun: bool, overrides: list[str]) -> list[list[str]]:
    if not multirun:
        return [overrides]
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper

    batches = BasicSweeper.split_arguments(parsed, None)
    return [job for batch in batches for job in batch]


def _only_reducer(choices) -> str | None:
    """With both an experiment preset and a reducer option, run only that reducer's entries."""
    if choices.get("experiment") and choices.get("reducer"):
        return str(choices["reducer"])
    return None


def _dataset_key(spec) -> str:
    return json.dumps([spec.dataset, spec.dataset_params, spec.data_dir], sort_keys=True)


def load_for(spec):
    """The spec's dataset, loaded once per process (the DatasetUnavailable error when it cannot
    be obtained)."""
    from kmdr.datasets import DatasetUnavailable, load_dataset

    key = _dataset_key(spec)
    if key not in _DATA_CACHE:
        try:
            _DATA_CACHE[key] = load_dataset(
                spec.dataset, data_dir=spec.data_dir, **spec.dataset_params
            )
        except DatasetUnavailable as err:
            _DATA_CACHE[key] = err  # the runner records the reason and skips
        except (TypeError, ValueError) as err:
            raise UsageError(f"dataset {spec.dataset!r}: {err}") from None
    return _DATA_CACHE[key]


def validate(conf: Path, argv: list[str]) -> None:
    """Compose and check every job of the command line; raise :class:`UsageError` on the first
    problem."""
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf import open_dict
    from omegaconf.errors import OmegaConfBaseException

    from kmdr.experiments.spec import ConfigError, check_against_data, spec_from_config

    args = _parse_args(argv)
    parsed = _check_groups(conf, args.overrides)
    check_data = not any(getattr(args, flag, None) for flag in _NO_RUN_FLAGS)
    jobs = _jobs(parsed, bool(args.multirun), args.overrides)
    with initialize_config_dir(config_dir=str(conf), version_base=None, job_name="kmdr"):
        for overrides in jobs:
            try:
                cfg = compose("config", overrides=list(overrides), return_hydra_config=True)
            except (HydraException, OmegaConfBaseException) as err:
                raise UsageError(str(err)) from None
            if not check_data:
                continue
            choices = dict(cfg.hydra.runtime.choices)
            with open_dict(cfg):
                del cfg["hydra"]
            try:
                spec = spec_from_config(cfg, only_reducer=_only_reducer(choices))
                data = load_for(spec)
                if not isinstance(data, Exception):
                    X = data.X
                    check_against_data(spec, X.shape[0], X.shape[1], int(data.n_clusters))
            except ConfigError as err:
                prefix = ""
                if args.multirun and len(jobs) > 1:  # name the job by its swept values
                    swept = {ov.get_key_element() for ov in parsed if ov.is_sweep_override()}
                    which = [o for o in overrides if o.split("=", 1)[0] in swept]
                    prefix = f"[job {' '.join(which)}] "
                raise UsageError(f"{prefix}{err}") from None


def _task(cfg) -> None:
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode
    from omegaconf import OmegaConf

    from kmdr.experiments.runner import run_experiment
    from kmdr.experiments.spec import ConfigError, spec_from_config

    hc = HydraConfig.get()
    multirun = hc.mode == RunMode.MULTIRUN
    try:
        spec = spec_from_config(cfg, only_reducer=_only_reducer(dict(hc.runtime.choices)))
        config = OmegaConf.to_container(cfg, resolve=True)
        config["choices"] = {k: v for k, v in hc.runtime.choices.items() if "/" not in k}
        config["overrides"] = list(hc.overrides.task)
        data = load_for(spec)
        outcome = run_experiment(spec, dataset=data, config=config)
    except ConfigError as err:
        _fail(str(err))
    except UsageError as err:
        _fail(str(err))
    except KeyboardInterrupt:
        print(
            f"kmdr: interrupted; every finished cell is kept under "
            f"{Path(cfg.results_dir) / cfg.name / 'cells'}: run the same command to resume",
            file=sys.stderr,
        )
        sys.exit(130)
    if outcome.skipped:
        print(f"kmdr: {spec.name} skipped: {outcome.skipped}", file=sys.stderr, flush=True)
        if not multirun:
            sys.exit(1)
        return
    where = outcome.experiment_dir / ("cells.csv" if spec.kind == "cells" else "")
    print(
        f"[kmdr] {spec.name}: {outcome.n_expected} cells ({outcome.n_computed} computed, "
        f"{outcome.n_reused} reused) in {outcome.wall_seconds:.1f} s -> {where}",
        file=sys.stderr,
        flush=True,
    )


def main(argv: list[str] | None = None) -> None:
    """Entry point of ``kmdr`` (``argv``: the arguments after the program name)."""
    import hydra

    if argv is not None:
        sys.argv = [sys.argv[0], *argv]
    argv = sys.argv[1:]
    try:
        conf = conf_dir()
        validate(conf, argv)
    except UsageError as err:
        _fail(str(err))
    hydra.main(config_path=str(conf), config_name="config", version_base=None)(_task)()


if __name__ == "__main__":  # pragma: no cover
    main()
