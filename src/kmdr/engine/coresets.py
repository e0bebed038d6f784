"""``kind: coresets``: reduce the columns, reduce the rows, solve, score; and k-means on all rows
and all features beside it, the baseline.

A coreset cell (:class:`CoresetCell`) is its steps (:attr:`kmdr.results.cells.Cell.steps`):

1. **columns**: the experiment's reducer in front, C = A R (``none``: C = A);
2. **rows**: a construction's coreset of C's rows (:mod:`kmdr.coresets`, with its parameters and
   size m), carried back to A's own space by its ``composition_ @ A`` (a sampled row is A's row,
   a constructed point the mean of the same rows of A);
3. **solve** (``kind_params.solve``, one cell each):

   - ``lloyd``: weighted Lloyd on the coreset with the experiment's k-means settings and
     restarts (scikit-learn's ``KMeans`` with ``sample_weight``), its centers then assigned
     every row of A: the pipeline a user runs instead of k-means on all rows;
   - ``seedings``: the solutions a coreset study tries on it (:mod:`kmdr.coresets.evaluation`,
     Schwiegelshohn and Sheikh-Omar's evaluation): weighted k-means++ seedings, and each family
     of ``kind_params.solutions``, the first family's worst candidate the cell's
     ``distortion``;
4. **score**: on the ORIGINAL data A, as every cell is: ``objective`` is F of the partition of
   A the solve gives (the first seeding's, or Lloyd's centers'), with its accuracy, NMI and ARI.

A ``lloyd`` cell also has ``objective_centers``, the cost of its centers on all rows over
``||A||^2`` (F is the cost of the partition's own means, at most that), and ``assign_seconds``.
Every cell times its steps: ``reduce_seconds``, ``coreset_seconds``, ``solve_seconds`` (and
``assign_seconds``), ``total_seconds`` their sum (``cluster_seconds``: all but the reduction).

With a ``lloyd`` solve the plan holds the baseline (k-means on all rows and all features,
declared: the baseline reducer with no rows step, :func:`kmdr.results.reading.is_baseline`),
one cell per repetition, computed as the sweep of cells computes it: the report's speed-up and
cost ratio of each pipeline are against it. An experiment without it (``seedings`` alone) has
no baseline and the report asks it no budget question.

The cells are a sweep's (:class:`kmdr.engine.sweep.Sweep`): rows of the folder's ``cells.csv``
reused by a rerun, computed on the run's workers (any backend, dask's among them) under the run's
``cell_time_limit``. A job is the coreset cells that share one reduction (reducer, r,
repetition): it reduces once. The seeds: the reduction's is the reducer's own at (r,
repetition), whatever is built on it; the construction's draws are shared by every reducer in
front (paired by repetition).
"""

from __future__ import annotations

import dataclasses
import json
import time
from typing import ClassVar

import numpy as np

from kmdr.config.errors import ConfigError
from kmdr.config.schema import FIRST_OF_CLASS, ReducerConfig
from kmdr.config.seeds import cell_seed, stream_seeds
from kmdr.coresets.evaluation import CANDIDATES, kmeanspp, measure, solution_family
from kmdr.engine.cell_kinds import Job
from kmdr.engine.sweep import Sweep
from kmdr.engine.work import group_job
from kmdr.reducers import is_baseline_reducer
from kmdr.results.cells import Cell, kmeans_settings, make_cell, r_values

__all__ = ["CORESETS", "CoresetCell", "CoresetCells", "coreset_settings"]

