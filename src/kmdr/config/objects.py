"""The run's configuration objects: the composed config, checked once, as three frozen objects.

:func:`from_config` turns a composed config (or any mapping with the same keys, see
:class:`~kmdr.config.schema.RunConfig`) into one :class:`Configured`, the three objects a run
reads, one per concern:

* :class:`Experiment`: what is computed, everything in a cell's identity (dataset and its
  parameters, reducers, r grid, repetitions, seed, the k-means protocol, ``blas_threads``) and what
  the experiment is (name, kind, aggregation, the preset block);
* :class:`Execution`: how it runs (workers, the joblib backend and its parameters, the cluster's
  address, how long to wait for a cell another run holds, where data files are cached);
* :class:`Output`: what is written and said (the results folder, figures, the progress bar,
  verbosity, a dry run that writes nothing).

The one way from what the user gave to these objects, for the command line, ``kmdr.run``,
:meth:`Experiment.preset` and ``make reproduce``: :func:`checked` takes what Hydra composed for one
job (the config and its Hydra config) and returns a :class:`Composed` (the three objects, the
resolved config a run records, and the line saying that a run of a preset which changes what the
preset fixes got a folder of its own); :func:`compose_overrides` composes override strings with
Hydra's Compose API against the same primary config and schema, and hands the result to
:func:`checked`.

The schema validates keys, types and enumerations (:func:`~kmdr.config.checks.validated`); each
object checks its own fields when it is constructed, so one built or changed in Python is held to
the same rules, with the same one-line :class:`ConfigError` naming the problem and the valid
choices, raised before anything runs. The objects' parts are the schema's
own dataclasses (:class:`~kmdr.config.schema.ReducerConfig` with its id and label resolved,
:class:`~kmdr.config.schema.KMeansConfig` with MATLAB's ``sample`` read as ``random``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import NamedTuple

from kmdr.config import checks
from kmdr.config.checks import reducer_grid
from kmdr.config.compose import compose_primary, only_reducer, own_folder
from kmdr.config.errors import ConfigError
from kmdr.config.kinds import KINDS
from kmdr.config.schema import KMeansConfig, ReducerConfig

__all__ = [
    "CONFIG_KEYS",
    "FIRST_OF_CLASS",
    "KMEANS_INITS",
    "Composed",
    "ConfigError",
    "Configured",
    "Execution",
    "Experiment",
    "Output",
    "check_together",
    "checked",
    "compose_job",
    "compose_overrides",
    "flat_dict",
    "from_config",
    "reducer_grid",
]

#: kmeans.init choices: kmdr.cluster's names, and the label-informed start (the runner passes the
#: first point of each class as the initial centers).
FIRST_OF_CLASS = "first_of_class"
KMEANS_INITS = ("k-means++", "random", "sample", FIRST_OF_CLASS)


@dataclass(frozen=True)
class Experiment:
    """What a run computes: everything in its cells' identity, and what the experiment is.

    Each field is the :class:`~kmdr.config.schema.RunConfig` key of the same name, except
    ``dataset``/``dataset_params`` (``dataset.name``/``dataset.params``),
    ``leverage_reducer``/``leverage_r`` (``leverage.reducer``/``leverage.r``) and
    ``preset_settings`` (``preset``). Built by :func:`from_config`; for a notebook,
    :meth:`preset` and :meth:`from_overrides` compose one as the command line does.
    """

    name: str
    dataset: str
    dataset_params: dict
    reducers: tuple[ReducerConfig, ...]
    r_grid: tuple[int, ...]
    repeats: int
    seed: int
    kmeans: KMeansConfig
    kind: str = "cells"
    aggregation: str = "mean"
    leverage_reducer: str = "leverage"
    leverage_r: int = 30
    #: BLAS/OpenMP threads per worker: part of every cell's identity.
    blas_threads: int = 1
    #: The preset block (``preset`` in the config: paper, title, figure, section, order,
    #: reproduce, note), every key set, enums as strings.
    preset_settings: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Check every field (a one-line :class:`ConfigError`), as the command line checks its
        config: an Experiment built or changed in Python (``dataclasses.replace``) is held to
        the same rules. The r-grid is kept sorted without repeats, each reducer's id and label
        resolved (the registry's), MATLAB's ``kmeans.init=sample`` read as ``random``."""
        from kmdr.config.schema import Aggregation, LeverageReducer

        checks.folder_name(self.name)
        checks.one_of(self.kind, "kind", KINDS, "kinds")
        _set(self, "dataset", _dataset(self.dataset))
        if not isinstance(self.dataset_params, Mapping):
            raise ConfigError(f"dataset_params must be a mapping, got {self.dataset_params!r}")
        _set(self, "r_grid", _r_grid(self.kind, self.r_grid))
        _set(self, "reducers", _reducers(self.kind, self.reducers, self.r_grid))
        checks.at_least(self.repeats, "repeats", 1)
        checks.seed(self.seed)
        _set(self, "kmeans", _kmeans(self.kmeans))
        _set(
            self,
            "aggregation",
            checks.one_of(self.aggregation, "aggregation", _values(Aggregation)),
        )
        reducer = checks.one_of(self.leverage_reducer, "leverage.reducer", _values(LeverageReducer))
        _set(self, "leverage_reducer", reducer)
        checks.at_least(self.leverage_r, "leverage.r", 1)
        checks.at_least(self.blas_threads, "blas_threads", 1)
        if not isinstance(self.preset_settings, Mapping):
            raise ConfigError(f"preset_settings must be a mapping, got {self.preset_settings!r}")
        if self.preset_settings:
            from kmdr.config.schema import PresetConfig

            defaults = asdict(PresetConfig())
            checks.check_preset({k: self.preset_settings.get(k, defaults[k]) for k in defaults})

    @classmethod
    def preset(cls, name: str, *overrides: str) -> Experiment:
        """The experiment of preset ``name`` (``conf/experiment/<name>.yaml``), with
        ``overrides`` in the command line's grammar applied over it."""
        return cls.from_overrides([f"experiment={name}", *overrides])

    @classmethod
    def from_overrides(cls, overrides) -> Experiment:
        """The experiment the command line would run with ``overrides`` (a str or a list of
        them, e.g. ``["experiment=bzmd14_orl", "repeats=1"]``), composed and checked as it
        checks them (a :class:`ConfigError` of one line otherwise)."""
        return compose_overrides(overrides).experiment


