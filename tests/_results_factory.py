"""Hand-made experiment folders (docs/results-layout.md) shared by the aggregate, figure and
report tests: cells CSVs and run sidecars, written without running anything."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr.experiments import aggregate as agg


def make_cells(
    experiment: str,
    grid: dict[str, list[int]],
    reps: int,
    dataset: str = "orl",
    shape: tuple[int, int, int] = (40, 64, 4),
    seed: int = 0,
) -> pd.DataFrame:
    """One row per (reducer, r, repetition); ``grid`` maps reducer -> r values ('none' = kMeans)."""
    rng = np.random.default_rng(seed)
    labels = {"leverage": "Sampl/SVD", "sign": "RP", "svd": "SVD", "none": "kMeans"}
    n, d, k = shape
    rows = []
    for reducer, rs in grid.items():
        for r in rs:
            for rep in range(reps):
                red = 0.0 if reducer == "none" else float(rng.uniform(0.01, 0.1))
                clu = float(rng.uniform(0.01, 0.1))
                rows.append(
                    {
                        "experiment": experiment,
                        "dataset": dataset,
                        "reducer": reducer,
                        "reducer_name": reducer,
                        "method": labels.get(reducer, reducer),
                        "r": r,
                        "repetition": rep,
                        "seed": 1000 + rep,
                        "n_samples": n,
                        "n_features": d,
                        "n_clusters": k,
                        "objective": float(rng.uniform(0.5, 0.9)),
                        "objective_reduced": float(rng.uniform(0.4, 0.8)),
                        "accuracy": float(rng.uniform(0.3, 1.0)),
                        "nmi": float(rng.uniform(0, 1)),
                        "ari": float(rng.uniform(0, 1)),
                        "reduce_seconds": red,
                        "cluster_seconds": clu,
                        "total_seconds": red + clu,
                    }
                )
    return pd.DataFrame(rows)


def write_experiment(
    root: Path,
    name: str,
    cells: pd.DataFrame | None,
    expected: pd.DataFrame | None = None,
    config: dict | None = None,
    skipped: str | dict | None = None,
    csv_name: str = "cells.csv",
    **sidecar,
) -> Path:
    """An experiment folder: cells CSV plus one sidecar expecting ``expected`` (default: cells)."""
    exp_dir = root / name
    (exp_dir / "runs").mkdir(parents=True, exist_ok=True)
    if cells is not None:
        cells.to_csv(exp_dir / csv_name, index=False)
    keys = cells if expected is None else expected
    sidecar = {
        "experiment": name,
        "config": config or {},
        "skipped": skipped,
        "expected_cells": [] if keys is None else keys[agg.KEY].to_dict("records"),
        **sidecar,
    }
    (exp_dir / "runs" / "run0.json").write_text(json.dumps(sidecar, default=int))
    return exp_dir