#: The solve steps a coreset cell can take.
SOLVES = ("seedings", "lloyd")
#: The version of the seedings evaluation (:mod:`kmdr.coresets.evaluation`), in its cells'
#: identity: a change of the evaluation is a new cell, never a reused one.
EVALUATION_VERSION = 2
#: The settings of ``kind_params``, each with its default (None: required) and what it says.
KIND_PARAMS = {
    "constructions": (None, "the constructions, each a name of kmdr.coresets (kmdr-list "
                      "coresets) or {name: ..., params: {...}}"),
    "size_factors": ([], "coreset sizes as multiples of k (m = factor x k)"),
    "sizes": ([], "coreset sizes m, besides size_factors"),
    "solve": (["seedings"], "seedings (a coreset study's evaluation) and/or lloyd (weighted "
              "Lloyd on the coreset, scored on all rows beside k-means on all rows)"),
    "solutions": (["kmeans++"], "the families of solutions a seedings cell tries, the first "
                  "giving its distortion (kmeans++, convex, meb, or a paper's)"),
}  # fmt: skip


def _squared_norm(A) -> float:
    if hasattr(A, "multiply"):  # sparse
        return float(A.multiply(A).sum())
    return float(np.einsum("ij,ij->", A, A))


@dataclasses.dataclass(frozen=True)
class CoresetCell(Cell):
    """A cell with a rows step: a sweep's cell (its identity, seed and id) with what its job
    needs besides, none of it beyond what the identity already says."""

    #: The seed of the reducer's reduction: the reducer's own at (r, repetition).
    reduction_seed: int = 0
    #: m / k where the size was given as a factor of k, else 0.
    size_factor: int = 0
    #: The seed of the construction's draws, shared by every reducer in front (paired).
    coreset_seed: int = 0
    #: The families a seedings cell tries (the first one's worst candidate: ``distortion``).
    solutions: tuple = ()

    @property
    def group_key(self) -> tuple:
        """One job per reduction: its constructions, sizes and solves reduce once."""
        return ("reduction", self.reducer_id, self.r, self.repetition)

    @property
    def method_id(self) -> str:
        """The reducer's id, the construction and its size, and a solve other than the
        seedings: ``none+groupx100``, ``sign+uniformm2000+lloyd``."""
        params = self.coreset["params"]
        name = self.coreset["name"] + (f"({json.dumps(params, sort_keys=True)})" if params else "")
        size = f"x{self.size_factor}" if self.size_factor else f"m{self.coreset['size']}"
        solve = "" if self.solve == "seedings" else f"+{self.solve}"
        return f"{self.reducer_id}+{name}{size}{solve}"


def _construction(entry) -> tuple[str, dict]:
    """A ``kind_params.constructions`` entry as (name, params)."""
    if isinstance(entry, str):
        return entry, {}
    if hasattr(entry, "keys") and set(entry.keys()) <= {"name", "params"} and "name" in entry:
        return str(entry["name"]), dict(entry.get("params") or {})
    raise ConfigError(
        f"kind_params.constructions: {entry!r} is neither a construction's name nor "
        "{name: ..., params: {...}}"
    )


