"""An experiment's configuration, checked once, before anything runs.

:func:`spec_from_config` turns the Hydra config (or any mapping with the same keys, see
``conf/config.yaml``) into an :class:`ExperimentSpec`; :func:`check_against_data` checks the
r-grid against the data's shape. Both raise :class:`ConfigError` with ONE line that says what is
wrong and lists the valid choices, so the CLI can print it and exit before computing anything.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field

__all__ = [
    "KINDS",
    "ConfigError",
    "ExperimentSpec",
    "KMeansSpec",
    "ReducerSpec",
    "check_against_data",
    "spec_from_config",
]

KINDS = ("cells", "leverage_scores")
AGGREGATIONS = ("mean", "best")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


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
    """Everything a run needs (see ``conf/config.yaml`` for the meaning of each field)."""

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
    backend_register: str | None = None
    blas_threads: int | None = None
    results_dir: str = "results"
    data_dir: str | None = None
    figures: bool = True
    progress: bool = True

    def to_dict(self) -> dict:
        return asdict(self)


def _choices(values) -> str:
    return ", ".join(str(v) for v in values)


def _int(value, name: str, low: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ConfigError(f"{name} must be an integer, got {value!r}")
    if low is not None and value < low:
        raise ConfigError(f"{name} must be >= {low}, got {value}")
    return int(value)


def _plain(obj):
    """OmegaConf containers to plain dicts/lists (without importing omegaconf when not needed)."""
    try:
        from omegaconf import DictConfig, ListConfig, OmegaConf
    except ImportError:  # pragma: no cover
        return obj
    if isinstance(obj, DictConfig | ListConfig):
        return OmegaConf.to_container(obj, resolve=True)
    return obj


def _reducers(raw, only: str | None) -> tuple[ReducerSpec, ...]:
    from kmdr.reducers import available_reducers, reducer_label

    names = available_reducers()
    if not isinstance(raw, list | tuple) or not raw:
        raise ConfigError(
            f"reducers must be a non-empty list; pick one with reducer=<name>, one of: "
            f"{_choices(names)}"
        )
    specs = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, Mapping) or "name" not in entry:
            raise ConfigError(
                f"reducers[{i}] must be a mapping with a 'name' (one of: "
                f"{_choices(names)}), got {entry!r}"
            )
        name = entry["name"]
        if name not in names:
            raise ConfigError(f"unknown reducer {name!r}; valid reducers: {_choices(names)}")
        unknown = set(entry) - {"id", "name", "label", "params"}
        if unknown:
            raise ConfigError(
                f"reducers[{i}] has unknown keys {sorted(unknown)}; valid keys: "
                "id, name, label, params"
            )
        rid = str(entry.get("id") or name)
        if not _NAME_RE.match(rid):
            raise ConfigError(f"reducer id {rid!r} must match {_NAME_RE.pattern}")
        params = dict(entry.get("params") or {})
        label = str(entry.get("label") or reducer_label(name))
        specs.append(ReducerSpec(rid, name, label, params))
    ids = [s.id for s in specs]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ConfigError(f"reducer ids must be unique in an experiment; repeated: {_choices(dup)}")
    if only is not None:
        kept = tuple(s for s in specs if only in (s.name, s.id))
        if not kept:
            raise ConfigError(
                f"reducer={only} is not part of this experiment; its reducers are: "
                f"{_choices(sorted({s.name for s in specs}))}"
            )
        specs = list(kept)
    # Check that every reducer accepts its params (a typo fails here, not in a worker).
    from kmdr.reducers import make_reducer

    for s in specs:
        try:
            make_reducer(s.name, None, **s.params)
        except (TypeError, ValueError) as err:
            raise ConfigError(f"reducer {s.id!r}: {_one_line(err)}") from None
    return tuple(specs)


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())


def spec_from_config(cfg, *, only_reducer: str | None = None) -> ExperimentSpec:
    """Check ``cfg`` (a DictConfig or mapping, see ``conf/config.yaml``) and return the spec.

    ``only_reducer``: keep only the reducers of that registry name or id (``kmdr
    experiment=X reducer=sign``). With ``quick: true`` the ``quick_grid`` mapping is merged over
    the config first (the reduced grids of ``scripts/reproduce.py --quick``).
    """
    from kmdr.cluster import INITS
    from kmdr.datasets import DATASETS

    c = dict(_plain(cfg))
    if c.get("quick"):
        c = _merge(c, dict(c.get("quick_grid") or {}))

    name = c.get("name", "custom")
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ConfigError(
            f"name must be a folder-safe name matching {_NAME_RE.pattern}, got {name!r}"
        )
    kind = c.get("kind", "cells")
    if kind not in KINDS:
        raise ConfigError(f"unknown kind {kind!r}; valid kinds: {_choices(KINDS)}")

    ds = c.get("dataset") or {}
    ds_name = ds.get("name") if isinstance(ds, Mapping) else ds
    if ds_name not in DATASETS:
        raise ConfigError(f"unknown dataset {ds_name!r}; valid datasets: {_choices(DATASETS)}")
    ds_params = dict((ds.get("params") if isinstance(ds, Mapping) else None) or {})

    reducers = _reducers(c.get("reducers"), only_reducer) if kind == "cells" else ()

    grid = c.get("r_grid")
    if isinstance(grid, numbers.Integral) and not isinstance(grid, bool):
        grid = [grid]
    if kind == "cells":
        if not isinstance(grid, list | tuple) or not grid:
            raise ConfigError(f"r_grid must be a non-empty list of positive integers, got {grid!r}")
        bad = [
            g for g in grid if isinstance(g, bool) or not isinstance(g, numbers.Integral) or g < 1
        ]
        if bad:
            raise ConfigError(f"r_grid must hold positive integers only; invalid: {_choices(bad)}")
        grid = tuple(sorted({int(g) for g in grid}))
    else:
        grid = ()

    km = dict(c.get("kmeans") or {})
    unknown = set(km) - {"n_init", "max_iter", "init", "tol"}
    if unknown:
        raise ConfigError(
            f"kmeans has unknown keys {sorted(unknown)}; valid keys: n_init, max_iter, init, tol"
        )
    init = km.get("init", "k-means++")
    if init not in INITS:
        raise ConfigError(f"unknown kmeans.init {init!r}; valid: {_choices(INITS)}")
    tol = km.get("tol", 0.0)
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or tol < 0:
        raise ConfigError(f"kmeans.tol must be a number >= 0, got {tol!r}")
    kmeans = KMeansSpec(
        n_init=_int(km.get("n_init", 5), "kmeans.n_init", 1),
        max_iter=_int(km.get("max_iter", 500), "kmeans.max_iter", 1),
        init=str(INITS[init] if init == "sample" else init),
        tol=float(tol),
    )
    aggregation = c.get("aggregation", "mean")
    if aggregation not in AGGREGATIONS:
        raise ConfigError(f"unknown aggregation {aggregation!r}; valid: {_choices(AGGREGATIONS)}")

    lev = dict(c.get("leverage") or {})
    lev_reducer = lev.get("reducer", "leverage")
    if kind == "leverage_scores" and lev_reducer not in ("leverage", "leverage_approx"):
        raise ConfigError(
            f"leverage.reducer must be leverage or leverage_approx, got {lev_reducer!r}"
        )
    lev_r = _int(lev.get("r", 30), "leverage.r", 1)

    n_jobs = _int(c.get("n_jobs", 1), "n_jobs")
    if n_jobs == 0:
        raise ConfigError(
            "n_jobs must be a positive number of workers or negative (-1: all cores), got 0"
        )
    blas = c.get("blas_threads")
    blas = None if blas is None else _int(blas, "blas_threads", 1)
    backend = c.get("backend", "loky")
    if not isinstance(backend, str) or not backend:
        raise ConfigError(
            f"backend must be a joblib backend name (loky, threading, "
            f"multiprocessing, dask, ray, ...), got {backend!r}"
        )
    results_dir = c.get("results_dir") or "results"
    data_dir = c.get("data_dir")
    return ExperimentSpec(
        name=name,
        dataset=ds_name,
        dataset_params=ds_params,
        reducers=reducers,
        r_grid=grid,
        repeats=_int(c.get("repeats", 1), "repeats", 1),
        seed=_int(c.get("seed", 0), "seed", 0),
        kmeans=kmeans,
        kind=kind,
        aggregation=aggregation,
        leverage_reducer=lev_reducer,
        leverage_r=lev_r,
        n_jobs=n_jobs,
        backend=backend,
        backend_params=dict(c.get("backend_params") or {}),
        backend_register=c.get("backend_register") or None,
        blas_threads=blas,
        results_dir=str(results_dir),
        data_dir=None if data_dir in (None, "") else str(data_dir),
        figures=bool(c.get("figures", True)),
        progress=bool(c.get("progress", True)),
    )


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merge(dict(out[key]), dict(value))
        else:
            out[key] = value
    return out


def check_against_data(
    spec: ExperimentSpec, n_samples: int, n_features: int, n_clusters: int
) -> None:
    """Check every (reducer, r) of ``spec`` can run on n_samples x n_features data with k
    clusters; raise a one-line :class:`ConfigError` naming the valid range otherwise."""
    from kmdr.reducers import max_components

    shape = f"n={n_samples}, d={n_features}, k={n_clusters}"
    if spec.kind == "leverage_scores":
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
