"""The ``coresets`` experiment kind: coreset cells, with kmdr's reducers in front.

A coreset cell is (dataset, reducer and r in front, construction, coreset size m, repetition).
It reduces the columns of A to C = A R with the reducer (none: C = A), builds the construction's
coreset on C's rows (:mod:`kmdr.coresets`), carries it back to A's own space (its
``composition_ @ A``: a sampled row is A's row, a constructed point the mean of the same rows of
A), and measures it on the ORIGINAL data with the solutions Schwiegelshohn and Sheikh-Omar
evaluate (:mod:`.evaluation`: ``kind_params.solutions`` names the families, the first the
cell's ``distortion``):

- ``distortion``: the first family's largest distortion over its candidates, as the authors
  report it, and ``distortion_<family>`` for each family measured (``distortion_kmeanspp`` for
  k-means++, always measured: its first seeding is the cell's partition);
  ``distortion_first``: the first k-means++ seeding's alone;
- ``real_cost`` and ``coreset_cost``: the two costs of the first family's worst candidate, as
  the authors keep them;
- ``objective`` and ``objective_reduced``: the first k-means++ seeding's two costs over
  ``||A||^2`` (F of the partition of A by the nearest center, and the coreset's estimate of
  it), and that partition's accuracy, NMI and ARI, so that a coreset cell is read as any other;
- ``reduce_seconds``, ``coreset_seconds``, ``solve_seconds`` (the k-means++ seedings), and
  ``total_seconds``, their sum (``cluster_seconds`` is coreset plus solve).

The cells are a sweep's (:class:`kmdr.engine.sweep.CellsKind`): rows of the folder's
``cells.csv`` with the identity every cell has (the ``reducer`` column names the reducer id,
the construction and the size factor, ``reducer_params`` holds them and the evaluation, its
``data_fingerprint`` and ``code_tag`` the data and code), each sealed by its checksum, reused by
a rerun, computed on the run's workers (any backend, dask's among them) under the run's
``cell_time_limit``. A job is the cells that share one reduction (reducer, r, repetition): it
reduces once. The grid is the experiment's ``reducers`` and ``r_grid`` with ``kind_params``:
``constructions`` (names of :data:`kmdr.coresets.CORESETS`), ``size_factors`` (m = factor x k,
the authors' 50, 100, 200, 500) and ``solutions`` (default ``[kmeans++]``).
"""

from __future__ import annotations

import dataclasses
import time
from types import SimpleNamespace

import numpy as np

from kmdr.config.errors import ConfigError
from kmdr.config.seeds import cell_seed, stream_seeds
from kmdr.engine.data_path import RowBlocks
from kmdr.engine.sweep import CellsKind
from kmdr.metrics import label_scores
from kmdr.papers.ss22.evaluation import (
    CANDIDATES,
    SOLUTIONS,
    BenchmarkSolutions,
    check_benchmark_shape,
    measure,
    solutions,
)
from kmdr.results.cells import Cell, make_cell, r_values

__all__ = ["CORESETS_KIND", "CoresetCell", "CoresetKind", "coreset_job"]

#: How a coreset cell is measured, in every cell's identity (``reducer_params``): a change of
#: the evaluation is a new cell, never a reused one.
EVALUATION = "authors-x{n}:{families}"
#: The settings of ``kind_params`` and their defaults (None: required).
KIND_PARAMS = {"constructions": None, "size_factors": None, "solutions": ["kmeans++"]}


def _squared_norm(A) -> float:
    if hasattr(A, "multiply"):  # sparse
        return float(A.multiply(A).sum())
    return float(np.einsum("ij,ij->", A, A))


@dataclasses.dataclass(frozen=True)
class CoresetCell(Cell):
    """A cell of the coresets kind: a sweep's cell (its identity, seed and id) with what its job
    needs besides, none of it beyond what the identity already says."""

    #: The reducer in front: its id, name and parameters, and the seed of its reduction.
    reduction: tuple = ("", "", ())
    reduction_seed: int = 0
    construction: str = ""
    size_factor: int = 0
    #: The seed of the construction's draws, shared by every reducer in front (paired).
    coreset_seed: int = 0
    solutions: tuple = ()

    @property
    def group_key(self) -> tuple:
        """One job per reduction: its constructions and sizes reduce once."""
        return ("reduction", self.reduction[0], self.r, self.repetition)