def coreset_settings(spec) -> dict:
    """The experiment's ``kind_params``, checked, with their defaults (one line for a wrong one)."""
    given = dict(spec.kind_params)
    if unknown := sorted(set(given) - set(KIND_PARAMS)):
        raise ConfigError(
            f"kind_params.{unknown[0]}: the coresets kind takes {', '.join(KIND_PARAMS)}"
        )
    params = {name: given.get(name, default) for name, (default, _) in KIND_PARAMS.items()}
    if params["constructions"] is None or not list(params["constructions"]):
        raise ConfigError("the coresets kind needs kind_params.constructions")
    if not list(params["size_factors"]) and not list(params["sizes"]):
        raise ConfigError("the coresets kind needs kind_params.size_factors or kind_params.sizes")
    solves = [str(s) for s in params["solve"]]
    if bad := [s for s in solves if s not in SOLVES] or not solves:
        raise ConfigError(f"kind_params.solve: {bad[0] if bad else '[]'!r} is none of "
                          f"{', '.join(SOLVES)}")  # fmt: skip
    from kmdr.coresets import CORESETS
    from kmdr.coresets.evaluation import SOLUTION_FAMILIES

    families = [str(f) for f in params["solutions"]]
    for family in families:
        if family not in SOLUTION_FAMILIES:
            raise ConfigError(
                f"kind_params.solutions: {family!r} is none of {', '.join(SOLUTION_FAMILIES)}"
            )
    constructions = [_construction(c) for c in params["constructions"]]
    for name, given_params in constructions:
        # a one-line RegistryError for a name that means none
        takes = set(CORESETS.get(name)().get_params(deep=False))  # scikit-learn's own names
        set_by_kind = {"n_clusters", "coreset_size", "random_state"}
        if bad := sorted(set(given_params) - (takes - set_by_kind)):
            raise ConfigError(
                f"kind_params.constructions: {name} takes no parameter {bad[0]!r} (it takes "
                f"{', '.join(sorted(takes - set_by_kind)) or 'none'}; the kind sets "
                "n_clusters, coreset_size and random_state)"
            )
    factors = [int(f) for f in params["size_factors"]]
    sizes = [int(m) for m in params["sizes"]]
    if bad := [v for v in factors + sizes if v < 1]:
        raise ConfigError(f"kind_params: a coreset size of {bad[0]} (below 1)")
    return {
        "constructions": constructions,
        "size_factors": factors,
        "sizes": sizes,
        "solve": tuple(dict.fromkeys(solves)),
        # k-means++ always: its first seeding is the cell's partition
        "solutions": tuple(dict.fromkeys([*families, "kmeans++"])),
    }


def _sizes(settings: dict, k: int | None) -> list[tuple[int | None, int]]:
    """Every (m, factor) of the settings, one per m (factor 0 where m was given itself; an m
    both give is the factor's: its draws are those of the factor's cells); without k (before
    the data), a factor's m is None."""
    if k is None:
        return [(None, f) for f in settings["size_factors"]] + [(m, 0) for m in settings["sizes"]]
    out = {factor * k: factor for factor in settings["size_factors"]}
    for m in settings["sizes"]:
        out.setdefault(m, 0)
    return list(out.items())


def _label(name: str, params: dict) -> str:
    if not params:
        return name
    return f"{name}({', '.join(f'{k}={v}' for k, v in sorted(params.items()))})"


def _version(name: str, params: dict) -> int:
    from kmdr.coresets import make_coreset

    # the construction's as configured: one that runs another (merge_reduce) counts that one's
    return int(getattr(make_coreset(name, **params), "compat_version", 1))


