"""The typed schema of kmdr's configs: Hydra structured configs registered in the ConfigStore.

``conf/config.yaml`` lists :data:`SCHEMA_NAME` first in its defaults, so every config Hydra
composes (the primary config, a ``dataset=``/``reducer=`` option, an ``experiment=`` preset, the
command line) is merged into :class:`RunConfig`: an unknown or misspelt key (``repaets: 7``,
``kmeans.n_inti=3``), a value of the wrong type or outside an enumeration fails at composition,
before anything runs (:mod:`kmdr.config.errors` words such an error as one line). The checks a
type cannot express (ranges, reducer parameters, the data's shape) are in
:mod:`kmdr.config.checks`.

The defaults below are THE defaults of a run (``conf/config.yaml`` only adds the config groups and
Hydra's settings); ``kmdr --cfg job`` prints them resolved.
"""

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from omegaconf import MISSING

from kmdr.config.presentation import DEFAULT_FIGURE_STYLE, DEFAULT_SECTION
from kmdr.config.search_path import PapersSearchPath

__all__ = [
    "GENERATED_OPTION_NOTICE",
    "OWN_RESULTS_DIR",
    "SCHEMA_NAME",
    "Aggregation",
    "Backend",
    "DaskConfig",
    "DatasetConfig",
    "KMeansConfig",
    "LeverageConfig",
    "LeverageReducer",
    "PresetConfig",
    "RayConfig",
    "ReducerConfig",
    "Reproduce",
    "RunConfig",
    "Verbosity",
    "dataset_params_schema",
    "default_results_dir",
    "register_configs",
    "to_container",
]

#: Where a run outside the paper presets goes when ``results_dir`` is not given (git ignores it).
OWN_RESULTS_DIR = "my_results"


def default_results_dir(reproduce) -> str:
    """The results folder of a run that names none, by its preset's ``reproduce``: the committed
    ``results`` for a paper preset or a diagnostic, :data:`OWN_RESULTS_DIR` for any other run (an
    ad-hoc run, a preset of your own, a paper preset with its protocol changed)."""
    own = getattr(reproduce, "value", reproduce) in (None, Reproduce.none.value)
    return OWN_RESULTS_DIR if own else RunConfig.results_dir


#: Hydra's notice, while it composes, that a config file of a plug-in reducer or dataset (a
#: ``-cd`` folder's ``reducer/<name>.yaml``) is merged over the option kmdr generates for it
#: (:func:`register_configs`): the file's values win, as a user expects, and the notice (of a
#: behaviour Hydra deprecates) says nothing to act on. Ignored where kmdr composes.
GENERATED_OPTION_NOTICE = r"\s*'(reducer|dataset)/[^']+' is validated against ConfigStore schema"

#: The ConfigStore name of :class:`RunConfig`, first in ``conf/config.yaml``'s defaults list.
SCHEMA_NAME = "kmdr_schema"


# str mixins: a value compares equal to its name ("loky" == Backend.loky) and json-dumps as it.
class Backend(str, Enum):
    """joblib backends the runner supports; ``sequential`` runs in the main process."""

    loky = "loky"
    threading = "threading"
    multiprocessing = "multiprocessing"
    dask = "dask"
    ray = "ray"
    sequential = "sequential"


class Aggregation(str, Enum):
    """How a summary combines repetitions: the mean (bzmd14, lst17) or the best F (bmd09)."""

    mean = "mean"
    best = "best"


class LeverageReducer(str, Enum):
    """The sampler behind ``kind: leverage_scores`` (bmd09 Figure 1)."""

    leverage = "leverage"
    leverage_approx = "leverage_approx"


class Verbosity(str, Enum):
    """How much a run says (:mod:`kmdr._log`): quiet (errors, warnings and the store's reports
    only), normal, or verbose (every library warning too)."""

    quiet = "quiet"
    normal = "normal"
    verbose = "verbose"


class Reproduce(str, Enum):
    """What ``make reproduce`` (``scripts/reproduce.py``) does with a preset."""

    paper = "paper"
    diagnostic = "diagnostic"
    none = "none"


@dataclass
class DatasetConfig:
    """``conf/dataset/<name>.yaml``: a dataset of ``kmdr.datasets`` and its loader's params.

    A generated dataset's params are typed: its yaml lists the dataclass of its parameters
    (:data:`kmdr.datasets._builtins.PARAM_SCHEMAS`, stored as :func:`dataset_params_schema`)
    first in its defaults list, so ``dataset.params.n_samples=...`` needs no ``+``, and a
    wrong type or name fails at composition; values are checked by the spec, before any work.
    """

    name: str = MISSING
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class ReducerConfig:
    """One reducer of a run. ``id``: unique in the run, the CSV's ``reducer`` (default: name);
    ``name``: a registry name; ``label``: the display name, only where a preset deliberately
    differs from the registry's label; ``params``: constructor parameters; ``max_r``: the
    largest r of the run's ``r_grid`` this reducer runs (None: all of it), for a method too slow
    for the whole grid (its sub-grid is the grid's r <= max_r); ``seed_from``: the id of another
    reducer of the run whose cells' seeds this one's cells take (None: its own), so that
    repetition i at r draws the same numbers in both and the report compares the two with the
    paired test (PD 2-pass takes PD's: the same sketch and k-means start, then its second pass).
    """

    name: str = MISSING
    id: str | None = None
    label: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    max_r: int | None = None
    seed_from: str | None = None


