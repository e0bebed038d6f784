"""``kmdr``: run an experiment, a preset or an ad-hoc sweep, from the Hydra configs.

    kmdr experiment=bzmd14_orl
    kmdr dataset=coil20 reducer=sign 'r_grid=[10,20,40]' repeats=5 kmeans.n_init=5
    kmdr -m dataset=orl,coil20 reducer=leverage,sign,svd
    kmdr experiment=bzmd14_orl reducer=sign          # only the preset's sign entries
    kmdr --cfg job experiment=bzmd14_orl             # print the resolved config
    kmdr -sc install=bash                            # Hydra's tab completion

Before Hydra runs anything, every job the command line describes (each combination of a
multirun sweep) is composed against the typed schema (:mod:`kmdr.config.schema`) and
checked, including its r-grid against the data's shape, in this process. A bad override or preset
prints ONE line naming the key and the valid choices and exits with status 2; nothing is written.
So do an override Hydra's grammar cannot parse (named, with how to write it), a YAML syntax error
in any config (file, line, column), and a ``-cd`` or search-path folder that does not exist.
Hydra's own commands (``--help``, ``--hydra-help``, ``--info``, ``-sc``) are left to Hydra;
``--cfg`` is checked without loading data.

A run of a preset that changes what the preset fixes (its dataset, say) is another experiment:
:func:`own_folder` gives it its own folder and says so in one line, in the check and in the run
(the run may be another process under a Hydra launcher), so it never enters the preset's folder.

Configs are the installed package ``kmdr.conf`` (``pkg://kmdr.conf``), or ``$KMDR_CONF_DIR``
(:mod:`kmdr.config.presets`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

from kmdr.config import schema as _schema  # noqa: F401  (registers the config schema)
from kmdr.config.presets import CONF_ENV, conf_dir, config_path, group_options, initialized
from kmdr.config.spec import ConfigError
from kmdr.run import signals

__all__ = ["CONF_ENV", "conf_dir", "main", "validate"]

GROUPS = {"dataset": "datasets", "reducer": "reducers", "experiment": "experiments"}

# Datasets loaded while checking the command line, reused by the jobs (same process).
_DATA_CACHE: dict[str, object] = {}


class UsageError(Exception):
    """A one-line error for the user (exit status 2)."""


def _fail(message: str, status: int = 2):
    print(f"kmdr: error: {' '.join(str(message).split())}", file=sys.stderr, flush=True)
    sys.exit(status)


def _args_parser() -> argparse.ArgumentParser:
    """Hydra 1.3's command-line flags (documented at hydra.cc, "Command line flags"), only to
    tell its flags from the overrides before handing the command line to :func:`hydra.main`:
    Hydra has no public API for its own parser."""
    p = argparse.ArgumentParser(prog="kmdr", add_help=False)
    p.add_argument("overrides", nargs="*")
    for flags in (
        ("--help", "-h"),
        ("--hydra-help",),
        ("--version",),
        ("--resolve",),
        ("--run", "-r"),
        ("--multirun", "-m"),
        ("--shell-completion", "-sc"),
    ):
        p.add_argument(*flags, action="store_true")
    p.add_argument("--cfg", "-c", choices=["job", "hydra", "all"])
    for flags in (
        ("--package", "-p"),
        ("--config-path", "-cp"),
        ("--config-name", "-cn"),
        ("--config-dir", "-cd"),
        ("--experimental-rerun",),
    ):
        p.add_argument(*flags)
    p.add_argument("--info", "-i", nargs="?", const="all")

    def error(message):  # argparse prints a multi-line usage; one line is enough
        raise UsageError(f"{message} (options such as -m go before the overrides; see --help)")

    p.error = error
    return p


# Hydra's own commands: Hydra answers them without running the task (nothing to check), or
# with another primary config (-cp) or a saved config (--experimental-rerun). Your own config
# folder (-cd DIR, or hydra.searchpath=[file://DIR]) is checked like kmdr's.
_HYDRA_ONLY = (
    "help",
    "hydra_help",
    "version",
    "shell_completion",
    "info",
    "config_path",
    "experimental_rerun",
)


def _search_dirs(parsed, config_dir: str | None) -> list[Path]:
    """The config folders a command adds to kmdr's: ``-cd DIR`` and the ``file://`` entries of a
    ``hydra.searchpath=[...]`` override."""
    dirs = [Path(config_dir)] if config_dir else []
    for ov in parsed:
        if ov.get_key_element() == "hydra.searchpath" and not ov.is_delete():
            value = ov.value()
            for entry in value if isinstance(value, list) else [value]:
                if str(entry).startswith("file://"):
                    dirs.append(Path(str(entry)[len("file://") :]))
    return [d.expanduser().resolve() for d in dirs]


def _parse(overrides: list[str]) -> list:
    """The overrides parsed by Hydra's grammar; a :class:`UsageError` naming the one that does
    not parse, and how to write it."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    parser = OverridesParser.create()
    try:
        return parser.parse_overrides(overrides)
    except HydraException:
        pass
    for text in overrides:
        try:
            parser.parse_overrides([text])
        except HydraException as err:
            key, eq, value = text.partition("=")
            if eq and not text.isascii() and not any(q in value for q in "'\""):
                raise UsageError(
                    f"cannot parse the override {text!r}: Hydra takes characters outside ASCII "
                    f"only inside quotes; write it as '{key}=\"{value}\"'"
                ) from None
            lines = [ln for ln in str(err).splitlines() if not ln.startswith("See https")]
            reason = " ".join(lines[-1].split()) if lines else type(err).__name__
            raise UsageError(
                f"cannot parse the override {text!r}: {reason}; write overrides as key=value "
                "(quote values with spaces or special characters; see --help)"
            ) from None
    raise UsageError(f"cannot parse the overrides {' '.join(overrides)!r}")