class CoresetCells:
    """The ``coresets`` kind of cells (see the module docstring), run by a
    :class:`~kmdr.engine.sweep.Sweep`."""

    name = "coresets"
    reads = ("dataset", "reducers", "r_grid", "repeats", "seed", "blas_threads", "kind_params",
             "kmeans")  # fmt: skip
    columns = (
        "construction", "coreset_size", "coreset_size_factor", "coreset_points",
        "coreset_seconds", "solve_seconds", "assign_seconds", "real_cost", "coreset_cost",
        "objective_centers", "distortion", "distortion_first",
    )  # fmt: skip
    #: What ``kmdr-list`` shows of ``kind_params``.
    settings_doc: ClassVar[dict] = {
        name: f"{text} (default: {default})" if default is not None else f"{text} (required)"
        for name, (default, text) in KIND_PARAMS.items()
    }

    def reads_of(self, spec) -> tuple[str, ...]:
        """What an experiment of this kind reads: the k-means settings only with a Lloyd solve."""
        solves = dict(spec.kind_params).get("solve") or KIND_PARAMS["solve"][0]
        return self.reads if "lloyd" in solves else tuple(r for r in self.reads if r != "kmeans")

    def grid(self, spec, n_features: int, n_clusters: int | None = None):
        """Every cell the experiment plans, before its data (``kmdr-list`` counts them): the
        baseline's repetitions with a Lloyd solve, then (reducer config, r, repetition,
        construction, its params, m, size factor, solve), m None for a factor without k."""
        settings = coreset_settings(spec)
        if "lloyd" in settings["solve"]:
            yield from (("baseline", rep) for rep in range(spec.repeats))
        sizes = _sizes(settings, n_clusters)
        reducers = spec.reducers.values() if hasattr(spec.reducers, "values") else spec.reducers
        for red in reducers:
            for r in r_values(red.name, red.max_r, spec.r_grid, n_features):
                for rep in range(spec.repeats):
                    for name, params in settings["constructions"]:
                        for m, factor in sizes:
                            for solve in settings["solve"]:
                                yield red, r, rep, name, params, m, factor, solve

    def check_against_data(self, spec, n_samples, n_features, n_clusters, *, sparse=False):
        """A coreset larger than the data, a family that cannot measure these data, or a Lloyd
        solve started from the classes: one line."""
        settings = coreset_settings(spec)
        if "seedings" in settings["solve"]:
            for family in settings["solutions"]:
                try:
                    solution_family(family).check(n_samples, n_features, n_clusters)
                except ValueError as err:
                    raise ConfigError(f"kind_params.solutions: {err}") from None
        for m, factor in _sizes(settings, n_clusters):
            given = f"size_factors: {factor} x k = {m}" if factor else f"sizes: {m}"
            if m > n_samples:
                raise ConfigError(
                    f"kind_params.{given} is larger than the data's {n_samples} rows (a "
                    "coreset this size is the data itself)"
                )
            if m < n_clusters:
                raise ConfigError(f"kind_params.{given} is below k = {n_clusters}")
        if "lloyd" in settings["solve"] and spec.kmeans.init == FIRST_OF_CLASS:
            raise ConfigError(
                f"kmeans.init={FIRST_OF_CLASS}: a coreset's Lloyd solve starts from its own "
                "points, not the data's classes; use k-means++ or random"
            )
        if "lloyd" in settings["solve"] and spec.kmeans.online_phase:
            raise ConfigError(
                "kmeans.online_phase=true: a coreset's Lloyd solve is scikit-learn's weighted "
                "Lloyd, which has no online phase; leave it off with kind_params.solve=[lloyd]"
            )

    def plan(self, ctx) -> list[Cell]:
        """The experiment's cells: the baseline (with a Lloyd solve), then every (reducer in
        front, r, construction, size, solve, repetition) of :meth:`grid`."""
        spec, k = ctx.experiment, ctx.n_clusters
        families = coreset_settings(spec)["solutions"]
        fingerprint = ctx.data_fingerprint
        where = (spec.seed, spec.dataset.name)
        cells: list[Cell] = []
        for entry in self.grid(spec, ctx.X.shape[1], k):
            if entry[0] == "baseline":
                from kmdr.reducers import baseline_names, reducer_label

                name = baseline_names()[0]
                base = ReducerConfig(name=name, id=name, label=reducer_label(name))
                cells.append(make_cell(spec, base, ctx.X.shape[1], entry[1],
                                       data_fingerprint=fingerprint,
                                       deterministic=True))  # fmt: skip
                continue
            red, r, rep, name, params, m, factor, solve = entry
            # the reduction's seed is the reducer's own at (r, repetition), whatever is built on
            # it; the construction's draws are shared by every reducer in front (paired)
            draws = cell_seed(*where, f"{name}x{factor}" if factor else f"{name}m{m}", 0, rep)
            cells.append(make_cell(
                spec, red, r, rep, data_fingerprint=fingerprint, cell_class=CoresetCell,
                **self._steps(spec, red, name, params, m, factor, solve, families),
                # the cell's seed is its draws'; the reduction's seed is the reducer's own
                seed=draws, coreset_seed=draws, seed_from=None,
                reduction_seed=stream_seeds(cell_seed(*where, red.id, r, rep))[0],
            ))  # fmt: skip
        return cells

    @staticmethod
    def _steps(spec, red, name, params, m, factor, solve, families) -> dict:
        """A coreset cell's fields besides the reducer cell's: its label, k-means settings (its
        solve's own), rows step, solve and evaluation."""
        if solve == "lloyd":
            kmeans, evaluation = kmeans_settings(spec), ""
        else:  # the seedings: k-means++ with no Lloyd step, the study's candidates
            kmeans = {"n_init": CANDIDATES, "max_iter": 0, "init": "k-means++", "tol": 0.0}
            evaluation = f"seedings/{EVALUATION_VERSION}:{','.join(families)}"
        size = f"{factor}k" if factor else f"m = {m}"
        solved = "" if solve == "seedings" else ", Lloyd"
        # no reducer in front: the construction alone (never "k-means + ...", which would read
        # as the baseline)
        front = "" if is_baseline_reducer(red.name) else f"{red.label} + "
        return {
            "label": f"{front}{_label(name, params)} ({size}){solved}",
            "kmeans": kmeans,
            "coreset": {
                "name": name,
                "params": dict(params),
                "size": int(m),
                "version": _version(name, params),
            },
            "solve": solve,
            "evaluation": evaluation,
            "size_factor": int(factor),
            "solutions": tuple(families) if solve == "seedings" else (),
        }

    def shared_data(self, ctx) -> dict:
        from kmdr.metrics import ObjectiveEvaluator

        return {"X": ctx.X, "y": ctx.y, "objective": ObjectiveEvaluator(ctx.X)}

    def compute(self, state, job: Job, *, X, y, objective):
        """The baseline's cells as the sweep of cells computes them, else the coreset cells of
        one reduction (:func:`coreset_job`)."""
        if job.cells[0].coreset is None:
            return group_job(state, job, X=X, y=y, objective=objective)
        return coreset_job(job, X, y, objective), None