@dataclass
class KMeansConfig:
    """Lloyd's k-means on the reduced data (MATLAB's names in brackets)."""

    n_init: int = 5  # restarts ('Replicates'), >= 1
    max_iter: int = 500  # Lloyd iterations per restart ('MaxIter'), >= 1
    # k-means++ | random | sample (MATLAB's old default: k random points, same as random) |
    # first_of_class (the first point of each class: the course report's start, label-informed).
    # A string, not an Enum: "k-means++" is not a Python name; kmdr.config.checks checks it.
    init: str = "k-means++"
    tol: float = 0.0  # 0: stop when no label changes (MATLAB's batch rule), >= 0
    # MATLAB's online phase ('OnlinePhase','on', its old default) after each restart's batch phase:
    # single-point moves while one lowers the objective (kmdr.online_phase).
    online_phase: bool = False


@dataclass
class LeverageConfig:
    """``kind: leverage_scores`` (bmd09 Figure 1): the sampler and its number of columns r."""

    reducer: LeverageReducer = LeverageReducer.leverage
    r: int = 30


@dataclass
class PresetConfig:
    """What a preset reproduces and where its figure and report section go.

    The defaults describe an ad-hoc run: no paper, titled by its name, drawn as bzmd14 curves,
    in the report's custom section, after every preset, never run by ``make reproduce``.
    """

    # The key of the paper it reproduces (a kmdr.papers entry point, kmdr.plugins.PAPERS), or
    # null for your own experiments; checked against the registered papers with the rest of the
    # config, so a paper package adds its key here by being installed.
    paper: str | None = None
    title: str = "${name}"
    # Names of the figure-style and report-section registries (kmdr.config.presentation), which
    # papers and plug-ins declare into; checked against them with the rest of the config.
    figure: str = DEFAULT_FIGURE_STYLE
    section: str = DEFAULT_SECTION
    order: int = 1000  # position in make reproduce and in the report, ascending
    reproduce: Reproduce = Reproduce.none
    # One line the figure's legend shows: what the figure leaves out and why (e.g. a method the
    # paper draws that cannot run on this data).
    note: str = ""


@dataclass
class DaskConfig:
    """``backend: dask``: the address of a running scheduler; null starts a LocalCluster."""

    scheduler: str | None = None


@dataclass
class RayConfig:
    """``backend: ray``: the address of a running Ray cluster; null starts a local one."""

    address: str | None = None


@dataclass
class RunConfig:
    """One run of ``kmdr`` (the primary config)."""

    # The experiment's name: the folder results_dir/<name>/. "custom" for ad-hoc runs.
    name: str = "custom"
    # cells: a sweep over (reducer, r, repetition) cells. leverage_scores: bmd09 Figure 1.
    kind: str = "cells"
    dataset: DatasetConfig = field(default_factory=DatasetConfig)
    reducers: list[ReducerConfig] = field(default_factory=list)
    # The numbers of features r built or selected (the `none` reducer ignores it: r = d).
    r_grid: list[int] = field(default_factory=lambda: [5, 10, 20, 40])
    # Independent repetitions of every (reducer, r) cell, each with its own seed.
    repeats: int = 3
    # The one base seed; every cell's seed derives from it (kmdr.config.seeds).
    seed: int = 0
    kmeans: KMeansConfig = field(default_factory=KMeansConfig)
    aggregation: Aggregation = Aggregation.mean
    leverage: LeverageConfig = field(default_factory=LeverageConfig)
    preset: PresetConfig = field(default_factory=PresetConfig)
    # Print the cells the command would compute and reuse (and a time estimate), run nothing.
    dry_run: bool = False
    # Parallelism: joblib over cells; n_jobs -1 = as many workers as the cores hold (blas_threads
    # each), -2 one less.
    n_jobs: int = -1
    backend: Backend = Backend.loky
    # Keyword arguments of joblib.parallel_config (checked against its signature up front).
    backend_params: dict[str, Any] = field(default_factory=dict)
    dask: DaskConfig = field(default_factory=DaskConfig)
    ray: RayConfig = field(default_factory=RayConfig)
    # Start the worker pool (or dask LocalCluster) in the background while the data loads; false
    # starts it when the first job needs it.
    warmup: bool = True
    # Rows per block of one cell's data (backend=dask only): each cell's data are read as row
    # blocks, reduced on the dask workers and never held whole in one process; only reducers that
    # run on row blocks are accepted. null: every cell holds the whole matrix (the usual path).
    # Not part of a cell's identity: a chunked cell is the in-memory cell.
    block_rows: int | None = None
    # BLAS/OpenMP threads per worker: part of every cell's identity (another number of threads adds
    # sums in another order), so cells of another value are computed apart, never reused or mixed.
    # Parallelism comes from n_jobs.
    blas_threads: int = 1
    # Where results go (results_dir/<name>/) and where data files are cached (null: the default).
    # A run outside the paper presets (preset.reproduce none: an ad-hoc run, a preset of your own,
    # a paper preset with its protocol changed) that leaves results_dir at this default writes
    # into OWN_RESULTS_DIR instead, so that it never changes the committed results/.
    results_dir: str = "results"
    data_dir: str | None = None
    # Seconds a run waits for a cell another process has claimed while that process shows no
    # sign of life (stopped or frozen), before it gives up with one line naming the holder.
    claim_timeout: float = 300.0
    # Seconds one cell may take (reduction and clustering; a cell of a job that shares work also
    # its share of it): a cell past it is stopped, recorded as timed out in the run record, and
    # computed again by the next run; the others go on. null: no limit.
    cell_time_limit: float | None = None
    # Draw summaries and figures at the end of a run (a failure to draw never loses the CSV).
    figures: bool = True
    # The progress bar: null shows it only when stderr is a terminal or in a notebook, and writes
    # a start line and a progress line every progress_every seconds anywhere else (a log file);
    # never when quiet. true forces the bar, false shows neither.
    progress: bool | None = None
    progress_every: float = 30.0
    # quiet | normal | verbose: what the run prints besides errors (kmdr._log).
    verbosity: Verbosity = Verbosity.normal
    # The reduced grid of `scripts/reproduce.py --quick`: keys of this config, merged over it
    # when quick is true (checked against this schema either way).
    quick: bool = False
    quick_grid: dict[str, Any] = field(default_factory=dict)


