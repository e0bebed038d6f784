"""The one declaration of a run's configuration: the three objects a run reads, which are also the
typed schema Hydra composes against.

Every key of a run, its type and its default is declared once, as a field of one of three
dataclasses, one per concern:

* :class:`Experiment`: what is computed, everything in a cell's identity (dataset and its
  parameters, reducers, r grid, repetitions, seed, the k-means protocol, ``blas_threads``) and what
  the experiment is (name, kind, aggregation, the preset block);
* :class:`Execution`: how it runs (workers, the joblib backend and its parameters, the cluster's
  address, how long to wait for a cell another run holds, a cell's time limit, where data files
  are cached);
* :class:`Output`: what is written and said (the results folder, figures, the progress bar,
  verbosity, a dry run that writes nothing).

:class:`RunConfig` is the three together (and ``quick``/``quick_grid``, the reduced grids of
``make reproduce-quick``): the primary config's schema, which the command line registers in Hydra's
ConfigStore, so every config Hydra composes (``conf/config.yaml``, a ``dataset=``/``reducer=``
option, an ``experiment=`` preset, the overrides) is merged into it and an unknown or misspelt key,
a value of the wrong type or outside an enumeration fails at composition. :func:`from_config` turns
a composed config (or any mapping with its keys) into the three objects by OmegaConf's own
conversion (:func:`omegaconf.OmegaConf.to_object`), and each object checks its own fields when it
is constructed, so an object built or changed in Python (``dataclasses.replace``) is held to the
command line's rules, with the same one-line :class:`~kmdr.config.errors.ConfigError` naming the
problem and the valid choices. A checked object cannot be changed in place (its fields are set
once, as a frozen dataclass's): ``dataclasses.replace`` makes a checked copy.

The checks a type cannot express are :mod:`kmdr.config.checks`'s; what the objects alone cannot
tell (one against the other, the reducers' constructor parameters, the data's shape) is checked
when they run (:meth:`kmdr.engine.session.Session.run`).
"""

from __future__ import annotations

import os
import warnings
from collections import Counter
from collections.abc import Mapping
from dataclasses import MISSING as MISSING_FIELD
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, ClassVar, NamedTuple

from attrs import validators
from attrs.validators import in_, instance_of
from omegaconf import MISSING

from kmdr.config import checks
from kmdr.config.checked import (
    Checked,
    FrozenMapping,
    integers,
    optional,
    reals,
    seconds,
)
from kmdr.config.choices import (
    Aggregation,
    Backend,
    LeverageReducer,
    Reproduce,
    Verbosity,
    values_of,
)
from kmdr.config.errors import ConfigError, warn_unused
from kmdr.config.kinds import ALWAYS_READ, KINDS, kind_reads
from kmdr.config.presentation import DEFAULT_FIGURE_STYLE, DEFAULT_SECTION

__all__ = [  # what the API reference documents
    "DaskConfig",
    "DatasetConfig",
    "Execution",
    "Experiment",
    "KMeansConfig",
    "LeverageConfig",
    "Output",
    "PresetConfig",
    "RayConfig",
    "ReducerConfig",
    "RunConfig",
]

#: Where a run outside the paper presets goes when ``results_dir`` is not given (git ignores it).
OWN_RESULTS_DIR = "my_results"
#: Seconds between two progress lines of a run that writes lines (``progress_every``'s default).
PROGRESS_EVERY = 30.0
#: kmeans.init choices: kmdr.kmeans.lloyd's names, and the label-informed start (the runner passes
#: the
#: first point of each class as the initial centers).
FIRST_OF_CLASS = "first_of_class"
KMEANS_INITS = ("k-means++", "random", "sample", FIRST_OF_CLASS)


@dataclass
class DatasetConfig(Checked):
    """``conf/dataset/<name>.yaml``: a dataset of ``kmdr.datasets`` and its loader's params.

    A generated dataset's params are typed: its yaml lists the dataclass of its parameters
    (:data:`kmdr.datasets._builtins.PARAM_SCHEMAS`, stored in the ConfigStore by the command
    line) first in its defaults list, so ``dataset.params.n_samples=...`` needs no ``+``, and a
    wrong type or name fails at composition; values are checked by the :class:`Experiment`."""

    name: str = MISSING
    params: dict[str, Any] = field(default_factory=dict)

    _prefix: ClassVar[str] = "dataset"
    _constraints: ClassVar[dict] = {
        "name": instance_of(str),
        "params": instance_of(Mapping),
    }