@dataclass(frozen=True)
class Execution:
    """How a run is executed (each field: the :class:`~kmdr.config.schema.RunConfig` key of the
    same name; ``dask_scheduler`` and ``ray_address`` are ``dask.scheduler`` and
    ``ray.address``). Nothing here changes a cell's numbers.

    ``warmup``: start the worker pool (or dask LocalCluster) in the background while the data
    loads (:class:`kmdr.engine.session.Session`); off, it starts when the first job needs it.

    ``block_rows``: rows per block of one cell's data, reduced on the dask workers block by block
    (:mod:`kmdr.engine.chunked`); None holds each cell's whole matrix in one process.

    ``cell_time_limit``: seconds one cell may take (its share of shared work, reduction and
    clustering); a cell past it is stopped and recorded as timed out, the others go on
    (:mod:`kmdr.engine.sweep`). None: no limit.
    """

    n_jobs: int = -1
    backend: str = "loky"
    backend_params: dict = field(default_factory=dict)
    dask_scheduler: str | None = None
    ray_address: str | None = None
    claim_timeout: float = 300.0
    data_dir: str | None = None
    warmup: bool = True
    block_rows: int | None = None
    cell_time_limit: float | None = None

    def __post_init__(self) -> None:
        """Check every field (a one-line :class:`ConfigError`), as the command line does."""
        from kmdr.config.schema import Backend

        if checks.integer(self.n_jobs, "n_jobs") == 0:
            raise ConfigError(
                "n_jobs must be a positive number of workers or negative (-1: all cores), got 0"
            )
        _set(self, "backend", checks.one_of(self.backend, "backend", _values(Backend)))
        _set(self, "backend_params", checks.backend_params(self.backend_params))
        checks.optional_text(self.dask_scheduler, "dask.scheduler")
        checks.optional_text(self.ray_address, "ray.address")
        _set(self, "claim_timeout", checks.positive_seconds(self.claim_timeout, "claim_timeout"))
        checks.optional_text(self.data_dir, "data_dir")
        if self.data_dir == "":
            _set(self, "data_dir", None)
        checks.boolean(self.warmup, "warmup")
        if self.block_rows is not None and checks.integer(self.block_rows, "block_rows") < 1:
            raise ConfigError(f"block_rows must be >= 1 (rows per block), got {self.block_rows}")
        if self.cell_time_limit is not None:
            limit = checks.positive_seconds(self.cell_time_limit, "cell_time_limit")
            _set(self, "cell_time_limit", limit)
            _time_limit_backend(self)


