"""The authors' numbers: every table of the draft of Draganov, Saulpic and Schwiegelshohn's
*Settling Time vs. Accuracy Tradeoffs for Clustering Big Data* (SIGMOD 2024), transcribed.

Source: the LaTeX of the paper in the authors' repository
``Andrew-Draganov/Fast-Coreset-Generation`` at commit ``98e209a`` (a January 2024 draft),
``tex/tables/``. The transcription is committed as
``results/dss24_published/authors_tables.csv`` (:data:`TABLE`), its README naming each file and
saying where the draft and the final paper may differ; this module is the one place kmdr's code
reads these numbers, and it names the authors' datasets and methods as kmdr does
(:data:`DATASETS`, :data:`METHODS`).

The tables print "means and variances" over 5 runs (their ``experiment_script.py`` runs 3):
the variance is numpy's (ddof 0) in their ``read_metrics.py``, rounded. A test against the
authors' mean needs their sd, which the printed variance bounds only up to its rounding:
:func:`sd_bound` takes the largest sample sd (ddof 1) the printed text allows, at the fewer of
the two numbers of runs, which makes both a difference and an equivalence harder to show (never
easier) than the unrounded variance would.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd

from kmdr._io import read_csv

__all__ = [
    "AUTHORS_DATASET",
    "COLUMNS",
    "COMMIT",
    "DATASETS",
    "DOWNLOADED",
    "METHODS",
    "NOT_RUN",
    "NO_DATASET",
    "REPOSITORY",
    "TABLE",
    "TABLES",
    "number",
    "published",
    "resolve_j",
    "sd_bound",
]

#: The authors' repository and the commit whose ``tex/tables/`` is transcribed.
REPOSITORY = "Andrew-Draganov/Fast-Coreset-Generation"
COMMIT = "98e209a"

#: Where the transcription lives, relative to a results folder (its README beside it).
TABLE = Path("dss24_published") / "authors_tables.csv"

#: The columns of :data:`TABLE` (its README says what each holds).
COLUMNS = (
    "table", "label", "file", "in_draft", "dataset", "method", "j", "gamma", "setting", "k",
    "m_scalar", "coreset_size", "r", "measure", "mean", "mean_text", "spread", "spread_kind",
    "spread_text", "n_runs", "n_runs_code",
)  # fmt: skip

#: kmdr's name of each table, with its title and the final paper's number where the authors'
#: README gives one.
TABLES = {
    "distortion": "Distortion on each dataset at m = 40k and 80k (the draft's tbl:distortion)",
    "composition": "Distortion under merge-and-reduce (streaming) and static (the draft's "
    "tbl:composition)",
    "class_imbalance": "Distortion against the Gaussian mixture's imbalance γ (the draft's "
    "tbl:class-imbalance; the final paper's Table 6)",
    "lloyd": "Cost on all rows of Lloyd's centers found on the coreset (the draft's tbl:lloyds)",
    "log_delta": "Fast-kmeans++'s runtime as log Δ grows (the draft's tbl:logdelta; the final "
    "paper's Table 1)",
}

#: kmdr's datasets of each of the authors' datasets, the paper's own first (its package's
#: loaders), then kmdr's other loaders of the same data (ss22's Cover Type and Census, pb17's
#: MNIST); empty where kmdr has none.
DATASETS = {
    "$c$-outlier": ("dss24_c_outlier",),
    "Geometric": ("dss24_geometric",),
    "Gaussian Mix.": ("dss24_gaussian_mixture",),
    "Benchmark": ("dss24_benchmark",),
    "MNIST": ("dss24_mnist", "mnist"),
    "Cover-Type": ("dss24_covertype", "ss22_covertype"),
    "Census": ("dss24_census", "ss22_census"),
    "Adult": ("dss24_adult",),
    "Song": ("dss24_song",),
    "log Delta testbed": (),
}
#: The authors' datasets kmdr reads from a downloaded file (a preset on them ends with one skip
#: line where the file is missing).
DOWNLOADED = ("MNIST", "Cover-Type", "Census", "Adult", "Song")
#: Why kmdr has no cell on one of the authors' datasets, by their name.
NO_DATASET = {
    "log Delta testbed": "timed by kmdr's bench on the same testbed (their "
    "log_delta_experiments.py), as a growth: see the speed section below; seconds on their "
    "machine are not comparable with another's",
}

#: The authors' dataset of each of kmdr's (the inverse of :data:`DATASETS`).
AUTHORS_DATASET = {kmdr: theirs for theirs, names in DATASETS.items() for kmdr in names}

#: kmdr's construction and its parameters of each of the authors' methods (their names as the
#: tables print them; a welterweight coreset's j is the row's ``j``).
METHODS = {
    "Uniform Sampling": "uniform",
    "Lightweight": "lightweight",
    "LW Coreset": "lightweight",
    "Welterweight": "welterweight",
    "$j=2$": "welterweight",
    "$j=\\log k$": "welterweight",
    "$j=\\sqrt{k}$": "welterweight",
    "BICO": "bico",
    "Fast Coreset": "fast_coreset",
    "Fast-kmeans++": "fast_kmeanspp",
}
#: Why kmdr runs no cell of one of the authors' constructions, by kmdr's name of it.
NOT_RUN = {
    "fast_kmeanspp": "timed by kmdr's bench on the same testbed, as a growth: see the speed "
    "section below",
}

_SUFFIX = {"K": 1e3, "M": 1e6, "B": 1e9}
_NUMBER = re.compile(r"([0-9]+(?:\.([0-9]*))?)([KMB]?)")
#: The decimals the tables print a variance below 10 with (0.01, 0.60, 3.90): a printed "0.0"
#: is a value below half their last digit, not a zero.
_SMALL_DECIMALS = 2


def number(text: str) -> float:
    """A number as the tables print it: ``1.07``, ``24K`` (24,000), ``3.2B`` (3.2e9); NaN for
    an empty text."""
    text = str(text).strip()
    if not text or text == "nan":
        return math.nan
    match = _NUMBER.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not a number as the authors' tables print one")
    return float(match.group(1)) * _SUFFIX.get(match.group(3), 1.0)


def _half_unit(text: str) -> float:
    """Half a unit of ``text``'s last printed digit (its rounding), a printed zero read at the
    tables' two decimals."""
    match = _NUMBER.fullmatch(str(text).strip())
    if match is None:
        raise ValueError(f"{text!r} is not a number as the authors' tables print one")
    decimals = len(match.group(2) or "")
    if number(text) == 0:
        decimals = max(decimals, _SMALL_DECIMALS)
    return 0.5 * 10.0**-decimals * _SUFFIX.get(match.group(3), 1.0)