def _check_folders(dirs: list[Path], flag: dict[Path, str]) -> None:
    """Every extra config folder exists (Hydra would warn and go on without it)."""
    for d in dirs:
        if not d.is_dir():
            what = "is a file, not a folder" if d.exists() else "does not exist"
            raise UsageError(
                f"{flag.get(d, 'hydra.searchpath')} {d}: the config folder {what}; give the "
                "folder that holds your dataset/, reducer/ and experiment/ configs"
            )


def _check_groups(overrides: list[str], extra_dirs: list[Path] = ()) -> list:
    """Check group choices (dataset=, reducer=, experiment=, sweeps too) against kmdr's configs
    and ``extra_dirs``; return the parsed overrides."""
    parsed = _parse(overrides)
    for ov in parsed:
        group = ov.key_or_group.lstrip("/")
        if group not in GROUPS or ov.is_delete():
            continue
        values = list(ov.sweep_string_iterator()) if ov.is_sweep_override() else [ov.value()]
        valid = sorted(
            {
                *group_options(group),
                *(p.stem for d in extra_dirs for p in d.glob(f"{group}/*.yaml")),
            }
        )
        for value in values:
            if value is None or (group != "dataset" and value == "null"):
                continue
            if str(value) not in valid:
                raise UsageError(
                    f"unknown {group} {value!r}; valid {GROUPS[group]}: {', '.join(valid)}"
                )
    return parsed


def _jobs(parsed) -> list[list[str]]:
    """The jobs of a multirun: the product of every sweep's values, as Hydra's basic sweeper
    forms them."""
    choices = []
    for ov in parsed:
        key = ov.get_key_element()
        if not ov.is_sweep_override():
            choices.append([f"{key}={ov.get_value_element_as_str()}"])
        elif ov.is_discrete_sweep():
            choices.append([f"{key}={value}" for value in ov.sweep_string_iterator()])
        else:
            raise UsageError(
                f"{ov.input_line}: interval sweeps need a sweeper plugin (hydra/sweeper=...); "
                "give a list of values (a,b,c) or range(start,stop,step)"
            )
    return [list(job) for job in itertools.product(*choices)]


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
            message = str(err)  # a DatasetError already names the dataset
            if not message.startswith(f"dataset {spec.dataset!r}"):
                message = f"dataset {spec.dataset!r}: {message}"
            raise UsageError(message) from None
    return _DATA_CACHE[key]


def _compose(config_name: str, overrides: list[str], prefix: str = ""):
    """Hydra's compose with the hydra node; any config error (a YAML syntax error too) as a
    :class:`UsageError` of one line."""
    from hydra import compose
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from kmdr.config.presets import yaml_problem
    from kmdr.config.schema import one_line

    try:
        return compose(config_name, overrides=overrides, return_hydra_config=True)
    except (HydraException, OmegaConfBaseException) as err:
        raise UsageError(f"{prefix}{yaml_problem(err.__cause__) or one_line(err)}") from None
    except Exception as err:
        problem = yaml_problem(err)
        if problem is None:
            raise
        raise UsageError(f"{prefix}{problem}") from None


def own_folder(cfg, choices, config_name: str, overrides: list[str]) -> str | None:
    """A run of a preset that changes what the preset fixes gets a folder of its own
    (:func:`kmdr.config.presets.own_folder`; ``cfg`` is changed in place). The preset is
    composed alone, with the command's config search path, to compare; returns the line that
    announces the change, or None."""
    from kmdr.config.presets import own_folder as _own

    preset = choices.get("experiment")
    if not preset:
        return None
    search = [o for o in overrides if o.lstrip("+~").startswith("hydra.searchpath")]
    return _own(cfg, _compose(config_name, [f"experiment={preset}", *search]))


