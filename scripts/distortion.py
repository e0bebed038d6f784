"""Measure, for every committed cell of an oblivious map, how far C distorts the cost of the
partition the cell found, and of partitions fixed before the map was drawn:
``|cost_C(P) / cost_A(P) - 1|`` on the unnormalised costs.

    python scripts/distortion.py --results results
    # writes results/theory/distortion.csv (found) and distortion_fixed.csv (fixed partitions)

A cell stores its partition's F on A (``objective`` = cost_A(P) / ||A||²) and on C
(``objective_reduced`` = cost_C(P) / ||C||²), so the ratio of the costs needs ||A||² and ||C||².
||A||² comes from the data the experiment ran on (loaded as the run loaded it); ||C||² from the
cell's C, made again from the cell's seed as the run made it (the reducer's stream of the seed:
the same C). No cell and no column of the store is changed: the script writes one CSV, one row per
cell, which the report's theory section reads. To show that C is the run's, the first cell of
each (experiment, method) is computed again whole (C, then k-means with the cell's k-means seed
and settings): ``reproduced`` says whether its ``objective_reduced`` came out the same (to 1e-9,
relative); the others are ``nan`` (not checked).

The partition a cell found was chosen by Lloyd on C, so its cost on C is optimistic (it was
fitted to C): its distortion measures k-means fitting the sketch as much as the map. The map's
own distortion is measured on partitions that do not depend on C: per dataset (and k), the
partition k-means finds on A (scikit-learn's KMeans, :data:`PARTITION_N_INIT` k-means++ starts,
seeded), :data:`N_PARTITIONS` perturbations of it (a share :data:`PERTURBED_SHARE` of the points,
drawn at random, swap labels among themselves: the cluster sizes stay) and :data:`N_PARTITIONS`
random partitions with its cluster sizes (its labels permuted), all drawn from
:data:`PARTITION_SEED`. Cells of several experiments that share a seed (the same dataset, map,
r and seed: the same C) are one computation and one row of ``distortion_fixed.csv``, which names
the experiments it serves; its columns ``kmeans_A``, ``perturbed_<i>`` and ``random_<i>`` hold
each partition's signed ``cost_C(P) / cost_A(P) - 1``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr._errors import CommandParser
from kmdr.metrics import partition_cost

#: The oblivious maps: C = A S with S drawn without looking at A (the distortion bound of
#: Makarychev, Makarychev and Razenshteyn covers them, with their own constants).
OBLIVIOUS = ("sign", "gaussian", "achlioptas", "sparse_embedding", "srht")
COLUMNS = [
    "experiment",
    "dataset",
    "method",
    "reducer_name",
    "r",
    "repetition",
    "n_samples",
    "n_features",
    "n_clusters",
    "objective",
    "objective_reduced",
    "norm_A2",
    "norm_C2",
    "cost_A",
    "cost_C",
    "distortion",
    "reproduced",
    "cell_id",
]


def _squared_norm(M) -> float:
    data = M.data if hasattr(M, "toarray") else np.asarray(M)
    return float(np.dot(data.ravel(), data.ravel()))


def _kmeans_settings(exp_dir: Path, row) -> dict:
    """The cell's k-means settings: its columns, and the run's online-phase flag."""
    settings = {
        "init": row.kmeans_init,
        "n_init": int(row.kmeans_n_init),
        "max_iter": int(row.kmeans_max_iter),
        "tol": float(row.kmeans_tol),
    }
    run = exp_dir / "runs" / f"{row.run_id}.json"
    if run.is_file():
        kmeans = json.loads(run.read_text()).get("config", {}).get("kmeans", {})
        settings["online_phase"] = bool(kmeans.get("online_phase", False))
    return settings


#: The columns computed here (the others are copied from the cells).
DERIVED = ("norm_A2", "norm_C2", "cost_A", "cost_C", "distortion")
#: How many perturbed and how many random partitions are measured beside k-means' on A.
N_PARTITIONS = 8
#: The share of points whose labels a perturbation permutes among themselves.
PERTURBED_SHARE = 0.1
#: The seed of k-means on A and of the perturbed and random partitions (the same per dataset).
PARTITION_SEED = 0
#: k-means++ starts of k-means on A.
PARTITION_N_INIT = 3
#: The fixed partitions' columns, in order.
PARTITIONS = (
    "kmeans_A",
    *(f"perturbed_{i}" for i in range(N_PARTITIONS)),
    *(f"random_{i}" for i in range(N_PARTITIONS)),
)
FIXED_COLUMNS = [
    "dataset",
    "reducer_name",
    "methods",
    "experiments",
    "r",
    "repetition",
    "seed",
    "n_samples",
    "n_features",
    "n_clusters",
    *PARTITIONS,
]


def fixed_partitions(X, k: int) -> np.ndarray:
    """The partitions fixed before any map is drawn (one row each, in :data:`PARTITIONS`
    order): k-means' on A, its perturbations, random partitions of its cluster sizes."""
    from sklearn.cluster import KMeans

    rng = np.random.default_rng(PARTITION_SEED)
    km = KMeans(k, n_init=PARTITION_N_INIT, random_state=PARTITION_SEED).fit(X)
    base = km.labels_.astype(np.int64)
    n = len(base)
    out = [base]
    for _ in range(N_PARTITIONS):
        moved = rng.choice(n, size=int(np.ceil(PERTURBED_SHARE * n)), replace=False)
        labels = base.copy()
        labels[moved] = base[rng.permutation(moved)]
        out.append(labels)
    out.extend(rng.permutation(base) for _ in range(N_PARTITIONS))
    return np.vstack(out)


