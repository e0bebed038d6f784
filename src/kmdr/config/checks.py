"""The checks a constraint table cannot express, each raising a one-line :class:`ConfigError`.

Types, ranges and enumerations are declared beside the schema's fields
(:mod:`kmdr.config.schema`, whose objects call these checks on their fields). Here: names, the
results folder, ``backend_params`` against :func:`joblib.parallel_config`, and, once the data's
shape is known, the r-grid against it (:func:`check_against_data`).

Reducers are checked in two steps. Their names and labels come from the registry's facts, which
need no reducer class (so a dry run imports none); their constructor parameters need the class,
and are checked by :func:`check_reducer_params` when a run is about to compute
(:meth:`kmdr.engine.session.Session.run`, before it writes anything, dry run or not), unless
each reducer is given only the defaults its declaration states (:func:`declared_valid`).
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Mapping

from kmdr.config.errors import ConfigError, config_line

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
#: An experiment's name is a folder under results_dir: one path component, no separator, never
#: ``.`` or ``..``. ``+`` and ``=`` are allowed, so that a name can say what a run changed
#: (``name=bzmd14_orl+dataset=coil20``).
_FOLDER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+=-]*$")


def choices(values) -> str:
    return ", ".join(str(v) for v in values)


def reducer_grid(r_grid, max_r: int | None) -> tuple[int, ...]:
    """The r a reducer runs: the run's ``r_grid`` up to the reducer's ``max_r`` (None: all)."""
    return tuple(r for r in r_grid if max_r is None or r <= max_r)


def folder_name(name: str) -> str:
    if not isinstance(name, str) or not _FOLDER_RE.match(name) or ".." in name:
        raise ConfigError(
            f"name must be one folder name (letters, digits and _ . + = -, starting with a "
            f"letter or digit, no path separator, no '..'), got {name!r}"
        )
    return name


def reducer_id(rid: str) -> str:
    if not _NAME_RE.match(rid):
        raise ConfigError(f"reducer id {rid!r} must match {_NAME_RE.pattern}")
    return rid


def check_preset(preset) -> None:
    """The preset's paper, figure style and report section (a
    :class:`~kmdr.config.schema.PresetConfig`) name declarations (no import: names only); a null
    paper is an experiment of your own. One ConfigError line otherwise."""
    from kmdr.config.presentation import FIGURE_STYLES, SECTIONS
    from kmdr.plugins import PAPERS

    if preset.paper is not None:
        problem = PAPERS.problem(preset.paper)
        if problem is not None:
            raise ConfigError(f"preset.paper: {problem}; or null for an experiment of your own")
    for key, registry in (("figure", FIGURE_STYLES), ("section", SECTIONS)):
        problem = registry.problem(getattr(preset, key))
        if problem is not None:
            raise ConfigError(f"preset.{key}: {problem}")


#: The keywords of :func:`joblib.parallel_config` that joblib reads with some backends only, or
#: never once the backend is named (kmdr always names it): keyword -> (the backends that read
#: it, what joblib does otherwise), as joblib documents them.
_READ_BY = {
    "prefer": ((), "ignores this hint once the backend is named"),
    "require": ((), "swaps the named backend for its threading one"),
    "inner_max_num_threads": (("loky",), "another backend fails on it when it starts"),
    **{
        memmapping: (("loky", "multiprocessing", "ray"), "another backend never memory-maps")
        for memmapping in ("temp_folder", "max_nbytes", "mmap_mode")
    },
}


#: The package each cluster backend imports, by backend; its extra of kmdr has the same name.
_BACKEND_PACKAGES = {"dask": "distributed", "ray": "ray"}


def backend_installed(backend: str) -> None:
    """A one-line ConfigError when ``backend`` needs a package that is not installed: found
    from the config alone, before a record is written or a worker started."""
    package = _BACKEND_PACKAGES.get(backend)
    if package is not None and importlib.util.find_spec(package) is None:
        raise ConfigError(
            f"backend={backend} needs {package}, which is not installed: "
            f"pip install 'kmdr[{backend}]'"
        )


def backend_params(params: dict, backend: str, own: tuple[str, ...]) -> dict:
    """``backend_params`` are keyword arguments of :func:`joblib.parallel_config` that
    ``backend`` reads (one the backend would ignore or refuse later is a one-line
    :class:`ConfigError`: :data:`_READ_BY`); none of ``own``, the Execution's settings."""

    if not isinstance(params, Mapping):
        raise ConfigError(f"backend_params must be a mapping, got {params!r}")
    if not params:
        return {}
    import inspect

    import joblib

    accepted = [
        p.name
        for p in inspect.signature(joblib.parallel_config).parameters.values()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in own
    ]
    for key in params:
        if key in own:
            raise ConfigError(f"backend_params.{key}: set it with {key}=<value> instead")
        if key not in accepted:
            raise ConfigError(
                f"unknown backend_params key {key!r}; valid keys (joblib.parallel_config): "
                f"{choices(accepted)}"
            )
    for key in params:
        readers, otherwise = _READ_BY.get(key, ((backend,), ""))
        if backend in readers:
            continue
        if readers:
            raise ConfigError(
                f"backend_params.{key} is read by backend={'/'.join(readers)} only ({otherwise}),"
                f" and this run's backend is {backend}; drop it, or use backend={readers[0]}"
            )
        raise ConfigError(
            f"backend_params.{key}: joblib {otherwise}, and kmdr always names it (backend="
            f"{backend}); drop it, and choose the backend with backend=<name>"
        )
    return dict(params)