def _settings(spec) -> dict:
    params = {**KIND_PARAMS, **dict(spec.kind_params)}
    unknown = set(params) - set(KIND_PARAMS)
    if unknown or any(v is None or not list(v) for v in params.values()):
        raise ConfigError(
            "the coresets kind needs kind_params.constructions and kind_params.size_factors "
            f"(and takes solutions, nothing else), got {sorted(dict(spec.kind_params))}"
        )
    families = [str(f) for f in params["solutions"]]
    if bad := [f for f in families if f not in SOLUTIONS]:
        raise ConfigError(f"kind_params.solutions: {bad[0]!r} is none of {', '.join(SOLUTIONS)}")
    return {
        "constructions": [str(c) for c in params["constructions"]],
        "size_factors": [int(f) for f in params["size_factors"]],
        # k-means++ always: its first seeding is the cell's partition
        "solutions": tuple(dict.fromkeys([*families, "kmeans++"])),
    }


def coreset_job(state, cells, A, y, norm, n_clusters, shared_seed, token):
    """A job of the coresets kind, in whatever process computes it: the ``cells`` of one
    reduction (reduced once), each built, solved and measured (:func:`coreset_metrics`).
    Returns ``([(cell, metrics), ...], None)``, as a sweep's job."""
    from kmdr.reducers import make_reducer

    first = cells[0]
    _, red_name, red_params = first.reduction
    reducer = make_reducer(red_name, first.r, n_clusters=n_clusters,
                           random_state=first.reduction_seed, **dict(red_params))  # fmt: skip
    start = time.perf_counter()
    C = reducer.fit_transform(A)
    reduce_seconds = time.perf_counter() - start
    benchmark = BenchmarkSolutions(A, n_clusters) if "benchmark" in first.solutions else None
    return [
        (cell, coreset_metrics(cell, A, C, y, norm, n_clusters, reduce_seconds, benchmark))
        for cell in cells
    ], None


def coreset_metrics(cell, A, C, y, norm, k, reduce_seconds, benchmark) -> dict:
    """One cell: the coreset of C, carried back to A, its solutions measured on A."""
    from kmdr.coresets import make_coreset

    seed, km_seed = stream_seeds(cell.coreset_seed)
    start = time.perf_counter()
    coreset = make_coreset(cell.construction, n_clusters=k,
                           coreset_size=cell.size_factor * k, random_state=seed).fit(C)  # fmt: skip
    coreset_seconds = time.perf_counter() - start
    points, weights = coreset.composition_ @ A, coreset.weights_
    # the k-means++ seedings, timed: the solution a user of the coreset would take
    start = time.perf_counter()
    rng = np.random.RandomState(km_seed)
    seedings = solutions("kmeans++", points, weights, k, rng)
    solve_seconds = time.perf_counter() - start
    measured = {}
    for index, family in enumerate(cell.solutions):
        if family == "benchmark":
            measured[family] = benchmark.distortions(points, weights)
            continue
        # each family's own draws, so that adding one changes no other
        rng = np.random.RandomState(np.random.SeedSequence([km_seed, index]).generate_state(1))
        candidates = solutions(family, points, weights, k, rng, first=seedings)
        measured[family] = [measure(A, points, weights, centers) for centers in candidates]
    got = measured["kmeans++"][0]
    worst = max(measured[cell.solutions[0]], key=lambda m: np.nan_to_num(m["distortion"]))
    return {
        "objective": got["real_cost"] / norm,
        "objective_reduced": got["coreset_cost"] / norm,
        **label_scores(y, got["labels"]),
        "n_iter": 0,
        "shared_seconds": 0.0,
        "shared_key": "",
        "reduce_seconds": reduce_seconds,
        "cluster_seconds": coreset_seconds + solve_seconds,
        "total_seconds": reduce_seconds + coreset_seconds + solve_seconds,
        "converged": True,
        "reduce_timing": "",
        "construction": cell.construction,
        "coreset_size": cell.size_factor * k,
        "coreset_size_factor": cell.size_factor,
        "coreset_points": int(points.shape[0]),
        "real_cost": worst["real_cost"],
        "coreset_cost": worst["coreset_cost"],
        "distortion": worst["distortion"],
        **{
            f"distortion_{family.replace('+', 'p')}": max(m["distortion"] for m in got_family)
            for family, got_family in measured.items()
        },
        "distortion_first": got["distortion"],
        "coreset_seconds": coreset_seconds,
        "solve_seconds": solve_seconds,
    }


