"""The authors' numbers: every run of Schwiegelshohn and Sheikh-Omar's evaluation, summarized.

Source: C. Schwiegelshohn and O. Sheikh-Omar, *An Empirical Evaluation of k-Means Coresets*,
ESA 2022, and their repository ``sheikhomar/eval-k-means-coresets``, whose
``data/results-raw.csv`` holds one row per run (9,310 runs: dataset, algorithm, k, coreset size,
its factor m = size / k, running time in seconds, a real and a coreset cost and their distortion:
on the Benchmark the worst of the Benchmark's own solutions, elsewhere the k-means++ pass's on the
coreset, the worst of its five seedings; and the same for two synthetic solutions).
Their notebooks (``notebooks/01-results-latex.ipynb``) print the mean and standard deviation of
the 10 runs of each (dataset, algorithm, k, m); this module keeps, per such cell, the count, the
median, the quartiles, the extremes and the mean and standard deviation of the distortion and of
the running time, so that a report can set a median beside ours and say how far their own runs
spread.

The raw file is not kmdr's to ship: the table derived from it is committed
(``results/ss22_published/``, :data:`TABLE` and its README naming the source), and
``python -m kmdr.papers.ss22.published --source PATH`` derives it again from a clone of the
authors' repository (bare or not: the file is read at the pinned :data:`COMMIT`) or from the raw
CSV itself (by default ``ss22/results-raw.csv`` in kmdr's data cache, else in its mirror,
``KMDR_DATA_MIRROR``); either way the raw file's sha256 must be :data:`RAW_SHA256`.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr._io import atomic_write_text, read_csv
from kmdr.report._text import md_table

__all__ = [
    "COLUMNS",
    "COMMIT",
    "KEYS",
    "RAW_PATH",
    "RAW_SHA256",
    "REPOSITORY",
    "TABLE",
    "derive",
    "guide_table",
    "local_source",
    "main",
    "published",
    "raw_runs",
    "readme",
]

#: The authors' repository, the commit read and the file in it.
REPOSITORY = "sheikhomar/eval-k-means-coresets"
COMMIT = "2b55808958b280e012043157119458ff23ab5a27"
RAW_PATH = "data/results-raw.csv"
#: sha256 of that file at that commit (1,789,848 bytes, 9,310 runs).
RAW_SHA256 = "5d8c48d05824bacf22a6724461430128eb82d74167bd1f2f44cd637c183cdcd1"
RAW_URL = f"https://raw.githubusercontent.com/{REPOSITORY}/{COMMIT}/{RAW_PATH}"

#: Where the raw file is looked for in kmdr's data cache and mirror (their common layout).
LOCAL_PATH = Path("ss22") / "results-raw.csv"

#: Where the derived table lives, relative to a results folder (and its README beside it).
TABLE = Path("ss22_published") / "authors_runs.csv"

#: One row per cell of the authors' grid.
KEYS = ("dataset", "algorithm", "k", "coreset_size_factor")
#: The measures summarized (their names in the raw file) and the statistics of each.
MEASURES = ("distortion", "running_time")
STATISTICS = ("median", "q1", "q3", "min", "max", "mean", "std", "log_mean", "log_std")
COLUMNS = (
    *KEYS,
    "coreset_size",
    "n_runs",
    *(f"{m}_{s}" for m in MEASURES for s in STATISTICS),
)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def raw_bytes(source: str | Path) -> bytes:
    """The raw file's bytes from ``source``: the CSV itself, or a git repository (a clone or a
    bare mirror) holding it at :data:`COMMIT`; checked against :data:`RAW_SHA256`."""
    source = Path(source)
    if source.is_file():
        data = source.read_bytes()
        where = str(source)
    else:
        try:
            data = subprocess.run(
                ["git", "-C", str(source), "show", f"{COMMIT}:{RAW_PATH}"],
                check=True,
                capture_output=True,
            ).stdout
        except (OSError, subprocess.CalledProcessError) as err:
            why = getattr(err, "stderr", b"") or b""
            raise ValueError(
                f"{source}: neither the authors' CSV nor a clone of {REPOSITORY} holding commit "
                f"{COMMIT[:12]} ({why.decode(errors='replace').strip() or err})"
            ) from None
        where = f"{source} at {COMMIT[:12]}"
    digest = _sha256(data)
    if digest != RAW_SHA256:
        raise ValueError(
            f"{where}: sha256 {digest}, not the {RAW_SHA256} of {REPOSITORY}'s {RAW_PATH} at "
            f"{COMMIT[:12]}: another version of the file"
        )
    return data


def local_source() -> Path | None:
    """The raw file in kmdr's data cache or mirror (``ss22/results-raw.csv`` in either), if
    there; None otherwise."""
    from kmdr.datasets import resolve_data_dir, resolve_mirror

    for folder in (resolve_data_dir(), resolve_mirror()):
        if folder is not None and (folder / LOCAL_PATH).is_file():
            return folder / LOCAL_PATH
    return None


def raw_runs(source: str | Path) -> pd.DataFrame:
    """The authors' runs, one row each, from ``source`` (:func:`raw_bytes`)."""
    return pd.read_csv(io.BytesIO(raw_bytes(source)))


