"""The one column schema of a cell row (``cells/<id>.json`` and ``cells.csv``), and its check.

The contract is ``docs/results-layout.md``. :mod:`kmdr.results.store` re-exports all of it
(readers and the runner import the names from either).
"""

from __future__ import annotations

__all__ = [
    "CSV_COLUMNS",
    "EXTRA_COLUMNS",
    "IDENTITY_COLUMNS",
    "IDENTITY_DEFAULTS",
    "METRIC_COLUMNS",
    "NUMERIC_METRIC_COLUMNS",
    "POINT_COLUMNS",
    "REQUIRED_COLUMNS",
    "RESULT_COLUMNS",
    "TIMING_COLUMNS",
    "cell_problem",
]

#: The columns of ``cells.csv``, in order (docs/results-layout.md); extra columns follow.
CSV_COLUMNS: tuple[str, ...] = (
    "experiment",
    "dataset",
    "reducer",
    "reducer_name",
    "method",
    "r",
    "repetition",
    "seed",
    "n_samples",
    "n_features",
    "n_clusters",
    "reducer_params",
    "kmeans_init",
    "kmeans_n_init",
    "kmeans_max_iter",
    "objective",
    "objective_reduced",
    "accuracy",
    "nmi",
    "ari",
    "n_iter",
    "shared_seconds",
    "shared_key",
    "reduce_seconds",
    "cluster_seconds",
    "total_seconds",
    "n_jobs",
    "blas_threads",
)
#: The columns a cell's computation produces (its metrics and times), as they stand in CSV_COLUMNS.
METRIC_COLUMNS: tuple[str, ...] = CSV_COLUMNS[
    CSV_COLUMNS.index("objective") : CSV_COLUMNS.index("total_seconds") + 1
]
#: Columns after the contract's, for provenance.
EXTRA_COLUMNS: tuple[str, ...] = (
    "converged",
    "reduce_timing",
    "kmeans_tol",
    "dataset_params",
    "base_seed",
    "data_fingerprint",
    "code_tag",
    "cell_id",
    "run_id",
    "finished_at",
    "checksum",
)
#: Everything that changes a cell's numbers, as cells.csv columns: the settings, the fingerprint of
#: the data (``kmdr.datasets.Dataset.fingerprint``), the code's compatibility tag (``code_tag``:
#: the cell format and the reducer's ``compat_version``) and the BLAS/OpenMP threads that computed
#: it (``blas_threads``: a reduction's or k-means' sums, added in another order by another number
#: of threads, differ in their last bits, and a partition can follow them). Two rows that differ in
#: any of them are different cells (their ``cell_id`` hashes these columns).
IDENTITY_COLUMNS: tuple[str, ...] = (
    "dataset",
    "dataset_params",
    "reducer",
    "reducer_name",
    "reducer_params",
    "r",
    "repetition",
    "base_seed",
    "kmeans_init",
    "kmeans_n_init",
    "kmeans_max_iter",
    "kmeans_tol",
    "data_fingerprint",
    "code_tag",
    "blas_threads",
    "kmeans_online_phase",
)
#: Identity columns that joined the identity after cells were first written, each with the text
#: every cell written before had (all were computed with one thread and without k-means' online
#: phase). A column at that value is left out of the cell id
#: (:func:`kmdr.results.records.identity_id`), so those cells keep their ids, and a reader that
#: meets a file without the column (a summary.csv or a sidecar written before) reads that value.
#: One not in CSV_COLUMNS (``kmeans_online_phase``) is written only when not at its default: a row
#: without it (or with it empty) is at the default.
IDENTITY_DEFAULTS: dict[str, str] = {"blas_threads": "1", "kmeans_online_phase": "False"}
#: A point of a figure (a row of summary.csv): a cell's identity without its repetition.
POINT_COLUMNS: tuple[str, ...] = tuple(c for c in IDENTITY_COLUMNS if c != "repetition")


#: Metric columns that must hold numbers (``shared_key`` is a text).
NUMERIC_METRIC_COLUMNS: tuple[str, ...] = tuple(c for c in METRIC_COLUMNS if c != "shared_key")
#: The metric columns that time a cell: measurements of the machine that ran it, not results.
TIMING_COLUMNS: tuple[str, ...] = (
    "shared_seconds",
    "reduce_seconds",
    "cluster_seconds",
    "total_seconds",
)
#: The numbers a cell's computation yields, which a reproduction must give again bit for bit:
#: the metric columns that are numbers and not timings, and the cell's seed.
RESULT_COLUMNS: tuple[str, ...] = (
    *(c for c in NUMERIC_METRIC_COLUMNS if c not in TIMING_COLUMNS),
    "seed",
)
#: Every key a valid cell file has.
REQUIRED_COLUMNS: tuple[str, ...] = tuple(
    dict.fromkeys(
        (
            *CSV_COLUMNS,
            *(c for c in IDENTITY_COLUMNS if c in CSV_COLUMNS or c not in IDENTITY_DEFAULTS),
            "cell_id",
        )
    )
)


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def cell_problem(row, cell_id: str) -> str | None:
    """Why ``row`` is not a valid cell row for ``cell_id`` (one short phrase), or None if it is."""
    if not isinstance(row, dict):
        return f"not a JSON object but {type(row).__name__}"
    missing = [c for c in REQUIRED_COLUMNS if c not in row]
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        return f"missing column(s) {', '.join(missing[:3])}{more}"
    if row["cell_id"] != cell_id:
        return f"cell_id {_short(row['cell_id'])} is not the file's name"
    for col in ("r", "repetition", "blas_threads"):
        if not isinstance(row[col], int) or isinstance(row[col], bool):
            return f"{col} is {_short(row[col])}, not an integer"
    for col in NUMERIC_METRIC_COLUMNS:
        if not _is_number(row[col]):
            return f"{col} is {_short(row[col])}, not a number"
    return None
