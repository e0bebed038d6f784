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

The schema validates keys, types and enumerations (:func:`~kmdr.config.checks.validated`),
:mod:`kmdr.config.checks` the ranges and names. A problem is a :class:`ConfigError` of one line
naming it and the valid choices, raised before anything runs. The objects' parts are the schema's
own dataclasses (:class:`~kmdr.config.schema.ReducerConfig` with its id and label resolved,
:class:`~kmdr.config.schema.KMeansConfig` with MATLAB's ``sample`` read as ``random``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import NamedTuple

from kmdr.config import checks
from kmdr.config.checks import reducer_grid
from kmdr.config.errors import ConfigError
from kmdr.config.kinds import KINDS
from kmdr.config.schema import KMeansConfig, ReducerConfig

__all__ = [
    "FIRST_OF_CLASS",
    "KMEANS_INITS",
    "ConfigError",
    "Configured",
    "Execution",
    "Experiment",
    "Output",
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
        from kmdr.config.compose import compose_overrides

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


def _reducers(raw: list[dict], only: str | None) -> tuple[ReducerConfig, ...]:
    """The reducer entries with id and label resolved, from the registry's facts (no class)."""
    from kmdr.reducers import (
        available_reducers,
        canonical_reducer,
        reducer_label,
        unusable_plugin,
    )

    names = available_reducers()
    if not raw:
        raise ConfigError(
            f"reducers must be a non-empty list; pick one with reducer=<name>, one of: "
            f"{checks.choices(names)}"
        )
    specs = []
    for entry in raw:
        name = canonical_reducer(entry["name"])  # an alias is stored as the name it means
        if name not in names or unusable_plugin(name):
            raise ConfigError(
                unusable_plugin(name)
                or f"unknown reducer {name!r}; valid reducers: {checks.choices(names)}"
            )
        rid = checks.reducer_id(str(entry.get("id") or name))
        label = str(entry.get("label") or reducer_label(name))
        max_r = entry.get("max_r")
        if max_r is not None:
            max_r = checks.at_least(max_r, f"reducers.{rid}.max_r", 1)
        specs.append(ReducerConfig(name, rid, label, dict(entry.get("params") or {}), max_r))
    ids = [s.id for s in specs]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ConfigError(
            f"reducer ids must be unique in an experiment; repeated: {checks.choices(dup)}"
        )
    if only is not None:
        specs = [s for s in specs if only in (s.name, s.id)]
        if not specs:
            raise ConfigError(
                f"reducer={only} is not part of this experiment; its reducers are: "
                f"{checks.choices(sorted({entry['name'] for entry in raw}))}"
            )
    return tuple(specs)


def _dataset(name: str) -> str:
    from kmdr.datasets import DATASETS

    if name == "???":  # OmegaConf's mark of a value never set (a deleted ~dataset)
        raise ConfigError(
            f"no dataset is set; choose one with dataset=<name>: {checks.choices(DATASETS)}"
        )
    if name not in DATASETS.names():  # a plug-in that fails to load is named when run
        from kmdr.datasets import plugin_clash

        # A name two plug-ins declare is no dataset: say which packages clash.
        clash = plugin_clash(name)
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


def _r_grid(kind: str, grid: list[int]) -> tuple[int, ...]:
    if kind not in ("cells", "sampling_lemma"):  # the kinds that sweep r
        return ()
    if not grid:
        raise ConfigError("r_grid must be a non-empty list of positive integers, got []")
    bad = [g for g in grid if g < 1]
    if bad:
        invalid = checks.choices(bad)
        raise ConfigError(f"r_grid must hold positive integers only; invalid: {invalid}")
    return tuple(sorted(set(grid)))


def _blas_threads(value: int, backend: str, n_jobs: int) -> int:
    """``blas_threads``, checked against the backend that runs the workers.

    The threading backend's workers are threads of one process, which share its BLAS thread count
    (scikit-learn's k-means sets it to one while it runs): with more than one thread per worker, a
    cell's numbers would depend on what the other threads are computing at that moment.
    """
    threads = checks.at_least(value, "blas_threads", 1)
    if threads > 1 and backend == "threading" and n_jobs != 1:
        raise ConfigError(
            f"blas_threads={threads} with backend=threading and n_jobs={n_jobs}: the workers are "
            "threads of one process sharing one BLAS thread count, so a cell's numbers would "
            "depend on the other threads; use blas_threads=1, n_jobs=1 or backend=loky"
        )
    return threads


def _kmeans(km: dict) -> KMeansConfig:
    if km["init"] not in KMEANS_INITS:
        raise ConfigError(
            f"unknown kmeans.init {km['init']!r}; valid: {checks.choices(KMEANS_INITS)}"
        )
    if km["tol"] < 0:
        raise ConfigError(f"kmeans.tol must be a number >= 0, got {km['tol']!r}")
    from kmdr.cluster import INITS

    return KMeansConfig(
        n_init=checks.at_least(km["n_init"], "kmeans.n_init", 1),
        max_iter=checks.at_least(km["max_iter"], "kmeans.max_iter", 1),
        # 'sample' (MATLAB's old name) is random; first_of_class is the runner's to resolve.
        init=str(INITS.get(km["init"], km["init"])),
        tol=float(km["tol"]),
        online_phase=bool(km["online_phase"]),
    )


def from_config(cfg, *, only_reducer: str | None = None) -> Configured:
    """Check ``cfg`` (a DictConfig or mapping, see :class:`~kmdr.config.schema.RunConfig`)
    and return the run's :class:`Experiment`, :class:`Execution` and :class:`Output`.

    ``only_reducer``: keep only the reducers of that registry name or id (``kmdr
    experiment=X reducer=sign``). With ``quick: true`` the ``quick_grid`` mapping is merged over
    the config first (the reduced grids of ``scripts/reproduce.py --quick``). The reducers'
    constructor parameters are checked when a run computes
    (:func:`~kmdr.config.checks.check_reducer_params`), the r-grid against the data once its
    shape is known (:func:`~kmdr.config.checks.check_against_data`).
    """
    c = checks.validated(cfg)
    name = checks.folder_name(c["name"])
    kind = c["kind"]
    if kind not in KINDS:
        raise ConfigError(f"unknown kind {kind!r}; valid kinds: {checks.choices(KINDS)}")
    dataset = _dataset(c["dataset"]["name"])
    reducers = _reducers(c["reducers"], only_reducer) if kind == "cells" else ()
    if c["n_jobs"] == 0:
        raise ConfigError(
            "n_jobs must be a positive number of workers or negative (-1: all cores), got 0"
        )
    blas = _blas_threads(c["blas_threads"], c["backend"], int(c["n_jobs"]))
    data_dir = c["data_dir"]
    r_grid = _r_grid(kind, c["r_grid"])
    if kind == "cells":
        empty = [red.id for red in reducers if not reducer_grid(r_grid, red.max_r)]
        if empty:
            raise ConfigError(
                f"max_r of reducer(s) {checks.choices(empty)} is below every r of r_grid="
                f"{list(r_grid)}: raise max_r or add a smaller r to r_grid"
            )
    experiment = Experiment(
        name=name,
        dataset=dataset,
        dataset_params=_dataset_params(dataset, c["dataset"]["params"]),
        reducers=reducers,
        r_grid=r_grid,
        repeats=checks.at_least(c["repeats"], "repeats", 1),
        seed=checks.seed(c["seed"]),
        kmeans=_kmeans(c["kmeans"]),
        kind=kind,
        aggregation=str(c["aggregation"]),
        leverage_reducer=str(c["leverage"]["reducer"]),
        leverage_r=checks.at_least(c["leverage"]["r"], "leverage.r", 1),
        blas_threads=blas,
        preset_settings=dict(c["preset"]),
    )
    execution = Execution(
        n_jobs=int(c["n_jobs"]),
        backend=str(c["backend"]),
        backend_params=checks.backend_params(c["backend_params"]),
        dask_scheduler=c["dask"]["scheduler"],
        ray_address=c["ray"]["address"],
        claim_timeout=checks.positive_seconds(c["claim_timeout"], "claim_timeout"),
        data_dir=None if data_dir in (None, "") else str(data_dir),
        block_rows=None if c["block_rows"] is None else int(c["block_rows"]),
    )
    checks.check_block_rows(experiment, execution)
    output = Output(
        results_dir=checks.check_results_dir(c["results_dir"]),
        figures=bool(c["figures"]),
        progress=c["progress"],
        progress_every=checks.positive_seconds(c["progress_every"], "progress_every"),
        verbosity=str(c["verbosity"]),
        dry_run=bool(c["dry_run"]),
    )
    return Configured(experiment, execution, output)