def derive(runs: pd.DataFrame) -> pd.DataFrame:
    """The table of :data:`COLUMNS`: per (dataset, algorithm, k, m) cell, the number of runs and
    each measure's median, quartiles (pandas' linear interpolation), extremes, mean and standard
    deviation (ddof 1, as their notebooks print it), and the mean and standard deviation of its
    log (what a test of a ratio against kmdr's runs needs, the runs themselves not being
    committed), sorted by the keys."""
    g = runs.groupby(list(KEYS), sort=True)
    out = g.agg(coreset_size=("coreset_size", "first"), n_runs=("distortion", "size"))
    for m in MEASURES:
        col = g[m]
        out[f"{m}_median"] = col.median()
        out[f"{m}_q1"] = col.quantile(0.25)
        out[f"{m}_q3"] = col.quantile(0.75)
        out[f"{m}_min"] = col.min()
        out[f"{m}_max"] = col.max()
        out[f"{m}_mean"] = col.mean()
        out[f"{m}_std"] = col.std(ddof=1)
        logs = np.log(runs[m]).groupby([runs[k] for k in KEYS], sort=True)
        out[f"{m}_log_mean"] = logs.mean()
        out[f"{m}_log_std"] = logs.std(ddof=1)
    return out.reset_index()[list(COLUMNS)]


def readme(table: pd.DataFrame) -> str:
    """The README beside the table: its source, how it was derived, its size."""
    return (
        "# The authors' runs, summarized\n\n"
        f"`{TABLE.name}` summarizes every run of C. Schwiegelshohn and O. Sheikh-Omar, *An "
        "Empirical Evaluation of k-Means Coresets* (ESA 2022), as their repository publishes "
        "them. Derived by `python -m kmdr.papers.ss22.published --source PATH` "
        "(`src/kmdr/papers/ss22/published.py`); not edited by hand.\n\n"
        f"- Repository: https://github.com/{REPOSITORY}\n"
        f"- Commit: `{COMMIT}`\n"
        f"- File: `{RAW_PATH}` ({RAW_URL})\n"
        f"- sha256 of the file: `{RAW_SHA256}`\n\n"
        f"{len(table)} rows, one per (dataset, algorithm, k, coreset size factor m), from "
        f"{int(table['n_runs'].sum())} runs ({int(table['n_runs'].min())} to "
        f"{int(table['n_runs'].max())} per row); {table['dataset'].nunique()} datasets, "
        f"{table['algorithm'].nunique()} algorithms. For the distortion (the file's "
        "`distortion`, the number the paper's tables report: on the Benchmark the largest over "
        "the Benchmark's own solutions, for each block and ε the means of the clusters the "
        "coreset does not starve (their `xrun/eval_benchmark.py`); on the other datasets that "
        "of the centers the k-means++ pass on the coreset leaves, the worst of its five "
        "seedings (their `xrun/calc_costs.py`)) and the running "
        "time (`running_time`, whole seconds as the file records them; their runner "
        "`xrun/go.py` records a run's wall-clock duration from its start to its done file, "
        "reading the data included, with several runs at a time on one machine): the "
        "median, the "
        "quartiles `q1` and `q3` (linear interpolation), `min`, `max`, and the mean and "
        "standard deviation (ddof 1) that the paper's tables print, and the mean and standard "
        "deviation of the natural log (`log_mean`, `log_std`: the two-sample test of a ratio "
        "against kmdr's runs reads them). The raw file itself is not "
        "committed (it is the authors' data); the test of this table derives it again where "
        "the raw file can be read.\n"
    )


def guide_table(table: pd.DataFrame, dataset: str = "Benchmark", k: int = 20) -> str:
    """The guide's table of the authors' distortions on ``dataset`` at ``k``: one row per
    algorithm, one column per coreset size factor m, each cell the median [min–max] of the
    runs (Markdown; the guide's test makes it again from the committed table)."""
    rows = table[(table["dataset"] == dataset) & (table["k"] == k)]
    factors = sorted(rows["coreset_size_factor"].unique())
    body = []
    for algorithm, runs in rows.groupby("algorithm", sort=True):
        by_m = runs.set_index("coreset_size_factor")
        body.append(
            [algorithm]
            + [
                f"{by_m.at[m, 'distortion_median']:.3f} [{by_m.at[m, 'distortion_min']:.3f}–"
                f"{by_m.at[m, 'distortion_max']:.3f}]"
                if m in by_m.index
                else "not run"
                for m in factors
            ]
        )
    return md_table(["algorithm", *(f"m = {m}" for m in factors)], body, "l" + "r" * len(factors))


def published(root: str | Path) -> pd.DataFrame:
    """The committed table in the results folder ``root`` (an empty frame when it has none)."""
    path = Path(root) / TABLE
    return read_csv(path) if path.is_file() else pd.DataFrame(columns=list(COLUMNS))


def write(table: pd.DataFrame, root: str | Path) -> Path:
    """Write ``table`` and its README under the results folder ``root``; the table's path."""
    path = Path(root) / TABLE
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, table.to_csv(index=False, float_format="%.10g", lineterminator="\n"))
    atomic_write_text(path.with_name("README.md"), readme(table))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kmdr.papers.ss22.published",
        description=f"Derive the table of the authors' runs from {REPOSITORY}'s {RAW_PATH}.",
    )
    parser.add_argument(
        "--source",
        help=f"the raw CSV, or a clone of {REPOSITORY} (bare or not) holding {COMMIT[:12]}; "
        f"default: {LOCAL_PATH} in kmdr's data cache, else in KMDR_DATA_MIRROR",
    )
    parser.add_argument("--results", default="results", help="the results folder to write into")
    args = parser.parse_args(argv)
    source = args.source or local_source()
    if source is None:
        parser.exit(
            1,
            f"kmdr: no {LOCAL_PATH} in the data cache or KMDR_DATA_MIRROR: give "
            f"--source (the file is {RAW_URL})\n",
        )
    try:
        table = derive(raw_runs(source))
    except ValueError as err:
        parser.exit(1, f"kmdr: {err}\n")
    print(write(table, args.results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