def sd_bound(spread_text: str, n: int) -> float:
    """The largest sample sd (ddof 1) of ``n`` runs whose variance (numpy's, ddof 0) prints as
    ``spread_text``: the variance plus half a unit of its last digit, times n / (n - 1). NaN
    when there is no text or n < 2."""
    if not str(spread_text).strip() or str(spread_text) == "nan" or n < 2:
        return math.nan
    variance = number(spread_text) + _half_unit(spread_text)
    return math.sqrt(variance * n / (n - 1))


def resolve_j(j, k: int) -> int:
    """A welterweight coreset's number of centers: ``log`` and ``sqrt`` of k truncated (the
    authors' ``int(np.log(k))``, ``int(np.sqrt(k))``, as kmdr's welterweight coreset), at least
    1; an integer as it is."""
    text = str(j).strip()
    if text == "log":
        return max(1, int(math.log(k)))
    if text == "sqrt":
        return max(1, int(math.sqrt(k)))
    return int(float(text))


def published(root: str | Path) -> pd.DataFrame:
    """The committed transcription in the results folder ``root`` (an empty frame of
    :data:`COLUMNS` when it has none), with kmdr's names beside the authors': ``kmdr_dataset``
    (kmdr's first name of it, "" where kmdr has none), ``construction``, ``j_centers`` (a
    welterweight coreset's j as a number of centers, else 0), ``n`` (the fewer runs of the
    caption's and the script's, ``n_runs`` and ``n_runs_code``: the one a test uses, which only
    widens their interval; NaN where neither says) and ``sd`` (:func:`sd_bound` at that n, NaN
    without a printed spread)."""
    path = Path(root) / TABLE
    if not path.is_file():
        return pd.DataFrame(
            columns=[*COLUMNS, "kmdr_dataset", "construction", "j_centers", "n", "sd"]
        )
    frame = read_csv(path, dtype={"j": str, "gamma": str, "m_scalar": str, "spread_text": str,
                                  "mean_text": str},
                     keep_default_na=False, na_values={"mean": [""], "spread": [""]})  # fmt: skip
    frame["kmdr_dataset"] = frame["dataset"].map(lambda d: (DATASETS.get(d) or ("",))[0])
    frame["construction"] = frame["method"].map(METHODS)
    frame["j_centers"] = [
        resolve_j(j, int(k)) if str(j).strip() else 0
        for j, k in zip(frame["j"], frame["k"], strict=True)
    ]
    # the fewer runs of the caption's and the script's: it only widens their interval
    runs = pd.concat(
        [pd.to_numeric(frame[c], errors="coerce") for c in ("n_runs", "n_runs_code")], axis=1
    ).min(axis=1)
    frame["n"] = runs
    frame["sd"] = [
        sd_bound(t, int(n)) if not math.isnan(n) else math.nan
        for t, n in zip(frame["spread_text"], runs, strict=True)
    ]
    return frame