@dataclass
class ReducerConfig(Checked):
    """One reducer of a run, an entry of the experiment's ``reducers`` mapping under its id
    (unique in the run, the CSV's ``reducer``; ``id``, when given, is that key); ``name``: a
    registry name; ``label``: the display name, only where a preset deliberately differs from
    the registry's label; ``params``: constructor parameters; ``max_r``: the
    largest r of the run's ``r_grid`` this reducer runs (None: all of it), for a method too slow
    for the whole grid (its sub-grid is the grid's r <= max_r); ``seed_from``: the id of another
    reducer of the run whose cells' seeds this one's cells take (None: its own), so that
    repetition i at r draws the same numbers in both and the report compares the two with the
    paired test (PD 2-pass takes PD's: the same sketch and k-means start, then its second pass).
    The :class:`Experiment` that holds it checks it and resolves its id and label."""

    name: str = MISSING
    id: str | None = None
    label: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    max_r: int | None = None
    seed_from: str | None = None

    def _path(self) -> str:
        return f"reducers.{self.id or self.name}"

    _constraints: ClassVar[dict] = {
        "name": instance_of(str),
        "id": optional(str),
        "label": optional(str),
        "params": instance_of(Mapping),
        "max_r": validators.optional(integers()),
        "seed_from": optional(str),
    }


@dataclass
class KMeansConfig(Checked):
    """Lloyd's k-means on the reduced data (MATLAB's names in brackets)."""

    n_init: int = 5  # restarts ('Replicates')
    max_iter: int = 500  # Lloyd iterations per restart ('MaxIter')
    # k-means++ | random | sample (MATLAB's old default: k random points, same as random) |
    # first_of_class (the first point of each class: the course report's start, label-informed).
    # A string, not an Enum: "k-means++" is not a Python name. 'sample' is kept as 'random'.
    init: str = "k-means++"
    tol: float = 0.0  # 0: stop when no label changes (MATLAB's batch rule)
    # MATLAB's online phase ('OnlinePhase','on', its old default) after each restart's batch phase:
    # single-point moves while one lowers the objective (kmdr.kmeans.online_phase).
    online_phase: bool = False

    _prefix: ClassVar[str] = "kmeans"
    _constraints: ClassVar[dict] = {
        "n_init": integers(),
        "max_iter": integers(),
        "init": in_(KMEANS_INITS),
        "tol": reals(0),
        "online_phase": instance_of(bool),
    }

    def validate(self) -> None:
        from kmdr.kmeans.lloyd import INITS

        if self.init == FIRST_OF_CLASS and self.n_init != 1:
            # one start: restarts would repeat the same run (scikit-learn's explicit init)
            warnings.warn(
                f"kmeans.init={FIRST_OF_CLASS} is one start (each class's first point): "
                f"performing one init instead of kmeans.n_init={self.n_init}",
                RuntimeWarning,
                stacklevel=2,
            )
            object.__setattr__(self, "n_init", 1)
        # 'sample' (MATLAB's old name) is random; first_of_class is the runner's to resolve.
        object.__setattr__(self, "init", str(INITS.get(self.init, self.init)))
        object.__setattr__(self, "tol", float(self.tol))


@dataclass
class LeverageConfig(Checked):
    """``kind: leverage_scores`` (bmd09 Figure 1): the sampler and its number of columns r."""

    reducer: LeverageReducer = LeverageReducer.leverage
    r: int = 30

    _prefix: ClassVar[str] = "leverage"
    _constraints: ClassVar[dict] = {
        "reducer": in_(values_of(LeverageReducer)),
        "r": integers(),
    }