@dataclass(frozen=True)
class Output:
    """What a run writes and says (each field: the :class:`~kmdr.config.schema.RunConfig` key
    of the same name)."""

    results_dir: str = "results"
    figures: bool = True
    progress: bool | None = None
    progress_every: float = 30.0
    verbosity: str = "normal"
    dry_run: bool = False

    def __post_init__(self) -> None:
        """Check every field (a one-line :class:`ConfigError`), as the command line does; the
        results folder must be one results can be written under
        (:func:`~kmdr.config.checks.check_results_dir`)."""
        from kmdr.config.schema import Verbosity

        _set(self, "results_dir", checks.check_results_dir(self.results_dir))
        checks.boolean(self.figures, "figures")
        if self.progress is not None:
            checks.boolean(self.progress, "progress")
        _set(self, "progress_every", checks.positive_seconds(self.progress_every, "progress_every"))
        _set(self, "verbosity", checks.one_of(self.verbosity, "verbosity", _values(Verbosity)))
        checks.boolean(self.dry_run, "dry_run")


#: The config key (:class:`~kmdr.config.schema.RunConfig`) each field of the three objects holds,
#: where it is not the field's own name.
CONFIG_KEYS = {
    "dataset": "dataset.name",
    "dataset_params": "dataset.params",
    "leverage_reducer": "leverage.reducer",
    "leverage_r": "leverage.r",
    "preset_settings": "preset",
    "dask_scheduler": "dask.scheduler",
    "ray_address": "ray.address",
}


def _from_keys(cls, config: dict):
    """``cls`` (Execution or Output) built from a checked config's keys, field by field."""

    def value(path: str):
        node = config
        for part in path.split("."):
            node = node[part]
        return node

    return cls(**{f.name: value(CONFIG_KEYS.get(f.name, f.name)) for f in fields(cls)})


class Configured(NamedTuple):
    """The three objects of one run, as :func:`from_config` builds them."""

    experiment: Experiment
    execution: Execution
    output: Output


def flat_dict(experiment: Experiment, execution: Execution, output: Output) -> dict:
    """The three objects as one flat mapping of their fields, as a run record keeps them (its
    ``spec``: the values a run used after the checks)."""
    out = {}
    for obj in (experiment, execution, output):
        values = asdict(obj)
        out.update({f.name: values[f.name] for f in fields(obj)})
    out["preset"] = out.pop("preset_settings")
    return out


def _set(obj, name: str, value) -> None:
    """Set a field of a frozen object while it is constructed (its normalised value)."""
    object.__setattr__(obj, name, value)


def _values(enum) -> tuple[str, ...]:
    return tuple(member.value for member in enum)


def _reducer_entries(raw: list[dict], only: str | None) -> tuple[ReducerConfig, ...]:
    """A config's reducer entries (alias names stored as the names they mean), only those of
    the registry name or id ``only`` when it is given."""
    from kmdr.reducers import canonical_reducer

    specs = tuple(
        ReducerConfig(
            canonical_reducer(entry["name"]),
            entry.get("id"),
            entry.get("label"),
            dict(entry.get("params") or {}),
            entry.get("max_r"),
            entry.get("seed_from"),
        )
        for entry in raw
    )
    if only is not None and raw:
        kept = tuple(s for s in specs if only in (s.name, s.id or s.name))
        if not kept:
            raise ConfigError(
                f"reducer={only} is not part of this experiment; its reducers are: "
                f"{checks.choices(sorted({entry['name'] for entry in raw}))}"
            )
        return kept
    return specs