class CoresetKind(CellsKind):
    """The ``coresets`` experiment kind (see the module docstring): a sweep of cells whose job
    is :func:`coreset_job`."""

    name = "coresets"
    reads = ("dataset", "reducers", "r_grid", "repeats", "seed", "blas_threads", "kind_params")
    job = staticmethod(coreset_job)

    def job_data(self, ctx) -> tuple:
        return ctx.X, ctx.y, _squared_norm(ctx.X)

    def grid(self, spec, n_features: int):
        """Every cell of ``spec``: (reducer config, r, construction, factor, repetition)."""
        settings = _settings(spec)
        from kmdr.coresets import CORESETS

        for name in settings["constructions"]:
            CORESETS.get(name)  # a one-line RegistryError for a name that means none
        reducers = spec.reducers.values() if hasattr(spec.reducers, "values") else spec.reducers
        for red in reducers:
            for r in r_values(red.name, red.max_r, spec.r_grid, n_features):
                for rep in range(spec.repeats):
                    for name in settings["constructions"]:
                        for factor in settings["size_factors"]:
                            yield red, r, name, factor, rep

    def check_against_data(self, spec, n_samples, n_features, n_clusters, *, sparse=False):
        """A coreset larger than the data, one that cannot hold k points, or the Benchmark's
        solutions on other data: one line."""
        settings = _settings(spec)
        if "benchmark" in settings["solutions"]:
            check_benchmark_shape(n_samples, n_features, n_clusters)
        for factor in settings["size_factors"]:
            m = factor * n_clusters
            if m > n_samples:
                raise ConfigError(
                    f"kind_params.size_factors: {factor} x k = {m} is larger than the data's "
                    f"{n_samples} rows (a coreset this size is the data itself)"
                )
            if factor < 1:
                raise ConfigError(f"kind_params.size_factors: {factor} is below 1 (m < k)")

    def plan(self, ctx) -> list:
        """The experiment's cells, each with its identity and id: (reducer + construction and
        size factor as the ``reducer`` column, r, repetition)."""
        spec = ctx.experiment
        families = _settings(spec)["solutions"]
        evaluation = EVALUATION.format(n=CANDIDATES, families=",".join(families))
        cells = []
        for red, r, name, factor, rep in self.grid(spec, ctx.X.shape[1]):
            composite = SimpleNamespace(
                id=f"{red.id}+{name}x{factor}",
                name=red.name,
                label=f"{red.label} + {name} ({factor}k)",
                params={**dict(red.params), "coreset": name, "coreset_size_factor": factor,
                        "evaluation": evaluation},
                seed_from=None,
            )  # fmt: skip
            cell = make_cell(spec, composite, r, rep, data_fingerprint=ctx.data_fingerprint)
            # the reduction's seed is the reducer's own at (r, repetition), whatever is built on
            # it; the coreset's draws are shared by every reducer in front (paired by repetition)
            where = (spec.seed, spec.dataset.name)
            cells.append(CoresetCell(
                **{f.name: getattr(cell, f.name) for f in dataclasses.fields(Cell)},
                reduction=(red.id, red.name, tuple(sorted(dict(red.params).items()))),
                reduction_seed=stream_seeds(cell_seed(*where, red.id, r, rep))[0],
                construction=name,
                size_factor=factor,
                coreset_seed=cell_seed(*where, f"{name}x{factor}", 0, rep),
                solutions=families,
            ))  # fmt: skip
        return cells

    def run(self, ctx) -> None:
        if isinstance(ctx.data_path, RowBlocks):
            raise ConfigError(
                "block_rows: the coresets kind computes each cell on data in memory (on dask, "
                "without block_rows, its cells run on the cluster's workers)"
            )
        super().run(ctx)


CORESETS_KIND = CoresetKind()
