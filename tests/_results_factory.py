"""Hand-made experiment folders (docs/results-layout.md) shared by the aggregate, figure and
report tests: cells CSVs and run sidecars as the runner writes them (interfaces §1-§3: every row
and every expected cell carries the full cell identity, the sidecar's config its ``preset``),
written without running anything."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr.results.cells import code_tag
from kmdr.results.records import (
    IDENTITY_COLUMNS,
    REQUIRED_COLUMNS,
    identity_id,
    row_fields,
    seal,
)

LABELS = {"leverage": "Sampl/SVD", "sign": "RP", "svd": "SVD", "none": "kMeans"}


def preset(
    title: str,
    figure: str = "bzmd14",
    section: str = "curves",
    order: int = 50,
    paper: str | None = "bzmd14",
) -> dict:
    """A ``preset:`` block (interfaces §3)."""
    return {
        "paper": paper,
        "title": title,
        "figure": figure,
        "section": section,
        "order": order,
        "reproduce": "paper" if paper else "none",
    }


#: The data fingerprint of the hand-made rows (any text; the sidecars record the same).
FINGERPRINT = "content:hand-made"


#: Columns every row has that the tests do not vary.
ROW_DEFAULTS = {
    "n_iter": 10,
    "shared_seconds": 0.0,
    "shared_key": "",
    "n_jobs": 1,
    "blas_threads": 1,
}


def cell_id(row: dict) -> str:
    """The runner's ``cell_id``: the hash of the identity columns' texts."""
    return identity_id(row_fields({c: row[c] for c in IDENTITY_COLUMNS if c in row}))


def make_cells(
    experiment: str,
    grid: dict[str, list[int]],
    reps: int,
    dataset: str = "orl",
    shape: tuple[int, int, int] = (40, 64, 4),
    seed: int = 0,
    labels: dict[str, str] | None = None,
    **settings,
) -> pd.DataFrame:
    """One row per (reducer, r, repetition); ``grid`` maps reducer -> r values ('none' = the
    baseline). ``settings`` override identity columns (``kmeans_n_init=3``, ``base_seed=1``).
    Each row is sealed (its checksum) as the runner seals it, with this code's ``code_tag``."""
    rng = np.random.default_rng(seed)
    labels = {**LABELS, **(labels or {})}
    n, d, k = shape
    rows = []
    for reducer, rs in grid.items():
        for r in rs:
            for rep in range(reps):
                red = 0.0 if reducer == "none" else float(rng.uniform(0.01, 0.1))
                clu = float(rng.uniform(0.01, 0.1))
                row = {
                    "experiment": experiment,
                    "dataset": dataset,
                    "dataset_params": "{}",
                    "reducer": reducer,
                    "reducer_name": reducer,
                    "reducer_params": "{}",
                    "method": labels.get(reducer, reducer),
                    "r": r,
                    "repetition": rep,
                    "base_seed": 0,
                    "kmeans_init": "random",
                    "kmeans_n_init": 5,
                    "kmeans_max_iter": 500,
                    "kmeans_tol": 0.0,
                    "data_fingerprint": FINGERPRINT,
                    "code_tag": code_tag(reducer),
                    **settings,
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
                    **ROW_DEFAULTS,
                }
                row["cell_id"] = cell_id(row)
                row["run_id"] = "run0"
                rows.append(seal(row))
    return pd.DataFrame(rows)


def expected_cells(cells: pd.DataFrame) -> list[dict]:
    """The sidecar's ``expected_cells`` for these rows: the identity, cell_id and method."""
    cells = completed(cells)  # the runner's sidecar gives every identity column, code_tag too
    columns = [c for c in (*IDENTITY_COLUMNS, "method") if c in cells]
    records = json.loads(cells[columns].to_json(orient="records"))
    for record in records:
        record["cell_id"] = cell_id(record)
    return records


def completed(cells: pd.DataFrame) -> pd.DataFrame:
    """``cells`` with the columns every row has that a test left out (unknown metrics: NaN)."""
    defaults = {c: float("nan") for c in REQUIRED_COLUMNS if c != "code_tag"}
    defaults.update({"data_fingerprint": FINGERPRINT, "run_id": "run0", **ROW_DEFAULTS})
    cells = cells.assign(**{k: v for k, v in defaults.items() if k not in cells.columns})
    if "code_tag" not in cells.columns:
        cells["code_tag"] = cells["reducer_name"].map(code_tag)
    return cells


def cells_text(cells: pd.DataFrame) -> str:
    """cells.csv's text for these rows as the runner writes them (after a test changed some
    values): each row with the cell id of its identity and its checksum; missing values left
    empty."""
    cells = completed(cells)
    rows = []
    for row in cells.to_dict("records"):
        row = {k: v for k, v in row.items() if not pd.isna(v)}
        row["cell_id"] = cell_id(row)
        rows.append(row_fields(seal(row)))
    header = list(dict.fromkeys([*cells.columns, "cell_id", "checksum"]))
    return pd.DataFrame(rows, columns=header).to_csv(index=False)


def write_experiment(
    root: Path,
    name: str,
    cells: pd.DataFrame | None,
    expected: pd.DataFrame | None = None,
    config: dict | None = None,
    skipped: str | dict | None = None,
    csv_name: str = "cells.csv",
    run_id: str = "run0",
    status: str | None = None,
    **sidecar,
) -> Path:
    """An experiment folder: cells CSV plus one sidecar expecting ``expected`` (default: cells).

    ``cells=None`` writes no cells.csv (a skipped run, or a first run killed before writing one).
    """
    exp_dir = root / name
    (exp_dir / "runs").mkdir(parents=True, exist_ok=True)
    if cells is not None:
        (exp_dir / csv_name).write_text(cells_text(cells))
    keys = cells if expected is None else expected
    payload = {
        "experiment": name,
        "run_id": run_id,
        "kind": "cells",
        "status": status or ("skipped" if skipped else "complete"),
        "config": {"name": name, **(config or {})},
        "skipped": skipped,
        "expected_cells": [] if keys is None else expected_cells(keys),
        **sidecar,
    }
    (exp_dir / "runs" / f"{run_id}.json").write_text(json.dumps(payload, default=int))
    return exp_dir