@dataclass
class PresetConfig(Checked):
    """What a preset reproduces and where its figure and report section go.

    The defaults describe an ad-hoc run: no paper, titled by its name, drawn as bzmd14 curves,
    in the report's custom section, after every preset, never run by ``make reproduce``.
    """

    # The key of the paper it reproduces (a kmdr.papers entry point, kmdr.plugins.PAPERS), or
    # null for your own experiments; checked against the registered papers, so a paper package
    # adds its key here by being installed.
    paper: str | None = None
    # The figure's and the report section's title; null: the experiment's name.
    title: str | None = None
    # Names of the figure-style and report-section registries (kmdr.config.presentation), which
    # papers and plug-ins declare into.
    figure: str = DEFAULT_FIGURE_STYLE
    section: str = DEFAULT_SECTION
    order: int = 1000  # position in make reproduce and in the report, ascending
    reproduce: Reproduce = Reproduce.none
    # One line the figure's legend shows: what the figure leaves out and why (e.g. a method the
    # paper draws that cannot run on this data).
    note: str = ""

    _prefix: ClassVar[str] = "preset"
    _constraints: ClassVar[dict] = {
        "paper": optional(str),
        "title": optional(str),
        "figure": instance_of(str),
        "section": instance_of(str),
        "order": integers(None),
        "reproduce": in_(values_of(Reproduce)),
        "note": instance_of(str),
    }

    def validate(self) -> None:
        checks.check_preset(self)


@dataclass
class DaskConfig(Checked):
    """``backend: dask``: the address of a running scheduler; null starts a LocalCluster."""

    scheduler: str | None = None

    _prefix: ClassVar[str] = "dask"
    _constraints: ClassVar[dict] = {"scheduler": optional(str)}


@dataclass
class RayConfig(Checked):
    """``backend: ray``: the address of a running Ray cluster; null starts a local one."""

    address: str | None = None

    _prefix: ClassVar[str] = "ray"
    _constraints: ClassVar[dict] = {"address": optional(str)}


@dataclass
class Experiment(Checked):
    """What a run computes: everything in its cells' identity, and what the experiment is.

    Built from the command line's config by :func:`from_config`, in Python directly, or from a
    preset by :func:`kmdr.compose`; either way checked when constructed (see the module
    docstring): the r-grid kept sorted (an r given twice is refused), each reducer's id and
    label resolved (the registry's), the dataset's parameters as its cells record them, MATLAB's
    ``kmeans.init=sample`` read as ``random``."""

    # The experiment's name: the folder results_dir/<name>/. "custom" for ad-hoc runs.
    name: str = "custom"
    # cells: a sweep over (reducer, r, repetition) cells; a paper's kinds (leverage_scores:
    # bmd09 Figure 1, sampling_lemma: bzmd14's lemma) compute other things.
    kind: str = "cells"
    dataset: DatasetConfig = field(default_factory=DatasetConfig)
    # id -> entry (``reducers.<id>.params.eps=0.5``); the Experiment holds them as a tuple, in
    # order, each with its id. A list of entries (a run record's shape) is read as well.
    reducers: dict[str, ReducerConfig] = field(default_factory=dict)
    # The numbers of features r built or selected (the `none` reducer ignores it: r = d).
    r_grid: tuple[int, ...] = (5, 10, 20, 40)
    # Independent repetitions of every (reducer, r) cell, each with its own seed.
    repeats: int = 3
    # The one base seed; every cell's seed derives from it (kmdr.config.seeds); cells.csv keeps
    # it in a signed 64-bit column.
    seed: int = 0
    kmeans: KMeansConfig = field(default_factory=KMeansConfig)
    aggregation: Aggregation = Aggregation.mean
    leverage: LeverageConfig = field(default_factory=LeverageConfig)
    # BLAS/OpenMP threads per worker: part of every cell's identity (another number of threads adds
    # sums in another order), so cells of another value are computed apart, never reused or mixed.
    # Parallelism comes from n_jobs.
    blas_threads: int = 1
    preset: PresetConfig = field(default_factory=PresetConfig)
    # The settings of a paper's kind beyond these (its grid of coreset constructions and sizes):
    # the kind reads and checks them; the sweep of cells reads none.
    kind_params: dict[str, Any] = field(default_factory=dict)

    _constraints: ClassVar[dict] = {
        "name": instance_of(str),
        "kind": instance_of(str),
        "dataset": instance_of((DatasetConfig, Mapping)),
        "reducers": instance_of((Mapping, list, tuple)),
        "r_grid": validators.deep_iterable(integers(), instance_of((list, tuple))),
        "repeats": integers(),
        "seed": integers(0, 2**63 - 1),
        "kmeans": instance_of((KMeansConfig, Mapping)),
        "aggregation": in_(values_of(Aggregation)),
        "leverage": instance_of((LeverageConfig, Mapping)),
        "blas_threads": integers(),
        "preset": instance_of((PresetConfig, Mapping)),
        "kind_params": instance_of(Mapping),
    }

    def validate(self) -> None:
        checks.folder_name(self.name)
        if self.kind not in KINDS:
            raise ConfigError(f"unknown kind {self.kind!r}; valid kinds: {checks.choices(KINDS)}")
        for name, cls in (("kmeans", KMeansConfig), ("leverage", LeverageConfig)):
            object.__setattr__(self, name, _part(getattr(self, name), cls))
        object.__setattr__(self, "preset", _part(self.preset, PresetConfig))
        object.__setattr__(self, "dataset", _dataset(self.dataset))
        # a kind that sweeps no r (reads no reducers) has none: what it reads is checked, and
        # a setting it does not read, given in Python, is refused as an override of it is
        reads = kind_reads(self.kind)
        if reads is not None:
            _check_unread(self, reads)
        grid = _r_grid(self.r_grid) if reads is None or "r_grid" in reads else ()
        object.__setattr__(self, "r_grid", grid)
        read_reducers = reads is None or "reducers" in reads
        object.__setattr__(
            self, "reducers", _reducers(self.reducers, grid) if read_reducers else ()
        )