def dataset_params_schema(dataset: str) -> str:
    """The ConfigStore name of dataset ``dataset``'s typed parameters: ``conf/dataset/<name>.yaml``
    puts it under ``params`` (``defaults: [/<this name>@params, _self_]``). A top-level name, not
    an option of the ``dataset`` group: Hydra would match a stored option to the yaml of the same
    name by itself (deprecated automatic schema matching)."""
    return f"{SCHEMA_NAME}_{dataset}_params"


def register_configs() -> None:
    """Register :class:`RunConfig` as :data:`SCHEMA_NAME` in Hydra's ConfigStore, and an option
    of the ``reducer`` group for every built-in reducer (kmdr's and its papers') and each of its
    aliases (idempotent).

    A reducer's declaration (:mod:`kmdr.reducers._builtins`, a paper's ``reducers``, or a
    plug-in's entry point) is all that ``reducer=<name>`` needs, so none has a config file; listing
    the declarations imports no reducer module. A plug-in dataset declared by an entry point gets a
    ``dataset`` option the same way (``{name, params: {}}``; its parameters are its loader's
    defaults, set with ``dataset.params.<key>=...``) when kmdr has none of that name: an installed
    plug-in is selectable with no config folder. (A ``-cd`` folder that still holds a file of the
    same name is merged over the generated option: :data:`GENERATED_OPTION_NOTICE`.)

    Every built-in generator's parameters are stored too (:func:`dataset_params_schema`), and
    Hydra's search-path plug-in that adds the papers' own configs
    (:class:`kmdr.config.search_path.PapersSearchPath`) is registered.
    """
    from hydra.core.config_store import ConfigStore
    from hydra.core.plugins import Plugins

    from kmdr.datasets import DATASETS
    from kmdr.datasets._builtins import PARAM_SCHEMAS
    from kmdr.reducers import REDUCERS

    store = ConfigStore.instance()
    store.store(name=SCHEMA_NAME, node=RunConfig)
    Plugins.instance().register(PapersSearchPath)
    for dataset, params in PARAM_SCHEMAS.items():
        store.store(name=dataset_params_schema(dataset), node=params)
    names = REDUCERS.names()
    aliases = [(alias, name) for alias, name in REDUCERS.aliases().items() if name in names]
    for option, name in [*((name, name) for name in names), *aliases]:
        node = {"reducers": [{"id": name, "name": name, "params": {}}]}
        store.store(group="reducer", name=option, node=node, package="_global_")
    for name in DATASETS.names():
        if not DATASETS.is_own(name):  # kmdr's and its papers' datasets have their files
            store.store(group="dataset", name=name, node={"name": name, "params": {}})


def to_container(cfg) -> dict:
    """A composed config as plain Python (enums as their names), for JSON sidecars."""
    from omegaconf import OmegaConf

    return OmegaConf.to_container(cfg, resolve=True, enum_to_str=True)


# Registered on import, as Hydra apps do, so that composing conf/config.yaml finds the schema.
register_configs()