def _reducers(kind: str, reducers, r_grid: tuple[int, ...]) -> tuple[ReducerConfig, ...]:
    """The reducers of an experiment of ``kind``, each with its id and label resolved from the
    registry's facts (no class imported), checked: known names, unique ids, a ``max_r`` that
    keeps some r of the grid."""
    from kmdr.reducers import available_reducers, reducer_label, unusable_plugin

    if kind != "cells":
        return ()
    names = available_reducers()
    if isinstance(reducers, str | Mapping) or not reducers:
        raise ConfigError(
            f"reducers must be a non-empty list; pick one with reducer=<name>, one of: "
            f"{checks.choices(names)}"
        )
    specs = []
    for red in reducers:
        if not isinstance(red, ReducerConfig):
            raise ConfigError(f"a reducer is a kmdr.ReducerConfig, got {red!r}")
        if red.name not in names or unusable_plugin(red.name):
            raise ConfigError(
                unusable_plugin(red.name)
                or f"unknown reducer {red.name!r}; valid reducers: {checks.choices(names)}"
            )
        rid = checks.reducer_id(str(red.id or red.name))
        label = str(red.label or reducer_label(red.name))
        max_r = red.max_r
        if max_r is not None:
            max_r = checks.at_least(max_r, f"reducers.{rid}.max_r", 1)
        if not isinstance(red.params, Mapping):
            raise ConfigError(f"reducers.{rid}.params must be a mapping, got {red.params!r}")
        seed_from = checks.optional_text(red.seed_from, f"reducers.{rid}.seed_from")
        specs.append(ReducerConfig(red.name, rid, label, dict(red.params), max_r, seed_from))
    ids = [s.id for s in specs]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ConfigError(
            f"reducer ids must be unique in an experiment; repeated: {checks.choices(dup)}"
        )
    _check_seed_from(specs)
    empty = [red.id for red in specs if not reducer_grid(r_grid, red.max_r)]
    if empty:
        raise ConfigError(
            f"max_r of reducer(s) {checks.choices(empty)} is below every r of r_grid="
            f"{list(r_grid)}: raise max_r or add a smaller r to r_grid"
        )
    return tuple(specs)


def _check_seed_from(specs: list[ReducerConfig]) -> None:
    """Each ``seed_from`` names another reducer of the experiment that takes its own seeds."""
    own = {s.id: s.seed_from for s in specs}
    for spec in specs:
        source = spec.seed_from
        if source is None:
            continue
        if source == spec.id or source not in own:
            others = checks.choices(sorted(i for i in own if i != spec.id))
            raise ConfigError(
                f"reducers.{spec.id}.seed_from={source!r} must be the id of another reducer of "
                f"this experiment, one of: {others}"
            )
        if own[source] is not None:
            raise ConfigError(
                f"reducers.{spec.id}.seed_from={source!r} names a reducer that takes its seeds "
                f"from {own[source]!r}: name {own[source]!r} instead"
            )


def _dataset(name: str) -> str:
    from kmdr.datasets import DATASETS

    if name == "???":  # OmegaConf's mark of a value never set (a deleted ~dataset)
        raise ConfigError(
            f"no dataset is set; choose one with dataset=<name>: {checks.choices(DATASETS)}"
        )
    if not isinstance(name, str) or name not in DATASETS.names():
        from kmdr.datasets import plugin_clash

        # A name two plug-ins declare is no dataset: say which packages clash.
        clash = plugin_clash(name) if isinstance(name, str) else None
        raise ConfigError(
            clash or f"unknown dataset {name!r}; valid datasets: {checks.choices(DATASETS)}"
        )
    return name


def _dataset_params(name: str, params) -> dict:
    """The dataset's parameters as cells record them, checked before any work (a generator's
    declared parameters: :func:`kmdr.datasets.recorded_params`)."""
    from kmdr.datasets import DatasetError, recorded_params

    try:
        return recorded_params(name, params)
    except DatasetError as err:
        raise ConfigError(str(err)) from None


def _r_grid(kind: str, grid) -> tuple[int, ...]:
    if kind not in ("cells", "sampling_lemma"):  # the kinds that sweep r
        return ()
    if isinstance(grid, str) or not grid:
        raise ConfigError(f"r_grid must be a non-empty list of positive integers, got {grid!r}")
    bad = [g for g in grid if isinstance(g, bool) or not isinstance(g, int) or g < 1]
    if bad:
        invalid = checks.choices(bad)
        raise ConfigError(f"r_grid must hold positive integers only; invalid: {invalid}")
    return tuple(sorted({int(g) for g in grid}))