@dataclass
class Execution(Checked):
    """How a run is executed. Nothing here changes a cell's numbers."""

    # Parallelism: joblib over cells; n_jobs -1 = as many workers as the cores hold (blas_threads
    # each), -2 one less; never 0.
    n_jobs: int = -1
    backend: Backend = Backend.loky
    # Keyword arguments of joblib.parallel_config (checked against its signature up front, and
    # against the backend: one joblib would ignore or refuse with it is refused).
    backend_params: dict[str, Any] = field(default_factory=dict)
    dask: DaskConfig = field(default_factory=DaskConfig)
    ray: RayConfig = field(default_factory=RayConfig)
    # Start a loky pool of more than one worker before the run's jobs, with Ctrl-C blocked in
    # its workers (a stop then reaches the run, which writes what it has); false: the first job
    # starts it.
    warmup: bool = True
    # Rows per block of one cell's data (backend=dask only): each cell's data are read as row
    # blocks, reduced and clustered on the dask workers and never held whole in one process; only
    # reducers that run on row blocks are accepted. null: every cell holds the whole matrix (the
    # usual path). Not part of a cell's identity: a chunked cell is the in-memory cell.
    block_rows: int | None = None
    # Where data files are cached (null: the default); a relative path is taken from the folder
    # the run is started in.
    data_dir: str | None = None
    # Seconds one cell may take (reduction and clustering; a cell of a job that shares work also
    # its share of it): a cell past it is stopped, recorded as timed out in the run record, and
    # computed again by the next run; the others go on. null: no limit.
    cell_time_limit: float | None = None

    _constraints: ClassVar[dict] = {
        # any whole number but 0, as joblib's (attrs' or_ would list its validators' reprs)
        "n_jobs": integers(
            None, None, validators.not_(in_((0,)), msg="'n_jobs' must not be 0 (-1: every core)")
        ),
        "backend": in_(values_of(Backend)),
        "backend_params": instance_of(Mapping),
        "dask": instance_of((DaskConfig, Mapping)),
        "ray": instance_of((RayConfig, Mapping)),
        "warmup": instance_of(bool),
        "block_rows": validators.optional(integers()),
        "data_dir": optional(str),
        "cell_time_limit": validators.optional(seconds()),
    }

    def validate(self) -> None:
        object.__setattr__(self, "dask", _part(self.dask, DaskConfig))
        object.__setattr__(self, "ray", _part(self.ray, RayConfig))
        params = checks.backend_params(self.backend_params, self.backend, ("backend", "n_jobs"))
        object.__setattr__(self, "backend_params", FrozenMapping(params))
        for backend, given in (("dask", self.dask.scheduler), ("ray", self.ray.address)):
            if given and self.backend != backend:  # the other backends never read it
                setting = "dask.scheduler" if backend == "dask" else "ray.address"
                raise ConfigError(
                    f"{setting}={given} is read by backend={backend} only, and this run's "
                    f"backend is {self.backend}; add backend={backend}, or drop {setting}"
                )
        if self.data_dir:  # absolute: what reads it later may start elsewhere
            object.__setattr__(self, "data_dir", os.path.abspath(os.path.expanduser(self.data_dir)))
        else:
            object.__setattr__(self, "data_dir", None)
        if self.cell_time_limit is not None:
            object.__setattr__(self, "cell_time_limit", float(self.cell_time_limit))
            _time_limit_backend(self)