def partition_costs(M, partitions: np.ndarray) -> np.ndarray:
    """The k-means cost of each partition (a row of labels) on the rows of ``M``
    (:func:`kmdr.metrics.partition_cost`: explicit residuals, so that the last digits of a cost
    where a partition fits do not follow where numpy's allocator put the array)."""
    return np.asarray([partition_cost(M, labels) for labels in partitions])


class Fixed:
    """The fixed-partition measurements of a whole results folder: each dataset's partitions
    and their costs on A (computed once), and one row per computation (dataset, map, r, seed),
    whichever experiments share it."""

    def __init__(self):
        self.partitions: dict = {}
        self.rows: dict = {}

    def on_data(self, dataset: str, params: str, X, k: int):
        key = (dataset, params, k)
        if key not in self.partitions:
            parts = fixed_partitions(X, k)
            self.partitions[key] = (parts, partition_costs(X, parts))
        return self.partitions[key]

    def add(self, exp: str, row, X, C) -> None:
        key = (row.dataset, row.dataset_params, row.reducer_name, row.reducer_params, int(row.r),
               int(row.seed))  # fmt: skip
        if key in self.rows:
            found = self.rows[key]
            found["experiments"].add(exp)
            found["methods"].add(row.method)
            return
        parts, cost_A = self.on_data(row.dataset, row.dataset_params, X, int(row.n_clusters))
        signed = partition_costs(C, parts) / cost_A - 1.0
        self.rows[key] = {
            "dataset": row.dataset,
            "reducer_name": row.reducer_name,
            "methods": {row.method},
            "experiments": {exp},
            "r": int(row.r),
            "repetition": int(row.repetition),
            "seed": int(row.seed),
            "n_samples": int(row.n_samples),
            "n_features": int(row.n_features),
            "n_clusters": int(row.n_clusters),
            **{name: float(f"{v:.6g}") for name, v in zip(PARTITIONS, signed, strict=True)},
        }

    def table(self) -> pd.DataFrame:
        rows = [
            {**row, "methods": " / ".join(sorted(row["methods"])),
             "experiments": " ".join(sorted(row["experiments"]))}
            for row in self.rows.values()
        ]  # fmt: skip
        table = pd.DataFrame(rows, columns=FIXED_COLUMNS)
        return table.sort_values(["dataset", "reducer_name", "repetition", "r"], ignore_index=True)


def measure(exp_dir: Path, fixed: Fixed | None = None) -> pd.DataFrame:
    """The rows of one experiment folder (empty when it has no oblivious-map cell), computed with
    one BLAS thread outside a cell's own count too (||A||², the costs): a sum's order, and so its
    last digits, would otherwise follow the machine's cores. With ``fixed``, each cell's C is
    also measured on the fixed partitions (:class:`Fixed`)."""
    from kmdr._native import limited_threads  # the thread limits' owner (a private module)

    with limited_threads(1):
        return _measure(exp_dir, fixed)