def _blas_threads(threads: int, backend: str, n_jobs: int) -> None:
    """``blas_threads``, checked against the backend that runs the workers.

    The threading backend's workers are threads of one process, which share its BLAS thread count
    (scikit-learn's k-means sets it to one while it runs): with more than one thread per worker, a
    cell's numbers would depend on what the other threads are computing at that moment.
    """
    if threads > 1 and backend == "threading" and n_jobs != 1:
        raise ConfigError(
            f"blas_threads={threads} with backend=threading and n_jobs={n_jobs}: the workers are "
            "threads of one process sharing one BLAS thread count, so a cell's numbers would "
            "depend on the other threads; use blas_threads=1, n_jobs=1 or backend=loky"
        )


def _time_limit_backend(execution: Execution) -> None:
    """``cell_time_limit`` asks for a backend that can stop a cell: its process's main thread
    (n_jobs=1, loky, multiprocessing) or a worker process the run can replace (dask)."""
    limit = f"cell_time_limit={execution.cell_time_limit:g}"
    if execution.backend == "threading" and execution.n_jobs != 1:
        raise ConfigError(
            f"{limit} with backend=threading: a cell running in a thread cannot be stopped; "
            "use backend=loky (or n_jobs=1)"
        )
    if execution.backend == "ray":
        raise ConfigError(
            f"{limit} with backend=ray: kmdr cannot stop a cell on a Ray worker; use "
            "backend=loky or backend=dask"
        )
    if execution.block_rows is not None:
        raise ConfigError(
            f"{limit} with block_rows: a cell on row blocks is spread over the cluster and "
            "cannot be stopped as one; leave one of them out"
        )


def _kmeans(km) -> KMeansConfig:
    if not isinstance(km, KMeansConfig):
        raise ConfigError(f"kmeans must be a kmdr KMeansConfig, got {km!r}")
    init = checks.one_of(km.init, "kmeans.init", KMEANS_INITS)
    if isinstance(km.tol, bool) or not isinstance(km.tol, int | float) or km.tol < 0:
        raise ConfigError(f"kmeans.tol must be a number >= 0, got {km.tol!r}")
    from kmdr.cluster import INITS

    return KMeansConfig(
        n_init=checks.at_least(km.n_init, "kmeans.n_init", 1),
        max_iter=checks.at_least(km.max_iter, "kmeans.max_iter", 1),
        # 'sample' (MATLAB's old name) is random; first_of_class is the runner's to resolve.
        init=str(INITS.get(init, init)),
        tol=float(km.tol),
        online_phase=checks.boolean(km.online_phase, "kmeans.online_phase"),
    )


def check_together(experiment: Experiment, execution: Execution) -> None:
    """What one object alone cannot tell: ``blas_threads`` against the backend, and
    ``block_rows`` against the experiment's kind and reducers
    (:func:`~kmdr.config.checks.check_block_rows`). A one-line :class:`ConfigError`."""
    _blas_threads(experiment.blas_threads, execution.backend, execution.n_jobs)
    checks.check_block_rows(experiment, execution)


def from_config(cfg, *, only_reducer: str | None = None) -> Configured:
    """Check ``cfg`` (a DictConfig or mapping, see :class:`~kmdr.config.schema.RunConfig`)
    and return the run's :class:`Experiment`, :class:`Execution` and :class:`Output`, each of
    which checks its own fields when constructed.

    ``only_reducer``: keep only the reducers of that registry name or id (``kmdr
    experiment=X reducer=sign``). With ``quick: true`` the ``quick_grid`` mapping is merged over
    the config first (the reduced grids of ``scripts/reproduce.py --quick``). What the objects
    alone cannot tell is checked when they run (:meth:`kmdr.engine.session.Session.run`): the
    experiment against the execution (:func:`check_together`), the reducers' constructor
    parameters (:func:`~kmdr.config.checks.check_reducer_params`), and the r-grid against the
    data once its shape is known (:func:`~kmdr.config.checks.check_against_data`).
    """
    c = checks.validated(cfg)
    kind = c["kind"]  # checked by the Experiment, with every other field
    dataset = _dataset(c["dataset"]["name"])
    experiment = Experiment(
        name=c["name"],
        dataset=dataset,
        dataset_params=_dataset_params(dataset, c["dataset"]["params"]),
        reducers=_reducer_entries(c["reducers"], only_reducer) if kind == "cells" else (),
        r_grid=c["r_grid"],
        repeats=c["repeats"],
        seed=c["seed"],
        kmeans=KMeansConfig(**c["kmeans"]),
        kind=kind,
        aggregation=c["aggregation"],
        leverage_reducer=c["leverage"]["reducer"],
        leverage_r=c["leverage"]["r"],
        blas_threads=c["blas_threads"],
        preset_settings=dict(c["preset"]),
    )
    return Configured(experiment, _from_keys(Execution, c), _from_keys(Output, c))