def coreset_job(job: Job, A, y, objective) -> list:
    """The coreset cells of one reduction (reduced once), each built, solved and scored
    (:func:`coreset_metrics`): ``[(cell, metrics or the line why it is not written), ...]``."""
    from kmdr.reducers import make_reducer

    first, k = job.cells[0], job.n_clusters
    reducer = make_reducer(first.reducer_name, first.r, n_clusters=k,
                           random_state=first.reduction_seed, **dict(first.params))  # fmt: skip
    start = time.perf_counter()
    C = reducer.fit_transform(A)
    reduce_seconds = time.perf_counter() - start
    families = dict.fromkeys(f for cell in job.cells for f in cell.solutions)
    prepared = {f: solution_family(f).prepare(A, k) for f in families}
    return [
        (cell, coreset_metrics(cell, A, C, y, objective, k, reduce_seconds, prepared))
        for cell in job.cells
    ]


def coreset_metrics(cell, A, C, y, objective, k, reduce_seconds, prepared) -> dict | str:
    """One cell: the coreset of C, carried back to A, solved and scored on A."""
    from kmdr.coresets import make_coreset

    seed, km_seed = stream_seeds(cell.coreset_seed)
    step = cell.coreset
    start = time.perf_counter()
    coreset = make_coreset(step["name"], n_clusters=k, coreset_size=step["size"],
                           random_state=seed, **step["params"]).fit(C)  # fmt: skip
    coreset_seconds = time.perf_counter() - start
    points, weights = coreset.composition_ @ A, coreset.weights_
    common = {
        "shared_seconds": 0.0,
        "shared_key": "",
        "reduce_seconds": reduce_seconds,
        "reduce_timing": "",
        "construction": _label(step["name"], step["params"]),
        "coreset_size": step["size"],
        "coreset_size_factor": cell.size_factor or step["size"] / k,
        "coreset_points": int(points.shape[0]),
        "coreset_seconds": coreset_seconds,
    }
    solve = _lloyd if cell.solve == "lloyd" else _seedings
    out = solve(cell, A, points, weights, y, objective, k, km_seed, prepared)
    if isinstance(out, str):
        return out
    out.update(common)
    out["cluster_seconds"] = coreset_seconds + out["solve_seconds"] + out.get("assign_seconds", 0)
    out["total_seconds"] = reduce_seconds + out["cluster_seconds"]
    return out


