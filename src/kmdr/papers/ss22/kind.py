"""The ``coresets`` experiment kind: coreset cells, with kmdr's reducers in front.

A coreset cell is (dataset, reducer and r in front, construction, coreset size m, repetition).
It reduces the columns of A to C = A R with the reducer (none: C = A), builds the construction's
coreset on C's rows (:mod:`kmdr.coresets`), carries it back to A's own space (its
``composition_ @ A``: a sampled row is A's row, a constructed point the mean of the same rows of
A), finds :data:`CANDIDATES` solutions on the weighted coreset there (weighted k-means++
seedings with no Lloyd step, as the authors' ``kmeans`` tool runs with 0 iterations), and
measures them on the ORIGINAL data, as Schwiegelshohn and Sheikh-Omar do (their
``xrun/calc_costs.py``):

- ``real_cost``: the k-means cost of A for the first solution; ``coreset_cost``: the coreset's;
- ``distortion``: ``max(real/coreset, coreset/real)``, the largest over the solutions, as theirs
  (``distortion_first``: the first solution's alone);
- ``objective`` and ``objective_reduced``: the first solution's two costs over ``||A||^2`` (F of
  the partition of A by the nearest center, and the coreset's estimate of it), and that
  partition's accuracy, NMI and ARI, so that a coreset cell is read as any other;
- ``reduce_seconds``, ``coreset_seconds``, ``solve_seconds`` (the seedings), and
  ``total_seconds``, their sum (``cluster_seconds`` is coreset plus solve).

The authors also measure synthetic solutions (random points in the convex hull of a k-means++
solution, or in the coreset's minimum enclosing ball); kmdr does not yet.

Each cell is a row of the folder's ``cells.csv`` with the identity every cell has (its
``reducer`` column names the reducer id, the construction and the size factor, its
``reducer_params`` holds them, its ``data_fingerprint`` and ``code_tag`` the data and code), so a
rerun reuses every cell done, and each row is sealed by its checksum. The grid is the
experiment's ``reducers`` and ``r_grid`` with ``kind_params``: ``constructions`` (names of
:data:`kmdr.coresets.CORESETS`) and ``size_factors`` (m = factor x k, the authors' 50, 100, 200,
500). The cells are computed one after the other in the run's process: this kind does not yet
take ``cell_time_limit`` or a Dask backend.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np
from sklearn.cluster import kmeans_plusplus
from sklearn.metrics import pairwise_distances_argmin_min

from kmdr.config.errors import ConfigError
from kmdr.config.seeds import cell_seed, stream_seeds
from kmdr.metrics import label_scores
from kmdr.results.cells import cell_row, identity_dicts, make_cell, r_values
from kmdr.results.provenance import now

__all__ = ["CANDIDATES", "CORESETS_KIND", "CoresetKind", "measure"]

#: The k-means++ solutions found on each coreset and measured (the authors' five).
CANDIDATES = 5
#: How a coreset cell is measured, in every cell's identity (``reducer_params``): a change of
#: the evaluation is a new cell, never a reused one.
EVALUATION = f"authors-kmeans++x{CANDIDATES}"


def _squared_norm(A) -> float:
    if hasattr(A, "multiply"):  # sparse
        return float(A.multiply(A).sum())
    return float(np.einsum("ij,ij->", A, A))


def measure(A, points, weights, centers) -> dict:
    """The solution ``centers`` on the data ``A`` and on the weighted coreset ``points``: the
    partition of A, both costs and the distortion."""
    labels, dist = pairwise_distances_argmin_min(A, centers)
    real = float(np.sum(dist**2))
    _, core_dist = pairwise_distances_argmin_min(points, centers)
    coreset = float(weights @ core_dist**2)
    return {
        "labels": labels,
        "real_cost": real,
        "coreset_cost": coreset,
        "distortion": max(real / coreset, coreset / real) if real > 0 and coreset > 0 else np.nan,
    }


class CoresetKind:
    """The ``coresets`` experiment kind (see the module docstring)."""

    name = "coresets"
    writes_cells = True  # its own grid of cells (:meth:`plan`), in the folder's cells.csv
    reads = ("dataset", "reducers", "r_grid", "repeats", "seed", "blas_threads", "kind_params")

    def grid(self, spec, n_features: int, n_clusters: int):
        """Every cell of ``spec``: (reducer config, r, construction, factor, repetition)."""
        params = dict(spec.kind_params)
        constructions = list(params.get("constructions", ()))
        factors = [int(f) for f in params.get("size_factors", ())]
        unknown = set(params) - {"constructions", "size_factors"}
        if not constructions or not factors or unknown:
            raise ConfigError(
                "the coresets kind needs kind_params.constructions and kind_params.size_factors "
                f"(and nothing else), got {sorted(params)}"
            )
        from kmdr.coresets import CORESETS

        for name in constructions:
            CORESETS.get(name)  # a one-line RegistryError for a name that means none
        reducers = spec.reducers.values() if hasattr(spec.reducers, "values") else spec.reducers
        for red in reducers:
            for r in r_values(red.name, red.max_r, spec.r_grid, n_features):
                # repetition before construction and size: consecutive cells share the
                # reduction of (reducer, r, repetition), which the run keeps for them
                for rep in range(spec.repeats):
                    for name in constructions:
                        for factor in factors:
                            yield red, r, name, factor, rep

    def check_against_data(self, spec, n_samples, n_features, n_clusters, *, sparse=False):
        """A coreset larger than the data, or one that cannot hold k points: one line."""
        for factor in spec.kind_params.get("size_factors", ()):
            m = int(factor) * n_clusters
            if m > n_samples:
                raise ConfigError(
                    f"kind_params.size_factors: {factor} x k = {m} is larger than the data's "
                    f"{n_samples} rows (a coreset this size is the data itself)"
                )
            if int(factor) < 1:
                raise ConfigError(f"kind_params.size_factors: {factor} is below 1 (m < k)")

    def plan(self, ctx) -> list:
        """The experiment's cells, each with its identity and id: (reducer + construction and
        size factor as the ``reducer`` column, r, repetition)."""
        return [cell for cell, *_ in self._planned(ctx)]

    def _planned(self, ctx) -> list[tuple]:
        spec = ctx.experiment
        cells = []
        for red, r, name, factor, rep in self.grid(spec, ctx.X.shape[1], ctx.n_clusters):
            composite = SimpleNamespace(
                id=f"{red.id}+{name}x{factor}",
                name=red.name,
                label=f"{red.label} + {name} ({factor}k)",
                params={
                    **dict(red.params),
                    "coreset": name,
                    "coreset_size_factor": factor,
                    "evaluation": EVALUATION,
                },
                seed_from=None,
            )
            cell = make_cell(spec, composite, r, rep, data_fingerprint=ctx.data_fingerprint)
            cells.append((cell, red, name, factor))
        return cells

    def run(self, ctx) -> None:
        from kmdr.engine.worker import process_state

        planned = self._planned(ctx)
        cells = [c[0] for c in planned]
        ctx.outcome.n_expected = len(cells)
        ctx.record["expected_cells"] = identity_dicts(cells)
        done = ctx.store.done_ids()
        if done & {c.cell_id for c in cells}:
            ctx.store.rebuild_csv()  # a previous run may have been killed before rebuilding it
        # what consecutive cells share: the reduction of (reducer, r, repetition), ||A||^2
        cache: dict = {"reduced": (None, None, 0.0), "norm": _squared_norm(ctx.X)}
        # computed here, in the run's process, with the cells' BLAS/OpenMP threads (part of
        # their identity), every library's pool loaded first
        with process_state().threads(ctx.experiment.blas_threads):
            for cell, red, name, factor in planned:
                if cell.cell_id in done:
                    ctx.outcome.n_reused += 1
                    continue
                self._compute(ctx, cell, red, name, factor, cache)
                ctx.outcome.n_computed += 1
        ctx.store.rebuild_csv()  # the rows sorted by their identity, as the sweep leaves them
        ctx.record["cells_done"] = identity_dicts(cells)
        ctx.record["n_cells_computed"] = ctx.outcome.n_computed

    def _compute(self, ctx, cell, red, name, factor, cache: dict) -> None:
        from kmdr.coresets import make_coreset
        from kmdr.reducers import make_reducer

        spec, A, k = ctx.experiment, ctx.X, ctx.n_clusters
        n, d = A.shape
        r, rep = cell.r, cell.repetition
        # the reduction of (reducer, r, repetition) is shared by its constructions and sizes
        key = (red.id, r, rep)
        if cache["reduced"][0] != key:
            seed, _ = stream_seeds(cell_seed(spec.seed, spec.dataset.name, red.id, r, rep))
            reducer = make_reducer(red.name, r, n_clusters=k, random_state=seed,
                                   **dict(red.params))  # fmt: skip
            start = time.perf_counter()
            C = reducer.fit_transform(A)
            cache["reduced"] = (key, C, time.perf_counter() - start)
        _, C, reduce_seconds = cache["reduced"]
        # the coreset's draws are shared by every reducer in front (paired by repetition)
        seed, km_seed = stream_seeds(
            cell_seed(spec.seed, spec.dataset.name, f"{name}x{factor}", 0, rep)
        )
        start = time.perf_counter()
        coreset = make_coreset(name, n_clusters=k, coreset_size=factor * k,
                               random_state=seed).fit(C)  # fmt: skip
        coreset_seconds = time.perf_counter() - start
        points, weights = coreset.composition_ @ A, coreset.weights_
        # the authors' solutions: CANDIDATES weighted k-means++ seedings on the coreset, no Lloyd
        # step (their kmeans tool run with 0 iterations), each measured; the distortion is the
        # largest, as their calc_costs.py takes it
        start = time.perf_counter()
        rng = np.random.RandomState(km_seed)
        solutions = [
            kmeans_plusplus(points, k, sample_weight=weights, random_state=rng, n_local_trials=1)[0]
            for _ in range(CANDIDATES)
        ]
        solve_seconds = time.perf_counter() - start
        measured = [measure(A, points, weights, centers) for centers in solutions]
        got = measured[0]
        norm = cache["norm"]
        metrics = {
            "objective": got["real_cost"] / norm,
            "objective_reduced": got["coreset_cost"] / norm,
            **label_scores(ctx.y, got["labels"]),
            "n_iter": 0,
            "shared_seconds": 0.0,
            "shared_key": "",
            "reduce_seconds": reduce_seconds,
            "cluster_seconds": coreset_seconds + solve_seconds,
            "total_seconds": reduce_seconds + coreset_seconds + solve_seconds,
            "converged": True,
            "reduce_timing": "",
        }
        run = {**ctx.parallelism.record, "run_id": ctx.outcome.run_id, "finished_at": now()}
        row = cell_row(cell, metrics, experiment=spec.name, shape=(n, d, k), run=run)
        row.update(
            construction=name,
            coreset_size=factor * k,
            coreset_size_factor=factor,
            coreset_points=int(points.shape[0]),
            real_cost=got["real_cost"],
            coreset_cost=got["coreset_cost"],
            distortion=max(m["distortion"] for m in measured),
            distortion_first=got["distortion"],
            coreset_seconds=coreset_seconds,
            solve_seconds=solve_seconds,
        )
        ctx.store.write_cell(cell.cell_id, row)


CORESETS_KIND = CoresetKind()