def _measure(exp_dir: Path, fixed: Fixed | None) -> pd.DataFrame:
    from kmdr._native import limited_threads
    from kmdr.config.seeds import stream_seeds
    from kmdr.datasets import load_dataset
    from kmdr.engine.data_path import prepare_data
    from kmdr.engine.work import cluster_reduced
    from kmdr.metrics import kmeans_objective
    from kmdr.reducers import make_reducer
    from kmdr.results.cells import reducer_kwargs

    cells = pd.read_csv(exp_dir / "cells.csv")
    cells = cells[cells["reducer_name"].isin(OBLIVIOUS)]
    if cells.empty:
        return pd.DataFrame(columns=COLUMNS)
    rows = []
    for (dataset, params), part in cells.groupby(["dataset", "dataset_params"], sort=False):
        data = load_dataset(dataset, **json.loads(params))
        X, y = prepare_data(data.X), np.asarray(data.y)
        norm_A2 = _squared_norm(X)
        checked = set()
        for row in part.sort_values(["method", "r", "repetition"]).itertuples(index=False):
            red_seed, km_seed = stream_seeds(int(row.seed))
            kwargs, k = reducer_kwargs(json.loads(row.reducer_params), int(row.n_clusters))
            reducer = make_reducer(
                row.reducer_name, int(row.r), n_clusters=k, random_state=red_seed, **kwargs
            )
            # with the cell's own BLAS threads (part of its identity): another count adds C's
            # sums in another order, and its last digits would follow the machine's cores
            with limited_threads(int(row.blas_threads)):
                C = reducer.fit_transform(X, shared=None)
                norm_C2 = _squared_norm(C)
                reproduced = np.nan
                if row.method not in checked:  # each method's first cell: computed again whole
                    checked.add(row.method)
                    settings = _kmeans_settings(exp_dir, row)
                    result = cluster_reduced(
                        reducer, C, X, int(row.n_clusters), settings, y, km_seed
                    )
                    again = kmeans_objective(C, result.labels)
                    reproduced = bool(np.isclose(again, row.objective_reduced, rtol=1e-9, atol=0))
            if fixed is not None:
                fixed.add(exp_dir.name, row, X, C)
            cost_A, cost_C = row.objective * norm_A2, row.objective_reduced * norm_C2
            rows.append(
                {
                    "experiment": exp_dir.name,
                    "dataset": dataset,
                    "method": row.method,
                    "reducer_name": row.reducer_name,
                    "r": int(row.r),
                    "repetition": int(row.repetition),
                    "n_samples": int(row.n_samples),
                    "n_features": int(row.n_features),
                    "n_clusters": int(row.n_clusters),
                    "objective": row.objective,
                    "objective_reduced": row.objective_reduced,
                    "norm_A2": norm_A2,
                    "norm_C2": norm_C2,
                    "cost_A": cost_A,
                    "cost_C": cost_C,
                    "distortion": abs(cost_C / cost_A - 1.0),
                    "reproduced": reproduced,
                    "cell_id": row.cell_id,
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS)


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="results", type=Path, help="results folder")
    args = parser.parse_args(argv)
    from kmdr._io import atomic_write_text
    from kmdr.report.distortion import CSV, FIXED_CSV, draw_distortion
    from kmdr.results.runs import experiment_config, experiment_dirs

    frames = []
    fixed = Fixed()
    for exp_dir in experiment_dirs(args.results):
        # the sweep's cells only: a paper kind's cells (a coreset's) are not C = A S clustered
        kind = experiment_config(exp_dir, "kind") or "cells"
        if not (exp_dir / "cells.csv").is_file() or kind != "cells":
            continue
        part = measure(exp_dir, fixed)
        if len(part):
            bad = part["reproduced"].eq(False).sum()
            print(f"{exp_dir.name}: {len(part)} cells, {bad} not reproduced", flush=True)
            frames.append(part)
    table = pd.concat(frames, ignore_index=True)
    # The measured columns to the digits the cells' objectives (stored to 10) support: a
    # distortion of 1e-5 is a difference of two costs that agree to 5 digits, and its 10th digit
    # follows the order of the sums (the machine's SIMD and BLAS paths), not the data.
    for column in DERIVED:
        table[column] = table[column].map(lambda v: float(f"{v:.6g}"))
    path = args.results / CSV
    atomic_write_text(path, table.to_csv(index=False, float_format="%.10g"))
    fixed_table = fixed.table()
    fixed_path = args.results / FIXED_CSV
    atomic_write_text(fixed_path, fixed_table.to_csv(index=False, float_format="%.10g"))
    figure = draw_distortion(args.results)
    print(
        f"wrote {path} ({len(table)} cells), {fixed_path} ({len(fixed_table)} computations) "
        f"and {figure}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
