"""An experiment's configuration, checked once, before anything runs.

:func:`spec_from_config` turns the Hydra config (or any mapping with the same keys) into an
:class:`ExperimentSpec`. Keys, types and enumerations are the schema's job
(:mod:`kmdr.config.schema`; a plain mapping is merged into it here, so it gets the same
checks as a composed config); this module checks what a type cannot say: ranges, the reducers
and their parameters (through :func:`kmdr.reducers.make_reducer`), ``backend_params`` against
:func:`joblib.parallel_config`; :func:`check_against_data` checks the r-grid against the data's
shape. Both raise :class:`ConfigError` with ONE line that says what is wrong and lists the valid
choices, so the CLI can print it and exit before computing anything.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from kmdr.config.kinds import KINDS as _KINDS

__all__ = [
    "FIRST_OF_CLASS",
    "KINDS",
    "KMEANS_INITS",
    "ConfigError",
    "ExperimentSpec",
    "KMeansSpec",
    "ReducerSpec",
    "check_against_data",
    "check_results_dir",
    "spec_from_config",
    "validated",
]

KINDS: tuple[str, ...] = tuple(_KINDS)
#: kmeans.init choices: kmdr.cluster's names, and the label-informed start of interfaces §5 (the
#: runner passes the first point of each class as the initial centers).
FIRST_OF_CLASS = "first_of_class"
KMEANS_INITS = ("k-means++", "random", "sample", FIRST_OF_CLASS)
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
#: An experiment's name is a folder under results_dir: one path component, no separator, never
#: ``.`` or ``..``. ``+`` and ``=`` are allowed for the names of presets run with a changed
#: protocol (``bzmd14_orl+dataset=coil20``, :func:`kmdr.config.presets.own_folder`).
_FOLDER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+=-]*$")


class ConfigError(ValueError):
    """A configuration that cannot run; the message is one line with the valid choices."""


@dataclass(frozen=True)
class ReducerSpec:
    """One reducer of an experiment: ``id`` (unique in the experiment, the CSV's ``reducer``),
    ``name`` (registry name), ``label`` (the papers' name, the CSV's ``method``), ``params``."""

    id: str
    name: str
    label: str
    params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class KMeansSpec:
    n_init: int = 5
    max_iter: int = 500
    init: str = "k-means++"
    tol: float = 0.0


@dataclass(frozen=True)
class ExperimentSpec:
    """Everything a run needs (see :class:`kmdr.config.schema.RunConfig` for each field).

    ``preset`` is the preset block (interfaces §3) with every key set (enums as strings).
    """

    name: str
    dataset: str
    dataset_params: dict
    reducers: tuple[ReducerSpec, ...]
    r_grid: tuple[int, ...]
    repeats: int
    seed: int
    kmeans: KMeansSpec
    kind: str = "cells"
    aggregation: str = "mean"
    leverage_reducer: str = "leverage"
    leverage_r: int = 30
    n_jobs: int = 1
    backend: str = "loky"
    backend_params: dict = field(default_factory=dict)
    blas_threads: int | None = None
    results_dir: str = "results"
    data_dir: str | None = None
    claim_timeout: float = 300.0
    figures: bool = True
    progress: bool = True
    dry_run: bool = False
    dask_scheduler: str | None = None
    ray_address: str | None = None
    preset: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


def _choices(values) -> str:
    return ", ".join(str(v) for v in values)


def _at_least(value: int, name: str, low: int) -> int:
    if value < low:
        raise ConfigError(f"{name} must be >= {low}, got {value}")
    return int(value)


#: The largest base seed: cells.csv keeps it in a signed 64-bit column.
MAX_SEED = 2**63 - 1


def _seed(value: int) -> int:
    if not 0 <= value <= MAX_SEED:
        raise ConfigError(f"seed must be an integer from 0 to 2**63-1 ({MAX_SEED}), got {value}")
    return int(value)


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())


def validated(cfg) -> dict:
    """``cfg`` (a DictConfig or a mapping) merged into the schema, as plain Python.

    Unknown keys (also those a ``+key=`` override added), wrong types and values outside an
    enumeration raise :class:`ConfigError`. ``quick_grid`` is checked against the schema too, and
    merged over the config when ``quick`` is true. A ``hydra`` node is ignored.
    """
    from omegaconf import DictConfig, OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    from kmdr.config.schema import RunConfig, one_line, to_container

    if isinstance(cfg, DictConfig):
        cfg = OmegaConf.to_container(cfg, resolve=True, enum_to_str=True)
    cfg = {k: v for k, v in dict(cfg).items() if k != "hydra"}
    try:
        merged = OmegaConf.merge(OmegaConf.structured(RunConfig), cfg)
        quick_grid = OmegaConf.to_container(merged.quick_grid)
        # A typo in a preset's reduced grid fails whether or not --quick is asked for.
        with_quick = OmegaConf.merge(merged, quick_grid)
    except OmegaConfBaseException as err:
        raise ConfigError(one_line(err)) from None
    out = to_container(with_quick if merged.quick else merged)
    out["quick_grid"] = quick_grid  # on record as given, not merged into itself
    return out


def _reducers(raw: list[dict], only: str | None) -> tuple[ReducerSpec, ...]:
    from kmdr.reducers import (
        available_reducers,
        canonical_reducer,
        make_reducer,
        reducer_label,
        unusable_plugin,
    )

    names = available_reducers()
    if not raw:
        raise ConfigError(
            f"reducers must be a non-empty list; pick one with reducer=<name>, one of: "
            f"{_choices(names)}"
        )
    specs = []
    for entry in raw:
        name = canonical_reducer(entry["name"])  # an alias is stored as the name it means
        if name not in names or unusable_plugin(name):  # a plug-in is loaded to be checked
            raise ConfigError(
                unusable_plugin(name)
                or f"unknown reducer {name!r}; valid reducers: {_choices(names)}"
            )
        rid = str(entry.get("id") or name)
        if not _NAME_RE.match(rid):
            raise ConfigError(f"reducer id {rid!r} must match {_NAME_RE.pattern}")
        label = str(entry.get("label") or reducer_label(name))
        specs.append(ReducerSpec(rid, name, label, dict(entry.get("params") or {})))
    ids = [s.id for s in specs]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ConfigError(f"reducer ids must be unique in an experiment; repeated: {_choices(dup)}")
    if only is not None:
        specs = [s for s in specs if only in (s.name, s.id)]
        if not specs:
            raise ConfigError(
                f"reducer={only} is not part of this experiment; its reducers are: "
                f"{_choices(sorted({entry['name'] for entry in raw}))}"
            )
    # Every reducer accepts its params, of the right type and in range (a typo fails here, not
    # in a worker): the reducer's own parameter constraints, checked with a valid r and k.
    for s in specs:
        try:
            params = dict(s.params)
            k = params.pop("n_clusters", 2)
            make_reducer(s.name, 1, n_clusters=k, **params)._validate_params()
        except (TypeError, ValueError) as err:
            raise ConfigError(f"reducer {s.id!r}: {_one_line(err)}") from None
    return tuple(specs)


def _backend_params(params: dict) -> dict:
    """``backend_params`` are keyword arguments of :func:`joblib.parallel_config`."""
    import inspect

    import joblib

    own = {"backend": "backend=", "n_jobs": "n_jobs="}
    accepted = [
        p.name
        for p in inspect.signature(joblib.parallel_config).parameters.values()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in own
    ]
    for key in params:
        if key in own:
            raise ConfigError(f"backend_params.{key}: set it with {own[key]}<value> instead")
        if key not in accepted:
            raise ConfigError(
                f"unknown backend_params key {key!r}; valid keys (joblib.parallel_config): "
                f"{_choices(accepted)}"
            )
    return dict(params)


def spec_from_config(cfg, *, only_reducer: str | None = None) -> ExperimentSpec:
    """Check ``cfg`` (a DictConfig or mapping, see :class:`~kmdr.config.schema.RunConfig`)
    and return the spec.

    ``only_reducer``: keep only the reducers of that registry name or id (``kmdr
    experiment=X reducer=sign``). With ``quick: true`` the ``quick_grid`` mapping is merged over
    the config first (the reduced grids of ``scripts/reproduce.py --quick``).
    """
    from kmdr.datasets import DATASETS

    c = validated(cfg)
    name = c["name"]
    if not _FOLDER_RE.match(name) or ".." in name:
        raise ConfigError(
            f"name must be one folder name (letters, digits and _ . + = -, starting with a "
            f"letter or digit, no path separator, no '..'), got {name!r}"
        )
    kind = c["kind"]
    if kind not in KINDS:
        raise ConfigError(f"unknown kind {kind!r}; valid kinds: {_choices(KINDS)}")
    ds_name = c["dataset"]["name"]
    if ds_name == "???":  # OmegaConf's mark of a value never set (a deleted ~dataset)
        raise ConfigError(
            f"no dataset is set; choose one with dataset=<name>: {_choices(DATASETS)}"
        )
    if ds_name not in DATASETS.names():  # a plug-in that fails to load is named when run
        from kmdr.datasets import plugin_clash

        # A name two plug-ins declare is no dataset: say which packages clash.
        clash = plugin_clash(ds_name)
        raise ConfigError(
            clash or f"unknown dataset {ds_name!r}; valid datasets: {_choices(DATASETS)}"
        )

    reducers = _reducers(c["reducers"], only_reducer) if kind == "cells" else ()
    grid: tuple[int, ...] = ()
    if kind in ("cells", "sampling_lemma"):  # the kinds that sweep r
        if not c["r_grid"]:
            raise ConfigError("r_grid must be a non-empty list of positive integers, got []")
        bad = [g for g in c["r_grid"] if g < 1]
        if bad:
            raise ConfigError(f"r_grid must hold positive integers only; invalid: {_choices(bad)}")
        grid = tuple(sorted(set(c["r_grid"])))

    km = c["kmeans"]
    if km["init"] not in KMEANS_INITS:
        raise ConfigError(f"unknown kmeans.init {km['init']!r}; valid: {_choices(KMEANS_INITS)}")
    if km["tol"] < 0:
        raise ConfigError(f"kmeans.tol must be a number >= 0, got {km['tol']!r}")
    from kmdr.cluster import INITS

    kmeans = KMeansSpec(
        n_init=_at_least(km["n_init"], "kmeans.n_init", 1),
        max_iter=_at_least(km["max_iter"], "kmeans.max_iter", 1),
        # 'sample' (MATLAB's old name) is random; first_of_class is the runner's to resolve.
        init=str(INITS.get(km["init"], km["init"])),
        tol=float(km["tol"]),
    )
    if c["n_jobs"] == 0:
        raise ConfigError(
            "n_jobs must be a positive number of workers or negative (-1: all cores), got 0"
        )
    blas = c["blas_threads"]
    data_dir = c["data_dir"]
    return ExperimentSpec(
        name=name,
        dataset=ds_name,
        dataset_params=dict(c["dataset"]["params"]),
        reducers=reducers,
        r_grid=grid,
        repeats=_at_least(c["repeats"], "repeats", 1),
        seed=_seed(c["seed"]),
        kmeans=kmeans,
        kind=kind,
        aggregation=c["aggregation"],
        leverage_reducer=c["leverage"]["reducer"],
        leverage_r=_at_least(c["leverage"]["r"], "leverage.r", 1),
        n_jobs=int(c["n_jobs"]),
        backend=c["backend"],
        backend_params=_backend_params(c["backend_params"]),
        blas_threads=None if blas is None else _at_least(blas, "blas_threads", 1),
        results_dir=check_results_dir(c["results_dir"]),
        data_dir=None if data_dir in (None, "") else str(data_dir),
        claim_timeout=_positive_seconds(c["claim_timeout"], "claim_timeout"),
        figures=c["figures"],
        progress=c["progress"],
        dry_run=c["dry_run"],
        dask_scheduler=c["dask"]["scheduler"],
        ray_address=c["ray"]["address"],
        preset=dict(c["preset"]),
    )


def check_results_dir(results_dir: str) -> str:
    """``results_dir`` if results can be written under it, else a one-line :class:`ConfigError`.

    An empty value is refused rather than read as the default (``results``, the committed
    record): a forgotten value never writes there. The folder may not exist yet; then its
    nearest existing parent must be a writable folder.
    """
    import os
    from pathlib import Path

    text = str(results_dir)
    if not text.strip():
        raise ConfigError(
            "results_dir is empty; give the folder the results go to, e.g. "
            "results_dir=my_results (results_dir=results is the committed record)"
        )
    path = Path(text).expanduser()
    if path.exists() and not path.is_dir():
        raise ConfigError(f"results_dir={text} is a file, not a folder; give a folder")
    existing = path.absolute()
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise ConfigError(
            f"results_dir={text} cannot be created: {existing} is a file; give a folder"
        )
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(
            f"results_dir={text} is not writable ({existing} does not let you create files); "
            "give a folder you can write to"
        )
    return text


def _positive_seconds(value, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigError(f"{key} must be a number of seconds > 0, got {value!r}")
    return float(value)


def check_against_data(
    spec: ExperimentSpec, n_samples: int, n_features: int, n_clusters: int
) -> None:
    """Check every (reducer, r) of ``spec`` can run on n_samples x n_features data with k
    clusters; raise a one-line :class:`ConfigError` naming the valid range otherwise."""
    from kmdr.reducers import max_components

    shape = f"n={n_samples}, d={n_features}, k={n_clusters}"
    if spec.kind in ("leverage_scores", "sampling_lemma"):
        if n_clusters > min(n_samples, n_features):
            raise ConfigError(
                f"k={n_clusters} is too large for leverage scores on {spec.dataset} ({shape})"
            )
        return
    for red in spec.reducers:
        if red.name == "none":
            continue
        params = dict(red.params)
        if "n_clusters" not in params:
            params["n_clusters"] = n_clusters
        try:
            top = max_components(red.name, n_samples, n_features, **params)
        except (TypeError, ValueError) as err:
            raise ConfigError(f"reducer {red.id!r}: {_one_line(err)}") from None
        if top is not None:
            too_big = [r for r in spec.r_grid if r > top]
            if too_big:
                raise ConfigError(
                    f"r = {_choices(too_big)} is too large for reducer {red.id!r} on "
                    f"{spec.dataset} ({shape}); valid r for it: 1..{top}"
                )
        if red.name.startswith("leverage") and n_clusters > min(n_samples, n_features):
            raise ConfigError(
                f"reducer {red.id!r} needs k <= min(n, d) on {spec.dataset} ({shape})"
            )