@dataclass
class Output(Checked):
    """What a run writes and says."""

    # Where results go: results_dir/<name>/. A run outside the paper presets (preset.reproduce
    # none: an ad-hoc run, a preset of your own) that leaves results_dir at this default writes
    # into OWN_RESULTS_DIR instead, so that it never changes the committed results/
    # (default_results_dir); a run whose protocol differs from the one its folder records is
    # refused (kmdr.app.protocol).
    results_dir: str = "results"
    # Draw summaries and figures at the end of a run (a failure to draw never loses the CSV).
    figures: bool = True
    # The progress bar: null shows it only when stderr is a terminal or in a notebook, and writes
    # a start line and a progress line every progress_every seconds anywhere else (a log file);
    # never when quiet. true forces the bar, false shows neither (progress_every is read only
    # when progress is null, and refused beside true or false).
    progress: bool | None = None
    progress_every: float = PROGRESS_EVERY
    # quiet | normal | verbose: what the run says besides errors (kmdr._log).
    verbosity: Verbosity = Verbosity.normal
    # Print the cells the command would compute and reuse (and a time estimate), run nothing.
    dry_run: bool = False

    _constraints: ClassVar[dict] = {
        "results_dir": instance_of((str, os.PathLike)),
        "figures": instance_of(bool),
        "progress": optional(bool),
        "progress_every": seconds(),
        "verbosity": in_(values_of(Verbosity)),
        "dry_run": instance_of(bool),
    }

    def validate(self) -> None:
        object.__setattr__(self, "results_dir", checks.check_results_dir(self.results_dir))
        object.__setattr__(self, "progress_every", float(self.progress_every))
        if self.progress is not None and self.progress_every != PROGRESS_EVERY:
            # the lines it spaces are written only when progress is left to the terminal (null)
            shown = "forces the bar" if self.progress else "shows no progress"
            raise ConfigError(
                f"progress_every={self.progress_every:g} spaces the progress lines of a run "
                f"whose progress is null (written where stderr is no terminal), and "
                f"progress={str(self.progress).lower()} {shown}, so it would not be read; drop "
                "progress_every, or progress"
            )