def _distinct_rows(points) -> int:
    dense = points.toarray() if hasattr(points, "toarray") else np.asarray(points)
    return int(np.unique(dense, axis=0).shape[0])


def _lloyd(cell, A, points, weights, y, objective, k, km_seed, prepared) -> dict | str:
    """Weighted Lloyd on the coreset with the cell's k-means settings, its centers assigned
    every row of A."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import pairwise_distances_argmin_min

    from kmdr.metrics import label_scores

    if (distinct := _distinct_rows(points)) < k:
        return (f"{cell.label} (repetition {cell.repetition}): the coreset has {distinct} "
                f"distinct points, fewer than k = {k}: Lloyd cannot place k centers on it; "
                "give a larger coreset size")  # fmt: skip
    km = cell.kmeans
    init = "k-means++" if km["init"] == "k-means++" else "random"
    start = time.perf_counter()
    model = KMeans(k, init=init, n_init=km["n_init"], max_iter=km["max_iter"], tol=km["tol"],
                   random_state=km_seed).fit(points, sample_weight=weights)  # fmt: skip
    solve_seconds = time.perf_counter() - start
    start = time.perf_counter()
    labels, dist = pairwise_distances_argmin_min(A, model.cluster_centers_)
    assign_seconds = time.perf_counter() - start
    real = float(np.sum(dist**2))
    if not np.isfinite(real) or not np.isfinite(model.cluster_centers_).all():
        return (f"{cell.label} (repetition {cell.repetition}): Lloyd on the coreset diverged "
                "(its centers or their cost on all rows are not finite)")  # fmt: skip
    norm = objective.squared_norm
    return {
        "objective": float(objective(labels)),
        "objective_reduced": float(model.inertia_) / norm,
        "objective_centers": real / norm,
        **label_scores(y, labels),
        "n_iter": int(model.n_iter_),
        "converged": bool(model.n_iter_ < km["max_iter"]),
        "real_cost": real,
        "coreset_cost": float(model.inertia_),
        "solve_seconds": solve_seconds,
        "assign_seconds": assign_seconds,
    }


def _seedings(cell, A, points, weights, y, objective, k, km_seed, prepared) -> dict:
    """The study's evaluation: k-means++ seedings (timed: the solution a user of the coreset
    would take), then each family of solutions, measured on A."""
    from kmdr.metrics import label_scores

    start = time.perf_counter()
    rng = np.random.RandomState(km_seed)
    drawn = [kmeanspp(points, weights, k, rng) for _ in range(CANDIDATES)]
    solve_seconds = time.perf_counter() - start
    seeded = [{**measure(A, points, weights, c), "centers": c} for c in drawn]
    measured = {}
    for index, family in enumerate(cell.solutions):
        # each family's own draws, so that adding one changes no other
        rng = np.random.RandomState(np.random.SeedSequence([km_seed, index]).generate_state(1))
        measured[family] = solution_family(family).measure(
            prepared[family], A, points, weights, k, rng, seeded
        )
    got = seeded[0]
    worst = max(measured[cell.solutions[0]], key=lambda m: np.nan_to_num(m["distortion"]))
    norm = objective.squared_norm
    return {
        "objective": float(objective(got["labels"])),
        "objective_reduced": got["coreset_cost"] / norm,
        **label_scores(y, got["labels"]),
        "n_iter": 0,  # seedings: no Lloyd step
        "converged": None,
        "real_cost": worst["real_cost"],
        "coreset_cost": worst["coreset_cost"],
        "distortion": worst["distortion"],
        **{
            f"distortion_{family.replace('+', 'p')}": max(m["distortion"] for m in got_family)
            for family, got_family in measured.items()
        },
        "distortion_first": got["distortion"],
        "solve_seconds": solve_seconds,
    }


#: The experiment kind ``coresets``.
CORESETS = Sweep(CoresetCells())