def check_results_dir(results_dir: str) -> str:
    """``results_dir`` as given, or a one-line :class:`ConfigError` for an empty value, which is
    refused rather than read as the default (``results``, the committed record): a forgotten
    value never writes there. A folder that cannot be written is said by the first write that
    fails (:func:`kmdr.app.task.execute`)."""
    import os

    text = os.fspath(results_dir)
    if not text.strip():
        raise ConfigError(
            "results_dir is empty; give the folder the results go to, e.g. "
            "results_dir=my_results (results_dir=results is the committed record)"
        )
    return text


#: The reducer parameters kmdr sets for each cell, and what it sets them from: a reducer's
#: ``params`` cannot give them (its ``n_clusters``, the k it asks for, it may).
_SET_PER_CELL = {
    "n_components": "the r of r_grid (up to the reducer's max_r)",
    "random_state": "the cell's seed, derived from seed= (each repetition its own)",
}


def reducer_params_given(rid: str, name: str, params) -> None:
    """What the params of reducer ``rid`` (registry name ``name``) say without its class: a
    mapping, none that kmdr sets for each cell, none the reducer would leave unread beside the
    others (its plan's rule, :func:`kmdr.reducers.unread_params`). A one-line ConfigError."""
    from kmdr.reducers import unread_params

    if not isinstance(params, Mapping):
        raise ConfigError(f"reducers.{rid}.params must be a mapping, got {params!r}")
    for param, source in _SET_PER_CELL.items():
        if param in params:
            raise ConfigError(
                f"reducers.{rid}.params.{param}: kmdr sets it for each cell from {source}; drop it"
            )
    unread = unread_params(name, params)
    if unread:
        param, reader = next(iter(unread.items()))  # the first given
        raise ConfigError(
            f"reducers.{rid}.params.{param}={params[param]} would not be read: reducer {name!r} "
            f"reads {param} {reader}; drop it"
        )


def check_reducer_params(spec) -> None:
    """Every reducer of ``spec`` accepts its params, of the right type and in range: the
    reducer's own parameter constraints, checked with a valid r and k, so a typo fails before any
    work rather than in a worker; and none that clusters with its own k-means (sparsified
    k-means) is asked for MATLAB's online phase, which that k-means does not have. Imports the
    reducer classes."""
    from kmdr.reducers import make_reducer

    for red in spec.reducers:
        try:
            params = dict(red.params)
            k = params.pop("n_clusters", 2)
            reducer = make_reducer(red.name, 1, n_clusters=k, **params)
            reducer._validate_params()
        except (TypeError, ValueError) as err:
            raise ConfigError(f"reducer {red.id!r}: {config_line(err)}") from None
        if spec.kmeans.online_phase and getattr(reducer, "cluster", None) is not None:
            raise ConfigError(
                f"kmeans.online_phase=true: reducer {red.id!r} clusters with its own k-means "
                f"({type(reducer).__name__}), which has no online phase; drop the option or "
                "the reducer"
            )