@dataclass
class RunConfig(Output, Execution, Experiment):
    """One run of ``kmdr`` (the primary config's schema): the fields of :class:`Experiment`,
    :class:`Execution` and :class:`Output` as one flat config, and the reduced grid of ``make
    reproduce-quick`` (``quick_grid``: keys of this config, merged over it when ``quick`` is
    true, checked against this schema either way; ``quick`` without a ``quick_grid`` is
    refused). Not a run's object itself: :func:`from_config` turns it into the three."""

    quick: bool = False
    quick_grid: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Nothing to check here: :func:`from_config` checks each of the three objects."""


def _unread_default(spec, raw: bool = False):
    """What the :class:`Experiment` setting of field ``spec`` is when nobody gave it: its
    default (an enum member's value unless ``raw``)."""
    default = spec.default_factory() if spec.default_factory is not MISSING_FIELD else spec.default
    return default if raw else getattr(default, "value", default)


def _unread(reads: frozenset[str]) -> list:
    """The fields of :class:`Experiment` a kind that reads ``reads`` leaves unread (every kind
    reads :data:`~kmdr.config.kinds.ALWAYS_READ` and its dataset)."""
    return [f for f in fields(Experiment) if f.name not in {*reads, *ALWAYS_READ, "dataset"}]


def _check_unread(experiment: Experiment, reads: frozenset[str]) -> None:
    """A setting the experiment's kind does not read, given another value than its default
    (``dataclasses.replace(fig1, repeats=9)`` for bmd09's leverage scores), changes nothing: one
    warning line, as :func:`kmdr.config.overrides.check_unread` gives for an override of it,
    and the experiment keeps the setting's default, as a composed config's unread settings do
    (so its record and its folder's protocol are those of the run without it). The empty
    ``r_grid`` and ``reducers`` such an experiment keeps are not given."""
    for spec in _unread(reads):
        name = spec.name
        given, default = getattr(experiment, name), _unread_default(spec)
        given = getattr(given, "value", given)
        if isinstance(given, list | tuple):
            given = tuple(given)
            if name in ("r_grid", "reducers") and not given:
                continue
        elif isinstance(given, Mapping) and isinstance(default, KMeansConfig | LeverageConfig):
            given = _part(given, type(default))
        if given != default:
            shown = name if isinstance(default, Checked) else f"{name}={given!r}"
            warn_unused(
                f"{shown} is not read by kind={experiment.kind} (it reads "
                f"{', '.join(sorted(reads))}), so it changes nothing; leave {name} at its default"
            )
            object.__setattr__(experiment, name, _unread_default(spec, raw=True))


def _part(value, cls):
    """``value`` as a checked ``cls`` (a dataclass the config nests): a ``cls`` as it is, a
    mapping of its fields converted and checked."""
    if isinstance(value, cls):
        return value
    try:
        return cls(**value)
    except TypeError as err:  # an unknown key
        raise ConfigError(f"{cls._prefix}: {err}") from None


def _dataset(value) -> DatasetConfig:
    """The experiment's dataset, checked: a known name, its parameters as its cells record them
    (a generator's declared parameters: :func:`kmdr.datasets.recorded_params`)."""
    from kmdr.datasets import DATASETS, DatasetError, plugin_clash, recorded_params

    value = _part(value, DatasetConfig)
    if value.name == MISSING:  # OmegaConf's mark of a value never set (a deleted ~dataset)
        raise _no_dataset()
    if value.name not in DATASETS.names():
        # A name two plug-ins declare is no dataset: say which packages clash.
        raise ConfigError(
            plugin_clash(value.name)
            or f"unknown dataset {value.name!r}; valid datasets: {checks.choices(DATASETS)}"
        )
    try:
        return DatasetConfig(value.name, recorded_params(value.name, value.params))
    except DatasetError as err:
        raise ConfigError(str(err)) from None


def _no_dataset() -> ConfigError:
    from kmdr.datasets import DATASETS

    return ConfigError(
        f"no dataset is set; choose one with dataset=<name>: {checks.choices(DATASETS)}"
    )


def _r_grid(grid) -> tuple[int, ...]:
    """The grid sorted, each r a positive integer given once (a cell is computed once per r)."""
    if not grid:
        raise ConfigError("r_grid must be a non-empty list of positive integers, got []")
    twice = sorted(r for r, times in Counter(grid).items() if times > 1)
    if twice:
        raise ConfigError(
            f"r_grid lists {checks.choices(twice)} more than once ({list(grid)}): a cell is "
            "computed once per r; give each r once (a typo for another r?)"
        )
    return tuple(sorted(int(r) for r in grid))


def _reducers(reducers, r_grid: tuple[int, ...]) -> tuple[ReducerConfig, ...]:
    """The reducers of an experiment, each with its registry name (an alias read as the name it
    stands for), its id and label resolved from the registry's facts (no class imported),
    checked: known names, unique ids, a ``max_r`` that keeps some r of the grid, a ``seed_from``
    naming another of them."""
    from kmdr.reducers import available_reducers, canonical_reducer, reducer_label, unusable_plugin

    names = available_reducers()
    if not reducers:
        raise ConfigError(
            f"reducers must not be empty; pick one with reducer=<name>, one of: "
            f"{checks.choices(names)}"
        )
    specs = []
    for red in _entries(reducers):
        name = canonical_reducer(red.name)
        if name not in names or unusable_plugin(name):
            raise ConfigError(
                unusable_plugin(name)
                or f"unknown reducer {red.name!r}; valid reducers: {checks.choices(names)}"
            )
        rid = checks.reducer_id(red.id or name)
        checks.reducer_params_given(rid, name, red.params)
        label = red.label or reducer_label(name)
        specs.append(ReducerConfig(name, rid, label, red.params, red.max_r, red.seed_from))
    _check_seed_from(specs)
    empty = [red.id for red in specs if not checks.reducer_grid(r_grid, red.max_r)]
    if empty:
        raise ConfigError(
            f"max_r of reducer(s) {checks.choices(empty)} is below every r of r_grid="
            f"{list(r_grid)}: raise max_r or add a smaller r to r_grid"
        )
    return tuple(specs)


def _keyed(entries) -> dict:
    """A list of reducer entries (a run record's shape) as the mapping id -> entry, an entry's
    id its own or its registry name's."""
    from kmdr.reducers import canonical_reducer

    keyed: dict = {}
    for entry in entries:
        entry = asdict(entry) if isinstance(entry, ReducerConfig) else entry
        if not isinstance(entry, Mapping):
            raise ConfigError(f"a reducer entry is a mapping of its settings, got {entry!r}")
        rid = entry.get("id")  # one of another type: the entry's check says so
        rid = rid if isinstance(rid, str) and rid else canonical_reducer(str(entry.get("name")))
        if rid in keyed:
            raise ConfigError(f"reducer ids must be unique in an experiment; repeated: {rid}")
        keyed[rid] = entry
    return keyed


def _entries(reducers) -> list[ReducerConfig]:
    """The reducer entries of a mapping id -> entry (the config's shape) or of a list of
    entries (a run record's), in order, each with its id."""
    if not isinstance(reducers, Mapping):
        reducers = _keyed(reducers)
    entries = []
    for rid, red in reducers.items():
        red = _part(red, ReducerConfig)
        if red.id not in (None, rid):
            raise ConfigError(
                f"reducers.{rid}.id={red.id!r}: an entry's id is its key in reducers; drop id, "
                f"or key the entry by {red.id!r}"
            )
        entries.append(replace(red, id=rid))
    return entries


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


def _time_limit_backend(execution: Execution) -> None:
    """``cell_time_limit`` asks for a backend that can stop a cell: its process's main thread
    (n_jobs=1, loky, multiprocessing) or a worker process the run can replace (dask, Ray)."""
    limit = f"cell_time_limit={execution.cell_time_limit:g}"
    if execution.backend == "threading" and execution.n_jobs != 1:
        raise ConfigError(
            f"{limit} with backend=threading: a cell running in a thread cannot be stopped; "
            "use backend=loky (or n_jobs=1)"
        )
    if execution.block_rows is not None:
        raise ConfigError(
            f"{limit} with block_rows: a cell on row blocks is spread over the cluster and "
            "cannot be stopped as one; leave one of them out"
        )


def check_together(experiment: Experiment, execution: Execution) -> None:
    """What one object alone cannot tell: whether the backend's package is installed here (an
    Execution may describe a run for another machine), ``blas_threads`` against the backend, and
    ``block_rows`` against the experiment's kind and reducers
    (:func:`~kmdr.config.checks.check_block_rows`). A one-line :class:`ConfigError`.

    The threading backend's workers are threads of one process, which share its BLAS thread
    count (scikit-learn's k-means sets it to one while it runs): with more than one thread per
    worker, a cell's numbers would depend on what the other threads are computing at that
    moment."""
    checks.backend_installed(execution.backend)
    threads = experiment.blas_threads
    if threads > 1 and execution.backend == "threading" and execution.n_jobs != 1:
        raise ConfigError(
            f"blas_threads={threads} with backend=threading and n_jobs={execution.n_jobs}: the "
            "workers are threads of one process sharing one BLAS thread count, so a cell's "
            "numbers would depend on the other threads; use blas_threads=1, n_jobs=1 or "
            "backend=loky"
        )
    checks.check_block_rows(experiment, execution)


class Configured(NamedTuple):
    """The three objects of one run, as :func:`from_config` builds them."""

    experiment: Experiment
    execution: Execution
    output: Output


def _only(reducers, only: tuple[str, ...] | None):
    """The reducer entries ``only`` names (``kmdr experiment=X reducer=sign``), with the entries
    they take their seeds from (``seed_from``: run as well, and said); all of them when ``only``
    is None. A name that is an entry's id keeps that entry alone (``reducer=sparsified`` in
    pb17_digits runs PD, not kmdr's variants of it, whose ids differ); any other name keeps the
    entries of that registry name."""
    from kmdr._log import say
    from kmdr.reducers import canonical_reducer

    if only is None or not reducers:
        return reducers
    reducers = _entries(reducers)
    ids = [r.id or canonical_reducer(r.name) for r in reducers]
    names = [{canonical_reducer(r.name), rid} for r, rid in zip(reducers, ids, strict=True)]
    asked = {name: {name, canonical_reducer(name)} for name in only}  # an alias names its reducer
    missing = [name for name, said in asked.items() if not any(said & pair for pair in names)]
    if missing:
        raise ConfigError(
            f"reducer={missing[0]} is not part of this experiment; its reducers are: "
            f"{checks.choices(sorted({canonical_reducer(r.name) for r in reducers}))}"
        )
    kept = set()
    for said in asked.values():
        by_id = said & set(ids)
        kept |= by_id or {rid for rid, pair in zip(ids, names, strict=True) if pair & said}
    sources = {r.seed_from for r, rid in zip(reducers, ids, strict=True) if rid in kept} - kept
    for source in sorted(s for s in sources if s in ids):
        takers = [
            rid
            for r, rid in zip(reducers, ids, strict=True)
            if rid in kept and r.seed_from == source
        ]
        say(f"[kmdr] {', '.join(takers)} takes its seeds from {source}: {source} runs as well")
    return [red for red, rid in zip(reducers, ids, strict=True) if rid in kept | sources]


def from_config(cfg, *, only_reducers: tuple[str, ...] | None = None) -> Configured:
    """The run's :class:`Experiment`, :class:`Execution` and :class:`Output` from ``cfg``: a
    config Hydra composed against :class:`RunConfig`, or any mapping with its keys (merged into
    the schema first, so an unknown key, a wrong type or a value outside an enumeration is one
    ConfigError line). With ``quick: true`` the ``quick_grid`` mapping is merged over it first
    (the reduced grids of ``make reproduce-quick``). ``only_reducers``: keep only the reducers of
    those registry names or ids (``kmdr experiment=X reducer=sign``)."""
    from omegaconf import DictConfig, OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    from kmdr.config.errors import config_line

    if isinstance(cfg, DictConfig):
        cfg = OmegaConf.to_container(cfg, resolve=False, enum_to_str=True)
    cfg = {k: v for k, v in dict(cfg).items() if k != "hydra"}
    if isinstance(cfg.get("reducers"), list | tuple):  # a run record's shape
        cfg["reducers"] = _keyed(cfg["reducers"])
    try:
        merged = OmegaConf.merge(OmegaConf.structured(RunConfig), cfg)
        if OmegaConf.is_missing(merged.dataset, "name"):  # (a deleted ~dataset)
            raise _no_dataset()
        # A typo in a preset's reduced grid fails with or without quick (an empty one: no merge).
        with_quick = OmegaConf.merge(merged, merged.quick_grid) if merged.quick_grid else merged
        if merged.quick and not merged.quick_grid:
            raise ConfigError(
                f"quick=true runs an experiment's reduced grid (its quick_grid), and "
                f"{merged.name} has none, so its full protocol would run; drop quick=true, or "
                "give the experiment a quick_grid"
            )
        run = OmegaConf.to_object(with_quick if merged.quick else merged)
    except OmegaConfBaseException as err:
        raise ConfigError(config_line(err)) from None
    values = {f.name: getattr(run, f.name) for f in fields(RunConfig)}
    values["reducers"] = _only(values["reducers"], only_reducers)
    # A setting the kind does not read is left at its default: the primary config's (a `-cd`
    # folder's kmeans block, say) says nothing about this experiment; an override of one is
    # warned about by check_unread, a value given in Python by the Experiment itself.
    reads = kind_reads(values["kind"]) if values["kind"] in KINDS else None
    for spec in _unread(reads) if reads is not None else ():
        values[spec.name] = _unread_default(spec)
    return Configured(
        *(
            cls(**{f.name: values[f.name] for f in fields(cls)})
            for cls in (Experiment, Execution, Output)
        )
    )


def spec_of(*objects) -> dict:
    """The run's objects as one mapping of config keys, as a run record keeps them (its
    ``spec``: the values a run used after the checks)."""
    out: dict = {}
    for obj in objects:
        values = asdict(obj)
        out.update({f.name: values[f.name] for f in fields(obj)})
    return out


def default_results_dir(reproduce) -> str:
    """The results folder of a run that names none, by its preset's ``reproduce``: the committed
    ``results`` for a paper preset or a diagnostic, :data:`OWN_RESULTS_DIR` for any other run (an
    ad-hoc run, a preset of your own, a paper preset with its protocol changed)."""
    own = getattr(reproduce, "value", reproduce) in (None, Reproduce.none.value)
    return OWN_RESULTS_DIR if own else Output.results_dir


def to_container(cfg) -> dict:
    """A composed config as plain Python (enums as their names), for JSON sidecars."""
    from omegaconf import OmegaConf

    return OmegaConf.to_container(cfg, resolve=True, enum_to_str=True)