def validate(argv: list[str]) -> None:
    """Compose and check every job of the command line; raise :class:`UsageError` on the first
    problem. Hydra's own commands are not checked."""
    from omegaconf import open_dict

    from kmdr.config.spec import check_against_data, spec_from_config
    from kmdr.run.parallel import start_workers_for_config

    args = _args_parser().parse_args(argv)
    if any(getattr(args, flag) for flag in _HYDRA_ONLY):
        return
    check_data = args.cfg is None
    config_name = args.config_name or "config"
    with initialized():
        extra = _search_dirs(_parse(args.overrides), None)
        flags = {}
        if args.config_dir:
            folder = Path(args.config_dir).expanduser().resolve()
            flags[folder] = "-cd"
            _check_folders([folder], flags)
        _check_folders(extra, flags)
        if args.config_dir and not extra:  # compose as Hydra will run: with -cd's folder
            extra = [Path(args.config_dir).expanduser().resolve()]
            args.overrides = [*args.overrides, f"hydra.searchpath=[file://{extra[0]}]"]
        parsed = _check_groups(args.overrides, extra)
        jobs = _jobs(parsed) if args.multirun else [list(args.overrides)]
        swept = [i for i, ov in enumerate(parsed) if ov.is_sweep_override()]
        for overrides in jobs:
            prefix = ""
            if len(jobs) > 1:  # name the job by its swept values
                prefix = f"[job {' '.join(overrides[i] for i in swept)}] "
            cfg = _compose(config_name, overrides, prefix)
            choices = dict(cfg.hydra.runtime.choices)
            with open_dict(cfg):
                del cfg["hydra"]
            moved = own_folder(cfg, choices, config_name, overrides)
            if moved and not check_data:  # --cfg prints the config as composed: say where it runs
                print(moved, file=sys.stderr, flush=True)
            if check_data and not args.multirun:
                # The one run of this command: its workers start and import now, while this
                # process checks the config and loads the data (the run reuses them).
                start_workers_for_config(cfg)
            try:
                spec = spec_from_config(cfg, only_reducer=_only_reducer(choices))
                if not check_data:
                    continue
                data = load_for(spec)
                if not isinstance(data, Exception):
                    X = data.X
                    check_against_data(spec, X.shape[0], X.shape[1], int(data.n_clusters))
            except (ConfigError, UsageError) as err:
                raise UsageError(f"{prefix}{err}") from None


def _launcher_jobs(hc) -> int:
    """How many jobs the Hydra launcher runs at once on this machine (1 unless it is the joblib
    launcher, whose ``n_jobs`` jobs share the cores)."""
    from hydra.types import RunMode

    launcher = hc.launcher
    if hc.mode != RunMode.MULTIRUN or "JoblibLauncher" not in str(launcher.get("_target_", "")):
        return 1
    import joblib

    n_jobs = launcher.get("n_jobs") or -1
    return n_jobs if n_jobs > 0 else max(1, joblib.cpu_count() + 1 + n_jobs)


def _task(cfg) -> None:
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    from kmdr.config.schema import to_container
    from kmdr.config.spec import spec_from_config
    from kmdr.run.parallel import BackendError
    from kmdr.run.runner import run_experiment

    hc = HydraConfig.get()
    multirun = hc.mode == RunMode.MULTIRUN
    try:
        moved = own_folder(cfg, dict(hc.runtime.choices), hc.job.config_name, [*hc.overrides.hydra])
    except UsageError as err:
        _fail(str(err))
    if moved:
        print(moved, file=sys.stderr, flush=True)
    kept = f"finished cells are kept under {Path(cfg.results_dir) / cfg.name}"
    try:
        spec = spec_from_config(cfg, only_reducer=_only_reducer(dict(hc.runtime.choices)))
        config = to_container(cfg)
        config["choices"] = {k: v for k, v in hc.runtime.choices.items() if "/" not in k}
        config["overrides"] = list(hc.overrides.task)
        data = load_for(spec)
        outcome = run_experiment(
            spec, dataset=data, config=config, launcher_jobs=_launcher_jobs(hc)
        )
    except (ConfigError, UsageError) as err:
        _fail(str(err))
    except BackendError as err:
        _fail(f"{err}; {kept}", status=1)
    except KeyboardInterrupt as err:
        print(
            f"kmdr: {signals.describe(err)}; {kept}: run the same command to resume",
            file=sys.stderr,
            flush=True,
        )
        sys.exit(signals.exit_status(err))
    except Exception as err:  # a failure inside a cell: one line, the run record has it too
        _fail(
            f"{cfg.name} failed ({type(err).__name__}: {' '.join(str(err).split())}); {kept}",
            status=1,
        )
    if outcome.status == "dry_run":
        return
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
    # SIGTERM and SIGHUP stop a run as Ctrl-C does (kmdr.run.signals).
    with signals.stop_on_signals():
        try:
            path = config_path()
            validate(argv)
            hydra.main(config_path=path, config_name="config", version_base=None)(_task)()
        except (UsageError, ConfigError) as err:
            _fail(str(err))
        except KeyboardInterrupt as err:  # before a run started (e.g. loading the data)
            print(
                f"kmdr: {signals.describe(err)} before any cell was computed",
                file=sys.stderr,
                flush=True,
            )
            sys.exit(signals.exit_status(err))


if __name__ == "__main__":  # pragma: no cover
    main()