@dataclass(frozen=True)
class Composed:
    """One job's checked objects, the resolved config its run records, and the line announcing
    that it runs in a folder of its own (None when it does not)."""

    experiment: Experiment
    execution: Execution
    output: Output
    record: dict
    moved: str | None = None

    @property
    def objects(self) -> Configured:
        return Configured(self.experiment, self.execution, self.output)


def checked(cfg, hc) -> Composed:
    """The job ``cfg`` (composed by Hydra; ``hc``: its Hydra config) checked and turned into the
    run's objects, once (see the module docstring). Raises a one-line ConfigError."""
    from kmdr.config.checks import check_given, check_preset
    from kmdr.config.schema import to_container

    choices = dict(hc.runtime.choices)
    # Every setting given is used, or refused: a key given twice, an override of a reducer entry
    # the run filters out, a user config hidden by a built-in of the same name.
    check_given(hc, cfg.get("reducers"), only_reducer(choices))
    preset = {key: cfg.preset[key] for key in ("paper", "figure", "section")}
    moved = own_folder(
        cfg, choices, hc.job.config_name, [*hc.overrides.hydra], [*hc.overrides.task]
    )
    if moved:  # the preset's own metadata, which the changed run dropped for an ad-hoc run's
        check_preset(preset)
    _own_results_dir(cfg, hc.overrides.task)
    objects = from_config(cfg, only_reducer=only_reducer(choices))
    record = to_container(cfg)
    record["choices"] = {k: v for k, v in choices.items() if "/" not in k}
    record["overrides"] = list(hc.overrides.task)
    return Composed(*objects, record=record, moved=moved)


def _own_results_dir(cfg, overrides) -> None:
    """Send a run outside the paper presets (``preset.reproduce: none``) that leaves
    ``results_dir`` at its default to :data:`~kmdr.config.schema.OWN_RESULTS_DIR`: a user's own
    runs never write into the committed ``results/`` (``results_dir=...`` chooses)."""
    from omegaconf import open_dict

    from kmdr.config.overrides import key, parse
    from kmdr.config.schema import RunConfig, default_results_dir

    if cfg.results_dir != RunConfig.results_dir:
        return
    if any(key(o) == "results_dir" for o in parse(overrides)):
        return
    with open_dict(cfg):
        cfg.results_dir = default_results_dir(cfg.preset.reproduce)


def compose_overrides(overrides, caller: str = "this") -> Composed:
    """Compose ``overrides`` (a str or a list of str in the command line's grammar: one job's,
    :func:`kmdr.config.overrides.one_job`) as the command line composes one job, and check it
    (:func:`checked`). ``caller`` names the function in a message about the overrides."""
    from kmdr.config.overrides import one_job

    return compose_job(one_job(overrides, caller))


def compose_job(items: list[str]) -> Composed:
    """:func:`compose_overrides` of overrides already read as one job's."""
    from omegaconf import open_dict, read_write

    from kmdr.config.presets import initialized

    with initialized():
        cfg = compose_primary(items)
        # The job's Hydra config, read from the composed config itself: Hydra's global
        # HydraConfig is the app's (hydra.main sets it), never set here and left behind.
        hc = cfg.hydra
        with read_write(cfg), open_dict(cfg):  # the job's config, as under hydra.main
            del cfg["hydra"]
        return checked(cfg, hc)