def declared_valid(spec) -> bool:
    """Whether :func:`check_reducer_params` can only pass for ``spec``, known without importing a
    reducer class: no online phase asked (a reducer with its own k-means lacks it), and each
    reducer one of kmdr's own given only defaults its declaration states
    (:func:`kmdr.reducers.declared_defaults`). A run, or a dry run, checks the reducers' params
    otherwise: a dry run never plans a run the run refuses, and neither builds the reducers in
    the run's own process (importing their classes) to check what cannot fail."""
    from kmdr.reducers import declared_defaults

    if spec.kmeans.online_phase:
        return False
    return all(declared_defaults(red.name, red.params) for red in spec.reducers)


#: The one line refusing MATLAB's online phase on row blocks (k-means runs there as Lloyd's
#: batch iterations, :mod:`kmdr.kmeans.blocks`).
ONLINE_PHASE_ON_BLOCKS = (
    "kmeans.online_phase=true with block_rows: MATLAB's online phase moves one row at a time over "
    "the whole matrix and does not run on row blocks; drop one of them"
)


def chunked_refusal(reducer: str, name: str, params) -> str | None:
    """The one line refusing reducer ``reducer`` (its id; ``name``: its registry name, with
    ``params``) on data held as row blocks, or None when it runs on them (its plan's
    ``row_blocks``); the line names the reducers that can."""
    from kmdr.reducers import row_blocks_mode, row_blocks_reducers

    if row_blocks_mode(name, **dict(params)) is not None:
        return None
    return (
        f"block_rows: reducer {reducer!r} needs the whole matrix in one process and cannot run "
        f"on row blocks; those that can: {choices(row_blocks_reducers())}"
    )


def check_block_rows(spec, execution) -> None:
    """``block_rows`` (one cell's data as row blocks) asks for the dask backend, a kind with
    cells and reducers that run on row blocks: a one-line :class:`ConfigError` otherwise,
    before any work."""
    rows = execution.block_rows
    if rows is None:
        return
    if execution.backend != "dask":
        raise ConfigError(
            f"block_rows={rows} reduces one cell's row blocks on a dask cluster: it needs "
            f"backend=dask, got backend={execution.backend}"
        )
    if spec.kind != "cells":
        raise ConfigError(f"block_rows: kind={spec.kind} has no cells to compute on row blocks")
    if spec.kmeans.online_phase:
        raise ConfigError(ONLINE_PHASE_ON_BLOCKS)
    for red in spec.reducers:
        message = chunked_refusal(red.id, red.name, red.params)
        if message is not None:
            raise ConfigError(message)


def check_rank(spec, n_samples: int, n_features: int, n_clusters: int, what: str) -> None:
    """``what`` (e.g. leverage scores) takes the data's top k singular vectors: k at most
    min(n, d), else a one-line :class:`ConfigError` (a kind's ``check_against_data``)."""
    if n_clusters > min(n_samples, n_features):
        shape = f"n={n_samples}, d={n_features}, k={n_clusters}"
        raise ConfigError(
            f"k={n_clusters} is too large for {what} on {spec.dataset.name} ({shape})"
        )


def check_against_data(
    spec, n_samples: int, n_features: int, n_clusters: int, *, sparse: bool = False
) -> None:
    """Check every (reducer, r) of ``spec`` can run on n_samples x n_features data (``sparse``
    or dense) with k clusters; raise a one-line :class:`ConfigError` naming the valid range
    otherwise. A sweep of cells is checked so; a kind that computes something else checks the
    data with its own ``check_against_data`` (:mod:`kmdr.config.kinds`)."""
    from kmdr.reducers import is_baseline_reducer, max_components

    shape = f"n={n_samples}, d={n_features}, k={n_clusters}"
    for red in spec.reducers:
        if is_baseline_reducer(red.name):  # the baseline ignores r
            continue
        params = dict(red.params)
        if "n_clusters" not in params:
            params["n_clusters"] = n_clusters
        try:
            top = max_components(red.name, n_samples, n_features, sparse=sparse, **params)
        except (TypeError, ValueError) as err:
            raise ConfigError(f"reducer {red.id!r}: {config_line(err)}") from None
        if top is not None:
            too_big = [r for r in reducer_grid(spec.r_grid, red.max_r) if r > top]
            if too_big:
                raise ConfigError(
                    f"r = {choices(too_big)} is too large for reducer {red.id!r} on "
                    f"{spec.dataset.name} ({shape}); valid r for it: 1..{top}"
                )
        if red.name.startswith("leverage") and n_clusters > min(n_samples, n_features):
            raise ConfigError(
                f"reducer {red.id!r} needs k <= min(n, d) on {spec.dataset.name} ({shape})"
            )
